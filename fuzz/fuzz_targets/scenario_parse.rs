//! Arbitrary text through the scenario parser: no panic, every error has a position inside
//! the text, and a scenario that parses, printed and parsed again, is equal.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_taskcheck::fuzzing::scenario_round_trip;

fuzz_target!(|text: &str| {
    if let Err(e) = scenario_round_trip(text) {
        panic!("{e}");
    }
});
