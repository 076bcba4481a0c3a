//! The request metadata headers of Streamable HTTP on protocol 2026-07-28: `Mcp-Method`,
//! `Mcp-Name` (a tool's name, a resource's URI, a task's id) and `MCP-Protocol-Version` taken
//! from the request body, with the Base64 sentinel for values that are not plain ASCII. Both
//! taskcheck's client (which must set them) and the extension's reference server (which must
//! check them) use this.

use base64::Engine;
use serde_json::Value;

/// The per-request `_meta` key of the protocol version (2026-07-28 on).
pub const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

/// The method header.
pub const METHOD_HEADER: &str = "mcp-method";
/// The name header.
pub const NAME_HEADER: &str = "mcp-name";
/// The protocol version header.
pub const VERSION_HEADER: &str = "mcp-protocol-version";

/// The headers a request body calls for: (name, value) pairs, values encoded. A body without
/// the per-request protocol version (a 2025-11-25 request) calls for none.
pub fn headers_for(body: &Value) -> Vec<(&'static str, String)> {
    let Some(method) = body.get("method").and_then(Value::as_str) else {
        return Vec::new();
    };
    let params = body.get("params").unwrap_or(&Value::Null);
    let Some(version) = params
        .get("_meta")
        .and_then(|m| m.get(META_VERSION))
        .and_then(Value::as_str)
    else {
        return Vec::new();
    };
    let mut out = vec![
        (VERSION_HEADER, version.to_string()),
        (METHOD_HEADER, encode(method)),
    ];
    if let Some(name) = name_of(method, params) {
        out.push((NAME_HEADER, encode(&name)));
    }
    out
}

/// The request metadata headers a request goes out with: those its body calls for, less
/// those `overrides` leave out (None), with the values `overrides` set.
pub fn headers_sent(
    body: &Value,
    overrides: &[(String, Option<String>)],
) -> std::collections::BTreeMap<String, String> {
    let mut sent: std::collections::BTreeMap<String, String> = headers_for(body)
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    for (name, value) in overrides {
        let name = name.to_ascii_lowercase();
        match value {
            Some(v) => sent.insert(name, v.clone()),
            None => sent.remove(&name),
        };
    }
    sent
}

/// The body value `Mcp-Name` mirrors for a method, if it has one: a string as it is, a number
/// or a boolean (a malformed body, sent on purpose) as its JSON text; null, an object or an
/// array has no value a header can carry.
pub fn name_of(method: &str, params: &Value) -> Option<String> {
    let field = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        "tasks/get" | "tasks/update" | "tasks/cancel" => "taskId",
        _ => return None,
    };
    match params.get(field)? {
        Value::String(s) => Some(s.clone()),
        v @ (Value::Number(_) | Value::Bool(_)) => Some(v.to_string()),
        _ => None,
    }
}

/// A header value: as it is when it is plain visible ASCII (spaces inside only) and does not
/// look like the sentinel, else `=?base64?…?=`.
pub fn encode(value: &str) -> String {
    let visible = value.bytes().all(|b| (0x20..0x7f).contains(&b));
    let padded = value.starts_with(' ') || value.ends_with(' ');
    let sentinel = value.starts_with("=?base64?") && value.ends_with("?=");
    match visible && !padded && !sentinel {
        true => value.to_string(),
        false => format!(
            "=?base64?{}?=",
            base64::engine::general_purpose::STANDARD.encode(value)
        ),
    }
}

/// A header value decoded (None if its Base64 is broken or not UTF-8).
pub fn decode(value: &str) -> Option<String> {
    match value
        .strip_prefix("=?base64?")
        .and_then(|v| v.strip_suffix("?="))
    {
        Some(b64) => base64::engine::general_purpose::STANDARD
            .decode(b64)
            .ok()
            .and_then(|b| String::from_utf8(b).ok()),
        None => Some(value.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_are_encoded_as_the_transport_says_and_decode_back() {
        for (value, encoded) in [
            ("us-west1", "us-west1"),
            ("Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="),
            (" padded ", "=?base64?IHBhZGRlZCA=?="),
            ("line1\nline2", "=?base64?bGluZTEKbGluZTI=?="),
            ("=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="),
        ] {
            assert_eq!(encode(value), encoded);
            assert_eq!(decode(encoded).as_deref(), Some(value));
        }
    }

    #[test]
    fn modern_requests_carry_method_name_and_version() {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tasks/get",
            "params": {"taskId": "t-1", "_meta": {META_VERSION: "2026-07-28"}}});
        assert_eq!(
            headers_for(&body),
            vec![
                (VERSION_HEADER, "2026-07-28".to_string()),
                (METHOD_HEADER, "tasks/get".to_string()),
                (NAME_HEADER, "t-1".to_string()),
            ]
        );
        let legacy =
            json!({"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"taskId": "t"}});
        assert!(headers_for(&legacy).is_empty());
        // a malformed taskId sent on purpose: a number is mirrored as its text, null is not
        let name = |id: Value| {
            let body = json!({"method": "tasks/get",
                "params": {"taskId": id, "_meta": {META_VERSION: "2026-07-28"}}});
            headers_for(&body)
                .into_iter()
                .find(|(n, _)| *n == NAME_HEADER)
                .map(|(_, v)| v)
        };
        assert_eq!(name(json!(42)), Some("42".to_string()));
        assert_eq!(name(Value::Null), None);
    }
}
