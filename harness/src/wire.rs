//! JSON-RPC 2.0 message decoding for what a receiver sends, with a size bound.

use serde_json::{json, Map, Value};

/// `_meta` key associating a message with a task.
pub const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";
/// `_meta` key of the optional immediate tool result in a CreateTaskResult.
pub const MODEL_IMMEDIATE_RESPONSE: &str = "io.modelcontextprotocol/model-immediate-response";

/// JSON-RPC error codes used by the Tasks utility.
pub mod code {
    pub const PARSE_ERROR: i64 = -32700;
    pub const INVALID_REQUEST: i64 = -32600;
    pub const METHOD_NOT_FOUND: i64 = -32601;
    pub const INVALID_PARAMS: i64 = -32602;
    pub const INTERNAL_ERROR: i64 = -32603;
    /// MCP's "Resource not found", which some receivers answer for an unknown task.
    pub const RESOURCE_NOT_FOUND: i64 = -32002;
}

/// Whether an error answer to a request naming a task by a well-formed `taskId` says the
/// task does not exist, whatever its code. To a request that only `reads` the task
/// (tasks/get), -32602 can mean nothing else; to tasks/cancel it is also the answer for a
/// terminal task, and to tasks/result a refusal, so there only -32002 or the message's words
/// count.
pub fn says_task_not_found(reads: bool, error: &Value) -> bool {
    let code = error.get("code").and_then(Value::as_i64);
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_ascii_lowercase();
    let worded = [
        "not found",
        "no such task",
        "unknown task",
        "does not exist",
        "doesn't exist",
        "expired",
    ]
    .iter()
    .any(|w| message.contains(w));
    // "Method not found" is about the method, not the task
    let about_method = code == Some(code::METHOD_NOT_FOUND) || message.contains("method not found");
    !about_method
        && (worded
            || code == Some(code::RESOURCE_NOT_FOUND)
            || (reads && code == Some(code::INVALID_PARAMS)))
}

/// One decoded JSON-RPC message.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    Request {
        id: Value,
        method: String,
        params: Value,
    },
    Notification {
        method: String,
        params: Value,
    },
    Response {
        id: Value,
        outcome: Outcome,
    },
}

/// The outcome a response carries.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Result(Value),
    Error(Value),
}

/// Why bytes are not a JSON-RPC message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeError {
    TooLong { len: usize, limit: usize },
    NotUtf8,
    NotJson(String),
    NotJsonRpc(String),
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DecodeError::TooLong { len, limit } => {
                write!(f, "message of {len} bytes exceeds the {limit}-byte limit")
            }
            DecodeError::NotUtf8 => write!(f, "message is not valid UTF-8"),
            DecodeError::NotJson(e) => write!(f, "not JSON: {e}"),
            DecodeError::NotJsonRpc(e) => write!(f, "not a JSON-RPC 2.0 message: {e}"),
        }
    }
}

/// Decodes one message from raw bytes (a stdio line or an SSE data field).
pub fn decode(bytes: &[u8], limit: usize) -> Result<(Value, Message), DecodeError> {
    if bytes.len() > limit {
        return Err(DecodeError::TooLong {
            len: bytes.len(),
            limit,
        });
    }
    let text = std::str::from_utf8(bytes).map_err(|_| DecodeError::NotUtf8)?;
    let value: Value =
        serde_json::from_str(text).map_err(|e| DecodeError::NotJson(e.to_string()))?;
    let message = classify(&value)?;
    Ok((value, message))
}

/// A decoded JSON-RPC message that borrows from the value it was read from (judging a
/// trace reads every message once and copies none).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MessageRef<'a> {
    Request {
        id: &'a Value,
        method: &'a str,
        params: &'a Value,
    },
    Notification {
        method: &'a str,
        params: &'a Value,
    },
    Response {
        id: &'a Value,
        outcome: OutcomeRef<'a>,
    },
}

/// The outcome a borrowed response carries.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum OutcomeRef<'a> {
    Result(&'a Value),
    Error(&'a Value),
}

impl MessageRef<'_> {
    /// The message as an owned copy.
    pub fn to_owned(self) -> Message {
        match self {
            MessageRef::Request { id, method, params } => Message::Request {
                id: id.clone(),
                method: method.to_string(),
                params: params.clone(),
            },
            MessageRef::Notification { method, params } => Message::Notification {
                method: method.to_string(),
                params: params.clone(),
            },
            MessageRef::Response { id, outcome } => Message::Response {
                id: id.clone(),
                outcome: match outcome {
                    OutcomeRef::Result(r) => Outcome::Result(r.clone()),
                    OutcomeRef::Error(e) => Outcome::Error(e.clone()),
                },
            },
        }
    }
}

/// Classifies a JSON value as a request, notification or response.
pub fn classify(value: &Value) -> Result<Message, DecodeError> {
    classify_ref(value).map(MessageRef::to_owned)
}

/// Classifies a JSON value as a request, notification or response, borrowing its parts.
pub fn classify_ref(value: &Value) -> Result<MessageRef<'_>, DecodeError> {
    static NULL: Value = Value::Null;
    let obj = value
        .as_object()
        .ok_or_else(|| DecodeError::NotJsonRpc("not an object".into()))?;
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(DecodeError::NotJsonRpc("`jsonrpc` is not \"2.0\"".into()));
    }
    let params = obj.get("params").unwrap_or(&NULL);
    if let Some(method) = obj.get("method") {
        let method = method
            .as_str()
            .ok_or_else(|| DecodeError::NotJsonRpc("`method` is not a string".into()))?;
        return match obj.get("id") {
            Some(id) if is_valid_id(id) => Ok(MessageRef::Request { id, method, params }),
            Some(_) => Err(DecodeError::NotJsonRpc(
                "request `id` is not a string or integer".into(),
            )),
            None => Ok(MessageRef::Notification { method, params }),
        };
    }
    // the schema lets an error response leave out `id` (it answers input whose id is unreadable)
    let id = match (obj.get("id"), obj.get("error")) {
        (Some(id), _) => id,
        (None, Some(_)) => &NULL,
        (None, None) => return Err(DecodeError::NotJsonRpc("neither `method` nor `id`".into())),
    };
    match (obj.get("result"), obj.get("error")) {
        (Some(r), None) => Ok(MessageRef::Response {
            id,
            outcome: OutcomeRef::Result(r),
        }),
        (None, Some(e)) if e.get("code").is_some_and(Value::is_i64) => Ok(MessageRef::Response {
            id,
            outcome: OutcomeRef::Error(e),
        }),
        (None, Some(_)) => Err(DecodeError::NotJsonRpc(
            "`error` lacks an integer `code`".into(),
        )),
        _ => Err(DecodeError::NotJsonRpc(
            "a response needs exactly one of `result` and `error`".into(),
        )),
    }
}

/// Whether a request id is one JSON-RPC allows here (a string or an integer).
pub fn is_valid_id(id: &Value) -> bool {
    id.is_string() || id.is_i64() || id.is_u64()
}

/// The ids raw text carries: the `id` of a JSON object, or of each element of a JSON array.
/// Text that is not JSON may still be read by a lenient parser (`NaN`, single quotes, two
/// messages on a line), so its ids are what an `id` key in it is followed by.
pub fn raw_ids(text: &str) -> Vec<Value> {
    let ids = |v: &Value| v.get("id").cloned().into_iter().collect::<Vec<_>>();
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Array(items)) => items.iter().flat_map(ids).collect(),
        Ok(v) => ids(&v),
        Err(_) => lenient_ids(text),
    }
}

/// The string or integer after each quoted `id` key of text that is not JSON.
fn lenient_ids(text: &str) -> Vec<Value> {
    let mut found = Vec::new();
    for quote in ['"', '\''] {
        let key = format!("{quote}id{quote}");
        for (at, _) in text.match_indices(&key) {
            let rest = text[at + key.len()..].trim_start();
            let Some(value) = rest.strip_prefix(':').map(str::trim_start) else {
                continue;
            };
            let id = match value.chars().next() {
                Some(q @ ('"' | '\'')) => value[1..].split(q).next().map(|s| json!(s)),
                Some(c) if c.is_ascii_digit() || c == '-' => {
                    let end = value[1..]
                        .find(|c: char| !c.is_ascii_digit())
                        .map_or(value.len(), |n| n + 1);
                    value[..end].parse::<i64>().ok().map(|n| json!(n))
                }
                _ => None,
            };
            if let Some(id) = id.filter(|id| !found.contains(id)) {
                found.push(id);
            }
        }
    }
    found
}

/// Builds a request.
pub fn request(id: &Value, method: &str, params: &Value) -> Value {
    let mut m = Map::new();
    m.insert("jsonrpc".into(), json!("2.0"));
    m.insert("id".into(), id.clone());
    m.insert("method".into(), json!(method));
    if !params.is_null() {
        m.insert("params".into(), params.clone());
    }
    Value::Object(m)
}

/// Builds a notification.
pub fn notification(method: &str, params: &Value) -> Value {
    let mut m = Map::new();
    m.insert("jsonrpc".into(), json!("2.0"));
    m.insert("method".into(), json!(method));
    if !params.is_null() {
        m.insert("params".into(), params.clone());
    }
    Value::Object(m)
}

/// Builds a success response.
pub fn result(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// Builds an error response.
pub fn error(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// The related-task id in an object's `_meta`, if present and a string.
pub fn related_task_id(object: &Value) -> Option<&str> {
    related_task_value(object)?.as_str()
}

/// The related-task id in an object's `_meta`, whatever its JSON type.
pub fn related_task_value(object: &Value) -> Option<&Value> {
    object.get("_meta")?.get(RELATED_TASK)?.get("taskId")
}

/// A task id as text: a string as it is, any other JSON value as JSON (judged by tasks.id.string).
pub fn id_text(id: &Value) -> String {
    id.as_str()
        .map(str::to_string)
        .unwrap_or_else(|| id.to_string())
}

/// Whether an object's `_meta` has the related-task key at all.
pub fn has_related_task(object: &Value) -> bool {
    object
        .get("_meta")
        .and_then(|m| m.get(RELATED_TASK))
        .is_some()
}

/// Copies the task `request` names under `_meta[key]` into `reply`'s `_meta` (a reply that is
/// no object, or whose `_meta` is none, is left as it is).
pub fn name_the_task(reply: &mut Value, request: &Value, key: &str) {
    let Some(task) = request.get("_meta").and_then(|m| m.get(key)) else {
        return;
    };
    let Some(reply) = reply.as_object_mut() else {
        return;
    };
    let meta = reply
        .entry("_meta")
        .or_insert_with(|| Value::Object(Default::default()));
    if let Some(meta) = meta.as_object_mut() {
        meta.insert(key.to_string(), task.clone());
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_answer_names_the_task_its_request_named() {
        let key = RELATED_TASK;
        let asked = json!({"_meta": {key: {"taskId": "t1"}}});
        let mut reply = json!({"action": "accept", "_meta": {"x": 1}});
        name_the_task(&mut reply, &asked, key);
        assert_eq!(reply["_meta"], json!({"x": 1, key: {"taskId": "t1"}}));
        // a request naming no task, a reply that is no object or a _meta that is none: as it was
        let mut plain = json!({"action": "decline"});
        name_the_task(&mut plain, &json!({}), key);
        assert_eq!(plain, json!({"action": "decline"}));
        for odd in [json!("text"), json!({"_meta": 5})] {
            let mut reply = odd.clone();
            name_the_task(&mut reply, &asked, key);
            assert_eq!(reply, odd);
        }
    }

    #[test]
    fn ids_are_read_from_text_a_lenient_parser_accepts() {
        let nan = r#"{"jsonrpc":"2.0","id":"fw-1","method":"ping","params":{"x":NaN}}"#;
        assert_eq!(raw_ids(nan), vec![json!("fw-1")]);
        let twice = r#"{"id":7,"method":"ping"}{"id": 7,"method":"ping"}"#;
        assert_eq!(raw_ids(twice), vec![json!(7)]);
        assert_eq!(raw_ids("{'jsonrpc':'2.0','id':'a',"), vec![json!("a")]);
        assert_eq!(raw_ids(r#"{"id":-3}"#), vec![json!(-3)]);
        assert!(raw_ids("not json, no id").is_empty());
        assert!(raw_ids(r#"{"id": [1]"#).is_empty());
    }

    use super::*;

    #[test]
    fn classifies_every_shape() {
        let (_, m) = decode(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, 100).unwrap();
        assert!(matches!(m, Message::Request { method, .. } if method == "ping"));
        let (_, m) = decode(br#"{"jsonrpc":"2.0","method":"n"}"#, 100).unwrap();
        assert!(matches!(m, Message::Notification { .. }));
        let (_, m) = decode(br#"{"jsonrpc":"2.0","id":"a","result":{}}"#, 100).unwrap();
        assert!(matches!(
            m,
            Message::Response {
                outcome: Outcome::Result(_),
                ..
            }
        ));
        let (_, m) = decode(
            br#"{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":""}}"#,
            100,
        )
        .unwrap();
        assert!(matches!(
            m,
            Message::Response {
                outcome: Outcome::Error(_),
                ..
            }
        ));
    }

    #[test]
    fn rejects_what_is_not_json_rpc() {
        assert_eq!(
            decode(b"xx", 1).unwrap_err(),
            DecodeError::TooLong { len: 2, limit: 1 }
        );
        assert!(matches!(decode(b"\xff", 10), Err(DecodeError::NotUtf8)));
        assert!(matches!(decode(b"hello", 10), Err(DecodeError::NotJson(_))));
        assert!(matches!(
            decode(b"[1]", 10),
            Err(DecodeError::NotJsonRpc(_))
        ));
        assert!(matches!(
            decode(br#"{"jsonrpc":"2.0","id":1}"#, 99),
            Err(DecodeError::NotJsonRpc(_))
        ));
        assert!(matches!(
            decode(
                br#"{"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1}}"#,
                99
            ),
            Err(DecodeError::NotJsonRpc(_))
        ));
    }

    #[test]
    fn reads_related_task() {
        let v = json!({"_meta": {RELATED_TASK: {"taskId": "t"}}});
        assert_eq!(related_task_id(&v), Some("t"));
        assert!(has_related_task(&v));
        assert!(!has_related_task(&json!({})));
    }
}
