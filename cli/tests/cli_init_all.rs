//! `warden init` and `warden doctor` with no harness named (issue 51 item 4, N-18): the real
//! binary on the bundled Gemini example, a Claude Code folder added, in a fresh git repository
//! with a home of the test's own. `init` installs each harness the project shows, saying what it
//! found; with nothing to find it refuses and names the commands; `doctor` then checks every
//! harness whose hooks are installed, each under its name, and `--json` gives one object each.

#![expect(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "test code: a failed unwrap or index is a failed test"
)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

#[expect(dead_code, reason = "these tests copy the Gemini example, not the Claude Code one")]
mod support;

use support::{copy_dir, git};

const WARDEN: &str = env!("CARGO_BIN_EXE_warden");
const GEMINI_EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/gemini");

struct Project {
    _dir: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
}

/// The Gemini example in a git repository, with Claude Code's and Gemini CLI's folders when
/// `claude` is true (none of any harness otherwise), and an empty home.
fn project(claude: bool) -> Project {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(dir.path()).unwrap();
    let root = base.join("project");
    copy_dir(Path::new(GEMINI_EXAMPLE), &root);
    if claude {
        std::fs::create_dir_all(root.join(".claude")).unwrap();
        std::fs::create_dir_all(root.join(".gemini")).unwrap();
    }
    git(&root, &["init", "-q"]);
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-q", "--allow-empty", "-m", "base"]);
    let home = base.join("home");
    std::fs::create_dir_all(&home).unwrap();
    Project { _dir: dir, root, home }
}

fn warden(p: &Project, args: &[&str]) -> Output {
    Command::new(WARDEN)
        .arg("--store")
        .arg(p.root.join(".agentwarden/audit"))
        .args(args)
        .current_dir(&p.root)
        .env_remove("CLAUDECODE")
        .env_remove("CODEX_THREAD_ID")
        .env_remove("GEMINI_CLI")
        .env_remove("COPILOT_CLI")
        .env_remove("CODEX_HOME")
        .env_remove("COPILOT_HOME")
        .env("HOME", &p.home)
        .env("GEMINI_CLI_HOME", &p.home)
        .env_remove("AGENTWARDEN_ENABLE_SUBAGENTS")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

fn hooks_of(path: &Path) -> Value {
    let settings: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    settings["hooks"].clone()
}

#[test]
fn init_with_no_harness_installs_each_one_the_project_shows_and_doctor_checks_each() {
    let p = project(true);
    let root = p.root.to_str().unwrap().to_owned();
    let out = warden(&p, &["init", "--project", &root]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let said = text(&out);
    assert!(said.contains("== Claude Code: found `.claude` in the project"), "{said}");
    assert!(said.contains("== Gemini CLI: found `.gemini` in the project"), "{said}");
    assert!(!said.contains("== Codex") && !said.contains("== Copilot"), "only what was found: {said}");
    let claude = hooks_of(&p.root.join(".claude/settings.json"));
    assert!(claude["PreToolUse"].is_array(), "Claude Code's hooks: {claude}");
    let gemini = hooks_of(&p.root.join(".gemini/settings.json"));
    assert!(gemini["BeforeTool"].is_array(), "Gemini's hooks: {gemini}");

    let out = warden(&p, &["doctor", "--project", &root]);
    let said = text(&out);
    assert!(said.contains("== Claude Code (`--harness claude-code`)"), "{said}");
    assert!(said.contains("== Gemini CLI (`--harness gemini`)"), "{said}");
    let out = warden(&p, &["doctor", "--project", &root, "--json"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> =
        report["harnesses"].as_array().unwrap().iter().map(|h| h["harness"].as_str().unwrap()).collect();
    assert_eq!(names, ["claude-code", "gemini"], "{report}");
    assert_eq!(
        report["healthy"].as_bool(),
        Some(report["harnesses"].as_array().unwrap().iter().all(|h| h["healthy"] == true)),
        "{report}"
    );

    // Hooks removed from one harness do not take it out of the check: it is still checked, and
    // fails (N-18).
    let mut settings: Value =
        serde_json::from_str(&std::fs::read_to_string(p.root.join(".claude/settings.json")).unwrap())
            .unwrap();
    settings.as_object_mut().unwrap().remove("hooks");
    std::fs::write(p.root.join(".claude/settings.json"), settings.to_string()).unwrap();
    let out = warden(&p, &["doctor", "--project", &root]);
    let said = text(&out);
    assert!(said.contains("== Claude Code (`--harness claude-code`)"), "{said}");
    assert_eq!(out.status.code(), Some(1), "{said}");

    // One harness named: its checks alone, printed as they always were.
    let out = warden(&p, &["doctor", "--project", &root, "--harness", "gemini"]);
    assert!(!text(&out).contains("== "), "{}", text(&out));
}

#[test]
fn init_with_no_harness_found_refuses_and_names_the_commands() {
    let p = project(false);
    let root = p.root.to_str().unwrap().to_owned();
    let out = warden(&p, &["init", "--project", &root]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let said = text(&out);
    assert!(said.contains("warden init claude-code|codex|gemini|copilot"), "{said}");
    assert!(!p.root.join(".claude/settings.json").exists(), "nothing written");
}

#[test]
fn a_harness_in_the_users_home_is_found_too() {
    let p = project(false);
    std::fs::create_dir_all(p.home.join(".codex")).unwrap();
    let root = p.root.to_str().unwrap().to_owned();
    let out = warden(&p, &["init", "--project", &root]);
    let said = text(&out);
    assert!(said.contains("== Codex: found `~/.codex`"), "{said}");
}
