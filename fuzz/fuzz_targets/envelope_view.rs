//! Stored bodies read as borrowed envelopes: `EnvelopeRef::parse` (a scan of the writer's own
//! layout, serde for anything else, ruling S-5) reads a body exactly as serde reads it, and
//! refuses exactly what serde refuses (or what names another position or an invalid time).
#![no_main]

use std::borrow::Cow;

use agentwarden_domain::audit::{EnvelopeRef, Hash, RecordRef, Timestamp};
use libfuzzer_sys::fuzz_target;
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::value::RawValue;

/// serde's reading of a body, written here independently of the domain's.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Reference<'a> {
    seq: u64,
    #[serde(rename = "prev_hash")]
    _prev_hash: IgnoredAny,
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

fuzz_target!(|body: &[u8]| {
    let reference = std::str::from_utf8(body).ok().and_then(|text| serde_json::from_str::<Reference>(text).ok());
    let seq = reference.as_ref().map_or(1, |r| r.seq);
    let view = EnvelopeRef::parse(RecordRef { seq, hash: Hash::GENESIS, body });
    match (view, reference) {
        (Ok(view), Some(r)) => {
            assert_eq!(view.seq, r.seq);
            assert_eq!(Ok(view.recorded_at), r.recorded_at.parse::<Timestamp>());
            assert_eq!(view.actor(), r.actor);
            assert_eq!(view.session(), r.session.as_deref());
            assert_eq!(view.turn(), r.turn.as_deref());
            assert_eq!(view.run(), r.run.as_deref());
            assert_eq!(view.item(), r.item.as_deref());
            assert_eq!(view.event_type(), r.event_type);
            assert_eq!(view.event_version, r.event_version);
            assert_eq!(view.payload(), r.payload.get());
        }
        (Ok(_), None) => panic!("read a body serde refuses"),
        (Err(_), Some(r)) => assert!(r.recorded_at.parse::<Timestamp>().is_err(), "refused a body serde reads"),
        (Err(_), None) => {}
    }
});
