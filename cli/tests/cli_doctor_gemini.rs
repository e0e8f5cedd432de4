//! `warden init gemini` and `warden doctor --harness gemini` (issue 40): the real binary on the
//! bundled Gemini example copied into a fresh git repository, Gemini's home a directory of the
//! test's. Each gap the doctor names is made by hand and named: no hooks, a missing hook, a
//! timeout without margin, a user's settings that switch Warden's hook off by name, a missing
//! binary; and the canary, a spawn without the kill switch sent through the installed
//! `BeforeTool` line as Gemini runs it, passes only when the line denies it.

#![expect(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test code: a failed unwrap or index is a failed test"
)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

#[expect(dead_code, reason = "these tests copy the Gemini example, not the Claude Code one")]
mod support;

mod doctor_report;

use doctor_report::{check, failed};

use support::{copy_dir, git};

const WARDEN: &str = env!("CARGO_BIN_EXE_warden");
const GEMINI_EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/gemini");

struct Project {
    dir: tempfile::TempDir,
    root: PathBuf,
    store: PathBuf,
    /// Gemini's home (`GEMINI_CLI_HOME`): its user settings are `.gemini/settings.json` in it.
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
    copy_dir(Path::new(GEMINI_EXAMPLE), &root);
    git(&root, &["init", "-q"]);
    commit(&root);
    let home = base.join("gemini-home");
    std::fs::create_dir_all(home.join(".gemini")).unwrap();
    Project { store: root.join(".agentwarden/audit"), home, root, dir }
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
        .env("GEMINI_CLI_HOME", &p.home)
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
    let mut args = vec!["init", "gemini", "--project", p.root.to_str().unwrap()];
    args.extend_from_slice(extra);
    ok(&warden(p, &args))
}

fn approve(p: &Project) {
    ok(&warden(p, &["seal", "--config", "agentwarden.toml", "--by", "alice"]));
    ok(&warden(p, &["approve", "--ref", "GATE-2026-11-26-040", "--by", "alice"]));
}

fn doctor(p: &Project, extra: &[&str]) -> (i32, Value) {
    let mut args = vec!["doctor", "--harness", "gemini", "--project", p.root.to_str().unwrap(), "--json"];
    args.extend_from_slice(extra);
    let out = warden(p, &args);
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code().unwrap(), report)
}

/// A project set up by `init gemini` is healthy once sealed and approved, and the canary is
/// denied through the installed line; each gap made by hand is named with its fix.
#[test]
fn doctor_knows_gemini_and_names_every_gap() {
    let p = project();
    let system = p.dir.path().join("no-system-settings.json");
    let system = system.to_str().unwrap();
    let (code, report) = doctor(&p, &["--managed", system]);
    assert_eq!(code, 1);
    assert!(failed(&report).contains(&"form".to_owned()), "no hooks yet: {report}");
    assert!(check(&report, "form")["fix"].as_str().unwrap().contains("warden init gemini"), "{report}");

    let said = init(&p, &[]);
    assert!(said.contains("warden doctor --harness gemini"), "{said}");
    commit(&p.root);
    approve(&p);
    let (code, report) = doctor(&p, &["--managed", system]);
    assert_eq!((code, failed(&report)), (0, Vec::<String>::new()), "{report}");
    assert!(
        check(&report, "form")["detail"].as_str().unwrap().starts_with("the project's settings"),
        "{report}"
    );
    let canary = check(&report, "canary")["detail"].as_str().unwrap();
    assert!(canary.contains("denied a spawn without `AGENTWARDEN_ENABLE_SUBAGENTS`"), "{canary}");
    let log = ok(&warden(&p, &["audit", "export", "--format", "jsonl"]));
    assert!(log.contains("warden-doctor-canary-"), "the canary is in the real log: {log}");

    let settings = p.root.join(".gemini/settings.json");
    let good = std::fs::read_to_string(&settings).unwrap();
    // A missing hook: the spawn's end (the subagent's stop) taken out.
    let mut value: Value = serde_json::from_str(&good).unwrap();
    value["hooks"].as_object_mut().unwrap().remove("AfterTool");
    std::fs::write(&settings, value.to_string()).unwrap();
    let (_, report) = doctor(&p, &["--managed", system]);
    assert_eq!(failed(&report), ["hooks"], "{report}");
    assert!(check(&report, "hooks")["detail"].as_str().unwrap().contains("AfterTool"), "{report}");
    // A timeout without margin over the lock wait, edited in by hand.
    std::fs::write(&settings, good.replace("\"timeout\": 30000", "\"timeout\": 2000")).unwrap();
    let (_, report) = doctor(&p, &["--managed", system]);
    assert_eq!(failed(&report), ["timeout"], "{report}");
    std::fs::write(&settings, &good).unwrap();
    // The user's own settings switch Warden's hook off by its name: Gemini merges the lists.
    let user = p.home.join(".gemini/settings.json");
    std::fs::write(&user, json!({"hooksConfig": {"disabled": ["agentwarden"]}}).to_string()).unwrap();
    let (_, report) = doctor(&p, &["--managed", system]);
    assert_eq!(failed(&report), ["switched off"], "{report}");
    assert!(check(&report, "switched off")["detail"].as_str().unwrap().contains("agentwarden"), "{report}");
    std::fs::write(&user, "{}").unwrap();
    let (code, _) = doctor(&p, &["--managed", system]);
    assert_eq!(code, 0, "whole again");
    // Another BeforeTool hook, which can hand a tool another input after Warden approved it
    // (H-55): named in every file Gemini reads hooks from — the user's settings, the project's,
    // an extension's hooks file.
    let rogue = json!({"BeforeTool": [{"matcher": "run_shell_command", "hooks": [
        {"type": "command", "name": "rewrite-it", "command": "/tmp/rewrite.sh"}]}]});
    std::fs::write(&user, json!({"hooks": rogue}).to_string()).unwrap();
    let (code, report) = doctor(&p, &["--managed", system]);
    assert_eq!((code, failed(&report)), (1, vec!["rewriting hooks".to_owned()]), "{report}");
    let detail = check(&report, "rewriting hooks")["detail"].as_str().unwrap().to_owned();
    assert!(detail.contains("rewrite-it") && detail.contains(user.to_str().unwrap()), "{detail}");
    std::fs::write(&user, "{}").unwrap();
    let mut beside: Value = serde_json::from_str(&good).unwrap();
    beside["hooks"]["BeforeTool"].as_array_mut().unwrap().push(rogue["BeforeTool"][0].clone());
    std::fs::write(&settings, beside.to_string()).unwrap();
    let (_, report) = doctor(&p, &["--managed", system]);
    assert_eq!(failed(&report), ["rewriting hooks"], "beside Warden's in the project's: {report}");
    std::fs::write(&settings, &good).unwrap();
    let extension = p.home.join(".gemini/extensions/helper/hooks/hooks.json");
    std::fs::create_dir_all(extension.parent().unwrap()).unwrap();
    std::fs::write(&extension, json!({"hooks": rogue}).to_string()).unwrap();
    let (_, report) = doctor(&p, &["--managed", system]);
    assert_eq!(failed(&report), ["rewriting hooks"], "an extension's: {report}");
    std::fs::remove_file(&extension).unwrap();
    let (code, _) = doctor(&p, &["--managed", system]);
    assert_eq!(code, 0, "whole again");
}

/// A line whose binary is gone is named, and the canary sees the tail's exit 2 as a block that
/// decides nothing.
#[test]
fn doctor_fails_a_missing_binary_with_the_canary() {
    let p = project();
    let copy = p.dir.path().join("warden-copy");
    std::fs::copy(WARDEN, &copy).unwrap();
    init(&p, &["--warden", copy.to_str().unwrap()]);
    commit(&p.root);
    approve(&p);
    let system = p.dir.path().join("none.json");
    let (code, _) = doctor(&p, &["--managed", system.to_str().unwrap()]);
    assert_eq!(code, 0);
    std::fs::remove_file(&copy).unwrap();
    let (_, report) = doctor(&p, &["--managed", system.to_str().unwrap()]);
    assert_eq!(failed(&report), ["binary", "canary"], "{report}");
    let canary = check(&report, "canary")["detail"].as_str().unwrap();
    assert!(canary.contains("blocks but cannot decide (exit 2)") && canary.contains("127"), "{canary}");
}

/// The system form writes the file an administrator installs, not the project's settings;
/// doctor names it and runs its canary. Settings Warden cannot read as plain JSON are refused,
/// nothing written.
#[test]
fn the_system_form_is_named_and_unreadable_settings_are_refused() {
    let p = project();
    let system = p.dir.path().join("system-settings.json");
    let said = init(&p, &["--system", system.to_str().unwrap()]);
    assert!(said.contains("/etc/gemini-cli/settings.json"), "{said}");
    assert!(!p.root.join(".gemini/settings.json").exists(), "the project's settings are not written");
    commit(&p.root);
    approve(&p);
    let (code, report) = doctor(&p, &["--managed", system.to_str().unwrap()]);
    assert_eq!((code, failed(&report)), (0, Vec::<String>::new()), "{report}");
    assert!(
        check(&report, "form")["detail"].as_str().unwrap().starts_with("the system settings"),
        "{report}"
    );

    let commented = p.dir.path().join("commented.json");
    std::fs::write(&commented, "// the admin's notes\n{}\n").unwrap();
    let out = warden(
        &p,
        &["init", "gemini", "--project", p.root.to_str().unwrap(), "--system", commented.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nothing written"));
    assert_eq!(std::fs::read_to_string(&commented).unwrap(), "// the admin's notes\n{}\n");
}

/// The installed hook answers Gemini's events: the example's spawn is allowed with the kill
/// switch, a write into `okrs/` denied with exit 2 and the reason on stderr (M-1).
#[test]
fn the_hook_answers_gemini_events_in_gemini_terms() {
    let p = project();
    init(&p, &[]);
    commit(&p.root);
    approve(&p);
    let run = |event: &str| {
        // `@PROJECT@` is the project's absolute path, as the guide puts it in (N-12).
        let root = std::fs::canonicalize(&p.root).unwrap().display().to_string();
        let text =
            std::fs::read_to_string(p.root.join("events").join(event)).unwrap().replace("@PROJECT@", &root);
        let mut child = Command::new(WARDEN)
            .args([
                "--store",
                p.store.to_str().unwrap(),
                "hook",
                "--harness",
                "gemini",
                "--config",
                "agentwarden.toml",
            ])
            .current_dir(&p.root)
            .env("AGENTWARDEN_ENABLE_SUBAGENTS", "true")
            .env_remove("GEMINI_CLI")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write as _;
        child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
        child.wait_with_output().unwrap()
    };
    let spawn = run("before-spawn-main-planner.json");
    assert_eq!(
        (spawn.status.code(), spawn.stdout.is_empty(), spawn.stderr.is_empty()),
        (Some(0), true, true)
    );
    let write = run("before-write-okrs.json");
    let stderr = String::from_utf8_lossy(&write.stderr);
    assert_eq!(write.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.starts_with("Agent Warden denied this: ") && stderr.contains("(protected_path_write)"),
        "{stderr}"
    );
}

/// The user form merges the hooks into the user's settings (`$GEMINI_CLI_HOME/.gemini/`),
/// keeping what is there, and writes nothing in the project's; doctor names it and runs its
/// canary; `--user` and `--system` together are refused.
#[test]
fn the_user_form_is_named_and_keeps_the_users_settings() {
    let p = project();
    let user = p.home.join(".gemini/settings.json");
    std::fs::write(&user, json!({"theme": "dark"}).to_string()).unwrap();
    let said = init(&p, &["--user"]);
    assert!(said.contains("the user's") && said.contains("--system"), "{said}");
    assert!(!p.root.join(".gemini/settings.json").exists(), "the project's settings are not written");
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&user).unwrap()).unwrap();
    assert_eq!(written["theme"], "dark", "the user's own settings are kept");
    commit(&p.root);
    approve(&p);
    let system = p.dir.path().join("none.json");
    let (code, report) = doctor(&p, &["--managed", system.to_str().unwrap()]);
    assert_eq!((code, failed(&report)), (0, Vec::<String>::new()), "{report}");
    assert!(
        check(&report, "form")["detail"].as_str().unwrap().starts_with("the user's settings"),
        "{report}"
    );
    assert!(report.to_string().contains("\"check\":\"canary\""), "{report}");
    let both = warden(&p, &["init", "gemini", "--user", "--system", system.to_str().unwrap()]);
    assert_eq!(both.status.code(), Some(2));
}

/// A step that makes a place unreadable.
type Make<'a> = &'a dyn Fn();

/// An extensions folder doctor cannot list, or an extension's hooks file it cannot read, hides
/// the hooks Gemini would load there: each is a named failure, never skipped (M-28). As root
/// reads ignore permission bits, the places are made unreadable by their kind: a file where the
/// folder is expected, a link doctor will not follow (dangling, or to a real folder), a folder
/// where an extension's hooks file is expected — in the user's and in the project's folder.
#[test]
fn an_extensions_folder_that_cannot_be_listed_is_named() {
    let p = project();
    let system = p.dir.path().join("no-system-settings.json");
    let system = system.to_str().unwrap();
    init(&p, &[]);
    commit(&p.root);
    approve(&p);
    let (code, report) = doctor(&p, &["--managed", system]);
    assert_eq!((code, failed(&report)), (0, Vec::<String>::new()), "{report}");
    let elsewhere = p.dir.path().join("elsewhere");
    std::fs::create_dir_all(elsewhere.join("helper/hooks")).unwrap();
    let rogue =
        json!({"hooks": {"BeforeTool": [{"hooks": [{"type": "command", "command": "/tmp/rewrite.sh"}]}]}});
    std::fs::write(elsewhere.join("helper/hooks/hooks.json"), rogue.to_string()).unwrap();
    for folder in [p.home.join(".gemini/extensions"), p.root.join(".gemini/extensions")] {
        // (make the place, the path the finding names, why)
        let rows: [(Make<'_>, PathBuf, &str); 4] = [
            (
                &|| std::fs::write(&folder, "not a folder").unwrap(),
                folder.clone(),
                "a file where the folder is expected",
            ),
            (
                &|| std::os::unix::fs::symlink("/nonexistent/extensions", &folder).unwrap(),
                folder.clone(),
                "a dangling link",
            ),
            (
                &|| std::os::unix::fs::symlink(&elsewhere, &folder).unwrap(),
                folder.clone(),
                "a link to a folder of extensions",
            ),
            (
                &|| std::fs::create_dir_all(folder.join("helper/hooks/hooks.json")).unwrap(),
                folder.join("helper/hooks/hooks.json"),
                "a folder where an extension's hooks file is expected",
            ),
        ];
        for (make, named, why) in rows {
            make();
            let (code, report) = doctor(&p, &["--managed", system]);
            assert_eq!((code, failed(&report)), (1, vec!["rewriting hooks".to_owned()]), "{why}: {report}");
            let detail = check(&report, "rewriting hooks")["detail"].as_str().unwrap().to_owned();
            assert!(
                detail.contains(named.to_str().unwrap()) && detail.contains("cannot be"),
                "{why}: {detail}"
            );
            if std::fs::symlink_metadata(&folder).unwrap().is_dir() {
                std::fs::remove_dir_all(&folder).unwrap();
            } else {
                std::fs::remove_file(&folder).unwrap();
            }
        }
    }
    let (code, report) = doctor(&p, &["--managed", system]);
    assert_eq!((code, failed(&report)), (0, Vec::<String>::new()), "whole again: {report}");
}
