//! Fault tables of reference receivers, generic over each design's own fault enum: a fault
//! breaks one rule on purpose, proving its check can fail.

use std::collections::HashSet;
use std::hash::Hash;

/// A fault's name, the rules it makes fail (the targeted one first), and what it does. `F` is
/// the design's fault enum; listings and `explain` read a [`FaultEntry`], which has none.
#[derive(Clone, Copy)]
pub struct FaultInfo<F> {
    pub fault: F,
    pub name: &'static str,
    pub rules: &'static [&'static str],
    pub description: &'static str,
    /// Rules the fault may also break, depending on timing (documented consequences).
    pub may_also: &'static [&'static str],
    /// Rules that must show as consequences of the fault's failure, not as failures.
    pub follows: &'static [&'static str],
}

/// A fault as a design reports it, without its design's enum.
pub type FaultEntry = FaultInfo<()>;

impl<F> FaultInfo<F> {
    /// The same fault without its enum.
    pub fn entry(&self) -> FaultEntry {
        FaultInfo {
            fault: (),
            name: self.name,
            rules: self.rules,
            description: self.description,
            may_also: self.may_also,
            follows: self.follows,
        }
    }
}

/// The faults switched on, the legal variants, and the one setting that is neither.
#[derive(Debug, Clone)]
pub struct Faults<F, V> {
    on: HashSet<F>,
    /// `reference --max-tasks N`: refuse a new task while N are unfinished. Not a fault:
    /// the spec recommends limiting concurrent tasks per requestor.
    pub max_live_tasks: Option<usize>,
    /// `reference --variant NAME`: legal behaviours, not faults.
    pub variants: HashSet<V>,
}

impl<F, V> Default for Faults<F, V> {
    fn default() -> Self {
        Faults {
            on: HashSet::new(),
            max_live_tasks: None,
            variants: HashSet::new(),
        }
    }
}

impl<F: Copy + Eq + Hash, V: Eq + Hash> Faults<F, V> {
    /// Faults from their names in a list; the first unknown name is the error, naming the
    /// command whose `--list-faults` lists them.
    pub fn named(names: &[String], list: &[&FaultInfo<F>], command: &str) -> Result<Self, String> {
        names
            .iter()
            .map(|n| {
                list.iter()
                    .find(|f| f.name == n)
                    .map(|f| f.fault)
                    .ok_or_else(|| {
                        format!("unknown fault {n:?} (see `taskcheck {command} --list-faults`)")
                    })
            })
            .collect::<Result<_, _>>()
            .map(|on| Faults {
                on,
                ..Faults::default()
            })
    }

    /// Whether a fault is on.
    pub fn has(&self, fault: F) -> bool {
        self.on.contains(&fault)
    }

    /// Whether a legal variant is on.
    pub fn is(&self, variant: V) -> bool {
        self.variants.contains(&variant)
    }
}

/// Faults one line each: name, first rule, what it does.
pub fn list_of<'a, F: 'a>(faults: impl Iterator<Item = &'a FaultInfo<F>>) -> String {
    faults
        .map(|f| format!("{:<40} {:<48} {}\n", f.name, f.rules[0], f.description))
        .collect()
}
