//! The conversations `watch`'s HTTP proxy records: one per session (`Mcp-Session-Id`), and for
//! traffic without sessions one per client, a client being the connections its tasks link (a
//! task created on one connection and polled on another is one client's).

use crate::trace::{Direction, Entry, Trace};
use serde_json::Value;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::net::SocketAddr;

/// What a recorded conversation belongs to.
#[derive(Clone, PartialEq, Eq, Hash)]
enum Key {
    Session(String),
    /// One TCP connection's traffic without a session.
    Connection(SocketAddr),
}

/// The conversations recorded, in the order they began, and the sessions a client ended.
#[derive(Default)]
pub struct Conversations {
    traces: Vec<(Key, Trace)>,
    /// Each conversation's place in `traces`.
    index: HashMap<Key, usize>,
    ended: HashSet<String>,
}

impl Conversations {
    fn of(&mut self, key: Key) -> Trace {
        if let Some(&i) = self.index.get(&key) {
            return self.traces[i].1.clone();
        }
        self.begin(key, Trace::new("http"))
    }

    fn begin(&mut self, key: Key, trace: Trace) -> Trace {
        self.index.insert(key.clone(), self.traces.len());
        self.traces.push((key, trace.clone()));
        trace
    }

    /// Where a request is recorded as it is sent, before its answer: its session's trace, or
    /// (a request without a session, which may open one) a trace of its own that
    /// [`Conversations::settle`] files once the answer says which it was.
    pub fn for_request(&mut self, session: Option<&str>) -> (Trace, bool) {
        match session {
            Some(id) => (self.of(Key::Session(id.to_string())), false),
            None => (Trace::new("http"), true),
        }
    }

    /// Files a trace of its own under the session its answer opened, or else with the traffic
    /// of its connection (`peer`); the trace to record the answer in.
    pub fn settle(&mut self, own: Trace, opened: Option<&str>, peer: SocketAddr) -> Trace {
        let key = match opened {
            Some(id) => Key::Session(id.to_string()),
            None => Key::Connection(peer),
        };
        match self.index.get(&key) {
            // what was recorded joins the conversation, the request before its answer
            Some(&i) => {
                let existing = &self.traces[i].1;
                existing.take_in(&own);
                existing.clone()
            }
            None => self.begin(key, own),
        }
    }

    /// Notes that the client ended a session (its DELETE was answered).
    pub fn end(&mut self, session: &str) {
        self.ended.insert(session.to_string());
    }

    /// How many sessions their client ended.
    pub fn ended(&self) -> usize {
        self.ended.len()
    }

    /// Every message, each tagged with its conversation: sessions `session-1`, ... and the
    /// clients of traffic without sessions `client-1`, ..., in the order they began (what the
    /// server names is its own, and differs from run to run). A conversation its client did
    /// not end gets `note` last, where there is one. Also how many conversations there are.
    pub fn finish(self, note: Option<&str>) -> (Vec<Entry>, usize) {
        let mut named: Vec<(String, Trace)> = Vec::new();
        let mut connections: Vec<Trace> = Vec::new();
        for (key, trace) in self.traces {
            match key {
                Key::Session(id) => {
                    if let (Some(note), false) = (note, self.ended.contains(&id)) {
                        trace.record(Direction::Out, None, Some(note));
                    }
                    named.push((format!("session-{}", named.len() + 1), trace));
                }
                Key::Connection(_) => connections.push(trace),
            }
        }
        let groups = clients(&connections);
        // traffic told apart only where each client has the opening its conversation rests on
        let (groups, label) =
            match groups.len() > 1 && groups.iter().all(|g| opens(g, &connections)) {
                true => (groups, "client"),
                false => (vec![(0..connections.len()).collect()], "stateless"),
            };
        let one = groups.len() == 1;
        for (i, client) in groups.into_iter().filter(|g| !g.is_empty()).enumerate() {
            let parts: Vec<Trace> = client.iter().map(|&c| connections[c].clone()).collect();
            let trace = Trace::merged(&parts);
            if let Some(note) = note {
                trace.record(Direction::Out, None, Some(note));
            }
            let name = match one {
                true => label.to_string(),
                false => format!("{label}-{}", i + 1),
            };
            named.push((name, trace));
        }
        let count = named.len();
        let entries = named
            .into_iter()
            .flat_map(|(name, trace)| {
                trace.take_entries().into_iter().map(move |e| Entry {
                    scenario: Some(name.clone()),
                    ..e
                })
            })
            .collect();
        (entries, count)
    }
}

/// Whether a client's connections hold the request the traffic opened with (the method of the
/// first connection's first request: what a server declared is read from its answer).
fn opens(client: &BTreeSet<usize>, connections: &[Trace]) -> bool {
    let first_method = |t: &Trace| {
        t.with_entries(|entries| {
            entries.iter().find_map(|e| {
                let m = e.message.as_ref()?;
                m.get("id")?;
                Some(m.get("method")?.as_str()?.to_string())
            })
        })
    };
    let Some(opening) = connections.first().and_then(first_method) else {
        return false;
    };
    client.iter().any(|&c| {
        connections[c].with_entries(|entries| {
            entries.iter().any(|e| {
                e.dir == Direction::Out
                    && e.message.as_ref().and_then(|m| m.get("method"))
                        == Some(&Value::from(opening.as_str()))
            })
        })
    })
}

/// The connections of each client, in the order clients began: connections whose messages
/// name a task in common are one client's, and a connection that names no task (an opening
/// request alone) is the client's whose tasks come next.
fn clients(connections: &[Trace]) -> Vec<BTreeSet<usize>> {
    let mut owner: HashMap<String, usize> = HashMap::new();
    // each connection's client, as the first connection of it (union-find, flattened)
    let mut root: Vec<usize> = (0..connections.len()).collect();
    fn find(root: &mut [usize], mut c: usize) -> usize {
        while root[c] != c {
            root[c] = root[root[c]];
            c = root[c];
        }
        c
    }
    let ids: Vec<HashSet<String>> = connections.iter().map(task_ids).collect();
    for (c, tasks) in ids.iter().enumerate() {
        for task in tasks.iter().cloned() {
            let first = *owner.entry(task).or_insert(c);
            let (a, b) = (find(&mut root, first), find(&mut root, c));
            root[a.max(b)] = a.min(b);
        }
    }
    // a connection without tasks joins the next connection that has some
    let has_tasks: Vec<bool> = ids.iter().map(|t| !t.is_empty()).collect();
    for c in 0..connections.len() {
        if let (false, Some(next)) = (
            has_tasks[c],
            (c + 1..connections.len()).find(|&n| has_tasks[n]),
        ) {
            let (a, b) = (find(&mut root, c), find(&mut root, next));
            root[a.max(b)] = a.min(b);
        }
    }
    let mut groups: Vec<BTreeSet<usize>> = Vec::new();
    let mut at: HashMap<usize, usize> = HashMap::new();
    for c in 0..connections.len() {
        let r = find(&mut root, c);
        let g = *at.entry(r).or_insert_with(|| {
            groups.push(BTreeSet::new());
            groups.len() - 1
        });
        groups[g].insert(c);
    }
    groups
}

/// Every task id a trace's messages name (`taskId` anywhere in them).
fn task_ids(trace: &Trace) -> HashSet<String> {
    fn walk(v: &Value, out: &mut HashSet<String>) {
        match v {
            Value::Object(map) => {
                for (k, v) in map {
                    match (k.as_str(), v) {
                        ("taskId", Value::String(id)) => {
                            out.insert(id.clone());
                        }
                        _ => walk(v, out),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|v| walk(v, out)),
            _ => {}
        }
    }
    let mut out = HashSet::new();
    trace.with_entries(|entries| {
        for m in entries.iter().filter_map(|e| e.message.as_ref()) {
            walk(m, &mut out);
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn connection(messages: &[Value]) -> Trace {
        let t = Trace::new("http");
        for m in messages {
            t.record(Direction::Out, Some(m.clone()), None);
        }
        t
    }

    #[test]
    fn connections_that_share_a_task_are_one_client_and_others_their_own() {
        let a = connection(&[json!({"id": 1, "result": {"taskId": "t1"}})]);
        let b = connection(&[json!({"id": 2, "method": "tasks/get", "params": {"taskId": "t2"}})]);
        let c = connection(&[json!({"id": 3, "method": "tasks/get", "params": {"taskId": "t1"}})]);
        let d = connection(&[json!({"id": 4, "method": "server/discover"})]);
        let e = connection(&[json!({"id": 5, "method": "tasks/get", "params": {"taskId": "t3"}})]);
        // d names no task: it is the client's whose tasks come next, e's
        let groups = clients(&[a, b, c, d, e]);
        let expected: Vec<BTreeSet<usize>> = vec![
            BTreeSet::from([0, 2]),
            BTreeSet::from([1]),
            BTreeSet::from([3, 4]),
        ];
        assert_eq!(groups, expected);
    }

    #[test]
    fn traffic_is_told_apart_only_where_every_client_has_the_opening() {
        let opened = |task: &str| {
            connection(&[
                json!({"id": 1, "method": "server/discover"}),
                json!({"id": 2, "method": "tasks/get", "params": {"taskId": task}}),
            ])
        };
        let (a, b) = (opened("t1"), opened("t2"));
        assert!(opens(&BTreeSet::from([0]), &[a.clone(), b.clone()]));
        assert!(opens(&BTreeSet::from([1]), &[a.clone(), b]));
        // a client whose calls came without the opening: no split
        let bare =
            connection(&[json!({"id": 3, "method": "tasks/get", "params": {"taskId": "t9"}})]);
        assert!(!opens(&BTreeSet::from([1]), &[a, bare]));
    }
}
