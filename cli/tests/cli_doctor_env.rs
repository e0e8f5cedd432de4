//! The kill switch from files a harness loads into its environment (issue 47 item 2, G-25):
//! for each harness, `warden init` protects the project's such files, and `warden doctor` fails
//! its `kill switch` check, naming the file, once one of them sets the variable — the project's
//! `.env` (Gemini CLI), `$CODEX_HOME/.env` (Codex), the settings' `env` key (Claude Code), and
//! the user's home files the guard cannot protect.

#![expect(
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "test code: a failed unwrap or index is a failed test"
)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

#[expect(dead_code, reason = "these tests copy the harness examples themselves")]
mod support;

mod doctor_report;

use doctor_report::{check, failed};
use support::{copy_dir, git};

const WARDEN: &str = env!("CARGO_BIN_EXE_warden");
const VAR: &str = "AGENTWARDEN_ENABLE_SUBAGENTS";

struct Project {
    _dir: tempfile::TempDir,
    root: PathBuf,
    /// The user's home (`HOME`), Codex's (`CODEX_HOME`) and Gemini's (`GEMINI_CLI_HOME`) inside.
    home: PathBuf,
    harness: &'static str,
}

impl Project {
    fn codex_home(&self) -> PathBuf {
        self.home.join(".codex")
    }
}

fn project(harness: &'static str) -> Project {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(dir.path()).unwrap();
    let root = base.join("project");
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/");
    copy_dir(&Path::new(example).join(harness), &root);
    git(&root, &["init", "-q"]);
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-q", "-m", "base"]);
    let home = base.join("home");
    std::fs::create_dir_all(home.join(".gemini")).unwrap();
    std::fs::create_dir_all(home.join(".codex")).unwrap();
    Project { _dir: dir, root, home, harness }
}

fn warden(p: &Project, args: &[&str]) -> Output {
    Command::new(WARDEN)
        .arg("--store")
        .arg(p.root.join(".agentwarden/audit"))
        .args(args)
        .current_dir(&p.root)
        .env("HOME", &p.home)
        .env("GEMINI_CLI_HOME", &p.home)
        .env("CODEX_HOME", p.codex_home())
        .env_remove("CLAUDECODE")
        .env_remove("CODEX_THREAD_ID")
        .env_remove("GEMINI_CLI")
        .env_remove(VAR)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn init(p: &Project) {
    let root = p.root.to_str().unwrap();
    let mut args = vec!["init", p.harness, "--project", root];
    let codex_home = p.codex_home();
    if p.harness == "codex" {
        args.extend(["--codex-home", codex_home.to_str().unwrap()]);
    }
    let out = warden(p, &args);
    assert_eq!(out.status.code(), Some(0), "init {}: {}", p.harness, String::from_utf8_lossy(&out.stderr));
}

/// The `kill switch` check of `warden doctor --json`, and whether it is among the failed ones.
fn kill_switch(p: &Project) -> (Value, bool) {
    let root = p.root.to_str().unwrap();
    let out = warden(p, &["doctor", "--harness", p.harness, "--project", root, "--json"]);
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (check(&report, "kill switch").clone(), failed(&report).iter().any(|c| c == "kill switch"))
}

/// The protected paths `init` wrote.
fn protected(p: &Project) -> Vec<String> {
    let text = std::fs::read_to_string(p.root.join("agentwarden.toml")).unwrap();
    let doc: toml::Table = text.parse().unwrap();
    doc["guardrails"]["protected"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect()
}

/// One row: a harness, the file its agent's shell writes the switch into (relative to the
/// project, or the home when `in_home`), what it writes, and whether `init` protects that file.
struct Row {
    harness: &'static str,
    file: &'static str,
    in_home: bool,
    text: &'static str,
    protected_as: Option<&'static str>,
}

const ROWS: [Row; 8] = [
    Row {
        harness: "gemini",
        file: ".env",
        in_home: false,
        text: "AGENTWARDEN_ENABLE_SUBAGENTS=true\n",
        protected_as: Some(".env"),
    },
    Row {
        harness: "gemini",
        file: ".gemini/.env",
        in_home: false,
        text: "export AGENTWARDEN_ENABLE_SUBAGENTS=true\n",
        protected_as: Some(".gemini"),
    },
    Row {
        harness: "gemini",
        file: ".env",
        in_home: true,
        text: "AGENTWARDEN_ENABLE_SUBAGENTS=true\n",
        protected_as: None,
    },
    Row {
        harness: "gemini",
        file: ".gemini/.env",
        in_home: true,
        text: "AGENTWARDEN_ENABLE_SUBAGENTS=true\n",
        protected_as: None,
    },
    Row {
        harness: "codex",
        file: ".codex/.env",
        in_home: true,
        text: "AGENTWARDEN_ENABLE_SUBAGENTS=true\n",
        protected_as: None,
    },
    Row {
        harness: "codex",
        file: ".env",
        in_home: false,
        text: "AGENTWARDEN_ENABLE_SUBAGENTS=true\n",
        protected_as: Some(".env"),
    },
    Row {
        harness: "claude-code",
        file: ".claude/settings.local.json",
        in_home: false,
        text: r#"{"env": {"AGENTWARDEN_ENABLE_SUBAGENTS": "true"}}"#,
        protected_as: Some(".claude/settings.local.json"),
    },
    Row {
        harness: "claude-code",
        file: ".claude/settings.json",
        in_home: true,
        text: r#"{"env": {"AGENTWARDEN_ENABLE_SUBAGENTS": "true"}}"#,
        protected_as: None,
    },
];

/// For each harness and each file it loads into its environment, `init` protects the project's
/// file and `doctor` fails the kill switch set there, naming the file (G-25).
#[test]
fn a_kill_switch_set_in_a_file_the_harness_loads_is_named_by_doctor() {
    let mut wrong = Vec::new();
    for row in &ROWS {
        let p = project(row.harness);
        init(&p);
        if let Some(entry) = row.protected_as
            && !protected(&p).iter().any(|e| e == entry)
        {
            wrong.push(format!(
                "{} {}: init does not protect `{entry}`: {:?}",
                row.harness,
                row.file,
                protected(&p)
            ));
        }
        let (before, _) = kill_switch(&p);
        if before["ok"] != true {
            wrong.push(format!("{} {}: fails before the file is written: {before}", row.harness, row.file));
        }
        let path = if row.in_home { p.home.join(row.file) } else { p.root.join(row.file) };
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        // A settings file already there keeps its keys: the row's `env` is merged in.
        let text = match std::fs::read_to_string(&path).ok().filter(|_| row.file.ends_with(".json")) {
            Some(there) => {
                let mut settings: Value = serde_json::from_str(&there).unwrap();
                settings["env"] = serde_json::from_str::<Value>(row.text).unwrap()["env"].clone();
                settings.to_string()
            }
            None => row.text.to_owned(),
        };
        std::fs::write(&path, text).unwrap();
        let (after, fails) = kill_switch(&p);
        let named = after["detail"].as_str().unwrap_or_default().contains(&path.display().to_string());
        if !fails || !named {
            wrong.push(format!("{} {}: {after}", row.harness, path.display()));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
