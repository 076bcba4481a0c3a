//! What `taskcheck init` learns by calling a proposed tool once as a task before it lets the
//! tool play a role: what the call did (`Observed`, seen by each design its own way) and
//! whether that is what the role does (`plays`). A tool whose name and description say it
//! plays a role but that does something else is no evidence the role's checks could use.

use crate::fixtures::Mapping;
use crate::session::{Reply, RequestError};
use crate::wire::Outcome;
use serde_json::{json, Value};
use std::time::Duration;

/// What one task-augmented call of a tool did, seen by the requestor.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Observed {
    /// Whether the server made a task of the call (the extension lets it answer at once).
    pub task: bool,
    /// From the call to the task's end, or to its first request for input.
    pub took: Duration,
    /// The last status seen: a terminal one, or `input_required`, where watching stops.
    pub status: String,
    /// The completed result's `isError`, when it said.
    pub is_error: Option<bool>,
    /// The JSON-RPC error the task's request ended in, if it did.
    pub error: Option<Value>,
    /// The methods of the server's requests for input (`elicitation/create`, say).
    pub asked: Vec<String>,
    /// How many `notifications/progress` came for the call's progress token.
    pub progress: usize,
}

impl Observed {
    /// What the call did, in words ("completed in 1503 ms", "asked for input with …").
    pub fn describe(&self) -> String {
        let ms = self.took.as_millis();
        let mut out = match (self.status.as_str(), self.asked.is_empty()) {
            ("input_required", true) => format!("went input_required after {ms} ms"),
            ("input_required", false) | (_, false) => format!(
                "asked for input with {} after {ms} ms",
                self.asked.join(" and ")
            ),
            ("completed", _) => format!("completed after {ms} ms"),
            (status, _) => format!("ended {status} after {ms} ms"),
        };
        if self.status == "working" && !self.asked.is_empty() {
            out.push_str(" while its task still read working");
        }
        if self.is_error == Some(true) {
            out.push_str(" with an `isError` result");
        }
        if let Some(e) = &self.error {
            out.push_str(&format!(", its request ending in error {e}"));
        }
        if !self.task {
            out.push_str(", answered at once without a task");
        }
        if self.progress > 0 {
            out.push_str(&format!(", {} progress notification(s)", self.progress));
        }
        out
    }
}

/// The least and most time between two polls of a watched task, whatever interval the
/// server suggests.
const POLL_MS: (u64, u64) = (20, 500);

/// Waits as long as a Task's `key` (`pollInterval`, `pollIntervalMs`) suggests, within
/// [`POLL_MS`] (100 ms when it suggests nothing).
pub async fn pause(task: &Value, key: &str) {
    let poll = task.get(key).and_then(Value::as_u64).unwrap_or(100);
    tokio::time::sleep(Duration::from_millis(poll.clamp(POLL_MS.0, POLL_MS.1))).await;
}

/// The outcome of a watching request, or why none came.
pub fn outcome(reply: Result<Reply, RequestError>, method: &str) -> Result<Outcome, String> {
    Ok(reply.map_err(|e| format!("{method}: {e}"))?.outcome)
}

/// The roles a call as a task can confirm; the others (plain calls) are not calibrated.
pub const CALIBRATED: [&str; 6] = [
    "optional_sleep",
    "required_sleep",
    "progress_sleep",
    "tool_error",
    "protocol_error",
    "elicit_input",
];

/// The work a calibrating call asks for, where the tool takes a duration.
pub const CALIBRATION_MS: u64 = 300;

/// The `tools/call` params (without `task`) that calibrate `mapping` for `role`: the role's
/// fixture call, rewritten the way a run rewrites it.
pub fn call_for(role: &str, mapping: &Mapping) -> Result<Value, String> {
    let map = crate::fixtures::FixtureMap::single(role, mapping.clone());
    let fixture =
        json!({"name": role, "arguments": {"ms": CALIBRATION_MS, "text": "taskcheck", "steps": 3}});
    let mut call = map.apply(&fixture, false, false)?;
    call.as_object_mut().map(|c| c.remove("task"));
    Ok(call)
}

/// Whether what a call did is what `role` does; otherwise what it did, in words that follow
/// "called once as a task it …".
pub fn plays(role: &str, seen: &Observed) -> Result<(), String> {
    let clean = seen.error.is_none() && seen.is_error != Some(true);
    let completed = seen.task && seen.status == "completed" && clean;
    // a tool error ends a task `completed` or `failed` (the 2025-11-25 text says it should
    // be `failed`), its result saying `isError` either way; a protocol error fails the task,
    // whatever its result then shows (how it shows is what the role's checks judge)
    let fine = match role {
        "optional_sleep" | "required_sleep" => completed,
        "progress_sleep" => completed && seen.progress > 0,
        "tool_error" => seen.is_error == Some(true) && seen.error.is_none(),
        "protocol_error" => {
            seen.error.is_some() || (seen.status == "failed" && seen.is_error != Some(true))
        }
        // a task that reads input_required asks for input, though what it asked may not
        // have come to this one watch (whether it comes is tasks.input.requests-delivered's)
        "elicit_input" => {
            seen.asked.iter().any(|m| m == "elicitation/create")
                || seen.task && seen.status == "input_required" && seen.asked.is_empty()
        }
        _ => true,
    };
    match fine {
        true => Ok(()),
        false => Err(seen.describe()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(status: &str) -> Observed {
        Observed {
            task: true,
            took: Duration::from_millis(1500),
            status: status.into(),
            ..Observed::default()
        }
    }

    #[test]
    fn a_role_is_played_only_by_what_it_does() {
        let done = seen("completed");
        assert_eq!(plays("optional_sleep", &done), Ok(()));
        assert_eq!(
            plays("tool_error", &done),
            Err("completed after 1500 ms".into())
        );
        assert!(plays("progress_sleep", &done).is_err());
        let with_progress = Observed {
            progress: 2,
            ..done.clone()
        };
        assert_eq!(plays("progress_sleep", &with_progress), Ok(()));
        let error_result = Observed {
            is_error: Some(true),
            ..done.clone()
        };
        assert_eq!(plays("tool_error", &error_result), Ok(()));
        assert!(plays("optional_sleep", &error_result).is_err());
        let failed = Observed {
            error: Some(json!({"code": -32603, "message": "boom"})),
            ..seen("failed")
        };
        assert_eq!(plays("protocol_error", &failed), Ok(()));
        assert_eq!(plays("protocol_error", &seen("failed")), Ok(()));
        assert!(plays("protocol_error", &done).is_err());
        let failed_tool = Observed {
            is_error: Some(true),
            ..seen("failed")
        };
        assert_eq!(plays("tool_error", &failed_tool), Ok(()));
        let sampled = Observed {
            asked: vec!["sampling/createMessage".into()],
            ..seen("input_required")
        };
        assert_eq!(
            plays("elicit_input", &sampled),
            Err("asked for input with sampling/createMessage after 1500 ms".into())
        );
        let elicited = Observed {
            asked: vec!["elicitation/create".into()],
            ..sampled
        };
        assert_eq!(plays("elicit_input", &elicited), Ok(()));
        // input_required, with no request seen by this watch: it asks all the same
        assert_eq!(plays("elicit_input", &seen("input_required")), Ok(()));
        assert!(plays("elicit_input", &done).is_err());
        let at_once = Observed {
            task: false,
            ..done
        };
        assert_eq!(
            plays("optional_sleep", &at_once),
            Err("completed after 1500 ms, answered at once without a task".into())
        );
    }

    #[test]
    fn a_calibrating_call_is_the_role_call_rewritten() {
        let mapping = Mapping {
            tool: "wait_a_bit".into(),
            arguments: Some(json!({"millis": "${ms}"})),
            duration_ms: None,
            many_tasks: None,
        };
        assert_eq!(
            call_for("optional_sleep", &mapping).unwrap(),
            json!({"name": "wait_a_bit", "arguments": {"millis": CALIBRATION_MS}})
        );
    }
}
