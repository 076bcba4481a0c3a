//! A client judged as a requestor in traffic taskcheck did not ask for (`taskcheck watch`,
//! `check --judge both`), whatever its server did: a server's failure excuses a client rule
//! only where the catalogue says the rule depends on it (`depends_on`: a client echoing the
//! invalid task id it was given breaks a rule through no fault of its own), and what a client
//! left undone is judged only once it ended the conversation itself or went quiet
//! (`needs_end`).

use crate::designs::Profile;
use crate::reference::record::ENDED;
use crate::spec;
use crate::trace::{Direction, Entry};
use crate::verdict::{Check, Root, Verdict};

/// The start of the note `watch` records in a conversation still open when it stopped after
/// `--idle-exit` without a request: its client was quiet that long.
pub const QUIET: &str = "taskcheck watch stopped: no request came for ";
/// The note `watch --exec` records in a conversation still open when its command ended: the
/// clients were the command's, and are done.
pub const COMMAND_ENDED: &str = "taskcheck watch stopped: the command it served ended";

/// Why what a client left undone is not judged in a conversation cut short.
const CUT_SHORT: &str = "the conversation was cut short before the client ended it (its server ended first, or taskcheck was stopped): what the client left undone may still have been to come";

/// The requestor checks of a session's client, given the checks the monitors made (of the
/// server, and of the client's conduct they judge as it goes); where the design judges no
/// watched client, an untestable check saying why for each requestor rule the monitors did
/// not judge.
pub fn checks(profile: Profile, trace: &[Entry], monitored: &[Check]) -> Vec<Check> {
    let requestor = profile.requestor_rules();
    let (conduct, server): (Vec<&Check>, Vec<&Check>) = monitored
        .iter()
        .partition(|c| requestor.contains(&c.rule.as_str()));
    let Some(judged) = profile.judge_watched_requestor(trace) else {
        let why = format!(
            "the client is not judged: taskcheck cannot judge a client of the {profile} design in traffic it did not ask for yet"
        );
        return requestor
            .into_iter()
            .filter(|rule| !conduct.iter().any(|c| c.rule == *rule))
            .map(|rule| Check::with(rule, Verdict::Untestable, why.clone()))
            .collect();
    };
    let ended = ended(trace);
    // what the monitors judged already is not said twice; what a requestor judge could not
    // judge here (no elicitation came on the GET stream) this traffic did not exercise
    judged
        .into_iter()
        .filter(|c| !conduct.iter().any(|m| m.rule == c.rule))
        .filter(|c| c.verdict != Verdict::Untestable)
        .map(|c| excused(c, ended, &server))
        .collect()
}

/// Whether the client ended the conversation itself, or went quiet.
fn ended(trace: &[Entry]) -> bool {
    trace
        .iter()
        .filter(|e| e.dir == Direction::Out && e.message.is_none())
        .filter_map(|e| e.text.as_deref())
        .any(|t| t == ENDED || t == COMMAND_ENDED || t.starts_with(QUIET))
}

/// A client's failure as the conversation allows it: untestable where it is about what the
/// client left undone in a conversation cut short, the consequence of a server failure its
/// rule depends on, else as it was judged.
fn excused(check: Check, ended: bool, server: &[&Check]) -> Check {
    if !check.broke() {
        return check;
    }
    let Some(rule) = spec::rule(&check.rule) else {
        return check;
    };
    if rule.needs_end && !ended {
        return Check {
            verdict: Verdict::Untestable,
            message: format!("{}; not judged: {CUT_SHORT}", check.message),
            ..check
        };
    }
    let cause = rule
        .depends_on
        .iter()
        .find(|d| server.iter().any(|s| s.rule == **d && s.broke()));
    match cause {
        Some(cause) => check.following(Root {
            rule: cause.clone(),
            scenario: String::new(),
            step: None,
        }),
        None => check,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_failure_excuses_only_the_client_rules_that_depend_on_it() {
        let client = Check::judged(
            "tasks.schema.requestor-messages",
            false,
            "42 sent back",
            vec![9],
        );
        let id = Check::judged("tasks.id.string", false, "taskId is 42", vec![3]);
        let other = Check::judged("tasks.ttl.created-at", false, "no createdAt", vec![3]);
        let excused_by_id = excused(client.clone(), true, &[&id]);
        assert_eq!(excused_by_id.verdict, Verdict::Consequence);
        assert_eq!(excused_by_id.root.unwrap().rule, "tasks.id.string");
        // no blanket gate: another server failure excuses nothing
        assert_eq!(excused(client, true, &[&other]).verdict, Verdict::Fail);
    }

    #[test]
    fn what_a_client_left_undone_waits_for_the_end_of_its_conversation() {
        let left = Check::judged(
            "tasks.input.requestor-calls-result",
            false,
            "never called",
            vec![5],
        );
        assert_eq!(excused(left.clone(), true, &[]).verdict, Verdict::Warn);
        assert_eq!(excused(left, false, &[]).verdict, Verdict::Untestable);
        // what it did is judged however the conversation ended
        let sent = Check::judged("tasks.meta.requestor-omits", false, "meta sent", vec![5]);
        assert_eq!(excused(sent, false, &[]).verdict, Verdict::Warn);
    }
}
