//! Leaving a shared receiver as a scenario found it: the tasks the scenario made and last saw
//! unfinished are cancelled when it ends, so that a run's own backlog never keeps a server's
//! workers busy into later scenarios' timeouts. What this sends is no part of the scenario:
//! it comes after the trace the scenario is judged by.

use crate::design::Wire;
use crate::model::TaskStatus;
use crate::session::Session;
use crate::trace::{Direction, Entry};
use futures::StreamExt;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::time::Duration;

/// How many cancellations are in flight at once.
const AT_ONCE: usize = 8;

/// The ids of the tasks a conversation made (a result holding a task where the wire says a
/// created one is) whose last status it saw (there, or in any result that is a task) was not
/// terminal, in the order they were made.
pub fn unfinished(trace: &[Entry], wire: &Wire) -> Vec<Value> {
    let mut last: BTreeMap<String, (usize, Value, bool)> = BTreeMap::new();
    let results = trace
        .iter()
        .filter(|e| e.dir == Direction::In)
        .filter_map(|e| e.message.as_ref()?.get("result"));
    for result in results {
        let made = result
            .pointer(wire.created_task)
            .filter(|_| !wire.created_task.is_empty());
        for (task, creates) in [(made, true), (Some(result), false)] {
            let Some(task) = task else { continue };
            let (Some(id), Some(status)) = (task.get("taskId"), task.get("status")) else {
                continue;
            };
            let open = status
                .as_str()
                .and_then(TaskStatus::parse)
                .is_some_and(|s| !s.is_terminal());
            let order = last.len();
            match last.get_mut(&id.to_string()) {
                Some(seen) => seen.2 = open,
                None if creates || wire.created_task.is_empty() => {
                    last.insert(id.to_string(), (order, id.clone(), open));
                }
                None => {}
            }
        }
    }
    let mut open: Vec<(usize, Value)> = last
        .into_values()
        .filter(|(_, _, open)| *open)
        .map(|(order, id, _)| (order, id))
        .collect();
    open.sort_by_key(|(order, _)| *order);
    open.into_iter().map(|(_, id)| id).collect()
}

/// Cancels the tasks of [`unfinished`], where the receiver declared it serves the wire's
/// cancellation, within `wait` in all; answers are not judged, and none is waited for past it.
pub async fn cancel_unfinished(
    session: &Session,
    trace: &[Entry],
    wire: &Wire,
    capabilities: &Value,
    wait: Duration,
) {
    let Some((cancel, capability)) = wire.cancel else {
        return;
    };
    if !crate::monitor::has_capability(capabilities, capability) {
        return;
    }
    let ids = unfinished(trace, wire);
    let all = futures::stream::iter(ids)
        .map(|id| session.request(cancel, json!({"taskId": id}), wait))
        .buffer_unordered(AT_ONCE)
        .for_each(|_| async {});
    let _ = tokio::time::timeout(wait, all).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(dir: Direction, message: Value) -> Entry {
        Entry::of(0, dir, 0, message)
    }

    fn result(result: Value) -> Entry {
        entry(
            Direction::In,
            json!({"jsonrpc": "2.0", "id": 1, "result": result}),
        )
    }

    #[test]
    fn the_tasks_last_seen_unfinished_are_the_ones_left_to_cancel() {
        let wire = crate::designs::Profile::default().wire();
        let trace = [
            result(json!({"task": {"taskId": "a", "status": "working"}})),
            result(json!({"task": {"taskId": "b", "status": "working"}})),
            result(json!({"task": {"taskId": "c", "status": "working"}})),
            result(json!({"taskId": "b", "status": "completed"})),
            result(json!({"taskId": "c", "status": "input_required"})),
            // a task this conversation did not make is not its to cancel
            result(json!({"taskId": "z", "status": "working"})),
            entry(
                Direction::Out,
                json!({"jsonrpc": "2.0", "id": 2, "result": {"taskId": "a", "status": "completed"}}),
            ),
        ];
        assert_eq!(unfinished(&trace, wire), [json!("a"), json!("c")]);
    }
}
