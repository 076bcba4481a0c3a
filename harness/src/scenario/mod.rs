//! The YAML scenario format: what a scenario says, and where scenarios come from.

mod format;
mod library;

pub use format::*;
pub use library::{builtin, load_dir, parse, print, select, ScenarioError};
