//! An inclusion proof, a log's signer key, a witness's `add-checkpoint` request
//! and a checkpoint checked against a fixed key: any bytes, never a panic; a proof the
//! reader takes is written back byte for byte.
#![no_main]

use agentwarden::tlog::{LogSigner, LogVerifier, parse_add_checkpoint};
use agentwarden_domain::audit::proof::{InclusionProof, SignerKeyText};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(proof) = InclusionProof::parse(text) {
        assert_eq!(proof.to_text(), text, "a proof reads back as itself");
    }
    let _ = SignerKeyText::parse(text);
    let _ = LogSigner::parse(text);
    let _ = LogVerifier::parse(text);
    let _ = parse_add_checkpoint(text);
    if let Ok(signer) = LogSigner::from_seed("fuzz.example/log", [7; 32]) {
        let _ = signer.verifier().open_checkpoint(text);
    }
});
