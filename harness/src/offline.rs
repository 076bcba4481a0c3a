//! Offline checking (`taskcheck check TRACE.jsonl`): a recorded trace, in the JSON-lines form
//! `--trace` writes, judged by the same monitors and model as a live run. Rules that only a
//! scenario step judges (an expected answer) need the live run, and are listed as not
//! exercised. The requestor rules are judged where asked ([`Sides`]): the recorded requestor
//! need not be taskcheck. Each session says its profile:
//! one that opens with server/discover, or whose requests carry the per-request protocol
//! version of the extension's revision, is judged as the Tasks extension.

use crate::designs::Profile;
use crate::monitor;
use crate::report::{Folded, RunReport};
use crate::requestor::watched;
use crate::runner::{roots, ScenarioRun};
use crate::scenario::Scenario;
use crate::schema::SchemaSet;
use crate::session::ServerInfo;
use crate::suite;
use crate::trace::{Direction, Entry};
use serde_json::{json, Value};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::sync::{mpsc, Mutex};
use std::time::Duration;

/// The name of a session recorded without one (a trace of no scenario, a watched conversation).
pub const UNNAMED: &str = "trace";

/// Parses a JSON-lines trace; a line that is not a trace entry is an error naming it.
pub fn read_trace(text: &str, file: &str) -> Result<Vec<Entry>, String> {
    let mut lines = Lines::default();
    for (i, line) in text.lines().enumerate() {
        if !line.trim().is_empty() {
            lines.push(i, line);
        }
    }
    lines.entries(file).map_err(|(_, why)| why)
}

/// A recorded message's method, when it is a request, and its params.
fn request_of(e: &Entry) -> Option<(&str, &Value)> {
    let m = e.message.as_ref()?;
    m.get("id")?;
    Some((
        m.get("method")?.as_str()?,
        m.get("params").unwrap_or(&Value::Null),
    ))
}

/// The profile a recorded session speaks: the newest design whose requests it carries, else
/// the default.
fn profile_of(entries: &[Entry]) -> Profile {
    let newest = |(method, params): (&str, &Value)| {
        Profile::ALL
            .iter()
            .rposition(|p| p.marks_trace(method, params))
    };
    entries
        .iter()
        .filter(|e| e.dir == Direction::Out)
        .filter_map(request_of)
        .filter_map(newest)
        .max()
        .map(|i| Profile::ALL[i])
        .unwrap_or_default()
}

/// What the receiver declared in the first initialize (server/discover for the extension)
/// exchange of a session: in its result, or, for a client receiver, in its initialize request.
fn server_info(entries: &[Entry], profile: Profile) -> Option<ServerInfo> {
    let opener = profile.wire().opening;
    let client = entries
        .iter()
        .filter(|e| e.dir == Direction::In)
        .filter_map(request_of)
        .find(|(method, _)| *method == opener)
        .map(|(_, params)| ServerInfo::from_client_request(params));
    if client.is_some() {
        return client;
    }
    let opened = entries
        .iter()
        .filter(|e| e.dir == Direction::Out)
        .find(|e| request_of(e).is_some_and(|(method, _)| method == opener))?;
    let init_id = opened.message.as_ref()?.get("id")?;
    entries
        .iter()
        .filter(|e| e.dir == Direction::In)
        .filter_map(|e| e.message.as_ref())
        .find(|m| m.get("method").is_none() && m.get("id") == Some(init_id))
        .and_then(|m| m.get("result"))
        .map(|r| profile.declared(r))
}

/// Which side of a recorded conversation is judged: the receiver (every message it sent), the
/// requestor (what the client did, where neither side need be taskcheck), or both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Sides {
    #[default]
    Receiver,
    Requestor,
    Both,
}

/// What judging a session needs besides its entries.
#[derive(Clone, Copy)]
struct Judge<'a> {
    official: Option<&'a SchemaSet>,
    library: &'a [Scenario],
    sides: Sides,
    /// The design every session speaks, where the user said (else each session's own).
    profile: Option<Profile>,
    /// Whether a judged session keeps its whole trace (the HTML report draws it), or only
    /// the messages its checks name.
    keep_traces: bool,
}

/// One session to judge: its place in the report, its name and its entries.
type Job = (usize, String, Vec<Entry>);

/// A judged session.
struct Judged {
    /// Its place in the report.
    slot: usize,
    profile: Profile,
    /// The transport it was recorded on.
    transport: String,
    run: ScenarioRun,
    /// Over HTTP, where every session of a trace is one server's: the task ids its
    /// CreateTaskResults gave (with their trace numbers), and the rule that holds them unique
    /// across the sessions.
    created: Option<(Vec<(String, u64)>, &'static str)>,
}

impl Judge<'_> {
    fn session(&self, (slot, name, trace): Job) -> Judged {
        let profile = self.profile.unwrap_or_else(|| profile_of(&trace));
        let transport = trace.first().map(|e| e.transport.clone());
        let mut run = judge_session(&name, trace, profile, self.official, self.library);
        let created = match (profile.facts().created_task_ids, transport.as_deref()) {
            (Some((at, rule)), Some("http")) => Some((suite::created_ids(&run.trace, at), rule)),
            _ => None,
        };
        if self.sides != Sides::Receiver {
            // the client is judged on what the server did too, so the server is judged first
            let client = watched::checks(profile, &run.trace, &run.checks);
            if self.sides == Sides::Requestor {
                let requestor = profile.requestor_rules();
                run.checks.retain(|c| requestor.contains(&c.rule.as_str()));
            }
            run.checks.extend(client);
        }
        if !self.keep_traces {
            let named: HashSet<u64> = run
                .checks
                .iter()
                .flat_map(|c| c.evidence.iter().copied())
                .collect();
            run.trace.retain(|e| named.contains(&e.seq));
            run.trace.shrink_to_fit();
        }
        Judged {
            slot,
            profile,
            transport: transport.unwrap_or_else(|| "stdio".into()),
            run,
            created,
        }
    }
}

/// The sessions of a trace being read, each with its place in the order of first lines: `T`
/// is what a session holds until it is judged.
struct Sessions<T> {
    /// Each session's place in the report, by name.
    index: HashMap<String, usize>,
    /// What sessions not yet handed out hold.
    open: HashMap<String, T>,
}

impl<T: Default> Sessions<T> {
    fn new() -> Self {
        Sessions {
            index: HashMap::new(),
            open: HashMap::new(),
        }
    }

    /// What the session `name` holds, to add to (the session starts empty).
    fn of(&mut self, name: &str) -> &mut T {
        if !self.open.contains_key(name) {
            if !self.index.contains_key(name) {
                self.index.insert(name.to_string(), self.index.len());
            }
            self.open.insert(name.to_string(), T::default());
        }
        self.open.get_mut(name).expect("inserted above")
    }

    /// The session `name` with what it holds now: its place, name and contents.
    fn take(&mut self, name: &str) -> Option<(usize, String, T)> {
        let held = self.open.remove(name)?;
        Some((self.index[name], name.to_string(), held))
    }

    /// Every session not yet handed out, in report order.
    fn rest(mut self) -> Vec<(usize, String, T)> {
        let mut jobs: Vec<_> = std::mem::take(&mut self.open)
            .into_iter()
            .map(|(name, held)| (self.index[&name], name, held))
            .collect();
        jobs.sort_by_key(|(slot, _, _)| *slot);
        jobs
    }
}

/// A session's lines as read, with the number of each (for errors), to parse and judge.
#[derive(Default)]
struct Lines {
    text: String,
    numbers: Vec<usize>,
}

impl Lines {
    /// Adds line `i` (0-based).
    fn push(&mut self, i: usize, line: &str) {
        self.text.push_str(line);
        self.text.push('\n');
        self.numbers.push(i);
    }

    /// The entries the lines hold, or the error of the first that is no trace entry.
    fn entries(&self, file: &str) -> Result<Vec<Entry>, (usize, String)> {
        self.text
            .lines()
            .zip(&self.numbers)
            .map(|(line, &i)| {
                serde_json::from_str(line).map_err(|_| (i, entry_error(line, file, i)))
            })
            .collect()
    }
}

/// Decides which judged sessions a report lists: the first `list` (in the order they come)
/// and, after those, the first `EXAMPLES` sessions that do not meet a rule; the others are
/// folded into counts, so the report of a trace of any size stays small.
struct Folder {
    list: usize,
    listed: Vec<Judged>,
    /// How many listed sessions show each rule not met.
    shown: HashMap<String, usize>,
    folded: Folded,
    /// The profile and transport of the session whose first line came first.
    first: Option<(usize, Profile, String)>,
    /// Each session's created task ids over HTTP: its place, name, the ids and their rule.
    created: Vec<(usize, suite::Created)>,
    /// The longest session's span, listed or folded: what the recording covers.
    longest: Duration,
}

/// How many sessions that do not meet a rule are listed as its examples once folding began.
const EXAMPLES: usize = 3;

impl Folder {
    fn new(list: usize) -> Self {
        Folder {
            list,
            listed: Vec::new(),
            shown: HashMap::new(),
            folded: Folded::default(),
            first: None,
            created: Vec::new(),
            longest: Duration::ZERO,
        }
    }

    fn add(&mut self, mut judged: Judged) {
        self.longest = self.longest.max(judged.run.duration);
        if let Some((ids, rule)) = judged.created.take() {
            self.created
                .push((judged.slot, (judged.run.id.clone(), ids, rule)));
        }
        if self
            .first
            .as_ref()
            .is_none_or(|(slot, _, _)| judged.slot < *slot)
        {
            self.first = Some((judged.slot, judged.profile, judged.transport.clone()));
        }
        let mut unmet: Vec<&str> = judged
            .run
            .checks
            .iter()
            .filter(|c| c.verdict.not_met())
            .map(|c| c.rule.as_str())
            .collect();
        unmet.sort_unstable();
        unmet.dedup();
        let example = unmet
            .iter()
            .any(|rule| self.shown.get(*rule).copied().unwrap_or(0) < EXAMPLES);
        if self.listed.len() < self.list || example {
            for rule in unmet {
                *self.shown.entry(rule.to_string()).or_default() += 1;
            }
            self.listed.push(judged);
        } else {
            self.folded.add(&judged.run);
        }
    }

    /// The report: listed sessions in the order their first lines came, then the folded.
    fn report(mut self, origin: &str) -> RunReport {
        self.listed.sort_by_key(|j| j.slot);
        // one server gave every session's tasks: an id given twice is judged as `run` does
        self.created.sort_by_key(|(slot, _)| *slot);
        let ids: Vec<suite::Created> = self.created.drain(..).map(|(_, c)| c).collect();
        let listed = &mut self.listed;
        suite::repeated_ids(&ids, |name, check| {
            if let Some(j) = listed.iter_mut().find(|j| j.run.id == name) {
                j.run.checks.push(check);
            }
        });
        let (profile, transport) = self
            .first
            .map(|(_, profile, transport)| (profile, transport))
            .unwrap_or_else(|| (Profile::default(), "stdio".into()));
        RunReport {
            profile,
            receiver: origin.to_string(),
            transport,
            scenarios: self.listed.into_iter().map(|j| j.run).collect(),
            folded: self.folded,
            // a recording says when each message came in its session, not when it was made
            started: String::new(),
            duration: self.longest,
            cpu: None,
            fixed_work_ms: Default::default(),
            not_exercised: Vec::new(),
            other_transport: Vec::new(),
        }
    }
}

/// The rules of the sides judged that no check of the report names, in the catalogue's order:
/// those the recording's transport leaves unexercised, and those that speak of another
/// transport (not applicable to it).
fn unnamed(report: &RunReport, sides: Sides) -> (Vec<String>, Vec<String>) {
    let requestor = report.profile.requestor_rules();
    let named: HashSet<String> = report.rule_verdicts().into_keys().collect();
    report
        .profile
        .rules()
        .filter(|r| match sides {
            Sides::Receiver => !requestor.contains(&r.id.as_str()),
            Sides::Requestor => requestor.contains(&r.id.as_str()),
            Sides::Both => true,
        })
        .filter(|r| !named.contains(&r.id))
        .map(|r| (r.id.clone(), r.transport.as_ref()))
        .fold(
            (Vec::new(), Vec::new()),
            |(mut here, mut other), (id, t)| {
                match t.is_some_and(|t| *t != report.transport) {
                    true => other.push(id),
                    false => here.push(id),
                }
                (here, other)
            },
        )
}

/// Judges every session of a trace (entries grouped by their `scenario`, in first-seen order).
pub fn judge(
    entries: Vec<Entry>,
    official: Option<&SchemaSet>,
    library: &[Scenario],
    origin: &str,
    sides: Sides,
    profile: Option<Profile>,
) -> RunReport {
    let judge = Judge {
        official,
        library,
        sides,
        profile,
        keep_traces: true,
    };
    let mut sessions = Sessions::<Vec<Entry>>::new();
    for e in entries {
        let name = e.scenario.clone().unwrap_or_else(|| UNNAMED.into());
        sessions.of(&name).push(e);
    }
    let mut folder = Folder::new(usize::MAX);
    for job in sessions.rest() {
        folder.add(judge.session(job));
    }
    let mut report = folder.report(origin);
    (report.not_exercised, report.other_transport) = unnamed(&report, sides);
    report
}

/// Hands each line of a file to `each` as bytes, without its line ending, with its index
/// (0-based), in one buffer reused from line to line; an I/O error names the file.
fn each_raw_line(
    path: &Path,
    file: &str,
    mut each: impl FnMut(usize, &[u8]) -> Result<(), String>,
) -> Result<(), String> {
    let f = File::open(path).map_err(|e| format!("{file}: cannot read: {e}"))?;
    let mut reader = BufReader::with_capacity(1 << 20, f);
    let mut line = Vec::new();
    for i in 0.. {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => return Err(format!("{file}:{}: cannot read: {e}", i + 1)),
        }
        let bytes = line.strip_suffix(b"\n").unwrap_or(&line);
        each(i, bytes.strip_suffix(b"\r").unwrap_or(bytes))?;
    }
    Ok(())
}

/// A line's text, unless it is blank; a line that is not UTF-8 is an error naming it.
fn nonblank<'l>(bytes: &'l [u8], file: &str, i: usize) -> Result<Option<&'l str>, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| {
        format!(
            "{file}:{}: cannot read: stream did not contain valid UTF-8",
            i + 1
        )
    })?;
    Ok(Some(text).filter(|t| !t.trim().is_empty()))
}

/// Hands each nonblank line of a file to `each` with its index (0-based).
fn each_line(
    path: &Path,
    file: &str,
    mut each: impl FnMut(usize, &str) -> Result<(), String>,
) -> Result<(), String> {
    each_raw_line(path, file, |i, bytes| match nonblank(bytes, file, i)? {
        Some(text) => each(i, text),
        None => Ok(()),
    })
}

/// A session ready to judge: its place in the report, its name and its lines.
type LinesJob = (usize, String, Lines);

/// A judged session, or the first bad line it holds (its index and the error).
type Outcome = Result<Judged, (usize, String)>;

/// Sessions handed to the judging threads together, so that a trace of many short sessions
/// costs a few thread wake-ups per batch rather than per session (one per session spent a
/// fifth of `check`'s time switching threads).
#[derive(Default)]
struct Batch {
    jobs: Vec<LinesJob>,
    bytes: usize,
}

/// The text a batch holds before it is handed over.
const BATCH_BYTES: usize = 256 * 1024;

impl Batch {
    /// Adds a session; returns the batch to hand over once it holds enough.
    fn add(&mut self, job: LinesJob) -> Option<Vec<LinesJob>> {
        self.bytes += job.2.text.len();
        self.jobs.push(job);
        (self.bytes >= BATCH_BYTES).then(|| {
            self.bytes = 0;
            std::mem::take(&mut self.jobs)
        })
    }
}

/// Judges the trace file at `path` as it streams: a session is judged once its last line is
/// read, by one of as many threads as there are CPUs while the next lines are read. The first
/// `list` sessions to end are listed, and after them only a few examples of each rule not met;
/// the rest are counted (`Folded`). A judged session keeps only the messages its checks name
/// unless `keep_traces`. So a trace of any size is judged in the memory of a few sessions and a
/// bounded report. `only`, when given, names the sessions judged; the others are skipped. A
/// bad line is an error naming it.
pub fn check_file(
    path: &Path,
    official: Option<&SchemaSet>,
    library: &[Scenario],
    keep_traces: bool,
    list: usize,
    only: Option<&HashSet<String>>,
    sides: Sides,
) -> Result<RunReport, String> {
    let file = path.display().to_string();
    let last = last_lines(path, &file)?;
    let judge = Judge {
        official,
        library,
        sides,
        profile: None,
        keep_traces,
    };
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    // a few batches wait at most, so memory stays flat however long the trace
    let (jobs, queue) = mpsc::sync_channel::<(usize, Vec<LinesJob>)>(workers * 2);
    let queue = Mutex::new(queue);
    let (done, judged) = mpsc::channel::<(usize, Vec<Outcome>)>();
    // a ticket per batch sent and not yet folded in order: the reader waits when
    // `workers * 8` are out, so batches judged ahead of a long session cannot pile up
    let (tickets, returned) = mpsc::sync_channel::<()>(workers * 8);
    std::thread::scope(|scope| {
        // each thread parses the sessions it judges, so what it allocates it also frees
        for _ in 0..workers {
            let (queue, done, file) = (&queue, done.clone(), &file);
            scope.spawn(move || loop {
                let job = queue.lock().unwrap_or_else(|p| p.into_inner()).recv();
                let Ok((order, batch)) = job else {
                    return;
                };
                let outcomes = batch
                    .into_iter()
                    .map(|(slot, name, lines)| {
                        lines
                            .entries(file)
                            .map(|entries| judge.session((slot, name, entries)))
                    })
                    .collect();
                if done.send((order, outcomes)).is_err() {
                    return;
                }
            });
        }
        drop(done);
        // batches are folded in the order they were sent, whichever thread judged them first
        let collector = scope.spawn(move || {
            let mut folder = Folder::new(list);
            let mut early = std::collections::BTreeMap::new();
            let mut next = 0;
            let mut bad: Option<(usize, String)> = None;
            for (order, outcomes) in judged.iter() {
                early.insert(order, outcomes);
                while let Some(outcomes) = early.remove(&next) {
                    next += 1;
                    let _ = returned.recv();
                    for outcome in outcomes {
                        match outcome {
                            Ok(judged) => folder.add(judged),
                            // the first bad line of the file, whichever session holds it
                            Err(why) => bad = bad.into_iter().chain([why]).min(),
                        }
                    }
                }
            }
            (folder, bad)
        });
        let stopped = || "a judging thread stopped".to_string();
        let mut sent = 0;
        let mut send = move |batch: Vec<LinesJob>| {
            tickets.send(()).map_err(|_| stopped())?;
            jobs.send((sent, batch)).map_err(|_| stopped())?;
            sent += 1;
            Ok::<_, String>(())
        };
        let mut batch = Batch::default();
        let mut sessions = Sessions::<Lines>::new();
        each_line(path, &file, |i, line| {
            let name = session_of(line).ok_or_else(|| entry_error(line, &file, i))?;
            if only.is_some_and(|o| !o.contains(&*name)) {
                return Ok(());
            }
            sessions.of(&name).push(i, line);
            if last.get(&*name) == Some(&i) {
                let job = sessions.take(&name).expect("the session was just added to");
                if let Some(full) = batch.add(job) {
                    send(full)?;
                }
            }
            Ok(())
        })?;
        for job in sessions.rest() {
            if let Some(full) = batch.add(job) {
                send(full)?;
            }
        }
        if !batch.jobs.is_empty() {
            send(batch.jobs)?;
        }
        drop(send);
        let (folder, bad) = collector.join().map_err(|_| stopped())?;
        match bad {
            Some((_, why)) => Err(why),
            None => {
                let mut report = folder.report(&file);
                (report.not_exercised, report.other_transport) = unnamed(&report, sides);
                Ok(report)
            }
        }
    })
}

/// The first pass: the index of each session's last line. A line that opens with its
/// `scenario` (as `--trace` writes it) is read as bytes up to the name's end, nothing more; any
/// other is read whole, as the second pass reads it (the first pass was a tenth of `check`'s
/// time, on one thread while the others waited).
fn last_lines(path: &Path, file: &str) -> Result<HashMap<String, usize>, String> {
    const OPENING: &[u8] = br#"{"scenario":""#;
    let mut last: HashMap<String, usize> = HashMap::new();
    each_raw_line(path, file, |i, line| {
        // a name without escapes or control characters is the bytes before its closing quote
        let plain = line.strip_prefix(OPENING).and_then(|rest| {
            let end = rest
                .iter()
                .position(|&b| b == b'"' || b == b'\\' || b < 0x20)?;
            (rest[end] == b'"')
                .then(|| std::str::from_utf8(&rest[..end]).ok())
                .flatten()
        });
        let name = match plain {
            Some(name) => Cow::Borrowed(name),
            None => match nonblank(line, file, i)? {
                Some(text) => session_of(text).ok_or_else(|| entry_error(text, file, i))?,
                None => return Ok(()),
            },
        };
        match last.get_mut(&*name) {
            Some(at) => *at = i,
            None => drop(last.insert(name.into_owned(), i)),
        }
        Ok(())
    })?;
    Ok(last)
}

/// The session a trace line belongs to (None: the line is no JSON object). The line is read
/// only as far as its `scenario`, which `--trace` writes first; the second pass reads it all.
fn session_of(line: &str) -> Option<Cow<'_, str>> {
    /// What the first pass reads of a line whose `scenario` is not its first field.
    #[derive(serde::Deserialize)]
    struct Named {
        #[serde(default)]
        scenario: Option<String>,
    }
    let name = match line.strip_prefix(r#"{"scenario":"#) {
        // a name without escapes is borrowed from the line
        Some(rest) => match serde_json::Deserializer::from_str(rest)
            .into_iter::<&str>()
            .next()?
        {
            Ok(name) => Cow::Borrowed(name),
            Err(_) => Cow::Owned(
                serde_json::Deserializer::from_str(rest)
                    .into_iter::<String>()
                    .next()?
                    .ok()?,
            ),
        },
        None => Cow::Owned(
            serde_json::from_str::<Named>(line)
                .ok()?
                .scenario
                .unwrap_or_else(|| UNNAMED.into()),
        ),
    };
    Some(name)
}

/// The error of a line that is no trace entry, naming file, line and column.
fn entry_error(line: &str, file: &str, i: usize) -> String {
    match serde_json::from_str::<Entry>(line) {
        Ok(_) => format!("{file}:{}: not a trace entry", i + 1),
        Err(e) => format!("{file}:{}:{}: not a trace entry: {e}", i + 1, e.column()),
    }
}

/// Judges one recorded session with the monitors and the model.
fn judge_session(
    id: &str,
    trace: Vec<Entry>,
    profile: Profile,
    official: Option<&SchemaSet>,
    library: &[Scenario],
) -> ScenarioRun {
    let server = server_info(&trace, profile);
    let capabilities = server
        .as_ref()
        .map(|s| s.capabilities.clone())
        .unwrap_or(json!({}));
    let known = library.iter().find(|s| s.id == id);
    let breaks = known.map(|s| s.breaks.clone()).unwrap_or_default();
    let judgement = profile.judge(
        &trace,
        &monitor::Context {
            capabilities: &capabilities,
            official,
            breaks: &breaks,
            authorization: false,
        },
    );
    // what the monitors' own relations explain is shown as consequences, as live
    let checks = roots::attribute(
        id,
        &Default::default(),
        &Default::default(),
        judgement.checks,
        &roots::Facts {
            because: &judgement.because,
            vanished: &judgement.vanished,
            expired: &judgement.expired,
            sent_by: &Default::default(),
            steps: 0,
            trace: &trace,
        },
    );
    ScenarioRun {
        title: known
            .map(|s| format!("{} (recorded)", s.title))
            .unwrap_or_else(|| "a recorded session".into()),
        id: id.to_string(),
        checks,
        error: None,
        server,
        duration: Duration::from_millis(trace.last().map(|e| e.t_ms).unwrap_or(0)),
        trace,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_lines_are_named() {
        let good = r#"{"seq":0,"dir":"out","transport":"stdio","t_ms":0,"message":{"jsonrpc":"2.0","id":0,"method":"ping"}}"#;
        assert_eq!(
            read_trace(&format!("{good}\n\n{good}\n"), "t.jsonl")
                .unwrap()
                .len(),
            2
        );
        let e = read_trace(&format!("{good}\n{{\"seq\": \"x\"}}\n"), "t.jsonl").unwrap_err();
        assert!(e.starts_with("t.jsonl:2:"), "{e}");
    }

    /// Two sessions of one task each, their lines interleaved; the second never declared
    /// tasks, so it fails tasks.capability.declare.
    fn interleaved() -> String {
        let session = |name: &str, task: &str, capabilities: Value| {
            [
                json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}),
                json!({"jsonrpc": "2.0", "id": 0, "result": {"capabilities": capabilities}}),
                json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x", "task": {}}}),
                json!({"jsonrpc": "2.0", "id": 1, "result": {"task": {"taskId": task, "status": "working", "createdAt": "2025-11-25T10:00:00Z", "lastUpdatedAt": "2025-11-25T10:00:00Z", "ttl": 1}}}),
            ]
            .into_iter()
            .enumerate()
            .map(|(seq, message)| {
                let dir = if seq % 2 == 0 { "out" } else { "in" };
                json!({"scenario": name, "seq": seq, "dir": dir, "transport": "http", "t_ms": seq, "message": message}).to_string()
            })
            .collect::<Vec<_>>()
        };
        let declared = json!({"tasks": {"requests": {"tools": {"call": {}}}}});
        let (a, b) = (session("a", "t1", declared), session("b", "t2", json!({})));
        a.iter()
            .zip(&b)
            .flat_map(|(x, y)| [x.as_str(), y.as_str()])
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn a_streamed_file_is_judged_as_the_whole_trace_and_keeps_only_named_messages() {
        let text = interleaved();
        let path =
            std::env::temp_dir().join(format!("taskcheck-offline-{}.jsonl", std::process::id()));
        std::fs::write(&path, &text).unwrap();
        let whole = judge(
            read_trace(&text, "t").unwrap(),
            None,
            &[],
            "t",
            Sides::Receiver,
            None,
        );
        let kept = check_file(&path, None, &[], true, usize::MAX, None, Sides::Receiver).unwrap();
        let lean = check_file(&path, None, &[], false, usize::MAX, None, Sides::Receiver).unwrap();
        std::fs::remove_file(&path).unwrap();
        let verdicts = |r: &RunReport| {
            r.scenarios
                .iter()
                .map(|s| {
                    (
                        s.id.clone(),
                        s.checks
                            .iter()
                            .map(|c| (c.rule.clone(), c.verdict))
                            .collect::<Vec<_>>(),
                    )
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(verdicts(&whole).len(), 2);
        assert_eq!(verdicts(&kept), verdicts(&whole));
        assert_eq!(verdicts(&lean), verdicts(&whole));
        assert_eq!(
            kept.scenarios[1].trace.len(),
            4,
            "the HTML report draws whole sessions"
        );
        // a passing session names no message; a failing one names its evidence
        assert!(
            lean.scenarios[0].trace.is_empty(),
            "{:?}",
            lean.scenarios[0].trace
        );
        let failing = &lean.scenarios[1];
        let named: HashSet<u64> = failing
            .checks
            .iter()
            .flat_map(|c| c.evidence.iter().copied())
            .collect();
        let kept_seqs: HashSet<u64> = failing.trace.iter().map(|e| e.seq).collect();
        assert!(
            !kept_seqs.is_empty() && kept_seqs.len() < 4,
            "{kept_seqs:?}"
        );
        assert_eq!(kept_seqs, named);
        assert_eq!(
            lean.transport, "http",
            "the transport of a session that keeps no message"
        );
    }

    #[test]
    fn the_first_pass_finds_each_sessions_last_line_however_its_name_is_written() {
        let lines = [
            r#"{"scenario":"plain","seq":0}"#,
            r#"{"scenario":"es\"caped","seq":0}"#,
            "",
            r#"{"seq":1,"scenario":"plain"}"#,
            "{\"scenario\":\"crlf\",\"seq\":0}\r",
            r#"{"scenario":"es\"caped","seq":1}"#,
            r#"{"seq":0}"#,
        ];
        let path = std::env::temp_dir().join(format!(
            "taskcheck-offline-first-{}.jsonl",
            std::process::id()
        ));
        std::fs::write(&path, lines.join("\n")).unwrap();
        let last = last_lines(&path, "t.jsonl");
        std::fs::write(&path, "{\"scenario\":\"x\"}\nnot json\n").unwrap();
        let bad = last_lines(&path, "t.jsonl");
        std::fs::remove_file(&path).unwrap();
        let expected: HashMap<String, usize> = [
            ("plain".to_string(), 3),
            ("es\"caped".to_string(), 5),
            ("crlf".to_string(), 4),
            (UNNAMED.to_string(), 6),
        ]
        .into();
        assert_eq!(last.unwrap(), expected);
        assert!(bad.unwrap_err().starts_with("t.jsonl:2:"));
    }

    #[test]
    fn sessions_handed_over_in_many_batches_are_reported_in_order() {
        // 600 copies of the two interleaved sessions: about 1 MiB, so several batches
        let copies: Vec<String> = (0..600)
            .map(|n| {
                interleaved()
                    .replace(r#""scenario":"a""#, &format!(r#""scenario":"a{n}""#))
                    .replace(r#""scenario":"b""#, &format!(r#""scenario":"b{n}""#))
            })
            .collect();
        let text = copies.join("\n");
        assert!(text.len() > 3 * BATCH_BYTES, "{}", text.len());
        let path = std::env::temp_dir().join(format!(
            "taskcheck-offline-batches-{}.jsonl",
            std::process::id()
        ));
        std::fs::write(&path, &text).unwrap();
        let streamed =
            check_file(&path, None, &[], false, usize::MAX, None, Sides::Receiver).unwrap();
        std::fs::remove_file(&path).unwrap();
        let names: Vec<&str> = streamed.scenarios.iter().map(|s| s.id.as_str()).collect();
        let expected: Vec<String> = (0..600)
            .flat_map(|n| [format!("a{n}"), format!("b{n}")])
            .collect();
        assert_eq!(names, expected, "in the order their first lines came");
        for (i, s) in streamed.scenarios.iter().enumerate() {
            let declare = s
                .checks
                .iter()
                .find(|c| c.rule == "tasks.capability.declare")
                .unwrap_or_else(|| panic!("{} judged no declare", s.id));
            assert_eq!(
                declare.verdict == crate::verdict::Verdict::Pass,
                i % 2 == 0,
                "{}",
                s.id
            );
        }
    }

    #[test]
    fn sessions_are_judged_with_their_capabilities() {
        let lines = [
            r#"{"scenario":"s","seq":0,"dir":"out","transport":"stdio","t_ms":0,"message":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}}"#,
            r#"{"scenario":"s","seq":1,"dir":"in","transport":"stdio","t_ms":1,"message":{"jsonrpc":"2.0","id":0,"result":{"capabilities":{}}}}"#,
            r#"{"scenario":"s","seq":2,"dir":"out","transport":"stdio","t_ms":2,"message":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","task":{}}}}"#,
            r#"{"scenario":"s","seq":3,"dir":"in","transport":"stdio","t_ms":3,"message":{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"a","status":"working","createdAt":"2025-11-25T10:00:00Z","lastUpdatedAt":"2025-11-25T10:00:00Z","ttl":1}}}}"#,
        ];
        let entries = read_trace(&lines.join("\n"), "t").unwrap();
        let report = judge(entries, None, &[], "t", Sides::Receiver, None);
        let declare = report.scenarios[0]
            .checks
            .iter()
            .find(|c| c.rule == "tasks.capability.declare")
            .unwrap();
        assert_eq!(
            declare.verdict,
            crate::verdict::Verdict::Fail,
            "created a task it never declared"
        );
    }
}
