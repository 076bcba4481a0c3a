//! The registry of the designs of Tasks: the one file that names them all, a line each. Each
//! design is a folder below this one that implements [`Design`] for the type named here;
//! everything else reaches a design through the [`Profile`] it is given.

use crate::design::Design;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

// The designs' folders, declared outside the macro below so that rustfmt reaches them.
pub mod ext_tasks;
#[cfg(test)]
pub mod probe;
pub mod tasks_2025;

/// Declares the designs, oldest first: `CONST = Type in folder` (the folder declared as a
/// module above). The first is the default, the design of files written before there were
/// profiles.
macro_rules! designs {
    ($($(#[$only:meta])* $konst:ident = $ty:ident in $folder:ident;)+) => {
        $(
            $(#[$only])*
            #[doc = concat!("The design implemented in `designs/", stringify!($folder), "/`.")]
            pub struct $ty;
            $(#[$only])*
            #[doc = concat!("The profile of [`", stringify!($ty), "`].")]
            pub const $konst: Profile = Profile { design: &$ty, ident: stringify!($ty) };
        )+
        /// Every design, oldest first.
        pub const ALL: &[Profile] = &[$($(#[$only])* $konst),+];
    };
}

designs! {
    TASKS_2025 = Tasks2025 in tasks_2025;
    EXT_TASKS = ExtTasks in ext_tasks;
    // in the crate's own tests only: a design is a folder and this line
    #[cfg(test)]
    PROBE = Probe in probe;
}

/// One design of Tasks, as runs, scenarios and reports name it.
#[derive(Clone, Copy)]
pub struct Profile {
    design: &'static dyn Design,
    ident: &'static str,
}

impl Profile {
    /// Every profile, oldest first.
    pub const ALL: &'static [Profile] = ALL;

    /// The name `--profile` takes and reports show.
    pub fn name(self) -> &'static str {
        self.design.facts().name
    }

    /// What the design's messages are called on the wire.
    pub fn wire(self) -> &'static crate::design::Wire {
        &self.design.facts().wire
    }

    /// The profile a `--profile` name means.
    pub fn by_name(name: &str) -> Option<Profile> {
        ALL.iter().copied().find(|p| p.name() == name)
    }

    /// The fixture roles of every design (what `--fixtures` may map).
    pub fn fixture_roles() -> Vec<&'static str> {
        let mut roles: Vec<&'static str> = ALL.iter().flat_map(|p| p.fixture_roles()).collect();
        roles.sort();
        roles.dedup();
        roles
    }

    /// The reference clients of the designs that have one (`taskcheck reference-client`).
    pub fn reference_clients() -> impl Iterator<Item = &'static dyn crate::design::ReferenceClient>
    {
        ALL.iter().filter_map(|p| p.reference().client())
    }

    /// The reference requestor of this design, where it has one.
    pub fn reference_requestor(self) -> Option<&'static dyn crate::design::ReferenceRequestor> {
        self.reference().requestor()
    }

    /// The profile whose catalogue holds a rule (the default for a rule of none).
    pub fn of_rule(id: &str) -> Profile {
        crate::spec::rule(id)
            .and_then(|r| Profile::by_name(&r.catalogue))
            .unwrap_or_default()
    }

    /// The rules of the profile's catalogue.
    pub fn rules(self) -> impl Iterator<Item = &'static crate::spec::Rule> {
        crate::spec::catalogue()
            .iter()
            .filter(move |r| r.catalogue == self.name())
    }

    /// The spec link of a rule of any profile: its own `url`, or its section under the spec of
    /// the profile whose catalogue holds it.
    pub fn link(rule: &crate::spec::Rule) -> String {
        rule.url.clone().unwrap_or_else(|| {
            let base = Profile::by_name(&rule.catalogue).unwrap_or_default();
            format!("{}#{}", base.design.facts().spec_base, rule.section)
        })
    }

    /// Serde's default check, to leave the default profile out of files.
    pub fn is_default(&self) -> bool {
        *self == Profile::default()
    }
}

impl std::ops::Deref for Profile {
    type Target = dyn Design;
    fn deref(&self) -> &Self::Target {
        self.design
    }
}

impl Default for Profile {
    fn default() -> Profile {
        ALL[0]
    }
}

impl PartialEq for Profile {
    fn eq(&self, other: &Profile) -> bool {
        self.ident == other.ident
    }
}

impl Eq for Profile {}

impl std::hash::Hash for Profile {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.ident.hash(state)
    }
}

impl std::fmt::Debug for Profile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.ident)
    }
}

impl std::fmt::Display for Profile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for Profile {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Profile {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Profile, D::Error> {
        static NAMES: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
        let name = String::deserialize(d)?;
        Profile::by_name(&name).ok_or_else(|| {
            let names = NAMES.get_or_init(|| ALL.iter().map(|p| p.name()).collect());
            serde::de::Error::unknown_variant(&name, names)
        })
    }
}

impl schemars::JsonSchema for Profile {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Profile".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let one_of: Vec<serde_json::Value> = ALL
            .iter()
            .map(|p| {
                serde_json::json!({"description": p.facts().summary, "type": "string", "const": p.name()})
            })
            .collect();
        schemars::json_schema!({"description": "One design of Tasks.", "oneOf": one_of})
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_rules_find_their_profile() {
        for p in Profile::ALL {
            assert_eq!(Profile::by_name(p.name()), Some(*p));
        }
        assert_eq!(Profile::by_name("2026"), None);
        assert_eq!(Profile::of_rule("ext-tasks.get.unknown-task"), EXT_TASKS);
        assert_eq!(Profile::of_rule("tasks.result.exact"), TASKS_2025);
        assert_eq!(Profile::of_rule("wire.jsonrpc.version"), TASKS_2025);
    }
}
