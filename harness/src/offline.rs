//! Offline checking (`taskcheck check TRACE.jsonl`): a recorded trace, in the JSON-lines form
//! `--trace` writes, judged by the same monitors and model as a live run. Rules that only a
//! scenario step judges (an expected answer) need the live run; the requestor rules are not
//! judged, since the recorded requestor need not be taskcheck. Each session says its profile:
//! one that opens with server/discover, or whose requests carry the per-request protocol
//! version of the extension's revision, is judged as the Tasks extension.

use crate::monitor;
use crate::profile::{ext_tasks, Profile};
use crate::report::RunReport;
use crate::runner::{roots, ScenarioRun};
use crate::scenario::Scenario;
use crate::schema::SchemaSet;
use crate::session::ServerInfo;
use crate::trace::{Direction, Entry};
use crate::wire::{self, Message, Outcome};
use serde_json::json;
use std::time::Duration;

/// Parses a JSON-lines trace; a line that is not a trace entry is an error naming it.
pub fn read_trace(text: &str, file: &str) -> Result<Vec<Entry>, String> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, line)| {
            serde_json::from_str::<Entry>(line)
                .map_err(|e| format!("{file}:{}:{}: not a trace entry: {e}", i + 1, e.column()))
        })
        .collect()
}

/// The profile a recorded session speaks.
fn profile_of(entries: &[Entry]) -> Profile {
    let modern = entries
        .iter()
        .any(|e| match e.message.as_ref().map(wire::classify) {
            Some(Ok(Message::Request { method, params, .. })) if e.dir == Direction::Out => {
                method == "server/discover"
                    || params
                        .get("_meta")
                        .and_then(|m| m.get(ext_tasks::META_VERSION))
                        .is_some_and(|v| v == ext_tasks::PROTOCOL_VERSION)
            }
            _ => false,
        });
    match modern {
        true => Profile::ExtTasks,
        false => Profile::Tasks2025,
    }
}

/// What the receiver declared in the first initialize (server/discover for the extension)
/// exchange of a session: in its result, or, for a client receiver, in its initialize request.
fn server_info(entries: &[Entry], profile: Profile) -> Option<ServerInfo> {
    let opener = match profile {
        Profile::Tasks2025 => "initialize",
        Profile::ExtTasks => "server/discover",
    };
    let client = entries
        .iter()
        .find_map(|e| match e.message.as_ref().map(wire::classify) {
            Some(Ok(Message::Request { method, params, .. }))
                if e.dir == Direction::In && method == "initialize" =>
            {
                Some(ServerInfo::from_client_request(&params))
            }
            _ => None,
        });
    if client.is_some() {
        return client;
    }
    let init_id =
        entries
            .iter()
            .find_map(|e| match (e.dir, e.message.as_ref().map(wire::classify)) {
                (Direction::Out, Some(Ok(Message::Request { id, method, .. })))
                    if method == opener =>
                {
                    Some(id)
                }
                _ => None,
            })?;
    entries
        .iter()
        .find_map(|e| match (e.dir, e.message.as_ref().map(wire::classify)) {
            (
                Direction::In,
                Some(Ok(Message::Response {
                    id,
                    outcome: Outcome::Result(r),
                })),
            ) if id == init_id => Some(match profile {
                Profile::Tasks2025 => ServerInfo::from_result(&r),
                Profile::ExtTasks => ext_tasks::discovered(&r),
            }),
            _ => None,
        })
}

/// Judges every session of a trace (entries grouped by their `scenario`, in first-seen order).
pub fn judge(
    entries: Vec<Entry>,
    official: Option<&SchemaSet>,
    library: &[Scenario],
    origin: &str,
) -> RunReport {
    let mut sessions: Vec<(String, Vec<Entry>)> = Vec::new();
    for e in entries {
        let name = e.scenario.clone().unwrap_or_else(|| "trace".into());
        match sessions.iter_mut().find(|(n, _)| *n == name) {
            Some((_, list)) => list.push(e),
            None => sessions.push((name, vec![e])),
        }
    }
    let transport = sessions
        .first()
        .and_then(|(_, es)| es.first())
        .map(|e| e.transport.clone())
        .unwrap_or_else(|| "stdio".into());
    let profile = sessions
        .first()
        .map(|(_, es)| profile_of(es))
        .unwrap_or_default();
    let scenarios = sessions
        .into_iter()
        .map(|(id, trace)| {
            let profile = profile_of(&trace);
            let server = server_info(&trace, profile);
            let capabilities = server
                .as_ref()
                .map(|s| s.capabilities.clone())
                .unwrap_or(json!({}));
            let known = library.iter().find(|s| s.id == id);
            let breaks = known.map(|s| s.breaks.clone()).unwrap_or_default();
            let judgement = profile.judge(
                &trace,
                &monitor::Context {
                    capabilities: &capabilities,
                    official,
                    breaks: &breaks,
                    authorization: false,
                },
            );
            // what the monitors' own relations explain is shown as consequences, as live
            let checks = roots::attribute(
                &id,
                &Default::default(),
                &Default::default(),
                judgement.checks,
                &roots::Facts {
                    because: &judgement.because,
                    vanished: &judgement.vanished,
                    sent_by: &Default::default(),
                    trace: &trace,
                },
            );
            ScenarioRun {
                title: known
                    .map(|s| format!("{} (recorded)", s.title))
                    .unwrap_or_else(|| "a recorded session".into()),
                id,
                checks,
                error: None,
                server,
                duration: Duration::from_millis(trace.last().map(|e| e.t_ms).unwrap_or(0)),
                trace,
            }
        })
        .collect();
    RunReport {
        profile,
        receiver: origin.to_string(),
        transport,
        started: String::new(),
        duration: Duration::ZERO,
        scenarios,
        cpu: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_lines_are_named() {
        let good = r#"{"seq":0,"dir":"out","transport":"stdio","t_ms":0,"message":{"jsonrpc":"2.0","id":0,"method":"ping"}}"#;
        assert_eq!(
            read_trace(&format!("{good}\n\n{good}\n"), "t.jsonl")
                .unwrap()
                .len(),
            2
        );
        let e = read_trace(&format!("{good}\n{{\"seq\": \"x\"}}\n"), "t.jsonl").unwrap_err();
        assert!(e.starts_with("t.jsonl:2:"), "{e}");
    }

    #[test]
    fn sessions_are_judged_with_their_capabilities() {
        let lines = [
            r#"{"scenario":"s","seq":0,"dir":"out","transport":"stdio","t_ms":0,"message":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}}"#,
            r#"{"scenario":"s","seq":1,"dir":"in","transport":"stdio","t_ms":1,"message":{"jsonrpc":"2.0","id":0,"result":{"capabilities":{}}}}"#,
            r#"{"scenario":"s","seq":2,"dir":"out","transport":"stdio","t_ms":2,"message":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","task":{}}}}"#,
            r#"{"scenario":"s","seq":3,"dir":"in","transport":"stdio","t_ms":3,"message":{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"a","status":"working","createdAt":"2025-11-25T10:00:00Z","lastUpdatedAt":"2025-11-25T10:00:00Z","ttl":1}}}}"#,
        ];
        let entries = read_trace(&lines.join("\n"), "t").unwrap();
        let report = judge(entries, None, &[], "t");
        let declare = report.scenarios[0]
            .checks
            .iter()
            .find(|c| c.rule == "tasks.capability.declare")
            .unwrap();
        assert_eq!(
            declare.verdict,
            crate::verdict::Verdict::Fail,
            "created a task it never declared"
        );
    }
}
