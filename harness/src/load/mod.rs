//! Load mode (`taskcheck load`): many task-augmented calls in flight on one session. Every task
//! is created, polled to its end and its result fetched; ids must be unique, results must be
//! the task's own, and the model judges every observation. Memory stays flat: the trace only
//! counts, each task is judged by its own model, ids are kept as 64-bit hashes, and latencies
//! go into a fixed log-scale histogram.
//!
//! A creation answered with an error is a rejection, not a failure: receivers should limit
//! concurrent tasks per requestor. Rejections, and the ttl granted to a request for ten years,
//! are reported as information on `tasks.resources.limits` where the design lets a requestor
//! ask for a ttl. What one task is, and the rules it is judged by, is the design's.

use crate::design::LoadRun;
use crate::designs::Profile;
use crate::report::{Origin, RunReport};
use crate::runner::ScenarioRun;
use crate::session::{Reply, Session};
use crate::trace::Trace;
use crate::transport::{Connect, Peer};
use crate::verdict::{Check, Verdict};
use crate::wire::Outcome;
use futures::future::BoxFuture;
use futures::{FutureExt, StreamExt};
use serde_json::{json, Value};
use std::collections::HashSet;
use std::hash::{Hash, Hasher};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// What a load run does.
#[derive(Debug, Clone)]
pub struct LoadOptions {
    pub tasks: usize,
    pub concurrency: usize,
    /// No new task starts after this long.
    pub duration: Option<Duration>,
    /// Per request.
    pub timeout: Duration,
    /// Seeds the tools' random `ms` (0..=20).
    pub seed: u64,
    /// The design of Tasks the receiver is tested under.
    pub profile: Profile,
}

/// Latencies in a fixed log-scale histogram (16 buckets per doubling, ~4 % resolution).
#[derive(Debug, Clone)]
pub struct Histogram {
    buckets: Vec<u64>,
    count: u64,
}

const PER_DOUBLING: f64 = 16.0;
const BUCKETS: usize = 16 * 40;

impl Default for Histogram {
    fn default() -> Self {
        Histogram {
            buckets: vec![0; BUCKETS],
            count: 0,
        }
    }
}

impl Histogram {
    /// Records one latency.
    pub fn record(&mut self, d: Duration) {
        let us = (d.as_micros() as f64).max(1.0);
        let i = ((us.log2() * PER_DOUBLING) as usize).min(BUCKETS - 1);
        self.buckets[i] += 1;
        self.count += 1;
    }

    /// The latency below which `p` (0..=1) of the recorded ones fall (a bucket's upper bound).
    pub fn percentile(&self, p: f64) -> Duration {
        if self.count == 0 {
            return Duration::ZERO;
        }
        let wanted = ((self.count as f64) * p).ceil().max(1.0) as u64;
        let mut seen = 0;
        for (i, n) in self.buckets.iter().enumerate() {
            seen += n;
            if seen >= wanted {
                let us = 2f64.powf((i + 1) as f64 / PER_DOUBLING);
                return Duration::from_micros(us as u64);
            }
        }
        Duration::MAX
    }

    /// How many latencies were recorded.
    pub fn count(&self) -> u64 {
        self.count
    }
}

/// One kind of failure under load.
#[derive(Debug, Clone)]
pub struct Failure {
    pub kind: String,
    pub example: String,
    pub count: usize,
}

/// What a load run found and measured.
#[derive(Debug, Default)]
pub struct LoadReport {
    pub started: usize,
    pub completed: usize,
    /// Each kind of problem (the rule, or what went wrong) with its first example and count.
    pub failures: Vec<Failure>,
    pub create: Histogram,
    pub get: Histogram,
    pub to_result: Histogram,
    pub duration: Duration,
    /// Set when the connection failed.
    pub error: Option<String>,
    /// Creations answered with an error (a concurrency limit, perhaps), and the first answer.
    pub rejected: usize,
    pub rejected_example: Option<String>,
    /// What a creation asking for a ten-year ttl got, and the design's rule it informs.
    pub long_ttl: Option<(&'static str, String)>,
}

/// The ttl of the one task that asks for far more than any receiver should keep: ten years.
pub const LONG_TTL_MS: u64 = 10 * 365 * 24 * 3600 * 1000;

impl LoadReport {
    fn fail(&mut self, what: String) {
        let kind = what.split(": ").next().unwrap_or_default().to_string();
        match self.failures.iter_mut().find(|f| f.kind == kind) {
            Some(f) => f.count += 1,
            None => self.failures.push(Failure {
                kind,
                example: what,
                count: 1,
            }),
        }
    }

    /// Completed tasks per second.
    pub fn throughput(&self) -> f64 {
        self.completed as f64 / self.duration.as_secs_f64().max(1e-9)
    }

    /// The summary table, its polls named by the design's request that reads a task.
    pub fn table(&self, get: &str) -> String {
        let ms = |d: Duration| format!("{:.2}", d.as_secs_f64() * 1000.0);
        let mut out = format!(
            "tasks: {} started, {} completed in {:.2} s ({:.0} tasks/s)\n\n{:<16} {:>8} {:>9} {:>9} {:>9}\n",
            self.started,
            self.completed,
            self.duration.as_secs_f64(),
            self.throughput(),
            "latency (ms)",
            "count",
            "p50",
            "p95",
            "p99"
        );
        for (name, h) in [
            ("create", &self.create),
            (get, &self.get),
            ("time to result", &self.to_result),
        ] {
            out.push_str(&format!(
                "{name:<16} {:>8} {:>9} {:>9} {:>9}\n",
                h.count(),
                ms(h.percentile(0.50)),
                ms(h.percentile(0.95)),
                ms(h.percentile(0.99))
            ));
        }
        let ttl = match &self.long_ttl {
            Some((rule, granted)) => {
                format!("INFO {rule}: a ttl of {LONG_TTL_MS} ms (ten years) {granted}; ")
            }
            None => "INFO ".into(),
        };
        out.push_str(&format!(
            "\n{ttl}{} of {} creations rejected{}\n",
            self.rejected,
            self.started,
            self.rejected_example
                .as_ref()
                .map(|e| format!(" (first: {e})"))
                .unwrap_or_default()
        ));
        if self.failures.is_empty() && self.error.is_none() {
            // the extension says no MUST about id uniqueness: load does not judge it there
            let ids = match self.long_ttl {
                Some(_) => "ids unique, ",
                None => "",
            };
            out.push_str(&format!(
                "\nno failure: {ids}every result its task's own, every observation valid\n"
            ));
        }
        for f in &self.failures {
            out.push_str(&format!("\nFAIL ({}x) {}", f.count, f.example));
        }
        if let Some(e) = &self.error {
            out.push_str(&format!("\nERROR {e}"));
        }
        out.push('\n');
        out
    }

    /// The load as a run report, for the report files and `--fail-on` of `run`: a `load`
    /// scenario with a check per rule a kind of failure names (failed or warned by the rule's
    /// level), the rules every completed task was judged by as held where nothing broke them,
    /// and the ttl information. A failure that names no rule (a request unanswered, a fixture
    /// task that did not complete) judged nothing: it is the scenario's error.
    /// `origin`: the receiver loaded, from when the load began.
    pub fn run_report(&self, profile: Profile, origin: &Origin) -> RunReport {
        let mut checks = Vec::new();
        let mut unjudged = Vec::new();
        for f in &self.failures {
            let message = format!("{} ({} time(s))", f.example, f.count);
            match crate::spec::rule(&f.kind) {
                Some(_) => checks.push(Check::judged(&f.kind, false, message, Vec::new())),
                None => unjudged.push(message),
            }
        }
        let judged = profile.facts().load_rules;
        if self.completed > 0 {
            for rule in judged
                .iter()
                .filter(|r| !self.failures.iter().any(|f| f.kind == **r))
            {
                let message = format!("held for {} completed task(s)", self.completed);
                checks.push(Check::judged(rule, true, message, Vec::new()));
            }
        }
        if let Some((rule, long)) = &self.long_ttl {
            let message = format!("a ttl of {LONG_TTL_MS} ms (ten years) {long}");
            checks.push(Check::with(rule, Verdict::Info, message));
        }
        let error = self.error.clone().or_else(|| match unjudged.is_empty() {
            true => None,
            false => Some(unjudged.join("; ")),
        });
        let title = format!(
            "load: {} task(s) started, {} completed",
            self.started, self.completed
        );
        let run = ScenarioRun {
            error,
            duration: self.duration,
            ..ScenarioRun::of_checks("load".into(), title, checks)
        };
        RunReport::of_findings(profile, origin, self.duration, vec![run])
    }

    /// The JSON summary of the measurements.
    pub fn json(&self) -> Value {
        let pct = |h: &Histogram| {
            json!({"count": h.count(), "p50Ms": h.percentile(0.5).as_secs_f64() * 1e3,
                   "p95Ms": h.percentile(0.95).as_secs_f64() * 1e3, "p99Ms": h.percentile(0.99).as_secs_f64() * 1e3})
        };
        json!({
            "format": "taskcheck-load/1",
            "started": self.started,
            "completed": self.completed,
            "durationMs": self.duration.as_millis() as u64,
            "tasksPerSecond": self.throughput(),
            "latency": {"create": pct(&self.create), "tasksGet": pct(&self.get), "timeToResult": pct(&self.to_result)},
            "failures": self.failures.iter().map(|f| json!({"kind": f.kind, "example": f.example, "count": f.count})).collect::<Vec<_>>(),
            "error": self.error,
            "limits": {"rule": self.long_ttl.as_ref().map(|(rule, _)| rule), "longTtl": self.long_ttl.as_ref().map(|(_, granted)| granted), "rejected": self.rejected, "rejectedExample": self.rejected_example},
        })
    }
}

/// A small deterministic generator for the tools' `ms`.
fn sleep_ms(seed: u64, i: usize) -> u64 {
    let mut x = seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x % 21
}

fn id_hash(id: &str) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    id.hash(&mut h);
    h.finish()
}

/// Shared state of the tasks in flight.
struct Run<'a> {
    session: &'a Session,
    opts: &'a LoadOptions,
    report: Mutex<LoadReport>,
    ids: Mutex<HashSet<u64>>,
}

impl Run<'_> {
    fn note(&self, f: impl FnOnce(&mut LoadReport)) {
        f(&mut self.report.lock().unwrap_or_else(|p| p.into_inner()));
    }
}

impl LoadRun for Run<'_> {
    fn sleep_ms(&self, i: usize) -> u64 {
        sleep_ms(self.opts.seed, i)
    }

    fn ask<'a>(&'a self, method: &'a str, params: Value) -> BoxFuture<'a, Result<Reply, String>> {
        async move {
            self.session
                .request(method, params, self.opts.timeout)
                .await
                .map_err(|e| e.to_string())
        }
        .boxed()
    }

    fn create(&self, params: Value) -> BoxFuture<'_, Result<Option<(Value, Reply)>, String>> {
        async move {
            let created = self.ask("tools/call", params).await?;
            self.note(|r| r.create.record(created.elapsed));
            match created.outcome.clone() {
                Outcome::Result(r) => Ok(Some((r, created))),
                Outcome::Error(e) => {
                    self.note(|r| {
                        r.rejected += 1;
                        r.rejected_example
                            .get_or_insert_with(|| crate::matcher::short(&e));
                    });
                    Ok(None)
                }
            }
        }
        .boxed()
    }

    fn first_sight(&self, id: &str) -> bool {
        self.ids
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id_hash(id))
    }

    fn got(&self, elapsed: Duration) {
        self.note(|r| r.get.record(elapsed));
    }

    fn completed(&self, start: Instant) {
        self.note(|r| {
            r.to_result.record(start.elapsed());
            r.completed += 1;
        });
    }
}

/// Asks for a task that lives ten years; says what ttl it was granted.
async fn long_ttl(session: &Session, timeout: Duration) -> String {
    let params =
        json!({"name": "optional_sleep", "arguments": {"ms": 0}, "task": {"ttl": LONG_TTL_MS}});
    match session.request("tools/call", params, timeout).await {
        Ok(Reply {
            outcome: Outcome::Result(r),
            ..
        }) => match r.pointer("/task/ttl") {
            Some(ttl) if ttl.as_u64() == Some(LONG_TTL_MS) => "was granted as asked".into(),
            Some(ttl) => format!("was capped to {ttl} ms"),
            None => "was granted with no ttl in the answer".into(),
        },
        Ok(Reply {
            outcome: Outcome::Error(e),
            ..
        }) => format!("was refused: {}", crate::matcher::short(&e)),
        Err(e) => format!("got no answer: {e}"),
    }
}

/// Runs a load against a receiver (one session) and reports what it found.
pub async fn run_load<C: Connect>(connector: &C, opts: &LoadOptions) -> LoadReport {
    let start = Instant::now();
    let conn = match connector.connect(Peer::A).await {
        Ok(c) => c,
        Err(e) => {
            return LoadReport {
                error: Some(e.to_string()),
                ..LoadReport::default()
            }
        }
    };
    let transport = conn.transport;
    let session = Session::start_with(conn, opts.timeout, Trace::counting(transport));
    let caps = opts.profile.load_capabilities();
    let opened = opts
        .profile
        .open(&session, crate::transport::ReceiverKind::Server, caps)
        .await;
    if let Err(e) = opened {
        return LoadReport {
            error: Some(e),
            ..LoadReport::default()
        };
    }
    // a design whose requestors ask for no ttl (the extension) has no limits rule
    let long_ttl = match opts.profile.facts().limits_rule {
        Some(rule) => Some((rule, long_ttl(&session, opts.timeout).await)),
        None => None,
    };
    let run = Run {
        session: &session,
        opts,
        report: Mutex::new(LoadReport {
            long_ttl,
            ..LoadReport::default()
        }),
        ids: Mutex::default(),
    };
    let deadline = opts.duration.map(|d| start + d);
    let mut outcomes = Box::pin(
        futures::stream::iter(0..opts.tasks)
            .take_while(|_| futures::future::ready(deadline.is_none_or(|d| Instant::now() < d)))
            .map(|i| {
                let run = &run;
                async move {
                    run.note(|r| r.started += 1);
                    opts.profile.load_task(run, i).await
                }
            })
            .buffer_unordered(opts.concurrency.max(1)),
    );
    while let Some(outcome) = outcomes.next().await {
        if let Err(what) = outcome {
            run.note(|r| r.fail(what));
        }
        if let Some(why) = session.closed_reason() {
            run.note(|r| r.error = Some(format!("connection lost: {why}")));
            break;
        }
    }
    drop(outcomes);
    let mut report = run.report.into_inner().unwrap_or_else(|p| p.into_inner());
    report.duration = start.elapsed();
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_within_the_bucket_resolution() {
        let mut h = Histogram::default();
        for ms in 1..=100u64 {
            h.record(Duration::from_millis(ms));
        }
        let p50 = h.percentile(0.5).as_secs_f64() * 1000.0;
        let p99 = h.percentile(0.99).as_secs_f64() * 1000.0;
        assert!((50.0..=53.0).contains(&p50), "{p50}");
        assert!((99.0..=104.0).contains(&p99), "{p99}");
        assert_eq!(Histogram::default().percentile(0.5), Duration::ZERO);
    }

    #[test]
    fn sleeps_are_deterministic_and_small() {
        assert_eq!(sleep_ms(7, 3), sleep_ms(7, 3));
        assert!((0..1000).all(|i| sleep_ms(1, i) <= 20));
    }
}
