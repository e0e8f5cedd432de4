//! Archived segments (S-13): a listing and a file as a writer of both could leave them, the
//! listing's length and digest matched to the file; refused, or read as exactly the listed
//! seqs ending at the listed hash (the oracle is in `agentwarden_adapters::fuzzing::segment`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| agentwarden_adapters::fuzzing::segment(data));
