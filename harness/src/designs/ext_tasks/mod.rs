//! The Tasks extension `io.modelcontextprotocol/tasks` on protocol revision 2026-07-28: how a
//! conversation opens (server/discover, then stateless requests that carry their protocol
//! version and client capabilities in `_meta`), its monitors and its reference receiver.
//! Its rules are in `catalogue/ext-tasks.yaml`, its scenarios in `scenarios/ext-tasks/server/`.

mod calibrate;
mod explore;
mod load;
pub mod monitor;
pub mod official_tools;
pub mod reference;
pub mod requestor;
pub mod schema_types;

use super::ExtTasks;
use crate::design::{
    Design, Facts, InputKeys, LoadRun, NotServed, ReferenceReceiver, ReferenceRequestor,
    ServeOptions, Unspoken, Wire,
};
use crate::explore::ops::{Offer, Op, Steps};
use crate::monitor::{Context, Judgement};
use crate::reference::faults::FaultEntry;
use crate::session::{RequestError, ServerInfo, Session};
use crate::trace::Entry;
use crate::transport::{Cause, ReceiverKind};
use crate::wire::Outcome;
use futures::future::BoxFuture;
use futures::FutureExt;
use reference::faults::{self, Faults};
use reference::{http, variants};
use serde_json::{json, Map, Value};

/// The capability by which a server says it serves the extension.
const CAPABILITY: &str = "extensions.io.modelcontextprotocol/tasks";

/// The extension's wire: server/discover opens and answers for liveness (ping is gone from
/// 2026-07-28), tasks/get carries the outcome, tasks/update answers input requests by key.
const WIRE: Wire = Wire {
    protocol_version: PROTOCOL_VERSION,
    opening: "server/discover",
    liveness: "server/discover",
    get: "tasks/get",
    result: None,
    cancel: Some(("tasks/cancel", CAPABILITY)),
    created_task: "",
    list: None,
    update: Some("tasks/update"),
    status_notification: "notifications/tasks",
    poll_interval: "pollIntervalMs",
    input: Some(InputKeys {
        requests: "inputRequests",
        responses: "inputResponses",
        state: "requestState",
        result_type: "input_required",
    }),
    related_task: None,
};

/// What the design is and which of taskcheck's features it joins.
const FACTS: Facts = Facts {
    name: "ext-tasks",
    summary: "The extension `io.modelcontextprotocol/tasks` on protocol revision 2026-07-28:\nstateless requests, server/discover, tasks/get, tasks/update, tasks/cancel.",
    title: "Tasks extension (io.modelcontextprotocol/tasks, 2026-07-28)",
    spec_base: "https://modelcontextprotocol.io/seps/2663-tasks-extension",
    wire: WIRE,
    scenario_folders: &["ext-tasks/server"],
    own_scenarios: &[],
    task_tools_capability: CAPABILITY,
    monitor_rules: monitor::MONITOR_RULES,
    conduct_rules: &[],
    has_client_receivers: false,
    fuzz_wire_rules: &[
            "ext-tasks.get.unknown-task",
            "ext-tasks.update.unknown-task",
            "ext-tasks.cancel.unknown-task",
        ],
    created_task_ids: None,
    limits_rule: None,
    forbids_client_responses: Some("under 2026-07-28 a client MUST NOT send JSON-RPC responses"),
    load_rules: &load::RULES,
    requestor_folder: Some("ext-tasks/requestor"),
};

impl Design for ExtTasks {
    fn facts(&self) -> &'static Facts {
        &FACTS
    }

    fn requestor_rules(&self) -> Vec<&'static str> {
        requestor::REQUESTOR_RULES.to_vec()
    }

    fn judge_requestor(
        &self,
        entries: &[Entry],
        ask: &crate::scenario::Ask,
    ) -> Vec<crate::verdict::Check> {
        requestor::judge(entries, Some(ask))
    }

    fn judge_watched_requestor(&self, entries: &[Entry]) -> Option<Vec<crate::verdict::Check>> {
        // a watched client chose its calls: only a sent-again call it was asked to make once
        // needs the ask, and is left unjudged
        Some(requestor::judge(entries, None))
    }

    fn fixture_contract(&self) -> String {
        reference::contract_table()
    }

    fn fixture_roles(&self) -> Vec<&'static str> {
        reference::TOOLS.iter().map(|(name, _)| *name).collect()
    }

    fn default_client_capabilities(&self) -> Value {
        // the fixtures' input requests are elicitations, which a client must declare
        let mut caps = declaring();
        caps["elicitation"] = json!({});
        caps
    }

    fn open<'a>(
        &self,
        session: &'a Session,
        _receiver: ReceiverKind,
        capabilities: Value,
    ) -> BoxFuture<'a, Result<ServerInfo, String>> {
        open(session, capabilities).boxed()
    }

    fn ask_speaks<'a>(
        &self,
        session: &'a Session,
    ) -> Option<BoxFuture<'a, Result<String, Unspoken>>> {
        let caps = self.default_client_capabilities();
        Some(
            async move {
                session.stamp_requests(request_meta(caps));
                let reply = match session
                    .request("server/discover", json!({}), session.timeout)
                    .await
                {
                    Ok(reply) => reply,
                    // an HTTP error status is the server turning the request away
                    Err(RequestError::Closed(c)) if c.cause == Cause::HttpStatus => {
                        return Err(Unspoken::Refused(format!("server/discover: {c}")))
                    }
                    Err(e) => return Err(Unspoken::Silent(format!("server/discover: {e}"))),
                };
                let result = match reply.outcome {
                    Outcome::Result(result) => result,
                    Outcome::Error(e) => {
                        return Err(Unspoken::Refused(format!(
                            "server/discover is not served: {e}"
                        )))
                    }
                };
                let info = discovered(&result);
                match info.protocol_version == PROTOCOL_VERSION {
                    true => Ok(format!("server/discover lists {}", info.protocol_version)),
                    false => Err(Unspoken::Refused(format!(
                        "server/discover lists no {PROTOCOL_VERSION} (only {:?})",
                        info.protocol_version
                    ))),
                }
            }
            .boxed(),
        )
    }

    fn judge(&self, entries: &[Entry], ctx: &Context) -> Judgement {
        monitor::judge(entries, ctx)
    }

    fn no_tasks_note(&self, capabilities: &Value) -> Option<&'static str> {
        (!declares(capabilities)).then_some(NO_TASKS)
    }

    fn marks_trace(&self, method: &str, params: &Value) -> bool {
        method == "server/discover"
            || params
                .get("_meta")
                .and_then(|m| m.get(META_VERSION))
                .is_some_and(|v| v == PROTOCOL_VERSION)
    }

    fn declared(&self, result: &Value) -> ServerInfo {
        discovered(result)
    }

    fn explore_steps(&self, ops: &[Op], offer: &Offer) -> Steps {
        explore::steps(ops, offer)
    }

    // `requests` stays the default: no initialize, tasks/list or client-requested ttl, and
    // the `task` parameter is ignored (its scenarios judge that)

    fn task_id_requests(&self, _offer: &Offer) -> Vec<(&'static str, Value)> {
        vec![
            ("tasks/get", json!({})),
            ("tasks/update", json!({"inputResponses": {}})),
            ("tasks/cancel", json!({})),
        ]
    }

    /// The text names -32602 per method for a task that does not exist; a taskId that is
    /// not a string is left unjudged here.
    /// "Invalid or nonexistent `taskId`: -32602", whatever the id's type.
    fn bad_task_id_rule(&self, method: &str, _has_id: bool) -> Option<&'static str> {
        Some(match method {
            "tasks/update" => "ext-tasks.update.unknown-task",
            "tasks/cancel" => "ext-tasks.cancel.unknown-task",
            _ => "ext-tasks.get.unknown-task",
        })
    }

    fn request_meta(&self) -> Option<Map<String, Value>> {
        Some(request_meta(self.default_client_capabilities()))
    }

    /// 2026-07-28 has no server-to-client requests, so nothing a client could answer.
    fn load_capabilities(&self) -> Value {
        self.default_client_capabilities()
    }

    fn observe_task<'a>(
        &self,
        session: &'a Session,
        call: Value,
        limit: std::time::Duration,
    ) -> BoxFuture<'a, Result<crate::calibration::Observed, String>> {
        calibrate::observe_task(session, call, limit).boxed()
    }

    fn load_task<'a>(&self, run: &'a dyn LoadRun, i: usize) -> BoxFuture<'a, Result<(), String>> {
        load::task(run, i).boxed()
    }

    fn faults(&self) -> Vec<FaultEntry> {
        faults::FAULTS
            .iter()
            .map(faults::FaultInfo::entry)
            .collect()
    }

    fn reference(&self) -> &'static dyn ReferenceReceiver {
        &Reference
    }
}

/// The report's note for a receiver whose server/discover declares no extension.
const NO_TASKS: &str = "The receiver's server/discover declares no `io.modelcontextprotocol/tasks` extension, so every rule that needs it is not applicable. Still checked: no request gets a CreateTaskResult it did not ask for (ext-tasks.capability.advertise and the negotiation rules).";

/// The extension's reference receiver, over stdio or Streamable HTTP.
struct Reference;

impl ReferenceReceiver for Reference {
    fn fault_list(&self) -> String {
        crate::reference::faults::list_of(faults::FAULTS.iter())
    }

    fn variant_list(&self) -> String {
        crate::reference::variants::list_of(variants::VARIANTS)
    }

    fn serve(&self, options: ServeOptions) -> BoxFuture<'static, Result<(), NotServed>> {
        async move {
            let list: Vec<_> = faults::FAULTS.iter().collect();
            let mut faults = Faults::named(&options.faults, &list, "reference --profile ext-tasks")
                .map_err(NotServed::Usage)?;
            faults.variants = crate::reference::variants::named(
                &options.variants,
                variants::VARIANTS,
                "reference --profile ext-tasks",
            )
            .map_err(NotServed::Usage)?;
            let record = crate::reference::record::open(options.record.as_deref())
                .map_err(NotServed::Failed)?;
            let served = match options.http {
                Some(addr) => http::serve_http(faults, addr, record).await,
                None => reference::serve_stdio(faults, record).await,
            };
            served.map_err(|e| NotServed::Failed(e.to_string()))
        }
        .boxed()
    }

    fn requestor(&self) -> Option<&'static dyn ReferenceRequestor> {
        Some(&Requestor)
    }
}

/// The extension's reference requestor.
struct Requestor;

impl ReferenceRequestor for Requestor {
    fn faults(&self) -> Vec<FaultEntry> {
        reference::requestor::FAULTS
            .iter()
            .map(|f| f.entry())
            .collect()
    }

    fn variant_list(&self) -> String {
        crate::reference::variants::list_of(reference::requestor::VARIANTS)
    }

    fn run(
        &self,
        command: String,
        ask: crate::scenario::Ask,
        names: Vec<String>,
        variants: Vec<String>,
    ) -> BoxFuture<'static, Result<(), NotServed>> {
        async move {
            let list: Vec<_> = reference::requestor::FAULTS.iter().collect();
            let command_name = "reference-requestor --profile ext-tasks";
            let mut faults = crate::reference::faults::Faults::named(&names, &list, command_name)
                .map_err(NotServed::Usage)?;
            let known = reference::requestor::VARIANTS;
            faults.variants = crate::reference::variants::named(&variants, known, command_name)
                .map_err(NotServed::Usage)?;
            let session = crate::design::requestor_session(command).await?;
            open(&session, ExtTasks.default_client_capabilities())
                .await
                .map_err(NotServed::Failed)?;
            let done = reference::requestor::run(&session, &ask, &faults).await;
            session.close(crate::design::SERVER_EXIT).await;
            done.map_err(NotServed::Failed)
        }
        .boxed()
    }
}

/// The protocol revision the extension builds on.
pub const PROTOCOL_VERSION: &str = "2026-07-28";
/// The extension's identifier, its key under `capabilities.extensions`.
pub const EXTENSION: &str = "io.modelcontextprotocol/tasks";
/// Every rule id of the profile starts with this.
pub const RULE_PREFIX: &str = "ext-tasks.";
/// The per-request `_meta` key of the protocol version.
pub const META_VERSION: &str = crate::transport::routing::META_VERSION;
/// The per-request `_meta` key of the client capabilities.
pub const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// The per-request `_meta` key of the client's identity.
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// The result `_meta` key of the server's identity.
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// The `_meta` key naming the subscription a stream's message belongs to.
pub const META_SUBSCRIPTION: &str = "io.modelcontextprotocol/subscriptionId";
/// Missing Required Client Capability.
pub const MISSING_CAPABILITY: i64 = -32021;

/// Client capabilities that declare the extension.
pub fn declaring() -> Value {
    json!({"extensions": {EXTENSION: {}}})
}

/// Whether a capabilities object declares the extension.
pub fn declares(capabilities: &Value) -> bool {
    capabilities
        .get("extensions")
        .and_then(|e| e.get(EXTENSION))
        .is_some_and(Value::is_object)
}

/// The client capabilities a request's `_meta` carries (null when it carries none).
pub fn request_capabilities(params: &Value) -> &Value {
    params
        .get("_meta")
        .and_then(|m| m.get(META_CAPABILITIES))
        .unwrap_or(&Value::Null)
}

/// Whether a request carries the per-request fields every request must: a protocol version
/// and a client capabilities object.
pub fn carries_request_meta(params: &Value) -> bool {
    let meta = params.get("_meta");
    meta.and_then(|m| m.get(META_VERSION))
        .is_some_and(Value::is_string)
        && request_capabilities(params).is_object()
}

/// The `_meta` every request of a conversation carries.
pub fn request_meta(capabilities: Value) -> Map<String, Value> {
    let mut meta = Map::new();
    meta.insert(META_VERSION.into(), json!(PROTOCOL_VERSION));
    meta.insert(META_CAPABILITIES.into(), capabilities);
    meta.insert(
        META_CLIENT_INFO.into(),
        json!({"name": "taskcheck", "version": env!("CARGO_PKG_VERSION")}),
    );
    meta
}

/// Opens a conversation: every request from now on carries the per-request `_meta`, and
/// server/discover tells what the server supports.
pub async fn open(session: &Session, capabilities: Value) -> Result<ServerInfo, String> {
    session.stamp_requests(request_meta(capabilities));
    let reply = session
        .request("server/discover", json!({}), session.timeout)
        .await
        .map_err(|e| format!("server/discover failed: {e}"))?;
    match reply.outcome {
        Outcome::Result(result) => Ok(discovered(&result)),
        Outcome::Error(e) => Err(format!("server/discover was rejected: {e}")),
    }
}

/// What a DiscoverResult declares.
pub fn discovered(result: &Value) -> ServerInfo {
    let mut supported = result
        .get("supportedVersions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str);
    ServerInfo {
        capabilities: result.get("capabilities").cloned().unwrap_or(json!({})),
        server_info: result
            .get("_meta")
            .and_then(|m| m.get(META_SERVER_INFO))
            .cloned()
            .unwrap_or(Value::Null),
        protocol_version: supported
            .clone()
            .find(|v| *v == PROTOCOL_VERSION)
            .or(supported.next_back())
            .unwrap_or_default()
            .to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declaring_capabilities_declare_and_discover_reads_what_matters() {
        assert!(declares(&declaring()));
        assert!(!declares(
            &json!({"tasks": {"requests": {"tools": {"call": {}}}}})
        ));
        assert!(!declares(&Value::Null));
        let info = discovered(&json!({
            "resultType": "complete",
            "supportedVersions": ["2025-11-25", PROTOCOL_VERSION],
            "capabilities": declaring(),
            "_meta": {META_SERVER_INFO: {"name": "s", "version": "1"}},
        }));
        assert_eq!(info.protocol_version, PROTOCOL_VERSION);
        assert_eq!(info.server_info["name"], "s");
        assert!(declares(&info.capabilities));
    }
}
