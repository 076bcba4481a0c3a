//! How guessable a sample of task ids is: a per-position entropy estimate.
//!
//! Each character position that varies is credited with the entropy of the alphabet the ids
//! are written in (digits, hex, alphanumerics, base64, ...: the smallest that holds every
//! character seen at a varying position) when it shows as many distinct characters as uniform
//! random draws from that alphabet plausibly would, and with log2 of the distinct characters it
//! shows otherwise. Counters, timestamps and fixed prefixes add almost nothing; random ids are
//! credited with their whole alphabet. The estimate can only be too high for ids that look
//! random but are not (a hash of a counter), never too low for random ones, so it never accuses
//! a receiver with random ids.

use std::cell::RefCell;
use std::collections::HashMap;

/// Fewest ids the estimate is made on.
pub const MIN_SAMPLE: usize = 32;
/// The floor: OWASP's 64 bits for session identifiers.
pub const FLOOR_BITS: f64 = 64.0;
/// The estimate fails below the floor less this margin: a random 64-bit id whose last
/// character carries fewer bits than the others (base64 of 8 bytes: 4 bits in its 11th
/// character) may be credited a little under 64.
pub const MARGIN_BITS: f64 = 4.0;
/// Most ids the estimate looks at (the first ones of a session).
const MAX_SAMPLE: usize = 2000;
/// A position's distinct characters are implausible for uniform draws when fewer than this
/// would occur with at most this probability.
const IMPLAUSIBLE: f64 = 1e-9;

/// Alphabets ids are commonly written in, smallest first.
const ALPHABETS: [&str; 10] = [
    "0123456789",
    "0123456789abcdef",
    "0123456789ABCDEF",
    "0123456789abcdefghijklmnopqrstuvwxyz",
    "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_",
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ+/",
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ+/-_=",
    " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~",
];

/// The characters of an ASCII alphabet as a bit set.
fn ascii_set(alphabet: &str) -> u128 {
    alphabet.bytes().fold(0, |set, b| set | 1 << b)
}

/// Whether an estimate is below what taskcheck reads as "enough entropy".
pub fn too_low(bits: f64) -> bool {
    bits < FLOOR_BITS - MARGIN_BITS
}

/// Estimated entropy of one id, in bits, from a sample of distinct ids.
pub fn estimate_bits(ids: &[String]) -> f64 {
    let ids = &ids[..ids.len().min(MAX_SAMPLE)];
    let chars: Vec<Vec<char>> = ids.iter().map(|i| i.chars().collect()).collect();
    let longest = chars.iter().map(Vec::len).max().unwrap_or(0);
    // the distinct characters at each position (None: an id that ended before it)
    let positions: Vec<Vec<Option<char>>> = (0..longest)
        .map(|pos| {
            let mut at: Vec<Option<char>> = chars.iter().map(|c| c.get(pos).copied()).collect();
            at.sort_unstable();
            at.dedup();
            at
        })
        .collect();
    // the characters of the varying positions, as an ASCII bit set (None: not all ASCII)
    let seen = positions
        .iter()
        .filter(|p| p.len() > 1)
        .flat_map(|p| p.iter().flatten())
        .try_fold(0u128, |set, c| c.is_ascii().then(|| set | 1 << (*c as u32)));
    let alphabet = seen.and_then(|seen| {
        ALPHABETS
            .iter()
            .find(|a| seen & !ascii_set(a) == 0)
            .map(|a| a.len())
    });
    positions
        .iter()
        .filter(|p| p.len() > 1)
        .map(|p| {
            let distinct = p.len();
            // an id that ends here is one more symbol at this position
            let size = alphabet.map(|a| a + usize::from(p.contains(&None)));
            match size {
                Some(size) if plausible(ids.len(), size, distinct) => (size as f64).log2(),
                _ => (distinct as f64).log2(),
            }
        })
        .sum()
}

/// Whether `n` uniform draws from `size` symbols show `distinct` or fewer different ones with
/// a probability of at least [`IMPLAUSIBLE`].
fn plausible(n: usize, size: usize, distinct: usize) -> bool {
    thread_local! {
        static FEWEST: RefCell<HashMap<(usize, usize), usize>> = RefCell::default();
    }
    FEWEST.with(|fewest| {
        distinct
            >= *fewest
                .borrow_mut()
                .entry((n, size))
                .or_insert_with(|| fewest_plausible(n, size))
    })
}

/// The fewest different symbols `n` uniform draws from `size` show with a probability of at
/// least [`IMPLAUSIBLE`] (from the occupancy distribution, computed exactly).
fn fewest_plausible(n: usize, size: usize) -> usize {
    // p[j]: probability that j different symbols were drawn so far
    let mut p = vec![0.0f64; size + 1];
    p[0] = 1.0;
    for _ in 0..n {
        let mut next = vec![0.0f64; size + 1];
        for (j, pj) in p.iter().enumerate().filter(|(_, pj)| **pj > 0.0) {
            next[j] += pj * j as f64 / size as f64;
            if j < size {
                next[j + 1] += pj * (size - j) as f64 / size as f64;
            }
        }
        p = next;
    }
    let mut cumulative = 0.0;
    p.iter()
        .position(|pj| {
            cumulative += pj;
            cumulative >= IMPLAUSIBLE
        })
        .unwrap_or(size)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// splitmix64: a fixed stream of well-mixed 64-bit numbers (the test stays reproducible).
    fn random(state: &mut u64) -> u64 {
        *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn sample(f: impl Fn(usize) -> String) -> Vec<String> {
        (0..200).map(f).collect()
    }

    #[test]
    fn random_uuids_are_far_above_the_floor() {
        let ids = sample(|_| uuid::Uuid::new_v4().to_string());
        assert!(estimate_bits(&ids) > 100.0, "{}", estimate_bits(&ids));
    }

    #[test]
    fn random_64_bit_ids_never_fail_at_the_minimum_sample() {
        type Encode = fn(u64) -> String;
        let encodings: [(&str, Encode); 3] = [
            ("hex", |n| format!("{n:016x}")),
            ("decimal", |n| n.to_string()),
            ("base64url", base64url),
        ];
        std::thread::scope(|scope| {
            for (seed, (name, encode)) in encodings.into_iter().enumerate() {
                scope.spawn(move || {
                    let mut rng = seed as u64;
                    let mut lowest = f64::MAX;
                    for _ in 0..10_000 {
                        let ids: Vec<String> =
                            (0..MIN_SAMPLE).map(|_| encode(random(&mut rng))).collect();
                        let bits = estimate_bits(&ids);
                        lowest = lowest.min(bits);
                        assert!(!too_low(bits), "{name}: {bits} bits for {:?}", &ids[..3]);
                    }
                    eprintln!("{name}: lowest estimate {lowest:.1} bits");
                });
            }
        });
    }

    /// Eight bytes in unpadded base64url, as `base64::URL_SAFE_NO_PAD` writes them.
    fn base64url(n: u64) -> String {
        const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        let bytes = n.to_be_bytes();
        let mut out = String::new();
        for chunk in bytes.chunks(3) {
            let b = [
                chunk[0],
                *chunk.get(1).unwrap_or(&0),
                *chunk.get(2).unwrap_or(&0),
            ];
            let v = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
            for i in 0..=chunk.len() {
                out.push(A[(v >> (18 - 6 * i) & 63) as usize] as char);
            }
        }
        out
    }

    #[test]
    fn counters_timestamps_prefixes_and_short_random_ids_are_below_it() {
        let mut rng = 2u64;
        let short: Vec<String> = (0..200)
            .map(|_| format!("{:012x}", random(&mut rng) >> 16))
            .collect();
        for ids in [
            sample(|i| format!("task-{}", i + 1)),
            sample(|i| (i + 1).to_string()),
            sample(|i| format!("{}", 1_764_000_000_000_000_000u64 + i as u64 * 137_000)),
            sample(|i| format!("task-{}-{:04}", "00000000-0000-4000-8000", i)),
            short,
        ] {
            assert!(
                too_low(estimate_bits(&ids)),
                "{:?}: {}",
                &ids[..3],
                estimate_bits(&ids)
            );
        }
    }
}
