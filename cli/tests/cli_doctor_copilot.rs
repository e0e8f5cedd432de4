//! `warden init copilot` and `warden doctor --harness copilot` (issue 51, H-70): the real binary
//! on the bundled Copilot example copied into a fresh git repository, Copilot's home
//! (`COPILOT_HOME`) a directory of the test's. Each gap the doctor names is made by hand and
//! named: no hooks, a project's hooks in a folder Copilot does not trust, a missing hook, a
//! settings file that disables every hook, another `preToolUse` hook; and the canary, a spawn
//! without the kill switch sent through the installed `PreToolUse` line, passes only when the
//! line denies it.

#![expect(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test code: a failed unwrap or index is a failed test"
)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

#[expect(dead_code, reason = "these tests copy the Copilot example, not the Claude Code one")]
mod support;

mod doctor_report;

use doctor_report::{check, failed};

use support::{copy_dir, git};

const WARDEN: &str = env!("CARGO_BIN_EXE_warden");
const COPILOT_EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/copilot");

struct Project {
    _dir: tempfile::TempDir,
    root: PathBuf,
    store: PathBuf,
    /// Copilot's home (`COPILOT_HOME`): `config.json`, `settings.json`, `hooks/`.
    home: PathBuf,
}

fn commit(root: &Path) {
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "--allow-empty", "-m", "step"]);
}

fn project() -> Project {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(dir.path()).unwrap();
    let root = base.join("project");
    copy_dir(Path::new(COPILOT_EXAMPLE), &root);
    git(&root, &["init", "-q"]);
    commit(&root);
    let home = base.join("copilot-home");
    std::fs::create_dir_all(&home).unwrap();
    Project { store: root.join(".agentwarden/audit"), home, root, _dir: dir }
}

/// `warden ARGS` in the project, on its store; the kill switch and the session marks unset.
fn warden(p: &Project, args: &[&str]) -> Output {
    Command::new(WARDEN)
        .arg("--store")
        .arg(&p.store)
        .args(args)
        .current_dir(&p.root)
        .env_remove("CLAUDECODE")
        .env_remove("CODEX_THREAD_ID")
        .env_remove("GEMINI_CLI")
        .env_remove("COPILOT_CLI")
        .env("COPILOT_HOME", &p.home)
        .env_remove("AGENTWARDEN_ENABLE_SUBAGENTS")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn ok(out: &Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    stdout
}

fn doctor(p: &Project) -> (i32, Value) {
    let args = ["doctor", "--harness", "copilot", "--project", p.root.to_str().unwrap(), "--json"];
    let out = warden(p, &args);
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code().unwrap(), report)
}

fn trust(p: &Project) {
    let config = json!({"trustedFolders": [p.root.display().to_string()]});
    std::fs::write(p.home.join("config.json"), config.to_string()).unwrap();
}

/// A project set up by `init copilot` is healthy once trusted, sealed and approved, and the
/// canary is denied through the installed line; each gap made by hand is named.
#[test]
fn doctor_knows_copilot_and_names_every_gap() {
    let p = project();
    let (code, report) = doctor(&p);
    assert_eq!(code, 1);
    assert!(failed(&report).contains(&"form".to_owned()), "no hooks yet: {report}");

    let said = ok(&warden(&p, &["init", "copilot", "--project", p.root.to_str().unwrap()]));
    assert!(said.contains("warden doctor --harness copilot"), "{said}");
    commit(&p.root);
    ok(&warden(&p, &["seal", "--config", "agentwarden.toml", "--by", "alice"]));
    ok(&warden(&p, &["approve", "--ref", "GATE-2026-11-28-051", "--by", "alice"]));
    let (_, report) = doctor(&p);
    assert_eq!(failed(&report), ["form"], "the folder is not trusted: {report}");
    trust(&p);
    let (code, report) = doctor(&p);
    assert_eq!((code, failed(&report)), (0, Vec::<String>::new()), "{report}");
    let canary = check(&report, "canary")["detail"].as_str().unwrap();
    assert!(canary.contains("denied a spawn without `AGENTWARDEN_ENABLE_SUBAGENTS`"), "{canary}");

    let file = p.root.join(".github/hooks/agentwarden.json");
    let good = std::fs::read_to_string(&file).unwrap();
    let mut value: Value = serde_json::from_str(&good).unwrap();
    value["hooks"].as_object_mut().unwrap().remove("PostToolUse");
    std::fs::write(&file, value.to_string()).unwrap();
    let (_, report) = doctor(&p);
    assert_eq!(failed(&report), ["hooks"], "{report}");
    std::fs::write(&file, &good).unwrap();
    // A project's settings that switch every hook off from the next session on.
    let settings = p.root.join(".github/copilot/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(&settings, json!({"disableAllHooks": true}).to_string()).unwrap();
    let (code, report) = doctor(&p);
    assert_eq!((code, failed(&report)), (1, vec!["switched off".to_owned()]), "{report}");
    assert!(
        check(&report, "switched off")["detail"].as_str().unwrap().contains("disableAllHooks"),
        "{report}"
    );
    std::fs::write(&settings, "{}").unwrap();
    // Another preToolUse hook in the user's hooks folder can rewrite what Warden approved.
    std::fs::create_dir_all(p.home.join("hooks")).unwrap();
    let rogue =
        json!({"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "/tmp/rewrite.sh"}]}});
    std::fs::write(p.home.join("hooks/mine.json"), rogue.to_string()).unwrap();
    let (_, report) = doctor(&p);
    assert_eq!(failed(&report), ["rewriting hooks"], "{report}");
    std::fs::remove_file(p.home.join("hooks/mine.json")).unwrap();
    let (code, _) = doctor(&p);
    assert_eq!(code, 0, "whole again");
}

/// `--user` writes the user's hooks folder, which needs no trust.
#[test]
fn the_user_form_needs_no_trust() {
    let p = project();
    ok(&warden(&p, &["init", "copilot", "--project", p.root.to_str().unwrap(), "--user"]));
    assert!(p.home.join("hooks/agentwarden.json").is_file());
    assert!(!p.root.join(".github/hooks/agentwarden.json").exists());
    commit(&p.root);
    ok(&warden(&p, &["seal", "--config", "agentwarden.toml", "--by", "alice"]));
    ok(&warden(&p, &["approve", "--ref", "GATE-2026-11-28-051", "--by", "alice"]));
    let (code, report) = doctor(&p);
    assert_eq!((code, failed(&report)), (0, Vec::<String>::new()), "{report}");
    assert!(check(&report, "form")["detail"].as_str().unwrap().contains("user's hooks folder"), "{report}");
}
