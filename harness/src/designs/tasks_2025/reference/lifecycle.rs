//! A task's life in the reference: created for a task-augmented request, its status set and
//! announced, its work finished or failed.

use super::*;

impl Reference {
    /// Moves a task and announces it with notifications/tasks/status.
    pub(super) fn set_status(&self, id: &str, status: TaskStatus, message: Option<String>) {
        let mut store = self.lock();
        if !store.transition(id, status, message, false) {
            return;
        }
        self.announce(&mut store, id);
    }

    pub(super) fn announce(&self, store: &mut Store, id: &str) {
        let Some(t) = store.get(id) else { return };
        let mut params = self.render(t, View::Other);
        if self.faults.has(Fault::StatusNotificationWithRelatedTask) {
            params["_meta"] = self.related_meta(id);
        }
        self.send(wire::notification("notifications/tasks/status", &params));
    }

    /// Answers a task-augmented request: checks `task`, creates the task running `work` (given
    /// the task id) and returns its CreateTaskResult.
    pub(super) async fn augmented(
        self: &Arc<Self>,
        task: &Value,
        request_id: &Value,
        work: impl FnOnce(Option<String>) -> Work,
    ) -> Reply {
        let requested_ttl = match (task.is_object(), task.get("ttl")) {
            _ if self.faults.has(Fault::MalformedTaskAccepted) => {
                task.get("ttl").and_then(Value::as_u64)
            }
            (false, _) => return Err(invalid("`task` must be an object")),
            (true, None | Some(Value::Null)) => None,
            (true, Some(v))
                if v.is_number()
                    && v.as_u64().is_none()
                    && self.faults.has(Fault::DiesOnOddTtl) =>
            {
                std::process::exit(70)
            }
            (true, Some(v)) => Some(
                v.as_u64()
                    .ok_or_else(|| invalid("`task.ttl` must be a non-negative integer"))?,
            ),
        };
        if let Some(max) = self.faults.max_live_tasks {
            if self.lock().unfinished() >= max {
                return Err((
                    code::INTERNAL_ERROR,
                    format!("Too many unfinished tasks: at most {max} at once"),
                ));
            }
        }
        if self.faults.has(Fault::CreateReturnsResult) {
            return work(None).await.map_err(error_pair);
        }
        let task_id = match self.faults.has(Fault::TaskIdIsRequestId) {
            true => wire::id_text(request_id),
            false => self.next_task_id(),
        };
        let created =
            self.start_task_with_id(task_id.clone(), requested_ttl, work(Some(task_id.clone())));
        if self.faults.has(Fault::SlowCreate) {
            let done = self.lock().get(&task_id).map(|t| t.done.subscribe());
            if let Some(mut done) = done {
                let _ = done.wait_for(|d| *d).await;
            }
        }
        Ok(created)
    }

    /// The id of the next task (a UUID, unless a fault says otherwise).
    pub(super) fn next_task_id(&self) -> String {
        let store = self.lock();
        let n = store.created_count();
        if self.faults.has(Fault::NumericTaskId) {
            (n + 1).to_string()
        } else if self.faults.has(Fault::SequentialTaskId) {
            format!("task-{}", n + 1)
        } else if self.faults.has(Fault::DuplicateTaskId) && n % 2 == 1 {
            store.newest().cloned().unwrap_or_default()
        } else if self.faults.has(Fault::PerSessionIds) {
            uuid::Uuid::new_v5(&uuid::Uuid::NAMESPACE_OID, &n.to_be_bytes()).to_string()
        } else {
            uuid::Uuid::new_v4().to_string()
        }
    }

    /// Creates a task running `work` and returns its CreateTaskResult.
    pub(super) fn start_task(self: &Arc<Self>, requested_ttl: Option<u64>, work: Work) -> Value {
        let id = self.next_task_id();
        self.start_task_with_id(id, requested_ttl, work)
    }

    pub(super) fn start_task_with_id(
        self: &Arc<Self>,
        task_id: String,
        requested_ttl: Option<u64>,
        work: Work,
    ) -> Value {
        let (created, cancel) = {
            let mut store = self.lock();
            let record = store.create(task_id.clone(), requested_ttl);
            let cancel = record.cancel.clone();
            let task = self.render(record, View::Create);
            let hint = format!("Task {task_id} started; poll tasks/get for its status.");
            let created = json!({"task": task, "_meta": {wire::MODEL_IMMEDIATE_RESPONSE: hint}});
            (created, cancel)
        };
        let work = match self.faults.is(Variant::FewWorkers) {
            true => super::workers::pooled(work),
            false => work,
        };
        let server = self.clone();
        tokio::spawn(async move {
            let f = &server.faults;
            let goes_on = [
                Fault::CancelledTaskCompletes,
                Fault::CancelledTaskFails,
                Fault::CancelKeepsWorking,
            ];
            let outcome = if goes_on.iter().any(|g| f.has(*g)) {
                Some(work.await)
            } else if f.has(Fault::CrashAfterCancel) {
                let mut work = work;
                tokio::select! {
                    o = &mut work => Some(o),
                    _ = cancel.notified() => {
                        let _ = work.await;
                        eprintln!("taskcheck reference: cannot store the result of cancelled task {task_id}: exiting");
                        std::process::exit(70);
                    }
                }
            } else {
                tokio::select! {
                    o = work => Some(o),
                    _ = cancel.notified() => None,
                }
            };
            if let Some(outcome) = outcome {
                server.finish(&task_id, outcome);
            }
        });
        created
    }

    /// Records the outcome of a task's work and moves it to completed or failed.
    pub(super) fn finish(&self, id: &str, outcome: Result<Value, Value>) {
        let mut store = self.lock();
        let fails = self.faults.has(Fault::CancelledTaskFails);
        let force = self.faults.has(Fault::CancelledTaskCompletes) || fails;
        let was_cancelled = store
            .get(id)
            .is_some_and(|t| t.status == TaskStatus::Cancelled);
        let (status, message, stored) = match outcome {
            Ok(r) if r.get("isError") == Some(&Value::Bool(true)) => (
                if self.faults.has(Fault::ToolErrorCompletes) {
                    TaskStatus::Completed
                } else {
                    TaskStatus::Failed
                },
                Some("the tool reported an error (isError: true)".to_string()),
                TaskOutcome::Result(r),
            ),
            Ok(r) => (TaskStatus::Completed, None, TaskOutcome::Result(r)),
            Err(e) => (
                match self.faults.has(Fault::ProtocolErrorCompletes) {
                    true => TaskStatus::Completed,
                    false => TaskStatus::Failed,
                },
                Some(format!(
                    "the request failed: {}",
                    e.get("message").and_then(Value::as_str).unwrap_or("error")
                )),
                TaskOutcome::Error(e),
            ),
        };
        match store.get(id) {
            Some(t) if t.status.is_terminal() && !force => return,
            Some(t) => t.outcome = Some(stored),
            None if self.faults.has(Fault::CrashAfterExpiry) => {
                eprintln!(
                    "taskcheck reference: cannot store the result of expired task {id}: exiting"
                );
                std::process::exit(70);
            }
            None => {}
        }
        let (status, message) = match (fails && was_cancelled, status) {
            (true, _) => (TaskStatus::Failed, None),
            (false, s) => (s, message),
        };
        let message = message.filter(|_| !self.faults.has(Fault::FailedWithoutStatusMessage));
        if store.transition(id, status, message, force) {
            self.announce(&mut store, id);
        }
        if self.faults.has(Fault::UnlimitedTtlVanishes) {
            let store = self.store.clone();
            let id = id.to_string();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(100)).await;
                store.lock().unwrap_or_else(|p| p.into_inner()).remove(&id);
            });
        }
    }
}
