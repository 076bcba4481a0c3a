//! Arbitrary text through the scenario parser: no panic, every error has a position inside
//! the text, and a scenario that parses, printed and parsed again, is equal.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_taskcheck::scenario;

fuzz_target!(|text: &str| {
    match scenario::parse(text, "fuzz.yaml") {
        Ok(parsed) => {
            let printed = scenario::print(&parsed);
            let again = scenario::parse(&printed, "printed.yaml")
                .unwrap_or_else(|e| panic!("a printed scenario does not parse: {e}\n{printed}"));
            assert_eq!(again, parsed, "printing changed the scenario:\n{printed}");
        }
        Err(e) => {
            let lines = text.lines().count() as u64 + 1;
            assert!(
                (1..=lines).contains(&e.line) && e.column >= 1,
                "error outside the text: {e}"
            );
        }
    }
});
