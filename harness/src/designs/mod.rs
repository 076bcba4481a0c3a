//! Protocol profiles: the two designs of Tasks taskcheck tests. A profile is its rule
//! catalogue, its scenario folder, how a conversation opens, its monitors and its reference
//! receiver; the runner, transports, reports, baselines and diff take a profile and never
//! branch on which one it is.

pub mod ext_tasks;

use crate::monitor::{self, Context, Judgement};
use crate::scenario::ReceiverKind;
use crate::session::{ServerInfo, Session};
use crate::trace::Entry;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// One design of Tasks.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
pub enum Profile {
    /// The Tasks utility of protocol revision 2025-11-25: initialize, `task` param,
    /// tasks/get, tasks/result, tasks/list, tasks/cancel.
    #[default]
    #[serde(rename = "2025-11-25")]
    Tasks2025,
    /// The extension `io.modelcontextprotocol/tasks` on protocol revision 2026-07-28:
    /// stateless requests, server/discover, tasks/get, tasks/update, tasks/cancel.
    #[serde(rename = "ext-tasks")]
    ExtTasks,
}

impl Profile {
    /// Every profile, oldest first.
    pub const ALL: [Profile; 2] = [Profile::Tasks2025, Profile::ExtTasks];

    /// The name `--profile` takes and reports show.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Tasks2025 => "2025-11-25",
            Profile::ExtTasks => "ext-tasks",
        }
    }

    /// The protocol revision the profile speaks.
    pub fn protocol_version(self) -> &'static str {
        match self {
            Profile::Tasks2025 => crate::spec::PROTOCOL_VERSION,
            Profile::ExtTasks => ext_tasks::PROTOCOL_VERSION,
        }
    }

    /// What a report's heading calls the design: "MCP <title> conformance".
    pub fn title(self) -> &'static str {
        match self {
            Profile::Tasks2025 => "2025-11-25 Tasks",
            Profile::ExtTasks => "Tasks extension (io.modelcontextprotocol/tasks, 2026-07-28)",
        }
    }

    /// Where the catalogue's `section` anchors point.
    pub fn spec_base(self) -> &'static str {
        match self {
            Profile::Tasks2025 => {
                "https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks"
            }
            Profile::ExtTasks => "https://modelcontextprotocol.io/seps/2663-tasks-extension",
        }
    }

    /// The folder under `scenarios/` holding the profile's built-in scenarios (the
    /// 2025-11-25 ones are at the top and in `client/`).
    pub fn scenario_folder(self) -> Option<&'static str> {
        match self {
            Profile::Tasks2025 => None,
            Profile::ExtTasks => Some("ext-tasks"),
        }
    }

    /// The profile a `--profile` name means.
    pub fn by_name(name: &str) -> Option<Profile> {
        Profile::ALL.into_iter().find(|p| p.name() == name)
    }

    /// The profile a rule id belongs to.
    pub fn of_rule(id: &str) -> Profile {
        match id.starts_with(ext_tasks::RULE_PREFIX) {
            true => Profile::ExtTasks,
            false => Profile::Tasks2025,
        }
    }

    /// The fixture contract receivers of this profile play (`taskcheck list --fixtures`).
    pub fn fixture_contract(self) -> String {
        match self {
            Profile::Tasks2025 => format!(
                "{}\nClient receivers (`taskcheck client`):\n\n{}",
                crate::fixtures::contract_table(),
                crate::fixtures::client::contract_table()
            ),
            Profile::ExtTasks => ext_tasks::reference::contract_table(),
        }
    }

    /// The server capability (a dotted path) under which tools/call can create tasks.
    pub fn task_tools_capability(self) -> &'static str {
        match self {
            Profile::Tasks2025 => "tasks.requests.tools.call",
            Profile::ExtTasks => "extensions.io.modelcontextprotocol/tasks",
        }
    }

    /// The request that asks whether a receiver still answers, with a result: ping, which
    /// 2026-07-28 removed, so server/discover there.
    pub fn liveness_method(self) -> &'static str {
        match self {
            Profile::Tasks2025 => "ping",
            Profile::ExtTasks => "server/discover",
        }
    }

    /// The client capabilities a scenario declares unless it says otherwise.
    pub fn default_client_capabilities(self) -> Value {
        match self {
            Profile::Tasks2025 => json!({"elicitation": {}}),
            // the fixtures' input requests are elicitations, which a client must declare
            Profile::ExtTasks => {
                let mut caps = ext_tasks::declaring();
                caps["elicitation"] = json!({});
                caps
            }
        }
    }

    /// Opens a conversation with the receiver and learns what it declares.
    pub async fn open(
        self,
        session: &Session,
        receiver: ReceiverKind,
        capabilities: Value,
    ) -> Result<ServerInfo, String> {
        match (self, receiver) {
            (Profile::ExtTasks, _) => ext_tasks::open(session, capabilities).await,
            (Profile::Tasks2025, ReceiverKind::Server) => session.initialize(capabilities).await,
            (Profile::Tasks2025, ReceiverKind::Client) => session.accept(json!({})).await,
        }
    }

    /// Judges a session's trace by the profile's monitors.
    pub fn judge(self, entries: &[Entry], ctx: &Context) -> Judgement {
        match self {
            Profile::Tasks2025 => monitor::judge(entries, ctx),
            Profile::ExtTasks => ext_tasks::monitor::judge(entries, ctx),
        }
    }

    /// The rules the profile's monitors judge on every run.
    pub fn monitor_rules(self) -> &'static [&'static str] {
        match self {
            Profile::Tasks2025 => &monitor::MONITOR_RULES,
            Profile::ExtTasks => ext_tasks::monitor::RULES,
        }
    }

    /// Serde's default check, to leave the default profile out of files.
    pub fn is_default(&self) -> bool {
        *self == Profile::default()
    }
}

impl std::fmt::Display for Profile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_rules_find_their_profile() {
        for p in Profile::ALL {
            assert_eq!(Profile::by_name(p.name()), Some(p));
        }
        assert_eq!(Profile::by_name("2026"), None);
        assert_eq!(
            Profile::of_rule("ext-tasks.get.unknown-task"),
            Profile::ExtTasks
        );
        assert_eq!(Profile::of_rule("tasks.result.exact"), Profile::Tasks2025);
        assert_eq!(Profile::of_rule("wire.jsonrpc.version"), Profile::Tasks2025);
    }
}
