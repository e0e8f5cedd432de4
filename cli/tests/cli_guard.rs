//! `warden guard snapshot` / `warden guard check --revert` on real git repositories: every kind
//! of change is detected, named and reverted; nothing outside the protected paths is touched;
//! a missing repository or a missing git is recorded and the item still fails.

#![expect(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "test code: a failed unwrap or index is a failed test"
)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

struct Repo {
    _dir: tempfile::TempDir,
    root: PathBuf,
    store: PathBuf,
    snapshot: PathBuf,
    artifacts: PathBuf,
}

fn sh(root: &Path, args: &[&str]) {
    let status = Command::new("git").arg("-C").arg(root).args(args).output().unwrap().status;
    assert!(status.success(), "git {args:?}");
}

fn repo(init_git: bool) -> Repo {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    std::fs::create_dir_all(root.join("okrs/sub")).unwrap();
    std::fs::write(root.join("okrs/a.md"), "objective A\n").unwrap();
    std::fs::write(root.join("okrs/b.md"), "objective B\n").unwrap();
    std::fs::write(root.join("okrs/sub/c.md"), "objective C\n").unwrap();
    std::fs::write(root.join("notes.md"), "outside\n").unwrap();
    if init_git {
        sh(&root, &["init", "-q"]);
        sh(&root, &["add", "-A"]);
        sh(&root, &["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "base"]);
    }
    let repo = Repo {
        store: dir.path().join("audit"),
        snapshot: dir.path().join("snapshot.json"),
        artifacts: dir.path().join("artifacts/ITEM-1"),
        root,
        _dir: dir,
    };
    let out = warden(&repo, &["guard", "snapshot", "--out", repo.snapshot.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    repo
}

fn warden(repo: &Repo, args: &[&str], path_env: Option<&str>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_warden"));
    command.arg("--store").arg(&repo.store).args(args).arg("--root").arg(&repo.root);
    if let Some(path) = path_env {
        command.env("PATH", path);
    }
    command.output().unwrap()
}

fn check(repo: &Repo, path_env: Option<&str>) -> (Option<i32>, Value) {
    let args = [
        "guard",
        "check",
        "--snapshot",
        repo.snapshot.to_str().unwrap(),
        "--revert",
        "--item",
        "ITEM-1",
        "--run",
        "20260117T223000Z",
        "--artifacts",
        repo.artifacts.to_str().unwrap(),
        "--json",
    ];
    let out = warden(repo, &args, path_env);
    (out.status.code(), serde_json::from_slice(&out.stdout).unwrap_or(Value::Null))
}

fn changed(outcome: &Value) -> Vec<String> {
    outcome["violation"]["details"]["changed_files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect()
}

fn read(repo: &Repo, path: &str) -> String {
    std::fs::read_to_string(repo.root.join(path)).unwrap()
}

#[test]
fn every_kind_of_change_is_named_and_reverted() {
    type Change = fn(&Path);
    let cases: [(&str, Change, &[&str]); 7] = [
        ("modify", |r| std::fs::write(r.join("okrs/a.md"), "hacked\n").unwrap(), &["okrs/a.md"]),
        ("delete", |r| std::fs::remove_file(r.join("okrs/b.md")).unwrap(), &["okrs/b.md"]),
        ("add", |r| std::fs::write(r.join("okrs/new.md"), "new\n").unwrap(), &["okrs/new.md"]),
        (
            "rename",
            |r| std::fs::rename(r.join("okrs/b.md"), r.join("okrs/b2.md")).unwrap(),
            &["okrs/b.md", "okrs/b2.md"],
        ),
        (
            "chmod",
            |r| {
                std::fs::set_permissions(r.join("okrs/a.md"), std::fs::Permissions::from_mode(0o755)).unwrap()
            },
            &["okrs/a.md"],
        ),
        (
            "symlink",
            |r| {
                std::fs::remove_file(r.join("okrs/a.md")).unwrap();
                std::os::unix::fs::symlink("../notes.md", r.join("okrs/a.md")).unwrap();
            },
            &["okrs/a.md"],
        ),
        ("empty dir", |r| std::fs::create_dir(r.join("okrs/empty")).unwrap(), &["okrs/empty"]),
    ];
    for (what, change, expected) in cases {
        let repo = repo(true);
        let mode_before = std::fs::metadata(repo.root.join("okrs/a.md")).unwrap().permissions().mode();
        change(&repo.root);
        std::fs::write(repo.root.join("notes.md"), "the agent's own notes\n").unwrap();
        let (code, outcome) = check(&repo, None);
        assert_eq!(code, Some(1), "{what}: {outcome}");
        assert_eq!(changed(&outcome), expected, "{what}");
        assert_eq!(outcome["violation"]["violation_type"], "okrs_direct_edit");
        assert_eq!(outcome["violation"]["details"]["reverted"], true, "{what}: {outcome}");
        // Back as before, and the file outside stays as the agent left it.
        assert_eq!(read(&repo, "okrs/a.md"), "objective A\n", "{what}");
        assert_eq!(read(&repo, "okrs/b.md"), "objective B\n", "{what}");
        assert!(!repo.root.join("okrs/new.md").exists() && !repo.root.join("okrs/b2.md").exists(), "{what}");
        assert!(!repo.root.join("okrs/empty").exists(), "{what}");
        assert!(!std::fs::symlink_metadata(repo.root.join("okrs/a.md")).unwrap().file_type().is_symlink());
        assert_eq!(
            std::fs::metadata(repo.root.join("okrs/a.md")).unwrap().permissions().mode(),
            mode_before,
            "{what}"
        );
        assert_eq!(read(&repo, "notes.md"), "the agent's own notes\n", "{what}");
        // violation.json in the spec's format, and the event.
        let written: Value =
            serde_json::from_str(&std::fs::read_to_string(repo.artifacts.join("violation.json")).unwrap())
                .unwrap();
        assert_eq!(written["details"]["item_id"], "ITEM-1");
        assert_eq!(written["details"]["run_id"], "20260117T223000Z");
        assert_eq!(written["details"]["revert_error"], "");
        let log = Command::new(env!("CARGO_BIN_EXE_warden"))
            .arg("--store")
            .arg(&repo.store)
            .args(["audit", "log", "--json"])
            .output()
            .unwrap();
        let event: Value =
            serde_json::from_str(String::from_utf8(log.stdout).unwrap().lines().last().unwrap()).unwrap();
        assert_eq!(event["event_type"], "guardrail_violation");
        assert_eq!(event["actor"], "daemon");
        assert_eq!(event["item"], "ITEM-1");
        assert_eq!(event["run"], "20260117T223000Z", "filed under its run, for `audit log --run`");
    }
}

#[test]
fn a_clean_run_is_clean() {
    let repo = repo(true);
    let out = warden(&repo, &["guard", "snapshot", "--out", repo.snapshot.to_str().unwrap(), "--json"], None);
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["entries"], 5, "okrs, a.md, b.md, sub, sub/c.md: {summary}");
    assert_eq!(summary["protected"], serde_json::json!(["okrs"]));
    std::fs::write(repo.root.join("notes.md"), "changed outside\n").unwrap();
    let (code, outcome) = check(&repo, None);
    assert_eq!((code, outcome["clean"].as_bool()), (Some(0), Some(true)), "{outcome}");
    assert!(!repo.artifacts.join("violation.json").exists());
}

#[test]
fn without_git_the_violation_is_still_recorded_and_the_item_fails() {
    let plain = repo(false);
    std::fs::write(plain.root.join("okrs/a.md"), "hacked\n").unwrap();
    let (code, outcome) = check(&plain, None);
    assert_eq!(code, Some(1));
    assert_eq!(outcome["violation"]["details"]["reverted"], false);
    let why = outcome["violation"]["details"]["revert_error"].as_str().unwrap();
    assert!(why.contains("not a git repository"), "{why}");
    assert!(plain.artifacts.join("violation.json").exists());

    let with_git = self::repo(true);
    std::fs::write(with_git.root.join("okrs/a.md"), "hacked\n").unwrap();
    let empty = tempfile::tempdir().unwrap();
    let (code, outcome) = check(&with_git, Some(empty.path().to_str().unwrap()));
    assert_eq!(code, Some(1));
    assert_eq!(outcome["violation"]["details"]["reverted"], false);
    let why = outcome["violation"]["details"]["revert_error"].as_str().unwrap();
    assert!(why.contains("git is not available"), "{why}");
}

fn guard_run(repo: &Repo, result: Option<&Path>, command: &[&str]) -> (Option<i32>, Value) {
    let mut args = vec![
        "guard".to_owned(),
        "run".into(),
        "--item".into(),
        "ITEM-1".into(),
        "--run".into(),
        "R1".into(),
        "--artifacts".into(),
        repo.artifacts.to_string_lossy().into_owned(),
        "--json".into(),
    ];
    if let Some(file) = result {
        args.extend(["--result".into(), file.to_string_lossy().into_owned()]);
    }
    args.extend(["--root".into(), repo.root.to_string_lossy().into_owned(), "--".into()]);
    args.extend(command.iter().map(|s| (*s).to_owned()));
    let out = Command::new(env!("CARGO_BIN_EXE_warden"))
        .arg("--store")
        .arg(&repo.store)
        .args(&args)
        .output()
        .unwrap();
    (out.status.code(), serde_json::from_slice(&out.stdout).unwrap_or(Value::Null))
}

#[test]
fn guard_run_fails_the_item_for_a_touch_a_failing_command_or_an_invalid_result() {
    let repo = repo(true);
    let result = repo.root.join("result.json");
    std::fs::write(
        &result,
        r#"{"schema_version":"1.0","summary":"s","proposed_changes":[],"kr_targets":[],"kr_impact_claim":"c"}"#,
    )
    .unwrap();
    let (code, ok) = guard_run(&repo, Some(&result), &["sh", "-c", "echo chatter; echo notes >> notes.md"]);
    assert_eq!(code, Some(0), "{ok}");
    assert_eq!(ok["item_failed"], false);

    let (code, touched) = guard_run(&repo, None, &["sh", "-c", "echo hacked > okrs/a.md"]);
    assert_eq!(code, Some(1), "{touched}");
    assert_eq!(touched["guard"]["violation"]["details"]["reverted"], true);
    assert_eq!(read(&repo, "okrs/a.md"), "objective A\n");

    let (code, failing) = guard_run(&repo, None, &["false"]);
    assert_eq!((code, failing["command"]["exit_code"].as_i64()), (Some(1), Some(1)), "{failing}");

    std::fs::write(&result, r#"{"schema_version":"1.0"}"#).unwrap();
    let (code, invalid) = guard_run(&repo, Some(&result), &["true"]);
    assert_eq!(code, Some(1), "{invalid}");
    assert_eq!(invalid["result"]["valid"], false);

    let (code, missing) = guard_run(&repo, None, &["/nonexistent/agent"]);
    assert_eq!(code, Some(1), "{missing}");
    assert!(missing["command"]["error"].as_str().unwrap().contains("cannot run"));
}

#[test]
fn a_revert_that_fails_half_way_is_recorded_and_the_item_fails() {
    let repo = repo(true);
    // An untracked protected file: git cannot bring it back once the agent deletes it.
    std::fs::write(repo.root.join("okrs/untracked.md"), "never committed\n").unwrap();
    let out = warden(&repo, &["guard", "snapshot", "--out", repo.snapshot.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(0));
    std::fs::remove_file(repo.root.join("okrs/untracked.md")).unwrap();
    std::fs::write(repo.root.join("okrs/a.md"), "hacked\n").unwrap();
    let (code, outcome) = check(&repo, None);
    assert_eq!(code, Some(1));
    let details = &outcome["violation"]["details"];
    assert_eq!(details["reverted"], false, "{outcome}");
    assert!(details["revert_error"].as_str().unwrap().contains("untracked.md"), "{outcome}");
    assert_eq!(read(&repo, "okrs/a.md"), "objective A\n", "what could be reverted was");
}

/// Commits `paths` of the repository at `root` as they are.
fn commit(root: &Path, paths: &[&str]) {
    sh(root, &[&["add", "--"], paths].concat());
    sh(root, &["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "base"]);
}

/// A workspace inside a larger repository (ruling R-11): git resolves the protected paths under
/// the workspace's own prefix, so what comes back is what that repository committed for the
/// workspace; a workspace the repository does not track is not restored at all.
#[test]
fn a_workspace_inside_a_larger_repository_is_restored_only_from_its_own_committed_files() {
    let tracked = repo(false);
    let outer = tracked.root.parent().unwrap();
    sh(outer, &["init", "-q"]);
    commit(outer, &["ws"]);
    std::fs::write(tracked.root.join("okrs/a.md"), "hacked\n").unwrap();
    std::fs::remove_file(tracked.root.join("okrs/sub/c.md")).unwrap();
    let (code, outcome) = check(&tracked, None);
    assert_eq!(code, Some(1));
    assert_eq!(changed(&outcome), ["okrs/a.md", "okrs/sub/c.md"]);
    assert_eq!(outcome["violation"]["details"]["reverted"], true, "{outcome}");
    assert_eq!(read(&tracked, "okrs/a.md"), "objective A\n");
    assert_eq!(read(&tracked, "okrs/sub/c.md"), "objective C\n");

    let untracked = repo(false);
    let outer = untracked.root.parent().unwrap();
    sh(outer, &["init", "-q"]);
    std::fs::write(outer.join("okrs.md"), "the outer repository's own file\n").unwrap();
    commit(outer, &["okrs.md"]);
    std::fs::write(untracked.root.join("okrs/a.md"), "hacked\n").unwrap();
    let (code, outcome) = check(&untracked, None);
    assert_eq!(code, Some(1));
    assert_eq!(outcome["violation"]["details"]["reverted"], false, "{outcome}");
    let why = outcome["violation"]["details"]["revert_error"].as_str().unwrap();
    assert!(why.contains("not in git HEAD") && why.contains("okrs/a.md"), "{why}");
    assert_eq!(read(&untracked, "okrs/a.md"), "hacked\n", "nothing restored from elsewhere");
}
