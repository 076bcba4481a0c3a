//! A tools/call in the extension's reference: a task created or an immediate answer, the
//! work the tool does, and the input requests it asks on the way.

use super::*;

/// The argument the renamed-tools variant adds to a call of one of its own names, so that its
/// work answers in that variant's words (the official suite's tools, run as the same fixtures,
/// keep the fixtures' words).
const OWN_WORDS: &str = "taskcheck/renamed-tools";

/// Work shorter than this is answered at once under the immediate-short-work variant.
const SHORT_WORK_MS: u64 = 100;

impl ExtReference {
    pub(super) async fn call(
        self: &Arc<Self>,
        params: &Value,
        declared: bool,
        caller: Option<&str>,
    ) -> Reply {
        let name = params
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let args = params.get("arguments").cloned().unwrap_or(json!({}));
        // the renamed-tools variant's names and keys stand for the fixtures' (its other names,
        // the official suite's tools, are served as ever); what they answer is in its own words
        let renamed_fixture = self
            .is(Variant::RenamedTools)
            .then(|| renamed::fixture_of(name, TOOLS.iter().map(|(t, _)| *t)))
            .flatten();
        let (name, args) = match renamed_fixture {
            Some(fixture) => {
                let mut args = renamed::arguments(&args);
                args[OWN_WORDS] = json!(true);
                (fixture, args)
            }
            None if self.is(Variant::RenamedTools)
                && self.offers(name)
                && TOOLS.iter().any(|(t, _)| *t == name) =>
            {
                ("", args)
            }
            None => (name, args),
        };
        // an official suite's tool runs as one of the reference's own
        let official = official_tools::find(name).filter(|t| self.offers_official(t));
        let (runs, name, mut args, ask) = match official {
            Some(t) if t.name == "test_tool_with_task" => (
                t.runs,
                t.runs_as,
                official_tools::translate(t, &args),
                USER_NAME,
            ),
            Some(t) => (
                t.runs,
                t.runs_as,
                official_tools::translate(t, &args),
                CONFIRM_ASK,
            ),
            None if TOOLS.iter().any(|(t, _)| *t == name) && self.offers(name) => {
                (own_runs(name), name, args, CONFIRM_ASK)
            }
            None => {
                return Err(error(
                    code::INVALID_PARAMS,
                    format!("unknown tool {name:?}"),
                ))
            }
        };
        let caps = request_capabilities(params);
        // a tool that asks an elicitation needs a client that declared it can answer one
        let elicits = matches!(
            name,
            "elicit_input" | "elicit_pair" | "elicit_twice" | "confirm_first"
        );
        if elicits && caps.get("elicitation").is_none() && !self.has(Fault::ElicitsUndeclared) {
            return Err(
                json!({"code": super::MISSING_CAPABILITY, "message": "Missing required client capability",
                "data": {"requiredCapabilities": {"elicitation": {}}}}),
            );
        }
        let as_task = declared
            || self.has(Fault::LegacyHonoured) && caps.get("tasks").is_some()
            || self.has(Fault::TaskParamHonoured) && params.get("task").is_some();
        // the task-param-honoured fault makes a task of any tool the parameter asks it for
        let sync_only = runs == Runs::SyncOnly
            && !(self.has(Fault::TaskParamHonoured) && params.get("task").is_some());
        // a server may answer short work at once, whatever the request declares
        let short = self.is(Variant::ImmediateShortWork)
            && runs == Runs::Either
            && args.get("ms").and_then(Value::as_u64).unwrap_or(0) < SHORT_WORK_MS;
        if !as_task || sync_only || short {
            if runs == Runs::TaskOnly {
                return Err(match self.has(Fault::MissingCapabilityWrongCode) {
                    true => error(code::INVALID_PARAMS, format!("{name} runs only as a task")),
                    false => missing_capability(),
                });
            }
            return self.clone().work(name, &args, None).await.map(|mut r| {
                r["resultType"] = json!("complete");
                r
            });
        }
        if name == "confirm_first" && !self.has(Fault::MrtrInsideTask) {
            // the round trip is resolved before the task exists
            match confirmation(params, ask) {
                Some(answer) => args[CONFIRM] = json!(answer),
                None => {
                    // a minted key travels in the requestState, as a stateless server keeps it
                    let (key, state) = match self.is(Variant::OwnInputKeys) {
                        true => {
                            let key = minted_key();
                            (key.clone(), format!("{CONFIRM_STATE}:{key}"))
                        }
                        false => (ask.key.to_string(), CONFIRM_STATE.to_string()),
                    };
                    return Ok(json!({"resultType": "input_required",
                        "inputRequests": {key: elicitation(ask.message, ask.field)},
                        "requestState": state}));
                }
            }
        }
        Ok(self.create(name, args, caller).await)
    }

    /// Creates a task for a call and starts its work.
    pub(super) async fn create(
        self: &Arc<Self>,
        name: &str,
        args: Value,
        caller: Option<&str>,
    ) -> Value {
        let task_id = match self.has(Fault::SequentialTaskId) {
            true => format!(
                "task-{}",
                self.next_id
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            ),
            false => uuid::Uuid::new_v4().to_string(),
        };
        let created = now();
        let task = Task {
            owner: caller.map(str::to_string),
            status: "working",
            status_message: None,
            created_at: created.clone(),
            born: std::time::Instant::now(),
            updated_at: created,
            outcome: None,
            asking: BTreeMap::new(),
            answers: BTreeMap::new(),
            answered: Vec::new(),
            read_cancelled: false,
            wake: Arc::new(Notify::new()),
        };
        let mut handle = self.detail(&task_id, &task, View::Handle);
        handle["resultType"] = json!(match self.has(Fault::CreateResultTypeComplete) {
            true => "complete",
            false => "task",
        });
        let me = self.clone();
        let lazy = self.has(Fault::LazyCreation);
        let (id, name) = (task_id.clone(), name.to_string());
        let store = move || {
            me.lock().insert(id.clone(), task);
            tokio::spawn(async move {
                let outcome = me.clone().work(&name, &args, Some(&id)).await;
                me.finish(&id, outcome);
            });
        };
        match lazy {
            true => {
                tokio::spawn(async move {
                    tokio::time::sleep(Duration::from_millis(300)).await;
                    store();
                });
            }
            false => store(),
        }
        handle
    }

    /// Runs a fixture tool to its outcome, in the renamed-tools variant's words where it was
    /// called by that variant's name; `task` is the task it runs for, if any.
    pub(super) async fn work(
        self: Arc<Self>,
        name: &str,
        args: &Value,
        task: Option<&str>,
    ) -> Reply {
        let own_words = args.get(OWN_WORDS).is_some();
        let outcome = self.run_fixture(name, args, task).await;
        match own_words {
            true => outcome.map(renamed::output),
            false => outcome,
        }
    }

    /// Runs a fixture tool to its outcome; `task` is the task it runs for, if any.
    async fn run_fixture(self: Arc<Self>, name: &str, args: &Value, task: Option<&str>) -> Reply {
        let ms = args.get("ms").and_then(Value::as_u64).unwrap_or(0);
        tokio::time::sleep(Duration::from_millis(ms)).await;
        let task = task.unwrap_or_default();
        match name {
            "optional_sleep" | "required_sleep" => Ok(text(format!("slept {ms}"))),
            "greet" => Ok(text(format!(
                "Hello, {}!",
                args["name"].as_str().unwrap_or("world")
            ))),
            "tool_error" => Ok(
                json!({"content": [{"type": "text", "text": "tool_error fixture failed as asked"}], "isError": true}),
            ),
            "protocol_error" if task.is_empty() && self.has(Fault::PlainErrorResult) => Ok(
                json!({"content": [{"type": "text", "text": "protocol_error fixture: internal error as asked"}], "isError": true}),
            ),
            "protocol_error" => {
                let e = error(
                    code::INTERNAL_ERROR,
                    "protocol_error fixture: internal error as asked",
                );
                // the task's error is the very error a plain call ends in
                Err(match self.is(Variant::ExtraMeta) {
                    true => with_data(e),
                    false => e,
                })
            }
            "elicit_input" => {
                let answers = self
                    .ask(
                        task,
                        vec![("name", elicitation("Please enter your name.", "name"))],
                    )
                    .await?;
                Ok(text(format!(
                    "Hello, {}!",
                    answer_text(&answers[0], "name")
                )))
            }
            "elicit_pair" => {
                let answers = self
                    .ask(
                        task,
                        vec![
                            ("first", elicitation("Your first name?", "first")),
                            ("last", elicitation("Your last name?", "last")),
                        ],
                    )
                    .await?;
                Ok(text(format!(
                    "Hello, {} {}!",
                    answer_text(&answers[0], "first"),
                    answer_text(&answers[1], "last")
                )))
            }
            "elicit_twice" => {
                let first = self
                    .ask(task, vec![("first", elicitation("First answer?", "value"))])
                    .await?;
                let second = self
                    .ask(
                        task,
                        vec![("second", elicitation("Second answer?", "value"))],
                    )
                    .await?;
                Ok(text(format!(
                    "{} then {}",
                    answer_text(&first[0], "value"),
                    answer_text(&second[0], "value")
                )))
            }
            "confirm_first" => {
                let answer = match args.get(CONFIRM).and_then(Value::as_str) {
                    Some(given) => given.to_string(),
                    // the mrtr-inside-task fault asks inside the task instead
                    None => {
                        let answers = self
                            .ask(task, vec![(CONFIRM, elicitation("Proceed?", CONFIRM))])
                            .await?;
                        answer_text(&answers[0], CONFIRM)
                    }
                };
                Ok(text(format!("Confirmed: {answer}")))
            }
            _ => Err(error(
                code::INVALID_PARAMS,
                format!("unknown tool {name:?}"),
            )),
        }
    }

    /// Puts a task in `input_required` with these requests and waits for their answers
    /// (Err once the task is cancelled).
    pub(super) async fn ask(
        &self,
        task_id: &str,
        requests: Vec<(&str, Value)>,
    ) -> Result<Vec<Value>, Value> {
        let wake = {
            let mut tasks = self.lock();
            let Some(task) = tasks.get_mut(task_id) else {
                return Err(error(code::INTERNAL_ERROR, "the task is gone"));
            };
            // the reuses-input-key fault keys a later ask like the task's first
            let reused = task
                .answered
                .first()
                .filter(|_| self.has(Fault::ReusesInputKey));
            let keys: Vec<String> = requests
                .iter()
                .map(|(k, _)| match (reused, self.is(Variant::OwnInputKeys)) {
                    (Some(first), _) => first.clone(),
                    (None, true) => format!("{task_id}:{}", minted_key()),
                    (None, false) => k.to_string(),
                })
                .collect();
            for (key, (_, request)) in keys.iter().zip(&requests) {
                task.asking.insert(key.clone(), request.clone());
            }
            task.status = "input_required";
            task.updated_at = now();
            self.announce(task_id, task);
            (task.wake.clone(), keys)
        };
        let (wake, keys) = wake;
        loop {
            let notified = wake.notified();
            {
                let mut tasks = self.lock();
                let Some(task) = tasks.get_mut(task_id) else {
                    return Err(error(code::INTERNAL_ERROR, "the task is gone"));
                };
                if task.status == "cancelled" {
                    return Err(error(code::INTERNAL_ERROR, "cancelled"));
                }
                let partial = self.has(Fault::PartialCompletes)
                    && keys.iter().any(|k| task.answers.contains_key(k));
                if partial || keys.iter().all(|k| task.answers.contains_key(k)) {
                    let answers = keys
                        .iter()
                        .map(|k| {
                            task.answers
                                .remove(k)
                                .unwrap_or(json!({"action": "decline"}))
                        })
                        .collect();
                    for k in &keys {
                        task.asking.remove(k);
                        task.answered.push(k.clone());
                    }
                    task.status = "working";
                    task.updated_at = now();
                    self.announce(task_id, task);
                    return Ok(answers);
                }
            }
            notified.await;
        }
    }
}
