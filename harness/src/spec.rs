//! The rule catalogues: every normative statement of the 2025-11-25 Tasks utility (with the
//! JSON-RPC wire rules `fuzz-wire` judges) and of the Tasks extension, one file per profile.

use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

use include_dir::{include_dir, Dir};

/// The protocol revision of the 2025-11-25 profile.
pub const PROTOCOL_VERSION: &str = "2025-11-25";

/// One catalogue per design of Tasks, `<design name>.yaml`.
static CATALOGUES: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/catalogue");
/// Where designs that exist only in the crate's own unit tests keep theirs.
const TEST_ONLY: &str = "test-only";

/// RFC 2119 level of a statement; decides the severity of a failed check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Level {
    #[serde(rename = "MUST")]
    Must,
    #[serde(rename = "MUST NOT")]
    MustNot,
    #[serde(rename = "SHOULD")]
    Should,
    #[serde(rename = "SHOULD NOT")]
    ShouldNot,
    #[serde(rename = "MAY")]
    May,
}

impl Level {
    /// MUST and MUST NOT: a violation makes the receiver non-conformant.
    pub fn is_mandatory(self) -> bool {
        matches!(self, Level::Must | Level::MustNot)
    }

    /// The spelling used in the spec.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Must => "MUST",
            Level::MustNot => "MUST NOT",
            Level::Should => "SHOULD",
            Level::ShouldNot => "SHOULD NOT",
            Level::May => "MAY",
        }
    }
}

/// Which party a statement binds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Actor {
    Receiver,
    Requestor,
}

/// How taskcheck treats a rule (see the header of `catalogue/2025-11-25.yaml`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Checked,
    Info,
    Requestor,
    Untestable,
    Pending,
}

/// One catalogue entry.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    pub id: String,
    pub level: Level,
    pub actor: Actor,
    pub section: String,
    pub status: Status,
    pub summary: String,
    #[serde(default)]
    pub note: Option<String>,
    #[serde(default)]
    pub reason: Option<String>,
    /// The source of a rule that is not from the Tasks text (`wire.*`, `transport.*`).
    #[serde(default)]
    pub url: Option<String>,
    /// For a rule no keyword states: the spec's sentence it is derived from.
    #[serde(default)]
    pub derived_from: Option<String>,
    /// Why the design's monitors cannot judge the rule from a trace, where only a scenario's
    /// own act shows it (a run's setting, the known length of a fixture's work): the short
    /// list of rules `check` and `watch` leave to `run`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario_only: Option<String>,
    /// The one transport the rule speaks of (`http`, `stdio`): over the other it is not
    /// applicable, so a recording on that one never leaves it unexercised.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<String>,
    /// For a requestor rule: the receiver rules whose failure can lead a correct client to
    /// break it (a client cannot copy what the server never sent), so a failure of one
    /// excuses it, shown as that failure's consequence. No other server failure does.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub depends_on: Vec<String>,
    /// For a requestor rule judged on what the client left undone: it needs the conversation
    /// to have ended by the client's doing (or gone quiet), else the client may simply not
    /// have got there yet.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub needs_end: bool,
    /// The official conformance suite's checks of the same requirement, as
    /// `<official scenario>:<check id>`; the first names the rule's checks in `checks.json`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub official: Vec<String>,
    /// Whether scenarios of every design may judge the rule, not only its catalogue's (the
    /// JSON-RPC and transport rules, which hold whatever the design of Tasks).
    #[serde(default, skip_serializing)]
    pub every_design: bool,
    /// The catalogue holding the rule: the name of its design.
    #[serde(skip)]
    pub catalogue: String,
}

impl Rule {
    /// The official check id `checks.json` names the rule's checks by, if it has one.
    pub fn official_check(&self) -> Option<&str> {
        self.official_checks().next()
    }

    /// Every official check id (without its scenario) that judges the rule's requirement.
    pub fn official_checks(&self) -> impl Iterator<Item = &str> {
        self.official
            .iter()
            .map(|o| o.split_once(':').map_or(o.as_str(), |(_, check)| check))
    }
}

/// Every embedded rule of every profile, parsed once.
pub fn catalogue() -> &'static [Rule] {
    static RULES: OnceLock<Vec<Rule>> = OnceLock::new();
    RULES.get_or_init(|| {
        let test_only = CATALOGUES
            .get_dir(TEST_ONLY)
            .filter(|_| cfg!(test))
            .map(|d| d.files());
        let mut files: Vec<_> = CATALOGUES
            .files()
            .chain(test_only.into_iter().flatten())
            .filter(|f| f.path().extension().is_some_and(|e| e == "yaml"))
            .collect();
        files.sort_by_key(|f| f.path());
        files
            .into_iter()
            .flat_map(|f| {
                let name = f.path().file_stem().unwrap_or_default().to_string_lossy();
                let text = f.contents_utf8().unwrap_or_default();
                let mut rules: Vec<Rule> =
                    serde_saphyr::from_str(text).expect("embedded catalogue is valid YAML");
                for r in &mut rules {
                    r.catalogue = name.to_string();
                }
                rules
            })
            .collect()
    })
}

/// Looks a rule up by id.
pub fn rule(id: &str) -> Option<&'static Rule> {
    catalogue().iter().find(|r| r.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn ids_are_unique_and_dotted() {
        let mut seen = HashSet::new();
        for r in catalogue() {
            assert!(seen.insert(r.id.clone()), "duplicate rule id {}", r.id);
            assert!(
                ["tasks.", "wire.", "transport.", "ext-tasks."]
                    .iter()
                    .any(|p| r.id.starts_with(p)),
                "{}",
                r.id
            );
            // rules from other pages than the Tasks ones name their source
            assert!(
                r.id.starts_with("tasks.") || r.id.starts_with("ext-tasks.") || r.url.is_some(),
                "{}",
                r.id
            );
            assert!(!r.summary.is_empty());
        }
        let of = |name: &str| catalogue().iter().filter(|r| r.catalogue == name).count();
        assert!(of("2025-11-25") > 50);
        assert!(of("ext-tasks") > 40);
    }

    #[test]
    fn non_checked_rules_say_why() {
        for r in catalogue() {
            let needs_reason = matches!(
                r.status,
                Status::Untestable | Status::Pending | Status::Requestor
            );
            assert_eq!(needs_reason, r.reason.is_some(), "reason of {}", r.id);
        }
    }

    #[test]
    fn requestor_rules_are_checked_only_where_something_judges_them() {
        for r in catalogue() {
            if r.actor == Actor::Requestor {
                let judged = crate::designs::Profile::ALL
                    .iter()
                    .any(|p| p.requestor_rules().contains(&r.id.as_str()));
                assert!(
                    r.status != Status::Checked
                        || judged
                        || crate::designs::tasks_2025::monitor::MONITOR_RULES
                            .contains(&r.id.as_str()),
                    "{}",
                    r.id
                );
            }
            if r.status == Status::Requestor {
                assert_eq!(r.actor, Actor::Requestor, "{}", r.id);
            }
        }
    }
}
