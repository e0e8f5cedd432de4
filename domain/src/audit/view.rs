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

impl<'a> EnvelopeRef<'a> {
    /// Reads a stored record's body, as [`Envelope::parse`] does, without copying it.
    pub fn parse(record: impl Into<RecordRef<'a>>) -> Result<EnvelopeRef<'a>, EnvelopeError> {
        let record = record.into();
        let malformed = |why: String| EnvelopeError::Malformed { seq: record.seq, why };
        // One UTF-8 check of the whole body, then a parse from text: cheaper than the per-string
        // checks of a parse from bytes (and a body that is not UTF-8 is not JSON either).
        let text = std::str::from_utf8(record.body).map_err(|e| malformed(e.to_string()))?;
        let body: Body<'a> = serde_json::from_str(text).map_err(|e| malformed(e.to_string()))?;
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
