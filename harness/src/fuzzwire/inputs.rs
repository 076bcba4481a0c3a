//! The malformed and edge-case inputs `fuzz-wire` sends, drawn at random from a seed.

use crate::designs::Profile;
use crate::explore::ops::Offer;
use crate::fixtures::FixtureMap;
use proptest::prelude::Rng;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// What kind of input a case sends; it decides how the answer is judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    /// Text that is not JSON.
    ParseError,
    /// JSON that is not a valid JSON-RPC 2.0 message.
    InvalidRequest,
    /// A well-formed request for a method nobody defines.
    UnknownMethod,
    /// tasks/get, tasks/result or tasks/cancel with a taskId that is wrong, absent or huge.
    BadTaskId,
    /// tasks/list with a cursor of the wrong type or one never issued.
    BadCursor,
    /// tools/call whose `task` is not a TaskMetadata object.
    BadTaskParam,
    /// tools/call with a numeric ttl at the edges (negative, zero, fractional, huge).
    OddTtl,
    /// Two requests with the same id, back to back.
    DuplicateId,
    /// A response to a request the receiver never sent.
    StrayResponse,
    /// A notification (unknown, or a cancellation of nothing).
    Notification,
    /// A request sent before initialize.
    BeforeInit,
}

impl Class {
    /// The kebab-case name used in summaries and saved cases.
    pub fn name(self) -> String {
        serde_json::to_value(self)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default()
    }
}

/// One case: lines sent as they are, and the ids an answer to them may carry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Input {
    pub class: Class,
    /// Each line is sent as it is (no newline inside).
    pub lines: Vec<String>,
    /// Ids an answer may carry; null stands for an id that cannot be read.
    pub ids: Vec<Value>,
    /// Sent before initialize (initialization follows, then the ping).
    pub before_init: bool,
    /// The design of Tasks the case is sent under (how its session opens).
    #[serde(default, skip_serializing_if = "Profile::is_default")]
    pub profile: Profile,
}

impl Input {
    /// Whether the input is a `ping` request (allowed even before initialize).
    pub fn is_ping(&self) -> bool {
        self.lines.iter().any(|l| {
            serde_json::from_str::<Value>(l).is_ok_and(|v| v.get("method") == Some(&json!("ping")))
        })
    }
}

fn pick<'a, T>(rng: &mut impl Rng, items: &'a [T]) -> &'a T {
    &items[(rng.next_u64() % items.len() as u64) as usize]
}

fn word(rng: &mut impl Rng, len: usize) -> String {
    const CHARS: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    (0..len).map(|_| *pick(rng, CHARS) as char).collect()
}

/// A string of `len` characters, ASCII or not (the receiver must bound what it reads).
fn huge(rng: &mut impl Rng) -> String {
    let len = *pick(rng, &[1 << 10, 64 << 10, 256 << 10]);
    pick(rng, &["x", "é", "\u{1F600}", "\\u0000"]).repeat(len / 4)
}

fn request(id: &str, method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

/// Text that is certainly not JSON.
fn not_json(rng: &mut impl Rng, id: &str) -> String {
    let valid = request(id, "ping", json!({}));
    let text = match rng.next_u64() % 6 {
        0 => valid[..(rng.next_u64() as usize % (valid.len() - 1)).max(1)].to_string(),
        1 => format!(
            "{}}}",
            &valid[..valid.len() - 1].replace("\"ping\"", "\"ping\",")
        ),
        2 => valid.replace("{}", "{\"x\":NaN}"),
        3 => valid.replacen('"', "'", 4),
        4 => {
            let len = 1 + rng.next_u64() as usize % 200;
            word(rng, len)
        }
        _ => format!("{valid}{valid}"),
    };
    match serde_json::from_str::<Value>(&text) {
        Ok(_) => format!("{text}{{"),
        Err(_) => text,
    }
}

/// The case drawn from one seed, limited to what the receiver offers.
pub fn draw(
    rng: &mut impl Rng,
    case: u64,
    (offer, profile): (&Offer, Profile),
    tasks: bool,
    fixtures: &FixtureMap,
) -> Input {
    let mut input = draw_lines(rng, case, (offer, profile), tasks, fixtures);
    if let Some(meta) = profile.request_meta() {
        // every request carries the per-request _meta, so what is wrong is the input alone
        input.lines = input.lines.iter().map(|l| stamped(l, &meta)).collect();
    }
    input.profile = profile;
    input
}

/// A request line with the design's per-request `_meta` added (other lines as they are).
fn stamped(line: &str, request_meta: &serde_json::Map<String, Value>) -> String {
    let Ok(Value::Object(mut message)) = serde_json::from_str::<Value>(line) else {
        return line.to_string();
    };
    if !message.contains_key("method") || !message.contains_key("id") {
        return line.to_string();
    }
    let params = message.entry("params").or_insert_with(|| json!({}));
    if let Some(p) = params.as_object_mut() {
        let meta = p.entry("_meta").or_insert_with(|| json!({}));
        if let Some(m) = meta.as_object_mut() {
            m.extend(request_meta.clone());
        }
    }
    Value::Object(message).to_string()
}

/// The classes a receiver offering `offer` can be sent: before-init, bad-cursor, odd-ttl and
/// bad-task-param cases only where the design has an initialize, tasks/list and the `task`
/// parameter.
fn classes((offer, profile): (&Offer, Profile), tasks: bool) -> Vec<Class> {
    let requests = profile.requests();
    let mut classes = vec![
        Class::ParseError,
        Class::InvalidRequest,
        Class::UnknownMethod,
        Class::DuplicateId,
        Class::StrayResponse,
        Class::Notification,
    ];
    if requests.initialize {
        classes.push(Class::BeforeInit);
    }
    if tasks && !profile.task_id_requests(offer).is_empty() {
        classes.push(Class::BadTaskId);
    }
    if offer.list && requests.list.is_some() && profile.wire().list.is_some() {
        classes.push(Class::BadCursor);
    }
    if offer.tools.iter().any(|t| t == "optional_sleep") && requests.task_param.is_some() {
        classes.extend([Class::BadTaskParam, Class::OddTtl]);
    }
    classes
}

/// The case, before the design's per-request `_meta` is added to its lines.
fn draw_lines(
    rng: &mut impl Rng,
    case: u64,
    (offer, profile): (&Offer, Profile),
    tasks: bool,
    fixtures: &FixtureMap,
) -> Input {
    let id = format!("fw-{case}");
    let class = *pick(rng, &classes((offer, profile), tasks));
    let wire = profile.wire();
    let list = wire.list.filter(|_| offer.list);
    let one = |line: String, ids: Vec<Value>| Input {
        class,
        lines: vec![line],
        ids,
        before_init: false,
        profile: Profile::default(),
    };
    let sleep = |task: Value| {
        let call = json!({"name": "optional_sleep", "arguments": {"ms": 0}, "task": task});
        fixtures.apply(&call, false, false).unwrap_or(call)
    };
    match class {
        // a lenient parser may read the id anyway and answer as if the text were JSON
        Class::ParseError => one(not_json(rng, &id), vec![Value::Null, json!(id)]),
        Class::InvalidRequest => {
            let ping = json!({"jsonrpc": "2.0", "id": id, "method": "ping"});
            let mut bad = ping.clone();
            match rng.next_u64() % 9 {
                0 => bad["jsonrpc"] = json!("1.0"),
                1 => drop(bad.as_object_mut().map(|o| o.remove("jsonrpc"))),
                2 => bad["method"] = json!(42),
                3 => bad["id"] = json!({"not": "an id"}),
                4 => bad["id"] = json!(1.5),
                5 => bad = json!([ping, ping]),
                6 => bad = json!([]),
                7 => bad = pick(rng, &[json!(42), json!("ping"), json!(null), json!({})]).clone(),
                _ => bad["id"] = json!(true),
            }
            one(bad.to_string(), vec![json!(id), Value::Null])
        }
        Class::UnknownMethod => {
            let method = match rng.next_u64() % 4 {
                0 => format!("tasks/{}", word(rng, 8)),
                1 => format!("fw/{}", word(rng, 12)),
                2 => pick(
                    rng,
                    &["TASKS/GET", "tasks/get/", " ping", "rpc.discover", ""],
                )
                .to_string(),
                _ => {
                    let len = 1 + rng.next_u64() as usize % 40;
                    word(rng, len)
                }
            };
            one(request(&id, &method, json!({})), vec![json!(id)])
        }
        Class::BadTaskId => {
            let (method, extra) = pick(rng, &profile.task_id_requests(offer)).clone();
            let mut params = match rng.next_u64() % 10 {
                0 => json!({}),
                1 => json!({"taskId": null}),
                2 => json!({"taskId": 42}),
                3 => json!({"taskId": true}),
                4 => json!({"taskId": {"id": "x"}}),
                5 => json!({"taskId": ["x"]}),
                6 => json!({"taskId": ""}),
                7 => json!({"taskId": huge(rng)}),
                8 => json!({"taskId": "../../../etc/passwd"}),
                _ => json!({"taskId": format!("fw-{}", word(rng, 24))}),
            };
            if let (Some(p), Value::Object(extra)) = (params.as_object_mut(), extra) {
                p.extend(extra);
            }
            one(request(&id, method, params), vec![json!(id)])
        }
        Class::BadCursor => {
            let cursor = match rng.next_u64() % 5 {
                0 => json!(42),
                1 => json!({"page": 2}),
                2 => json!(["x"]),
                3 => json!(huge(rng)),
                _ => json!(format!("fw-not-a-cursor-{}", word(rng, 16))),
            };
            // drawn only where the design lists tasks and the receiver offers it
            let list = list.unwrap_or_default();
            one(
                request(&id, list, json!({"cursor": cursor})),
                vec![json!(id)],
            )
        }
        Class::BadTaskParam => {
            let task = pick(
                rng,
                &[
                    json!("soon"),
                    json!(5),
                    json!([]),
                    json!(true),
                    json!({"ttl": "x"}),
                    json!({"ttl": true}),
                    json!({"ttl": {}}),
                ],
            )
            .clone();
            one(request(&id, "tools/call", sleep(task)), vec![json!(id)])
        }
        Class::OddTtl => {
            let ttl: Value = pick(
                rng,
                &[
                    "-1",
                    "0",
                    "1.5",
                    "1e300",
                    "18446744073709551616",
                    "9007199254740993",
                    "-9223372036854775809",
                ],
            )
            .parse()
            .unwrap_or(Value::Null);
            one(
                request(&id, "tools/call", sleep(json!({"ttl": ttl}))),
                vec![json!(id)],
            )
        }
        Class::DuplicateId => {
            let line = match (list, rng.next_u64() % 2) {
                (Some(list), 0) => request(&id, list, json!({})),
                _ => request(&id, "ping", json!({})),
            };
            Input {
                class,
                lines: vec![line.clone(), line],
                ids: Vec::new(),
                before_init: false,
                profile: Profile::default(),
            }
        }
        Class::StrayResponse => {
            let line = match rng.next_u64() % 2 {
                0 => json!({"jsonrpc": "2.0", "id": id, "result": {}}),
                _ => {
                    json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32603, "message": "stray"}})
                }
            };
            one(line.to_string(), Vec::new())
        }
        Class::Notification => {
            let line = match rng.next_u64() % 2 {
                0 => {
                    json!({"jsonrpc": "2.0", "method": format!("notifications/fw-{}", word(rng, 8)), "params": {}})
                }
                _ => {
                    json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": format!("fw-nothing-{case}")}})
                }
            };
            one(line.to_string(), vec![Value::Null])
        }
        Class::BeforeInit => {
            let mut methods = vec![("ping", json!({}))];
            if tasks {
                methods.push((wire.get, json!({"taskId": "fw-before-init"})));
            }
            if let Some(list) = list {
                methods.push((list, json!({})));
            }
            let (method, params) = pick(rng, &methods).clone();
            Input {
                class,
                lines: vec![request(&id, method, params)],
                ids: vec![json!(id)],
                before_init: true,
                profile: Profile::default(),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::designs::{ext_tasks, EXT_TASKS};
    use crate::explore::seeded_rng;

    fn everything() -> Offer {
        Offer {
            list: true,
            cancel: true,
            tools: vec!["optional_sleep".into()],
        }
    }

    #[test]
    fn every_class_is_drawn_and_no_line_has_a_newline() {
        let mut seen = std::collections::BTreeSet::new();
        for case in 0..500 {
            let input = draw(
                &mut seeded_rng(case),
                case,
                (&everything(), Profile::default()),
                true,
                &FixtureMap::default(),
            );
            assert!(input.lines.iter().all(|l| !l.contains('\n')), "{input:?}");
            if input.class == Class::ParseError {
                assert!(
                    serde_json::from_str::<Value>(&input.lines[0]).is_err(),
                    "{input:?}"
                );
            }
            seen.insert(input.class);
        }
        assert_eq!(seen.len(), 11, "{seen:?}");
    }

    #[test]
    fn the_same_seed_draws_the_same_case() {
        let a = draw(
            &mut seeded_rng(9),
            9,
            (&everything(), Profile::default()),
            true,
            &FixtureMap::default(),
        );
        assert_eq!(
            a,
            draw(
                &mut seeded_rng(9),
                9,
                (&everything(), Profile::default()),
                true,
                &FixtureMap::default()
            )
        );
    }

    #[test]
    fn what_the_receiver_does_not_offer_is_not_drawn() {
        for case in 0..300 {
            let input = draw(
                &mut seeded_rng(case),
                case,
                (&Offer::default(), Profile::default()),
                false,
                &FixtureMap::default(),
            );
            assert!(
                !matches!(
                    input.class,
                    Class::BadTaskId | Class::BadCursor | Class::BadTaskParam | Class::OddTtl
                ),
                "{input:?}"
            );
        }
    }

    #[test]
    fn the_extensions_cases_carry_the_request_meta_and_only_its_classes() {
        let offer = everything();
        let mut seen = std::collections::BTreeSet::new();
        for case in 0..300 {
            let input = draw(
                &mut seeded_rng(case),
                case,
                (&offer, EXT_TASKS),
                true,
                &FixtureMap::default(),
            );
            assert_eq!(input.profile, EXT_TASKS);
            assert!(!input.before_init, "{input:?}");
            for line in &input.lines {
                let Ok(Value::Object(m)) = serde_json::from_str::<Value>(line) else {
                    continue;
                };
                if m.contains_key("id") && m.contains_key("method") {
                    let meta = m.get("params").and_then(|p| p.get("_meta"));
                    let version = meta.and_then(|m| m.get(ext_tasks::META_VERSION));
                    assert_eq!(version, Some(&json!(ext_tasks::PROTOCOL_VERSION)), "{line}");
                }
            }
            seen.insert(input.class);
        }
        assert_eq!(
            seen,
            classes((&offer, EXT_TASKS), true).into_iter().collect()
        );
        assert_eq!(seen.len(), 7, "{seen:?}");
    }
}
