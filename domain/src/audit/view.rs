//! A stored event read without copying: [`EnvelopeRef`] borrows its strings and payload from the
//! record's body. A replay reads every event of the log once; allocating an owned
//! [`Envelope`] for each (five strings, a copy of the payload, a parsed `prev_hash` the
//! verifier has already checked byte for byte) was most of its cost.

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::value::RawValue;

use super::envelope::{Envelope, EnvelopeError};
use super::hash::Hash;
use super::page::RecordRef;
use super::time::Timestamp;

/// An event's envelope, borrowed from its stored body (or from an owned [`Envelope`]).
#[derive(Clone, Debug)]
pub struct EnvelopeRef<'a> {
    /// Position in the log.
    pub seq: u64,
    /// When it was recorded.
    pub recorded_at: Timestamp,
    /// This event's hash (from the record).
    pub hash: Hash,
    /// The payload's schema version as written.
    pub event_version: u32,
    actor: Cow<'a, str>,
    session: Option<Cow<'a, str>>,
    turn: Option<Cow<'a, str>>,
    run: Option<Cow<'a, str>>,
    item: Option<Cow<'a, str>>,
    event_type: Cow<'a, str>,
    payload: &'a RawValue,
}

/// The body's fields as borrowed; `prev_hash` is only skipped (the verifier checks it).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Body<'a> {
    seq: u64,
    #[expect(dead_code, reason = "present in every body; checked by the verifier, not here")]
    prev_hash: IgnoredAny,
    #[serde(borrow)]
    recorded_at: Cow<'a, str>,
    #[serde(borrow)]
    actor: Cow<'a, str>,
    #[serde(borrow, default)]
    session: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    turn: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    run: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    item: Option<Cow<'a, str>>,
    #[serde(borrow)]
    event_type: Cow<'a, str>,
    event_version: u32,
    #[serde(borrow)]
    payload: &'a RawValue,
}

/// The body as this crate writes it, read without the general parser: the fields in their
/// fixed order, no whitespace, strings without escapes. Anything else — another order, an
/// escape, a number JSON would spell otherwise, a payload that is not exactly one JSON value —
/// is `None`, and the caller parses the body with serde instead, which accepts what JSON
/// accepts and names what is wrong. So this only ever agrees with serde (property-tested
/// below); it exists because most of a replay's time went into parsing envelopes.
fn scan_body(text: &str) -> Option<Body<'_>> {
    let mut scan = Scan { text, at: 0 };
    scan.literal("{\"seq\":")?;
    let seq = scan.unsigned()?;
    // Skipped like serde's `IgnoredAny` skips it: the verifier checks it byte for byte.
    scan.literal(",\"prev_hash\":")?;
    scan.string()?;
    scan.literal(",\"recorded_at\":")?;
    let recorded_at = scan.string()?;
    scan.literal(",\"actor\":")?;
    let actor = scan.string()?;
    let session = scan.optional(",\"session\":")?;
    let turn = scan.optional(",\"turn\":")?;
    let run = scan.optional(",\"run\":")?;
    let item = scan.optional(",\"item\":")?;
    scan.literal(",\"event_type\":")?;
    let event_type = scan.string()?;
    scan.literal(",\"event_version\":")?;
    let event_version = u32::try_from(scan.unsigned()?).ok()?;
    scan.literal(",\"payload\":")?;
    // The payload runs to the body's closing brace; it must parse as exactly one JSON value.
    let payload = text.strip_suffix('}')?.get(scan.at..)?;
    let payload: &RawValue = serde_json::from_str(payload).ok()?;
    Some(Body {
        seq,
        prev_hash: IgnoredAny,
        recorded_at: Cow::Borrowed(recorded_at),
        actor: Cow::Borrowed(actor),
        session: session.map(Cow::Borrowed),
        turn: turn.map(Cow::Borrowed),
        run: run.map(Cow::Borrowed),
        item: item.map(Cow::Borrowed),
        event_type: Cow::Borrowed(event_type),
        event_version,
        payload,
    })
}

/// A cursor over a body for [`scan_body`].
struct Scan<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Scan<'a> {
    fn rest(&self) -> &'a str {
        self.text.get(self.at..).unwrap_or_default()
    }

    /// Consumes `literal`, or `None`.
    fn literal(&mut self, literal: &str) -> Option<()> {
        self.rest().starts_with(literal).then(|| self.at += literal.len())
    }

    /// The next `n` bytes.
    fn take(&mut self, n: usize) -> Option<&'a str> {
        let taken = self.rest().get(..n)?;
        self.at += n;
        Some(taken)
    }

    /// A JSON integer as JSON spells it (no sign, no leading zero), fitting a `u64`.
    fn unsigned(&mut self) -> Option<u64> {
        let digits = self.rest().bytes().take_while(u8::is_ascii_digit).count();
        let text = self.take(digits)?;
        if text.is_empty() || (text.len() > 1 && text.starts_with('0')) {
            return None;
        }
        text.parse().ok()
    }

    /// A string without escapes or control characters (which need no decoding), borrowed.
    fn string(&mut self) -> Option<&'a str> {
        self.literal("\"")?;
        let len = self.rest().bytes().position(|b| b == b'"' || b == b'\\' || b < 0x20)?;
        let content = self.take(len)?;
        self.literal("\"")?;
        Some(content)
    }

    /// `key` and its string, if the body has that key next.
    fn optional(&mut self, key: &str) -> Option<Option<&'a str>> {
        if self.literal(key).is_none() {
            return Some(None);
        }
        self.string().map(Some)
    }
}

impl<'a> EnvelopeRef<'a> {
    /// Reads a stored record's body, as [`Envelope::parse`] does, without copying it.
    pub fn parse(record: impl Into<RecordRef<'a>>) -> Result<EnvelopeRef<'a>, EnvelopeError> {
        let record = record.into();
        let malformed = |why: String| EnvelopeError::Malformed { seq: record.seq, why };
        // One UTF-8 check of the whole body, then a parse from text: cheaper than the per-string
        // checks of a parse from bytes (and a body that is not UTF-8 is not JSON either).
        let text = std::str::from_utf8(record.body).map_err(|e| malformed(e.to_string()))?;
        let body = match scan_body(text) {
            Some(body) => body,
            None => serde_json::from_str::<Body<'a>>(text).map_err(|e| malformed(e.to_string()))?,
        };
        if body.seq != record.seq {
            return Err(EnvelopeError::SeqMismatch { seq: record.seq, declared: body.seq });
        }
        let recorded_at =
            body.recorded_at.parse().map_err(|e: super::InvalidTimestamp| malformed(e.to_string()))?;
        Ok(EnvelopeRef {
            seq: body.seq,
            recorded_at,
            hash: record.hash,
            event_version: body.event_version,
            actor: body.actor,
            session: body.session,
            turn: body.turn,
            run: body.run,
            item: body.item,
            event_type: body.event_type,
            payload: body.payload,
        })
    }

    /// Who caused it.
    pub fn actor(&self) -> &str {
        &self.actor
    }

    /// The event's type name.
    pub fn event_type(&self) -> &str {
        &self.event_type
    }

    /// The harness session, if any.
    pub fn session(&self) -> Option<&str> {
        self.session.as_deref()
    }

    /// The turn, if any.
    pub fn turn(&self) -> Option<&str> {
        self.turn.as_deref()
    }

    /// The run, if any.
    pub fn run(&self) -> Option<&str> {
        self.run.as_deref()
    }

    /// The work item, if any.
    pub fn item(&self) -> Option<&str> {
        self.item.as_deref()
    }

    /// The payload's JSON text as stored.
    pub fn payload(&self) -> &'a str {
        self.payload.get()
    }
}

impl<'a> From<&'a Envelope> for EnvelopeRef<'a> {
    fn from(e: &'a Envelope) -> Self {
        EnvelopeRef {
            seq: e.seq,
            recorded_at: e.recorded_at,
            hash: e.hash,
            event_version: e.event_version,
            actor: Cow::Borrowed(&e.actor),
            session: e.session.as_deref().map(Cow::Borrowed),
            turn: e.turn.as_deref().map(Cow::Borrowed),
            run: e.run.as_deref().map(Cow::Borrowed),
            item: e.item.as_deref().map(Cow::Borrowed),
            event_type: Cow::Borrowed(&e.event_type),
            payload: &e.payload,
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::{Body, scan_body};

    /// A body's fields, comparable.
    type Fields = (u64, String, String, [Option<String>; 4], String, u32, String);

    fn fields(body: &Body<'_>) -> Fields {
        let owned = |text: &Option<std::borrow::Cow<'_, str>>| text.as_deref().map(str::to_owned);
        (
            body.seq,
            body.recorded_at.to_string(),
            body.actor.to_string(),
            [owned(&body.session), owned(&body.turn), owned(&body.run), owned(&body.item)],
            body.event_type.to_string(),
            body.event_version,
            body.payload.get().to_owned(),
        )
    }

    /// The general parser's reading of `text`, if it has one.
    fn serde_reading(text: &str) -> Option<Fields> {
        serde_json::from_str::<Body<'_>>(text).ok().map(|body| fields(&body))
    }

    const PAYLOADS: &[&str] = &[
        "{}",
        r#"{"message":"a \"quoted\" \\ note","n":[1,2.5,-3e2,null,true]}"#,
        r#"{"nested":{"payload":{"payload":[]}},"x":"}"}"#,
        "[1,2]",
        "\"text\"",
        "null",
        " {\"a\":1} ",
        "{",
        "{\"a\":1},\"extra\":{}",
        "{} {}",
        "{\"a\":1}}",
        "",
    ];

    fn text() -> impl Strategy<Value = String> {
        prop_oneof!["[a-z0-9_.:-]{0,12}", "[a-zé✓ \"\\\\/\u{1}\u{1f}]{0,8}",]
    }

    prop_compose! {
        /// A body as the writer lays it out, with arbitrary values; sometimes with the
        /// correlation keys out of order, an extra key, whitespace, or numbers spelt otherwise.
        fn body()(
            seq in prop_oneof![any::<u64>(), 0u64..1000],
            hex in "[0-9a-f]{64}|[0-9a-fA-F]{63,65}",
            recorded_at in prop_oneof![Just("2026-02-21T09:30:00.123Z".to_owned()), text()],
            actor in text(),
            ids in proptest::collection::vec(proptest::option::of(text()), 4),
            event_type in text(),
            version in prop_oneof![any::<u32>().prop_map(u64::from), any::<u64>()],
            payload in proptest::sample::select(PAYLOADS),
            twist in 0u8..10,
        ) -> String {
            let json = |s: &str| serde_json::to_string(s).unwrap_or_default();
            let mut ids: Vec<String> = ["session", "turn", "run", "item"]
                .iter()
                .zip(&ids)
                .filter_map(|(key, id)| id.as_deref().map(|id| format!(",\"{key}\":{}", json(id))))
                .collect();
            if twist == 1 {
                ids.reverse();
            }
            let extra = if twist == 2 { ",\"extra\":1" } else { "" };
            let colon = if twist == 3 { ": " } else { ":" };
            // Numbers JSON spells otherwise, or not at all.
            let seq = match twist {
                4 => format!("0{seq}"),
                5 => format!("{seq}.0"),
                6 => format!("-{seq}"),
                _ => seq.to_string(),
            };
            let version = if twist == 7 { format!("0{version}") } else { version.to_string() };
            format!(
                "{{\"seq\"{colon}{seq},\"prev_hash\":\"{hex}\",\"recorded_at\":{},\"actor\":{}{}{extra},\"event_type\":{},\"event_version\":{version},\"payload\":{payload}}}",
                json(&recorded_at),
                json(&actor),
                ids.concat(),
                json(&event_type),
            )
        }
    }

    proptest! {
        /// The fast reading never disagrees with serde's: whenever it reads a body, serde reads
        /// the same fields from it. Bodies are generated and then sometimes damaged.
        #[test]
        fn the_scan_reads_only_what_serde_reads_and_reads_it_the_same(
            body in body(),
            edit in proptest::option::of((any::<prop::sample::Index>(), 0u8..3, 32u8..127)),
        ) {
            let mut bytes = body.into_bytes();
            if let Some((at, how, byte)) = edit {
                let at = at.index(bytes.len() + 1);
                match how {
                    0 if at < bytes.len() => bytes[at] = byte,
                    1 if at < bytes.len() => { bytes.remove(at); }
                    _ => bytes.insert(at, byte),
                }
            }
            let Ok(text) = String::from_utf8(bytes) else { return Ok(()) };
            if let Some(scanned) = scan_body(&text) {
                prop_assert_eq!(Some(fields(&scanned)), serde_reading(&text), "{}", text);
            }
        }

        /// Bodies exactly as the writer lays them out, with values that need no escaping,
        /// take the fast path: it is the one a replay runs on.
        #[test]
        fn the_writers_plain_bodies_take_the_scan(
            seq in any::<u64>(),
            hex in "[0-9a-f]{64}",
            plain in proptest::collection::vec("[a-zA-Z0-9 _.:é-]{1,16}", 3),
            session in proptest::option::of("[a-z0-9-]{1,16}"),
            version in any::<u32>(),
            payload in proptest::sample::select(&PAYLOADS[..7]),
        ) {
            let session = session.map(|s| format!(",\"session\":\"{s}\"")).unwrap_or_default();
            let text = format!(
                "{{\"seq\":{seq},\"prev_hash\":\"{hex}\",\"recorded_at\":\"{}\",\"actor\":\"{}\"{session},\"event_type\":\"{}\",\"event_version\":{version},\"payload\":{payload}}}",
                plain[0], plain[1], plain[2],
            );
            let scanned = scan_body(&text).map(|body| fields(&body));
            prop_assert!(scanned.is_some(), "{}", text);
            prop_assert_eq!(scanned, serde_reading(&text));
        }
    }
}
