//! The bundled examples show what their guides say they show (N-12): every event under
//! `examples/*/events/` has a row in its harness's guide (`| `events/FILE` | ANSWER |`), and run in
//! the guide's order, after the guide's setup (`warden init`, `warden seal`, `warden approve`),
//! with the kill switch set, each is answered as its row says: `allowed`, `denied: `CODE``, or
//! `blocked: `CODE``. `@PROJECT@` in an event stands for the project's absolute path, as the
//! guides' blocks put it in.

#![expect(clippy::unwrap_used, reason = "test code: a failed unwrap is a failed test")]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A harness's bundled example: its directory under `examples/`, its guide under `docs/`, its
/// `--harness` name, and whether its deny is exit 2 (else exit 0 with its JSON).
struct Example {
    dir: &'static str,
    guide: &'static str,
    harness: &'static str,
    deny_exits_two: bool,
}

const EXAMPLES: [Example; 4] = [
    Example { dir: "claude-code", guide: "claude-code.md", harness: "claude-code", deny_exits_two: false },
    Example { dir: "codex", guide: "codex.md", harness: "codex", deny_exits_two: true },
    Example { dir: "gemini", guide: "gemini.md", harness: "gemini", deny_exits_two: true },
    Example { dir: "copilot", guide: "copilot.md", harness: "copilot", deny_exits_two: false },
];

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `warden ARGS` in `dir`, with `stdin`, the kill switch set and nothing else from the
/// environment that names a store, a server or a harness session.
fn warden(dir: &Path, args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_warden"))
        .args(args)
        .current_dir(dir)
        .env("AGENTWARDEN_ENABLE_SUBAGENTS", "true")
        .env_remove("AGENTWARDEN_STORE")
        .env_remove("AGENTWARDEN_SERVER")
        .env_remove("CLAUDECODE")
        .env_remove("CODEX_THREAD_ID")
        .env_remove("GEMINI_CLI")
        .env_remove("COPILOT_CLI")
        .env_remove("RUST_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin.unwrap_or("").as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

fn git(root: &Path, args: &[&str]) {
    let out = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// The guide's rows: each event file and the answer it claims, in order.
fn rows(guide: &str) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(repository().join("docs").join(guide)).unwrap();
    text.lines()
        .filter_map(|line| line.strip_prefix("| `events/"))
        .map(|rest| {
            let row = rest.split_once("` | ");
            assert!(row.is_some(), "{guide}: a row `{rest}`");
            let (file, answer) = row.unwrap();
            (file.to_owned(), answer.trim_end_matches(" |").trim().to_owned())
        })
        .collect()
}

/// The example copied into a fresh repository and set up as its guide says.
fn set_up(example: &Example, dir: &Path) -> PathBuf {
    let root = dir.join("project");
    let copied =
        Command::new("cp").arg("-r").arg(repository().join("examples").join(example.dir)).arg(&root).status();
    assert!(copied.unwrap().success());
    git(&root, &["init", "-q"]);
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-qm", "base"]);
    let home = dir.join("codex-home").display().to_string();
    let mut init = vec!["init", example.harness];
    if example.harness == "codex" {
        init.extend(["--codex-home", &home]);
    }
    for args in
        [&init[..], &["seal", "--by", "alice"], &["approve", "--ref", "GATE-EXAMPLE-1", "--by", "alice"]]
    {
        let out = warden(&root, args, None);
        assert!(
            out.status.success(),
            "{}: warden {args:?}: {}",
            example.dir,
            String::from_utf8_lossy(&out.stderr)
        );
        if args.first() == Some(&"init") {
            git(&root, &["add", "-A"]);
            git(&root, &["commit", "-qm", "agent warden"]);
        }
    }
    root
}

/// Whether `out` is the answer `claimed` (`allowed`, `denied: `CODE``, `blocked: `CODE``) in the
/// harness's protocol; `Err` says what it was instead.
fn answers(example: &Example, out: &Output, claimed: &str) -> Result<(), String> {
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let code = out.status.code();
    let seen = format!("exit {code:?}, stdout {stdout:?}, stderr {stderr:?}");
    let (kind, named) = match claimed.split_once(": ") {
        Some((kind, named)) => (kind, named.trim_matches('`')),
        None => (claimed, ""),
    };
    let ok = match kind {
        "allowed" => code == Some(0) && !stdout.contains("deny") && !stdout.contains("block"),
        "denied" if example.deny_exits_two => {
            code == Some(2) && stderr.contains("denied this") && stderr.contains(&format!("({named})"))
        }
        "denied" => {
            code == Some(0)
                && stdout.contains(r#""permissionDecision":"deny""#)
                && stdout.contains(&format!("({named})"))
        }
        "blocked" if example.deny_exits_two => code == Some(2) && stderr.contains(&format!("({named})")),
        "blocked" => {
            code == Some(0)
                && stdout.contains(r#""decision":"block""#)
                && stdout.contains(&format!("({named})"))
        }
        other => return Err(format!("the guide claims `{other}`, which is not an answer this test reads")),
    };
    if ok { Ok(()) } else { Err(seen) }
}

#[test]
fn every_bundled_event_is_answered_as_its_guide_says() {
    for example in &EXAMPLES {
        let rows = rows(example.guide);
        let events = repository().join("examples").join(example.dir).join("events");
        let mut files: Vec<String> = std::fs::read_dir(&events)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        files.sort();
        let mut listed: Vec<String> = rows.iter().map(|(file, _)| file.clone()).collect();
        listed.sort();
        assert_eq!(files, listed, "docs/{}: every bundled event has one row, and no other", example.guide);
        let dir = tempfile::tempdir().unwrap();
        let root = set_up(example, dir.path());
        let project = std::fs::canonicalize(&root).unwrap().display().to_string();
        for (file, claimed) in &rows {
            let event = std::fs::read_to_string(events.join(file)).unwrap().replace("@PROJECT@", &project);
            let out = warden(
                &root,
                &["hook", "--harness", example.harness, "--config", "agentwarden.toml"],
                Some(&event),
            );
            let answered = answers(example, &out, claimed);
            assert!(
                answered.is_ok(),
                "docs/{}: `events/{file}` is claimed `{claimed}`, but: {answered:?}",
                example.guide
            );
        }
    }
}

/// The check itself: an answer is read as what it is, and no other.
#[test]
fn each_answer_is_told_from_the_others() {
    let output = |code: i32, stdout: &str, stderr: &str| {
        use std::os::unix::process::ExitStatusExt;
        Output {
            status: std::process::ExitStatus::from_raw(code << 8),
            stdout: stdout.as_bytes().to_vec(),
            stderr: stderr.as_bytes().to_vec(),
        }
    };
    let (claude, codex) = (&EXAMPLES[0], &EXAMPLES[1]);
    let deny = r#"{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"at x (spawn_not_allowed): no"}}"#;
    assert!(answers(claude, &output(0, "", ""), "allowed").is_ok());
    assert!(answers(claude, &output(0, deny, ""), "denied: `spawn_not_allowed`").is_ok());
    assert!(answers(claude, &output(0, deny, ""), "denied: `depth_exceeded`").is_err(), "another code");
    assert!(answers(claude, &output(0, deny, ""), "allowed").is_err());
    let refused = "Agent Warden denied this: at protected_path (path_unresolvable): relative";
    assert!(
        answers(codex, &output(2, "", refused), "denied: `protected_path_write`").is_err(),
        "the relative cwd"
    );
    assert!(answers(codex, &output(2, "", refused), "denied: `path_unresolvable`").is_ok());
    assert!(answers(codex, &output(2, "", "Agent Warden could not decide: x"), "allowed").is_err());
}

/// Through `warden hook`, as installed: a Codex project whose configuration still has the old
/// shared `[claude_code]` and no `[codex]` fails every Codex event naming `[codex]` to add
/// (U-18); a section no harness reads fails every event naming it (U-19); the Claude Code example
/// with its own section is answered as before.
#[test]
fn a_configuration_for_the_old_shared_section_or_no_harness_is_refused_by_the_hook() {
    let codex = &EXAMPLES[1];
    let dir = tempfile::tempdir().unwrap();
    let root = set_up(codex, dir.path());
    let config = std::fs::read_to_string(root.join("agentwarden.toml")).unwrap();
    let spawn = std::fs::read_to_string(root.join("events/pre-spawn-main-planner.json")).unwrap();
    let hook = |root: &Path, harness: &str, event: &str| {
        warden(root, &["hook", "--harness", harness, "--config", "agentwarden.toml"], Some(event))
    };
    assert!(answers(codex, &hook(&root, "codex", &spawn), "allowed").is_ok(), "its own section: allowed");
    std::fs::write(root.join("agentwarden.toml"), config.replace("[codex]", "[claude_code]")).unwrap();
    let out = hook(&root, "codex", &spawn);
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(said.contains("config_invalid") && said.contains("add a `[codex]` section"), "{said}");
    std::fs::write(root.join("agentwarden.toml"), format!("{config}\n[codx]\nmain_persona = \"main\"\n"))
        .unwrap();
    let out = hook(&root, "codex", &spawn);
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(
        said.contains("config_invalid") && said.contains("`[codx]`") && said.contains("`[codex]`"),
        "{said}"
    );
}
