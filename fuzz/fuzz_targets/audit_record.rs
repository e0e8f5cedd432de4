//! Stored audit records: arbitrary bodies (correctly or wrongly hashed) are parsed, decoded and
//! verified without a panic; a record verifies only if its hash is BLAKE3(prev ‖ body).
#![no_main]

use agentwarden_domain::audit::{Envelope, Hash, Head, StoredRecord, verify};
use agentwarden_domain::events::decode;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (flag, body) = data.split_first().map_or((0, data), |(f, rest)| (*f, rest));
    let honest = Hash::link(&Head::EMPTY.hash, body);
    let hash = if flag % 2 == 0 { honest } else { Hash::from_bytes([flag; 32]) };
    let record = StoredRecord { seq: 1, hash, body: body.to_vec() };
    if let Ok(envelope) = Envelope::parse(&record) {
        let _ = decode(&envelope);
    }
    if verify([&record]).is_ok() {
        assert_eq!(record.hash, honest, "verified with a wrong hash");
    }
});
