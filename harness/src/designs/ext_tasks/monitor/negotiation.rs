//! What each request declares in its own `_meta`, and what its answer may be: no task for a
//! request that does not declare the extension (whatever else it carries), -32021 where the
//! extension is needed, the per-request fields every request carries, and the methods the
//! extension removed.

use super::*;
use serde_json::json;

/// No CreateTaskResult to a request that does not declare the extension (MUST NOT).
pub(super) const NO_TASK_UNDECLARED: &str = "ext-tasks.capability.no-task-without-declaration";
/// The 2025-11-25 `tasks` capability declares nothing (MUST).
pub(super) const LEGACY_NON_DECLARING: &str = "ext-tasks.capability.legacy-is-non-declaring";
/// The 2025-11-25 `task` parameter asks for nothing (MUST).
pub(super) const TASK_PARAM_IGNORED: &str = "ext-tasks.capability.task-param-ignored";
/// Under protocol 2025-11-25 the extension gives no task (MUST NOT).
pub(super) const NOT_UNDER_2025: &str = "ext-tasks.capability.not-under-2025";
/// A request that cannot be served without a task gets -32021 (MUST).
pub(super) const MISSING_CAPABILITY_ERROR: &str = "ext-tasks.capability.missing-capability-error";
/// tasks/get, tasks/update and tasks/cancel need the extension declared (MUST).
pub(super) const METHODS_NEED_CAPABILITY: &str = "ext-tasks.errors.tasks-methods-need-capability";
/// Task notifications need the extension declared (MUST).
pub(super) const LISTEN_NEEDS_CAPABILITY: &str = "ext-tasks.notifications.listen-needs-capability";
/// Requests carry their per-request `_meta` (MUST).
pub(super) const REQUEST_META: &str = "ext-tasks.core.request-meta-required";
/// tasks/result is no method of the extension (MUST).
pub(super) const RESULT_REMOVED: &str = "ext-tasks.errors.tasks-result-removed";
/// What tasks/list gets (MAY).
pub(super) const LIST_REMOVED: &str = "ext-tasks.errors.tasks-list-removed";

/// Over HTTP, a request whose metadata headers differ from its body is refused (MUST).
pub(super) const HEADER_MISMATCH: &str = "ext-tasks.http.header-mismatch";
/// The code of that refusal (Header Mismatch).
pub(super) const HEADER_MISMATCH_CODE: i64 = -32020;

/// Round trips before a task are resolved before its CreateTaskResult (SHOULD).
pub(super) const MRTR_SYNCHRONOUS: &str = "ext-tasks.create.mrtr-synchronous";

/// The protocol version under which the extension does not exist.
const LEGACY_VERSION: &str = "2025-11-25";

/// An error's code.
pub(super) fn code_of(answer: Result<&Value, &Value>) -> Option<i64> {
    answer.err()?.get("code")?.as_i64()
}

/// An answer in a few words.
pub(super) fn shown(answer: Result<&Value, &Value>) -> String {
    match answer {
        Ok(r) => format!("result {}", crate::matcher::short(r)),
        Err(e) => format!("error {}", crate::matcher::short(e)),
    }
}

/// A request by what it asks, `_meta` and `task` aside.
pub(super) fn plain_key(method: &str, params: &Value) -> (String, String) {
    crate::monitor::request_key(method, params, &["_meta", "task"])
}

/// Whether an error names the extension among its required capabilities.
fn names_extension(error: &Value) -> bool {
    error
        .pointer("/data/requiredCapabilities/extensions")
        .and_then(|x| x.get(EXTENSION))
        .is_some_and(Value::is_object)
}

impl Monitor {
    /// An answer against what its request declared.
    pub(super) fn negotiated(&mut self, asked: &Asked, answer: Result<&Value, &Value>, e: &Entry) {
        let evidence = vec![asked.seq, e.seq];
        let method = asked.method.as_str();
        let caps = request_capabilities(&asked.params);
        let declaring = declares(caps);
        let version = asked
            .params
            .pointer("/_meta")
            .and_then(|m| m.get(META_VERSION))
            .and_then(Value::as_str);
        self.request_meta(asked, answer, version, &evidence);
        match method {
            "tasks/result" => {
                let held = code_of(answer) == Some(crate::wire::code::METHOD_NOT_FOUND);
                self.find(
                    RESULT_REMOVED,
                    held,
                    match held {
                        true => "tasks/result answered -32601 (Method not found)".into(),
                        false => format!(
                            "tasks/result, which the extension removed, answered {}",
                            shown(answer)
                        ),
                    },
                    evidence.clone(),
                );
            }
            "tasks/list" => self.find(
                LIST_REMOVED,
                true,
                format!(
                    "tasks/list, which the extension does not define, answered {}",
                    shown(answer)
                ),
                evidence.clone(),
            ),
            "tasks/get" | "tasks/update" | "tasks/cancel" if !declaring && caps.is_object() => {
                let held = code_of(answer) == Some(MISSING_CAPABILITY);
                self.find(
                    METHODS_NEED_CAPABILITY,
                    held,
                    match held {
                        true => format!("{method} from a request that does not declare the extension got -32021"),
                        false => format!(
                            "{method} from a request that does not declare the extension was answered {}, not -32021 (Missing Required Client Capability)",
                            shown(answer)
                        ),
                    },
                    evidence.clone(),
                );
            }
            "subscriptions/listen" if !declaring && caps.is_object() => {
                self.listen_undeclared(asked, answer, &evidence)
            }
            _ => {}
        }
        let task = answer.is_ok_and(|r| {
            is_task_handle(r) || r.get("resultType").and_then(Value::as_str) == Some("task")
        });
        // a retry that carries the answers of an InputRequiredResult, answered with a task:
        // the round trips came first
        if task && method == "tools/call" && asked.params.get("inputResponses").is_some() {
            self.find(
                MRTR_SYNCHRONOUS,
                true,
                "a tools/call retried with the answers its InputRequiredResult asked for got its CreateTaskResult".into(),
                evidence.clone(),
            );
        }
        if version == Some(LEGACY_VERSION) && declaring {
            self.find(
                NOT_UNDER_2025,
                !task,
                match task {
                    true => format!("{method} under protocol {LEGACY_VERSION}, declaring the extension, was answered with a task: the extension does not exist under that version"),
                    false => format!("{method} under protocol {LEGACY_VERSION} got no task"),
                },
                evidence,
            );
            return;
        }
        // a task request's answer is a Task by nature, and without the extension it is
        // tasks-methods-need-capability's to judge
        if declaring || !caps.is_object() && !task || method.starts_with("tasks/") {
            return;
        }
        // the most particular reading of the request is judged; the general one it follows
        let legacy = caps.get("tasks").is_some();
        let param = asked.params.get("task").is_some();
        let (rule, why) = match (legacy, param) {
            (true, _) => (
                LEGACY_NON_DECLARING,
                "declares only the 2025-11-25 `tasks` capability",
            ),
            (false, true) => (
                TASK_PARAM_IGNORED,
                "carries the 2025-11-25 `task` parameter",
            ),
            (false, false) => (NO_TASK_UNDECLARED, "does not declare the extension"),
        };
        let follows = (rule != NO_TASK_UNDECLARED).then_some(NO_TASK_UNDECLARED);
        let message = match task {
            true => format!(
                "{method} whose request {why} was answered with a task: {}",
                shown(answer)
            ),
            false => format!("{method} whose request {why} got no task"),
        };
        if task {
            self.failed_at.entry(e.seq).or_insert(rule);
        }
        self.findings.push(Finding {
            follows,
            ..Finding::new(rule, !task, message, evidence)
        });
    }

    /// A request whose recorded metadata headers (`Mcp-Method`, `Mcp-Name`,
    /// `MCP-Protocol-Version`) are missing or differ from what its body calls for is refused
    /// with -32020.
    pub(super) fn headers_matched(
        &mut self,
        asked: &Asked,
        answer: Result<&Value, &Value>,
        e: &Entry,
    ) {
        let Some(sent) = &asked.headers else { return };
        let body = json!({"method": asked.method, "params": asked.params});
        let wanted: BTreeMap<String, String> = crate::transport::routing::headers_for(&body)
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        let differing: Vec<&String> = wanted
            .iter()
            .filter(|(k, v)| sent.get(*k) != Some(*v))
            .map(|(k, _)| k)
            .collect();
        if differing.is_empty() {
            return;
        }
        let held = code_of(answer) == Some(HEADER_MISMATCH_CODE);
        let method = &asked.method;
        self.find(
            HEADER_MISMATCH,
            held,
            match held {
                true => format!("{method} whose {differing:?} header(s) differ from its body got -32020"),
                false => format!(
                    "{method} whose {differing:?} header(s) are missing or differ from its body was answered {}, not -32020 (Header Mismatch)",
                    shown(answer)
                ),
            },
            vec![asked.seq, e.seq],
        );
    }

    /// Every request carries the protocol version and the client capabilities; one that
    /// carries the version but not the capabilities is refused with -32602 (one without the
    /// version may be a legacy client's, served the legacy way).
    fn request_meta(
        &mut self,
        asked: &Asked,
        answer: Result<&Value, &Value>,
        version: Option<&str>,
        evidence: &[u64],
    ) {
        if version.is_none() || request_capabilities(&asked.params).is_object() {
            return;
        }
        let method = &asked.method;
        let held = code_of(answer) == Some(crate::wire::code::INVALID_PARAMS);
        self.find(
            REQUEST_META,
            held,
            match held {
                true => format!("{method} without client capabilities in its _meta got -32602"),
                false => format!(
                    "{method} carries a protocol version but no client capabilities in its _meta, and was answered {}, not -32602 (Invalid params)",
                    shown(answer)
                ),
            },
            evidence.to_vec(),
        );
    }

    /// A subscriptions/listen for task notifications from a request that does not declare
    /// the extension gets -32021; a server that serves no subscriptions/listen at all
    /// (-32601) is not judged, nor is a listen that asks for no task.
    fn listen_undeclared(
        &mut self,
        asked: &Asked,
        answer: Result<&Value, &Value>,
        evidence: &[u64],
    ) {
        if asked.params.pointer("/notifications/taskIds").is_none() {
            return;
        }
        let code = code_of(answer);
        if code == Some(crate::wire::code::METHOD_NOT_FOUND) {
            return;
        }
        let held = code == Some(MISSING_CAPABILITY);
        self.find(
            LISTEN_NEEDS_CAPABILITY,
            held,
            match held {
                true => "subscriptions/listen for task notifications, not declaring the extension, got -32021".into(),
                false => format!(
                    "subscriptions/listen for task notifications from a request that does not declare the extension was answered {}, not -32021",
                    shown(answer)
                ),
            },
            evidence.to_vec(),
        );
    }

    /// A subscriptions/listen for task notifications that does not declare the extension was
    /// acknowledged: the server serves it.
    pub(super) fn listen_acknowledged(&mut self, listen: u64, e: &Entry) {
        self.find(
            LISTEN_NEEDS_CAPABILITY,
            false,
            "subscriptions/listen for task notifications from a request that does not declare the extension was acknowledged, not refused with -32021".into(),
            vec![listen, e.seq],
        );
    }

    /// A request that does not declare the extension refused with an error, where the same
    /// request declaring it got a task: the server cannot serve it without one, and says so
    /// with -32021 naming the extension (judged once the session is over; an internal error,
    /// -32603, may be the tool's own failure and is not judged).
    pub(super) fn missing_capability_judged(&mut self) {
        for (key, (asked, answered, error)) in std::mem::take(&mut self.undeclared_errors) {
            let Some(task_seq) = self.declared_tasks.get(&key).copied() else {
                continue;
            };
            let code = error.get("code").and_then(Value::as_i64);
            if code == Some(crate::wire::code::INTERNAL_ERROR) {
                continue;
            }
            let held = code == Some(MISSING_CAPABILITY) && names_extension(&error);
            self.find(
                MISSING_CAPABILITY_ERROR,
                held,
                match held {
                    true => format!("{} without the extension got -32021 naming it", key.0),
                    false => format!(
                        "{} without the extension was refused with {}, where the same request declaring it got a task (trace #{task_seq}): a request served only as a task gets -32021 with data.requiredCapabilities naming {EXTENSION}",
                        key.0,
                        crate::matcher::short(&error)
                    ),
                },
                vec![task_seq, asked, answered],
            );
        }
    }

    /// What a request answered plainly or with a task is kept, to compare with the same
    /// request made the other way.
    pub(super) fn remember(&mut self, asked: &Asked, answer: Result<&Value, &Value>, e: &Entry) {
        if asked.method != "tools/call" {
            return;
        }
        let key = plain_key(&asked.method, &asked.params);
        let caps = request_capabilities(&asked.params);
        match answer {
            Ok(r) if is_task_handle(r) => {
                self.declared_tasks.entry(key).or_insert(e.seq);
            }
            _ if declares(caps) => {}
            // refused for want of the extension: it says nothing of the call's own outcome
            Err(error) if error.get("code").and_then(Value::as_i64) == Some(MISSING_CAPABILITY) => {
                self.undeclared_errors
                    .entry(key)
                    .or_insert((asked.seq, e.seq, error.clone()));
            }
            Err(error) => {
                self.plain_outcomes
                    .entry(key.clone())
                    .or_insert_with(|| (Err(error.clone()), e.seq));
                self.undeclared_errors
                    .entry(key)
                    .or_insert((asked.seq, e.seq, error.clone()));
            }
            Ok(result) => {
                self.plain_outcomes
                    .entry(key)
                    .or_insert_with(|| (Ok(result.clone()), e.seq));
            }
        }
    }
}
