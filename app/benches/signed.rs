//! Signed-approval bench (issue 21, K-5): verifying one signed approval — armored SSHSIG
//! parsed, namespace, head and signer checked, ed25519 signature verified over the record's
//! canonical bytes — against the raw baseline in the same run: `ssh-key`'s own
//! `PublicKey::verify` of an already parsed signature over the same bytes. Target: ≤ 100 µs per
//! verification. A decision on a record already verified costs one BLAKE3 of the inputs (the
//! cache), measured as `cache_key`.

use std::hint::black_box;

use agentwarden::audit::Head;
use agentwarden::governance::{RecordSignature, SIGNATURE_NAMESPACE, Scope, SignedContent, signed_bytes};
use agentwarden::signing::{AllowedSigners, sign_with_private_key, verify_record};
use criterion::{Criterion, criterion_group, criterion_main};
use ssh_key::private::Ed25519Keypair;
use ssh_key::{PrivateKey, SshSig};

#[expect(clippy::panic, reason = "a broken bench setup must stop the bench")]
fn fail(why: &str) -> ! {
    panic!("bench setup failed: {why}")
}

fn bench(c: &mut Criterion) {
    let key = PrivateKey::from(Ed25519Keypair::from_seed(&[7; 32]));
    let public = key.public_key().to_openssh().unwrap_or_else(|e| fail(&e.to_string()));
    let signers = AllowedSigners::parse(&format!("alice {public}\nbob {public}\n"))
        .unwrap_or_else(|e| fail(&e.to_string()));
    let scope = Scope { personas: vec!["MANAGER".into()], subagents: vec!["PREPARATION".into()] };
    let head = Head::EMPTY;
    let content =
        SignedContent::Approval { approval_ref: "GATE-2026-02-21-001", scope: &scope, expires_at: None };
    let bytes = |p: &str, s: u64, h: &str| signed_bytes(content, p, s, h);
    let message = bytes("alice", head.seq, &head.hash.to_string());
    let sshsig = sign_with_private_key(&key, &message).unwrap_or_else(|e| fail(&e.to_string()));
    let signature =
        RecordSignature { principal: "alice".into(), head_seq: 0, head_hash: head.hash.to_string(), sshsig };
    if verify_record(&signers, 1, Some(head), Some(&signature), bytes).is_err() {
        fail("the signature does not verify");
    }
    let parsed = SshSig::from_pem(&signature.sshsig).unwrap_or_else(|e| fail(&e.to_string()));
    let mut group = c.benchmark_group("signed_approval");
    group.bench_function("verify_record", |b| {
        b.iter(|| verify_record(&signers, black_box(1), Some(head), Some(black_box(&signature)), bytes))
    });
    group.bench_function("raw_sshsig_verify", |b| {
        b.iter(|| key.public_key().verify(SIGNATURE_NAMESPACE, black_box(&message), black_box(&parsed)))
    });
    group.bench_function("cache_key", |b| {
        b.iter(|| {
            let mut hasher = blake3::Hasher::new();
            hasher.update(black_box(public.as_bytes()));
            hasher.update(black_box(signature.sshsig.as_bytes()));
            hasher.update(black_box(&message));
            hasher.finalize()
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
