//! `warden init codex` and `warden doctor --harness codex` (issue 36, C-10, C-11): the real
//! binary on the bundled Codex example copied into a fresh git repository, Codex's home a
//! directory of the test's. Each gap the doctor names is made by hand and named: no hooks, a
//! missing hook, an untrusted project, a timeout without margin, a missing binary; and the
//! canary, a spawn without the kill switch sent through the installed line as Codex runs it,
//! passes only when the line denies it.

#![expect(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test code: a failed unwrap or index is a failed test"
)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

#[expect(dead_code, reason = "these tests copy the Codex example, not the Claude Code one")]
mod support;

mod doctor_report;

use doctor_report::{check, failed};

use support::{copy_dir, git};

const WARDEN: &str = env!("CARGO_BIN_EXE_warden");
const CODEX_EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/codex");

struct Project {
    dir: tempfile::TempDir,
    root: PathBuf,
    store: PathBuf,
    /// Codex's home, where `init codex` trusts the project.
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
    copy_dir(Path::new(CODEX_EXAMPLE), &root);
    git(&root, &["init", "-q"]);
    commit(&root);
    Project { store: root.join(".agentwarden/audit"), home: base.join("codex-home"), root, dir }
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
        .env_remove("CODEX_HOME")
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

fn init(p: &Project, extra: &[&str]) -> String {
    let mut args = vec!["init", "codex", "--project", p.root.to_str().unwrap()];
    args.extend_from_slice(extra);
    if !extra.contains(&"--managed") {
        args.extend(["--codex-home", p.home.to_str().unwrap()]);
    }
    ok(&warden(p, &args))
}

fn approve(p: &Project) {
    ok(&warden(p, &["seal", "--config", "agentwarden.toml", "--by", "alice"]));
    ok(&warden(p, &["approve", "--ref", "GATE-2026-11-26-036", "--by", "alice"]));
}

fn doctor(p: &Project, extra: &[&str]) -> (i32, Value) {
    let mut args = vec!["doctor", "--harness", "codex", "--project", p.root.to_str().unwrap(), "--json"];
    args.extend(["--codex-home", p.home.to_str().unwrap()]);
    args.extend_from_slice(extra);
    let out = warden(p, &args);
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code().unwrap(), report)
}

/// A project set up by `init codex` is healthy once sealed and approved, and the
/// canary is denied through the installed line; each gap made by hand is named with its fix (C-10, C-11).
#[test]
fn doctor_knows_codex_and_names_every_gap() {
    let p = project();
    let (code, report) = doctor(&p, &[]);
    assert_eq!(code, 1);
    assert!(failed(&report).contains(&"form".to_owned()), "no hooks yet: {report}");
    assert!(check(&report, "form")["fix"].as_str().unwrap().contains("warden init codex"), "{report}");

    let said = init(&p, &[]);
    assert!(said.contains("warden doctor --harness codex"), "{said}");
    commit(&p.root);
    approve(&p);
    let (code, report) = doctor(&p, &[]);
    assert_eq!((code, failed(&report)), (0, Vec::<String>::new()), "{report}");
    assert!(
        check(&report, "form")["detail"].as_str().unwrap().starts_with("the project's configuration"),
        "{report}"
    );
    assert!(check(&report, "trust")["detail"].as_str().unwrap().contains("is trusted"), "{report}");
    let canary = check(&report, "canary")["detail"].as_str().unwrap();
    assert!(canary.contains("denied a spawn without `AGENTWARDEN_ENABLE_SUBAGENTS`"), "{canary}");
    // The canary is in the real log, under its own session.
    let log = ok(&warden(&p, &["audit", "export", "--format", "jsonl"]));
    assert!(log.contains("warden-doctor-canary-"), "{log}");

    let config = p.root.join(".codex/config.toml");
    let good = std::fs::read_to_string(&config).unwrap();
    // A missing hook: `SubagentStart` taken out.
    let mut document: toml_edit::DocumentMut = good.parse().unwrap();
    document["hooks"].as_table_mut().unwrap().remove("SubagentStart");
    std::fs::write(&config, document.to_string()).unwrap();
    let (_, report) = doctor(&p, &[]);
    assert_eq!(failed(&report), ["hooks"], "{report}");
    assert!(check(&report, "hooks")["detail"].as_str().unwrap().contains("SubagentStart"), "{report}");
    assert!(check(&report, "hooks")["fix"].as_str().unwrap().contains("warden init codex"), "{report}");
    // A timeout without margin over the lock wait, edited in by hand.
    std::fs::write(&config, good.replace("timeout = 30", "timeout = 2")).unwrap();
    let (_, report) = doctor(&p, &[]);
    assert_eq!(failed(&report), ["timeout"], "{report}");
    assert!(
        check(&report, "timeout")["detail"].as_str().unwrap().contains("Codex timeout of 2 s"),
        "{report}"
    );
    std::fs::write(&config, &good).unwrap();
    // The project no longer trusted in Codex's home: Codex would skip its hooks silently.
    let trust = p.home.join("config.toml");
    let trusted = std::fs::read_to_string(&trust).unwrap();
    std::fs::write(&trust, "model = \"gpt-5.5\"\n").unwrap();
    let (_, report) = doctor(&p, &[]);
    assert_eq!(failed(&report), ["trust"], "{report}");
    assert!(check(&report, "trust")["fix"].as_str().unwrap().contains("--managed"), "{report}");
    std::fs::write(&trust, trusted).unwrap();
    let (code, _) = doctor(&p, &[]);
    assert_eq!(code, 0, "whole again");
}

/// A line whose binary is gone is named, and the canary sees the tail's exit 2 as a block
/// that decides nothing (C-10).
#[test]
fn doctor_fails_a_missing_binary_with_the_canary() {
    let p = project();
    let copy = p.dir.path().join("warden-copy");
    std::fs::copy(WARDEN, &copy).unwrap();
    init(&p, &["--warden", copy.to_str().unwrap()]);
    commit(&p.root);
    approve(&p);
    let (code, _) = doctor(&p, &[]);
    assert_eq!(code, 0);
    std::fs::remove_file(&copy).unwrap();
    let (_, report) = doctor(&p, &[]);
    assert_eq!(failed(&report), ["binary", "canary"], "{report}");
    assert!(check(&report, "binary")["fix"].as_str().unwrap().contains("--warden"), "{report}");
    let canary = check(&report, "canary")["detail"].as_str().unwrap();
    assert!(canary.contains("blocks but cannot decide (exit 2)") && canary.contains("127"), "{canary}");
}

/// The managed form needs no trust; doctor names it and runs its canary (C-8, C-10).
#[test]
fn the_managed_form_is_named_and_needs_no_trust() {
    let p = project();
    let managed = p.dir.path().join("requirements.toml");
    let said = init(&p, &["--managed", managed.to_str().unwrap()]);
    assert!(said.contains("/etc/codex/requirements.toml"), "{said}");
    assert!(!p.root.join(".codex/config.toml").exists(), "the project's configuration is not written");
    commit(&p.root);
    approve(&p);
    let (code, report) = doctor(&p, &["--managed", managed.to_str().unwrap()]);
    assert_eq!((code, failed(&report)), (0, Vec::<String>::new()), "{report}");
    let form = check(&report, "form")["detail"].as_str().unwrap();
    assert!(form.starts_with("managed requirements") && form.contains("allow_managed_hooks_only"), "{form}");
    assert!(report.to_string().contains("\"check\":\"canary\""), "{report}");
    assert!(!report.to_string().contains("\"check\":\"trust\""), "managed hooks need no trust: {report}");
}

/// A step that makes a place unreadable.
type Make = fn(&Path);

/// Another `PreToolUse` hook can hand a tool another input after Warden approved it (C-18,
/// H-55): doctor names one in every place Codex reads hooks from — the user's `config.toml` and
/// `hooks.json`, the project's `.codex/config.toml` beside Warden's and `.codex/hooks.json`, a
/// managed requirements file, and a line that only wears Warden's mark — and a place it cannot
/// read (a folder where the file is expected, a link it will not follow) fails it too (C-19).
#[test]
fn every_place_codex_reads_hooks_from_is_searched_for_a_rewriting_hook() {
    let p = project();
    init(&p, &[]);
    commit(&p.root);
    approve(&p);
    let (code, report) = doctor(&p, &[]);
    assert_eq!((code, failed(&report)), (0, Vec::<String>::new()), "{report}");
    let group = |command: &str| {
        format!(
            "\n[[hooks.PreToolUse]]\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"{command}\"\n"
        )
    };
    let json_hooks = serde_json::json!({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [
        {"type": "command", "command": "/tmp/rewrite.sh"}]}]}})
    .to_string();
    let user_config = p.home.join("config.toml");
    let project_config = p.root.join(".codex/config.toml");
    let trusted = std::fs::read_to_string(&user_config).unwrap();
    let ours = std::fs::read_to_string(&project_config).unwrap();
    let warden_line = {
        let document: toml_edit::DocumentMut = ours.parse().unwrap();
        document["hooks"]["PreToolUse"][0]["hooks"][0]["command"].as_str().unwrap().to_owned()
    };
    let managed = p.dir.path().join("requirements.toml");
    // (file, text, a word the finding names, why)
    let rows: Vec<(PathBuf, String, &str, &str)> = vec![
        (
            user_config.clone(),
            format!("{trusted}{}", group("/tmp/rewrite.sh")),
            "/tmp/rewrite.sh",
            "the user's config.toml",
        ),
        (p.home.join("hooks.json"), json_hooks.clone(), "/tmp/rewrite.sh", "the user's hooks.json"),
        (
            project_config.clone(),
            format!("{ours}{}", group("/tmp/rewrite.sh")),
            "/tmp/rewrite.sh",
            "beside Warden's in the project's",
        ),
        (p.root.join(".codex/hooks.json"), json_hooks.clone(), "/tmp/rewrite.sh", "the project's hooks.json"),
        (
            managed.clone(),
            group("/tmp/managed-rewrite.sh"),
            "/tmp/managed-rewrite.sh",
            "a managed requirements file",
        ),
        (
            p.home.join("hooks.json"),
            serde_json::json!({"hooks": {"PreToolUse": [{"hooks": [
                {"type": "command", "command": format!("/tmp/rewrite.sh #{warden_line}")}]}]}})
            .to_string(),
            "carry Warden's mark",
            "a rewriter wearing Warden's mark",
        ),
    ];
    for (file, text, word, why) in rows {
        let before = std::fs::read_to_string(&file).ok();
        std::fs::write(&file, &text).unwrap();
        let (code, report) = doctor(&p, &["--managed", managed.to_str().unwrap()]);
        assert_eq!((code, failed(&report)), (1, vec!["rewriting hooks".to_owned()]), "{why}: {report}");
        let detail = check(&report, "rewriting hooks")["detail"].as_str().unwrap().to_owned();
        assert!(detail.contains(word) && detail.contains(file.to_str().unwrap()), "{why}: {detail}");
        match before {
            Some(before) => std::fs::write(&file, before).unwrap(),
            None => std::fs::remove_file(&file).unwrap(),
        }
    }
    // Places doctor cannot read: their hooks cannot be told, a failure that names them (C-19).
    let hooks_json = p.home.join("hooks.json");
    let unreadable: [(&str, Make); 2] = [
        ("a folder where the file is expected", |path| std::fs::create_dir_all(path).unwrap()),
        ("a link", |path| std::os::unix::fs::symlink("/nonexistent/hooks.json", path).unwrap()),
    ];
    for (why, make) in unreadable {
        make(&hooks_json);
        let (code, report) = doctor(&p, &[]);
        assert_eq!((code, failed(&report)), (1, vec!["rewriting hooks".to_owned()]), "{why}: {report}");
        let detail = check(&report, "rewriting hooks")["detail"].as_str().unwrap().to_owned();
        assert!(
            detail.contains("cannot be told") && detail.contains(hooks_json.to_str().unwrap()),
            "{why}: {detail}"
        );
        let _ = std::fs::remove_dir(&hooks_json);
        let _ = std::fs::remove_file(&hooks_json);
    }
    let (code, report) = doctor(&p, &[]);
    assert_eq!((code, failed(&report)), (0, Vec::<String>::new()), "whole again: {report}");
}

/// Beside `[confine]` (on by default), doctor names what Codex's own rules do to a confined call:
/// a sandbox in force other than `danger-full-access` (every confined call fails, C-21) and a
/// rules file that refuses or asks (no call is confined, C-22), each a warning with its fix; with
/// `[confine] mode = "off"` neither is checked.
#[test]
fn doctor_names_codexs_sandbox_and_exec_policy_beside_confinement() {
    let p = project();
    init(&p, &[]);
    commit(&p.root);
    approve(&p);
    let config = p.home.join("config.toml");
    let trusted = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, format!("sandbox_mode = \"danger-full-access\"\n{trusted}")).unwrap();
    let (_, report) = doctor(&p, &[]);
    assert!(check(&report, "codex sandbox")["fix"].is_null(), "{report}");
    assert!(check(&report, "codex exec policy")["fix"].is_null(), "{report}");
    std::fs::write(&config, format!("sandbox_mode = \"workspace-write\"\n{trusted}")).unwrap();
    std::fs::create_dir_all(p.home.join("rules")).unwrap();
    std::fs::write(
        p.home.join("rules/default.rules"),
        "prefix_rule(pattern = [\"rm\"], decision = \"forbidden\")\n",
    )
    .unwrap();
    let (code, report) = doctor(&p, &[]);
    assert_eq!(code, 0, "warnings, not failures: {report}");
    let sandbox = check(&report, "codex sandbox");
    assert!(sandbox["detail"].as_str().unwrap().contains("workspace-write"), "{report}");
    assert!(sandbox["fix"].as_str().unwrap().contains("danger-full-access"), "{report}");
    let policy = check(&report, "codex exec policy");
    assert!(policy["detail"].as_str().unwrap().contains("default.rules"), "{report}");
    let toml = p.root.join("agentwarden.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    std::fs::write(&toml, format!("{text}\n[confine]\nmode = \"off\"\n")).unwrap();
    let (_, report) = doctor(&p, &[]);
    let named = report["checks"].as_array().unwrap().iter().any(|c| c["check"] == "codex sandbox");
    assert!(!named, "not checked with confinement off: {report}");
}
