//! proptest properties of the reference model and of the answer matcher: a correct history
//! is never accused, a broken one is always caught, and patterns mean what they say.

use mcp_taskcheck::matcher::{matches, substitute, Vars};
use mcp_taskcheck::model::{Model, Observation, Source, TaskStatus};
use proptest::prelude::*;
use serde_json::{json, Value};

/// JSON values whose object keys never start with `$`, so a value is never a matcher.
fn plain_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        (-1e6f64..1e6).prop_map(|f| json!(f)),
        "[a-z ]{0,8}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map("[a-z]{1,4}", inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn type_of(v: &Value) -> &'static str {
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

fn ok(pattern: &Value, actual: &Value) -> bool {
    matches(pattern, actual, &mut Vars::new()).is_ok()
}

/// One legal life of a task: working, any number of input_required round trips, a terminal.
fn legal_life() -> impl Strategy<Value = Vec<TaskStatus>> {
    (
        0usize..4,
        prop_oneof![
            Just(TaskStatus::Completed),
            Just(TaskStatus::Failed),
            Just(TaskStatus::Cancelled)
        ],
        1usize..4,
    )
        .prop_map(|(rounds, terminal, repeats)| {
            let mut life = vec![TaskStatus::Working];
            for _ in 0..rounds {
                life.push(TaskStatus::InputRequired);
                life.push(TaskStatus::Working);
            }
            life.extend(std::iter::repeat_n(terminal, repeats));
            life
        })
}

/// A task snapshot as a correct receiver reports it at second `at`.
fn snapshot(id: &str, status: TaskStatus, at: u64) -> Value {
    let mut task = json!({
        "taskId": id,
        "status": status.as_str(),
        "createdAt": "2025-11-25T10:00:00Z",
        "lastUpdatedAt": format!("2025-11-25T10:{:02}:{:02}Z", at / 60, at % 60),
        "ttl": 60000,
    });
    if status == TaskStatus::Failed {
        task["statusMessage"] = json!("the tool failed");
    }
    task
}

proptest! {
    #[test]
    fn a_value_matches_itself_and_any_subset_of_it(v in plain_json(), drop in 0usize..5) {
        prop_assert!(ok(&v, &v));
        if let Value::Object(map) = &v {
            let subset: serde_json::Map<String, Value> =
                map.iter().enumerate().filter(|(i, _)| *i != drop).map(|(_, kv)| (kv.0.clone(), kv.1.clone())).collect();
            prop_assert!(ok(&Value::Object(subset), &v));
        }
    }

    #[test]
    fn not_any_of_and_type_mean_what_they_say(p in plain_json(), q in plain_json(), a in plain_json()) {
        prop_assert_eq!(ok(&json!({"$not": p}), &a), !ok(&p, &a));
        prop_assert_eq!(ok(&json!({"$any_of": [p, q]}), &a), ok(&p, &a) || ok(&q, &a));
        let own = json!({"$type": type_of(&a)});
        prop_assert!(ok(&own, &a));
        let other = json!({"$type": if type_of(&a) == "string" { "boolean" } else { "string" }});
        prop_assert!(!ok(&other, &a));
    }

    #[test]
    fn a_capture_substitutes_back_to_the_value(v in plain_json()) {
        let mut vars = Vars::new();
        let pattern = json!({"x": {"$capture": "got"}});
        let captured = matches(&pattern, &json!({"x": v}), &mut vars);
        prop_assert!(captured.is_ok());
        prop_assert_eq!(substitute(&json!("${got}"), &vars).unwrap(), v);
    }

    #[test]
    fn a_correct_history_is_never_accused(
        lives in prop::collection::vec(legal_life(), 1..4),
        stale in prop::collection::vec(any::<bool>(), 32),
    ) {
        // polls of several tasks, interleaved; some answers are stale (asked before an
        // earlier answer arrived), which a correct receiver may well produce
        let mut model = Model::default();
        let mut seq = 0u64;
        let mut clock = 0u64;
        let longest = lives.iter().map(Vec::len).max().unwrap_or(0);
        for step in 0..longest {
            for (n, life) in lives.iter().enumerate() {
                let Some(status) = life.get(step) else { continue };
                if !status.is_terminal() || life[step - 1] != *status { clock += 1 }
                seq += 2;
                let source = if step == 0 { Source::Create } else { Source::Get };
                let asked = if stale[(step + n) % stale.len()] && step > 0 { seq - 3 } else { seq - 1 };
                let obs = Observation { task: &snapshot(&format!("t{n}"), *status, clock), source, received: seq, asked: Some(asked) };
                let failed: Vec<_> = model.observe(&obs).into_iter().filter(|f| !f.held).collect();
                prop_assert!(failed.is_empty(), "{:?} accused on {}", failed, obs.task);
            }
        }
    }

    #[test]
    fn a_terminal_task_that_changes_is_always_caught(
        life in legal_life(),
        after in prop_oneof![Just(TaskStatus::Working), Just(TaskStatus::InputRequired), Just(TaskStatus::Completed), Just(TaskStatus::Cancelled)],
    ) {
        let terminal = *life.last().unwrap();
        prop_assume!(after != terminal);
        let mut model = Model::default();
        let mut seq = 0u64;
        for (i, status) in life.iter().enumerate() {
            seq += 2;
            let source = if i == 0 { Source::Create } else { Source::Get };
            model.observe(&Observation { task: &snapshot("t", *status, i as u64), source, received: seq, asked: Some(seq - 1) });
        }
        let findings = model.observe(&Observation { task: &snapshot("t", after, 99), source: Source::Get, received: seq + 2, asked: Some(seq + 1) });
        prop_assert!(findings.iter().any(|f| f.rule == "tasks.lifecycle.terminal-final" && !f.held));
    }
}
