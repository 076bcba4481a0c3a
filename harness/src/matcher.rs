//! Subset matching of JSON answers against scenario patterns, with captures and `${var}` use.
//!
//! A pattern is JSON. Objects match as subsets (extra keys allowed), arrays element-wise,
//! scalars by equality. An object whose keys all start with `$` is a matcher:
//! `$capture: name` binds the value; `$type: string|integer|number|boolean|object|array|null`;
//! `$present: true`; `$absent: true` (only as an object member: the key must be missing);
//! `$any_of: [patterns]`; `$not: pattern`; `$contains: [patterns]` (each matches an element
//! of its own: two equal patterns need two such elements);
//! `$same: value` (equal by meaning: a top-level `_meta` is ignored on both sides, a
//! top-level `isError: false` is the same as none, as the schema's default says, and so is a
//! `resultType: "complete"`, which 2026-07-28 clients read into an absent one).
//!
//! `{$scaled: N}`, in what a step sends and in what it expects, is a duration of `N` ms that
//! `--timeout-scale` stretches ([`scale`] puts the stretched number in before a value is sent
//! or compared); every other number is sent and compared exactly as written.

use serde_json::{Map, Value};
use std::collections::HashMap;

/// Captured values by name.
pub type Vars = HashMap<String, Value>;

const MATCHERS: [&str; 9] = [
    "$capture",
    "$type",
    "$present",
    "$absent",
    "$any_of",
    "$not",
    "$contains",
    "$same",
    "$values",
];
const TYPES: [&str; 7] = [
    "string", "integer", "number", "boolean", "object", "array", "null",
];

/// Where and why an answer did not match.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    pub path: String,
    pub reason: String,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = if self.path.is_empty() {
            "(root)"
        } else {
            &self.path
        };
        write!(f, "at {path}: {}", self.reason)
    }
}

fn matcher_object(p: &Value) -> Option<&Map<String, Value>> {
    p.as_object()
        .filter(|m| !m.is_empty() && m.keys().all(|k| k.starts_with('$')))
}

/// The marker of a duration `--timeout-scale` stretches.
const SCALED: &str = "$scaled";

/// The `N` of a `{$scaled: N}`.
pub fn scaled_ms(value: &Value) -> Option<u64> {
    let map = value.as_object().filter(|m| m.len() == 1)?;
    map.get(SCALED)?.as_u64()
}

/// The value with every `{$scaled: N}` in it replaced by `N` times `factor` (whole ms).
pub fn scale(value: &Value, factor: f64) -> Value {
    if let Some(ms) = scaled_ms(value) {
        return Value::from((ms as f64 * factor).round() as u64);
    }
    match value {
        Value::Array(items) => items.iter().map(|v| scale(v, factor)).collect(),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), scale(v, factor)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Checks every `{$scaled: N}` in a value stands alone with a whole number of ms.
pub fn validate_scaled(value: &Value) -> Result<(), String> {
    match value {
        Value::Object(map) if map.contains_key(SCALED) => match scaled_ms(value) {
            Some(_) => Ok(()),
            None => Err(format!(
                "`{SCALED}` takes a whole number of ms and stands alone in its object, not {}",
                short(value)
            )),
        },
        Value::Object(map) => map.values().try_for_each(validate_scaled),
        Value::Array(items) => items.iter().try_for_each(validate_scaled),
        _ => Ok(()),
    }
}

/// Checks a pattern's matchers are known and well-formed.
pub fn validate(pattern: &Value) -> Result<(), String> {
    validate_scaled(pattern)?;
    match pattern {
        Value::Object(map) => {
            for (k, v) in map {
                if k.starts_with('$') && k != SCALED {
                    if !MATCHERS.contains(&k.as_str()) {
                        return Err(format!(
                            "unknown matcher `{k}` (one of {})",
                            MATCHERS.join(", ")
                        ));
                    }
                    match k.as_str() {
                        "$type" if !v.as_str().is_some_and(|t| TYPES.contains(&t)) => {
                            return Err(format!("`$type` takes one of {}", TYPES.join(", ")))
                        }
                        "$capture" if !v.is_string() => {
                            return Err("`$capture` takes a variable name".into())
                        }
                        "$present" | "$absent" if v != &Value::Bool(true) => {
                            return Err(format!("`{k}` takes `true`"))
                        }
                        "$any_of" | "$contains" | "$values" if !v.is_array() => {
                            return Err(format!("`{k}` takes a list of patterns"))
                        }
                        _ => {}
                    }
                }
                validate(v)?;
            }
            Ok(())
        }
        Value::Array(items) => items.iter().try_for_each(validate),
        _ => Ok(()),
    }
}

/// Replaces `${name}` and `${name.path.0}` in strings; a string that is only a reference
/// becomes the referenced value itself.
pub fn substitute(value: &Value, vars: &Vars) -> Result<Value, String> {
    Ok(match value {
        Value::String(s) => substitute_str(s, vars)?,
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|v| substitute(v, vars))
                .collect::<Result<_, _>>()?,
        ),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| Ok((k.clone(), substitute(v, vars)?)))
                .collect::<Result<_, String>>()?,
        ),
        other => other.clone(),
    })
}

/// The names of the captures a value uses (`${name}` and `${name.path}`, anywhere in it).
pub fn references(value: &Value) -> Vec<String> {
    match value {
        Value::String(s) => s
            .split("${")
            .skip(1)
            .filter_map(|r| r.split_once('}'))
            .map(|(inner, _)| inner.split('.').next().unwrap_or_default().to_string())
            .collect(),
        Value::Array(items) => items.iter().flat_map(references).collect(),
        Value::Object(map) => map.values().flat_map(references).collect(),
        _ => Vec::new(),
    }
}

/// The names a pattern binds with `$capture`.
pub fn captures(pattern: &Value) -> Vec<String> {
    match pattern {
        Value::Object(map) => map
            .iter()
            .flat_map(|(k, v)| match (k.as_str(), v) {
                ("$capture", Value::String(name)) => vec![name.clone()],
                _ => captures(v),
            })
            .collect(),
        Value::Array(items) => items.iter().flat_map(captures).collect(),
        _ => Vec::new(),
    }
}

fn lookup(reference: &str, vars: &Vars) -> Result<Value, String> {
    let mut parts = reference.split('.');
    let name = parts.next().unwrap_or_default();
    let mut value = vars
        .get(name)
        .ok_or_else(|| format!("`${{{reference}}}`: nothing was captured as {name:?}"))?;
    for part in parts {
        value = match value {
            Value::Array(a) => part.parse::<usize>().ok().and_then(|i| a.get(i)),
            Value::Object(o) => o.get(part),
            _ => None,
        }
        .ok_or_else(|| format!("`${{{reference}}}`: {part:?} is not in the captured value"))?;
    }
    Ok(value.clone())
}

fn substitute_str(s: &str, vars: &Vars) -> Result<Value, String> {
    if let Some(inner) = s.strip_prefix("${").and_then(|r| r.strip_suffix('}')) {
        if !inner.contains('}') {
            return lookup(inner, vars);
        }
    }
    let mut out = String::new();
    let mut rest = s;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let end = rest[start..]
            .find('}')
            .ok_or_else(|| format!("unclosed `${{` in {s:?}"))?
            + start;
        match lookup(&rest[start + 2..end], vars)? {
            Value::String(v) => out.push_str(&v),
            other => out.push_str(&other.to_string()),
        }
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    Ok(Value::String(out))
}

/// Matches `actual` against `pattern` (already substituted), binding captures into `vars`.
pub fn matches(pattern: &Value, actual: &Value, vars: &mut Vars) -> Result<(), Mismatch> {
    match_at(pattern, Some(actual), "", vars)
}

fn fail(path: &str, reason: String) -> Result<(), Mismatch> {
    Err(Mismatch {
        path: path.to_string(),
        reason,
    })
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A result or error as `$same` compares it: without `_meta`, and without an `isError` or
/// `resultType` that says what its absence says.
fn without_meta(v: &Value) -> Value {
    let mut v = v.clone();
    if let Some(o) = v.as_object_mut() {
        o.remove("_meta");
        if o.get("isError") == Some(&Value::Bool(false)) {
            o.remove("isError");
        }
        if o.get("resultType").and_then(Value::as_str) == Some("complete") {
            o.remove("resultType");
        }
    }
    v
}

/// Whether each pattern matches a value of its own, every value taken (`all`) or not.
fn one_each(patterns: &[Value], values: &[&Value], path: &str, all: bool) -> bool {
    let Some((first, rest)) = patterns.split_first() else {
        return !all || values.is_empty();
    };
    (0..values.len()).any(|i| {
        let fits = match_at(first, Some(values[i]), path, &mut Vars::new()).is_ok();
        let mut others = values.to_vec();
        others.remove(i);
        fits && one_each(rest, &others, path, all)
    })
}

fn match_at(
    pattern: &Value,
    actual: Option<&Value>,
    path: &str,
    vars: &mut Vars,
) -> Result<(), Mismatch> {
    if let Some(m) = matcher_object(pattern) {
        if m.contains_key("$absent") {
            return match actual {
                None => Ok(()),
                Some(v) => fail(path, format!("must be absent, found {}", short(v))),
            };
        }
        let Some(actual) = actual else {
            return fail(path, "is missing".into());
        };
        for (k, v) in m {
            match k.as_str() {
                "$capture" => {
                    vars.insert(v.as_str().unwrap_or_default().to_string(), actual.clone());
                }
                "$type" => {
                    let want = v.as_str().unwrap_or_default();
                    let got = type_name(actual);
                    if !(got == want || (want == "number" && got == "integer")) {
                        return fail(
                            path,
                            format!("must be of type {want}, found {got} {}", short(actual)),
                        );
                    }
                }
                "$any_of" => {
                    let options = v.as_array().map(Vec::as_slice).unwrap_or_default();
                    match options
                        .iter()
                        .find(|o| match_at(o, Some(actual), path, &mut vars.clone()).is_ok())
                    {
                        Some(o) => match_at(o, Some(actual), path, vars)?,
                        None => {
                            return fail(
                                path,
                                format!("matches none of {}, found {}", short(v), short(actual)),
                            )
                        }
                    }
                }
                "$not" if match_at(v, Some(actual), path, &mut vars.clone()).is_ok() => {
                    // the value itself, when the pattern is one, said once
                    let why = match v == actual {
                        true => format!("is {}, which it must not be", short(actual)),
                        false => format!("must not match {}, found {}", short(v), short(actual)),
                    };
                    return fail(path, why);
                }
                "$contains" => {
                    // an object's values, whatever its keys (the receiver's own names)
                    let items: Vec<&Value> = match actual {
                        Value::Array(items) => items.iter().collect(),
                        Value::Object(map) => map.values().collect(),
                        _ => {
                            return fail(
                                path,
                                format!("must be an array or object, found {}", short(actual)),
                            )
                        }
                    };
                    let wanted = v.as_array().map(Vec::as_slice).unwrap_or_default();
                    for want in wanted {
                        if !items
                            .iter()
                            .any(|i| match_at(want, Some(*i), path, &mut vars.clone()).is_ok())
                        {
                            return fail(path, format!("no element matches {}", short(want)));
                        }
                    }
                    if !one_each(wanted, &items, path, false) {
                        return fail(
                            path,
                            format!(
                                "must hold {} elements matching {}, each a different one; found {}",
                                wanted.len(),
                                short(v),
                                short(actual)
                            ),
                        );
                    }
                }
                "$values" => {
                    // the keys are the receiver's own names: only the values are matched
                    let Some(map) = actual.as_object() else {
                        return fail(path, format!("must be an object, found {}", short(actual)));
                    };
                    let wanted = v.as_array().map(Vec::as_slice).unwrap_or_default();
                    let values: Vec<&Value> = map.values().collect();
                    if values.len() != wanted.len() || !one_each(wanted, &values, path, true) {
                        return fail(
                            path,
                            format!(
                                "must hold {} value(s) matching {}, one each, under any keys; found {}",
                                wanted.len(),
                                short(v),
                                short(actual)
                            ),
                        );
                    }
                }
                // the runner stretches every duration before it compares (`scale`)
                SCALED => return fail(path, format!("{} was never scaled", short(pattern))),
                "$same" if without_meta(v) != without_meta(actual) => {
                    return fail(
                        path,
                        format!(
                            "must equal {} (by meaning: _meta ignored, isError false as absent), found {}",
                            short(v),
                            short(actual)
                        ),
                    );
                }
                _ => {}
            }
        }
        return Ok(());
    }
    let Some(actual) = actual else {
        return fail(path, format!("is missing (expected {})", short(pattern)));
    };
    match (pattern, actual) {
        (Value::Object(p), Value::Object(a)) => {
            for (k, sub) in p {
                match_at(sub, a.get(k), &format!("{path}.{k}"), vars)?;
            }
            Ok(())
        }
        (Value::Array(p), Value::Array(a)) => {
            if p.len() != a.len() {
                return fail(
                    path,
                    format!(
                        "must have {} elements, found {}: {}",
                        p.len(),
                        a.len(),
                        short(actual)
                    ),
                );
            }
            for (i, (sub, got)) in p.iter().zip(a).enumerate() {
                match_at(sub, Some(got), &format!("{path}[{i}]"), vars)?;
            }
            Ok(())
        }
        (p, a) if p == a => Ok(()),
        (Value::Number(p), Value::Number(a)) if p.as_f64() == a.as_f64() => Ok(()),
        _ => fail(
            path,
            format!("expected {}, found {}", short(pattern), short(actual)),
        ),
    }
}

/// A compact rendering of a value for messages.
pub fn short(v: &Value) -> String {
    crate::trace::preview(&v.to_string(), 160)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn subset_capture_and_substitute() {
        let mut vars = Vars::new();
        let p =
            json!({"task": {"taskId": {"$type": "string", "$capture": "t"}, "status": "working"}});
        let a = json!({"task": {"taskId": "abc", "status": "working", "ttl": 5}});
        matches(&p, &a, &mut vars).unwrap();
        assert_eq!(vars["t"], json!("abc"));
        assert_eq!(
            substitute(&json!({"taskId": "${t}", "x": "id-${t}!"}), &vars).unwrap(),
            json!({"taskId": "abc", "x": "id-abc!"})
        );
        assert_eq!(
            substitute(&json!("${t.nope}"), &vars).unwrap_err(),
            "`${t.nope}`: \"nope\" is not in the captured value"
        );
        assert!(substitute(&json!("${missing}"), &vars).is_err());
    }

    #[test]
    fn matchers_fail_with_a_path() {
        let mut vars = Vars::new();
        let e = matches(&json!({"a": {"b": 1}}), &json!({"a": {"b": 2}}), &mut vars).unwrap_err();
        assert_eq!(e.path, ".a.b");
        assert!(matches(
            &json!({"content": {"$absent": true}}),
            &json!({"content": []}),
            &mut vars
        )
        .is_err());
        assert!(matches(
            &json!({"content": {"$absent": true}}),
            &json!({}),
            &mut vars
        )
        .is_ok());
        assert!(matches(&json!({"$any_of": [1, 2]}), &json!(2), &mut vars).is_ok());
        assert!(matches(&json!({"$any_of": [1, 2]}), &json!(3), &mut vars).is_err());
        assert!(matches(
            &json!({"$not": {"$type": "string"}}),
            &json!("x"),
            &mut vars
        )
        .is_err());
        // a value it must not be is said once
        let why = matches(&json!({"$not": 7}), &json!(7), &mut vars).unwrap_err();
        assert_eq!(why.reason, "is 7, which it must not be");
        assert!(matches(
            &json!({"$contains": [{"id": 2}]}),
            &json!([{"id": 1}, {"id": 2}]),
            &mut vars
        )
        .is_ok());
        assert!(matches(
            &json!({"$contains": [{"id": 3}]}),
            &json!([{"id": 1}]),
            &mut vars
        )
        .is_err());
        assert!(matches(
            &json!({"$same": {"a": 1, "_meta": 1}}),
            &json!({"a": 1, "_meta": 2}),
            &mut vars
        )
        .is_ok());
        assert!(matches(
            &json!({"$same": {"a": 1}}),
            &json!({"a": 1, "b": 2}),
            &mut vars
        )
        .is_err());
        assert!(matches(&json!([1, 2]), &json!([1]), &mut vars).is_err());
        assert!(matches(&json!({"$type": "number"}), &json!(3), &mut vars).is_ok());
    }

    #[test]
    fn validation_rejects_unknown_matchers() {
        assert!(validate(&json!({"a": {"$scaled": 300}})).is_ok());
        assert!(validate(&json!({"a": {"$scaled": 300, "$type": "integer"}})).is_err());
        assert!(validate(&json!({"a": {"$scaled": "300"}})).is_err());
        assert!(validate(&json!({"a": {"$capture": "x"}})).is_ok());
        assert!(validate(&json!({"a": {"$captur": "x"}})).is_err());
        assert!(validate(&json!({"$type": "str"})).is_err());
        assert!(validate(&json!({"$absent": false})).is_err());
    }

    #[test]
    fn values_match_whatever_the_keys() {
        let mut vars = Vars::new();
        let two = json!({"$values": [{"m": "e"}, {"m": "s"}]});
        assert!(matches(
            &two,
            &json!({"x:1": {"m": "s"}, "y": {"m": "e"}}),
            &mut vars
        )
        .is_ok());
        assert!(matches(&two, &json!({"a": {"m": "e"}, "b": {"m": "e"}}), &mut vars).is_err());
        assert!(matches(&two, &json!({"a": {"m": "e"}}), &mut vars).is_err());
        assert!(matches(&two, &json!([{"m": "e"}, {"m": "s"}]), &mut vars).is_err());
        assert!(validate(&json!({"$values": {"m": "e"}})).is_err());
        let some = json!({"$contains": [{"m": "s"}]});
        assert!(matches(
            &some,
            &json!({"k1": {"m": "e"}, "k2": {"m": "s"}}),
            &mut vars
        )
        .is_ok());
        assert!(matches(&some, &json!({"k1": {"m": "e"}}), &mut vars).is_err());
        // two equal patterns need two elements: "at least two requests", whatever else is there
        let two = json!({"$contains": [{"m": "e"}, {"m": "e"}]});
        assert!(matches(&two, &json!([{"m": "e"}]), &mut vars).is_err());
        assert!(matches(
            &two,
            &json!({"a": {"m": "e"}, "b": {"m": "e"}, "c": 1}),
            &mut vars
        )
        .is_ok());
    }

    #[test]
    fn scaled_durations_stretch_and_nothing_else_does() {
        let sent = json!({"arguments": {"ms": {"$scaled": 1000}}, "task": {"ttl": 315360000000u64},
                          "list": [{"$scaled": 5}]});
        let at_three = scale(&sent, 3.0);
        assert_eq!(
            at_three,
            json!({"arguments": {"ms": 3000}, "task": {"ttl": 315360000000u64}, "list": [15]})
        );
        assert_eq!(scaled_ms(&json!({"$scaled": 7})), Some(7));
        assert_eq!(scaled_ms(&json!(7)), None);
        // an expectation compared before its durations were stretched is an error, not a pass
        let unscaled = json!({"ttl": {"$scaled": 600}});
        assert!(matches(&unscaled, &json!({"ttl": 600}), &mut Vars::new()).is_err());
        assert!(matches(
            &scale(&unscaled, 2.0),
            &json!({"ttl": 1200}),
            &mut Vars::new()
        )
        .is_ok());
    }
}
