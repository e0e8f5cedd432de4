//! A signed note and a checkpoint: any bytes read as a C2SP signed note and its text as
//! a `tlog-checkpoint`, and as a verifier key. Never a panic; a note the reader takes is written
//! back byte for byte, and so is a checkpoint it takes.
#![no_main]

use agentwarden_domain::audit::note::{TreeHead, parse_note, parse_verifier_key, verifier_key};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(note) = parse_note(text) {
        assert_eq!(note.to_text(), text, "a note reads back as itself");
        if let Ok(head) = TreeHead::parse(&note.text) {
            assert_eq!(head.to_text(), note.text, "a checkpoint reads back as itself");
        }
    }
    if let Ok(head) = TreeHead::parse(text) {
        assert_eq!(head.to_text(), text);
    }
    if let Ok((name, kind, key)) = parse_verifier_key(text) {
        assert_eq!(verifier_key(&name, kind, &key), text.trim_end_matches('\n'));
    }
});
