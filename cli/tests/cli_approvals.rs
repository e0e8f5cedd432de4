//! Issue 11 through the real binary: `warden gate` with `require_recorded_approval = true` on a
//! copy of the bundled example, approvals granted, scoped, revoked; and, through the library
//! with a test clock, an approval that expires.

#![expect(clippy::unwrap_used, reason = "test code: a failed unwrap is a failed test")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;

use agentwarden::audit::{Correlation, Timestamp};
use agentwarden::events::AuditEvent;
use agentwarden::governance::ApprovalGranted;
use agentwarden::governance::Scope;
use agentwarden::{
    Config, Warden,
    store::MemoryEventStore,
    wiring::{Clock, FixedEnvironment},
};
use serde_json::Value;

mod forge;

use forge::Forger;

const REF: &str = "GATE-2026-02-21-001";

struct Project {
    _dir: tempfile::TempDir,
    root: PathBuf,
    store: PathBuf,
}

fn project(require: bool) -> Project {
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
    let config = if require {
        config.replace("[subagents]\n", "[subagents]\nrequire_recorded_approval = true\n")
    } else {
        config
    };
    std::fs::write(root.join("agentwarden.toml"), config).unwrap();
    Project { store: dir.path().join("audit"), root, _dir: dir }
}

fn warden(p: &Project, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warden"))
        .arg("--store")
        .arg(&p.store)
        .args(args)
        .current_dir(&p.root)
        .env("CHIRALITY_ENABLE_SUBAGENTS", "true")
        .env_remove("CLAUDECODE")
        .output()
        .unwrap()
}

fn ok(p: &Project, args: &[&str]) {
    let out = warden(p, args);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// Example 1 (MANAGER delegates PREPARATION under `GATE-2026-02-21-001`): the report.
fn gate(p: &Project) -> Value {
    let out = warden(p, &["gate", "--request", "requests/example-1-allow.json", "--json"]);
    serde_json::from_slice(&out.stdout).unwrap()
}

fn failure(report: &Value) -> (String, String) {
    let first = &report["first_failure"];
    (first["gate"].as_str().unwrap_or("").to_owned(), first["code"].as_str().unwrap_or("").to_owned())
}

#[test]
fn recorded_approvals_each_deny_with_their_own_reason() {
    let p = project(true);
    assert_eq!(failure(&gate(&p)), ("context_sealed".into(), "seal_not_recorded".into()), "nothing recorded");
    ok(&p, &["seal", "--by", "alice"]);
    assert_eq!(failure(&gate(&p)), ("approval_ref".into(), "approval_not_recorded".into()), "unknown ref");
    ok(&p, &["approve", "--ref", REF, "--by", "ryan", "--scope", "persona:SOMEONE_ELSE"]);
    assert_eq!(failure(&gate(&p)), ("approval_ref".into(), "approval_out_of_scope".into()));
    ok(
        &p,
        &[
            "approve",
            "--ref",
            REF,
            "--by",
            "ryan",
            "--scope",
            "persona:MANAGER",
            "--scope",
            "subagent:PREPARATION",
        ],
    );
    let allowed = gate(&p);
    assert_eq!(allowed["decision"], "allow", "{allowed}");
    assert_eq!(allowed["recorded"]["approval_state"], "active");
    assert!(allowed["recorded"]["files_checked"].as_array().unwrap().len() >= 3, "{allowed}");
    // The investigator sees the seal and the approval that were in force.
    let seq = allowed["audit"]["seq"].as_u64().unwrap().to_string();
    let explained = warden(&p, &["audit", "explain", &seq, "--json"]);
    let explained: Value = serde_json::from_slice(&explained.stdout).unwrap();
    let notes = explained.to_string();
    assert!(notes.contains("seal in force: seq 2") && notes.contains("personas/AGENT_MANAGER.md"), "{notes}");
    assert!(notes.contains("approval record: seq 6, active"), "{notes}");
    // A revoke between two decisions flips the second.
    ok(&p, &["revoke", "--ref", REF, "--by", "alice"]);
    assert_eq!(failure(&gate(&p)), ("approval_ref".into(), "approval_revoked".into()));
    let listed = warden(&p, &["approvals", "--json"]);
    let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(listed["approvals"][0]["state"], "revoked");
    assert_eq!(warden(&p, &["revoke", "--ref", REF]).status.code(), Some(2), "already revoked");
    // Every change was an event, and the chain verifies.
    let out = warden(&p, &["audit", "export", "--format", "jsonl"]);
    let types: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["event_type"].as_str().unwrap().to_owned())
        .collect();
    for t in ["context_sealed", "approval_granted", "approval_revoked"] {
        assert!(types.iter().any(|seen| seen == t), "{t}: {types:?}");
    }
    ok(&p, &["audit", "verify"]);
}

#[test]
fn a_sealed_persona_edited_is_named_and_restoring_it_allows_again() {
    let p = project(true);
    ok(&p, &["seal"]);
    ok(&p, &["approve", "--ref", REF]);
    assert_eq!(gate(&p)["decision"], "allow");
    let persona = p.root.join("personas/AGENT_MANAGER.md");
    let original = std::fs::read_to_string(&persona).unwrap();
    std::fs::write(&persona, original.replace("PREPARATION", "PREPARATION, 4_DOCUMENTS")).unwrap();
    let denied = gate(&p);
    assert_eq!(failure(&denied), ("context_sealed".into(), "sealed_file_changed".into()));
    assert!(
        denied["first_failure"]["reason"].as_str().unwrap().contains("`personas/AGENT_MANAGER.md` changed")
    );
    std::fs::write(&persona, original).unwrap();
    assert_eq!(gate(&p)["decision"], "allow");
}

#[test]
fn without_required_records_the_gate_is_the_specs() {
    let p = project(false);
    let report = gate(&p);
    assert_eq!(report["decision"], "allow", "the metadata alone, as in the spec: {report}");
    assert!(report.get("recorded").is_none(), "and the report is the spec's: {report}");
}

#[derive(Debug)]
struct TestClock(std::sync::Mutex<i64>);

impl Clock for TestClock {
    fn now(&self) -> Timestamp {
        Timestamp::from_unix_millis(*self.0.lock().unwrap()).unwrap()
    }
}

#[tokio::test]
async fn an_approval_expires_on_the_clock() {
    let p = project(true);
    let config = Config::load(Some(&p.root.join("agentwarden.toml"))).unwrap();
    let clock = Arc::new(TestClock(std::sync::Mutex::new(1_000)));
    let warden = Forger::new(Arc::new(MemoryEventStore::new()), |store| {
        Warden::builder()
            .store(store)
            .config(config)
            .clock(clock.clone())
            .environment(Arc::new(FixedEnvironment::with("CHIRALITY_ENABLE_SUBAGENTS", "true")))
            .build()
            .unwrap()
    });
    let files = warden.seal_digests().await.unwrap();
    let seal = AuditEvent::ContextSealed(agentwarden::governance::ContextSealed {
        by: None,
        files,
        signature: None,
        key_list: None,
        texts: Default::default(),
    });
    warden.record(Correlation::default(), &seal).await.unwrap();
    let grant = AuditEvent::ApprovalGranted(ApprovalGranted {
        approval_ref: REF.into(),
        approved_by: None,
        expires_at: Some(Timestamp::from_unix_millis(5_000).unwrap()),
        scope: Scope::default(),
        signature: None,
    });
    warden.record(Correlation::default(), &grant).await.unwrap();
    let request = std::fs::read_to_string(p.root.join("requests/example-1-allow.json")).unwrap();
    let before = warden.evaluate_delegation(agentwarden::governance::Request::from_json(&request)).await;
    assert_eq!(
        before.report.decision,
        agentwarden::verdict::Decision::Allow,
        "{:?}",
        before.report.first_failure
    );
    assert!(before.grant.is_some());
    *clock.0.lock().unwrap() = 5_000;
    let after = warden.evaluate_delegation(agentwarden::governance::Request::from_json(&request)).await;
    let first = after.report.first_failure.unwrap();
    assert_eq!((first.gate.as_str(), first.code.as_ref()), ("approval_ref", "approval_expired"));
    assert!(after.grant.is_none());
}

#[test]
fn a_seal_covers_the_toml_manifests_and_names_a_file_it_cannot_read() {
    let p = project(true);
    std::fs::write(p.root.join("manifests/NOTES.md"), "not a manifest\n").unwrap();
    ok(&p, &["seal"]);
    let out = warden(&p, &["seal", "--show", "--json"]);
    let shown = String::from_utf8(out.stdout).unwrap();
    assert!(shown.contains("manifests/agents.toml"), "{shown}");
    assert!(!shown.contains("NOTES.md"), "only *.toml files are manifests: {shown}");
    // A persona file that is not UTF-8 cannot be sealed, and the refusal says why.
    std::fs::write(p.root.join("personas/AGENT_BROKEN.md"), [0xff, 0xfe]).unwrap();
    let out = warden(&p, &["seal"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0));
    assert!(stderr.contains("cannot seal") && stderr.contains("AGENT_BROKEN.md"), "{stderr}");
    assert!(!stderr.contains("vanished"), "the reason is the read's, not a guess: {stderr}");
}
