//! Every reader and writer of `warden` run through the hostile-filesystem kit (issue 19 item 7):
//! files swapped for links and FIFOs while Warden reads them, odd entries in protected trees,
//! links pre-planted under temporary names. Every run is bounded: a hang is a failure.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use agentwarden_tests::hostile::{
    Swapper, Version, fifo, non_utf8, plant_temp_links, run_bounded, socket, warden_bin,
};
use serde_json::Value;

const LIMIT: Duration = Duration::from_secs(10);

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples")
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn warden(store: &Path, cwd: &Path, args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut command = Command::new(warden_bin());
    command
        .arg("--store")
        .arg(store)
        .args(args)
        .current_dir(cwd)
        .env_remove("CLAUDECODE")
        .env_remove("RUST_LOG")
        .env("CHIRALITY_ENABLE_SUBAGENTS", "true")
        .env("AGENTWARDEN_ENABLE_SUBAGENTS", "true");
    run_bounded(command, stdin, LIMIT)
}

/// The gate example project in a temp dir: `(dir, project root, store)`.
fn gate_project() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    for part in ["agents", "personas", "manifests", "requests"] {
        copy_dir(&examples().join(part), &root.join(part));
    }
    std::fs::copy(examples().join("agentwarden.toml"), root.join("agentwarden.toml")).unwrap();
    let store = dir.path().join("audit");
    (dir, root, store)
}

fn gate(store: &Path, root: &Path) -> (Option<i32>, Value) {
    let out = warden(
        store,
        root,
        &["gate", "--request", "requests/example-1-allow.json", "--config", "agentwarden.toml", "--json"],
        None,
    );
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let report = serde_json::from_str(stdout.trim()).unwrap_or(Value::Null);
    (out.status.code(), report)
}

#[test]
fn a_gate_never_allows_through_a_link_swapped_in_for_the_agent_file() {
    let (dir, root, store) = gate_project();
    let agent = root.join("agents/AGENT_PREPARATION.md");
    let text = std::fs::read_to_string(&agent).unwrap();
    // The only regular file says AGENT_TYPE: 3; a link points at a file outside that says 2.
    let outside = dir.path().join("outside.md");
    std::fs::write(&outside, &text).unwrap();
    let three = text.replace("AGENT_TYPE: 2", "AGENT_TYPE: 3");
    std::fs::write(&agent, &three).unwrap();
    let (code, r) = gate(&store, &root);
    assert_eq!((code, r["decision"].as_str()), (Some(1), Some("deny")), "the regular file alone: {r}");
    let swapper = Swapper::start(&agent, vec![Version::File(three.clone()), Version::Link(outside.clone())]);
    for run in 0..60 {
        let (code, r) = gate(&store, &root);
        assert_eq!((code, r["decision"].as_str()), (Some(1), Some("deny")), "run {run}: {r}");
    }
    assert!(swapper.finish() > 0, "the swapper swapped");
    // And a link that stays in place is refused with its reason, like for every other file.
    let _ = std::fs::remove_file(&agent);
    std::os::unix::fs::symlink(&outside, &agent).unwrap();
    let (_, r) = gate(&store, &root);
    let reasons = r.to_string();
    assert!(reasons.contains("symbolic link"), "{reasons}");
}

#[test]
fn a_fifo_swapped_in_never_hangs_the_gate_or_result_validate() {
    let (dir, root, store) = gate_project();
    let agent = root.join("agents/AGENT_PREPARATION.md");
    let text = std::fs::read_to_string(&agent).unwrap();
    let swapper = Swapper::start(&agent, vec![Version::File(text), Version::Fifo]);
    for _ in 0..15 {
        let (code, _) = gate(&store, &root);
        assert!(matches!(code, Some(0 | 1)), "a decision, not a hang or a crash");
    }
    swapper.finish();
    // A FIFO that stays: denied at once, naming what it is.
    let _ = std::fs::remove_file(&agent);
    fifo(&agent);
    let (code, r) = gate(&store, &root);
    assert_eq!(code, Some(1), "{r}");
    assert!(r.to_string().contains("a FIFO"), "{r}");

    let result = dir.path().join("result.json");
    let valid =
        r#"{"summary":"s","kr_impact_claim":"k","artifacts":[],"tests":[],"risks":[],"next_steps":[]}"#;
    let swapper = Swapper::start(&result, vec![Version::File(valid.into()), Version::Fifo]);
    for _ in 0..15 {
        let out = warden(&store, dir.path(), &["result", "validate", "result.json", "--json"], None);
        assert!(matches!(out.status.code(), Some(0 | 1)), "{}", String::from_utf8_lossy(&out.stderr));
    }
    swapper.finish();
    let _ = std::fs::remove_file(&result);
    fifo(&result);
    let out = warden(&store, dir.path(), &["result", "validate", "result.json", "--json"], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("a FIFO"));
}

#[test]
fn a_manifest_that_is_a_link_is_refused_like_an_instruction_file() {
    let (dir, root, store) = gate_project();
    let lineage = dir.path().join("lineage.json");
    std::fs::copy(examples().join("lineage/three-levels.json"), &lineage).unwrap();
    let args = [
        "lineage",
        "check",
        "--lineage",
        lineage.to_str().unwrap(),
        "--config",
        "agentwarden.toml",
        "--json",
    ];
    let out = warden(&store, &root, &args, None);
    let first = out.status.code();
    assert!(matches!(first, Some(0 | 1)), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!String::from_utf8_lossy(&out.stdout).contains("manifests_unavailable"));
    assert!(matches!(first, Some(0 | 1)), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!String::from_utf8_lossy(&out.stdout).contains("manifests_unavailable"));
    // The manifest file swapped for a link to the same content elsewhere: refused (U-6).
    let manifest = root.join("manifests/agents.toml");
    let elsewhere = dir.path().join("agents.toml");
    std::fs::rename(&manifest, &elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &manifest).unwrap();
    let out = warden(&store, &root, &args, None);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "with the regular file it was {first:?}: {stdout}");
    assert!(stdout.contains("manifests_unavailable") && stdout.contains("symbolic link"), "{stdout}");
}

/// A git repository with `okrs/` and a guard snapshot of it.
fn guarded_repo() -> (tempfile::TempDir, PathBuf, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    std::fs::create_dir_all(root.join("okrs")).unwrap();
    std::fs::write(root.join("okrs/a.md"), "objective A\n").unwrap();
    std::fs::write(root.join("okrs/b.md"), "objective B\n").unwrap();
    for args in [
        &["init", "-q"][..],
        &["add", "-A"],
        &["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "base"],
    ] {
        assert!(Command::new("git").arg("-C").arg(&root).args(args).status().unwrap().success());
    }
    let store = dir.path().join("audit");
    let snapshot = dir.path().join("snapshot.json");
    let out = warden(&store, &root, &["guard", "snapshot", "--out", snapshot.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    (dir, root, store, snapshot)
}

#[test]
fn guard_check_names_every_odd_entry_beside_a_real_edit_and_reverts_all() {
    let (dir, root, store, snapshot) = guarded_repo();
    std::fs::write(root.join("okrs/a.md"), "rewritten by an agent\n").unwrap();
    fifo(&root.join("okrs/pipe"));
    let _socket = socket(&root.join("okrs/sock"));
    non_utf8(&root.join("okrs"), b"bad\xff.md", "x");
    let artifacts = dir.path().join("artifacts");
    let args = [
        "guard",
        "check",
        "--snapshot",
        snapshot.to_str().unwrap(),
        "--revert",
        "--item",
        "I",
        "--run",
        "R",
        "--artifacts",
        artifacts.to_str().unwrap(),
        "--json",
    ];
    let out = warden(&store, &root, &args, None);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1), "{report}");
    let details = &report["violation"]["details"];
    let changed: Vec<&str> =
        details["changed_files"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert_eq!(changed, ["okrs/a.md", "okrs/bad\\xff.md", "okrs/pipe", "okrs/sock"], "{report}");
    let odd = details["diff"]["odd"].to_string();
    assert!(odd.contains("okrs/pipe (a FIFO)") && odd.contains("okrs/sock (a socket)"), "{odd}");
    assert!(odd.contains("not UTF-8"), "{odd}");
    assert_eq!(details["reverted"], true, "{report}");
    assert_eq!(std::fs::read_to_string(root.join("okrs/a.md")).unwrap(), "objective A\n");
    let left: Vec<_> =
        std::fs::read_dir(root.join("okrs")).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left.len(), 2, "the odd entries are gone: {left:?}");
}

#[test]
fn violation_json_is_never_written_through_a_planted_link() {
    let (dir, root, store, snapshot) = guarded_repo();
    let artifacts = dir.path().join("artifacts");
    std::fs::create_dir_all(&artifacts).unwrap();
    let victim = dir.path().join("victim.txt");
    std::fs::write(&victim, "precious\n").unwrap();
    let planted = plant_temp_links(&artifacts, "violation.json", &victim);
    assert!(planted > 100);
    std::os::unix::fs::symlink(&victim, artifacts.join("violation.json")).unwrap();
    std::fs::write(root.join("okrs/a.md"), "edited\n").unwrap();
    let args = [
        "guard",
        "check",
        "--snapshot",
        snapshot.to_str().unwrap(),
        "--revert",
        "--item",
        "I",
        "--run",
        "R",
        "--artifacts",
        artifacts.to_str().unwrap(),
        "--json",
    ];
    let out = warden(&store, &root, &args, None);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(report["violation_file"].is_string(), "{report}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n", "nothing written through a link");
    let meta = std::fs::symlink_metadata(artifacts.join("violation.json")).unwrap();
    assert!(meta.is_file(), "violation.json is a regular file, not the planted link");
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(artifacts.join("violation.json")).unwrap()).unwrap();
    assert_eq!(written["details"]["changed_files"][0], "okrs/a.md");
}

struct Hooked {
    _dir: tempfile::TempDir,
    root: PathBuf,
    store: PathBuf,
}

fn hook_project(with_git: bool) -> Hooked {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    copy_dir(&examples().join("claude-code"), &root);
    if with_git {
        for args in [
            &["init", "-q"][..],
            &["add", "-A"],
            &["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "base"],
        ] {
            assert!(Command::new("git").arg("-C").arg(&root).args(args).status().unwrap().success());
        }
    }
    let h = Hooked { store: dir.path().join("audit"), root, _dir: dir };
    for args in
        [&["seal", "--by", "alice"][..], &["approve", "--ref", "GATE-2026-11-22-001", "--by", "alice"]]
    {
        let out = warden(&h.store, &h.root, args, None);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
    h
}

fn hook(h: &Hooked, input: &str) -> (Option<i32>, Value) {
    let out = warden(&h.store, &h.root, &["hook", "--config", "agentwarden.toml"], Some(input.as_bytes()));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    (out.status.code(), serde_json::from_str(stdout.trim()).unwrap_or(Value::Null))
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(examples().join("claude-code/events").join(format!("{name}.json"))).unwrap()
}

const STOP_PLANNER: &str = r#"{"session_id":"demo-session","cwd":".","hook_event_name":"SubagentStop","agent_id":"agent-planner-1","agent_type":"planner","stop_hook_active":false}"#;

fn start_planner(h: &Hooked) {
    for name in ["pre-task-main-planner", "start-planner"] {
        assert_eq!(hook(h, &fixture(name)), (Some(0), Value::Null), "{name}");
    }
}

#[test]
fn a_protected_change_committed_inside_the_subagent_is_still_reverted() {
    let h = hook_project(true);
    start_planner(&h);
    let original = std::fs::read_to_string(h.root.join("okrs/q4.md")).unwrap();
    std::fs::write(h.root.join("okrs/q4.md"), "laundered by a commit\n").unwrap();
    std::fs::write(h.root.join("okrs/new.md"), "added\n").unwrap();
    for args in
        [&["add", "okrs"][..], &["-c", "user.name=a", "-c", "user.email=a@e", "commit", "-qm", "launder"]]
    {
        assert!(Command::new("git").arg("-C").arg(&h.root).args(args).status().unwrap().success());
    }
    let (code, answer) = hook(&h, STOP_PLANNER);
    assert_eq!(code, Some(0), "{answer}");
    assert_eq!(answer["decision"], "block", "{answer}");
    let reason = answer["reason"].as_str().unwrap();
    assert!(reason.contains("have been reverted: okrs/new.md, okrs/q4.md"), "{reason}");
    assert_eq!(
        std::fs::read_to_string(h.root.join("okrs/q4.md")).unwrap(),
        original,
        "the commit laundered nothing"
    );
    assert!(!h.root.join("okrs/new.md").exists());
}

#[test]
fn the_hook_restores_without_git_and_removes_odd_entries() {
    let h = hook_project(false);
    start_planner(&h);
    let original = std::fs::read_to_string(h.root.join("okrs/q4.md")).unwrap();
    std::fs::remove_file(h.root.join("okrs/q4.md")).unwrap();
    std::os::unix::fs::symlink("/etc/hostname", h.root.join("okrs/q4.md")).unwrap();
    fifo(&h.root.join("okrs/pipe"));
    non_utf8(&h.root.join("okrs"), b"x\xfe", "x");
    let (code, answer) = hook(&h, STOP_PLANNER);
    assert_eq!(code, Some(0), "{answer}");
    let reason = answer["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("have been reverted"), "{reason}");
    assert!(
        reason.contains("okrs/pipe") && reason.contains("okrs/x\\xfe") && reason.contains("okrs/q4.md"),
        "{reason}"
    );
    assert!(reason.contains("okrs/pipe (a FIFO)"), "the kind is named: {reason}");
    let meta = std::fs::symlink_metadata(h.root.join("okrs/q4.md")).unwrap();
    assert!(meta.is_file());
    assert_eq!(std::fs::read_to_string(h.root.join("okrs/q4.md")).unwrap(), original);
    assert_eq!(std::fs::read_dir(h.root.join("okrs")).unwrap().count(), 1);
}

#[test]
fn a_fifo_result_never_hangs_the_stop_hook() {
    let h = hook_project(true);
    // The coder's prompt asks for `out/result.json`.
    for name in ["pre-task-main-planner", "start-planner", "pre-agent-planner-coder", "start-coder"] {
        assert_eq!(hook(&h, &fixture(name)), (Some(0), Value::Null), "{name}");
    }
    std::fs::create_dir_all(h.root.join("out")).unwrap();
    let result = h.root.join("out/result.json");
    let valid =
        r#"{"summary":"s","kr_impact_claim":"k","artifacts":[],"tests":[],"risks":[],"next_steps":[]}"#;
    let swapper = Swapper::start(&result, vec![Version::File(valid.into()), Version::Fifo]);
    for _ in 0..8 {
        let (code, answer) = hook(&h, &fixture("stop-coder"));
        assert_eq!(code, Some(0), "an answer, never a hang: {answer}");
    }
    swapper.finish();
    let _ = std::fs::remove_file(&result);
    fifo(&result);
    let (code, answer) = hook(&h, &fixture("stop-coder"));
    assert_eq!(code, Some(0), "{answer}");
    assert_eq!(answer["decision"], "block");
    assert!(answer["reason"].as_str().unwrap().contains("a FIFO"), "{answer}");
}

#[test]
fn a_chmod_of_a_sealed_file_breaks_the_seal_naming_it() {
    let h = hook_project(true);
    let agent = h.root.join(".claude/agents/planner.md");
    let mut mode = std::fs::metadata(&agent).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut mode, 0o755);
    std::fs::set_permissions(&agent, mode).unwrap();
    let (code, answer) = hook(&h, &fixture("pre-task-main-planner"));
    assert_eq!(code, Some(0));
    let reason = answer["hookSpecificOutput"]["permissionDecisionReason"].as_str().unwrap_or_default();
    assert!(reason.contains("context_sealed") && reason.contains(".claude/agents/planner.md"), "{answer}");
}

#[test]
fn a_protected_tree_wider_than_the_descriptor_limit_is_walked_whole() {
    let (dir, root, store, _) = guarded_repo();
    for i in 0..600 {
        std::fs::create_dir_all(root.join(format!("okrs/d{i}"))).unwrap();
    }
    let snapshot = dir.path().join("wide.json");
    // `ulimit -n 256`: a walk that held a descriptor per pending directory would run out.
    let limited = |args: &[&str]| {
        let mut command = Command::new("bash");
        command
            .arg("-c")
            .arg("ulimit -n 256 && exec \"$@\"")
            .arg("bash")
            .arg(warden_bin())
            .arg("--store")
            .arg(&store)
            .args(args)
            .current_dir(&root);
        run_bounded(command, None, LIMIT)
    };
    let out = limited(&["guard", "snapshot", "--out", snapshot.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let artifacts = dir.path().join("artifacts");
    let out = limited(&[
        "guard",
        "check",
        "--snapshot",
        snapshot.to_str().unwrap(),
        "--item",
        "I",
        "--run",
        "R",
        "--artifacts",
        artifacts.to_str().unwrap(),
        "--json",
    ]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    assert_eq!((out.status.code(), &report["clean"]), (Some(0), &Value::Bool(true)), "{report}");
}

#[test]
fn guard_run_restores_what_the_command_changed_without_git() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    std::fs::create_dir_all(root.join("okrs")).unwrap();
    std::fs::write(root.join("okrs/a.md"), "objective A\n").unwrap();
    let artifacts = dir.path().join("artifacts");
    let store = dir.path().join("audit");
    let script = "echo hacked > okrs/a.md && chmod 755 okrs/a.md && mkfifo okrs/p && ln -s /etc okrs/l";
    let args = [
        "guard",
        "run",
        "--item",
        "I",
        "--run",
        "R",
        "--artifacts",
        artifacts.to_str().unwrap(),
        "--root",
        root.to_str().unwrap(),
        "--json",
        "--",
        "sh",
        "-c",
        script,
    ];
    let out = warden(&store, &root, &args, None);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    assert_eq!(out.status.code(), Some(1), "{report}");
    assert_eq!(report["guard"]["violation"]["details"]["reverted"], true, "no git needed: {report}");
    assert_eq!(std::fs::read_to_string(root.join("okrs/a.md")).unwrap(), "objective A\n");
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(root.join("okrs/a.md")).unwrap().permissions(),
    );
    assert_eq!(mode & 0o111, 0, "the chmod is undone");
    assert_eq!(std::fs::read_dir(root.join("okrs")).unwrap().count(), 1);
}
