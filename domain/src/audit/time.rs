//! Event time: milliseconds since the Unix epoch, written as RFC 3339 UTC with milliseconds
//! (`2026-02-21T09:30:00.000Z`, A-3). The clock itself is a port; this is only the value.

use std::fmt;
use std::str::FromStr;

/// A point in time between 1970-01-01 and 9999-12-31, at millisecond precision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(i64);

/// The latest representable instant: 9999-12-31T23:59:59.999Z.
const MAX_MILLIS: i64 = 253_402_300_799_999;

/// A value that is not a timestamp Agent Warden can write.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvalidTimestamp {
    /// Outside 1970-01-01 … 9999-12-31.
    #[error("{millis} ms since the epoch is outside 1970-01-01 … 9999-12-31")]
    OutOfRange {
        /// The value seen.
        millis: i64,
    },
    /// Not of the form `YYYY-MM-DDTHH:MM:SS.mmmZ`.
    #[error("`{found}` is not an RFC 3339 UTC timestamp with milliseconds (YYYY-MM-DDTHH:MM:SS.mmmZ)")]
    Malformed {
        /// The text seen, truncated.
        found: String,
    },
}

impl Timestamp {
    /// The instant `millis` milliseconds after 1970-01-01T00:00:00Z.
    pub fn from_unix_millis(millis: i64) -> Result<Self, InvalidTimestamp> {
        if (0..=MAX_MILLIS).contains(&millis) {
            Ok(Timestamp(millis))
        } else {
            Err(InvalidTimestamp::OutOfRange { millis })
        }
    }

    /// The instant `millis` milliseconds after the epoch, pinned to the nearest representable
    /// instant when it is out of range (for clocks, which must always give an answer).
    pub const fn saturating_from_unix_millis(millis: i64) -> Self {
        Timestamp(if millis < 0 {
            0
        } else if millis > MAX_MILLIS {
            MAX_MILLIS
        } else {
            millis
        })
    }

    /// Milliseconds since the epoch.
    pub const fn unix_millis(self) -> i64 {
        self.0
    }
}

impl serde::Serialize for Timestamp {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Timestamp {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// Days since 1970-01-01 → (year, month, day), proleptic Gregorian (H. Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// (year, month, day) → days since 1970-01-01; the inverse of [`civil_from_days`].
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let yoe = year.rem_euclid(400);
    let mp = if month > 2 { month - 3 } else { month + 9 };
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

impl fmt::Display for Timestamp {
    /// `YYYY-MM-DDTHH:MM:SS.mmmZ`, its digits written by hand into the 24 bytes (every event's
    /// body carries one; `write!` of seven padded numbers cost ten times as much). The range
    /// (years 1970 … 9999) makes every field exactly as wide as its slot.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = self.text();
        // Only ASCII digits and separators were written.
        f.write_str(std::str::from_utf8(&text).map_err(|_| fmt::Error)?)
    }
}

impl Timestamp {
    /// The 24 bytes [`Timestamp`]'s `Display` writes (an event body takes them as they are).
    pub(crate) fn text(&self) -> [u8; 24] {
        let days = self.0.div_euclid(86_400_000);
        let in_day = self.0.rem_euclid(86_400_000);
        let (year, month, day) = civil_from_days(days);
        let (hour, minute) = (in_day / 3_600_000, in_day / 60_000 % 60);
        let (second, milli) = (in_day / 1000 % 60, in_day % 1000);
        let mut text = *b"0000-00-00T00:00:00.000Z";
        let fields = [
            (0..4, year),
            (5..7, month),
            (8..10, day),
            (11..13, hour),
            (14..16, minute),
            (17..19, second),
            (20..23, milli),
        ];
        for (slot, value) in fields {
            let mut rest = value;
            for digit in text.get_mut(slot).into_iter().flatten().rev() {
                *digit = b'0' + rest.rem_euclid(10) as u8;
                rest /= 10;
            }
        }
        text
    }
}

impl FromStr for Timestamp {
    type Err = InvalidTimestamp;

    /// Parses exactly the form `Display` writes; anything else is malformed.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let malformed = || InvalidTimestamp::Malformed { found: s.chars().take(64).collect() };
        let b = s.as_bytes();
        if b.len() != 24 {
            return Err(malformed());
        }
        let num = |from: usize, to: usize| -> Result<i64, InvalidTimestamp> {
            let digits = b.get(from..to).ok_or_else(malformed)?;
            digits.iter().try_fold(0i64, |acc, d| {
                d.is_ascii_digit().then(|| acc * 10 + i64::from(d - b'0')).ok_or_else(malformed)
            })
        };
        let separators = [(4, b'-'), (7, b'-'), (10, b'T'), (13, b':'), (16, b':'), (19, b'.'), (23, b'Z')];
        if separators.iter().any(|&(at, want)| b.get(at) != Some(&want)) {
            return Err(malformed());
        }
        let (year, month, day) = (num(0, 4)?, num(5, 7)?, num(8, 10)?);
        let (hour, minute, second, milli) = (num(11, 13)?, num(14, 16)?, num(17, 19)?, num(20, 23)?);
        if !(1..=12).contains(&month) || day < 1 || hour > 23 || minute > 59 || second > 59 {
            return Err(malformed());
        }
        let days = days_from_civil(year, month, day);
        // Reject 2026-02-30 and friends: the date must survive the round trip.
        if civil_from_days(days) != (year, month, day) {
            return Err(malformed());
        }
        let millis = days * 86_400_000 + hour * 3_600_000 + minute * 60_000 + second * 1000 + milli;
        Timestamp::from_unix_millis(millis)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Every day from 1970-01-01 to 9999-12-31: the two conversions are inverse, and each day
    /// follows the one before it under the Gregorian leap rule (written here apart from the
    /// algorithm).
    #[test]
    fn every_day_in_range_converts_both_ways_and_follows_the_day_before() {
        fn days_in_month(year: i64, month: i64) -> i64 {
            let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
            match month {
                2 if leap => 29,
                2 => 28,
                4 | 6 | 9 | 11 => 30,
                _ => 31,
            }
        }
        let last = MAX_MILLIS.div_euclid(86_400_000);
        let mut before = civil_from_days(0);
        assert_eq!(before, (1970, 1, 1));
        for days in 1..=last {
            let (year, month, day) = civil_from_days(days);
            assert_eq!(days_from_civil(year, month, day), days);
            let (py, pm, pd) = before;
            let next = if pd < days_in_month(py, pm) {
                (py, pm, pd + 1)
            } else if pm < 12 {
                (py, pm + 1, 1)
            } else {
                (py + 1, 1, 1)
            };
            assert_eq!((year, month, day), next, "day {days}");
            before = next;
        }
        assert_eq!(before, (9999, 12, 31));
    }

    #[test]
    fn saturation_pins_both_ends_and_keeps_what_is_in_range() {
        assert_eq!(Timestamp::saturating_from_unix_millis(-5).unix_millis(), 0);
        assert_eq!(Timestamp::saturating_from_unix_millis(i64::MIN).unix_millis(), 0);
        assert_eq!(Timestamp::saturating_from_unix_millis(i64::MAX).unix_millis(), MAX_MILLIS);
        assert_eq!(Timestamp::saturating_from_unix_millis(MAX_MILLIS + 1).unix_millis(), MAX_MILLIS);
        assert_eq!(Timestamp::saturating_from_unix_millis(42).unix_millis(), 42);
    }

    #[test]
    fn formats_known_instants() {
        let cases = [
            (0, "1970-01-01T00:00:00.000Z"),
            (951_782_400_000, "2000-02-29T00:00:00.000Z"),
            (1_771_666_200_123, "2026-02-21T09:30:00.123Z"),
            (MAX_MILLIS, "9999-12-31T23:59:59.999Z"),
        ];
        for (millis, text) in cases {
            let t = Timestamp::from_unix_millis(millis).unwrap();
            assert_eq!(t.to_string(), text);
            assert_eq!(text.parse::<Timestamp>(), Ok(t));
        }
    }

    #[test]
    fn rejects_out_of_range_and_malformed() {
        assert!(Timestamp::from_unix_millis(-1).is_err());
        assert!(Timestamp::from_unix_millis(MAX_MILLIS + 1).is_err());
        for bad in [
            "2026-02-30T00:00:00.000Z",
            "2026-02-21T09:30:00Z",
            "2026-02-21 09:30:00.000Z",
            "2026-02-21T24:00:00.000Z",
            "2026-02-21T09:60:00.000Z",
            "2026-02-21T09:30:60.000Z",
            "2026-13-01T09:30:00.000Z",
            "2026-00-01T09:30:00.000Z",
            "2026-02-00T09:30:00.000Z",
            "2026-02-21T09:30:00.000+00:00",
            "+026-02-21T09:30:00.000Z",
        ] {
            assert!(bad.parse::<Timestamp>().is_err(), "`{bad}` must not parse");
        }
    }

    /// The form as `write!` writes it: the reference the hand-written digits are checked against.
    fn reference(t: Timestamp) -> String {
        let days = t.0.div_euclid(86_400_000);
        let in_day = t.0.rem_euclid(86_400_000);
        let (year, month, day) = civil_from_days(days);
        let (hour, minute) = (in_day / 3_600_000, in_day / 60_000 % 60);
        let (second, milli) = (in_day / 1000 % 60, in_day % 1000);
        format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}.{milli:03}Z")
    }

    #[test]
    fn the_ends_of_the_range_are_written_as_write_writes_them() {
        for millis in [0, 1, 999, 1000, 86_399_999, 86_400_000, MAX_MILLIS - 1, MAX_MILLIS] {
            let t = Timestamp::from_unix_millis(millis).unwrap();
            assert_eq!(t.to_string(), reference(t));
        }
    }

    proptest! {
        #[test]
        fn display_writes_what_write_writes(millis in 0..=MAX_MILLIS) {
            let t = Timestamp::from_unix_millis(millis).unwrap();
            prop_assert_eq!(t.to_string(), reference(t));
        }

        #[test]
        fn display_and_parse_round_trip(millis in 0..=MAX_MILLIS) {
            let t = Timestamp::from_unix_millis(millis).unwrap();
            prop_assert_eq!(t.to_string().parse::<Timestamp>(), Ok(t));
        }
    }
}
