//! A design that exists only in the crate's own unit tests, with a wire of its own that
//! neither real design speaks (`probe/hello` opens, `jobs/peek` reads a task, `everyMs` is its
//! poll interval). It judges nothing but the shape of what `jobs/peek` answers
//! (`tasks.probe.get-shape`, in `catalogue/test-only/`). It shows that a design is this folder
//! plus its line in the registry, and that the engine reads the wire from the design: the
//! suite lists it, runs it (polling included) against its own receiver and reports it with no
//! other file knowing it.

mod receiver;

use super::Probe;
use crate::design::{Design, Facts, NotServed, ReferenceReceiver, ServeOptions, Wire};
use crate::monitor::{Context, Judgement};
use crate::reference::faults::FaultEntry;
use crate::session::{ServerInfo, Session};
use crate::trace::{Direction, Entry};
use crate::transport::ReceiverKind;
use crate::verdict::Check;
use crate::wire::Outcome;
use futures::future::BoxFuture;
use futures::FutureExt;
use serde_json::{json, Value};
use std::collections::BTreeSet;

/// The probe's one rule.
const GET_SHAPE: &str = "tasks.probe.get-shape";

/// The probe's wire: every name differs from both real designs'.
const WIRE: Wire = Wire {
    protocol_version: "probe-1",
    opening: "probe/hello",
    liveness: "probe/ping",
    get: "jobs/peek",
    result: None,
    cancel: None,
    created_task: "",
    list: None,
    update: None,
    status_notification: "notifications/jobs/changed",
    poll_interval: "everyMs",
    input: None,
    related_task: None,
};

/// The fault that breaks it: its receiver leaves `ttl` out of what `jobs/peek` answers.
const FAULTS: &[FaultEntry] = &[FaultEntry {
    fault: (),
    name: "get-omits-ttl",
    rules: &[GET_SHAPE],
    description: "jobs/peek results have no `ttl`",
    may_also: &[],
    follows: &[],
}];

/// Its one scenario: a task created, then polled (with the wire's `get`) until it completes.
const SCENARIO: &str = r#"
id: probe-get-shape
title: A task read with jobs/peek has the shape of a Task
profile: probe-get-shapes
rules: [tasks.probe.get-shape]
requires:
  capabilities: [tasks.requests.tools.call]
  tools: [optional_sleep]
steps:
  - send: tools/call
    params: {name: optional_sleep, arguments: {ms: {$scaled: 50}}, task: {ttl: {$scaled: 60000}}}
    expect:
      result:
        task: {taskId: {$capture: task}}
  - poll: "${task}"
    until: [completed]
"#;

/// What the design is and which of taskcheck's features it joins.
const FACTS: Facts = Facts {
    name: "probe-get-shapes",
    summary: "A test-only design that judges the shape of jobs/peek results.",
    title: "probe (jobs/peek shapes)",
    spec_base: "https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks",
    wire: WIRE,
    scenario_folders: &[],
    own_scenarios: &[("designs/probe/probe-get-shape.yaml", SCENARIO)],
    task_tools_capability: "tasks.requests.tools.call",
    monitor_rules: &[GET_SHAPE],
    conduct_rules: &[],
    has_client_receivers: false,
    fuzz_wire_rules: &[],
    created_task_ids: None,
    limits_rule: None,
    forbids_client_responses: None,
    load_rules: &[],
    requestor_folder: None,
};

impl Design for Probe {
    fn facts(&self) -> &'static Facts {
        &FACTS
    }

    fn fixture_contract(&self) -> String {
        "`optional_sleep` (taskSupport optional): sleeps `ms` and answers.\n".into()
    }

    fn fixture_roles(&self) -> Vec<&'static str> {
        vec!["optional_sleep"]
    }

    fn default_client_capabilities(&self) -> Value {
        json!({})
    }

    fn open<'a>(
        &self,
        session: &'a Session,
        _receiver: ReceiverKind,
        capabilities: Value,
    ) -> BoxFuture<'a, Result<ServerInfo, String>> {
        async move {
            let params =
                json!({"protocolVersion": WIRE.protocol_version, "capabilities": capabilities});
            let reply = session
                .request(WIRE.opening, params, session.timeout)
                .await
                .map_err(|e| format!("{} failed: {e}", WIRE.opening))?;
            match reply.outcome {
                Outcome::Result(result) => Ok(ServerInfo::from_result(&result)),
                Outcome::Error(e) => Err(format!("{} was rejected: {e}", WIRE.opening)),
            }
        }
        .boxed()
    }

    fn judge(&self, entries: &[Entry], _ctx: &Context) -> Judgement {
        let gets: BTreeSet<String> = entries
            .iter()
            .filter(|e| e.dir == Direction::Out)
            .filter_map(|e| e.message.as_ref())
            .filter(|m| m.get("method") == Some(&json!(WIRE.get)))
            .filter_map(|m| m.get("id").map(Value::to_string))
            .collect();
        let checks: Vec<Check> = entries
            .iter()
            .filter(|e| e.dir == Direction::In)
            .filter_map(|e| Some((e.seq, e.message.as_ref()?)))
            .filter(|(_, m)| m.get("id").is_some_and(|id| gets.contains(&id.to_string())))
            .filter_map(|(seq, m)| Some((seq, m.get("result")?)))
            .map(|(seq, task)| {
                let held = task.get("taskId").is_some_and(Value::is_string)
                    && task.get("status").is_some_and(Value::is_string)
                    && task.get("ttl").is_some();
                Check::judged(
                    GET_SHAPE,
                    held,
                    format!("{} answered {task}", WIRE.get),
                    vec![seq],
                )
            })
            .collect();
        Judgement {
            because: vec![None; checks.len()],
            checks,
            harness_errors: Vec::new(),
            vanished: Default::default(),
            expired: Default::default(),
            broke_on: Default::default(),
        }
    }

    fn no_tasks_note(&self, capabilities: &Value) -> Option<&'static str> {
        capabilities
            .get("tasks")
            .is_none()
            .then_some("The receiver declares no `tasks` capability.")
    }

    fn declared(&self, result: &Value) -> ServerInfo {
        ServerInfo::from_result(result)
    }

    fn faults(&self) -> Vec<FaultEntry> {
        FAULTS.to_vec()
    }

    fn reference(&self) -> &'static dyn ReferenceReceiver {
        &Reference
    }
}

/// The probe's listing of its one fault; its receiver runs in its tests, in process.
struct Reference;

impl ReferenceReceiver for Reference {
    fn fault_list(&self) -> String {
        crate::reference::faults::list_of(FAULTS.iter())
    }

    fn variant_list(&self) -> String {
        String::new()
    }

    fn serve(&self, _options: ServeOptions) -> BoxFuture<'static, Result<(), NotServed>> {
        let why = "the probe design's receiver runs in the crate's tests, in process";
        std::future::ready(Err(NotServed::Usage(why.to_string()))).boxed()
    }
}

#[cfg(test)]
mod tests {
    use super::receiver::ProbeReceiver;
    use crate::designs::{Profile, PROBE};
    use crate::fixtures::FixtureMap;
    use crate::report::{FailOn, Origin, RunReport};
    use crate::runner::{run_scenario, Config, Limits};
    use crate::scenario;
    use crate::verdict::Verdict;
    use std::time::Duration;

    fn config() -> Config {
        let limits = Limits {
            request: Duration::from_secs(10),
            scenario: Duration::from_secs(30),
            poll: Duration::from_secs(10),
            scale: 1.0,
        };
        Config::new(limits, None, FixtureMap::default())
    }

    fn verdict_of(run: &crate::runner::ScenarioRun) -> Vec<Verdict> {
        run.checks
            .iter()
            .filter(|c| c.rule == "tasks.probe.get-shape")
            .map(|c| c.verdict)
            .collect()
    }

    #[test]
    fn the_registry_line_makes_it_a_design_the_suite_lists() {
        assert_eq!(Profile::by_name("probe-get-shapes"), Some(PROBE));
        assert_eq!(Profile::of_rule("tasks.probe.get-shape"), PROBE);
        let scenarios: Vec<_> = scenario::builtin()
            .into_iter()
            .filter(|s| s.profile == PROBE)
            .collect();
        assert_eq!(scenarios.len(), 1);
        let list = crate::inspect::list(&scenarios, &[], 0, PROBE);
        assert!(list.contains("probe-get-shape"), "{list}");
        assert!(list.contains("tasks.probe.get-shape"), "{list}");
        let (coverage, complete) = crate::inspect::coverage(&scenarios, PROBE);
        assert!(complete, "{coverage}");
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn it_runs_against_a_receiver_and_reports_and_its_fault_fails_it() {
        let probe = scenario::builtin()
            .into_iter()
            .find(|s| s.profile == PROBE)
            .expect("the probe's scenario is built in");
        let receiver = ProbeReceiver { omits_ttl: false };
        let clean = run_scenario(&receiver, &probe, &config()).await;
        let polled = verdict_of(&clean);
        assert!(
            polled.len() > 1,
            "polled until completed: {:?}",
            clean.trace
        );
        assert!(
            polled.iter().all(|v| *v == Verdict::Pass),
            "{:?}",
            clean.checks
        );
        assert!(
            clean.checks.iter().all(|c| c.verdict == Verdict::Pass),
            "{:?}",
            clean.checks
        );
        let broken = run_scenario(&ProbeReceiver { omits_ttl: true }, &probe, &config()).await;
        let failed = verdict_of(&broken);
        assert!(
            !failed.is_empty() && failed.iter().all(|v| *v == Verdict::Fail),
            "{:?}",
            broken.checks
        );
        let origin = Origin::of(&receiver);
        let report = RunReport::of_findings(PROBE, &origin, Duration::ZERO, vec![broken]);
        let json = report.json(&report.outcome(FailOn::Must, None, Default::default()));
        assert_eq!(json["profile"], "probe-get-shapes", "{json}");
        assert_eq!(
            report.rules_not_met(),
            [("tasks.probe.get-shape".into(), Verdict::Fail)]
        );
    }
}
