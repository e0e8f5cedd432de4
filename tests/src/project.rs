//! What the real-client suites' projects share: git with a fixed identity, `warden` run in the
//! project as a human would (outside any agent session, with no store or kill switch from the
//! environment), the audit log read back. Each harness's project type calls these with its root.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

use crate::claude_code::{HELPER_TIMEOUT, output_within};

/// Runs git in `root` with a fixed identity; panics if it fails; returns stdout.
pub fn git(root: &Path, args: &[&str]) -> String {
    let out = output_within(
        Command::new("git")
            .arg("-C")
            .arg(root)
            .args(["-c", "user.name=warden-test", "-c", "user.email=test@agentwarden.invalid"])
            .args(args),
        HELPER_TIMEOUT,
    );
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Runs `warden ARGS` (the binary `warden`) in `root` as a human would: none of the variables
/// that mark an agent's session, no store or kill switch from the environment.
pub fn warden(warden: &Path, root: &Path, args: &[&str]) -> Output {
    output_within(
        Command::new(warden)
            .args(args)
            .current_dir(root)
            .env_remove("CLAUDECODE")
            .env_remove("CODEX_THREAD_ID")
            .env_remove("GEMINI_CLI")
            .env_remove("AGENTWARDEN_STORE")
            .env_remove("AGENTWARDEN_ENABLE_SUBAGENTS"),
        HELPER_TIMEOUT,
    )
}

/// [`warden`], which must succeed; returns stdout.
pub fn warden_ok(binary: &Path, root: &Path, args: &[&str]) -> String {
    let out = warden(binary, root, args);
    assert!(
        out.status.success(),
        "warden {args:?} failed ({}): {}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The audit events of one type in `root`'s log (`warden audit log --json`).
pub fn audit_of(binary: &Path, root: &Path, event_type: &str) -> Vec<Value> {
    warden_ok(binary, root, &["audit", "log", "--json"])
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e.get("event_type").and_then(Value::as_str) == Some(event_type))
        .collect()
}
