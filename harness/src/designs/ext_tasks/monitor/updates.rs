//! tasks/update and tasks/cancel: an empty acknowledgement, answers that move a task on
//! (all of them), keep it waiting (some of them) or change nothing (keys not outstanding), a
//! malformed update refused, and a task that does not exist refused.

use super::*;
use std::collections::BTreeSet;

/// A successful tasks/update is an empty acknowledgement (MUST).
pub(super) const UPDATE_ACK: &str = "ext-tasks.update.ack-empty";
/// A successful tasks/cancel is an empty acknowledgement (MUST).
pub(super) const CANCEL_ACK: &str = "ext-tasks.cancel.ack-empty";
/// Answers to every outstanding request move the task on (SHOULD).
pub(super) const INPUT_ACCEPTED: &str = "ext-tasks.update.input-accepted";
/// Keys that are not outstanding are ignored (SHOULD).
pub(super) const UNKNOWN_KEYS: &str = "ext-tasks.update.unknown-keys-ignored";
/// Answers to some outstanding requests leave the task waiting for the rest (SHOULD).
pub(super) const PARTIAL: &str = "ext-tasks.update.partial-keeps-input-required";
/// A malformed tasks/update is refused with -32602 (SHOULD).
pub(super) const MALFORMED: &str = "ext-tasks.update.malformed-responses";
/// Where a task ended after its cancellation was acknowledged (MAY).
pub(super) const CANCEL_EVENTUAL: &str = "ext-tasks.cancel.eventual";
/// tasks/get of an invalid or nonexistent task gets -32602 (MUST).
pub(super) const GET_UNKNOWN: &str = "ext-tasks.get.unknown-task";
/// tasks/update of an invalid or nonexistent task gets an error (SHOULD).
pub(super) const UPDATE_UNKNOWN: &str = "ext-tasks.update.unknown-task";
/// tasks/cancel of an invalid or nonexistent task gets an error (SHOULD).
pub(super) const CANCEL_UNKNOWN: &str = "ext-tasks.cancel.unknown-task";

/// A task still read `input_required` with no new request this long after every request it
/// showed was answered did not move on.
const LEAVE_MS: u64 = 2000;

/// One tasks/update of a known task, acknowledged.
#[derive(Debug, Clone)]
pub(super) struct Update {
    id: String,
    asked: u64,
    answered: u64,
    answered_ms: u64,
    /// The keys it answered.
    keys: BTreeSet<String>,
    /// The response under each key.
    values: BTreeMap<String, Value>,
}

/// A tasks request of a task id no CreateTaskResult gave, and its answer.
#[derive(Debug, Clone)]
pub(super) struct Stranger {
    method: String,
    id: String,
    asked: u64,
    answered: u64,
    refused: Option<i64>,
}

/// The rule that holds a method's answer for an unknown task.
fn unknown_rule(method: &str) -> &'static str {
    match method {
        "tasks/get" => GET_UNKNOWN,
        "tasks/update" => UPDATE_UNKNOWN,
        _ => CANCEL_UNKNOWN,
    }
}

impl Monitor {
    /// The answer to a tasks/get, tasks/update or tasks/cancel of a request that declares the
    /// extension.
    pub(super) fn task_request(
        &mut self,
        asked: &Asked,
        answer: Result<&Value, &Value>,
        e: &Entry,
    ) {
        let method = asked.method.as_str();
        if !matches!(method, "tasks/get" | "tasks/update" | "tasks/cancel")
            || !declares(request_capabilities(&asked.params))
        {
            return;
        }
        let evidence = vec![asked.seq, e.seq];
        let code = negotiation::code_of(answer);
        let id = match asked.params.get("taskId") {
            Some(Value::String(id)) => id.clone(),
            other => {
                let rule = unknown_rule(method);
                // over HTTP, Mcp-Name cannot mirror a taskId that is null, an object or absent:
                // the transport's refusal (-32020) is the rejection the rule asks for
                let refused_by_transport =
                    asked.headers.is_some() && code == Some(negotiation::HEADER_MISMATCH_CODE);
                let held = code == Some(crate::wire::code::INVALID_PARAMS) || refused_by_transport;
                let shown = other.map_or("absent".to_string(), |v| format!("{v}, not a string"));
                return self.find(
                    rule,
                    held,
                    match (held, refused_by_transport) {
                        (true, false) => format!("{method} with taskId {shown} got -32602"),
                        (true, true) => format!("{method} with taskId {shown} got -32020 (Header Mismatch): the transport refused it, a rejection"),
                        (false, _) => format!(
                            "{method} with taskId {shown} was answered {}, not -32602 (Invalid params)",
                            negotiation::shown(answer)
                        ),
                    },
                    evidence,
                );
            }
        };
        if !self.handed_out(&id) {
            self.strangers.push(Stranger {
                method: method.to_string(),
                id: id.clone(),
                asked: asked.seq,
                answered: e.seq,
                refused: code,
            });
            if method == "tasks/get" && answer.is_err() {
                return;
            }
        }
        match method {
            "tasks/update" => self.update_answered(asked, &id, answer, e),
            "tasks/cancel" => {
                if let Ok(result) = answer {
                    self.ack(CANCEL_ACK, method, result, evidence);
                    self.cancels.push((id, e.seq));
                }
            }
            _ => {}
        }
    }

    /// A successful acknowledgement holds nothing but `resultType` and `_meta`.
    fn ack(&mut self, rule: &'static str, method: &str, result: &Value, evidence: Vec<u64>) {
        let extra: Vec<&String> = result
            .as_object()
            .map(|o| {
                o.keys()
                    .filter(|k| !matches!(k.as_str(), "resultType" | "_meta"))
                    .collect()
            })
            .unwrap_or_default();
        if !extra.is_empty() {
            self.failed_at.entry(evidence[1]).or_insert(rule);
        }
        self.find(
            rule,
            extra.is_empty(),
            match extra.is_empty() {
                true => format!("{method} acknowledged with an empty result"),
                false => format!(
                    "{method} acknowledged with a result holding {extra:?}, not an empty one"
                ),
            },
            evidence,
        );
    }

    /// A tasks/update of a task this session was given.
    fn update_answered(
        &mut self,
        asked: &Asked,
        id: &str,
        answer: Result<&Value, &Value>,
        e: &Entry,
    ) {
        let evidence = vec![asked.seq, e.seq];
        let responses = asked.params.get("inputResponses");
        if !responses.is_some_and(Value::is_object) {
            let held = negotiation::code_of(answer) == Some(crate::wire::code::INVALID_PARAMS);
            let shown = responses.map_or("absent".to_string(), |v| {
                crate::matcher::short(v).to_string()
            });
            return self.find(
                MALFORMED,
                held,
                match held {
                    true => format!("tasks/update with inputResponses {shown} got -32602"),
                    false => format!(
                        "tasks/update of {id} with inputResponses {shown}, no object, was answered {}, not -32602 (Invalid params)",
                        negotiation::shown(answer)
                    ),
                },
                evidence,
            );
        }
        let keys: BTreeSet<String> = responses
            .and_then(Value::as_object)
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default();
        let issued: BTreeSet<String> = self
            .tasks
            .get(id)
            .map(|s| s.keys.keys().cloned().collect())
            .unwrap_or_default();
        // a key is not outstanding when the task never showed it, or an acknowledged update
        // already answered it
        let answered: BTreeSet<&String> = self
            .updates
            .iter()
            .filter(|u| u.id == id)
            .flat_map(|u| u.keys.iter())
            .collect();
        let strange = !keys.is_empty()
            && keys
                .iter()
                .all(|k| !issued.contains(k) || answered.contains(k));
        match answer {
            Ok(result) => {
                self.ack(UPDATE_ACK, "tasks/update", result, evidence);
                self.updates.push(Update {
                    id: id.to_string(),
                    asked: asked.seq,
                    answered: e.seq,
                    answered_ms: e.t_ms,
                    keys,
                    values: responses
                        .and_then(Value::as_object)
                        .map(|o| o.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
                        .unwrap_or_default(),
                });
            }
            Err(error) if strange => self.find(
                UNKNOWN_KEYS,
                false,
                format!(
                    "tasks/update of {id} answering only keys not outstanding, never issued or already answered ({keys:?}), was refused ({}), not ignored",
                    crate::matcher::short(error)
                ),
                evidence,
            ),
            Err(_) => {}
        }
    }

    /// A key answered again with another response, after an acknowledged update answered it:
    /// the server should ignore the second ("keys that have already been answered"), so a
    /// finished task's outcome that shows what only the second response says, and nothing
    /// only the first says, took the second. Judged only where the outcome tells them apart
    /// (a tool's output is its own).
    fn reanswers_judged(&mut self) {
        let mut first: BTreeMap<(&str, &str), (&Value, u64)> = BTreeMap::new();
        let mut found = Vec::new();
        for u in &self.updates {
            for (key, value) in &u.values {
                let Some((earlier, at)) = first.get(&(u.id.as_str(), key.as_str())).copied() else {
                    // an answer counts once the task had shown the request it answers
                    let issued = self.tasks.get(&u.id).and_then(|t| t.keys.get(key));
                    if issued.is_some_and(|(_, shown)| *shown < u.asked) {
                        first.insert((&u.id, key), (value, u.asked));
                    }
                    continue;
                };
                let Some((outcome, shown)) = self.outcomes.get(&u.id) else {
                    continue;
                };
                let (only_first, only_second) = (apart(earlier, value), apart(value, earlier));
                let text = outcome.to_string();
                let says = |words: &[String]| words.iter().any(|w| text.contains(w.as_str()));
                let held = match (says(&only_first), says(&only_second)) {
                    (true, false) => true,
                    (false, true) => false,
                    _ => continue,
                };
                found.push((
                    held,
                    match held {
                        true => format!("task {} kept the first answer to {key:?} ({only_first:?}), not the second ({only_second:?})", u.id),
                        false => format!(
                            "task {}'s outcome shows the second answer to {key:?} ({only_second:?}), which should have been ignored: the key was already answered ({only_first:?})",
                            u.id
                        ),
                    },
                    vec![at, u.asked, *shown],
                ));
            }
        }
        for (held, message, evidence) in found {
            self.find(UNKNOWN_KEYS, held, message, evidence);
        }
    }

    /// What the acknowledged updates did to their tasks, once the session is over: keys not
    /// outstanding changed nothing, some of the outstanding ones left the task waiting, all of
    /// them moved it on.
    pub(super) fn updates_judged(&mut self) {
        self.reanswers_judged();
        let updates = std::mem::take(&mut self.updates);
        for (i, u) in updates.iter().enumerate() {
            let Some(reads) = self.reads.get(&u.id) else {
                continue;
            };
            // the requests the task showed before the update was sent, less those answered
            let mut outstanding: BTreeSet<String> = reads
                .iter()
                .rev()
                .find(|r| r.received < u.asked && r.status == "input_required")
                .map(|r| r.keys.clone())
                .unwrap_or_default();
            for earlier in updates[..i].iter().filter(|o| o.id == u.id) {
                outstanding.retain(|k| !earlier.keys.contains(k));
            }
            if outstanding.is_empty() {
                continue;
            }
            let answered: BTreeSet<&String> = u.keys.intersection(&outstanding).collect();
            // what the task showed in answer to reads sent after this acknowledgement, and
            // before the next update of it
            let next = updates[i + 1..]
                .iter()
                .find(|o| o.id == u.id)
                .map_or(u64::MAX, |o| o.asked);
            let after: Vec<&Read> = reads
                .iter()
                .filter(|r| r.asked.is_some_and(|a| a > u.answered && a < next))
                .collect();
            let Some(first) = after.first() else { continue };
            let evidence = vec![u.asked, u.answered, first.received];
            if answered.is_empty() {
                let held = first.status == "input_required";
                self.find(
                    UNKNOWN_KEYS,
                    held,
                    match held {
                        true => format!("task {} kept waiting after an update of keys it never issued", u.id),
                        false => format!(
                            "task {} read {} after an update that answered only keys it never issued ({:?}), its own requests {:?} unanswered",
                            u.id, first.status, u.keys, outstanding
                        ),
                    },
                    evidence,
                );
            } else if answered.len() < outstanding.len() {
                let rest: BTreeSet<&String> = outstanding
                    .iter()
                    .filter(|k| !answered.contains(k))
                    .collect();
                let held = first.status == "input_required";
                self.find(
                    PARTIAL,
                    held,
                    match held {
                        true => format!("task {} still waits for {rest:?} after an update that answered {answered:?}", u.id),
                        false => format!(
                            "task {} read {} after an update that answered {answered:?}, while {rest:?} were still outstanding",
                            u.id, first.status
                        ),
                    },
                    evidence,
                );
            } else {
                let moved = after.iter().find(|r| {
                    r.status != "input_required" || r.keys.iter().any(|k| !outstanding.contains(k))
                });
                match moved {
                    Some(r) => self.find(
                        INPUT_ACCEPTED,
                        true,
                        format!(
                            "task {} read {} once every request it showed was answered",
                            u.id, r.status
                        ),
                        vec![u.asked, u.answered, r.received],
                    ),
                    None => {
                        let Some(late) = after.iter().find(|r| r.t_ms >= u.answered_ms + LEAVE_MS)
                        else {
                            continue;
                        };
                        self.find(
                            INPUT_ACCEPTED,
                            false,
                            format!(
                                "task {} still read input_required with the same requests {} ms after every one of them was answered and acknowledged",
                                u.id,
                                late.t_ms - u.answered_ms
                            ),
                            vec![u.asked, u.answered, late.received],
                        );
                    }
                }
            }
        }
    }

    /// Where each task whose cancellation was acknowledged was last seen, once the session is
    /// over (recorded: the task may stay unfinished a while, and end otherwise than cancelled).
    pub(super) fn cancels_recorded(&mut self) {
        for (id, acked) in std::mem::take(&mut self.cancels) {
            let Some(last) = self
                .reads
                .get(&id)
                .and_then(|r| r.iter().rev().find(|r| r.received > acked))
            else {
                continue;
            };
            let message = format!(
                "task {id} read {} after its cancellation was acknowledged",
                last.status
            );
            self.find(CANCEL_EVENTUAL, true, message, vec![acked, last.received]);
        }
    }

    /// Requests of task ids no CreateTaskResult gave, once the session is over: an error must
    /// be -32602; an acknowledgement is judged only where the server itself said the id names
    /// no task (a tasks/get of it refused with -32602).
    pub(super) fn strangers_judged(&mut self) {
        let strangers = std::mem::take(&mut self.strangers);
        for s in &strangers {
            if self.handed_out(&s.id) {
                continue;
            }
            let rule = unknown_rule(&s.method);
            let held = match s.refused {
                Some(code) => code == crate::wire::code::INVALID_PARAMS,
                None if s.method == "tasks/get" => continue,
                None => {
                    let unknown_to_it = strangers.iter().any(|g| {
                        g.method == "tasks/get"
                            && g.id == s.id
                            && g.refused == Some(crate::wire::code::INVALID_PARAMS)
                    });
                    if !unknown_to_it {
                        continue;
                    }
                    false
                }
            };
            let method = &s.method;
            let id = &s.id;
            self.find(
                rule,
                held,
                match (held, s.refused) {
                    (true, _) => format!("{method} of {id:?}, which names no task, got -32602"),
                    (false, Some(code)) => format!("{method} of {id:?}, which no CreateTaskResult gave, was refused with {code}, not -32602 (Invalid params)"),
                    (false, None) => format!("{method} of {id:?}, a task id the server itself says names no task (tasks/get: -32602), was acknowledged, not refused"),
                },
                vec![s.asked, s.answered],
            );
        }
    }
}

/// What one answer showed of a task: its status and the keys of its `inputRequests`.
#[derive(Debug, Clone)]
pub(super) struct Read {
    pub status: String,
    pub keys: BTreeSet<String>,
    pub asked: Option<u64>,
    pub received: u64,
    pub t_ms: u64,
}

/// The strings of a response (its content's values) that the other response does not hold.
fn apart(one: &Value, other: &Value) -> Vec<String> {
    fn strings(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::String(s) if s.len() >= 3 => out.push(s.clone()),
            Value::Array(a) => a.iter().for_each(|v| strings(v, out)),
            Value::Object(o) => o.values().for_each(|v| strings(v, out)),
            _ => {}
        }
    }
    let (mut mine, mut theirs) = (Vec::new(), Vec::new());
    strings(one.get("content").unwrap_or(one), &mut mine);
    strings(other.get("content").unwrap_or(other), &mut theirs);
    mine.retain(|s| !theirs.contains(s));
    mine
}
