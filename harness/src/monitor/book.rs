//! What a session showed of each task: the request that created it, every status an answer
//! or notification reported and when, and what its `tasks/result` answered. The rules that
//! hold an answer against what came before or after it read it here, once the session is
//! over.
//!
//! Orderings are causal, as in the model: an observation is known before a request when it
//! was received before the request was sent, and is after an answer when it answers a request
//! sent after that answer arrived.

use crate::model::{Source, TaskStatus};
use serde_json::Value;
use std::collections::HashMap;

/// One status a message reported.
#[derive(Debug, Clone, Copy)]
pub struct Sighting {
    pub status: TaskStatus,
    /// Which message carried it.
    pub source: Source,
    /// The request it answers (None: a notification, whose place in time is not causal).
    pub asked: Option<u64>,
    pub received: u64,
    pub t_ms: u64,
}

/// The request that created a task.
#[derive(Debug, Clone)]
pub struct Origin {
    /// The requestor it was created for.
    pub peer: String,
    /// What it asked, `task` and `_meta` aside (the key of the same request made plainly).
    pub plain: (String, String),
    /// Its CreateTaskResult.
    pub answered: u64,
}

/// One `tasks/result` of a task and its answer.
#[derive(Debug, Clone)]
pub struct Fetched {
    pub asked: u64,
    pub asked_ms: u64,
    /// The rule a failure of it follows from, where its request broke one (it named another
    /// task than its own, say).
    pub follows: Option<&'static str>,
    /// The answer: a result, or an error object; None while none came.
    pub answer: Option<(Result<Value, Value>, u64, u64)>,
}

/// Everything seen of one task.
#[derive(Debug, Default)]
pub struct Known {
    pub origin: Option<Origin>,
    pub sightings: Vec<Sighting>,
    pub fetched: Vec<Fetched>,
}

impl Known {
    /// The last status received before trace number `seq`.
    pub fn before(&self, seq: u64) -> Option<&Sighting> {
        self.sightings.iter().rev().find(|s| s.received < seq)
    }

    /// Whether a terminal status was received before trace number `seq`.
    pub fn terminal_before(&self, seq: u64) -> Option<&Sighting> {
        self.sightings
            .iter()
            .find(|s| s.received < seq && s.status.is_terminal())
    }

    /// The first status reported in answer to a request sent after trace number `seq`.
    pub fn first_after(&self, seq: u64) -> Option<&Sighting> {
        self.sightings
            .iter()
            .find(|s| s.asked.is_some_and(|a| a > seq))
    }

    /// The first terminal status seen at all.
    pub fn terminal(&self) -> Option<&Sighting> {
        self.sightings.iter().find(|s| s.status.is_terminal())
    }
}

/// The session's tasks, by id.
#[derive(Debug, Default)]
pub struct Book {
    pub tasks: HashMap<String, Known>,
}

impl Book {
    /// The task `id` (an empty record the first time).
    pub fn task(&mut self, id: &str) -> &mut Known {
        if !self.tasks.contains_key(id) {
            self.tasks.insert(id.to_string(), Known::default());
        }
        self.tasks.get_mut(id).expect("inserted above")
    }

    /// A message reported task `id` in `status`.
    pub fn saw(&mut self, id: &str, sighting: Sighting) {
        self.task(id).sightings.push(sighting);
    }

    /// What is known of task `id`, if anything.
    pub fn get(&self, id: &str) -> Option<&Known> {
        self.tasks.get(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(status: TaskStatus, asked: Option<u64>, received: u64) -> Sighting {
        Sighting {
            status,
            source: match asked {
                Some(_) => Source::Get,
                None => Source::StatusNotification,
            },
            asked,
            received,
            t_ms: received,
        }
    }

    #[test]
    fn before_and_after_are_causal() {
        let mut book = Book::default();
        book.saw("a", seen(TaskStatus::Working, Some(1), 2));
        book.saw("a", seen(TaskStatus::Completed, None, 5));
        book.saw("a", seen(TaskStatus::Completed, Some(7), 8));
        let a = book.get("a").unwrap();
        assert_eq!(a.before(5).unwrap().status, TaskStatus::Working);
        assert_eq!(a.before(6).unwrap().status, TaskStatus::Completed);
        assert!(a.terminal_before(5).is_none());
        assert_eq!(a.terminal_before(6).unwrap().received, 5);
        // the notification at 5 answers no request: only the answer to 7 is after 6
        assert_eq!(a.first_after(4).unwrap().received, 8);
        assert!(a.first_after(7).is_none());
    }
}
