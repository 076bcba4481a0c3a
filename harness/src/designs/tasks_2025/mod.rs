//! The Tasks utility of protocol revision 2025-11-25: initialize, the `task` parameter,
//! tasks/get, tasks/result, tasks/list and tasks/cancel. Its rules are in
//! `catalogue/2025-11-25.yaml`, its scenarios in `scenarios/2025-11-25/` (`server/` and
//! `client/`).

mod calibrate;
mod explore;
pub mod handshake;
mod load;
pub mod monitor;
pub mod reference;
pub mod requestor;
pub mod schema_types;

use super::Tasks2025;
use crate::design::{Design, Facts, LoadRun, ReferenceReceiver, Requests, Wire};
use crate::explore::ops::{Offer, Op, Steps};
use crate::monitor::{has_capability, Context, Judgement};
use crate::reference::faults::FaultEntry;
use crate::session::{ServerInfo, Session};
use crate::trace::Entry;
use crate::transport::ReceiverKind;
use futures::future::BoxFuture;
use futures::FutureExt;
use serde_json::{json, Value};

/// The 2025-11-25 wire: initialize opens, tasks/result waits for the outcome, tasks/list
/// pages; input is asked by requests of the receiver's own, not by keys of the task.
const WIRE: Wire = Wire {
    protocol_version: crate::spec::PROTOCOL_VERSION,
    opening: "initialize",
    liveness: "ping",
    get: "tasks/get",
    result: Some("tasks/result"),
    cancel: Some(("tasks/cancel", "tasks.cancel")),
    created_task: "/task",
    list: Some("tasks/list"),
    update: None,
    status_notification: "notifications/tasks/status",
    poll_interval: "pollInterval",
    input: None,
    related_task: Some(crate::wire::RELATED_TASK),
};

/// What the design is and which of taskcheck's features it joins.
const FACTS: Facts = Facts {
    name: "2025-11-25",
    summary: "The Tasks utility of protocol revision 2025-11-25: initialize, `task` param,\ntasks/get, tasks/result, tasks/list, tasks/cancel.",
    title: "2025-11-25 Tasks",
    spec_base: "https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks",
    wire: WIRE,
    scenario_folders: &["2025-11-25/server", "2025-11-25/client"],
    own_scenarios: &[],
    task_tools_capability: "tasks.requests.tools.call",
    monitor_rules: monitor::MONITOR_RULES,
    conduct_rules: &monitor::CONDUCT_RULES,
    has_client_receivers: true,
    fuzz_wire_rules: &[
            "tasks.errors.unknown-task-id",
            "tasks.errors.bad-cursor",
            "tasks.errors.malformed-task-param",
        ],
    created_task_ids: Some(("/result/task/taskId", "tasks.id.unique")),
    limits_rule: Some("tasks.resources.limits"),
    forbids_client_responses: None,
    load_rules: &load::RULES,
    requestor_folder: Some("2025-11-25/requestor"),
};

impl Design for Tasks2025 {
    fn facts(&self) -> &'static Facts {
        &FACTS
    }

    fn requestor_rules(&self) -> Vec<&'static str> {
        monitor::CONDUCT_RULES
            .into_iter()
            .chain(requestor::REQUESTOR_RULES)
            .collect()
    }

    fn judge_requestor(
        &self,
        entries: &[Entry],
        _ask: &crate::scenario::Ask,
    ) -> Vec<crate::verdict::Check> {
        requestor::judge(entries)
    }

    fn judge_watched_requestor(&self, entries: &[Entry]) -> Option<Vec<crate::verdict::Check>> {
        // every 2025-11-25 requestor judge reads the conversation alone
        Some(requestor::judge(entries))
    }

    fn fixture_contract(&self) -> String {
        format!(
            "{}\nClient receivers (`taskcheck client`):\n\n{}",
            crate::fixtures::contract_table(),
            crate::fixtures::client::contract_table()
        )
    }

    fn fixture_roles(&self) -> Vec<&'static str> {
        crate::fixtures::FIXTURES.iter().map(|f| f.name).collect()
    }

    fn observe_task<'a>(
        &self,
        session: &'a Session,
        call: Value,
        limit: std::time::Duration,
    ) -> BoxFuture<'a, Result<crate::calibration::Observed, String>> {
        calibrate::observe_task(session, call, limit).boxed()
    }

    fn default_client_capabilities(&self) -> Value {
        json!({"elicitation": {}})
    }

    fn negotiates_task_support(&self, capabilities: &Value) -> bool {
        has_capability(capabilities, self.facts().task_tools_capability)
    }

    fn open<'a>(
        &self,
        session: &'a Session,
        receiver: ReceiverKind,
        capabilities: Value,
    ) -> BoxFuture<'a, Result<ServerInfo, String>> {
        match receiver {
            ReceiverKind::Server => handshake::initialize(session, capabilities).boxed(),
            ReceiverKind::Client => handshake::accept(session, json!({})).boxed(),
        }
    }

    fn judge(&self, entries: &[Entry], ctx: &Context) -> Judgement {
        monitor::judge(entries, ctx)
    }

    fn no_tasks_note(&self, capabilities: &Value) -> Option<&'static str> {
        capabilities.get("tasks").is_none().then_some(NO_TASKS)
    }

    fn declared(&self, result: &Value) -> ServerInfo {
        ServerInfo::from_result(result)
    }

    fn explore_steps(&self, ops: &[Op], offer: &Offer) -> Steps {
        explore::steps(ops, offer)
    }

    fn requests(&self) -> Requests {
        Requests {
            initialize: true,
            list: Some("tasks.errors.bad-cursor"),
            task_param: Some("tasks.errors.malformed-task-param"),
        }
    }

    fn task_id_requests(&self, offer: &Offer) -> Vec<(&'static str, Value)> {
        let mut methods = vec![("tasks/get", json!({})), ("tasks/result", json!({}))];
        if offer.cancel {
            methods.push(("tasks/cancel", json!({})));
        }
        methods
    }

    fn bad_task_id_rule(&self, _method: &str, has_id: bool) -> Option<&'static str> {
        // a taskId that is no string is an invalid one, under the same MUST; a missing one
        // makes the request malformed
        Some(match has_id {
            true => "tasks.errors.unknown-task-id",
            false => "tasks.errors.malformed-task-param",
        })
    }

    fn load_capabilities(&self) -> Value {
        json!({})
    }

    fn load_task<'a>(&self, run: &'a dyn LoadRun, i: usize) -> BoxFuture<'a, Result<(), String>> {
        load::task(run, i).boxed()
    }

    fn faults(&self) -> Vec<FaultEntry> {
        reference::faults::FAULTS
            .iter()
            .map(|f| f.entry())
            .collect()
    }

    fn reference(&self) -> &'static dyn ReferenceReceiver {
        &reference::Serving
    }
}

/// The report's note for a receiver that declares no `tasks` capability.
const NO_TASKS: &str = "The receiver declares no `tasks` capability: it does not implement the 2025-11-25 Tasks utility, so every rule that needs it is not applicable. Still checked: a task-augmented request is processed normally, its `task` ignored (tasks.support.undeclared-processed-normally).";
