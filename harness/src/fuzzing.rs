//! Properties the cargo-fuzz targets (`fuzz/`) assert, shared with the regression tests that
//! keep every input the fuzzers found (`harness/tests/fuzz_regressions.rs`).

use crate::scenario;

/// Lines as YAML counts them: LF, CRLF and a lone CR each end one.
pub fn yaml_lines(text: &str) -> u64 {
    let bytes = text.as_bytes();
    let breaks = bytes
        .iter()
        .enumerate()
        .filter(|(i, b)| **b == b'\n' || (**b == b'\r' && bytes.get(i + 1) != Some(&b'\n')))
        .count();
    breaks as u64 + 1
}

/// Scenario text either parses to a scenario that prints and parses back equal, or fails
/// with a position inside the text.
pub fn scenario_round_trip(text: &str) -> Result<(), String> {
    match scenario::parse(text, "fuzz.yaml") {
        Ok(parsed) => {
            let printed = scenario::print(&parsed);
            let again = scenario::parse(&printed, "printed.yaml")
                .map_err(|e| format!("a printed scenario does not parse: {e}\n{printed}"))?;
            match again == parsed {
                true => Ok(()),
                false => Err(format!("printing changed the scenario:\n{printed}")),
            }
        }
        Err(e) if (1..=yaml_lines(text)).contains(&e.line) && e.column >= 1 => Ok(()),
        Err(e) => Err(format!("error outside the text: {e}")),
    }
}
