//! Task timestamps: ISO 8601 as the spec says, RFC 3339 (the profile it links) preferred, and
//! instants compared at the precision both observations share.

use std::cmp::Ordering;
use time::format_description::well_known::{Iso8601, Rfc3339};
use time::{OffsetDateTime, PrimitiveDateTime, UtcOffset};

/// How a timestamp is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Notation {
    /// RFC 3339 section 5, the profile the spec links: date, time and offset, extended format.
    Rfc3339,
    /// Valid ISO 8601 but not RFC 3339 (basic format, no offset, no seconds, ...).
    Iso8601,
}

/// One parsed timestamp.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    /// The instant; a time without offset is read as UTC (the receiver's zone is unknown, but
    /// the same for every timestamp it writes, so comparisons still hold).
    pub at: OffsetDateTime,
    /// Digits of fractional seconds written (0: whole seconds, 3: milliseconds, ...).
    pub digits: u8,
    pub notation: Notation,
}

/// Parses an ISO 8601 timestamp; the error says why the text is none.
pub fn parse(text: &str) -> Result<Stamp, String> {
    let digits = fraction_digits(text);
    if let Ok(at) = OffsetDateTime::parse(text, &Rfc3339) {
        return Ok(Stamp {
            at,
            digits,
            notation: Notation::Rfc3339,
        });
    }
    let at = OffsetDateTime::parse(text, &Iso8601::DEFAULT)
        .or_else(|_| {
            PrimitiveDateTime::parse(text, &Iso8601::DEFAULT)
                .map(|t| t.assume_offset(UtcOffset::UTC))
        })
        .map_err(|_| format!("{text:?} is not an ISO 8601 timestamp"))?;
    Ok(Stamp {
        at,
        digits,
        notation: Notation::Iso8601,
    })
}

/// The number of fractional-second digits after the time's seconds (`.` or `,` in ISO 8601).
fn fraction_digits(text: &str) -> u8 {
    let Some(time) = text.split(['T', 't']).nth(1) else {
        return 0;
    };
    time.split_once(['.', ','])
        .map(|(_, rest)| rest.chars().take_while(char::is_ascii_digit).count().min(9) as u8)
        .unwrap_or(0)
}

impl Stamp {
    /// Orders two instants at the coarser precision of the two: a store that keeps
    /// milliseconds of a microsecond time has not moved it.
    pub fn compare(&self, other: &Stamp) -> Ordering {
        let digits = self.digits.min(other.digits);
        truncated(self.at, digits).cmp(&truncated(other.at, digits))
    }
}

/// Nanoseconds since the epoch, cut down to `digits` fractional digits.
fn truncated(at: OffsetDateTime, digits: u8) -> i128 {
    let unit = 10i128.pow(9 - u32::from(digits.min(9)));
    at.unix_timestamp_nanos().div_euclid(unit)
}

/// The time now, as reports give it (RFC 3339, UTC).
pub fn now() -> String {
    OffsetDateTime::now_utc()
        .format(&Rfc3339)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_8601_forms_parse_and_rfc_3339_is_told_apart() {
        let rfc = parse("2025-11-25T10:30:00.123Z").unwrap();
        assert_eq!((rfc.notation, rfc.digits), (Notation::Rfc3339, 3));
        let plus = parse("2025-11-25T10:30:00.123+00:00").unwrap();
        assert_eq!(plus.notation, Notation::Rfc3339);
        assert_eq!(
            rfc.compare(&plus),
            Ordering::Equal,
            "Z and +00:00 are one instant"
        );
        for iso in [
            "2025-11-25T10:30:00",
            "20251125T103000Z",
            "2025-11-25T10:30Z",
            "2025-11-25T10:30:00,5Z",
        ] {
            let s = parse(iso).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(s.notation, Notation::Iso8601, "{iso}");
        }
        for bad in ["yesterday", "1764000000000", "", "2025-13-45T99:00:00Z"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn instants_compare_at_the_coarser_precision() {
        let micro = parse("2025-11-25T10:30:00.123456Z").unwrap();
        let milli = parse("2025-11-25T10:30:00.123Z").unwrap();
        assert_eq!(micro.compare(&milli), Ordering::Equal);
        let later = parse("2025-11-25T10:30:00.124Z").unwrap();
        assert_eq!(later.compare(&micro), Ordering::Greater);
        let whole = parse("2025-11-25T10:30:00Z").unwrap();
        assert_eq!(whole.compare(&micro), Ordering::Equal);
        assert_eq!(
            whole.compare(&parse("2025-11-25T10:29:59.999Z").unwrap()),
            Ordering::Greater
        );
    }
}
