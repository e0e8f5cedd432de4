//! `warden audit log`'s and `audit report`'s filters: parsed before the store is opened, so that a
//! malformed value is a one-line usage error (the reason here; exit 2 on the command line) and
//! never an empty, misleading listing.
//!
//! Every filter given must hold (AND). `--since`/`--until` are inclusive, RFC 3339
//! (`2026-02-21T09:30:00Z`, fractions and offsets allowed) or relative to the clock's now
//! (`90s`, `30m`, `2h`, `7d`). A `--type` that names no event type is refused rather than
//! matching nothing.

use agentwarden::audit::{Envelope, Timestamp};
use agentwarden::events::{AuditEvent, EVENT_TYPES, decode};
use agentwarden::verdict::Decision;

use agentwarden::WardenError;

/// Why a filter's flag is refused: a one-line usage error on the command line (exit 2).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FilterError {
    /// `--type` names no event type.
    #[error("--type `{given}` is not an event type; expected one of {}", EVENT_TYPES.join(", "))]
    UnknownType { given: String },
    /// `--decision` is neither `allow` nor `deny`.
    #[error("--decision `{given}` must be `allow` or `deny`")]
    Decision { given: String },
    /// A flag given with a blank value.
    #[error("{flag} is empty: give a value, or leave {flag} out")]
    Empty { flag: &'static str },
    /// A time bound that is neither an RFC 3339 time nor a duration ago.
    #[error(
        "{flag} `{text}` is neither an RFC 3339 time (2026-02-21T09:30:00Z) nor a duration ago (30m, 2h, 7d)"
    )]
    When { flag: String, text: String },
    /// `--since` after `--until`: an empty window is refused, not listed empty.
    #[error("--since `{since}` is after --until `{until}`")]
    EmptyWindow { since: Timestamp, until: Timestamp },
}

/// A time bound as given: absolute, or this many milliseconds before now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum When {
    At(Timestamp),
    Ago(i64),
}

impl When {
    pub fn resolve(self, now: Timestamp) -> Timestamp {
        match self {
            When::At(at) => at,
            When::Ago(ms) => Timestamp::saturating_from_unix_millis(now.unix_millis().saturating_sub(ms)),
        }
    }
}

/// The raw flags of `warden audit log`.
#[derive(Debug, Default)]
pub struct FilterArgs {
    pub event_type: Option<String>,
    pub decision: Option<String>,
    pub session: Option<String>,
    pub run: Option<String>,
    pub approval_ref: Option<String>,
    pub since: Option<String>,
    pub until: Option<String>,
}

/// Parsed filters; time bounds still relative until [`Filter::resolve`].
#[derive(Debug, Default)]
pub struct Filter {
    event_type: Option<String>,
    decision: Option<Decision>,
    session: Option<String>,
    run: Option<String>,
    approval_ref: Option<String>,
    since: Option<When>,
    until: Option<When>,
    window: (Option<Timestamp>, Option<Timestamp>),
}

impl Filter {
    pub fn parse(args: FilterArgs) -> Result<Filter, FilterError> {
        if let Some(t) = args.event_type.as_ref().filter(|t| !EVENT_TYPES.contains(&t.as_str())) {
            return Err(FilterError::UnknownType { given: t.clone() });
        }
        let decision = match args.decision.as_deref() {
            None => None,
            Some("allow") => Some(Decision::Allow),
            Some("deny") => Some(Decision::Deny),
            Some(other) => {
                return Err(FilterError::Decision { given: other.to_owned() });
            }
        };
        for (flag, value) in
            [("--session", &args.session), ("--run", &args.run), ("--approval-ref", &args.approval_ref)]
        {
            if value.as_deref().is_some_and(|v| v.trim().is_empty()) {
                return Err(FilterError::Empty { flag });
            }
        }
        let since = args.since.as_deref().map(|t| parse_when("--since", t)).transpose()?;
        let until = args.until.as_deref().map(|t| parse_when("--until", t)).transpose()?;
        Ok(Filter {
            event_type: args.event_type,
            decision,
            session: args.session,
            run: args.run,
            approval_ref: args.approval_ref,
            since,
            until,
            window: (None, None),
        })
    }

    /// Fixes relative bounds against `now`; an empty window (`--since` after `--until`) is a
    /// usage error, not an empty listing.
    pub fn resolve(&mut self, now: Timestamp) -> Result<(), FilterError> {
        self.window = (self.since.map(|w| w.resolve(now)), self.until.map(|w| w.resolve(now)));
        match self.window {
            (Some(since), Some(until)) if since > until => Err(FilterError::EmptyWindow { since, until }),
            _ => Ok(()),
        }
    }

    /// The resolved time window (inclusive bounds).
    pub fn window(&self) -> (Option<Timestamp>, Option<Timestamp>) {
        self.window
    }

    /// Does `envelope` pass every filter? Decodes the payload only when a filter needs it.
    pub fn matches(&self, envelope: &Envelope) -> Result<bool, WardenError> {
        let (since, until) = self.window;
        let cheap = self.event_type.as_ref().is_none_or(|t| *t == envelope.event_type)
            && self.session.as_ref().is_none_or(|s| envelope.session.as_ref() == Some(s))
            && self.run.as_ref().is_none_or(|r| envelope.run.as_ref() == Some(r))
            && since.is_none_or(|s| envelope.recorded_at >= s)
            && until.is_none_or(|u| envelope.recorded_at <= u);
        if !cheap || (self.decision.is_none() && self.approval_ref.is_none()) {
            return Ok(cheap);
        }
        if self.approval_ref.is_some() && envelope.event_type != "delegation_evaluated" {
            return Ok(false);
        }
        let event =
            decode(envelope).map_err(|error| WardenError::Undecodable { seq: envelope.seq, error })?;
        let approval_ok = self.approval_ref.as_ref().is_none_or(|want| match &event {
            AuditEvent::DelegationEvaluated(report) => report.approval_ref.as_ref() == Some(want),
            _ => false,
        });
        Ok(approval_ok && self.decision.is_none_or(|d| event.decision() == Some(d)))
    }
}

/// `2026-02-21T09:30:00Z`, `2026-02-21T09:30:00.5+02:00`, or `30m` / `2h` / `7d` / `90s` ago.
pub fn parse_when(flag: &str, text: &str) -> Result<When, FilterError> {
    let bad = || FilterError::When { flag: flag.to_owned(), text: text.to_owned() };
    // An RFC 3339 time always has `-` and `:`; a duration never does.
    if !text.contains(['-', ':']) {
        return crate::duration::duration_ms(text).map(When::Ago).ok_or_else(bad);
    }
    parse_rfc3339(text).map(When::At).ok_or_else(bad)
}

/// RFC 3339 with a `T`, seconds, an optional fraction, and `Z` or `±HH:MM`.
fn parse_rfc3339(text: &str) -> Option<Timestamp> {
    let (date_time, offset_ms) = if let Some(rest) = text.strip_suffix('Z').or_else(|| text.strip_suffix('z'))
    {
        (rest, 0)
    } else {
        let split = text.len().checked_sub(6)?;
        let (rest, offset) = (text.get(..split)?, text.get(split..)?);
        let sign = match offset.get(..1)? {
            "+" => 1,
            "-" => -1,
            _ => return None,
        };
        let (h, m) = (offset.get(1..3)?, offset.get(4..6)?);
        if offset.get(3..4)? != ":" || !h.bytes().chain(m.bytes()).all(|b| b.is_ascii_digit()) {
            return None;
        }
        let (h, m): (i64, i64) = (h.parse().ok()?, m.parse().ok()?);
        if h > 23 || m > 59 {
            return None;
        }
        (rest, sign * (h * 3_600_000 + m * 60_000))
    };
    let (seconds, fraction) = match date_time.split_once('.') {
        Some((s, f)) if !f.is_empty() && f.len() <= 9 && f.bytes().all(|b| b.is_ascii_digit()) => (s, f),
        Some(_) => return None,
        None => (date_time, ""),
    };
    let millis = format!("{:0<3}", fraction.get(..fraction.len().min(3))?);
    let canonical: Timestamp = format!("{seconds}.{millis}Z").parse().ok()?;
    Timestamp::from_unix_millis(canonical.unix_millis().checked_sub(offset_ms)?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_parse_or_are_refused() {
        // (input, expected unix ms or None, why)
        let rows: [(&str, Option<i64>, &str); 12] = [
            ("2026-02-21T09:30:00Z", Some(1_771_666_200_000), "plain UTC"),
            ("2026-02-21T09:30:00.123Z", Some(1_771_666_200_123), "the log's own format"),
            ("2026-02-21T09:30:00.5Z", Some(1_771_666_200_500), "a short fraction is tenths"),
            ("2026-02-21T09:30:00.123456789Z", Some(1_771_666_200_123), "nanoseconds truncate to ms"),
            ("2026-02-21T11:30:00+02:00", Some(1_771_666_200_000), "an offset east of UTC"),
            ("2026-02-21T04:30:00-05:00", Some(1_771_666_200_000), "an offset west of UTC"),
            ("2026-02-21", None, "a date alone is ambiguous"),
            ("2026-02-21T09:30Z", None, "seconds are required"),
            ("2026-02-30T09:30:00Z", None, "no such day"),
            ("2026-02-21T09:30:00+2:00", None, "offsets are ±HH:MM"),
            ("2026-02-21T09:30:00.Z", None, "an empty fraction"),
            ("yesterday", None, "words are not times"),
        ];
        for (input, want, why) in rows {
            let got = parse_rfc3339(input).map(Timestamp::unix_millis);
            assert_eq!(got, want, "`{input}`: {why}");
        }
    }

    #[test]
    fn durations_parse_or_are_refused() {
        // (input, expected ms ago or None, why)
        let rows: [(&str, Option<i64>, &str); 8] = [
            ("30m", Some(1_800_000), "minutes"),
            ("2h", Some(7_200_000), "hours"),
            ("7d", Some(604_800_000), "days"),
            ("90s", Some(90_000), "seconds"),
            ("2w", None, "weeks are not a unit"),
            ("h", None, "a unit needs a number"),
            ("-2h", None, "a negative duration is a typo"),
            ("99999999999999999d", None, "overflow"),
        ];
        for (input, want, why) in rows {
            let got = match parse_when("--since", input) {
                Ok(When::Ago(ms)) => Some(ms),
                Ok(When::At(_)) | Err(_) => None,
            };
            assert_eq!(got, want, "`{input}`: {why}");
        }
    }
}
