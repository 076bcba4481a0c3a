//! Early expiry: a task reported not found before its ttl can have elapsed.
//!
//! Judged on taskcheck's clock only. The task was created after taskcheck sent the creating
//! request, so its ttl cannot have elapsed before `sent + ttl`; an answer received before
//! that moment was given before the ttl elapsed, whatever the receiver's clock says. Any
//! answer that says the task does not exist counts, to tasks/get, tasks/result or
//! tasks/cancel and whatever its code; a task that vanished early explains every later
//! not-found answer about it (they are that failure's consequences).

use crate::model::Finding;
use std::collections::{BTreeMap, HashMap};

const RULE: &str = "tasks.ttl.no-early-expiry";

struct Known {
    /// The requestor that created it (another one may rightly be told it does not exist).
    owner: String,
    /// When taskcheck sent the request that created the task (ms since the session started).
    created_sent_ms: u64,
    /// The smallest ttl the receiver ever reported; None while only `null` (unlimited) was seen.
    ttl_ms: Option<u64>,
    ttl_seen: bool,
    /// Cancelled tasks may be deleted at any time.
    exempt: bool,
    /// tasks/cancel requests sent and not answered yet: the task may be cancelled by now.
    cancels_pending: usize,
    /// The answer that first showed the task gone before its ttl.
    vanished: Option<u64>,
}

/// Tracks every task created in a session.
#[derive(Default)]
pub struct Expiry {
    tasks: HashMap<String, Known>,
    /// Not-found answers about a task that vanished early, each with the answer that first
    /// showed it gone.
    vanished_answers: BTreeMap<u64, u64>,
    /// Not-found answers about a task once its ttl had elapsed, each with why.
    expired_answers: BTreeMap<u64, String>,
}

impl Expiry {
    /// A task was created for requestor `owner` by a request sent at `sent_ms`.
    pub fn created(&mut self, id: &str, owner: &str, sent_ms: u64) {
        self.tasks.entry(id.to_string()).or_insert(Known {
            owner: owner.to_string(),
            created_sent_ms: sent_ms,
            ttl_ms: None,
            ttl_seen: false,
            exempt: false,
            cancels_pending: 0,
            vanished: None,
        });
    }

    /// The receiver reported a ttl (a number, or null for unlimited) for a task.
    pub fn ttl_reported(&mut self, id: &str, ttl: Option<u64>) {
        if let Some(k) = self.tasks.get_mut(id) {
            k.ttl_seen = true;
            k.ttl_ms = match (k.ttl_ms, ttl) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
        }
    }

    /// The task was seen cancelled: it may vanish at any time.
    pub fn exempt(&mut self, id: &str) {
        if let Some(k) = self.tasks.get_mut(id) {
            k.exempt = true;
        }
    }

    /// taskcheck asked to cancel the task.
    pub fn cancel_sent(&mut self, id: &str) {
        if let Some(k) = self.tasks.get_mut(id) {
            k.cancels_pending += 1;
        }
    }

    /// A tasks/cancel was answered; a successful one may have deleted the task.
    pub fn cancel_answered(&mut self, id: &str, succeeded: bool) {
        if let Some(k) = self.tasks.get_mut(id) {
            k.cancels_pending = k.cancels_pending.saturating_sub(1);
            k.exempt |= succeeded;
        }
    }

    /// The ttl of task `id`, if it had elapsed for requestor `asker` by `at_ms` (taskcheck's
    /// clock: the task was created no earlier than its request was sent).
    pub fn elapsed(&self, id: &str, asker: &str, at_ms: u64) -> Option<u64> {
        let k = self.tasks.get(id).filter(|k| k.owner == asker)?;
        let ttl = k.ttl_ms?;
        (at_ms >= k.created_sent_ms.saturating_add(ttl)).then_some(ttl)
    }

    /// `method` about task `id`, sent by requestor `asker`, was answered at `answered_ms`
    /// (trace number `answer`): with the task (`found`) or saying it does not exist.
    pub fn lookup(
        &mut self,
        method: &str,
        id: &str,
        asker: &str,
        found: bool,
        answered_ms: u64,
        evidence: Vec<u64>,
    ) -> Option<Finding> {
        let answer = *evidence.last()?;
        let k = self.tasks.get_mut(id).filter(|k| k.owner == asker)?;
        if let (Some(first), false) = (k.vanished, found) {
            self.vanished_answers.insert(answer, first);
        }
        // a cancellation may remove the task: only the cancel's own answer says otherwise
        let maybe_cancelled = k.cancels_pending > 0 && method != "tasks/cancel";
        if k.exempt || maybe_cancelled || !k.ttl_seen {
            return None;
        }
        let earliest_expiry = k.ttl_ms.map(|t| k.created_sent_ms.saturating_add(t));
        // t_ms are whole milliseconds: keep one of margin so rounding never accuses
        let before_expiry = earliest_expiry.is_none_or(|e| answered_ms + 1 < e);
        if !before_expiry {
            if let (false, None, Some(ttl)) = (found, k.vanished, k.ttl_ms) {
                let why = format!(
                    "{method} of task {id:?} was answered {} ms after the request that created it was sent, past its ttl of {ttl} ms: the receiver may have deleted it, as the text allows",
                    answered_ms.saturating_sub(k.created_sent_ms)
                );
                self.expired_answers.insert(answer, why);
            }
            return None;
        }
        let ttl = k
            .ttl_ms
            .map(|t| format!("{t} ms"))
            .unwrap_or_else(|| "unlimited".into());
        if !found && k.vanished.is_none() {
            k.vanished = Some(answer);
            self.vanished_answers.insert(answer, answer);
        }
        Some(Finding::new(
            RULE,
            found,
            if found {
                format!("task {id:?} retrievable within its ttl ({ttl})")
            } else {
                format!(
                    "{method} says task {id:?} does not exist {} ms after it was requested, before its ttl of {ttl} could elapse",
                    answered_ms.saturating_sub(k.created_sent_ms)
                )
            },
            evidence,
        ))
    }

    /// Whether the answer numbered `answer` said a task that vanished early does not exist.
    pub fn vanished(&self, answer: u64) -> bool {
        self.vanished_answers.contains_key(&answer)
    }

    /// Not-found answers about tasks that vanished early, each with the answer that first
    /// showed its task gone; and those about tasks whose ttl had elapsed, each with why.
    pub fn answers(self) -> (BTreeMap<u64, u64>, BTreeMap<u64, String>) {
        (self.vanished_answers, self.expired_answers)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_answers_before_the_earliest_expiry_are_judged() {
        let mut e = Expiry::default();
        let get = "tasks/get";
        e.created("a", "a", 100);
        assert!(
            e.lookup(get, "a", "a", false, 150, vec![1]).is_none(),
            "no ttl seen yet"
        );
        e.ttl_reported("a", Some(1000));
        e.ttl_reported("a", Some(5000));
        assert!(e.lookup(get, "a", "a", true, 800, vec![2]).unwrap().held);
        assert!(
            !e.lookup("tasks/result", "a", "a", false, 900, vec![3])
                .unwrap()
                .held
        );
        assert!(
            e.lookup(get, "a", "b", false, 900, vec![4]).is_none(),
            "not b's task"
        );
        assert!(
            e.lookup(get, "a", "a", false, 1100, vec![5]).is_none(),
            "ttl elapsed"
        );
        e.created("b", "a", 0);
        e.ttl_reported("b", None);
        e.cancel_sent("b");
        assert!(
            e.lookup(get, "b", "a", false, 10, vec![6]).is_none(),
            "a cancellation is on its way"
        );
        assert!(
            !e.lookup("tasks/cancel", "b", "a", false, 20, vec![7])
                .unwrap()
                .held,
            "the cancel's own answer, unlimited ttl"
        );
        e.cancel_answered("b", false);
        e.created("c", "a", 0);
        e.ttl_reported("c", Some(1000));
        e.exempt("c");
        assert!(
            e.lookup(get, "c", "a", false, 900, vec![8]).is_none(),
            "cancelled"
        );
        assert!(
            e.lookup(get, "zzz", "a", false, 1, vec![9]).is_none(),
            "unknown task"
        );
        e.created("d", "a", 0);
        e.ttl_reported("d", Some(100));
        assert!(
            e.lookup(get, "d", "a", false, 150, vec![10]).is_none(),
            "ttl elapsed"
        );
        let (vanished, expired) = e.answers();
        let vanished: Vec<(u64, u64)> = vanished.into_iter().collect();
        assert_eq!(
            vanished,
            vec![(3, 3), (5, 3), (7, 7)],
            "later answers follow the first"
        );
        // gone after its ttl: untestable, unless it had vanished early already
        assert_eq!(expired.keys().copied().collect::<Vec<_>>(), vec![10]);
    }
}
