//! A client judged as a requestor in traffic taskcheck did not ask for (`taskcheck watch`,
//! `check --judge both`): only once it ended the conversation itself or went quiet, and only
//! against a server that broke no MUST and did not break off (a client echoing the invalid task
//! id it was given breaks a rule through no fault of its own).

use crate::designs::Profile;
use crate::reference::record::ENDED;
use crate::trace::{Direction, Entry};
use crate::verdict::{Check, Verdict};

/// The start of the note `watch` records in a conversation still open when it stopped after
/// `--idle-exit` without a request: its client was quiet that long.
pub const QUIET: &str = "taskcheck watch stopped: no request came for ";

/// The requestor checks of a session's client, given the checks the monitors made (of the
/// server, and of the client's conduct they judge as it goes); or, where it cannot be judged,
/// an untestable check saying why for each requestor rule the monitors did not judge.
pub fn checks(profile: Profile, trace: &[Entry], monitored: &[Check]) -> Vec<Check> {
    let requestor = profile.requestor_rules();
    let (conduct, server): (Vec<&Check>, Vec<&Check>) = monitored
        .iter()
        .partition(|c| requestor.contains(&c.rule.as_str()));
    match judged(profile, trace, &server) {
        // what the monitors judged already is not said twice; what a requestor judge could
        // not judge here (no elicitation came on the GET stream) this traffic did not exercise
        Ok(checks) => checks
            .into_iter()
            .filter(|c| !conduct.iter().any(|m| m.rule == c.rule))
            .filter(|c| c.verdict != Verdict::Untestable)
            .collect(),
        Err(why) => {
            let why = format!("the client is not judged: {why}");
            requestor
                .into_iter()
                .filter(|rule| !conduct.iter().any(|c| c.rule == *rule))
                .map(|rule| Check::with(rule, Verdict::Untestable, why.clone()))
                .collect()
        }
    }
}

fn judged(profile: Profile, trace: &[Entry], server: &[&Check]) -> Result<Vec<Check>, String> {
    let note = |e: &Entry| e.dir == Direction::Out && e.message.is_none();
    let ended = trace
        .iter()
        .filter(|e| note(e))
        .filter_map(|e| e.text.as_deref())
        .any(|t| t == ENDED || t.starts_with(QUIET));
    if !ended {
        return Err(
            "the conversation was cut short before the client ended it (its server ended first, or taskcheck was stopped)"
                .into(),
        );
    }
    // a SHOULD the server did not meet (an SSE answer to tasks/get) leads no client astray
    let broken = |v: Verdict| matches!(v, Verdict::Fail | Verdict::Error);
    if let Some(c) = server.iter().find(|c| broken(c.verdict)) {
        return Err(format!(
            "the server did not meet {} ({}), and what a client does after that is no evidence against it",
            c.rule,
            c.verdict.label()
        ));
    }
    profile.judge_watched_requestor(trace).ok_or_else(|| {
        format!("taskcheck cannot judge a client of the {profile} design in traffic it did not ask for yet")
    })
}
