//! The YAML scenario format: what a scenario says, and where scenarios come from.

mod ask;
mod document;
mod format;
mod library;

pub use ask::Ask;
pub use document::Scenario;
pub use format::*;
pub use library::{
    builtin, builtin_texts, did_you_mean, is_soak, load_dir, parse, print, select, ScenarioError,
    SOAK,
};
