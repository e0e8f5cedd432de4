//! The resident service's frames (V-2): bytes on the socket read as a frame and as a body,
//! decoded as a request and as an answer without a panic; an accepted request encodes back to
//! itself (the oracle is in `agentwarden_cli::fuzzing::server_frame`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| agentwarden_cli::fuzzing::server_frame(data));
