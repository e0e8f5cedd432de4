//! The event envelope: what an event says besides its payload, and the exact body bytes.
//!
//! The body is JSON with its fields in a fixed order, beginning `{"seq":N,"prev_hash":"…",`.
//! That fixed prefix lets the verifier check an event's declared position with a byte
//! comparison instead of a parse.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::hash::Hash;
use super::record::{StoredRecord, push_decimal, push_position};
use super::time::Timestamp;

/// Text that cannot be an actor or a correlation id.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvalidText {
    /// Empty or only whitespace.
    #[error("{what} is empty")]
    Empty {
        /// Which value.
        what: &'static str,
    },
    /// Longer than allowed.
    #[error("{what} is {len} characters long; at most {max} are allowed")]
    TooLong {
        /// Which value.
        what: &'static str,
        /// Its length in characters.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// Contains a control character.
    #[error("{what} contains a control character")]
    ControlCharacter {
        /// Which value.
        what: &'static str,
    },
}

fn check_text(what: &'static str, text: &str, max: usize) -> Result<(), InvalidText> {
    if text.trim().is_empty() {
        return Err(InvalidText::Empty { what });
    }
    let len = text.chars().count();
    if len > max {
        return Err(InvalidText::TooLong { what, len, max });
    }
    if text.chars().any(char::is_control) {
        return Err(InvalidText::ControlCharacter { what });
    }
    Ok(())
}

/// Who caused an event (`daemon`, `cli`, a user name): non-empty, at most 128 characters,
/// no control characters.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct Actor(String);

impl Actor {
    /// Validates and wraps an actor name.
    pub fn new(name: impl Into<String>) -> Result<Self, InvalidText> {
        let name = name.into();
        check_text("actor", &name, 128)?;
        Ok(Actor(name))
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A session, turn, run or item id: non-empty, at most 256 characters, no control characters.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct CorrelationId(String);

impl CorrelationId {
    /// Validates and wraps an id.
    pub fn new(id: impl Into<String>) -> Result<Self, InvalidText> {
        let id = id.into();
        check_text("correlation id", &id, 256)?;
        Ok(CorrelationId(id))
    }

    /// The id.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The ids that tie an event to the work it is about; all optional.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Correlation {
    /// The harness session.
    pub session: Option<CorrelationId>,
    /// The turn within the session.
    pub turn: Option<CorrelationId>,
    /// The fan-out or pipeline run.
    pub run: Option<CorrelationId>,
    /// The work item.
    pub item: Option<CorrelationId>,
}

/// What an event gives the draft that records it: its type name, its payload's schema version
/// and its payload's JSON. The envelope and the chain below it know no event catalogue: the
/// catalogue ([`crate::events::AuditEvent`]) implements this, and so may an embedder's own events.
pub trait EventPayload {
    /// The `event_type` written in the envelope (snake_case).
    fn event_type(&self) -> &'static str;
    /// The payload's current schema version.
    fn event_version(&self) -> u32;
    /// Writes the payload as one JSON value into `out`.
    fn write_payload(&self, out: &mut Vec<u8>) -> Result<(), serde_json::Error>;
}

/// An event before it has a place in the chain: everything but `seq`, `prev_hash` and `hash`,
/// which the store assigns at write time.
#[derive(Debug, Clone)]
pub struct EventDraft {
    recorded_at: Timestamp,
    actor: Actor,
    correlation: Correlation,
    event_type: &'static str,
    event_version: u32,
    /// The payload's JSON, as the event's `Serialize` wrote it.
    payload: Vec<u8>,
}

/// What a payload buffer starts at: a gate's report (the most frequent event) fits without
/// growing it, so it is neither reallocated nor copied on the way.
const PAYLOAD_CAPACITY: usize = 2048;

impl EventDraft {
    /// A draft of `event`, recorded at `recorded_at` by `actor`: the event gives its type,
    /// version and payload.
    pub fn new(
        recorded_at: Timestamp,
        actor: Actor,
        correlation: Correlation,
        event: &dyn EventPayload,
    ) -> Result<Self, serde_json::Error> {
        Ok(EventDraft {
            recorded_at,
            actor,
            correlation,
            event_type: event.event_type(),
            event_version: event.event_version(),
            payload: {
                let mut payload = Vec::with_capacity(PAYLOAD_CAPACITY);
                event.write_payload(&mut payload)?;
                payload
            },
        })
    }

    /// The event's type name.
    pub fn event_type(&self) -> &'static str {
        self.event_type
    }

    /// What the body will hold, in bytes, when no text needs escaping: the payload, the actor,
    /// the ids and the event type, and the frame around them — field names, quotes, `seq`,
    /// `prev_hash`, `recorded_at`, `event_version` — at their longest. The buffer the body is
    /// written into is made this size, so that it is not grown and copied on the way.
    pub(crate) fn body_capacity(&self) -> usize {
        // `{"seq":` … `}`: every field name and delimiter, twenty digits of seq and ten of
        // event_version, 64 hex digits of prev_hash, 24 characters of recorded_at.
        const FRAME: usize = 320;
        let ids = [
            &self.correlation.session,
            &self.correlation.turn,
            &self.correlation.run,
            &self.correlation.item,
        ];
        FRAME
            + self.payload.len()
            + self.actor.as_str().len()
            + self.event_type.len()
            + ids.iter().filter_map(|id| id.as_ref()).map(|id| id.as_str().len()).sum::<usize>()
    }

    /// Writes the body of this draft at position `seq` after `prev` into `out`: the fields in
    /// [`BodyRef`]'s order, compact, as `serde_json` writes them (strings escaped by it), and
    /// the payload's bytes as they are (no second pass over them).
    pub(crate) fn write_body(
        &self,
        seq: u64,
        prev: &Hash,
        out: &mut Vec<u8>,
    ) -> Result<(), serde_json::Error> {
        push_position(out, seq, prev);
        out.extend_from_slice(b"\"recorded_at\":\"");
        out.extend_from_slice(&self.recorded_at.text());
        out.extend_from_slice(b"\",\"actor\":");
        serde_json::to_writer(&mut *out, self.actor.as_str())?;
        let ids = [
            (&b",\"session\":"[..], &self.correlation.session),
            (b",\"turn\":", &self.correlation.turn),
            (b",\"run\":", &self.correlation.run),
            (b",\"item\":", &self.correlation.item),
        ];
        for (field, id) in ids {
            if let Some(id) = id {
                out.extend_from_slice(field);
                serde_json::to_writer(&mut *out, id.as_str())?;
            }
        }
        out.extend_from_slice(b",\"event_type\":");
        serde_json::to_writer(&mut *out, self.event_type)?;
        out.extend_from_slice(b",\"event_version\":");
        push_decimal(out, u64::from(self.event_version));
        out.extend_from_slice(b",\"payload\":");
        out.extend_from_slice(&self.payload);
        out.push(b'}');
        Ok(())
    }

    /// [`EventDraft::write_body`] as `serde_json` writes [`BodyRef`]: what the hand-written body
    /// must equal, byte for byte.
    #[cfg(test)]
    pub(crate) fn write_body_serde(
        &self,
        seq: u64,
        prev: &Hash,
        out: &mut Vec<u8>,
    ) -> Result<(), serde_json::Error> {
        let payload: Box<RawValue> =
            serde_json::from_slice(&self.payload).map_err(|e| serde::ser::Error::custom(e.to_string()))?;
        let body = BodyRef {
            seq,
            prev_hash: prev,
            recorded_at: self.recorded_at,
            actor: self.actor.as_str(),
            session: self.correlation.session.as_ref().map(CorrelationId::as_str),
            turn: self.correlation.turn.as_ref().map(CorrelationId::as_str),
            run: self.correlation.run.as_ref().map(CorrelationId::as_str),
            item: self.correlation.item.as_ref().map(CorrelationId::as_str),
            event_type: self.event_type,
            event_version: self.event_version,
            payload: &payload,
        };
        serde_json::to_writer(out, &body)
    }
}

fn display_timestamp<S: serde::Serializer>(t: &Timestamp, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(t)
}

fn parse_timestamp<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Timestamp, D::Error> {
    let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
    text.parse().map_err(serde::de::Error::custom)
}

/// The stored body, field order fixed: `seq` and `prev_hash` must come first (see module doc).
/// [`EventDraft::write_body`] writes it by hand; a test holds the two to the same bytes.
#[cfg(test)]
#[derive(Serialize)]
struct BodyRef<'a> {
    seq: u64,
    prev_hash: &'a Hash,
    #[serde(serialize_with = "display_timestamp")]
    recorded_at: Timestamp,
    actor: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    session: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    turn: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    run: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    item: Option<&'a str>,
    event_type: &'a str,
    event_version: u32,
    payload: &'a RawValue,
}

/// A stored event read back: the body's fields plus the record's hash.
///
/// `payload` keeps the exact stored JSON text of the payload.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Envelope {
    /// Position in the log, from 1, gapless.
    pub seq: u64,
    /// When it was recorded.
    #[serde(serialize_with = "display_timestamp", deserialize_with = "parse_timestamp")]
    pub recorded_at: Timestamp,
    /// Who caused it.
    pub actor: String,
    /// Harness session id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// Turn id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<String>,
    /// Run id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
    /// Work item id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item: Option<String>,
    /// The event's type name, snake_case.
    pub event_type: String,
    /// The payload's schema version as written.
    pub event_version: u32,
    /// The payload as stored.
    pub payload: Box<RawValue>,
    /// The hash of the previous event.
    pub prev_hash: Hash,
    /// This event's hash (from the record, not the body).
    #[serde(default = "genesis")]
    pub hash: Hash,
}

fn genesis() -> Hash {
    Hash::GENESIS
}

/// A stored body that cannot be read as an envelope.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EnvelopeError {
    /// Not JSON of the envelope's shape.
    #[error("event {seq}: the stored body is not a valid envelope: {why}")]
    Malformed {
        /// The record's sequence number.
        seq: u64,
        /// What the parser said.
        why: String,
    },
    /// The body names another position than the record.
    #[error("event {seq}: the stored body declares seq {declared}")]
    SeqMismatch {
        /// The record's sequence number.
        seq: u64,
        /// The body's.
        declared: u64,
    },
}

impl Envelope {
    /// Reads a stored record's body. This does not verify the chain; [`super::ChainVerifier`]
    /// does.
    pub fn parse(record: &StoredRecord) -> Result<Envelope, EnvelopeError> {
        let mut envelope: Envelope = serde_json::from_slice(&record.body)
            .map_err(|e| EnvelopeError::Malformed { seq: record.seq, why: e.to_string() })?;
        if envelope.seq != record.seq {
            return Err(EnvelopeError::SeqMismatch { seq: record.seq, declared: envelope.seq });
        }
        envelope.hash = record.hash;
        Ok(envelope)
    }
}
