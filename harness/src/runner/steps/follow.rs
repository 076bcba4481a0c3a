//! Steps that follow a task or wait on the receiver: `poll` until a status, `respond` to its
//! input requests, `retry` an InputRequiredResult, and `receive` what the receiver sends.

use super::*;

/// What a `respond` step answers with: `reply` for the outstanding requests (`at_most` of
/// them), and `again` for those earlier steps answered.
pub(super) struct Answers<'s> {
    pub reply: &'s Value,
    pub at_most: Option<usize>,
    pub again: Option<&'s Value>,
}

impl<'a> Exec<'a> {
    /// Waits for a receiver request or notification of `method` and judges its params.
    pub(super) async fn receive(
        &self,
        step: &Step,
        inbox: Inbox,
        method: &str,
        state: &mut State,
    ) -> Result<Option<Inbound>, Stop> {
        // a notification answers to what the requestor already saw, never to older news
        let after = (inbox == Inbox::Notifications)
            .then_some(state.last_answer)
            .flatten();
        match self
            .session
            .next_after(inbox, method, after, self.timeout(step))
            .await
        {
            Ok(inbound) => {
                state.sent_by.insert(inbound.seq, state.label.clone());
                if let Some(absent) = &step.absent {
                    let sent = format!("the receiver sent its {method}");
                    state.record(Check::judged(absent, true, sent, vec![inbound.seq]));
                }
                let params = Outcome::Result(inbound.params.clone());
                self.judge_answer(step, &params, vec![inbound.seq], state)?;
                Ok(Some(inbound))
            }
            Err(e @ RequestError::Timeout { .. }) => {
                let why = format!("the receiver sent no {method}: {e}");
                // a request for a task that had already ended, as a poll saw, was never owed:
                // its absence is no finding (the task's course is the poll's to judge)
                let ended = step.uses().iter().find_map(|name| {
                    let id = state.vars.get(name)?.as_str()?;
                    state
                        .ended
                        .get(id)
                        .map(|status| (id.to_string(), status.clone()))
                });
                if let (Some(absent), Some((id, status))) = (&step.absent, ended) {
                    let ended = format!("{why}, and task {id:?} had ended {status} before: a task that ended asks for nothing");
                    for rule in std::iter::once(absent).chain(&step.rule) {
                        state.record(Check::with(rule, Verdict::Untestable, ended.clone()));
                    }
                    return Ok(None);
                }
                if let Some(absent) = &step.absent {
                    // nothing came to judge the step's rule on: its absence is the finding
                    state.record(Check::judged(absent, false, why.clone(), Vec::new()));
                    if let Some(rule) = &step.rule {
                        let root = Root {
                            rule: absent.clone(),
                            scenario: String::new(),
                            step: None,
                        };
                        state.record(
                            Check::with(
                                rule,
                                Verdict::Untestable,
                                format!("{why}: nothing to judge"),
                            )
                            .following(root),
                        );
                    }
                    return Ok(None);
                }
                // no notification is one a receiver must send (progress and task status are
                // a MAY): one that never comes leaves the rule untestable
                let excuse = match self.mapped {
                    true => "the tool mapped to this fixture role need not send it (only the fixture contract promises it)",
                    false => "a receiver may send none (the fixture contract promises it, the spec does not)",
                };
                match (&step.rule, inbox == Inbox::Notifications) {
                    (Some(rule), true) => state.record(Check::with(
                        rule,
                        Verdict::Untestable,
                        format!("{why}; {excuse}"),
                    )),
                    _ => state.judge(&step.rule, false, why, Vec::new())?,
                }
                Ok(None)
            }
            Err(e) => Err(e.into()),
        }
    }

    pub(super) async fn poll(
        &self,
        step: &Step,
        task: &str,
        until: &[String],
        capture: &Option<String>,
        state: &mut State,
    ) -> Result<(), Stop> {
        let task_id = matcher::substitute(&json!(task), &state.vars).map_err(Stop::Prerequisite)?;
        let limit = step
            .timeout_ms
            .map(|ms| self.config.limits.scaled(ms))
            .unwrap_or(self.config.limits.poll);
        let start = Instant::now();
        let mut limit = limit;
        let (last, evidence) = loop {
            let Some(reply) = self
                .request(step, self.wire.get, json!({"taskId": task_id}), state)
                .await?
            else {
                return Ok(());
            };
            let evidence = vec![reply.asked, reply.seq];
            let task = match reply.outcome {
                Outcome::Result(t) => t,
                Outcome::Error(e) => {
                    return state.judge(
                        &step.rule,
                        false,
                        format!("{} answered error {}", self.wire.get, matcher::short(&e)),
                        evidence,
                    );
                }
            };
            let status = task
                .get("status")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            let terminal =
                crate::model::TaskStatus::parse(&status).is_some_and(|s| s.is_terminal());
            if let (true, Some(id)) = (terminal, task_id.as_str()) {
                state.ended.insert(id.to_string(), status.clone());
            }
            if until.contains(&status) {
                if let Some(name) = capture {
                    state.vars.insert(name.clone(), task);
                }
                return state.judge(&step.rule, true, format!("task reached {status}"), evidence);
            }
            // a terminal status never changes: waiting on would only poll it again
            if terminal {
                return state.judge(
                    &step.rule,
                    false,
                    format!(
                        "task {task_id} reached {status}, a terminal status, not {}",
                        until.join("|")
                    ),
                    evidence,
                );
            }
            // the poll interval is honoured (requestors SHOULD): a long one stretches the
            // poll's deadline to a few polls, the scenario's own deadline still bounding it
            let interval = Duration::from_millis(
                task.get(self.wire.poll_interval)
                    .and_then(Value::as_u64)
                    .unwrap_or(POLL_DEFAULT_MS)
                    .max(POLL_MIN_MS),
            );
            limit = limit.max(interval * POLLS_AT_LEAST);
            let elapsed = start.elapsed();
            if elapsed >= limit {
                break (format!("status {status:?}"), evidence);
            }
            tokio::time::sleep(interval.min(limit - elapsed)).await;
        };
        state.judge(
            &step.rule,
            false,
            format!(
                "task {task_id} did not reach {} within {} ms (last: {last})",
                until.join("|"),
                limit.as_millis()
            ),
            evidence,
        )
    }

    /// Answers every request a task has outstanding in one update (the design's `update`).
    pub(super) async fn respond(
        &self,
        step: &Step,
        task: &str,
        answers: Answers<'_>,
        state: &mut State,
    ) -> Result<(), Stop> {
        let Answers {
            reply,
            at_most,
            again,
        } = answers;
        let (Some(update), Some(input)) = (self.wire.update, &self.wire.input) else {
            return Err(Stop::Prerequisite(
                "the scenario's design answers no input requests by key".into(),
            ));
        };
        let task_id = matcher::substitute(&json!(task), &state.vars).map_err(Stop::Prerequisite)?;
        let reply = matcher::substitute(reply, &state.vars).map_err(Stop::Prerequisite)?;
        let id_text = task_id.as_str().unwrap_or_default().to_string();
        let limit = step
            .timeout_ms
            .map(|ms| self.config.limits.scaled(ms))
            .unwrap_or(self.config.limits.poll);
        let start = Instant::now();
        // an update is eventually consistent: wait for a request not answered yet
        let keys = loop {
            let Some(shown) = self
                .request(step, self.wire.get, json!({"taskId": task_id}), state)
                .await?
            else {
                return Ok(());
            };
            let answered = state.answered.get(&id_text).cloned().unwrap_or_default();
            let fresh: Vec<(String, Value)> = match &shown.outcome {
                Outcome::Result(t) => t
                    .get(input.requests)
                    .and_then(Value::as_object)
                    .into_iter()
                    .flatten()
                    .filter(|(k, r)| !answered.iter().any(|(ak, ar)| ak == *k && ar == *r))
                    .map(|(k, r)| (k.clone(), r.clone()))
                    .collect(),
                Outcome::Error(_) => Vec::new(),
            };
            let status = outcome_value(&shown.outcome)["status"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            let waiting = TaskStatus::parse(&status).is_some_and(|s| !s.is_terminal());
            if !fresh.is_empty() {
                break fresh
                    .into_iter()
                    .take(at_most.unwrap_or(usize::MAX))
                    .collect::<Vec<_>>();
            }
            if !waiting || start.elapsed() >= limit {
                return Err(Stop::Prerequisite(format!(
                    "task {task_id} shows no outstanding request not answered yet ({}: {})",
                    self.wire.get,
                    matcher::short(outcome_value(&shown.outcome))
                )));
            }
            tokio::time::sleep(Duration::from_millis(POLL_DEFAULT_MS)).await;
        };
        // the requests earlier steps answered, to answer again where `again` asks
        let before = state.answered.get(&id_text).cloned().unwrap_or_default();
        state
            .answered
            .entry(id_text)
            .or_default()
            .extend(keys.iter().cloned());
        let mut responses: serde_json::Map<String, Value> = keys
            .into_iter()
            .map(|(k, request)| (k, reply_to(&request, &reply)))
            .collect();
        if let Some(again) = again {
            let again = matcher::substitute(again, &state.vars).map_err(Stop::Prerequisite)?;
            for (k, request) in before {
                responses.insert(k, reply_to(&request, &again));
            }
        }
        let params = json!({"taskId": task_id, (input.responses): responses});
        let Some(answer) = self.request(step, update, params, state).await? else {
            return Ok(());
        };
        self.judge_answer(step, &answer.outcome, vec![answer.asked, answer.seq], state)
    }

    /// Retries the last request answered with an InputRequiredResult, answering each of its
    /// requests with `reply` and echoing its request state, while the server asks again.
    pub(super) async fn retry(
        &self,
        step: &Step,
        reply: &Value,
        save: &Option<String>,
        state: &mut State,
    ) -> Result<(), Stop> {
        let Some(input) = &self.wire.input else {
            return Err(Stop::Prerequisite(
                "the scenario's design asks for no input in answers".into(),
            ));
        };
        let reply = matcher::substitute(reply, &state.vars).map_err(Stop::Prerequisite)?;
        let Some((method, original, mut asked)) = state.input_asked.take() else {
            return Err(Stop::Prerequisite(
                "no request before this step was answered with an InputRequiredResult".into(),
            ));
        };
        for attempt in 1..=RETRIES_AT_MOST {
            let mut params = original.clone();
            let requests = asked.get(input.requests).and_then(Value::as_object);
            let responses: serde_json::Map<String, Value> = requests
                .into_iter()
                .flatten()
                .map(|(k, request)| (k.clone(), reply_to(request, &reply)))
                .collect();
            if let Some(p) = params.as_object_mut() {
                p.remove(input.responses);
                p.remove(input.state);
                if !responses.is_empty() {
                    p.insert(input.responses.into(), Value::Object(responses));
                }
                // echoed exactly when given, never when not (client requirements of MRTR)
                if let Some(s) = asked.get(input.state) {
                    p.insert(input.state.into(), s.clone());
                }
            }
            let Some(answer) = self.request(step, &method, params, state).await? else {
                return Ok(());
            };
            match asks_input(&answer.outcome, Some(input)) {
                Some(again) if attempt < RETRIES_AT_MOST => asked = again.clone(),
                _ => {
                    let evidence = vec![answer.asked, answer.seq];
                    self.judge_answer(step, &answer.outcome, evidence, state)?;
                    if let Some(name) = save {
                        let value = super::outcome_value(&answer.outcome).clone();
                        state.vars.insert(name.clone(), value);
                    }
                    return Ok(());
                }
            }
        }
        Ok(())
    }
}

/// The answer to one input request: `reply`, its `content` cut to the fields the request's
/// form asks for (so one reply serves requests that each ask for a field of their own), each
/// field the form requires and the reply lacks filled with a value its schema accepts (a
/// server's own form: `confirm: boolean`, say), or whole where the request names no field.
pub(super) fn reply_to(request: &Value, reply: &Value) -> Value {
    let form = request.pointer("/params/requestedSchema");
    let asked = form
        .and_then(|f| f.get("properties"))
        .and_then(Value::as_object);
    let (Some(asked), Some(content)) = (asked, reply.get("content").and_then(Value::as_object))
    else {
        return reply.clone();
    };
    let mut cut: serde_json::Map<String, Value> = content
        .iter()
        .filter(|(field, _)| asked.contains_key(*field))
        .map(|(f, v)| (f.clone(), v.clone()))
        .collect();
    let required = form
        .and_then(|f| f.get("required"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str);
    for field in required {
        if let (false, Some(schema)) = (cut.contains_key(field), asked.get(field)) {
            cut.insert(field.to_string(), crate::schema::sample(schema));
        }
    }
    let mut answer = reply.clone();
    if !cut.is_empty() {
        answer["content"] = Value::Object(cut);
    }
    answer
}

#[cfg(test)]
mod tests {
    use super::reply_to;
    use serde_json::json;

    #[test]
    fn a_reply_is_cut_to_the_fields_each_request_asks_for() {
        let form = |field: &str| {
            json!({"method": "elicitation/create", "params": {"requestedSchema":
                {"type": "object", "properties": {field: {"type": "string"}}}}})
        };
        let reply = json!({"action": "accept", "content": {"first": "Ada", "last": "Lovelace"}});
        assert_eq!(
            reply_to(&form("last"), &reply),
            json!({"action": "accept", "content": {"last": "Lovelace"}})
        );
        // a form asking for none of the reply's fields gets the reply whole
        assert_eq!(reply_to(&form("age"), &reply), reply);
        let sampling = json!({"method": "sampling/createMessage", "params": {}});
        assert_eq!(reply_to(&sampling, &reply), reply);
        // a field the form requires and the reply lacks gets a value its schema accepts
        let confirm = json!({"method": "elicitation/create", "params": {"requestedSchema":
            {"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}}});
        assert_eq!(
            reply_to(&confirm, &reply),
            json!({"action": "accept", "content": {"confirm": false}})
        );
    }
}
