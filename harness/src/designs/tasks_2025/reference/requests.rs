//! The reference's answers to tasks/get, tasks/result, tasks/list and tasks/cancel.

use super::*;

/// The longest the input-shown-first variant holds an elicitation back.
const INPUT_HELD_AT_MOST: std::time::Duration = std::time::Duration::from_secs(2);

impl Reference {
    pub(super) fn task_id_param(&self, params: &Value) -> Result<String, (i64, String)> {
        if self.faults.has(Fault::TrustRequestMeta) {
            if let Some(id) = wire::related_task_id(params) {
                return Ok(id.to_string());
            }
        }
        match params.get("taskId") {
            Some(Value::String(s)) => Ok(s.clone()),
            Some(Value::Number(n)) if self.faults.has(Fault::NumericTaskId) => Ok(n.to_string()),
            Some(_) if self.faults.has(Fault::MalformedIdInternalError) => Err((
                code::INTERNAL_ERROR,
                "Invalid input: expected string at taskId".into(),
            )),
            _ => Err(invalid("`taskId` must be a string")),
        }
    }

    pub(super) fn not_found(&self, id: &str) -> (i64, String) {
        let taken = self
            .taken
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .contains(id);
        let code = if self.faults.has(Fault::UnknownTaskWrongCode) {
            code::INVALID_REQUEST
        } else if taken {
            code::RESOURCE_NOT_FOUND
        } else {
            code::INVALID_PARAMS
        };
        (code, format!("Task not found: {id:?}"))
    }

    /// The final outcome of a terminal task as a tasks/result answer.
    pub(super) fn outcome_of(&self, id: &str) -> Reply {
        let mut store = self.lock();
        let t = store.get(id).ok_or_else(|| self.not_found(id))?;
        let meta = self.related_meta(id);
        let drop_meta = self.faults.has(Fault::ResultWithoutRelatedTask)
            || (self.faults.has(Fault::OverlappingResultsLoseMeta) && t.results_overlapped);
        let with_meta = |mut v: Value| {
            if !drop_meta {
                if let Some(o) = v.as_object_mut() {
                    let m = o.entry("_meta").or_insert(json!({}));
                    if let (Some(m), Some(add)) = (m.as_object_mut(), meta.as_object()) {
                        m.extend(add.clone());
                    }
                }
            }
            v
        };
        match t.outcome.clone() {
            Some(TaskOutcome::Result(r)) => Ok(with_meta(r)),
            Some(TaskOutcome::Error(e)) if self.faults.has(Fault::ResultErrorAsSuccess) => {
                let text = e.get("message").cloned().unwrap_or(json!("error"));
                Ok(with_meta(
                    json!({"content": [{"type": "text", "text": text}], "isError": true}),
                ))
            }
            Some(TaskOutcome::Error(e)) if self.faults.has(Fault::ResultErrorRewrapped) => {
                let (code, message) = error_pair(e);
                Err((code, format!("Task {id:?} failed: {message}")))
            }
            Some(TaskOutcome::Error(e)) => Err(error_pair(e)),
            None => Err((
                code::INTERNAL_ERROR,
                format!("Task {id:?} was cancelled before it produced a result"),
            )),
        }
    }

    pub(super) fn tasks_get(&self, params: &Value) -> Reply {
        let id = self.task_id_param(params)?;
        let mut store = self.lock();
        let t = store.get(&id).ok_or_else(|| self.not_found(&id))?;
        let mut task = self.render(t, View::Get);
        if self.faults.has(Fault::GetWithRelatedTask) {
            task["_meta"] = self.related_meta(&id);
        }
        if task["status"] == "input_required" {
            self.input_seen(&id);
        }
        Ok(task)
    }

    /// The requestor has seen that task `id` waits for input, or asked for its result: an
    /// elicitation held back for that goes out (the input-shown-first variant).
    fn input_seen(&self, id: &str) {
        let mut seen = self.input_seen.lock().unwrap_or_else(|p| p.into_inner());
        seen.insert(id.to_string());
        self.input_wake.notify_waiters();
    }

    /// Waits (at most [`INPUT_HELD_AT_MOST`]) until the requestor has seen task `id` wait for
    /// input or asked for its result.
    pub(super) async fn input_shown(&self, id: &str) {
        let wait = async {
            loop {
                let woken = self.input_wake.notified();
                if self
                    .input_seen
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .contains(id)
                {
                    return;
                }
                woken.await;
            }
        };
        let _ = tokio::time::timeout(INPUT_HELD_AT_MOST, wait).await;
    }

    pub(super) async fn tasks_result(&self, params: &Value) -> Reply {
        let id = self.task_id_param(params)?;
        self.input_seen(&id);
        let mut done = {
            let mut store = self.lock();
            let t = store.get(&id).ok_or_else(|| self.not_found(&id))?;
            if t.status.is_terminal() && self.faults.has(Fault::ResultReturnsTask) {
                let mut task = self.render(t, View::Other);
                task["_meta"] = self.related_meta(&id);
                return Ok(task);
            }
            if !t.status.is_terminal() && self.faults.has(Fault::ResultNotBlocking) {
                return Err(invalid(format!("Task {id:?} has not finished")));
            }
            if !t.status.is_terminal() && self.faults.has(Fault::ResultReturnsEarly) {
                let mut empty = match self.kind {
                    ReceiverKind::Server => json!({"content": []}),
                    ReceiverKind::Client => {
                        json!({"role": "assistant", "content": {"type": "text", "text": ""}, "model": "none"})
                    }
                };
                empty["_meta"] = self.related_meta(&id);
                return Ok(empty);
            }
            t.results_waiting += 1;
            t.results_overlapped |= t.results_waiting > 1;
            t.done.subscribe()
        };
        let _ = done.wait_for(|d| *d).await;
        let mut kept_error = false;
        if let Some(t) = self.lock().get(&id) {
            t.results_waiting -= 1;
            kept_error = matches!(t.outcome, Some(TaskOutcome::Error(_)));
        }
        if kept_error && self.faults.has(Fault::FailedResultMissing) {
            // a store that kept no outcome for a failed request waits for one forever
            std::future::pending::<()>().await;
        }
        if self.faults.has(Fault::ResultDeletesTask) {
            let outcome = self.outcome_of(&id);
            self.lock().remove(&id);
            self.taken
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(id);
            return outcome;
        }
        if self.faults.has(Fault::ResultOnce) {
            let mut store = self.lock();
            let t = store.get(&id).ok_or_else(|| self.not_found(&id))?;
            t.results_served += 1;
            if t.results_served > 1 {
                return Err(invalid(format!(
                    "Task {id:?}: its result was already retrieved"
                )));
            }
        }
        self.outcome_of(&id)
    }

    pub(super) fn tasks_list(&self, params: &Value) -> Reply {
        let cursor = match params.get("cursor") {
            None | Some(Value::Null) => None,
            Some(Value::String(c)) => Some(c.as_str()),
            Some(_) => return Err(invalid("`cursor` must be a string")),
        };
        let mut store = self.lock();
        if self.faults.has(Fault::ListOnePage) {
            // it never gives a cursor, so none is valid
            if let Some(c) = cursor {
                return Err(invalid(format!("Invalid cursor: {c:?}")));
            }
            let tasks: Vec<Value> = store
                .all_ids()
                .iter()
                .filter_map(|id| store.get(id).map(|t| self.render(t, View::Other)))
                .collect();
            return Ok(json!({"tasks": tasks}));
        }
        if self.faults.has(Fault::ListOnlyUnfinished) {
            let tasks: Vec<Value> = store
                .unfinished_ids()
                .iter()
                .filter_map(|id| store.get(id).map(|t| self.render(t, View::Other)))
                .collect();
            return Ok(json!({"tasks": tasks}));
        }
        let (ids, next) = match store.page(cursor) {
            Some(page) => page,
            None if self.faults.has(Fault::BadCursorAccepted) => {
                store.page(None).expect("the first page always exists")
            }
            None => {
                return Err(invalid(format!(
                    "Invalid cursor: {:?}",
                    cursor.unwrap_or_default()
                )))
            }
        };
        let hidden = self
            .faults
            .has(Fault::ListHidesTask)
            .then(|| store.newest().cloned())
            .flatten();
        let mut tasks = Vec::new();
        for id in ids.iter().filter(|id| Some(*id) != hidden.as_ref()) {
            if let Some(t) = store.get(id) {
                tasks.push(self.render(t, View::Other));
            }
        }
        let mut result = json!({"tasks": tasks});
        if let Some(n) = next.filter(|_| !self.faults.has(Fault::ListDropsNextCursor)) {
            result["nextCursor"] = json!(n);
        }
        Ok(result)
    }

    pub(super) async fn tasks_cancel(self: &Arc<Self>, params: &Value) -> Reply {
        let id = self.task_id_param(params)?;
        let mut store = self.lock();
        let t = store.get(&id).ok_or_else(|| self.not_found(&id))?;
        if t.status == TaskStatus::InputRequired
            && self.faults.has(Fault::CancelInputRequiredRejected)
        {
            return Err(invalid(format!(
                "Cannot cancel task {id:?}: it is waiting for input"
            )));
        }
        if t.status.is_terminal() {
            if self.faults.has(Fault::CancelTerminalOk) {
                return Ok(self.render(t, View::Other));
            }
            return Err(invalid(format!(
                "Cannot cancel task {id:?}: already in terminal status {:?}",
                t.status.as_str()
            )));
        }
        if self.faults.has(Fault::CancelReportsWorking) {
            let answer = self.render(t, View::Other);
            let server = self.clone();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(200)).await;
                server.cancel_now(&id);
            });
            return Ok(answer);
        }
        drop(store);
        self.cancel_now(&id);
        let mut store = self.lock();
        let t = store.get(&id).ok_or_else(|| self.not_found(&id))?;
        // the work may have ended between the check above and the cancellation, which then
        // changed nothing: the task was terminal when the cancellation took effect
        if t.status != TaskStatus::Cancelled && t.status.is_terminal() {
            return Err(invalid(format!(
                "Cannot cancel task {id:?}: already in terminal status {:?}",
                t.status.as_str()
            )));
        }
        let answer = self.render(t, View::Other);
        if self.faults.is(Variant::CancelledDeleted) {
            store.remove(&id);
        }
        Ok(answer)
    }

    /// Cancels a task now, whatever its status allows (used by the HTTP receiver's faults too).
    pub fn cancel_now(&self, id: &str) {
        let cancel = self.lock().get(id).map(|t| t.cancel.clone());
        self.set_status(
            id,
            TaskStatus::Cancelled,
            Some("The task was cancelled by request.".into()),
        );
        if let Some(c) = cancel {
            c.notify_one();
        }
    }
}
