//! Runs a set of scenarios in parallel sessions, keeping results in scenario order.

use crate::report::RunReport;
use crate::runner::{run_scenario, Config, ScenarioRun};
use crate::scenario::Scenario;
use crate::trace::{self, Direction, Entry};
use crate::transport::Connect;
use crate::verdict::Check;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::Semaphore;

/// Runs every scenario, at most `jobs` at a time, each on a fresh connection.
/// Called with each scenario as it finishes (in completion order).
pub type OnDone = Arc<dyn Fn(&ScenarioRun) + Send + Sync>;

pub async fn run_all<C: Connect + 'static>(
    connector: Arc<C>,
    scenarios: Vec<Scenario>,
    config: Config,
    jobs: usize,
    on_done: OnDone,
) -> RunReport {
    let started = crate::timestamp::now();
    let start = Instant::now();
    let cpu_start = own_cpu();
    let gate = Arc::new(Semaphore::new(jobs.max(1)));
    let runs_profile = scenarios.first().map(|s| s.profile).unwrap_or_default();
    let config = Arc::new(config);
    // the longest first, so that none starts last and holds up the end (the permits are
    // handed out in the order asked); results keep the scenarios' order
    let mut order: Vec<usize> = (0..scenarios.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(expected_ms(&scenarios[i].steps)));
    let mut slots: Vec<Option<Scenario>> = scenarios.into_iter().map(Some).collect();
    let mut spawned: Vec<(usize, _)> = order
        .into_iter()
        .filter_map(|i| Some((i, slots[i].take()?)))
        .map(|(i, scenario)| {
            let (connector, gate, config) = (connector.clone(), gate.clone(), config.clone());
            let on_done = on_done.clone();
            let handle = tokio::spawn(async move {
                let _permit = gate
                    .acquire_owned()
                    .await
                    .expect("the semaphore is never closed");
                let run = run_scenario(connector.as_ref(), &scenario, &config).await;
                on_done(&run);
                run
            });
            (i, handle)
        })
        .collect();
    spawned.sort_by_key(|(i, _)| *i);
    let handles = spawned.into_iter().map(|(_, handle)| handle);
    let mut runs: Vec<ScenarioRun> = Vec::new();
    for h in handles {
        match h.await {
            Ok(run) => runs.push(run),
            Err(e) => runs.push(ScenarioRun {
                id: "(internal)".into(),
                title: "a scenario task panicked".into(),
                checks: Vec::new(),
                error: Some(format!("internal error: {e}")),
                server: None,
                trace: Vec::new(),
                duration: Default::default(),
            }),
        }
    }
    if let (true, Some((at, rule))) = (
        connector.shares_receiver(),
        runs_profile.facts().created_task_ids,
    ) {
        ids_unique_across(&mut runs, at, rule);
    }
    RunReport {
        folded: Default::default(),
        profile: runs_profile,
        cpu: own_cpu()
            .zip(cpu_start)
            .map(|(end, start)| end.saturating_sub(start)),
        fixed_work_ms: config.fixtures.fixed_work_ms(),
        not_exercised: Vec::new(),
        other_transport: Vec::new(),
        receiver: connector.describe(),
        transport: connector.transport().into(),
        started,
        duration: start.elapsed(),
        scenarios: runs,
    }
}

/// Fails the design's id-uniqueness rule in each scenario whose session was given a task id
/// (at the JSON pointer `at` of a result) an earlier scenario's session was given too, by the
/// one receiver they share.
fn ids_unique_across(runs: &mut [ScenarioRun], at: &str, rule: &'static str) {
    let ids: Vec<Created> = runs
        .iter()
        .map(|r| (r.id.clone(), created_ids(&r.trace, at), rule))
        .collect();
    repeated_ids(&ids, |name, check| {
        if let Some(run) = runs.iter_mut().find(|r| r.id == name) {
            run.checks.push(check);
        }
    });
}

/// A session's name, the task ids it was given with their trace numbers, and the rule that
/// holds them unique across the sessions of one receiver.
pub type Created = (String, Vec<(String, u64)>, &'static str);

/// For each session, in order: a failure of that rule where an earlier session
/// was given one of its ids too, by the one receiver they share.
pub fn repeated_ids(sessions: &[Created], mut fail: impl FnMut(&str, Check)) {
    let mut first: HashMap<&str, &str> = HashMap::new();
    for (name, created, rule) in sessions {
        let mut repeated = Vec::new();
        for (id, seq) in created {
            match first.get(id.as_str()) {
                Some(earlier) if *earlier != name => repeated.push((id, seq, *earlier)),
                Some(_) => {}
                None => {
                    first.insert(id, name);
                }
            }
        }
        if let Some((id, seq, earlier)) = repeated.first() {
            let check = Check::judged(
                rule,
                false,
                format!(
                    "task id {id:?} was already given in scenario {earlier}, by the same server{}",
                    match repeated.len() {
                        1 => String::new(),
                        n => format!(" (and {} more)", n - 1),
                    }
                ),
                vec![**seq],
            );
            fail(name, check);
        }
    }
}

/// The task ids CreateTaskResults gave in a trace, with their trace numbers.
pub fn created_ids(trace: &[Entry], at: &str) -> Vec<(String, u64)> {
    trace
        .iter()
        .filter(|e| e.dir == Direction::In)
        .filter_map(|e| {
            let id = e.message.as_ref()?.pointer(at)?;
            Some((crate::wire::id_text(id), e.seq))
        })
        .collect()
}

/// CPU time of this process so far (user and system, every thread; children excluded).
pub fn own_cpu() -> Option<std::time::Duration> {
    // SAFETY: getrusage only writes the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return None;
    }
    let tv = |t: libc::timeval| {
        std::time::Duration::from_secs(t.tv_sec as u64)
            + std::time::Duration::from_micros(t.tv_usec as u64)
    };
    Some(tv(usage.ru_utime) + tv(usage.ru_stime))
}

/// Writes every scenario's trace as JSON lines, each line tagged with its scenario.
pub fn write_trace(path: &Path, report: &RunReport) -> std::io::Result<()> {
    let all: Vec<Entry> = report
        .scenarios
        .iter()
        .flat_map(|s| {
            s.trace.iter().map(|e| Entry {
                scenario: Some(s.id.clone()),
                ..e.clone()
            })
        })
        .collect();
    trace::write_jsonl(path, &all)
}

/// The report of a run that stopped before its first scenario, since no session with the
/// receiver opens: no scenario ran, and `why` is the harness error it ends in.
pub fn unopened<C: Connect>(
    connector: &C,
    profile: crate::designs::Profile,
    why: String,
) -> RunReport {
    let mut opening = ScenarioRun::of_checks(
        "first-session".into(),
        "Open a first session with the receiver".into(),
        Vec::new(),
    );
    opening.error = Some(why);
    RunReport {
        folded: Default::default(),
        profile,
        cpu: None,
        fixed_work_ms: Default::default(),
        not_exercised: Vec::new(),
        other_transport: Vec::new(),
        receiver: connector.describe(),
        transport: connector.transport().into(),
        started: crate::timestamp::now(),
        duration: Default::default(),
        scenarios: vec![opening],
    }
}

/// What a scenario's steps ask the receiver to spend, in ms, roughly: its waits and the
/// work its calls ask for (`arguments.ms`), parallel steps as long as their longest. It only
/// orders the scenarios; nothing is judged by it.
fn expected_ms(steps: &[crate::scenario::Step]) -> u64 {
    use crate::scenario::StepKind;
    let ms = |v: &serde_json::Value| match v {
        serde_json::Value::Object(o) => o.values().find_map(serde_json::Value::as_u64),
        v => v.as_u64(),
    };
    steps
        .iter()
        .map(|step| match &step.kind {
            StepKind::Wait { ms } => *ms,
            StepKind::Send { params, .. } => params
                .pointer("/arguments/ms")
                .and_then(ms)
                .unwrap_or_default(),
            StepKind::Parallel(steps) => steps
                .iter()
                .map(|s| expected_ms(std::slice::from_ref(s)))
                .max()
                .unwrap_or_default(),
            StepKind::Sequence(steps) => expected_ms(steps),
            _ => 0,
        })
        .sum()
}
