//! The reference receiver's task store: records, ttl expiry, and list pagination.

use crate::model::TaskStatus;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;
use time::OffsetDateTime;
use tokio::sync::{watch, Notify};

/// Longest ttl granted, in ms (documented: 1 hour); requests above are capped.
pub const MAX_TTL_MS: u64 = 3_600_000;
/// ttl granted when none is requested, in ms.
pub const DEFAULT_TTL_MS: u64 = 300_000;
/// Suggested pollInterval, in ms.
pub const POLL_INTERVAL_MS: u64 = 50;
/// Tasks per tasks/list page (small, so pagination is exercised).
pub const PAGE_SIZE: usize = 5;

/// How the store grants ttls, deletes tasks and pages lists (faults and legal variants
/// change it).
#[derive(Debug, Clone, Copy)]
pub struct Policy {
    /// Tasks are deleted after ttl / this (1: at their ttl; more under the early-expiry fault).
    pub ttl_divisor: i64,
    /// Longest ttl granted, in ms.
    pub max_ttl_ms: u64,
    /// When the granted ttl is unlimited (`null`).
    pub unlimited: Unlimited,
    /// Tasks per tasks/list page.
    pub page_size: usize,
}

/// When a task's ttl is unlimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unlimited {
    Never,
    /// When the request asks for none.
    WhenNoneAsked,
    Always,
}

impl Default for Policy {
    fn default() -> Policy {
        Policy {
            ttl_divisor: 1,
            max_ttl_ms: MAX_TTL_MS,
            unlimited: Unlimited::Never,
            page_size: PAGE_SIZE,
        }
    }
}

/// How a task's underlying request ended.
#[derive(Debug, Clone)]
pub enum TaskOutcome {
    Result(Value),
    Error(Value),
}

/// One task.
pub struct TaskRecord {
    pub id: String,
    pub status: TaskStatus,
    pub status_message: Option<String>,
    pub created: OffsetDateTime,
    pub updated: OffsetDateTime,
    /// The granted ttl; None: unlimited.
    pub ttl_ms: Option<u64>,
    pub outcome: Option<TaskOutcome>,
    /// Becomes true when the task is terminal.
    pub done: watch::Sender<bool>,
    /// Signalled when the task is cancelled, to stop its work.
    pub cancel: Arc<Notify>,
    /// How many times the task has been reported (drives some faults).
    pub reports: u32,
    /// tasks/get calls answered while terminal (drives a fault).
    pub terminal_gets: u32,
    /// tasks/result answers given (drives a fault).
    pub results_served: u32,
    /// 1 for the session's first task, 2 for the second, ... (drives a fault).
    pub ordinal: u64,
    /// tasks/result requests waiting for the task now, and whether two ever waited at once.
    pub results_waiting: u32,
    pub results_overlapped: bool,
}

/// Every task, in creation order.
pub struct Store {
    tasks: HashMap<String, TaskRecord>,
    order: Vec<String>,
    cursors: HashMap<String, usize>,
    created: u64,
    policy: Policy,
}

impl Store {
    /// An empty store keeping to `policy`.
    pub fn new(policy: Policy) -> Store {
        Store {
            tasks: HashMap::new(),
            order: Vec::new(),
            cursors: HashMap::new(),
            created: 0,
            policy: Policy {
                ttl_divisor: policy.ttl_divisor.max(1),
                page_size: policy.page_size.max(1),
                ..policy
            },
        }
    }

    fn expired(&self, t: &TaskRecord, now: OffsetDateTime) -> bool {
        t.ttl_ms.is_some_and(|ttl| {
            now - t.created > time::Duration::milliseconds(ttl as i64 / self.policy.ttl_divisor)
        })
    }

    /// Creates a task in `working` with a granted ttl; returns its record.
    pub fn create(&mut self, id: String, requested_ttl: Option<u64>) -> &mut TaskRecord {
        let now = OffsetDateTime::now_utc();
        self.created += 1;
        let ttl_ms = match (self.policy.unlimited, requested_ttl) {
            (Unlimited::Always, _) | (Unlimited::WhenNoneAsked, None) => None,
            (_, asked) => Some(asked.unwrap_or(DEFAULT_TTL_MS).min(self.policy.max_ttl_ms)),
        };
        self.order.retain(|o| o != &id);
        self.order.push(id.clone());
        let record = TaskRecord {
            id: id.clone(),
            status: TaskStatus::Working,
            status_message: None,
            created: now,
            updated: now,
            ttl_ms,
            outcome: None,
            done: watch::channel(false).0,
            cancel: Arc::new(Notify::new()),
            reports: 0,
            terminal_gets: 0,
            results_served: 0,
            ordinal: self.created,
            results_waiting: 0,
            results_overlapped: false,
        };
        self.tasks.insert(id.clone(), record);
        self.tasks.get_mut(&id).expect("just inserted")
    }

    /// How many tasks have not finished (expired ones included until they are looked up).
    pub fn unfinished(&self) -> usize {
        self.tasks
            .values()
            .filter(|t| !t.status.is_terminal())
            .count()
    }

    /// How many tasks were ever created.
    pub fn created_count(&self) -> u64 {
        self.created
    }

    /// The id of the newest task, if any.
    pub fn newest(&self) -> Option<&String> {
        self.order.last()
    }

    /// Deletes a task now.
    pub fn remove(&mut self, id: &str) {
        self.tasks.remove(id);
        self.order.retain(|o| o != id);
    }

    /// A live task; expired tasks are deleted on the way.
    pub fn get(&mut self, id: &str) -> Option<&mut TaskRecord> {
        let now = OffsetDateTime::now_utc();
        if self.tasks.get(id).is_some_and(|t| self.expired(t, now)) {
            self.remove(id);
        }
        self.tasks.get_mut(id)
    }

    /// Moves a task along a valid transition (any, when forced); returns whether it moved.
    pub fn transition(
        &mut self,
        id: &str,
        status: TaskStatus,
        message: Option<String>,
        force: bool,
    ) -> bool {
        let Some(t) = self.tasks.get_mut(id) else {
            return false;
        };
        if !(force || t.status.may_become(status)) {
            return false;
        }
        t.status = status;
        t.status_message = message;
        t.updated = OffsetDateTime::now_utc();
        if status.is_terminal() {
            t.done.send_replace(true);
        }
        true
    }

    /// One page of task ids from a cursor; None for an unknown cursor.
    pub fn page(&mut self, cursor: Option<&str>) -> Option<(Vec<String>, Option<String>)> {
        let start = match cursor {
            None => 0,
            Some(c) => *self.cursors.get(c)?,
        };
        let now = OffsetDateTime::now_utc();
        let live: Vec<String> = self
            .order
            .iter()
            .filter(|id| self.tasks.get(*id).is_some_and(|t| !self.expired(t, now)))
            .cloned()
            .collect();
        let size = self.policy.page_size;
        let page: Vec<String> = live.iter().skip(start).take(size).cloned().collect();
        let next = (start + size < live.len()).then(|| {
            let token = uuid::Uuid::new_v4().simple().to_string();
            self.cursors.insert(token.clone(), start + size);
            token
        });
        Some((page, next))
    }

    /// Every live task, in creation order.
    pub fn all_ids(&mut self) -> Vec<String> {
        let now = OffsetDateTime::now_utc();
        self.order
            .iter()
            .filter(|id| self.tasks.get(*id).is_some_and(|t| !self.expired(t, now)))
            .cloned()
            .collect()
    }

    /// Every live task that has not finished, in creation order.
    pub fn unfinished_ids(&mut self) -> Vec<String> {
        let now = OffsetDateTime::now_utc();
        self.order
            .iter()
            .filter(|id| {
                self.tasks
                    .get(*id)
                    .is_some_and(|t| !self.expired(t, now) && !t.status.is_terminal())
            })
            .cloned()
            .collect()
    }
}
