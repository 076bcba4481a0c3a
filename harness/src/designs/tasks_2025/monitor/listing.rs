//! tasks/list, walked page by page through the cursors the receiver gives: every task the
//! requestor can retrieve is listed, a page cut short carries a `nextCursor`, and a hundred
//! tasks are not all put on one page.

use super::*;

/// Every task retrievable with tasks/get is listed (MUST).
pub(super) const CONTAINS: &str = "tasks.list.contains-retrievable";
/// A page carries `nextCursor` when more tasks are available (MUST).
pub(super) const NEXT_CURSOR: &str = "tasks.list.next-cursor";
/// Pages are limited (SHOULD).
pub(super) const PAGINATE: &str = "tasks.list.paginate";

/// A first page of this many tasks or more, without a `nextCursor`, does not limit them
/// (taskcheck's reading of "limit"; see tasks.list.paginate).
const PAGE_LIMIT: usize = 100;

/// One page of tasks/list, as it came.
#[derive(Debug, Clone)]
pub(super) struct Page {
    pub peer: String,
    pub asked: u64,
    pub answered: u64,
    /// The cursor sent (None: the first page).
    pub cursor: Option<String>,
    /// The tasks listed, with their status.
    pub tasks: Vec<(String, String)>,
    pub next: Option<String>,
}

/// A walk: a first page and the pages its cursors led to, to one without `nextCursor`.
struct Walk<'p> {
    pages: Vec<&'p Page>,
}

impl Walk<'_> {
    fn first(&self) -> &Page {
        self.pages[0]
    }

    fn last(&self) -> &Page {
        self.pages[self.pages.len() - 1]
    }

    fn listed(&self) -> BTreeSet<&str> {
        self.pages
            .iter()
            .flat_map(|p| p.tasks.iter().map(|(id, _)| id.as_str()))
            .collect()
    }
}

/// The complete walks among the pages of one requestor (a walk whose next page never came,
/// or was refused, is not complete).
fn walks(pages: &[Page]) -> Vec<Walk<'_>> {
    let mut out = Vec::new();
    let mut open: Option<Walk> = None;
    for p in pages {
        match (&p.cursor, open.take()) {
            (None, _) => open = Some(Walk { pages: vec![p] }),
            (Some(c), Some(mut w)) if w.last().next.as_ref() == Some(c) => {
                w.pages.push(p);
                open = Some(w);
            }
            (Some(_), w) => open = w,
        }
        if let Some(w) = open.take() {
            match w.last().next {
                None => out.push(w),
                Some(_) => open = Some(w),
            }
        }
    }
    out
}

impl Monitor<'_> {
    /// A page of tasks/list came.
    pub(super) fn page_listed(&mut self, asked: &Asked, answer: Result<&Value, &Value>, e: &Entry) {
        let Ok(result) = answer else { return };
        let tasks = result
            .get("tasks")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .filter_map(|t| {
                let id = t.get("taskId").map(wire::id_text)?;
                let status = t.get("status").and_then(Value::as_str).unwrap_or_default();
                Some((id, status.to_string()))
            })
            .collect();
        self.pages.push(Page {
            peer: peer_of(e).to_string(),
            asked: asked.seq,
            answered: e.seq,
            cursor: asked
                .params
                .get("cursor")
                .filter(|c| !c.is_null())
                .map(Value::to_string),
            tasks,
            next: result
                .get("nextCursor")
                .filter(|c| !c.is_null())
                .map(Value::to_string),
        });
    }

    /// The walks of tasks/list, judged once the session is over.
    pub(super) fn listing_judged(&mut self) {
        let mut peers: Vec<&str> = self.pages.iter().map(|p| p.peer.as_str()).collect();
        peers.sort();
        peers.dedup();
        let mut found = Vec::new();
        for peer in peers {
            let pages: Vec<Page> = self
                .pages
                .iter()
                .filter(|p| p.peer == peer)
                .cloned()
                .collect();
            let walks = walks(&pages);
            for w in &walks {
                found.extend(self.walk_judged(peer, w, &walks));
            }
        }
        self.findings.extend(found);
    }

    /// The tasks `peer` had been handed before `seq`: their ids and creation answers.
    fn created_before(&self, peer: &str, seq: u64) -> Vec<(&String, u64)> {
        let mut out: Vec<(&String, u64)> = self
            .book
            .tasks
            .iter()
            .filter_map(|(id, k)| {
                let o = k.origin.as_ref()?;
                (o.peer == peer && o.answered < seq).then_some((id, o.answered))
            })
            .collect();
        out.sort_by_key(|(_, seq)| *seq);
        out
    }

    /// A task's first tasks/get that found it after `seq`, with the status it showed.
    fn found_after(&self, id: &str, seq: u64) -> Option<(u64, TaskStatus)> {
        self.book.get(id)?.sightings.iter().find_map(|s| {
            (s.source == Source::Get && s.asked.is_some_and(|a| a > seq))
                .then_some((s.received, s.status))
        })
    }

    fn walk_judged(&self, peer: &str, w: &Walk, all: &[Walk]) -> Vec<Finding> {
        let mut out = Vec::new();
        let first = w.first();
        let before = self.created_before(peer, first.asked);
        let handed = self
            .creations
            .iter()
            .filter(|(p, seq)| p == peer && *seq < first.asked)
            .count();
        if handed >= PAGE_LIMIT {
            let held = first.tasks.len() < PAGE_LIMIT || first.next.is_some();
            out.push(find(
                PAGINATE,
                held,
                format!(
                    "with {handed} tasks created, the first page holds {} task(s) and {}",
                    first.tasks.len(),
                    if first.next.is_some() {
                        "a nextCursor"
                    } else {
                        "no nextCursor"
                    }
                ),
                vec![first.asked, first.answered],
            ));
        }
        if before.is_empty() {
            return out;
        }
        let end = w.last().answered;
        let listed = w.listed();
        // a task missing from a walk of several pages may have been skipped by pages that
        // shifted as tasks came and went: it counts only when a second such walk misses it
        let missing: Vec<(&String, u64, TaskStatus)> = before
            .iter()
            .filter(|(id, _)| !listed.contains(id.as_str()))
            .filter_map(|(id, _)| {
                let (seq, status) = self.found_after(id, end)?;
                let again = w.pages.len() == 1
                    || all.iter().any(|other| {
                        !std::ptr::eq(other, w)
                            && other.first().asked > first.asked
                            && other.last().answered < seq
                            && !other.listed().contains(id.as_str())
                    });
                again.then_some((*id, seq, status))
            })
            .collect();
        let on_first: BTreeSet<&str> = first.tasks.iter().map(|(id, _)| id.as_str()).collect();
        let left_out = before
            .iter()
            .filter(|(id, _)| !on_first.contains(id.as_str()))
            .count();
        let cut_short = first.next.is_none()
            && missing
                .iter()
                .any(|(_, _, s)| first.tasks.iter().any(|(_, t)| t == s.as_str()));
        let mut evidence: Vec<u64> = w.pages.iter().flat_map(|p| [p.asked, p.answered]).collect();
        evidence.extend(missing.iter().map(|(_, seq, _)| *seq));
        let next_held = left_out == 0 || first.next.is_some() || missing.is_empty();
        out.push(Finding {
            follows: (!next_held && !cut_short).then_some(CONTAINS),
            ..find(
                NEXT_CURSOR,
                next_held,
                match (left_out, first.next.is_some()) {
                    (0, _) => format!("the first page holds all {} task(s) created before it", before.len()),
                    (n, true) => format!("the first page leaves out {n} task(s) and has a nextCursor"),
                    (n, false) if missing.is_empty() => format!("the first page leaves out {n} task(s), none of them found since, and has no nextCursor"),
                    (n, false) => format!("the first page leaves out {n} of {} task(s) still retrievable, lists others of their status, and has no nextCursor", before.len()),
                },
                vec![first.asked, first.answered],
            )
        });
        let held = missing.is_empty();
        out.push(Finding {
            follows: (!held && cut_short).then_some(NEXT_CURSOR),
            ..find(
                CONTAINS,
                held,
                match held {
                    true => format!("every task created before the walk and found after it is listed ({} listed)", listed.len()),
                    false => format!(
                        "retrievable task(s) missing from tasks/list: {:?} ({} listed); tasks/get found each after the walk",
                        missing
                            .iter()
                            .map(|(id, _, s)| format!("{id} ({})", s.as_str()))
                            .collect::<Vec<_>>(),
                        listed.len()
                    ),
                },
                evidence,
            )
        });
        out
    }
}
