//! What every design's monitors share: what they know besides the trace (`Context`), what
//! they conclude (`Judgement`), findings tallied by rule (`Tally`), what a session showed of
//! each task (`book`), request keys, capability paths and the id entropy estimate. Each
//! design's monitor is in its folder.

pub mod book;
pub mod entropy;

use crate::model::Finding;
use crate::schema::SchemaSet;
use crate::trace::Entry;
use crate::verdict::Check;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// What the monitors know besides the trace.
pub struct Context<'a> {
    /// The receiver's capabilities from its initialize result.
    pub capabilities: &'a Value,
    /// The official schema given with `--schema`, if any.
    pub official: Option<&'a SchemaSet>,
    /// Requestor rules the scenario breaks on purpose.
    pub breaks: &'a [String],
    /// The run gave two credentials (`--auth-a`, `--auth-b`): the receiver has an
    /// authorization context to bind tasks to, so `tasks.security.secure-ids` does not apply.
    pub authorization: bool,
}

/// What the monitors concluded: checks of the receiver, and taskcheck's own broken rules.
pub struct Judgement {
    pub checks: Vec<Check>,
    /// For each check, the rule it follows from if that rule failed too (see [`Finding::follows`]).
    pub because: Vec<Option<&'static str>>,
    pub harness_errors: Vec<Check>,
    /// Answers that said a task does not exist where it should (it vanished before its ttl,
    /// or was not there yet after its creation), each with the answer that first showed it
    /// missing and the rule that breaks: whatever they break follows from that.
    pub vanished: BTreeMap<u64, (u64, &'static str)>,
    /// Answers that said a task does not exist once its ttl had elapsed on taskcheck's clock,
    /// each with why: the receiver may have discarded it, so what they break is untestable.
    pub expired: BTreeMap<u64, String>,
    /// The messages some rule was seen broken on (each failure's last message of evidence):
    /// what else a scenario expected of one of them is that failure's consequence.
    pub broke_on: BTreeSet<u64>,
}

/// Whether a dotted path (`tasks.requests.tools.call`) exists in a capabilities object.
/// A key may hold dots itself (`extensions.io.modelcontextprotocol/tasks`).
pub fn has_capability(capabilities: &Value, path: &str) -> bool {
    /// The value at `path` below `v`, each key being the longest run of dotted parts it has.
    fn find<'v>(v: &'v Value, path: &str) -> Option<&'v Value> {
        let ends = std::iter::once(path.len()).chain(path.rmatch_indices('.').map(|(i, _)| i));
        for end in ends {
            if let Some(c) = v.get(&path[..end]) {
                match path.get(end + 1..) {
                    None => return Some(c),
                    Some(rest) => {
                        if let Some(found) = find(c, rest) {
                            return Some(found);
                        }
                    }
                }
            }
        }
        None
    }
    find(capabilities, path).is_some_and(|v| !v.is_null() && v != &Value::Bool(false))
}

/// The requestor whose session an entry belongs to.
pub fn peer_of(e: &Entry) -> &str {
    e.peer.as_deref().unwrap_or("a")
}

/// A request id as a key unique across the requestors of one trace.
/// A request's id within its session (the second requestor's ids are apart).
pub fn key(e: &Entry, id: &Value) -> String {
    format!("{}:{id}", peer_of(e))
}

/// A request by what it asks, the members `aside` left out, whatever order its members came
/// in: the key that tells the same request made two ways (with a task and without).
pub fn request_key(method: &str, params: &Value, aside: &[&str]) -> (String, String) {
    let rest: BTreeMap<&String, &Value> = params
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(k, _)| !aside.contains(&k.as_str()))
        .collect();
    let text = serde_json::to_string(&rest).unwrap_or_default();
    (method.to_string(), text)
}

/// What the findings of one rule add up to (kept as they come, so memory does not grow with
/// the trace).
struct RuleTally {
    seen: usize,
    first: Finding,
    failures: usize,
    first_failure: Option<Finding>,
    /// The distinct forms its failures took (at most [`FORMS_KEPT`]): each form, how many
    /// failures took it, and the first message of it.
    forms: Vec<(String, usize, String)>,
}

/// How many distinct forms of one rule's failures a tally keeps apart; the rest are counted
/// with the last.
const FORMS_KEPT: usize = 4;

/// A failure's message with what differs from one occurrence to the next (quoted names and
/// ids, numbers) taken out: two failures of one form say the same of different things.
fn form(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut quoted = false;
    let mut digits = false;
    for c in message.chars() {
        match (quoted, c) {
            (false, '"') => {
                quoted = true;
                out.push_str("\"…");
            }
            (true, '"') => quoted = false,
            (true, _) => {}
            (false, c) if c.is_ascii_digit() => {
                if !digits {
                    out.push('#');
                }
                digits = true;
                continue;
            }
            (false, c) => out.push(c),
        }
        digits = false;
    }
    out
}

impl RuleTally {
    /// Counts a failure under its form.
    fn failed_as(&mut self, message: &str) {
        let shape = form(message);
        let kept = self.forms.len();
        match self.forms.iter().position(|(f, _, _)| *f == shape) {
            Some(i) => self.forms[i].1 += 1,
            None if kept < FORMS_KEPT => self.forms.push((shape, 1, message.to_string())),
            None => self.forms[kept - 1].1 += 1,
        }
    }

    /// ` (and 7 more)`, or where the failures took other forms than the first,
    /// ` (and 7 more: 5 alike; 2 of another form, first: …)`.
    fn more(&self) -> String {
        if self.failures < 2 {
            return String::new();
        }
        let more = self.failures - 1;
        match self.forms.as_slice() {
            [] | [_] => format!(" (and {more} more)"),
            [(_, alike, _), others @ ..] => {
                let others: Vec<String> = others
                    .iter()
                    .map(|(_, n, first)| {
                        format!(
                            "{n} of another form, first: {}",
                            crate::trace::preview(first, 160)
                        )
                    })
                    .collect();
                format!(
                    " (and {more} more: {} alike; {})",
                    alike - 1,
                    others.join("; ")
                )
            }
        }
    }
}

/// Findings tallied by rule, and apart by the rule a failure may follow from; and the
/// messages some rule was seen broken on.
#[derive(Default)]
pub struct Tally(
    BTreeMap<(&'static str, Option<&'static str>), RuleTally>,
    BTreeSet<u64>,
);

impl Tally {
    /// Counts one finding.
    pub fn push(&mut self, f: Finding) {
        if !f.held {
            self.1.extend(f.evidence.last().copied());
        }
        let key = (f.rule, f.follows.filter(|_| !f.held));
        match self.0.get_mut(&key) {
            Some(t) => {
                t.seen += 1;
                if !f.held {
                    t.failures += 1;
                    t.failed_as(&f.message);
                    t.first_failure.get_or_insert(f);
                }
            }
            None => {
                let failed = !f.held;
                let mut tally = RuleTally {
                    seen: 1,
                    failures: usize::from(failed),
                    first_failure: failed.then(|| f.clone()),
                    first: f,
                    forms: Vec::new(),
                };
                if failed {
                    let message = tally.first.message.clone();
                    tally.failed_as(&message);
                }
                self.0.insert(key, tally);
            }
        }
    }

    /// Counts a judgement of `rule`, which may follow from `follows` when it fails. A pass
    /// after the rule's first is only counted, so its message and evidence are built only
    /// when they will be read (most passes are repeats: formatting them cost a tenth of
    /// offline checking).
    pub fn judge(
        &mut self,
        rule: &'static str,
        held: bool,
        follows: Option<&'static str>,
        message: impl FnOnce() -> String,
        evidence: impl FnOnce() -> Vec<u64>,
    ) {
        if held {
            if let Some(t) = self.0.get_mut(&(rule, None)) {
                t.seen += 1;
                return;
            }
        }
        self.push(Finding {
            follows,
            ..Finding::new(rule, held, message(), evidence())
        });
    }

    /// Counts many findings.
    pub fn extend(&mut self, findings: impl IntoIterator<Item = Finding>) {
        for f in findings {
            self.push(f);
        }
    }

    /// The messages some rule was seen broken on.
    pub fn broke_on(&self) -> BTreeSet<u64> {
        self.1.clone()
    }

    /// One check per rule (and rule it may follow from): its first failure with a count, or
    /// a pass with the number of observations; beside them, what each may follow from.
    pub fn checks(self) -> (Vec<Check>, Vec<Option<&'static str>>) {
        self.0
            .into_iter()
            .map(|((rule, follows), t)| {
                let more = t.more();
                (
                    match t.first_failure {
                        Some(first) => Check::judged(
                            rule,
                            false,
                            format!("{}{more}", first.message),
                            first.evidence,
                        ),
                        None => Check::judged(
                            rule,
                            true,
                            format!("{} ({} observation(s))", t.first.message, t.seen),
                            Vec::new(),
                        ),
                    },
                    follows,
                )
            })
            .unzip()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failures(tally: Tally) -> String {
        let (checks, _) = tally.checks();
        checks[0].message.clone()
    }

    #[test]
    fn a_recurring_failure_gives_its_count_and_its_other_forms() {
        let fail = |tally: &mut Tally, message: String| {
            tally.push(Finding::new("r", false, message, vec![1]))
        };
        let mut alike = Tally::default();
        for id in 1..=3 {
            fail(
                &mut alike,
                format!("task \"{id}\" read working {id}00 ms after"),
            );
        }
        assert_eq!(
            failures(alike),
            "task \"1\" read working 100 ms after (and 2 more)"
        );
        let mut two = Tally::default();
        for id in 1..=3 {
            fail(
                &mut two,
                format!("task \"{id}\" read working {id}00 ms after"),
            );
        }
        fail(&mut two, "task \"9\" answered after tasks/update".into());
        fail(&mut two, "task \"8\" answered after tasks/update".into());
        assert_eq!(
            failures(two),
            "task \"1\" read working 100 ms after (and 4 more: 2 alike; 2 of another form, first: task \"9\" answered after tasks/update)"
        );
    }
}
