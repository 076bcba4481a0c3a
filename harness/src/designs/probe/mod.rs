//! A design that exists only in the crate's own unit tests: it opens like 2025-11-25 and
//! judges nothing but the shape of tasks/get results (`tasks.probe.get-shape`, in
//! `catalogue/test-only/`). It shows that a design is this folder plus its line in the
//! registry: the suite lists it, runs it against a receiver and reports it with no other file
//! knowing it.

use super::Probe;
use crate::design::{Design, NotServed, ReferenceReceiver, ServeOptions};
use crate::monitor::{Context, Judgement};
use crate::reference::faults::FaultEntry;
use crate::session::{ServerInfo, Session};
use crate::trace::{Direction, Entry};
use crate::transport::ReceiverKind;
use crate::verdict::Check;
use futures::future::BoxFuture;
use futures::FutureExt;
use serde_json::{json, Value};
use std::collections::BTreeSet;

/// The probe's one rule.
const GET_SHAPE: &str = "tasks.probe.get-shape";

/// The fault that breaks it: the 2025-11-25 reference receiver's, which leaves `ttl` out of
/// tasks/get (the probe's tests run that receiver).
const FAULTS: &[FaultEntry] = &[FaultEntry {
    fault: (),
    name: "get-omits-ttl",
    rules: &[GET_SHAPE],
    description: "tasks/get results have no `ttl`",
    may_also: &[],
    follows: &[],
}];

/// Its one scenario: a task created, then read with tasks/get.
const SCENARIO: &str = r#"
id: probe-get-shape
title: A task read with tasks/get has the shape of a Task
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
  - send: tasks/get
    params: {taskId: "${task}"}
"#;

impl Design for Probe {
    fn name(&self) -> &'static str {
        "probe-get-shapes"
    }

    fn summary(&self) -> &'static str {
        "A test-only design that judges the shape of tasks/get results."
    }

    fn title(&self) -> &'static str {
        "probe (tasks/get shapes)"
    }

    fn wire(&self) -> &'static crate::design::Wire {
        // it speaks as 2025-11-25 does, reached like any design through the registry
        crate::designs::TASKS_2025.wire()
    }

    fn spec_base(&self) -> &'static str {
        "https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks"
    }

    fn scenario_folders(&self) -> &'static [&'static str] {
        &[]
    }

    fn own_scenarios(&self) -> &'static [(&'static str, &'static str)] {
        &[("designs/probe/probe-get-shape.yaml", SCENARIO)]
    }

    fn fixture_contract(&self) -> String {
        "`optional_sleep` (taskSupport optional): sleeps `ms` and answers.\n".into()
    }

    fn fixture_roles(&self) -> Vec<&'static str> {
        vec!["optional_sleep"]
    }

    fn task_tools_capability(&self) -> &'static str {
        "tasks.requests.tools.call"
    }

    fn default_client_capabilities(&self) -> Value {
        json!({})
    }

    fn open<'a>(
        &self,
        session: &'a Session,
        receiver: ReceiverKind,
        capabilities: Value,
    ) -> BoxFuture<'a, Result<ServerInfo, String>> {
        crate::designs::TASKS_2025.open(session, receiver, capabilities)
    }

    fn judge(&self, entries: &[Entry], _ctx: &Context) -> Judgement {
        let gets: BTreeSet<String> = entries
            .iter()
            .filter(|e| e.dir == Direction::Out)
            .filter_map(|e| e.message.as_ref())
            .filter(|m| m.get("method") == Some(&json!("tasks/get")))
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
                    format!("tasks/get answered {task}"),
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
        }
    }

    fn monitor_rules(&self) -> &'static [&'static str] {
        &[GET_SHAPE]
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

/// The probe's listing of its one fault; it serves nothing itself.
struct Reference;

impl ReferenceReceiver for Reference {
    fn fault_list(&self) -> String {
        crate::reference::faults::list_of(FAULTS.iter())
    }

    fn variant_list(&self) -> String {
        String::new()
    }

    fn serve(&self, _options: ServeOptions) -> BoxFuture<'static, Result<(), NotServed>> {
        let why = "the probe design has no receiver of its own: its tests run the 2025-11-25 one \
                   (`taskcheck reference --fault get-omits-ttl`)";
        std::future::ready(Err(NotServed::Usage(why.to_string()))).boxed()
    }
}

#[cfg(test)]
mod tests {
    use crate::designs::{Profile, PROBE};
    use crate::fixtures::FixtureMap;
    use crate::report::{FailOn, Origin, RunReport};
    use crate::runner::{run_scenario, Config, Limits};
    use crate::scenario;
    use crate::transport::stdio::StdioConnector;
    use crate::verdict::Verdict;
    use std::time::Duration;

    /// The `taskcheck` binary `cargo test` builds beside this test binary: its 2025-11-25
    /// reference receiver is the receiver the probe is run against.
    fn reference(fault: &str) -> StdioConnector {
        let exe = std::env::current_exe().expect("the test binary has a path");
        let bin = exe
            .parent()
            .and_then(|deps| deps.parent())
            .map(|dir| dir.join("taskcheck"))
            .filter(|bin| bin.is_file())
            .expect("target/*/taskcheck is built (cargo test --workspace builds it)");
        StdioConnector {
            command: format!("{} reference {fault}", bin.display()),
            max_line: 1 << 20,
        }
    }

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
        let receiver = reference("");
        let clean = run_scenario(&receiver, &probe, &config()).await;
        assert_eq!(verdict_of(&clean), [Verdict::Pass], "{:?}", clean.checks);
        let broken = run_scenario(&reference("--fault get-omits-ttl"), &probe, &config()).await;
        assert_eq!(verdict_of(&broken), [Verdict::Fail], "{:?}", broken.checks);
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
