//! What the receiver does with what it declared: a plain call of a tool that requires a task,
//! a task asked of a tool or a request type that supports none, the operations its `tasks`
//! capability lists, the extension's capability under 2025-11-25, and the ttl it grants.

use super::*;

/// A plain call of a `required` tool gets -32601 (MUST).
pub(super) const REQUIRED_REJECTED: &str = "tasks.tool.required-without-task-rejected";
/// A task-augmented call of a tool without task support gets -32601 (SHOULD).
pub(super) const FORBIDDEN_REJECTED: &str = "tasks.tool.forbidden-rejected";
/// A task-augmented request of an undeclared type is processed normally (MUST).
pub(super) const PROCESSED_NORMALLY: &str = "tasks.support.undeclared-processed-normally";
/// Under 2025-11-25 the extension's capability enables no task (MUST NOT).
pub(super) const EXTENSION_NOT_ENABLING: &str = "tasks.capability.extension-not-enabling";
/// What a receiver declaring task support answers a plain call of a `required` tool (MAY).
pub(super) const MAY_REQUIRE: &str = "tasks.support.may-require-task";
/// An `optional` tool runs either way (MAY).
pub(super) const OPTIONAL_EITHER_WAY: &str = "tasks.tool.optional-either-way";
/// A ttl of ten years is asked to see a maximum enforced (SHOULD).
pub(super) const MAX_TTL: &str = "tasks.resources.max-ttl";
/// A declared tasks/list is served (MUST).
pub(super) const LIST_SUPPORTED: &str = "tasks.capability.list-supported";
/// A declared tasks/cancel is served (MUST).
pub(super) const CANCEL_SUPPORTED: &str = "tasks.capability.cancel-supported";
/// What an undeclared tasks/list or tasks/cancel gets (MAY).
pub(super) const UNDECLARED_OPERATIONS: &str = "tasks.capability.undeclared-operations";
/// The ttl taskcheck's ten-year request asks for: a grant of this or more, or null, is no cap.
const TEN_YEARS_MS: u64 = 315_360_000_000;

/// The capability key of the Tasks extension, which 2025-11-25 does not define.
const EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// Whether an answer is a CreateTaskResult of either design (`task`, or the extension's
/// `taskId` with `resultType` "task").
pub(super) fn is_task_answer(result: &Value) -> bool {
    result.get("task").is_some_and(Value::is_object)
        || result.get("resultType").and_then(Value::as_str) == Some("task")
        || result.get("taskId").is_some() && result.get("content").is_none()
}

/// What the receiver's capabilities declare, read once for the session.
#[derive(Default, Clone, Copy)]
pub(super) struct Declared {
    /// `tasks.requests.tools.call`
    pub calls: bool,
    pub list: bool,
    pub cancel: bool,
    /// A task capability, per request type that may be task-augmented.
    augmentable: [bool; 3],
}

impl Declared {
    pub fn of(capabilities: &Value) -> Declared {
        let has = |path| has_capability(capabilities, path);
        let methods = ["tools/call", "sampling/createMessage", "elicitation/create"];
        Declared {
            calls: has("tasks.requests.tools.call"),
            list: has("tasks.list"),
            cancel: has("tasks.cancel"),
            augmentable: methods.map(|m| task_capability(m).is_some_and(has)),
        }
    }

    /// Whether the receiver declares task support for requests of `method`.
    pub fn tasks_for(&self, method: &str) -> bool {
        match method {
            "tools/call" => self.augmentable[0],
            "sampling/createMessage" => self.augmentable[1],
            "elicitation/create" => self.augmentable[2],
            _ => false,
        }
    }
}

/// The rule that holds a declared operation (tasks/list, tasks/cancel) served.
pub(super) fn operation_rule(method: &str) -> Option<&'static str> {
    match method {
        "tasks/list" => Some(LIST_SUPPORTED),
        "tasks/cancel" => Some(CANCEL_SUPPORTED),
        _ => None,
    }
}

/// Whether `method` is an operation the receiver declares, answered -32601 (Method not
/// found): what else its answer would show cannot be judged.
pub(super) fn unserved(method: &str, answer: Result<&Value, &Value>, declared: Declared) -> bool {
    let served = match method {
        "tasks/list" => declared.list,
        "tasks/cancel" => declared.cancel,
        _ => return false,
    };
    served && is_code(answer, wire::code::METHOD_NOT_FOUND)
}

/// Whether an error answer has this code.
fn is_code(answer: Result<&Value, &Value>, code: i64) -> bool {
    answer.is_err_and(|e| e.get("code").and_then(Value::as_i64) == Some(code))
}

/// An answer in a few words.
pub(super) fn shown(answer: Result<&Value, &Value>) -> String {
    match answer {
        Ok(r) => format!("result {}", crate::matcher::short(r)),
        Err(e) => format!("error {}", crate::matcher::short(e)),
    }
}

impl Monitor<'_> {
    /// An answer to a request of the requestor's, judged against what the receiver declared.
    pub(super) fn negotiated(&mut self, asked: &Asked, answer: Result<&Value, &Value>, e: &Entry) {
        let evidence = || vec![asked.seq, e.seq];
        let method = asked.method;
        let augmented = asked.params.get("task").is_some();
        match method {
            "tasks/list" | "tasks/cancel" => self.operation(method, answer, evidence()),
            "tools/call" => self.tool_support(asked, answer, e),
            _ => {}
        }
        if augmented {
            self.undeclared_type(asked, answer, e);
            self.ttl_capped(asked, answer, e);
        } else if method == "tools/call" && self.declares_extension() {
            let task = answer.is_ok_and(is_task_answer);
            if task {
                self.failed_at
                    .entry(e.seq)
                    .or_insert(EXTENSION_NOT_ENABLING);
            }
            self.findings.judge(
                EXTENSION_NOT_ENABLING,
                !task,
                None,
                || match task {
                    true => format!(
                        "a tools/call without `task`, from a client whose 2025-11-25 initialize declared the extension {EXTENSION}, was answered with a task: {}",
                        shown(answer)
                    ),
                    false => "a tools/call without `task`, from a client declaring the extension, got no task".into(),
                },
                evidence,
            );
        }
    }

    /// Whether taskcheck's own initialize declared the Tasks extension.
    fn declares_extension(&self) -> bool {
        self.own_capabilities
            .get("extensions")
            .and_then(|x| x.get(EXTENSION))
            .is_some()
    }

    /// tasks/list and tasks/cancel are served where declared; what an undeclared one gets is
    /// recorded.
    fn operation(&mut self, method: &str, answer: Result<&Value, &Value>, evidence: Vec<u64>) {
        let (rule, capability) = match method {
            "tasks/list" => (LIST_SUPPORTED, "tasks.list"),
            _ => (CANCEL_SUPPORTED, "tasks.cancel"),
        };
        let unknown = is_code(answer, wire::code::METHOD_NOT_FOUND);
        let declared = match method {
            "tasks/list" => self.declared.list,
            _ => self.declared.cancel,
        };
        if declared {
            self.findings.judge(
                rule,
                !unknown,
                None,
                || match unknown {
                    true => format!("{method} answered -32601 (Method not found), though the receiver declares {capability}"),
                    false => format!("{method} served, as {capability} declares"),
                },
                || evidence.clone(),
            );
        } else {
            self.findings.judge(
                UNDECLARED_OPERATIONS,
                true,
                None,
                || {
                    format!(
                        "{method}, which the receiver does not declare ({capability}), answered {}",
                        shown(answer)
                    )
                },
                || evidence.clone(),
            );
        }
    }

    /// A tools/call against the tool's declared `execution.taskSupport`, where the receiver
    /// declares task support for tools/call (else taskSupport means nothing).
    fn tool_support(&mut self, asked: &Asked, answer: Result<&Value, &Value>, e: &Entry) {
        if !self.declared.calls {
            return;
        }
        let name = asked
            .params
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let Some(support) = self.conduct.task_support(name) else {
            return;
        };
        let support = support.unwrap_or("forbidden").to_string();
        let augmented = asked.params.get("task").is_some();
        let refused = is_code(answer, wire::code::METHOD_NOT_FOUND);
        let evidence = || vec![asked.seq, e.seq];
        if !augmented && support != "forbidden" {
            self.findings.judge(
                MAY_REQUIRE,
                true,
                None,
                || {
                    format!(
                        "a plain call of {name:?} (taskSupport {support}) answered {}",
                        shown(answer)
                    )
                },
                evidence,
            );
        }
        match (support.as_str(), augmented) {
            ("required", false) => self.findings.judge(
                REQUIRED_REJECTED,
                refused,
                None,
                || match refused {
                    true => format!("a plain call of {name:?} (taskSupport required) got -32601"),
                    false => format!(
                        "a plain call of {name:?}, whose taskSupport is required, was answered {}, not -32601 (Method not found)",
                        shown(answer)
                    ),
                },
                evidence,
            ),
            ("forbidden", true) => self.findings.judge(
                FORBIDDEN_REJECTED,
                refused,
                None,
                || match refused {
                    true => format!("a task-augmented call of {name:?} (taskSupport absent or forbidden) got -32601"),
                    false => format!(
                        "a task-augmented call of {name:?}, whose taskSupport is absent or forbidden, was answered {}, not -32601 (Method not found)",
                        shown(answer)
                    ),
                },
                evidence,
            ),
            ("optional", true) => self.findings.judge(
                OPTIONAL_EITHER_WAY,
                true,
                None,
                || format!("{name:?} (taskSupport optional) called as a task: {}", shown(answer)),
                evidence,
            ),
            _ => {}
        }
    }

    /// A task-augmented request of a type the receiver declares no task support for is
    /// processed normally: no task, and no refusal of the `task` it carries. A refusal is
    /// judged where processing the request normally cannot fail for its params (a list), or
    /// where the same request without `task` got a result in this session (judged at the end).
    fn undeclared_type(&mut self, asked: &Asked, answer: Result<&Value, &Value>, e: &Entry) {
        let method = asked.method;
        if self.declared.tasks_for(method) {
            return;
        }
        // 2025-11-25's CreateTaskResult alone: the other shapes is_task_answer takes would
        // read a tasks/get's own Task, sent with a `task` it ignores, as a task created
        let task = answer.is_ok_and(|r| r.get("task").is_some_and(Value::is_object));
        // a task given by a receiver with no `tasks` capability at all breaks
        // tasks.capability.declare first: this is its consequence
        let follows = (task && self.ctx.capabilities.get("tasks").is_none())
            .then_some("tasks.capability.declare");
        match answer {
            Ok(_) => self.findings.judge(
                PROCESSED_NORMALLY,
                !task,
                follows,
                || match task {
                    true => format!(
                        "a task-augmented {method}, a request type the receiver declares no task support for, was answered with a task: {}",
                        shown(answer)
                    ),
                    false => format!("a task-augmented {method} (undeclared for tasks) was processed normally"),
                },
                || vec![asked.seq, e.seq],
            ),
            Err(error) if method.ends_with("/list") => self.findings.judge(
                PROCESSED_NORMALLY,
                false,
                None,
                || format!(
                    "a task-augmented {method}, a request type the receiver declares no task support for, was refused instead of processed normally: {}",
                    crate::matcher::short(error)
                ),
                || vec![asked.seq, e.seq],
            ),
            Err(error) => self.refusals.push((
                plain_key(method, asked.params),
                asked.seq,
                e.seq,
                error.clone(),
            )),
        }
    }

    /// Refusals of an undeclared type's task-augmented request, once the session is over: a
    /// failure where the same request without `task` got a result.
    pub(super) fn refusals_judged(&mut self) {
        for (key, asked, answered, error) in std::mem::take(&mut self.refusals) {
            let Some((Ok(_), plain)) = self.plain_outcomes.get(&key) else {
                continue;
            };
            let plain = *plain;
            self.findings.judge(
                PROCESSED_NORMALLY,
                false,
                None,
                || format!(
                    "a task-augmented {}, a request type the receiver declares no task support for, was refused ({}), where the same request without `task` got a result (trace #{plain})",
                    key.0,
                    crate::matcher::short(&error)
                ),
                || vec![asked, answered, plain],
            );
        }
    }

    /// A ttl of ten years or more is granted shorter, not as asked nor unlimited.
    fn ttl_capped(&mut self, asked: &Asked, answer: Result<&Value, &Value>, e: &Entry) {
        let asked_ttl = asked.params.pointer("/task/ttl").and_then(Value::as_u64);
        let (Some(want), Ok(result)) = (asked_ttl.filter(|t| *t >= TEN_YEARS_MS), answer) else {
            return;
        };
        let Some(granted) = result.get("task").and_then(|t| t.get("ttl")) else {
            return;
        };
        let capped = granted.as_u64().is_some_and(|g| g < want);
        self.findings.judge(
            MAX_TTL,
            capped,
            None,
            || match capped {
                true => format!("asked a ttl of {want} ms, granted {granted}"),
                false => format!(
                    "asked a ttl of {want} ms (ten years or more), granted {granted}: no maximum ttl is enforced"
                ),
            },
            || vec![asked.seq, e.seq],
        );
    }
}

/// A request by what it asks, `task` and `_meta` aside: its method and its other params.
pub(super) fn plain_key(method: &str, params: &Value) -> (String, String) {
    crate::monitor::request_key(method, params, &["task", "_meta"])
}
