//! Issue 21 through the real binary: with `[approvals] allowed_signers`, seals and approvals
//! count only when signed by a listed SSH key (K-1 … K-8). A key made by `ssh-keygen` signs an
//! approval the gate accepts; the same environment without the key makes none: the CLI refuses
//! it, and records appended another way (through the library) are denied with their own codes.
//! Verification is differential-tested against `ssh-keygen -Y verify`.

#![expect(clippy::unwrap_used, reason = "test code: a failed unwrap is a failed test")]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use agentwarden::audit::{Correlation, Head};
use agentwarden::events::AuditEvent;
use agentwarden::governance::ApprovalGranted;
use agentwarden::governance::{RecordSignature, Scope, SignedContent, signed_bytes};
use agentwarden::signing::{AllowedSigners, sign_with_private_key, verify_record};
use agentwarden::{
    Config, Warden,
    store::{SledConfig, SledEventStore},
};
use serde_json::Value;

mod forge;

use forge::Forger;

const REF: &str = "GATE-2026-02-21-001";

/// Makes a forged record to append after the given head.
type Forge<'a> = Box<dyn Fn(Head) -> AuditEvent + 'a>;

struct Project {
    _dir: tempfile::TempDir,
    root: PathBuf,
    store: PathBuf,
    /// alice's private key, listed in allowed_signers.
    key: PathBuf,
    /// mallory's private key, listed nowhere.
    other: PathBuf,
}

fn keygen(path: &Path) {
    let out = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "test", "-f"])
        .arg(path)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

fn project() -> Project {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    for sub in ["personas", "agents", "manifests", "requests"] {
        std::fs::create_dir_all(root.join(sub)).unwrap();
        for entry in std::fs::read_dir(examples.join(sub)).unwrap() {
            let entry = entry.unwrap();
            std::fs::copy(entry.path(), root.join(sub).join(entry.file_name())).unwrap();
        }
    }
    let config = std::fs::read_to_string(examples.join("agentwarden.toml")).unwrap();
    let config = config.replace("[subagents]\n", "[subagents]\nrequire_recorded_approval = true\n");
    let config = format!("{config}\n[approvals]\nallowed_signers = \"allowed_signers\"\n");
    std::fs::write(root.join("agentwarden.toml"), config).unwrap();
    let keys = dir.path().join("keys");
    std::fs::create_dir_all(&keys).unwrap();
    let key = keys.join("alice");
    let other = keys.join("mallory");
    keygen(&key);
    keygen(&other);
    let public = std::fs::read_to_string(keys.join("alice.pub")).unwrap();
    std::fs::write(root.join("allowed_signers"), format!("alice namespaces=\"agentwarden\" {public}"))
        .unwrap();
    Project { store: dir.path().join("audit"), root, _dir: dir, key, other }
}

fn warden(p: &Project, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warden"))
        .arg("--store")
        .arg(&p.store)
        .args(args)
        .current_dir(&p.root)
        .env("CHIRALITY_ENABLE_SUBAGENTS", "true")
        .env_remove("CLAUDECODE")
        .env_remove("SSH_AUTH_SOCK")
        .output()
        .unwrap()
}

fn ok(p: &Project, args: &[&str]) {
    let out = warden(p, args);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

fn refused(p: &Project, args: &[&str], code: &str) {
    let out = warden(p, args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
    assert!(stderr.contains(code) && stderr.lines().count() == 1, "{args:?}: {stderr}");
}

fn gate(p: &Project) -> Value {
    let out = warden(p, &["gate", "--request", "requests/example-1-allow.json", "--json"]);
    serde_json::from_slice(&out.stdout).unwrap()
}

fn failure(report: &Value) -> (String, String) {
    let first = &report["first_failure"];
    (first["gate"].as_str().unwrap_or("").to_owned(), first["code"].as_str().unwrap_or("").to_owned())
}

fn key(p: &Project) -> &str {
    p.key.to_str().unwrap()
}

/// A Warden on the project's store, as an agent with the library, the store and no key would
/// open it.
fn library(p: &Project) -> Forger {
    let config = Config::load(Some(&p.root.join("agentwarden.toml"))).unwrap();
    let store = SledEventStore::open(&SledConfig::new(&p.store)).unwrap();
    Forger::new(std::sync::Arc::new(store), |store| {
        Warden::builder().store(store).config(config).build().unwrap()
    })
}

fn grant(reference: &str, signature: Option<RecordSignature>) -> AuditEvent {
    AuditEvent::ApprovalGranted(ApprovalGranted {
        approval_ref: reference.into(),
        approved_by: Some("alice".into()),
        expires_at: None,
        scope: Scope::default(),
        signature,
    })
}

/// A signature made with `key` (through `ssh-keygen -Y sign -n namespace`) over what an
/// approval of `reference` by `principal` at `head` covers.
fn ssh_keygen_sign(key: &Path, namespace: &str, message: &[u8]) -> String {
    let mut child = Command::new("ssh-keygen")
        .args(["-q", "-Y", "sign", "-n", namespace, "-f"])
        .arg(key)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(message).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

fn approval_bytes(reference: &str, principal: &str, head: Head) -> Vec<u8> {
    let scope = Scope::default();
    let content = SignedContent::Approval { approval_ref: reference, scope: &scope, expires_at: None };
    signed_bytes(content, principal, head.seq, &head.hash.to_string())
}

#[test]
fn a_key_made_by_ssh_keygen_signs_a_seal_and_an_approval_the_gate_accepts() {
    let p = project();
    ok(&p, &["seal", "--key", key(&p)]);
    assert_eq!(failure(&gate(&p)), ("approval_ref".into(), "approval_not_recorded".into()));
    ok(&p, &["approve", "--ref", REF, "--key", key(&p)]);
    let allowed = gate(&p);
    assert_eq!(allowed["decision"], "allow", "{allowed}");
    // The approver is the key's principal, recorded with the signature.
    let listed: Value = serde_json::from_slice(&warden(&p, &["approvals", "--json"]).stdout).unwrap();
    let record = &listed["approvals"][0]["record"];
    assert_eq!(record["approved_by"], "alice", "{listed}");
    assert_eq!(record["signature"]["principal"], "alice", "{listed}");
    assert!(record["signature"]["sshsig"].as_str().unwrap().starts_with("-----BEGIN SSH SIGNATURE-----"));
    // A revoke is signed too; without the key it is refused, with it the gate denies (K-9).
    refused(&p, &["revoke", "--ref", REF], "signature_missing");
    assert_eq!(gate(&p)["decision"], "allow");
    ok(&p, &["revoke", "--ref", REF, "--key", key(&p)]);
    assert_eq!(failure(&gate(&p)), ("approval_ref".into(), "approval_revoked".into()));
    ok(&p, &["approve", "--ref", REF, "--key", key(&p)]);
    assert_eq!(gate(&p)["decision"], "allow");
    // allowed_signers is sealed; a key added after the seal denies, naming the file (K-6).
    let signers = p.root.join("allowed_signers");
    let mut text = std::fs::read_to_string(&signers).unwrap();
    let mallory = std::fs::read_to_string(p.other.with_extension("pub")).unwrap();
    text.push_str(&format!("mallory {mallory}"));
    std::fs::write(&signers, text).unwrap();
    // The seal that pinned the list no longer matches it (K-10), and the file is named.
    let denied = gate(&p);
    assert_eq!(failure(&denied), ("context_sealed".into(), "signers_unavailable".into()), "{denied}");
    let reason = denied["first_failure"]["reason"].as_str().unwrap();
    assert!(reason.contains("allowed_signers` cannot be used"), "{denied}");
}

#[test]
fn without_the_key_the_cli_refuses_every_approval_with_its_own_code() {
    let p = project();
    ok(&p, &["seal", "--key", key(&p)]);
    refused(&p, &["approve", "--ref", REF], "signature_missing");
    refused(&p, &["seal"], "signature_missing");
    refused(&p, &["approve", "--ref", REF, "--key", p.other.to_str().unwrap()], "signer_not_allowed");
    refused(&p, &["approve", "--ref", REF, "--key", key(&p), "--by", "mallory"], "signer_not_allowed");
    // Nothing was recorded by the refusals: the gate still has no approval.
    assert_eq!(failure(&gate(&p)), ("approval_ref".into(), "approval_not_recorded".into()));
}

#[tokio::test]
async fn records_that_reach_the_log_another_way_are_not_approvals() {
    let p = project();
    ok(&p, &["seal", "--key", key(&p)]);
    ok(&p, &["approve", "--ref", "GENUINE", "--key", key(&p)]);
    // A record of `REF` by alice, signed with `key` for `namespace` over `reference` at `signed_at`.
    let forged = |key: &Path, namespace: &str, reference: &str, signed_at: Head| {
        let sshsig = ssh_keygen_sign(key, namespace, &approval_bytes(reference, "alice", signed_at));
        let signature = RecordSignature {
            principal: "alice".into(),
            head_seq: signed_at.seq,
            head_hash: signed_at.hash.to_string(),
            sshsig,
        };
        grant(REF, Some(signature))
    };
    let older = |head: Head| Head { seq: head.seq - 1, hash: head.hash };
    let cases: Vec<(&str, Forge<'_>)> = vec![
        ("signature_missing", Box::new(|_| grant(REF, None))),
        // mallory's key, claiming to be alice.
        ("signer_not_allowed", Box::new(|head| forged(&p.other, "agentwarden", REF, head))),
        // alice's key, for git.
        ("signature_wrong_namespace", Box::new(|head| forged(&p.key, "git", REF, head))),
        // alice's key, against an older head: a replay.
        ("signature_wrong_head", Box::new(|head| forged(&p.key, "agentwarden", REF, older(head)))),
        // alice's genuine signature of another reference, copied onto this record.
        ("signature_invalid", Box::new(|head| forged(&p.key, "agentwarden", "OTHER", head))),
    ];
    for (code, forge) in cases {
        let head = {
            let lib = library(&p);
            let head = lib.head().await.unwrap();
            lib.record(Correlation::default(), &forge(head)).await.unwrap();
            head
        };
        let denied = gate(&p);
        assert_eq!(
            failure(&denied),
            ("approval_ref".into(), code.into()),
            "{code} (after seq {}): {denied}",
            head.seq
        );
        // The investigator is told why.
        let seq = denied["audit"]["seq"].as_u64().unwrap().to_string();
        let explained = String::from_utf8(warden(&p, &["audit", "explain", &seq]).stdout).unwrap();
        assert!(explained.contains(code) && explained.contains("is not an approval"), "{code}: {explained}");
    }
    // The genuine one, copied whole into a later record: signed against another head.
    let lib = library(&p);
    let records = lib.records().await.unwrap();
    let genuine = records.governance.approvals.get("GENUINE").unwrap().signature.clone();
    lib.record(Correlation::default(), &grant("GENUINE", genuine)).await.unwrap();
    drop(lib);
    let out = warden(&p, &["approvals", "--json"]);
    let listed: Value = serde_json::from_slice(&out.stdout).unwrap();
    let genuine = listed["approvals"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["record"]["approval_ref"] == "GENUINE")
        .unwrap();
    assert_eq!(genuine["record"]["refused"]["code"], "signature_wrong_head", "{listed}");
    // An unsigned seal appended by the library is no seal: the gate names why.
    let lib = library(&p);
    let files = lib.seal_digests().await.unwrap();
    let seal = AuditEvent::ContextSealed(agentwarden::governance::ContextSealed {
        by: Some("alice".into()),
        files,
        signature: None,
        key_list: None,
        texts: Default::default(),
    });
    lib.record(Correlation::default(), &seal).await.unwrap();
    drop(lib);
    assert_eq!(failure(&gate(&p)), ("context_sealed".into(), "signature_missing".into()));
}

#[test]
fn an_agent_that_repoints_or_drops_the_key_list_makes_no_approval() {
    let p = project();
    ok(&p, &["seal", "--key", key(&p)]);
    ok(&p, &["approve", "--ref", REF, "--key", key(&p)]);
    assert_eq!(gate(&p)["decision"], "allow");
    // The agent lists its own key in a file of its own, points the configuration at it, and
    // seals and approves with that key: the CLI refuses both (K-14: a new list is sealed with
    // a key of the pinned one), and the gate denies while the pinned list is not configured.
    let mallory = std::fs::read_to_string(p.other.with_extension("pub")).unwrap();
    std::fs::write(p.root.join("mine"), format!("alice {mallory}")).unwrap();
    let config_path = p.root.join("agentwarden.toml");
    let config = std::fs::read_to_string(&config_path).unwrap();
    std::fs::write(
        &config_path,
        config.replace("allowed_signers = \"allowed_signers\"", "allowed_signers = \"mine\""),
    )
    .unwrap();
    let other = p.other.to_str().unwrap();
    refused(&p, &["seal", "--key", other], "key_rotation_refused");
    refused(&p, &["approve", "--ref", REF, "--key", other], "signers_unavailable");
    let denied = gate(&p);
    assert_eq!(failure(&denied), ("context_sealed".into(), "signers_unavailable".into()), "{denied}");
    assert!(denied["first_failure"]["reason"].as_str().unwrap().contains("seq 1 pinned"), "{denied}");
    // Or it drops the key list and records unsigned.
    let dropped = config.replace("allowed_signers = \"allowed_signers\"", "");
    let dropped = dropped.replace("[approvals]\n", "");
    std::fs::write(&config_path, dropped).unwrap();
    ok(&p, &["seal"]);
    ok(&p, &["approve", "--ref", REF]);
    let denied = gate(&p);
    assert_eq!(failure(&denied), ("context_sealed".into(), "signers_unavailable".into()), "{denied}");
    // The human's configuration back: the human's records are approvals again once resealed.
    std::fs::write(&config_path, config).unwrap();
    ok(&p, &["seal", "--key", key(&p)]);
    ok(&p, &["approve", "--ref", REF, "--key", key(&p)]);
    assert_eq!(gate(&p)["decision"], "allow");
}

/// Ends the test's ssh-agent, whatever the test's outcome.
struct KillOnDrop(String);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = Command::new("kill").arg(&self.0).status();
    }
}

#[test]
fn a_public_key_signs_through_ssh_agent() {
    let p = project();
    let socket = p.root.join("agent.sock");
    let started = Command::new("ssh-agent").arg("-a").arg(&socket).output().unwrap();
    assert!(started.status.success(), "{}", String::from_utf8_lossy(&started.stderr));
    let pid = String::from_utf8(started.stdout)
        .unwrap()
        .split(['=', ';'])
        .skip_while(|w| w.trim() != "SSH_AGENT_PID")
        .nth(1)
        .unwrap()
        .to_owned();
    let _agent = KillOnDrop(pid);
    let with_agent = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_warden"))
            .arg("--store")
            .arg(&p.store)
            .args(args)
            .current_dir(&p.root)
            .env("CHIRALITY_ENABLE_SUBAGENTS", "true")
            .env_remove("CLAUDECODE")
            .env("SSH_AUTH_SOCK", &socket)
            .output()
            .unwrap()
    };
    // The public key alone, away from its private half (ssh-keygen would fall back to it).
    let public = p.root.join("alice.pub");
    std::fs::copy(p.key.with_extension("pub"), &public).unwrap();
    let public = public.to_str().unwrap();
    // Not in the agent yet: ssh-keygen cannot sign, and nothing is recorded.
    let out = with_agent(&["seal", "--key", public]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let added = Command::new("ssh-add").arg(&p.key).env("SSH_AUTH_SOCK", &socket).output().unwrap();
    assert!(added.status.success(), "{}", String::from_utf8_lossy(&added.stderr));
    let sealed = with_agent(&["seal", "--key", public]);
    let approved = with_agent(&["approve", "--ref", REF, "--key", public]);
    assert_eq!(sealed.status.code(), Some(0), "{}", String::from_utf8_lossy(&sealed.stderr));
    assert_eq!(approved.status.code(), Some(0), "{}", String::from_utf8_lossy(&approved.stderr));
    assert_eq!(gate(&p)["decision"], "allow");
}

#[test]
fn verification_agrees_with_ssh_keygen_both_ways() {
    let p = project();
    let signers_path = p.root.join("allowed_signers");
    let signers = AllowedSigners::parse(&std::fs::read_to_string(&signers_path).unwrap()).unwrap();
    let head = Head::EMPTY;
    let message = approval_bytes(REF, "alice", head);
    let record = |sshsig: String| RecordSignature {
        principal: "alice".into(),
        head_seq: head.seq,
        head_hash: head.hash.to_string(),
        sshsig,
    };
    let warden_verifies = |sshsig: &str, reference: &str| {
        verify_record(&signers, 1, Some(head), Some(&record(sshsig.to_owned())), |a, _, _| {
            approval_bytes(reference, a, head)
        })
    };
    let openssh_verifies = |sshsig: &str, signed: &[u8]| {
        let file = p.root.join("message.sig");
        std::fs::write(&file, sshsig).unwrap();
        let mut child = Command::new("ssh-keygen")
            .args(["-q", "-Y", "verify", "-I", "alice", "-n", "agentwarden", "-f"])
            .arg(&signers_path)
            .arg("-s")
            .arg(&file)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(signed).unwrap();
        child.wait().unwrap().success()
    };
    // ssh-keygen signs, both verify; over another reference, both refuse.
    let by_openssh = ssh_keygen_sign(&p.key, "agentwarden", &message);
    assert!(openssh_verifies(&by_openssh, &message));
    assert_eq!(warden_verifies(&by_openssh, REF), Ok(()));
    assert!(!openssh_verifies(&by_openssh, &approval_bytes("OTHER", "alice", head)));
    assert!(warden_verifies(&by_openssh, "OTHER").is_err());
    // Warden signs, both verify; another key's signature, both refuse.
    let private = ssh_key::PrivateKey::read_openssh_file(&p.key).unwrap();
    let by_warden = sign_with_private_key(&private, &message).unwrap();
    assert!(openssh_verifies(&by_warden, &message));
    assert_eq!(warden_verifies(&by_warden, REF), Ok(()));
    let other = ssh_key::PrivateKey::read_openssh_file(&p.other).unwrap();
    let by_mallory = sign_with_private_key(&other, &message).unwrap();
    assert!(!openssh_verifies(&by_mallory, &message));
    assert_eq!(warden_verifies(&by_mallory, REF).unwrap_err().code.as_str(), "signer_not_allowed");
    // Another namespace: both refuse.
    let for_git = ssh_keygen_sign(&p.key, "git", &message);
    assert!(!openssh_verifies(&for_git, &message));
    assert_eq!(warden_verifies(&for_git, REF).unwrap_err().code.as_str(), "signature_wrong_namespace");
}

#[tokio::test]
async fn an_unsigned_release_lifts_no_quarantine_and_a_signed_one_does() {
    let p = project();
    let config = Config::load(Some(&p.root.join("agentwarden.toml"))).unwrap();
    let warden = Forger::new(std::sync::Arc::new(agentwarden::store::MemoryEventStore::new()), |store| {
        Warden::builder().store(store).config(config).build().unwrap()
    });
    let session = Correlation {
        session: Some(agentwarden::audit::CorrelationId::new("s1".to_owned()).unwrap()),
        ..Correlation::default()
    };
    let quarantine = AuditEvent::SessionQuarantined(Box::new(agentwarden::sessions::SessionQuarantined {
        agent_id: None,
        code: "revert_failed".into(),
        reason: "x".into(),
    }));
    warden.record(session.clone(), &quarantine).await.unwrap();
    let release = |signature| {
        AuditEvent::SessionReleased(agentwarden::sessions::SessionReleased { by: None, signature })
    };
    warden.record(session.clone(), &release(None)).await.unwrap();
    assert!(
        warden.records().await.unwrap().quarantined.contains_key("s1"),
        "an unsigned release lifts nothing"
    );
    let head = warden.head().await.unwrap();
    let bytes =
        signed_bytes(SignedContent::Release { session: "s1" }, "alice", head.seq, &head.hash.to_string());
    let sshsig = ssh_keygen_sign(&p.key, "agentwarden", &bytes);
    let signature = RecordSignature {
        principal: "alice".into(),
        head_seq: head.seq,
        head_hash: head.hash.to_string(),
        sshsig,
    };
    // The quarantine was put back by the check, so the signed release lifts it.
    warden.record(session.clone(), &release(Some(signature.clone()))).await.unwrap();
    assert!(!warden.records().await.unwrap().quarantined.contains_key("s1"), "a signed release lifts it");
    // The same signature, replayed at a later quarantine, lifts nothing.
    warden.record(session.clone(), &quarantine).await.unwrap();
    warden.record(session.clone(), &release(Some(signature))).await.unwrap();
    assert!(
        warden.records().await.unwrap().quarantined.contains_key("s1"),
        "a replayed release lifts nothing"
    );
}

/// An `sk-ssh-ed25519` (FIDO) signature, made the way a token makes it (ed25519 over
/// SHA-256(application) ‖ flags ‖ counter ‖ SHA-256(SSHSIG signed data)), since no token is
/// attached here: Warden and `ssh-keygen -Y verify` both accept it.
#[test]
fn an_sk_signature_verifies_like_openssh_verifies_it() {
    use signature::Signer;
    use ssh_key::sha2::{Digest, Sha256};
    use ssh_key::{Algorithm, HashAlg, LineEnding, SshSig};

    let dir = tempfile::tempdir().unwrap();
    let keypair = ssh_key::private::Ed25519Keypair::from_seed(&[9; 32]);
    let application = "ssh:";
    let public =
        ssh_key::public::KeyData::SkEd25519(ssh_key::public::SkEd25519::new(keypair.public, application));
    let line = format!("alice {}\n", ssh_key::PublicKey::from(public.clone()).to_openssh().unwrap());
    let signers_path = dir.path().join("allowed_signers");
    std::fs::write(&signers_path, &line).unwrap();
    let signers = AllowedSigners::parse(&line).unwrap();
    let head = Head::EMPTY;
    let message = approval_bytes(REF, "alice", head);
    let sign = |flags: u8| {
        let trailer = [flags, 0, 0, 0, 7];
        let signed = SshSig::signed_data("agentwarden", HashAlg::Sha512, &message).unwrap();
        let mut data = Sha256::digest(application).to_vec();
        data.extend(trailer);
        data.extend(Sha256::digest(&signed));
        let raw: ssh_key::Signature = keypair.try_sign(&data).unwrap();
        let sk = ssh_key::Signature::new(Algorithm::SkEd25519, [raw.as_bytes(), &trailer].concat()).unwrap();
        SshSig::new(public.clone(), "agentwarden", HashAlg::Sha512, sk)
            .unwrap()
            .to_pem(LineEnding::LF)
            .unwrap()
    };
    let openssh_verifies = |sshsig: &str| {
        let file = dir.path().join("message.sig");
        std::fs::write(&file, sshsig).unwrap();
        let mut child = Command::new("ssh-keygen")
            .args(["-q", "-Y", "verify", "-I", "alice", "-n", "agentwarden", "-f"])
            .arg(&signers_path)
            .arg("-s")
            .arg(&file)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(&message).unwrap();
        child.wait().unwrap().success()
    };
    let record = |sshsig: String| RecordSignature {
        principal: "alice".into(),
        head_seq: head.seq,
        head_hash: head.hash.to_string(),
        sshsig,
    };
    let touched = sign(0x01);
    assert!(openssh_verifies(&touched), "OpenSSH accepts the fixture");
    assert_eq!(
        verify_record(&signers, 1, Some(head), Some(&record(touched)), |a, _, _| approval_bytes(
            REF, a, head
        )),
        Ok(())
    );
    // Without the "user present" flag OpenSSH 9.2's `-Y verify` still accepts it; so does
    // Warden (the same answer: whether a touch is required is the key's, set when it is made).
    let untouched = sign(0x00);
    assert!(openssh_verifies(&untouched));
    let warden = verify_record(&signers, 1, Some(head), Some(&record(untouched.clone())), |a, _, _| {
        approval_bytes(REF, a, head)
    });
    assert_eq!(warden, Ok(()));
    // Over another reference, both refuse.
    let other = verify_record(&signers, 1, Some(head), Some(&record(untouched)), |a, _, _| {
        approval_bytes("OTHER", a, head)
    });
    assert!(other.is_err());
}

/// A seal of `files` by `principal`, signed with `key` against `head`, carrying `key_list`:
/// what an agent with the library appends.
fn seal_signed(
    key: &Path,
    principal: &str,
    files: std::collections::BTreeMap<String, String>,
    head: Head,
    key_list: &str,
) -> AuditEvent {
    let bytes =
        signed_bytes(SignedContent::Seal { files: &files }, principal, head.seq, &head.hash.to_string());
    let sshsig = ssh_keygen_sign(key, "agentwarden", &bytes);
    let signature = RecordSignature {
        principal: principal.into(),
        head_seq: head.seq,
        head_hash: head.hash.to_string(),
        sshsig,
    };
    AuditEvent::ContextSealed(agentwarden::governance::ContextSealed {
        by: Some(principal.into()),
        files,
        signature: Some(signature),
        key_list: Some(key_list.into()),
        texts: Default::default(),
    })
}

/// Rotation. A new `allowed_signers` counts only once a seal of it is signed by a key of
/// the list pinned before it; until then the change denies at `context_sealed`, naming the
/// file. Signed by the new key alone, the change is refused with its own code, at the CLI and
/// at the gate when it reaches the log another way (K-14).
#[tokio::test]
async fn the_key_list_changes_only_through_a_seal_signed_by_a_key_of_the_pinned_list() {
    let p = project();
    ok(&p, &["seal", "--key", key(&p)]);
    ok(&p, &["approve", "--ref", REF, "--key", key(&p)]);
    assert_eq!(gate(&p)["decision"], "allow");
    let bob = p.key.with_file_name("bob");
    keygen(&bob);
    let bob_list = format!(
        "bob namespaces=\"agentwarden\" {}",
        std::fs::read_to_string(bob.with_extension("pub")).unwrap()
    );
    let signers = p.root.join("allowed_signers");
    std::fs::write(&signers, &bob_list).unwrap();
    // The file changed: denied at context_sealed, naming it, until a human seals it.
    let denied = gate(&p);
    assert_eq!(failure(&denied), ("context_sealed".into(), "signers_unavailable".into()), "{denied}");
    assert!(denied["first_failure"]["reason"].as_str().unwrap().contains("allowed_signers"), "{denied}");
    // doctor says so, and how to mend it.
    let out = warden(&p, &["doctor", "--project", p.root.to_str().unwrap(), "--json"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let seal = report["checks"].as_array().unwrap().iter().find(|c| c["check"] == "seal").unwrap();
    assert_eq!(seal["ok"], false, "{report}");
    assert!(seal["detail"].as_str().unwrap().contains("signers_unavailable"), "{report}");
    assert!(seal["fix"].as_str().unwrap().contains("a key the old list names"), "{report}");
    // bob, listed only by the new file, can neither seal it nor approve under it.
    let bob_key = bob.to_str().unwrap();
    refused(&p, &["seal", "--key", bob_key], "key_rotation_refused");
    refused(&p, &["approve", "--ref", "GATE-2026-02-21-002", "--key", bob_key], "signers_unavailable");
    assert_eq!(failure(&gate(&p)).1, "signers_unavailable");
    // A revocation is not held up by the pending change: verified against the pinned list (K-16).
    refused(&p, &["revoke", "--ref", REF, "--key", bob_key], "signer_not_allowed");
    ok(&p, &["revoke", "--ref", REF, "--key", key(&p)]);
    // The agent appends a seal of the very same new list, signed with its own key: refused,
    // and it does not stand in the way of the human's seal of that list below.
    {
        let lib = library(&p);
        let files = lib.seal_digests().await.unwrap();
        let head = lib.head().await.unwrap();
        lib.record(Correlation::default(), &seal_signed(&p.other, "bob", files, head, &bob_list))
            .await
            .unwrap();
    }
    assert_eq!(failure(&gate(&p)), ("context_sealed".into(), "key_rotation_refused".into()));
    // alice, of the pinned list, seals the new one: the pin moves to it.
    ok(&p, &["seal", "--key", key(&p)]);
    // alice's approval no longer counts (her key left the list), nor can she approve again.
    let denied = gate(&p);
    assert_eq!(failure(&denied), ("approval_ref".into(), "signer_not_allowed".into()), "{denied}");
    refused(&p, &["approve", "--ref", REF, "--key", key(&p)], "signer_not_allowed");
    ok(&p, &["approve", "--ref", REF, "--key", bob_key]);
    assert_eq!(gate(&p)["decision"], "allow");

    // The agent writes a list of its own and appends a seal of it signed with its own key
    // (listed by that new list only): a change not signed by the pinned list.
    let mallory = std::fs::read_to_string(p.other.with_extension("pub")).unwrap();
    let mallory_list = format!("mallory {mallory}");
    std::fs::write(&signers, &mallory_list).unwrap();
    {
        let lib = library(&p);
        let files = lib.seal_digests().await.unwrap();
        let head = lib.head().await.unwrap();
        lib.record(Correlation::default(), &seal_signed(&p.other, "mallory", files, head, &mallory_list))
            .await
            .unwrap();
    }
    let denied = gate(&p);
    assert_eq!(failure(&denied), ("context_sealed".into(), "key_rotation_refused".into()), "{denied}");
    let reason = denied["first_failure"]["reason"].as_str().unwrap();
    assert!(reason.contains("pinned at seq"), "{denied}");
    let seq = denied["audit"]["seq"].as_u64().unwrap().to_string();
    let explained = String::from_utf8(warden(&p, &["audit", "explain", &seq]).stdout).unwrap();
    assert!(explained.contains("key_rotation_refused"), "{explained}");
    // bob's list back and sealed by bob (the pinned list): approvals count again.
    std::fs::write(&signers, &bob_list).unwrap();
    ok(&p, &["seal", "--key", bob_key]);
    assert_eq!(gate(&p)["decision"], "allow");
}

/// The saved projection lives in the store an agent with the user's shell can write. One
/// that drops the human's pin (so that the agent's own signed seal of its own key list pins
/// it) is found by `doctor`, which names what differs and rebuilds the records from the log:
/// the gate then refuses the agent's seal as a change of the list it did not sign for (K-15).
#[tokio::test]
async fn a_forged_saved_projection_is_found_by_doctor_and_rebuilt_from_the_log() {
    use agentwarden::store::ProjectionStore;
    let p = project();
    ok(&p, &["seal", "--key", key(&p)]);
    ok(&p, &["approve", "--ref", REF, "--key", key(&p)]);
    let mallory = std::fs::read_to_string(p.other.with_extension("pub")).unwrap();
    let mine = format!("alice {mallory}");
    std::fs::write(p.root.join("allowed_signers"), &mine).unwrap();
    {
        let store = std::sync::Arc::new(SledEventStore::open(&SledConfig::new(&p.store)).unwrap());
        let config = Config::load(Some(&p.root.join("agentwarden.toml"))).unwrap();
        let lib = Forger::new(store.clone(), |store| {
            Warden::builder().store(store).config(config).build().unwrap()
        });
        let files = lib.seal_digests().await.unwrap();
        let head = lib.head().await.unwrap();
        lib.record(Correlation::default(), &seal_signed(&p.other, "alice", files, head, &mine))
            .await
            .unwrap();
        let mut forged = lib.records().await.unwrap();
        assert_eq!(forged.governance.key_lists.len(), 2, "the human's pin, then the agent's change");
        forged.governance.key_lists.remove(0);
        store
            .write_projection(agentwarden::RECORDS_PROJECTION, serde_json::to_vec(&forged).unwrap())
            .await
            .unwrap();
    }
    let out = warden(&p, &["doctor", "--project", p.root.to_str().unwrap(), "--json"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let check = report["checks"].as_array().unwrap().iter().find(|c| c["check"] == "saved records").unwrap();
    assert_eq!(check["ok"], false, "{report}");
    let detail = check["detail"].as_str().unwrap();
    assert!(detail.contains("the key lists") && detail.contains("rebuilt from the log"), "{detail}");
    let denied = gate(&p);
    assert_eq!(failure(&denied), ("context_sealed".into(), "key_rotation_refused".into()), "{denied}");
    // Rebuilt: the next doctor finds the saved records and the log in agreement.
    let out = warden(&p, &["doctor", "--project", p.root.to_str().unwrap(), "--json"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let check = report["checks"].as_array().unwrap().iter().find(|c| c["check"] == "saved records").unwrap();
    assert_eq!(check["ok"], true, "{report}");
}

/// On a store whose first signed seal was made before seals carried their key list (K-14), the
/// list is taken from the file while it is the one pinned, so a change cannot be verified once
/// the file differs (refused, saying how) — the old list put back and sealed once is recorded,
/// and a change signed by its key then counts.
#[tokio::test]
async fn a_pin_of_an_earlier_version_is_rotated_after_one_seal_of_the_old_list() {
    let p = project();
    let alice_list = std::fs::read_to_string(p.root.join("allowed_signers")).unwrap();
    {
        let lib = library(&p);
        let files = lib.seal_digests().await.unwrap();
        let head = lib.head().await.unwrap();
        let AuditEvent::ContextSealed(mut legacy) = seal_signed(&p.key, "alice", files, head, "") else {
            unreachable!()
        };
        legacy.key_list = None;
        lib.record(Correlation::default(), &AuditEvent::ContextSealed(legacy)).await.unwrap();
    }
    ok(&p, &["approve", "--ref", REF, "--key", key(&p)]);
    assert_eq!(gate(&p)["decision"], "allow", "the legacy pin verifies against the file it sealed");
    let bob = p.key.with_file_name("bob");
    keygen(&bob);
    let bob_list = format!(
        "bob namespaces=\"agentwarden\" {}",
        std::fs::read_to_string(bob.with_extension("pub")).unwrap()
    );
    let signers = p.root.join("allowed_signers");
    std::fs::write(&signers, &bob_list).unwrap();
    let out = warden(&p, &["seal", "--key", key(&p)]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("key_rotation_refused") && stderr.contains("put the old list back"), "{stderr}");
    std::fs::write(&signers, &alice_list).unwrap();
    ok(&p, &["seal", "--key", key(&p)]);
    std::fs::write(&signers, &bob_list).unwrap();
    ok(&p, &["seal", "--key", key(&p)]);
    ok(&p, &["approve", "--ref", REF, "--key", bob.to_str().unwrap()]);
    assert_eq!(gate(&p)["decision"], "allow");
}

/// A `chmod` of the pinned key list breaks the seal (named at
/// `context_sealed`) but not the pin: the same list sealed again counts (K-14, with U-15).
#[test]
fn a_chmod_of_the_key_list_is_resealed_without_a_change_of_keys() {
    use std::os::unix::fs::PermissionsExt;
    let p = project();
    ok(&p, &["seal", "--key", key(&p)]);
    ok(&p, &["approve", "--ref", REF, "--key", key(&p)]);
    let signers = p.root.join("allowed_signers");
    let mode = std::fs::metadata(&signers).unwrap().permissions().mode();
    std::fs::set_permissions(&signers, std::fs::Permissions::from_mode(mode ^ 0o040)).unwrap();
    let denied = gate(&p);
    assert_eq!(failure(&denied).0, "context_sealed", "{denied}");
    assert!(denied["first_failure"]["reason"].as_str().unwrap().contains("allowed_signers"), "{denied}");
    ok(&p, &["seal", "--key", key(&p)]);
    assert_eq!(gate(&p)["decision"], "allow");
}
