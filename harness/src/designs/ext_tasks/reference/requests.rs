//! The extension reference's answers to tasks/get, tasks/update and tasks/cancel.

use super::*;

impl ExtReference {
    pub(super) fn task_id(params: &Value) -> Result<String, Value> {
        params
            .get("taskId")
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| error(code::INVALID_PARAMS, "taskId must be a string"))
    }

    /// Whether a caller may see a task: the one that created it (every caller under the
    /// unbound-tasks fault).
    pub(super) fn visible(&self, task: &Task, caller: Option<&str>) -> bool {
        self.has(Fault::UnboundTasks) || task.owner.as_deref() == caller
    }

    /// The error for a task id nobody knows (-32603 under `wrong`).
    pub(super) fn unknown(&self, task_id: &str, wrong: Option<Fault>) -> Value {
        match wrong.is_some_and(|f| self.has(f)) {
            true => error(code::INTERNAL_ERROR, format!("no task {task_id}")),
            false => error(
                code::INVALID_PARAMS,
                format!("Failed to retrieve task: Task not found ({task_id})"),
            ),
        }
    }

    pub(super) fn get(&self, params: &Value, caller: Option<&str>) -> Reply {
        let task_id =
            Self::task_id(params).map_err(|e| match self.has(Fault::GetInvalidIdUnserved) {
                true => error(code::METHOD_NOT_FOUND, "tasks/get"),
                false => e,
            })?;
        let mut tasks = self.lock();
        let Some(task) = tasks.get_mut(&task_id).filter(|t| self.visible(t, caller)) else {
            return Err(self.unknown(&task_id, Some(Fault::GetUnknownWrongCode)));
        };
        let reopened = task.read_cancelled && self.has(Fault::CancelledReopens);
        task.read_cancelled |= task.status == "cancelled";
        let mut out = self.detail(&task_id, task, View::Get);
        if reopened {
            out["status"] = json!("working");
        }
        if self.has(Fault::GetOtherTaskId) {
            out["taskId"] = json!(format!("{task_id}-other"));
        }
        if self.has(Fault::DiscardsFinished)
            && crate::designs::ext_tasks::monitor::is_terminal(task.status)
        {
            tasks.remove(&task_id);
        }
        out["resultType"] = json!(match self.has(Fault::GetResultTypeTask) {
            true => "task",
            false => "complete",
        });
        Ok(out)
    }

    /// The empty acknowledgement (`{}` under `missing_type`; with the task's fields under
    /// `returns_task`, when there is a task).
    pub(super) fn ack(
        &self,
        missing_type: Fault,
        returns_task: Fault,
        task: Option<(&str, &Task)>,
    ) -> Value {
        let mut ack = match self.has(missing_type) {
            true => json!({}),
            false => json!({"resultType": "complete"}),
        };
        if let (Some((id, task)), true) = (task, self.has(returns_task)) {
            if let (Some(a), Value::Object(detail)) =
                (ack.as_object_mut(), self.detail(id, task, View::Handle))
            {
                a.extend(detail);
            }
        }
        ack
    }

    /// Changes a task `ms` from now (an eventually consistent write).
    pub(super) fn later(
        &self,
        ms: u64,
        task_id: String,
        change: impl FnOnce(&mut Task) + Send + 'static,
    ) {
        let me = self.me.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(ms)).await;
            if let Some(me) = me.upgrade() {
                if let Some(task) = me.lock().get_mut(&task_id) {
                    change(task);
                    me.announce(&task_id, task);
                }
            }
        });
    }

    pub(super) fn update(&self, params: &Value, caller: Option<&str>) -> Reply {
        let task_id = Self::task_id(params)?;
        let mut tasks = self.lock();
        let Some(task) = tasks.get_mut(&task_id).filter(|t| self.visible(t, caller)) else {
            return match self.has(Fault::UpdateUnknownAcks) {
                true => Ok(self.ack(
                    Fault::UpdateResultTypeMissing,
                    Fault::UpdateReturnsTask,
                    None,
                )),
                false => Err(self.unknown(&task_id, None)),
            };
        };
        let responses = match params.get("inputResponses").and_then(Value::as_object) {
            Some(r) => r.clone(),
            None if self.has(Fault::UpdateAcceptsMalformed) => Default::default(),
            None => {
                return Err(error(
                    code::INVALID_PARAMS,
                    "inputResponses must be an object of responses by key",
                ))
            }
        };
        let stray = responses.keys().find(|k| !task.asking.contains_key(*k));
        if let Some(k) = stray.filter(|_| self.has(Fault::UpdateRejectsUnknownKey)) {
            return Err(error(
                code::INVALID_PARAMS,
                format!("{k:?} is not an outstanding request"),
            ));
        }
        if !self.has(Fault::UpdateIgnored) {
            // an answer the work has not taken yet is replaced under the replaces-answer fault
            let replaces = self.has(Fault::ReplacesAnswer);
            let answers: Vec<(String, Value)> = responses
                .into_iter()
                .filter(|(k, _)| {
                    task.asking.contains_key(k) || (replaces && task.answers.contains_key(k))
                })
                .collect();
            match self.is(Variant::LazyUpdate) {
                true => self.later(200, task_id.clone(), move |task| {
                    take_answers(task, answers)
                }),
                false => take_answers(task, answers),
            }
        }
        Ok(self.ack(
            Fault::UpdateResultTypeMissing,
            Fault::UpdateReturnsTask,
            Some((&task_id, task)),
        ))
    }

    pub(super) fn cancel(&self, params: &Value, caller: Option<&str>) -> Reply {
        let task_id = Self::task_id(params)?;
        let mut tasks = self.lock();
        let Some(task) = tasks.get_mut(&task_id).filter(|t| self.visible(t, caller)) else {
            return match self.has(Fault::CancelUnknownAcks) {
                true => Ok(self.ack(
                    Fault::CancelResultTypeMissing,
                    Fault::CancelReturnsTask,
                    None,
                )),
                false => Err(self.unknown(&task_id, None)),
            };
        };
        if self.is(Variant::LazyCancel) {
            self.later(300, task_id.clone(), cancel_now);
        } else if !self.is(Variant::CancelIgnored) {
            cancel_now(task);
            self.announce(&task_id, task);
        }
        Ok(self.ack(
            Fault::CancelResultTypeMissing,
            Fault::CancelReturnsTask,
            Some((&task_id, task)),
        ))
    }
}
