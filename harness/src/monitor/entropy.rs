//! How guessable a sample of task ids is: a per-position entropy estimate.
//!
//! Each character position contributes log2 of the number of distinct characters seen there
//! (a missing character counts as one more symbol), capped by log2 of the sample size. Fixed
//! prefixes, counters and timestamps add almost nothing; random ids add close to their true
//! entropy. The estimate can only be too high for ids that look random but are not (a hash of
//! a counter), never too low for random ones, so it never accuses a receiver with random ids.

use std::collections::HashSet;

/// Fewest ids the estimate is made on.
pub const MIN_SAMPLE: usize = 32;
/// Estimated bits below which ids are guessable (OWASP's floor for session identifiers).
pub const MIN_BITS: f64 = 64.0;

/// Estimated entropy of one id, in bits, from a sample of distinct ids.
pub fn estimate_bits(ids: &[String]) -> f64 {
    let chars: Vec<Vec<char>> = ids.iter().map(|i| i.chars().collect()).collect();
    let longest = chars.iter().map(Vec::len).max().unwrap_or(0);
    let cap = (ids.len().max(1) as f64).log2();
    (0..longest)
        .map(|pos| {
            let distinct: HashSet<Option<char>> =
                chars.iter().map(|c| c.get(pos).copied()).collect();
            (distinct.len() as f64).log2().min(cap)
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(f: impl Fn(usize) -> String) -> Vec<String> {
        (0..200).map(f).collect()
    }

    #[test]
    fn random_uuids_are_far_above_the_floor() {
        let ids = sample(|_| uuid::Uuid::new_v4().to_string());
        assert!(estimate_bits(&ids) > 100.0, "{}", estimate_bits(&ids));
        let ids = sample(|_| uuid::Uuid::new_v4().simple().to_string()[..16].to_string());
        assert!(
            estimate_bits(&ids) >= MIN_BITS - 4.0,
            "64 random bits estimate close to 64"
        );
    }

    #[test]
    fn counters_timestamps_and_prefixes_are_below_it() {
        for ids in [
            sample(|i| format!("task-{}", i + 1)),
            sample(|i| (i + 1).to_string()),
            sample(|i| format!("{}", 1_764_000_000_000_000_000u64 + i as u64 * 137_000)),
            sample(|i| format!("task-{}-{:04}", "00000000-0000-4000-8000", i)),
        ] {
            assert!(
                estimate_bits(&ids) < MIN_BITS,
                "{:?}: {}",
                &ids[..3],
                estimate_bits(&ids)
            );
        }
    }
}
