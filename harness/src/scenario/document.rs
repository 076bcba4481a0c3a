//! One scenario file as a whole: its header (id, receiver, design, rules) and its steps.

use super::format::{each_step, step_label, PeerName, Requires, Step, StepKind};
use crate::designs::Profile;
use crate::transport::ReceiverKind;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One scenario file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Stable slug, unique in the library.
    pub id: String,
    pub title: String,
    /// Who receives the tasks: a server (the default; taskcheck is its client, `taskcheck run`)
    /// or a client (taskcheck is its server, `taskcheck client`).
    #[serde(default, skip_serializing_if = "ReceiverKind::is_server")]
    pub receiver: ReceiverKind,
    /// The design of Tasks the scenario tests: `2025-11-25` (the default) or `ext-tasks`.
    #[serde(default, skip_serializing_if = "Profile::is_default")]
    pub profile: Profile,
    /// Catalogue rule ids this scenario judges.
    pub rules: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Requires::is_empty")]
    pub requires: Requires,
    /// Requestor rules this scenario breaks on purpose to test the receiver's answer; taskcheck
    /// reports any other break of a requestor rule by itself as a harness error.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub breaks: Vec<String>,
    /// Client capabilities: sent in initialize (2025-11-25, default `{elicitation: {}}`), or
    /// in every request's `_meta` (ext-tasks, default: the extension and elicitation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_capabilities: Option<Value>,
    /// Deadline of the whole scenario in ms (default: the run's --scenario-timeout-ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    pub steps: Vec<Step>,
}

impl Scenario {
    /// Every step with its label, nested ones included, in order.
    pub fn labelled_steps(&self) -> Vec<(String, &Step)> {
        fn walk<'a>(steps: &'a [Step], outer: &str, out: &mut Vec<(String, &'a Step)>) {
            for (i, s) in steps.iter().enumerate() {
                let label = step_label(outer, i);
                out.push((label.clone(), s));
                if let StepKind::Parallel(inner) | StepKind::Sequence(inner) = &s.kind {
                    walk(inner, &label, out);
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.steps, "", &mut out);
        out
    }

    /// Every rule a step or check of this scenario judges.
    pub fn judged_rules(&self) -> Vec<String> {
        let mut out = Vec::new();
        each_step(&self.steps, &mut |s| out.extend(s.rules()));
        out
    }

    /// Every rule a step of this scenario takes for granted (`given`).
    pub fn given_rules(&self) -> Vec<String> {
        let mut out = Vec::new();
        each_step(&self.steps, &mut |s| out.extend(s.given.iter().cloned()));
        out
    }

    /// Whether some step runs on the second requestor's session.
    pub fn uses_peer_b(&self) -> bool {
        let mut b = false;
        each_step(&self.steps, &mut |s| b |= s.peer == PeerName::B);
        b
    }
}
