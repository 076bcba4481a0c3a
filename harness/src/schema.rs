//! JSON Schema validation of messages: the built-in schema of the Tasks messages, and an
//! optional full MCP `schema.json` given with `--schema`. Both name their types like the
//! official schema, so a design's own table pairs each message with the types it must have.

use crate::bad_input::BadInput;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

const BUILTIN_TEXT: &str = include_str!("../schema/tasks.schema.json");

/// Longest list of violations kept per message.
const MAX_VIOLATIONS: usize = 5;

/// One schema document whose `$defs` are compiled on first use.
pub struct SchemaSet {
    /// Where the schema came from (for messages).
    pub origin: String,
    doc: Value,
    compiled: Mutex<HashMap<String, Option<Arc<jsonschema::Validator>>>>,
}

/// Where a message broke a type, and how.
#[derive(Debug, Clone, PartialEq)]
pub struct Violation {
    pub type_name: String,
    pub pointer: String,
    pub reason: String,
    /// The offending value.
    pub value: Value,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let at = if self.pointer.is_empty() {
            "(root)"
        } else {
            &self.pointer
        };
        write!(f, "{} at {at}: {}", self.type_name, self.reason)
    }
}

impl SchemaSet {
    /// A schema document with `$defs` (draft 2020-12) or `definitions`.
    pub fn from_document(doc: Value, origin: impl Into<String>) -> Result<SchemaSet, BadInput> {
        let origin = origin.into();
        if !doc
            .get("$defs")
            .or(doc.get("definitions"))
            .is_some_and(Value::is_object)
        {
            return Err(BadInput::whole(
                &origin,
                "not a schema with `$defs` or `definitions`",
            ));
        }
        Ok(SchemaSet {
            origin,
            doc,
            compiled: Mutex::default(),
        })
    }

    /// Reads a schema.json file.
    pub fn load(path: &std::path::Path) -> Result<SchemaSet, BadInput> {
        let origin = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| BadInput::unreadable(&origin, &e))?;
        let doc: Value =
            serde_json::from_str(&text).map_err(|e| BadInput::json(&origin, &e, "not JSON: "))?;
        SchemaSet::from_document(doc, origin)
    }

    /// Reads schema.json files into one set: the union of their definitions (the extension's
    /// schema beside the core one). A type both define must be defined alike.
    pub fn load_all(paths: &[std::path::PathBuf]) -> Result<SchemaSet, BadInput> {
        let mut sets = paths.iter().map(|p| SchemaSet::load(p));
        let mut merged = match sets.next() {
            Some(first) => first?,
            None => return Err(BadInput::whole("--schema", "no schema file given")),
        };
        for set in sets {
            let set = set?;
            let key = |doc: &Value| match doc.get("$defs") {
                Some(_) => "$defs",
                None => "definitions",
            };
            let (into, from) = (key(&merged.doc), key(&set.doc));
            for (name, def) in set.doc[from].as_object().into_iter().flatten() {
                match merged.doc[into].get(name) {
                    Some(known) if known != def => {
                        let cause = format!("defines {name} differently from {}", merged.origin);
                        return Err(BadInput::whole(&set.origin, cause));
                    }
                    Some(_) => {}
                    None => merged.doc[into][name] = def.clone(),
                }
            }
            merged.origin = format!("{} + {}", merged.origin, set.origin);
        }
        Ok(merged)
    }

    /// Whether the document defines a type.
    pub fn defines(&self, type_name: &str) -> bool {
        self.definitions().and_then(|d| d.get(type_name)).is_some()
    }

    fn definitions(&self) -> Option<&Value> {
        self.doc.get("$defs").or(self.doc.get("definitions"))
    }

    fn validator(&self, type_name: &str) -> Option<Arc<jsonschema::Validator>> {
        let mut cache = self.compiled.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(known) = cache.get(type_name) {
            return known.clone();
        }
        cache
            .entry(type_name.to_string())
            .or_insert_with(|| {
                let key = if self.doc.get("$defs").is_some() {
                    "$defs"
                } else {
                    "definitions"
                };
                self.definitions()?.get(type_name)?;
                let mut root = self.doc.clone();
                root["$ref"] = json!(format!("#/{key}/{type_name}"));
                jsonschema::validator_for(&root).ok().map(Arc::new)
            })
            .clone()
    }

    /// Validates a value against one type; a type the document lacks accepts everything.
    pub fn check(&self, type_name: &str, value: &Value) -> Vec<Violation> {
        let Some(v) = self.validator(type_name) else {
            return Vec::new();
        };
        // most messages are valid: the quick yes/no first, the details only when needed
        if v.is_valid(value) {
            return Vec::new();
        }
        v.iter_errors(value)
            .take(MAX_VIOLATIONS)
            .map(|e| Violation {
                type_name: type_name.to_string(),
                pointer: e.instance_path().as_str().to_string(),
                reason: e.to_string(),
                value: e.instance().clone().into_owned(),
            })
            .collect()
    }
}

/// taskcheck's own schema of the Tasks messages.
pub fn builtin() -> &'static SchemaSet {
    static SET: OnceLock<SchemaSet> = OnceLock::new();
    SET.get_or_init(|| {
        let doc = serde_json::from_str(BUILTIN_TEXT).expect("the built-in schema is JSON");
        SchemaSet::from_document(doc, "built-in Tasks schema")
            .expect("the built-in schema has $defs")
    })
}

/// The built-in schema as text (printed by `taskcheck schema tasks`).
pub fn builtin_text() -> &'static str {
    BUILTIN_TEXT
}

/// A value a property's JSON Schema accepts, for a required property taskcheck has nothing
/// to give (a tool's argument, a form's field): its default, first example, first enum value
/// or const, else the least value of its type.
pub fn sample(schema: &Value) -> Value {
    let first = |key: &str| {
        schema
            .get(key)
            .and_then(Value::as_array)
            .and_then(|a| a.first())
            .cloned()
    };
    if let Some(v) = schema.get("default").cloned().or_else(|| first("examples")) {
        return v;
    }
    if let Some(v) = first("enum").or_else(|| schema.get("const").cloned()) {
        return v;
    }
    let kind = match schema.get("type") {
        Some(Value::Array(kinds)) => kinds.iter().find_map(Value::as_str).unwrap_or("string"),
        Some(kind) => kind.as_str().unwrap_or("string"),
        None => "string",
    };
    let least = schema.get("minimum").cloned();
    match kind {
        "integer" | "number" => least.unwrap_or(json!(1)),
        "boolean" => json!(false),
        "array" => json!([]),
        "object" => json!({}),
        "null" => Value::Null,
        _ => json!("taskcheck"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task() -> Value {
        json!({"taskId": "a", "status": "working", "createdAt": "2025-11-25T10:00:00Z",
               "lastUpdatedAt": "2025-11-25T10:00:00Z", "ttl": 1000, "pollInterval": 50})
    }

    #[test]
    fn builtin_accepts_a_task_and_names_what_is_wrong() {
        let set = builtin();
        assert!(set.check("Task", &task()).is_empty());
        let mut bad = task();
        bad["pollInterval"] = json!("50");
        bad.as_object_mut().unwrap().remove("ttl");
        let v = set.check("Task", &bad);
        assert_eq!(v.len(), 2, "{v:?}");
        assert!(v.iter().any(|v| v.pointer == "/pollInterval"), "{v:?}");
        assert!(set.check("NoSuchType", &json!(1)).is_empty());
    }

    #[test]
    fn schema_files_merge_their_types_and_refuse_two_definitions_of_one() {
        let dir = std::env::temp_dir().join(format!("taskcheck-schemas-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let write = |name: &str, doc: Value| {
            let path = dir.join(name);
            std::fs::write(&path, doc.to_string()).unwrap();
            path
        };
        let core = write(
            "core.json",
            json!({"$defs": {"Result": {"type": "object"}, "Ping": {"type": "object"}}}),
        );
        let ext = write(
            "ext.json",
            json!({"$defs": {"Result": {"type": "object"}, "Task": {"type": "object", "required": ["taskId"]}}}),
        );
        let other = write(
            "other.json",
            json!({"$defs": {"Result": {"type": "string"}}}),
        );
        let merged = SchemaSet::load_all(&[core.clone(), ext]).unwrap();
        assert!(merged.defines("Ping") && merged.defines("Task"));
        assert_eq!(merged.check("Task", &json!({})).len(), 1);
        let refused = SchemaSet::load_all(&[core, other]).err().unwrap();
        assert!(
            refused.to_string().contains("defines Result differently"),
            "{refused}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
