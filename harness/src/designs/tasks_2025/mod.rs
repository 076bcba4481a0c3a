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
use crate::design::{Design, LoadRun, ReferenceReceiver, Requests, Wire};
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
    list: Some("tasks/list"),
    update: None,
    status_notification: "notifications/tasks/status",
    poll_interval: "pollInterval",
    input: None,
    related_task: Some(crate::wire::RELATED_TASK),
};

impl Design for Tasks2025 {
    fn name(&self) -> &'static str {
        "2025-11-25"
    }

    fn summary(&self) -> &'static str {
        "The Tasks utility of protocol revision 2025-11-25: initialize, `task` param,\ntasks/get, tasks/result, tasks/list, tasks/cancel."
    }

    fn title(&self) -> &'static str {
        "2025-11-25 Tasks"
    }

    fn wire(&self) -> &'static Wire {
        &WIRE
    }

    fn spec_base(&self) -> &'static str {
        "https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks"
    }

    fn scenario_folders(&self) -> &'static [&'static str] {
        &["2025-11-25/server", "2025-11-25/client"]
    }

    fn requestor_folder(&self) -> Option<&'static str> {
        Some("2025-11-25/requestor")
    }

    fn requestor_rules(&self) -> Vec<&'static str> {
        monitor::CONDUCT_RULES
            .into_iter()
            .chain(requestor::REQUESTOR_RULES)
            .collect()
    }

    fn judge_requestor(&self, entries: &[Entry]) -> Vec<crate::verdict::Check> {
        requestor::judge(entries)
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

    fn task_tools_capability(&self) -> &'static str {
        "tasks.requests.tools.call"
    }

    fn default_client_capabilities(&self) -> Value {
        json!({"elicitation": {}})
    }

    fn negotiates_task_support(&self, capabilities: &Value) -> bool {
        has_capability(capabilities, self.task_tools_capability())
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

    fn monitor_rules(&self) -> &'static [&'static str] {
        &monitor::MONITOR_RULES
    }

    fn conduct_rules(&self) -> &'static [&'static str] {
        &monitor::CONDUCT_RULES
    }

    fn no_tasks_note(&self, capabilities: &Value) -> Option<&'static str> {
        capabilities.get("tasks").is_none().then_some(NO_TASKS)
    }

    fn has_client_receivers(&self) -> bool {
        true
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

    fn fuzz_wire_rules(&self) -> &'static [&'static str] {
        &[
            "tasks.errors.unknown-task-id",
            "tasks.errors.bad-cursor",
            "tasks.errors.malformed-task-param",
        ]
    }

    fn created_task_ids(&self) -> Option<(&'static str, &'static str)> {
        Some(("/result/task/taskId", "tasks.id.unique"))
    }

    fn limits_rule(&self) -> Option<&'static str> {
        Some("tasks.resources.limits")
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

    fn load_rules(&self) -> &'static [&'static str] {
        &load::RULES
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
