//! The reference state-machine model of a task, fed with every Task object seen. Pure: no I/O.
//!
//! Polling sees a subsequence of the real transitions, so the model only reports what the
//! observations prove. Orderings are judged causally: an observation B is "after" an
//! observation A only when B answers a request sent after A was received.

use crate::timestamp::{self, Notation, Stamp};
use serde_json::Value;
use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};

/// Task status of the 2025-11-25 Tasks utility.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TaskStatus {
    Working,
    InputRequired,
    Completed,
    Failed,
    Cancelled,
}

impl TaskStatus {
    /// Every status, in the order the spec lists them.
    pub const ALL: [TaskStatus; 5] = [
        TaskStatus::Working,
        TaskStatus::InputRequired,
        TaskStatus::Completed,
        TaskStatus::Failed,
        TaskStatus::Cancelled,
    ];

    /// The wire spellings of every status, `|`-joined (for messages).
    pub fn names() -> String {
        TaskStatus::ALL.map(TaskStatus::as_str).join("|")
    }

    /// Parses the wire spelling.
    pub fn parse(s: &str) -> Option<TaskStatus> {
        Some(match s {
            "working" => TaskStatus::Working,
            "input_required" => TaskStatus::InputRequired,
            "completed" => TaskStatus::Completed,
            "failed" => TaskStatus::Failed,
            "cancelled" => TaskStatus::Cancelled,
            _ => return None,
        })
    }

    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Working => "working",
            TaskStatus::InputRequired => "input_required",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }

    /// `completed`, `failed` and `cancelled` are final.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }

    /// Whether the spec allows moving from `self` directly to `next`.
    pub fn may_become(self, next: TaskStatus) -> bool {
        match self {
            TaskStatus::Working => next != TaskStatus::Working,
            TaskStatus::InputRequired => next != TaskStatus::InputRequired,
            _ => false,
        }
    }
}

/// Which message carried a Task object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Create,
    Get,
    List,
    Cancel,
    StatusNotification,
}

/// One Task object as seen on the wire.
#[derive(Debug, Clone)]
pub struct Observation<'a> {
    pub task: &'a Value,
    pub source: Source,
    /// Trace sequence number of the message that carried it.
    pub received: u64,
    /// Trace sequence number of the request it answers (None for notifications).
    pub asked: Option<u64>,
}

/// One judgement the model made: a rule, whether it held, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub rule: &'static str,
    pub held: bool,
    pub message: String,
    pub evidence: Vec<u64>,
    /// A failure that may be the consequence of another rule's: if that rule failed in the
    /// same session, this finding is shown under it instead of counted (one defect, one failure).
    pub follows: Option<&'static str>,
}

impl Finding {
    /// A judgement of `rule` on the messages `evidence` (trace numbers).
    pub fn new(rule: &'static str, held: bool, message: String, evidence: Vec<u64>) -> Finding {
        Finding {
            rule,
            held,
            message,
            evidence,
            follows: None,
        }
    }
}

/// A status change of a cancelled task breaks this rule first.
const STAYS_CANCELLED: &str = "tasks.cancel.stays-cancelled";

#[derive(Default)]
struct History {
    created_at: Option<(Stamp, String, u64)>,
    /// The ttl the CreateTaskResult granted (null: unlimited), and where it was seen.
    granted_ttl: Option<(Value, u64)>,
    terminal: Option<(TaskStatus, u64)>,
    updates: Vec<(Stamp, u64)>,
}

/// Per-session model of every task the receiver reported.
#[derive(Default)]
pub struct Model {
    tasks: HashMap<String, History>,
    created: HashMap<String, u64>,
    /// The rules that held and were described once.
    described: HashSet<&'static str>,
}

/// A timestamp field: parsed, or why it is not an ISO 8601 timestamp.
fn timestamp(task: &Value, key: &str) -> Result<Stamp, String> {
    match task.get(key) {
        None => Err(format!("`{key}` is missing")),
        Some(Value::String(s)) => timestamp::parse(s).map_err(|e| format!("`{key}` {e}")),
        Some(other) => Err(format!("`{key}` is {other}, not a string")),
    }
}

/// The ttl a tasks/get reports is the one its task was granted.
const GET_REPORTS_GRANTED: &str = "tasks.ttl.get-reports-granted";

/// The findings of one observation. A rule that held is described the first time only: later
/// passes of it are counted, and a tally keeps only a rule's first description, so theirs would
/// be formatted to go unread (it was a tenth of offline checking's time).
struct Judgements<'m> {
    out: Vec<Finding>,
    described: &'m mut HashSet<&'static str>,
}

impl Judgements<'_> {
    /// Judges `rule` on `evidence`; `message` is formatted only when it can be read.
    fn judge(
        &mut self,
        rule: &'static str,
        held: bool,
        message: impl FnOnce() -> String,
        evidence: impl FnOnce() -> Vec<u64>,
    ) -> &mut Finding {
        let read = !held || self.described.insert(rule);
        let (message, evidence) = match read {
            true => (message(), evidence()),
            false => (String::new(), Vec::new()),
        };
        self.out.push(Finding::new(rule, held, message, evidence));
        self.out.last_mut().expect("just pushed")
    }
}

impl Model {
    /// Feeds one observation and returns every judgement it allowed.
    pub fn observe(&mut self, obs: &Observation<'_>) -> Vec<Finding> {
        let mut out = Judgements {
            out: Vec::with_capacity(8),
            described: &mut self.described,
        };
        let ev = || vec![obs.received];
        let id: Cow<'_, str> = match obs.task.get("taskId") {
            Some(Value::String(s)) => {
                out.judge("tasks.id.string", true, || "taskId is a string".into(), ev);
                Cow::Borrowed(s.as_str())
            }
            Some(other) => {
                out.judge(
                    "tasks.id.string",
                    false,
                    || format!("taskId is {other}, not a string"),
                    ev,
                );
                // a non-string id is known by its JSON text
                Cow::Owned(other.to_string())
            }
            None => return out.out,
        };
        let status = obs
            .task
            .get("status")
            .and_then(Value::as_str)
            .and_then(TaskStatus::parse);

        if obs.source == Source::Create {
            match self.created.get(&*id) {
                Some(first) => {
                    out.judge(
                        "tasks.id.unique",
                        false,
                        || format!("task id {id:?} was already returned for an earlier task"),
                        || vec![*first, obs.received],
                    );
                }
                None => {
                    self.created.insert(id.to_string(), obs.received);
                    out.judge("tasks.id.unique", true, || "new task id".into(), ev);
                }
            }
        }
        let ttl = obs.task.get("ttl");
        let ttl_number = matches!(ttl, Some(v) if v.is_null() || v.is_u64() || v.is_i64());
        if obs.source == Source::Get {
            out.judge(
                "tasks.ttl.get-includes-ttl",
                ttl_number,
                || match ttl {
                    None => "tasks/get result has no `ttl`".into(),
                    Some(v) => format!("tasks/get `ttl` is {v}"),
                },
                ev,
            );
        }
        if !self.tasks.contains_key(&*id) {
            self.tasks.insert(id.to_string(), History::default());
        }
        let history = self.tasks.get_mut(&*id).expect("inserted above");
        let granted = &mut history.granted_ttl;
        match (obs.source, ttl.filter(|_| ttl_number)) {
            (Source::Create, Some(v)) if granted.is_none() => {
                *granted = Some((v.clone(), obs.received))
            }
            (Source::Get, Some(v)) => {
                if let Some((given, seen)) = granted.as_ref() {
                    out.judge(
                        GET_REPORTS_GRANTED,
                        v == given,
                        || match v == given {
                            true => format!("tasks/get reports the ttl {v} granted at creation"),
                            false => format!(
                                "tasks/get reports ttl {v}, where the CreateTaskResult granted {given}"
                            ),
                        },
                        || vec![*seen, obs.received],
                    );
                }
            }
            _ => {}
        }

        let created = timestamp(obs.task, "createdAt");
        let updated = timestamp(obs.task, "lastUpdatedAt");
        for (rule, field, stamp) in [
            ("tasks.ttl.created-at", "createdAt", &created),
            ("tasks.ttl.last-updated-at", "lastUpdatedAt", &updated),
        ] {
            out.judge(
                rule,
                stamp.is_ok(),
                || match stamp {
                    Ok(_) => format!("{field} is ISO 8601"),
                    Err(why) => why.clone(),
                },
                ev,
            );
            if let Ok(s) = stamp {
                out.judge(
                    RFC3339_RULE,
                    s.notation == Notation::Rfc3339,
                    || match s.notation {
                        Notation::Rfc3339 => format!("{field} is RFC 3339"),
                        Notation::Iso8601 => format!(
                            "{field} {} is ISO 8601 but not the RFC 3339 profile the spec links: requestors parsing RFC 3339 cannot read it",
                            obs.task[field]
                        ),
                    },
                    ev,
                );
            }
        }

        let was_cancelled = matches!(history.terminal, Some((TaskStatus::Cancelled, _)));
        if obs.source == Source::Get && status == Some(TaskStatus::Failed) {
            let message = obs.task.get("statusMessage").and_then(Value::as_str);
            out.judge(
                "tasks.failed.status-message",
                message.is_some_and(|m| !m.trim().is_empty()),
                || match message {
                    Some(m) if !m.trim().is_empty() => {
                        format!("failed task's statusMessage {m:?}")
                    }
                    _ => "a failed task's tasks/get result has no diagnostic statusMessage".into(),
                },
                ev,
            )
            // a cancelled task reported failed should not be failed at all
            .follows = was_cancelled.then_some(STAYS_CANCELLED);
        }
        if let Ok(c) = &created {
            let text = obs.task["createdAt"].as_str().unwrap_or_default();
            match &history.created_at {
                Some((first, first_text, seq)) => {
                    out.judge(
                        "tasks.ttl.created-at-constant",
                        first.compare(c) == Ordering::Equal,
                        || format!("createdAt {text:?}, first seen as {first_text:?}"),
                        || vec![*seq, obs.received],
                    );
                }
                None => history.created_at = Some((*c, text.to_string(), obs.received)),
            }
        }
        if let (Ok(c), Ok(u)) = (&created, &updated) {
            out.judge(
                "tasks.ttl.last-updated-monotonic",
                u.compare(c) != Ordering::Less,
                || {
                    format!(
                        "lastUpdatedAt {} vs createdAt {}",
                        obs.task["lastUpdatedAt"], obs.task["createdAt"]
                    )
                },
                ev,
            );
        }
        if let (Ok(u), Some(asked)) = (&updated, obs.asked) {
            if let Some((latest, seq)) = history
                .updates
                .iter()
                .filter(|(_, r)| *r < asked)
                .max_by(|(a, _), (b, _)| a.compare(b))
            {
                out.judge(
                    "tasks.ttl.last-updated-monotonic",
                    u.compare(latest) != Ordering::Less,
                    || {
                        format!(
                            "lastUpdatedAt {}, an earlier observation had {}",
                            obs.task["lastUpdatedAt"], latest.at
                        )
                    },
                    || vec![*seq, obs.received],
                );
            }
        }
        if let Ok(u) = updated {
            history.updates.push((u, obs.received));
        }

        if let (Some((terminal, seq)), Some(asked), Some(now)) =
            (history.terminal, obs.asked, status)
        {
            if seq < asked {
                // a cancelled task reported otherwise breaks stays-cancelled first: seen here
                // in any scenario, it is that one defect (a step judging the same rule in its
                // scenario holds the root, and this sighting follows it)
                if terminal == TaskStatus::Cancelled && now != terminal {
                    out.judge(
                        STAYS_CANCELLED,
                        false,
                        || {
                            format!(
                                "task {id:?} was cancelled and is now reported {}",
                                now.as_str()
                            )
                        },
                        || vec![seq, obs.received],
                    )
                    .follows = Some(STAYS_CANCELLED);
                }
                out.judge(
                    "tasks.lifecycle.terminal-final",
                    now == terminal,
                    || {
                        if now == terminal {
                            format!("task {id:?} stayed {}", terminal.as_str())
                        } else {
                            format!(
                                "task {id:?} was {} and is now reported {}",
                                terminal.as_str(),
                                now.as_str()
                            )
                        }
                    },
                    || vec![seq, obs.received],
                )
                .follows = (terminal == TaskStatus::Cancelled).then_some(STAYS_CANCELLED);
            }
        }
        if let Some(s) = status.filter(|s| s.is_terminal()) {
            if history.terminal.is_none() {
                history.terminal = Some((s, obs.received));
            }
        }
        out.out
    }
}

/// Timestamps in the RFC 3339 profile the spec links (ISO 8601 otherwise: a warning).
pub const RFC3339_RULE: &str = "tasks.ttl.timestamps-rfc3339";

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn task(id: &str, status: &str, updated: &str) -> Value {
        json!({"taskId": id, "status": status, "createdAt": "2025-11-25T10:00:00Z",
               "lastUpdatedAt": updated, "ttl": 1000})
    }

    fn obs(task: &Value, source: Source, received: u64, asked: Option<u64>) -> Observation<'_> {
        Observation {
            task,
            source,
            received,
            asked,
        }
    }

    fn failed(findings: &[Finding]) -> Vec<&'static str> {
        findings
            .iter()
            .filter(|f| !f.held)
            .map(|f| f.rule)
            .collect()
    }

    #[test]
    fn a_clean_history_holds() {
        let mut m = Model::default();
        let t0 = "2025-11-25T10:00:00Z";
        assert!(
            failed(&m.observe(&obs(&task("a", "working", t0), Source::Create, 2, Some(1))))
                .is_empty()
        );
        assert!(failed(&m.observe(&obs(
            &task("a", "completed", "2025-11-25T10:00:01Z"),
            Source::Get,
            4,
            Some(3)
        )))
        .is_empty());
        assert!(failed(&m.observe(&obs(
            &task("a", "completed", "2025-11-25T10:00:01Z"),
            Source::Get,
            6,
            Some(5)
        )))
        .is_empty());
    }

    #[test]
    fn terminal_change_is_judged_only_causally() {
        let mut m = Model::default();
        m.observe(&obs(
            &task("a", "completed", "2025-11-25T10:00:01Z"),
            Source::Get,
            5,
            Some(4),
        ));
        // answer to a request sent before the terminal status was seen: not proof
        assert!(failed(&m.observe(&obs(
            &task("a", "working", "2025-11-25T10:00:01Z"),
            Source::Get,
            6,
            Some(3)
        )))
        .is_empty());
        let f = m.observe(&obs(
            &task("a", "working", "2025-11-25T10:00:02Z"),
            Source::Get,
            8,
            Some(7),
        ));
        assert_eq!(failed(&f), vec!["tasks.lifecycle.terminal-final"]);
    }

    #[test]
    fn fields_are_judged() {
        let mut m = Model::default();
        let bad = json!({"taskId": 7, "status": "input_required", "createdAt": "yesterday"});
        let f = m.observe(&obs(&bad, Source::Get, 1, Some(0)));
        let mut rules = failed(&f);
        rules.sort();
        assert_eq!(
            rules,
            vec![
                "tasks.id.string",
                "tasks.ttl.created-at",
                "tasks.ttl.get-includes-ttl",
                "tasks.ttl.last-updated-at"
            ]
        );
        let f = m.observe(&obs(
            &task("b", "input_required", "2025-11-25T10:00:00Z"),
            Source::Create,
            3,
            Some(2),
        ));
        assert!(
            failed(&f).is_empty(),
            "a CreateTaskResult is a snapshot taken after the task began"
        );
        let f = m.observe(&obs(
            &task("b", "working", "2025-11-25T10:00:00Z"),
            Source::Create,
            5,
            Some(4),
        ));
        assert_eq!(failed(&f), vec!["tasks.id.unique"]);
    }

    #[test]
    fn timestamps_must_not_go_back() {
        let mut m = Model::default();
        m.observe(&obs(
            &task("a", "working", "2025-11-25T10:00:05Z"),
            Source::Get,
            2,
            Some(1),
        ));
        let f = m.observe(&obs(
            &task("a", "working", "2025-11-25T10:00:04Z"),
            Source::Get,
            4,
            Some(3),
        ));
        assert_eq!(failed(&f), vec!["tasks.ttl.last-updated-monotonic"]);
        let mut t = task("a", "working", "2025-11-25T10:00:05Z");
        t["createdAt"] = json!("2025-11-25T09:00:00Z");
        let f = m.observe(&obs(&t, Source::Get, 6, Some(5)));
        assert_eq!(failed(&f), vec!["tasks.ttl.created-at-constant"]);
    }

    #[test]
    fn one_instant_in_other_spellings_and_precisions_is_not_a_change() {
        let mut m = Model::default();
        let mut t = task("a", "working", "2025-11-25T10:00:00.123456Z");
        t["createdAt"] = json!("2025-11-25T10:00:00.123456Z");
        m.observe(&obs(&t, Source::Create, 2, Some(1)));
        t["createdAt"] = json!("2025-11-25T10:00:00.123+00:00");
        t["lastUpdatedAt"] = json!("2025-11-25T10:00:00.123+00:00");
        assert!(failed(&m.observe(&obs(&t, Source::Get, 4, Some(3)))).is_empty());
        t["createdAt"] = json!("2025-11-25T10:00:00.124Z");
        t["lastUpdatedAt"] = json!("2025-11-25T10:00:00.125Z");
        assert_eq!(
            failed(&m.observe(&obs(&t, Source::Get, 6, Some(5)))),
            vec!["tasks.ttl.created-at-constant"]
        );
    }

    #[test]
    fn iso_8601_that_is_not_rfc_3339_only_warns() {
        let mut m = Model::default();
        let mut t = task("a", "working", "2025-11-25T10:00:00");
        t["createdAt"] = json!("20251125T100000Z");
        let f = m.observe(&obs(&t, Source::Get, 2, Some(1)));
        let mut rules = failed(&f);
        rules.sort();
        rules.dedup();
        assert_eq!(rules, vec![RFC3339_RULE]);
    }

    #[test]
    fn a_cancelled_task_reported_otherwise_follows_stays_cancelled() {
        let mut m = Model::default();
        m.observe(&obs(
            &task("a", "cancelled", "2025-11-25T10:00:01Z"),
            Source::Cancel,
            2,
            Some(1),
        ));
        let f = m.observe(&obs(
            &task("a", "failed", "2025-11-25T10:00:02Z"),
            Source::Get,
            4,
            Some(3),
        ));
        let follows: Vec<(&str, Option<&str>)> = f
            .iter()
            .filter(|f| !f.held)
            .map(|f| (f.rule, f.follows))
            .collect();
        assert_eq!(
            follows,
            vec![
                ("tasks.failed.status-message", Some(STAYS_CANCELLED)),
                (STAYS_CANCELLED, Some(STAYS_CANCELLED)),
                ("tasks.lifecycle.terminal-final", Some(STAYS_CANCELLED))
            ]
        );
    }

    #[test]
    fn transitions_follow_the_spec() {
        use TaskStatus::*;
        assert!(Working.may_become(InputRequired) && InputRequired.may_become(Working));
        assert!(Working.may_become(Cancelled) && !Completed.may_become(Working));
        assert!(!Cancelled.may_become(Completed));
    }
}
