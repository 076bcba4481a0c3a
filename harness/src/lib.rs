//! taskcheck: conformance harness for the MCP 2025-11-25 Tasks utility.

pub mod baseline;
pub mod diff;
pub mod exit;
pub mod explore;
pub mod fixtures;
pub mod fuzzing;
pub mod fuzzwire;
pub mod inspect;
pub mod load;
pub mod matcher;
pub mod model;
pub mod monitor;
pub mod offline;
pub mod reference;
pub mod report;
pub mod runner;
pub mod scenario;
pub mod schema;
pub mod session;
pub mod spec;
pub mod suite;
pub mod timestamp;
pub mod trace;
pub mod transport;
pub mod verdict;
pub mod wire;
