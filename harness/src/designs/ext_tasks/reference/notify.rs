//! What the extension's reference tells a client about a task: its detailed Task, and the
//! notifications on a subscriptions/listen stream.

use super::*;

impl ExtReference {
    /// Opens a notification stream writing to `out`: the acknowledgement first, then a
    /// notifications/tasks for each change of a task it watches.
    pub fn listen(&self, id: Value, params: &Value, out: mpsc::UnboundedSender<Value>) {
        // task notifications go only to a client that declares the extension
        let agreed =
            !self.is(Variant::NoTaskNotifications) && declares(request_capabilities(params));
        let watched: Vec<String> = params["notifications"]["taskIds"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t.as_str().map(str::to_string))
            .collect();
        let tag = json!({super::super::META_SUBSCRIPTION: id});
        let current = |id: &str| {
            let tasks = self.lock();
            tasks
                .get(id)
                .map(|t| self.detail(id, t, View::Notification))
        };
        if self.has(Fault::NotifyBeforeAck) {
            for t in watched.iter().filter_map(|t| current(t)) {
                send_tagged(&out, "notifications/tasks", t, &tag);
            }
        }
        let acknowledged = match agreed {
            true => json!({"notifications": {"taskIds": watched}}),
            false => json!({"notifications": {}}),
        };
        send_tagged(
            &out,
            "notifications/subscriptions/acknowledged",
            acknowledged,
            &tag,
        );
        // the stream stays open until the client leaves, watching what was agreed to
        let watched = if agreed { watched } else { Vec::new() };
        if self.has(Fault::ProgressOnStream) {
            send_tagged(
                &out,
                "notifications/message",
                json!({"level": "info", "data": "listening"}),
                &tag,
            );
        }
        self.listening
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(Listener { id, watched, out });
    }

    /// Tells the streams watching a task that it changed.
    pub(super) fn announce(&self, task_id: &str, task: &Task) {
        let mut listening = self.listening.lock().unwrap_or_else(|p| p.into_inner());
        // a stream whose client left is closed
        listening.retain(|l| !l.out.is_closed());
        for l in listening
            .iter()
            .filter(|l| l.watched.iter().any(|t| t == task_id))
        {
            let mut detail = self.detail(task_id, task, View::Notification);
            if self.has(Fault::NotificationWithoutPayload) {
                for k in ["result", "error", "inputRequests"] {
                    detail.as_object_mut().map(|d| d.remove(k));
                }
            }
            send_tagged(
                &l.out,
                "notifications/tasks",
                detail,
                &json!({super::super::META_SUBSCRIPTION: l.id}),
            );
        }
    }

    /// Records a task's outcome, unless it was cancelled meanwhile (the work goes on after a
    /// cancellation; it only stops mattering).
    pub(super) fn finish(&self, task_id: &str, outcome: Reply) {
        let mut tasks = self.lock();
        let Some(task) = tasks.get_mut(task_id) else {
            return;
        };
        if task.status == "cancelled" && !self.has(Fault::CancelledThenFinishes) {
            return;
        }
        let is_error = outcome.as_ref().is_ok_and(|r| r["isError"] == json!(true));
        let (status, outcome) = match outcome {
            Ok(_) if is_error && self.has(Fault::ToolErrorFails) => (
                "failed",
                Err(error(code::INTERNAL_ERROR, "the tool reported an error")),
            ),
            Ok(r) => ("completed", Ok(r)),
            Err(e) => ("failed", Err(e)),
        };
        task.status = status;
        if status == "failed" && !self.has(Fault::FailedWithoutMessage) {
            task.status_message = Some("the request ended in a JSON-RPC error".into());
        }
        task.outcome = Some(outcome);
        task.updated_at = now();
        self.announce(task_id, task);
    }

    /// A task as a view shows it: a handle has no payload; tasks/get (with its faults) and a
    /// notification carry the result, error or requests of its status.
    pub(super) fn detail(&self, task_id: &str, task: &Task, view: View) -> Value {
        let created = match self.has(Fault::CreatedAtWobbles) {
            true => wobbled(&task.created_at),
            false => task.created_at.clone(),
        };
        let mut out = json!({"taskId": task_id, "status": task.status, "createdAt": created,
            "lastUpdatedAt": task.updated_at});
        if !self.is(Variant::NoPollInterval) {
            out["pollIntervalMs"] = json!(POLL_MS);
        }
        let ttl = self.ttl_ms();
        match self.has(Fault::TtlNotTtlMs) {
            true => out["ttl"] = ttl,
            false => out["ttlMs"] = ttl,
        }
        match &task.status_message {
            Some(m) => out["statusMessage"] = json!(m),
            None if self.is(Variant::StatusMessageAlways) => {
                out["statusMessage"] = json!(format!("the task is {}", task.status))
            }
            None => {}
        }
        if view == View::Handle {
            return out;
        }
        // the tasks/get faults break tasks/get only
        let get_fault = |f: Fault| view == View::Get && self.has(f);
        match (&task.outcome, task.status) {
            (Some(Ok(result)), "completed") if !get_fault(Fault::CompletedWithoutResult) => {
                let mut result = result.clone();
                if get_fault(Fault::ResultLosesIsError) {
                    result.as_object_mut().map(|r| r.remove("isError"));
                }
                out["result"] = result;
            }
            (Some(Err(e)), "failed") if !get_fault(Fault::FailedWithoutError) => {
                let mut e = e.clone();
                if get_fault(Fault::ErrorDiffers) {
                    e["message"] = json!("the task failed");
                }
                out["error"] = e;
            }
            _ => {}
        }
        if task.status == "input_required" {
            let shown = match get_fault(Fault::OneInputRequest) {
                true => 1,
                false => usize::MAX,
            };
            let requests: Map<String, Value> = task
                .asking
                .iter()
                .take(shown)
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            out["inputRequests"] = Value::Object(requests);
        }
        out
    }
}

/// A creation time as a server that recomputes it from the task's age shows it: off by 1 to
/// 40 ms, changing with each view.
fn wobbled(created: &str) -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static VIEWS: AtomicU64 = AtomicU64::new(0);
    let off = 1 + VIEWS.fetch_add(1, Ordering::Relaxed) % 40;
    crate::timestamp::parse(created)
        .ok()
        .and_then(|at| {
            (at.at + time::Duration::milliseconds(off as i64))
                .format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
        .unwrap_or_else(|| created.to_string())
}
