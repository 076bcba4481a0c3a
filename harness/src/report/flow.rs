//! A scenario's message flow for the HTML report: an inline SVG sequence diagram drawn from
//! the trace, and the statuses each task was seen in.

use crate::trace::{Direction, Entry};
use serde_json::Value;
use std::collections::BTreeSet;

/// Most messages drawn per scenario; the rest are counted.
const MAX_ROWS: usize = 300;
const ROW: usize = 22;
const TOP: usize = 50;

/// Escapes text for XML and HTML.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Escapes text for an element's content (a `<title>`, a table cell), where quotes need no
/// escape: a message's JSON stays about as long as it is.
pub(super) fn escape_content(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Fewest requests of one method in a row that are drawn folded.
const FOLD_AT: usize = 8;

/// A row of the diagram: a message, or a run of messages folded into a line (first and last
/// trace number, the method of its requests, how many of them).
enum Row<'e> {
    Message(&'e Entry),
    Folded(u64, u64, String, usize),
}

/// The rows to draw: a run of `FOLD_AT` or more requests of one method, with their answers
/// and the notifications between them, none of it evidence of a failure, keeps its first
/// four messages and its last two and folds the rest into one line (two hundred task
/// creations read as seven rows).
fn rows<'e>(messages: &[&'e Entry], bad: &BTreeSet<u64>) -> Vec<Row<'e>> {
    let method = |e: &Entry| {
        e.message
            .as_ref()
            .and_then(|m| m.get("method"))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let request = |e: &Entry| {
        let id = e.message.as_ref().and_then(|m| m.get("id")).is_some();
        (e.dir == Direction::Out && id && !bad.contains(&e.seq))
            .then(|| method(e))
            .flatten()
    };
    // within a run: its requests, any answer, any notification the receiver sent
    let belongs = |e: &Entry, m: &str| {
        !bad.contains(&e.seq)
            && match (e.dir, method(e)) {
                (Direction::Out, _) => request(e).as_deref() == Some(m),
                (Direction::In, Some(n)) => n.starts_with("notifications/"),
                (Direction::In, None) => true,
                _ => false,
            }
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < messages.len() {
        let Some(m) = request(messages[i]) else {
            out.push(Row::Message(messages[i]));
            i += 1;
            continue;
        };
        let end = (i..messages.len())
            .find(|&j| !belongs(messages[j], &m))
            .unwrap_or(messages.len());
        let run = &messages[i..end];
        let asked = |part: &[&Entry]| part.iter().filter(|e| e.dir == Direction::Out).count();
        if asked(run) < FOLD_AT || run.len() < 8 {
            out.extend(run.iter().map(|e| Row::Message(e)));
        } else {
            let middle = &run[4..run.len() - 2];
            out.extend(run[..4].iter().map(|e| Row::Message(e)));
            let (first, last) = (middle[0].seq, middle[middle.len() - 1].seq);
            out.push(Row::Folded(first, last, m, asked(middle)));
            out.extend(run[run.len() - 2..].iter().map(|e| Row::Message(e)));
        }
        i = end;
    }
    out
}

/// The Task objects a message carries (created, fetched, listed, cancelled, or notified by
/// the design's `status_notification`).
fn tasks_in<'m>(message: &'m Value, status_notification: &str) -> Vec<&'m Value> {
    let is_task = |v: &&Value| v.get("taskId").is_some() && v.get("status").is_some();
    let result = message.get("result");
    let mut out: Vec<&Value> = Vec::new();
    out.extend(result.and_then(|r| r.get("task")).filter(is_task));
    out.extend(result.filter(is_task));
    out.extend(
        result
            .and_then(|r| r.get("tasks"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(is_task),
    );
    if message.get("method").and_then(Value::as_str) == Some(status_notification) {
        out.extend(message.get("params").filter(is_task));
    }
    out
}

/// Every task of a trace with the statuses it was seen in, repeats folded, in first-seen order.
pub fn task_statuses(trace: &[Entry], status_notification: &str) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for e in trace.iter().filter(|e| e.dir == Direction::In) {
        for task in e
            .message
            .iter()
            .flat_map(|m| tasks_in(m, status_notification))
        {
            let id = crate::wire::id_text(&task["taskId"]);
            let status = task["status"].as_str().unwrap_or("?").to_string();
            match out.iter_mut().find(|(t, _)| *t == id) {
                Some((_, seen)) if seen.last() != Some(&status) => seen.push(status),
                Some(_) => {}
                None => out.push((id, vec![status])),
            }
        }
    }
    out
}

/// The arrow label of a message.
fn caption(message: &Value) -> String {
    let id = message
        .get("id")
        .map(|i| format!(" #{i}"))
        .unwrap_or_default();
    if let Some(m) = message.get("method").and_then(Value::as_str) {
        return format!("{m}{id}");
    }
    match message.get("error") {
        Some(e) => format!("error {}{id}", e.get("code").unwrap_or(&Value::Null)),
        None => format!("result{id}"),
    }
}

/// An SVG sequence diagram of the trace; messages in `bad` (evidence of failures) are red.
pub fn sequence_svg(trace: &[Entry], bad: &BTreeSet<u64>) -> String {
    let messages: Vec<&Entry> = trace.iter().filter(|e| e.message.is_some()).collect();
    let two_peers = messages.iter().any(|e| e.peer.is_some());
    let (a, b, receiver) = (if two_peers { 230 } else { 120 }, 90, 640);
    let rows = rows(&messages, bad);
    let drawn = rows.len().min(MAX_ROWS);
    let height = TOP + ROW * (drawn + 1) + 20;
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"flow\" width=\"760\" height=\"{height}\" viewBox=\"0 0 760 {height}\" role=\"img\">\
<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\"/></marker></defs>\n"
    );
    let mut lane = |x: usize, name: &str| {
        svg.push_str(&format!(
            "<text class=\"lane\" x=\"{x}\" y=\"20\" text-anchor=\"middle\">{name}</text><line class=\"life\" x1=\"{x}\" y1=\"28\" x2=\"{x}\" y2=\"{}\"/>\n",
            height - 10
        ));
    };
    lane(a, "taskcheck");
    if two_peers {
        lane(b, "taskcheck (b)");
    }
    lane(receiver, "receiver");
    for (row, drawn_row) in rows.iter().take(MAX_ROWS).enumerate() {
        let y = TOP + ROW * row;
        let e = match drawn_row {
            Row::Message(e) => e,
            Row::Folded(first, last, method, pairs) => {
                svg.push_str(&format!(
                    "<text x=\"380\" y=\"{y}\" text-anchor=\"middle\">… #{first}–#{last} folded: {pairs} more {}, their answers and the notifications between</text>\n",
                    escape(method)
                ));
                continue;
            }
        };
        let me = if e.peer.is_some() { b } else { a };
        let (from, to) = match e.dir {
            Direction::Out => (me, receiver),
            _ => (receiver, me),
        };
        let message = e.message.as_ref().expect("filtered on messages");
        let class = if bad.contains(&e.seq) {
            "msg bad"
        } else {
            "msg"
        };
        let (lx, anchor) = if from < to {
            (from + 8, "start")
        } else {
            (from - 8, "end")
        };
        svg.push_str(&format!(
            "<g class=\"{class}\"><title>#{} {} ms: {}</title><line x1=\"{from}\" y1=\"{}\" x2=\"{to}\" y2=\"{}\" marker-end=\"url(#arrow)\"/><text x=\"{lx}\" y=\"{}\" text-anchor=\"{anchor}\">#{} {}</text></g>\n",
            e.seq,
            e.t_ms,
            escape_content(&crate::trace::preview(&message.to_string(), 400)),
            y + 6,
            y + 6,
            y,
            e.seq,
            escape(&caption(message)),
        ));
    }
    if rows.len() > drawn {
        svg.push_str(&format!(
            "<text x=\"380\" y=\"{}\" text-anchor=\"middle\">… {} more row(s) in the trace</text>\n",
            TOP + ROW * drawn,
            rows.len() - drawn
        ));
    }
    svg.push_str("</svg>");
    svg
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(seq: u64, dir: Direction, message: Value) -> Entry {
        Entry::of(seq, dir, seq, message)
    }

    #[test]
    fn statuses_fold_repeats_and_keep_order() {
        let t = |s: &str| json!({"taskId": "a", "status": s});
        let trace = vec![
            entry(
                0,
                Direction::In,
                json!({"id": 1, "result": {"task": t("working")}}),
            ),
            entry(1, Direction::In, json!({"id": 2, "result": t("working")})),
            entry(
                2,
                Direction::In,
                json!({"method": "notifications/tasks/status", "params": t("input_required")}),
            ),
            entry(
                3,
                Direction::In,
                json!({"id": 3, "result": {"tasks": [t("completed")]}}),
            ),
        ];
        assert_eq!(
            task_statuses(&trace, "notifications/tasks/status"),
            vec![(
                "a".to_string(),
                vec![
                    "working".into(),
                    "input_required".into(),
                    "completed".into()
                ]
            )]
        );
    }

    #[test]
    fn a_long_run_of_one_request_is_folded_but_never_its_evidence() {
        // twenty task creations, a status notification between two of them
        let mut trace = Vec::new();
        for n in 0..20u64 {
            let call = json!({"id": n, "method": "tools/call", "params": {}});
            trace.push(entry(trace.len() as u64, Direction::Out, call));
            if n == 5 {
                let note = json!({"method": "notifications/tasks/status", "params": {}});
                trace.push(entry(trace.len() as u64, Direction::In, note));
            }
            let answer = json!({"id": n, "result": {}});
            trace.push(entry(trace.len() as u64, Direction::In, answer));
        }
        let svg = sequence_svg(&trace, &BTreeSet::new());
        assert!(svg.contains("… #4–#38 folded: 17 more tools/call"), "{svg}");
        assert_eq!(svg.matches("<g class=\"msg\">").count(), 6, "{svg}");
        // a message that is evidence of a failure is always drawn
        let svg = sequence_svg(&trace, &BTreeSet::from([21]));
        assert!(svg.contains("class=\"msg bad\""), "{svg}");
        assert!(svg.contains("#21 tools/call #10"), "{svg}");
        assert!(svg.contains("… #4–#18 folded: 7 more tools/call"), "{svg}");
    }

    #[test]
    fn the_diagram_marks_evidence_and_escapes_text() {
        let trace = vec![
            entry(
                0,
                Direction::Out,
                json!({"id": 1, "method": "tasks/get", "params": {"taskId": "<x>"}}),
            ),
            entry(
                1,
                Direction::In,
                json!({"id": 1, "error": {"code": -32602, "message": "no"}}),
            ),
        ];
        let svg = sequence_svg(&trace, &BTreeSet::from([1]));
        assert!(
            svg.contains("#0 tasks/get #1") && svg.contains("#1 error -32602 #1"),
            "{svg}"
        );
        assert!(
            svg.contains("class=\"msg bad\"") && svg.contains("&lt;x&gt;"),
            "{svg}"
        );
    }
}
