//! taskcheck's own conduct as a requestor: the requestor rules it obeys, checked on the
//! messages it sent. A break is a harness error, unless the scenario breaks that rule on
//! purpose and says so in `breaks`.

use super::task_capability;
use crate::monitor::has_capability;
use crate::schema::Violation;
use crate::verdict::{Check, Root, Verdict};
use crate::wire;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap, HashSet};

/// Every requestor rule taskcheck checks itself against.
pub const CONDUCT_RULES: [&str; 6] = [
    "tasks.capability.requestor-augments-declared-only",
    "tasks.tool.requestor-respects-task-support",
    "tasks.meta.requestor-omits",
    "tasks.list.requestor-opaque-cursor",
    "tasks.schema.requestor-messages",
    RELATED_RESPONSES,
];

/// A requestor's result for a receiver's request about a task names that task too.
const RELATED_RESPONSES: &str = "tasks.meta.requestor-related-responses";

/// What taskcheck did, judged against the requestor rules.
pub struct Conduct<'a> {
    capabilities: &'a Value,
    breaks: &'a [String],
    /// `execution.taskSupport` of every listed tool (None: no `execution.taskSupport`).
    support: HashMap<String, Option<String>>,
    cursors: HashSet<String>,
    /// Task ids the receiver gave that are not strings: sending them back is its doing.
    foreign_ids: HashSet<String>,
    broken: BTreeMap<&'static str, (String, u64)>,
    /// The rules some message could have broken, with the first such message.
    exercised: BTreeMap<&'static str, u64>,
    /// Broken rules whose break is another's consequence (one defect, one failure), with it.
    follows: BTreeMap<&'static str, &'static str>,
}

impl<'a> Conduct<'a> {
    pub fn new(capabilities: &'a Value, breaks: &'a [String]) -> Conduct<'a> {
        Conduct {
            capabilities,
            breaks,
            support: HashMap::new(),
            cursors: HashSet::new(),
            foreign_ids: HashSet::new(),
            broken: BTreeMap::new(),
            exercised: BTreeMap::new(),
            follows: BTreeMap::new(),
        }
    }

    fn exercise(&mut self, rule: &'static str, seq: u64) {
        self.exercised.entry(rule).or_insert(seq);
    }

    fn broke(&mut self, rule: &'static str, what: String, seq: u64) {
        if !self.breaks.iter().any(|b| b == rule) {
            self.broken.entry(rule).or_insert((what, seq));
        }
    }

    /// A tools/list result: remember each tool's taskSupport.
    pub fn tools_listed(&mut self, result: &Value) {
        for tool in result
            .get("tools")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default()
        {
            if let Some(name) = tool.get("name").and_then(Value::as_str) {
                let support = tool
                    .get("execution")
                    .and_then(|x| x.get("taskSupport"))
                    .and_then(Value::as_str)
                    .map(str::to_string);
                self.support.insert(name.to_string(), support);
            }
        }
    }

    /// A listed tool's `execution.taskSupport` (`Some(None)`: listed without one; None: not
    /// listed in this session).
    pub fn task_support(&self, name: &str) -> Option<Option<&str>> {
        self.support.get(name).map(Option::as_deref)
    }

    /// A tasks/list result: its cursor may be sent back.
    pub fn cursor_received(&mut self, cursor: &Value) {
        self.cursors.insert(cursor.to_string());
    }

    /// A task id the receiver reported.
    pub fn task_id_received(&mut self, id: &Value) {
        if !id.is_string() {
            self.foreign_ids.insert(id.to_string());
        }
    }

    /// A request taskcheck sent.
    pub fn request(&mut self, method: &str, params: &Value, seq: u64) {
        let augmented = params.get("task").is_some();
        self.exercise("tasks.schema.requestor-messages", seq);
        if augmented {
            self.exercise("tasks.capability.requestor-augments-declared-only", seq);
            let declared =
                task_capability(method).is_some_and(|c| has_capability(self.capabilities, c));
            if !declared {
                self.broke(
                    "tasks.capability.requestor-augments-declared-only",
                    format!("task-augmented {method} without the receiver declaring it"),
                    seq,
                );
            }
            // tool-level negotiation: without tasks.requests.tools.call no tool is augmented,
            // "regardless of the execution.taskSupport value" (MUST NOT); the SHOULD broken by
            // the same message follows from it
            if !declared && method == "tools/call" {
                self.exercise("tasks.tool.requestor-respects-task-support", seq);
                let name = params
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                self.broke(
                    "tasks.tool.requestor-respects-task-support",
                    format!("task-augmented call of {name:?}, though the receiver's capabilities lack tasks.requests.tools.call"),
                    seq,
                );
                // only where the SHOULD's first break is this very message
                let should = "tasks.capability.requestor-augments-declared-only";
                if self.broken.get(should).is_some_and(|(_, at)| *at == seq) {
                    self.follows
                        .insert(should, "tasks.tool.requestor-respects-task-support");
                }
            }
        }
        if method == "tools/call" {
            let name = params
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default();
            if let Some(support) = self.support.get(name).cloned() {
                self.exercise("tasks.tool.requestor-respects-task-support", seq);
                let support = support.as_deref().unwrap_or("forbidden");
                if augmented && support == "forbidden" {
                    self.broke(
                        "tasks.tool.requestor-respects-task-support",
                        format!("task-augmented call of {name:?}, whose taskSupport is forbidden or absent"),
                        seq,
                    );
                }
                if !augmented && support == "required" {
                    self.broke(
                        "tasks.tool.requestor-respects-task-support",
                        format!("plain call of {name:?}, whose taskSupport is required"),
                        seq,
                    );
                }
            }
        }
        // tasks/get, tasks/result, tasks/cancel (Task Related Messages) and tasks/list (Related
        // Task Metadata: "For the tasks/get, tasks/list, and tasks/cancel operations")
        let names_its_task = matches!(
            method,
            "tasks/get" | "tasks/result" | "tasks/cancel" | "tasks/list"
        );
        if names_its_task {
            self.exercise("tasks.meta.requestor-omits", seq);
        }
        if names_its_task && wire::has_related_task(params) {
            self.broke(
                "tasks.meta.requestor-omits",
                format!("{method} sent with related-task _meta"),
                seq,
            );
        }
        if method == "tasks/list" {
            if let Some(c) = params.get("cursor").filter(|c| !c.is_null()) {
                self.exercise("tasks.list.requestor-opaque-cursor", seq);
                if !self.cursors.contains(&c.to_string()) {
                    self.broke(
                        "tasks.list.requestor-opaque-cursor",
                        format!("tasks/list sent cursor {c}, which no tasks/list returned"),
                        seq,
                    );
                }
            }
        }
    }

    /// A response to a request of the receiver's: where the request named a task in its
    /// related-task `_meta`, a result names the same task (an error object has no `_meta`, and
    /// a ping's empty result, answered by the session itself, does no task's work).
    pub fn response(&mut self, request: &Value, method: &str, result: Option<&Value>, seq: u64) {
        let Some(task) = wire::related_task_value(request) else {
            return;
        };
        let Some(result) = result.filter(|_| method != "ping") else {
            return;
        };
        self.exercise(RELATED_RESPONSES, seq);
        let named = wire::related_task_value(result);
        if named != Some(task) {
            let shown = named.map_or("none".to_string(), Value::to_string);
            self.broke(
                RELATED_RESPONSES,
                format!("the result for {method} of task {task} carries related-task _meta naming {shown}"),
                seq,
            );
        }
    }

    /// Schema violations of a message taskcheck sent (a task id the receiver gave, sent back
    /// as it was, is not taskcheck's violation).
    pub fn invalid(&mut self, violations: &[Violation], seq: u64) {
        let own = violations
            .iter()
            .find(|v| !self.foreign_ids.contains(&v.value.to_string()));
        if let Some(first) = own {
            self.broke("tasks.schema.requestor-messages", first.to_string(), seq);
        }
    }

    /// The broken rule whose break `rule`'s break follows from, if both broke.
    fn root_of(&self, rule: &str) -> Option<&'static str> {
        self.follows
            .get(rule)
            .copied()
            .filter(|root| self.broken.contains_key(root))
    }

    /// The verdicts on a requestor under test: per rule some message exercised, its first
    /// break, or a pass.
    pub fn verdicts(self) -> Vec<Check> {
        self.exercised
            .iter()
            .map(|(&rule, &first)| match self.broken.get(rule) {
                Some((what, seq)) => {
                    let check = Check::judged(rule, false, what.clone(), vec![*seq]);
                    match self.root_of(rule) {
                        // the scenario is the one judged: the requestor run names it
                        Some(root) => check.following(Root {
                            rule: root.to_string(),
                            scenario: String::new(),
                            step: None,
                        }),
                        None => check,
                    }
                }
                None => Check::judged(
                    rule,
                    true,
                    "held on every message the requestor sent",
                    vec![first],
                ),
            })
            .collect()
    }

    /// One harness error per requestor rule taskcheck broke without saying so (none for a
    /// break that follows from another).
    pub fn errors(self) -> Vec<Check> {
        self.broken
            .iter()
            .filter(|(rule, _)| self.root_of(rule).is_none())
            .map(|(rule, (what, seq))| Check {
                evidence: vec![*seq],
                ..Check::with(
                    rule,
                    Verdict::Error,
                    format!(
                        "taskcheck broke this requestor rule itself (trace #{seq}: {what}); a scenario that does so on purpose lists it in `breaks`"
                    ),
                )
            })
            .collect()
    }
}
