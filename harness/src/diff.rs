//! `taskcheck diff OLD.json NEW.json`: which verdicts changed between two JSON reports, per
//! scenario and rule (the worst verdict of the rule's checks in that scenario). Messages,
//! timings and observation counts are not compared: they vary from run to run. Nor is a
//! monitor rule that passed in one run and was not observed in the other (a status
//! notification that came in one run and not in the next): only a verdict that changed, or
//! a failure, warning, error or untestable that came or went, is a change.

use crate::bad_input::BadInput;
use serde_json::Value;
use std::collections::BTreeMap;

/// `scenario:rule` → verdict, from a `taskcheck-report/1` document.
pub type Verdicts = BTreeMap<String, String>;

/// Verdicts from worst to best, to keep the worst of several checks.
const WORST_FIRST: [&str; 8] = [
    "error",
    "fail",
    "warn",
    "consequence",
    "untestable",
    "not-applicable",
    "info",
    "pass",
];

fn rank(verdict: &str) -> usize {
    WORST_FIRST
        .iter()
        .position(|v| *v == verdict)
        .unwrap_or(WORST_FIRST.len())
}

/// Reads the verdicts of a JSON report; the error names the file.
pub fn verdicts(text: &str, file: &str) -> Result<Verdicts, BadInput> {
    let doc: Value = serde_json::from_str(text).map_err(|e| BadInput::json(file, &e, ""))?;
    if doc.get("format").and_then(Value::as_str) != Some("taskcheck-report/1") {
        let cause = "not a taskcheck JSON report (no \"format\": \"taskcheck-report/1\")";
        return Err(BadInput::whole(file, cause));
    }
    let mut out = Verdicts::new();
    let mut keep_worst = |key: String, verdict: &str| match out.get(&key) {
        Some(old) if rank(old) <= rank(verdict) => {}
        _ => {
            out.insert(key, verdict.to_string());
        }
    };
    for scenario in doc["scenarios"].as_array().into_iter().flatten() {
        let id = scenario["id"].as_str().unwrap_or_default();
        for check in scenario["checks"].as_array().into_iter().flatten() {
            let key = format!("{id}:{}", check["rule"].as_str().unwrap_or_default());
            keep_worst(key, check["verdict"].as_str().unwrap_or_default());
        }
    }
    // the sessions a long trace's report folded count as one, `folded`
    for rule in doc["folded"]["rules"].as_array().into_iter().flatten() {
        let key = format!("folded:{}", rule["id"].as_str().unwrap_or_default());
        for count in rule["counts"].as_array().into_iter().flatten() {
            keep_worst(key.clone(), count["verdict"].as_str().unwrap_or_default());
        }
    }
    Ok(out)
}

/// Whether a verdict on one side and nothing on the other is no change.
fn quiet(verdict: Option<&String>) -> bool {
    verdict.is_none_or(|v| v == "pass" || v == "info")
}

/// One line per `scenario:rule` whose verdict differs (`-` where a side lacks it).
pub fn changes(old: &Verdicts, new: &Verdicts) -> Vec<String> {
    let mut keys: Vec<&String> = old.keys().chain(new.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter_map(|k| {
            let (a, b) = (old.get(k), new.get(k));
            let unobserved = (a.is_none() || b.is_none()) && quiet(a) && quiet(b);
            (a != b && !unobserved).then(|| {
                format!(
                    "{k}: {} -> {}",
                    a.map_or("-", String::as_str),
                    b.map_or("-", String::as_str)
                )
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn report(checks: Value) -> String {
        json!({"format": "taskcheck-report/1", "scenarios": [{"id": "s", "checks": checks}]})
            .to_string()
    }

    #[test]
    fn the_worst_verdict_of_a_rule_counts_and_changes_are_listed() {
        let old = verdicts(
            &report(json!([{"rule": "r", "verdict": "pass"}, {"rule": "r", "verdict": "fail"}, {"rule": "q", "verdict": "info"}])),
            "old.json",
        )
        .unwrap();
        assert_eq!(old["s:r"], "fail");
        let new = verdicts(
            &report(json!([{"rule": "r", "verdict": "warn"}, {"rule": "p", "verdict": "pass"}])),
            "new.json",
        )
        .unwrap();
        assert_eq!(
            changes(&old, &new),
            vec!["s:r: fail -> warn"],
            "a rule passed or noted in one run and unobserved in the other is no change"
        );
        assert!(changes(&old, &old).is_empty());
        let gone = verdicts(&report(json!([])), "gone.json").unwrap();
        assert_eq!(changes(&old, &gone), vec!["s:r: fail -> -"]);
    }

    #[test]
    fn what_is_not_a_report_is_named() {
        let e = verdicts("{}", "x.json").unwrap_err();
        assert!(e.to_string().starts_with("x.json: not a taskcheck"), "{e}");
        let e = verdicts("{", "x.json").unwrap_err();
        assert_eq!((e.file.as_str(), e.line), ("x.json", Some(1)), "{e}");
    }
}
