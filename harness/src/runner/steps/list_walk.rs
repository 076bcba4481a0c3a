//! The `walk_list` step: every page of tasks/list, judged for what it must and must not
//! show, and for where its first page stops.

use super::*;

impl<'a> Exec<'a> {
    pub(super) async fn walk_list(
        &self,
        step: &Step,
        lists: &ListChecks<'_>,
        state: &mut State,
    ) -> Result<(), Stop> {
        let wanted = ids_in(lists.contains, state)?;
        let unwanted = ids_in(lists.lacks, state)?;
        let walk = match self.walk(step, state).await? {
            Walked::All(walk) => walk,
            Walked::Unanswered => return Ok(()),
            // a refused listing shows none of the tasks that must stay hidden
            Walked::Refused(why, evidence) if lists.contains.is_none() && lists.lacks.is_some() => {
                return state.judge(&step.rule, true, format!("{why}: nothing listed"), evidence);
            }
            Walked::Refused(why, evidence) => return state.judge(&step.rule, false, why, evidence),
        };
        let mut evidence = walk.evidence.clone();
        if lists.lacks.is_some() {
            let listed = ids_of(&walk.tasks);
            let leaked: Vec<&String> = unwanted.iter().filter(|u| listed.contains(*u)).collect();
            state.judge(
                &step.rule,
                leaked.is_empty(),
                if leaked.is_empty() {
                    format!("none of {} other task(s) listed", unwanted.len())
                } else {
                    format!("{} shows task(s) it must not: {leaked:?}", self.list()?)
                },
                evidence.clone(),
            )?;
        }
        if let Some(rule) = lists.page_limit_rule {
            let held = walk.first_page.len() < PAGE_LIMIT || walk.first_has_cursor;
            state.record(Check::judged(
                rule,
                held,
                format!(
                    "the first page holds {} task(s){}",
                    walk.first_page.len(),
                    match walk.first_has_cursor {
                        true => " and has a nextCursor",
                        false => " and no nextCursor",
                    }
                ),
                walk.first_evidence.clone(),
            ));
        }
        let mut all = walk.tasks.clone();
        if lists.contains.is_some() {
            let mut listed = ids_of(&walk.tasks);
            if wanted.iter().any(|w| !listed.contains(w)) {
                // pages need not be stable while tasks are created (another scenario's, on a
                // receiver with one store): walk again with none under way before judging
                let _quiet = CREATIONS.write().await;
                if let Walked::All(again) = self.walk(step, state).await? {
                    evidence.extend(again.evidence);
                    listed = ids_of(&again.tasks);
                    all = again.tasks;
                }
            }
            // a task tasks/get no longer finds need not be listed; the others' statuses tell
            // a page cut short from a listing that filters
            let mut missing: Vec<(String, String)> = Vec::new();
            for id in wanted.iter().filter(|w| !listed.contains(*w)) {
                let reply = self
                    .request(step, self.wire.get, json!({"taskId": id}), state)
                    .await?;
                if let Some(Reply {
                    outcome: Outcome::Result(task),
                    seq,
                    ..
                }) = reply
                {
                    evidence.push(seq);
                    let status = task["status"].as_str().unwrap_or_default().to_string();
                    missing.push((id.clone(), status));
                }
            }
            let first_listed = &walk.first_page;
            let cut_short = !walk.first_has_cursor
                && missing
                    .iter()
                    .any(|(_, status)| first_listed.iter().any(|t| t["status"] == **status));
            if let (Some(rule), false) = (lists.next_cursor_rule, wanted.is_empty()) {
                let on_page = ids_of(first_listed);
                let left_out = wanted.iter().filter(|w| !on_page.contains(*w)).count();
                let held = left_out == 0 || walk.first_has_cursor || missing.is_empty();
                let check = Check::judged(
                    rule,
                    held,
                    match (left_out, walk.first_has_cursor) {
                        (0, _) => format!("the first page holds all {} task(s)", wanted.len()),
                        (n, true) => format!("the first page leaves out {n} task(s) and has a nextCursor"),
                        (n, false) if missing.is_empty() => format!("the first page leaves out {n} task(s), none of them retrievable any more, and has no nextCursor"),
                        (n, false) => format!("the first page leaves out {n} of {} retrievable task(s) but has no nextCursor", wanted.len()),
                    },
                    walk.first_evidence.clone(),
                );
                // without a page cut short, the tasks are left out of the listing itself
                state.record(match held || cut_short {
                    true => check,
                    // the tasks left out are the walk's own rule's to judge
                    false => match &step.rule {
                        Some(rule) => check.following(pending_root(rule)),
                        None => check,
                    },
                });
            }
            let held = missing.is_empty();
            let message = if held {
                format!(
                    "all {} task(s) listed, or no longer retrievable",
                    wanted.len()
                )
            } else {
                format!(
                    "retrievable task(s) missing from {}: {:?} ({} listed)",
                    self.list()?,
                    missing
                        .iter()
                        .map(|(id, s)| format!("{id} ({s})"))
                        .collect::<Vec<_>>(),
                    listed.len()
                )
            };
            let judged = |rule: &str| Check::judged(rule, held, message.clone(), evidence.clone());
            match (&step.rule, lists.next_cursor_rule) {
                (Some(rule), Some(next)) if !held && cut_short => {
                    state.record(judged(rule).following(pending_root(next)))
                }
                (Some(rule), _) => state.record(judged(rule)),
                (None, _) if held => {}
                (None, _) => return Err(Stop::Prerequisite(message)),
            }
        }
        let all = Outcome::Result(json!({"tasks": all}));
        self.judge_answer(step, &all, evidence, state)
    }

    /// The design's request that lists tasks.
    fn list(&self) -> Result<&'static str, Stop> {
        self.wire
            .list
            .ok_or_else(|| Stop::Prerequisite("the scenario's design lists no tasks".into()))
    }

    /// Walks the design's list of tasks through every cursor.
    async fn walk(&self, step: &Step, state: &mut State) -> Result<Walked, Stop> {
        let list = self.list()?;
        let mut walk = Walk::default();
        let mut cursor: Option<Value> = None;
        let mut seen_cursors = BTreeSet::new();
        for page_number in 0..MAX_LIST_PAGES {
            let params = match &cursor {
                Some(c) => json!({"cursor": c}),
                None => json!({}),
            };
            let Some(reply) = self.request(step, list, params, state).await? else {
                return Ok(Walked::Unanswered);
            };
            walk.evidence.push(reply.seq);
            let page = match reply.outcome {
                Outcome::Result(p) => p,
                e @ Outcome::Error(_) => {
                    let why = format!("{list} answered {}", describe(&e));
                    return Ok(Walked::Refused(why, walk.evidence));
                }
            };
            let listed = page
                .get("tasks")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            cursor = page.get("nextCursor").filter(|c| !c.is_null()).cloned();
            if page_number == 0 {
                walk.first_page = listed.clone();
                walk.first_has_cursor = cursor.is_some();
                walk.first_evidence = vec![reply.asked, reply.seq];
            }
            walk.tasks.extend(listed);
            match &cursor {
                None => break,
                Some(c) if !seen_cursors.insert(c.to_string()) => {
                    return Err(Stop::Prerequisite(format!(
                        "{list} returned cursor {c} twice: the walk would never end"
                    )));
                }
                Some(_) => {}
            }
        }
        Ok(Walked::All(walk))
    }
}

/// A first page of this many tasks or more, without a `nextCursor`, does not limit them
/// (taskcheck's reading of "limit"; see tasks.list.paginate).
const PAGE_LIMIT: usize = 100;

/// A root named by a step, for the scenario's attribution to place (`roots::attribute`).
fn pending_root(rule: &str) -> Root {
    Root {
        rule: rule.to_string(),
        scenario: String::new(),
        step: None,
    }
}

/// Task creations under way in this process: a list walk that must not see pages shift waits
/// for them to end, and holds new ones back while it walks.
pub(super) static CREATIONS: tokio::sync::RwLock<()> = tokio::sync::RwLock::const_new(());

/// One walk through every page of tasks/list.
#[derive(Default)]
struct Walk {
    tasks: Vec<Value>,
    first_page: Vec<Value>,
    first_has_cursor: bool,
    /// The first page's request and answer.
    first_evidence: Vec<u64>,
    /// Every page's answer.
    evidence: Vec<u64>,
}

/// How a walk ended.
enum Walked {
    All(Walk),
    /// A page got no answer in time (already judged under the step's rule).
    Unanswered,
    /// A page was answered with an error.
    Refused(String, Vec<u64>),
}

/// What a `walk_list` step judges.
pub(super) struct ListChecks<'a> {
    pub(super) contains: &'a Option<String>,
    pub(super) lacks: &'a Option<String>,
    pub(super) next_cursor_rule: &'a Option<String>,
    pub(super) page_limit_rule: &'a Option<String>,
}

/// The task ids the `${var}`s of a text hold (each a string or an array), but those of
/// captures a left-out step would have set; none without a text.
fn ids_in(text: &Option<String>, state: &State) -> Result<Vec<String>, Stop> {
    let Some(text) = text else {
        return Ok(Vec::new());
    };
    let mut ids = Vec::new();
    for name in matcher::references(&json!(text)) {
        if state.missing.contains_key(&name) {
            continue;
        }
        let value = matcher::substitute(&json!(format!("${{{name}}}")), &state.vars)
            .map_err(Stop::Prerequisite)?;
        match value {
            Value::Array(a) => ids.extend(a.iter().map(wire::id_text)),
            other => ids.push(wire::id_text(&other)),
        }
    }
    Ok(ids)
}

/// The task ids of Task objects.
fn ids_of(tasks: &[Value]) -> BTreeSet<String> {
    tasks
        .iter()
        .filter_map(|t| t.get("taskId").map(wire::id_text))
        .collect()
}
