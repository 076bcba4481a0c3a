//! Early expiry: a task reported not found before its ttl can have elapsed.
//!
//! Judged on taskcheck's clock only. The task was created after taskcheck sent the creating
//! request, so its ttl cannot have elapsed before `sent + ttl`; an answer received before
//! that moment was given before the ttl elapsed, whatever the receiver's clock says.

use crate::model::Finding;
use std::collections::HashMap;

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
}

/// Tracks every task created in a session.
#[derive(Default)]
pub struct Expiry {
    tasks: HashMap<String, Known>,
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

    /// The task was cancelled, or a cancellation was asked: it may vanish at any time.
    pub fn exempt(&mut self, id: &str) {
        if let Some(k) = self.tasks.get_mut(id) {
            k.exempt = true;
        }
    }

    /// tasks/get of `id` by requestor `asker` was answered at `answered_ms`: `found` or not (-32602).
    pub fn lookup(
        &self,
        id: &str,
        asker: &str,
        found: bool,
        answered_ms: u64,
        evidence: Vec<u64>,
    ) -> Option<Finding> {
        let k = self
            .tasks
            .get(id)
            .filter(|k| !k.exempt && k.ttl_seen && k.owner == asker)?;
        let earliest_expiry = k.ttl_ms.map(|t| k.created_sent_ms.saturating_add(t));
        // t_ms are whole milliseconds: keep one of margin so rounding never accuses
        let before_expiry = earliest_expiry.is_none_or(|e| answered_ms + 1 < e);
        if !before_expiry {
            return None;
        }
        let ttl = k
            .ttl_ms
            .map(|t| format!("{t} ms"))
            .unwrap_or_else(|| "unlimited".into());
        Some(Finding {
            rule: RULE,
            held: found,
            message: if found {
                format!("task {id:?} retrievable within its ttl ({ttl})")
            } else {
                format!(
                    "task {id:?} was reported not found {} ms after it was requested, before its ttl of {ttl} could elapse",
                    answered_ms.saturating_sub(k.created_sent_ms)
                )
            },
            evidence,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_answers_before_the_earliest_expiry_are_judged() {
        let mut e = Expiry::default();
        e.created("a", "a", 100);
        assert!(
            e.lookup("a", "a", false, 150, vec![]).is_none(),
            "no ttl seen yet"
        );
        e.ttl_reported("a", Some(1000));
        e.ttl_reported("a", Some(5000));
        assert!(!e.lookup("a", "a", false, 900, vec![]).unwrap().held);
        assert!(e.lookup("a", "a", true, 900, vec![]).unwrap().held);
        assert!(
            e.lookup("a", "b", false, 900, vec![]).is_none(),
            "not b's task"
        );
        assert!(
            e.lookup("a", "a", false, 1100, vec![]).is_none(),
            "ttl elapsed"
        );
        e.exempt("a");
        assert!(
            e.lookup("a", "a", false, 900, vec![]).is_none(),
            "cancelled"
        );
        e.created("b", "a", 0);
        e.ttl_reported("b", None);
        assert!(
            !e.lookup("b", "a", false, 1_000_000, vec![]).unwrap().held,
            "unlimited"
        );
        assert!(
            e.lookup("zzz", "a", false, 1, vec![]).is_none(),
            "unknown task"
        );
    }
}
