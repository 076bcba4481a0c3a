//! Verdicts and checks: what taskcheck concluded about one rule, with its evidence.

use crate::spec::{self, Level};
use serde::{Deserialize, Serialize};

/// The outcome of one check. Ordered from best to worst for aggregation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The rule held.
    Pass,
    /// A MAY: behaviour recorded, never a failure.
    Info,
    /// The receiver did not declare the capability the rule needs.
    NotApplicable,
    /// The rule could not be judged (missing fixture tool, failed prerequisite, not observed).
    Untestable,
    /// What was seen breaks the rule only because of a failure already reported (its `root`):
    /// one defect gives one failure, so this is shown under the root and never counted as failed.
    Consequence,
    /// A SHOULD or SHOULD NOT was broken.
    Warn,
    /// A MUST or MUST NOT was broken.
    Fail,
    /// taskcheck could not judge because the transport or the harness failed.
    Error,
}

impl Verdict {
    /// Upper-case label used in the terminal report.
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Pass => "PASS",
            Verdict::Info => "INFO",
            Verdict::NotApplicable => "N/A",
            Verdict::Untestable => "UNTESTABLE",
            Verdict::Consequence => "CONSEQUENCE",
            Verdict::Warn => "WARN",
            Verdict::Fail => "FAIL",
            Verdict::Error => "ERROR",
        }
    }

    /// Whether the check judged its rule (anything but untestable or not applicable).
    pub fn is_judgement(self) -> bool {
        !matches!(self, Verdict::Untestable | Verdict::NotApplicable)
    }

    /// Whether the rule was not met: broken (a MUST or a SHOULD), or not judged for an error.
    pub fn not_met(self) -> bool {
        matches!(self, Verdict::Fail | Verdict::Warn | Verdict::Error)
    }

    /// The verdict a rule gets when its check held or not, by the rule's level.
    pub fn judged(rule: &str, held: bool) -> Verdict {
        match spec::rule(rule).map(|r| r.level) {
            Some(Level::May) => Verdict::Info,
            _ if held => Verdict::Pass,
            Some(l) if l.is_mandatory() => Verdict::Fail,
            Some(_) => Verdict::Warn,
            None => Verdict::Error,
        }
    }
}

/// One judgement of one rule.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Check {
    pub rule: String,
    pub verdict: Verdict,
    pub message: String,
    /// Trace sequence numbers of the messages that prove it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<u64>,
    /// The pattern an answer was held to, where a step compared one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
    /// The answer it was compared with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actual: Option<String>,
    /// The scenario step that sent the request this check judged (`3`, or `5.2` inside step 5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
    /// For a consequence (or a rule left untestable by one): the failure it follows from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root: Option<Root>,
}

/// The failure a consequence follows from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Root {
    pub rule: String,
    pub scenario: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
}

impl std::fmt::Display for Root {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "consequence of {} ({}", self.rule, self.scenario)?;
        if let Some(step) = &self.step {
            write!(f, ", step {step}")?;
        }
        f.write_str(")")
    }
}

impl Check {
    /// A check judged by whether the rule held.
    pub fn judged(rule: &str, held: bool, message: impl Into<String>, evidence: Vec<u64>) -> Check {
        Check {
            rule: rule.to_string(),
            verdict: Verdict::judged(rule, held),
            message: message.into(),
            evidence,
            expected: None,
            actual: None,
            step: None,
            root: None,
        }
    }

    /// The same check, saying what was expected and what was seen.
    pub fn comparing(mut self, expected: String, actual: String) -> Check {
        self.expected = Some(expected);
        self.actual = Some(actual);
        self
    }

    /// A check with a fixed verdict (not-applicable, untestable, error).
    pub fn with(rule: &str, verdict: Verdict, message: impl Into<String>) -> Check {
        Check {
            rule: rule.to_string(),
            verdict,
            message: message.into(),
            evidence: Vec::new(),
            expected: None,
            actual: None,
            step: None,
            root: None,
        }
    }

    /// Whether this check broke its rule (a MUST or a SHOULD), before attribution.
    pub fn broke(&self) -> bool {
        matches!(self.verdict, Verdict::Fail | Verdict::Warn)
    }

    /// The same observation, explained by `root`: a failure becomes a consequence, any other
    /// verdict (an untestable rule, say) keeps its verdict and says where it comes from.
    pub fn following(mut self, root: Root) -> Check {
        if self.verdict.not_met() {
            self.verdict = Verdict::Consequence;
        }
        self.root = Some(root);
        self
    }

    /// The message with the root it follows from, if any.
    pub fn explained(&self) -> String {
        match &self.root {
            Some(root) => format!("{} [{root}]", self.message),
            None => self.message.clone(),
        }
    }
}
