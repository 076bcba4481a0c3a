//! What the receiver's notifications show the monitor: related-task `_meta`, status
//! notifications, and progress that must stop once a task ends.

use super::*;

impl Monitor<'_> {
    pub(super) fn notification(&mut self, method: &str, params: &Value, e: &Entry) {
        if method != "notifications/tasks/status" {
            self.names_a_task(method, params, e);
        }
        match method {
            "notifications/tasks/status" => {
                self.observe(params, Source::StatusNotification, e, None);
                self.findings.judge(
                    "tasks.notify.no-related-task",
                    !wire::has_related_task(params),
                    None,
                    || "notifications/tasks/status related-task _meta".into(),
                    || vec![e.seq],
                );
            }
            "notifications/progress" => {
                let token = params.get("progressToken").map(Value::to_string);
                let Some((task, created)) = token.as_ref().and_then(|t| self.progress.get(t))
                else {
                    return self.foreign_progress(params, token, e);
                };
                if e.seq < *created {
                    return;
                }
                let (task, created) = (task.clone(), *created);
                if let Some(p) = self.progressing.get_mut(&task) {
                    if let (Some((_, seq, t_ms)), None) = (p.terminal, p.late) {
                        let later = e.transport != "http" || e.t_ms >= t_ms + CROSS_STREAM_MS;
                        if e.seq > seq && later {
                            p.late = Some(e.seq);
                        }
                    }
                }
                self.findings.judge(
                    TOKEN_VALID,
                    true,
                    None,
                    || format!("progress of task {task:?} after its CreateTaskResult keeps its request's progressToken"),
                    || vec![created, e.seq],
                );
                let got = wire::related_task_value(params).map(wire::id_text);
                self.findings.judge(
                    RELATED_MESSAGES,
                    got.as_ref() == Some(&task),
                    None,
                    || match got {
                        Some(g) => {
                            format!("progress of task {task:?} carries related-task taskId {g:?}")
                        }
                        None => format!("progress of task {task:?} has no related-task _meta"),
                    },
                    || vec![created, e.seq],
                );
            }
            _ => {}
        }
    }

    /// Progress whose token no task-augmented request gave, naming a task in related-task
    /// `_meta` whose request did give one: the token did not stay valid.
    fn foreign_progress(&mut self, params: &Value, token: Option<String>, e: &Entry) {
        let Some(named) = wire::related_task_value(params).map(wire::id_text) else {
            return;
        };
        let Some((own, created)) = self
            .progress
            .iter()
            .find(|(_, (task, created))| *task == named && *created < e.seq)
            .map(|(t, (_, c))| (t.clone(), *c))
        else {
            return;
        };
        let token = token.unwrap_or_else(|| "none".into());
        self.findings.judge(
            TOKEN_VALID,
            false,
            None,
            || format!("progress of task {named:?} after its CreateTaskResult carries progressToken {token}, not its request's {own}"),
            || vec![created, e.seq],
        );
    }

    /// Progress after a task was seen terminal: its notifications did not stop (a MUST, the
    /// root), and after a cancellation that shows its work went on (a SHOULD, judged by the
    /// same observation, so shown as the root's consequence).
    pub(super) fn progress_stopped(&mut self) {
        for (task, p) in std::mem::take(&mut self.progressing) {
            let Some((status, seen, _)) = p.terminal else {
                continue;
            };
            let evidence = p.late.map(|l| vec![seen, l]).unwrap_or_default();
            let message = match p.late {
                None => format!(
                    "no progress of task {task:?} after it was seen {}",
                    status.as_str()
                ),
                Some(l) => format!(
                    "progress of task {task:?} (trace #{l}) after it was seen {} (trace #{seen})",
                    status.as_str()
                ),
            };
            let went_on = format!("{message}: the work went on after the cancellation");
            self.findings.judge(
                STOPS_WHEN_TERMINAL,
                p.late.is_none(),
                None,
                || message,
                || evidence.clone(),
            );
            if status == TaskStatus::Cancelled {
                self.findings.push(Finding {
                    follows: Some(STOPS_WHEN_TERMINAL),
                    ..find(STOP_EXECUTION, p.late.is_none(), went_on, evidence)
                });
            }
        }
    }
}
