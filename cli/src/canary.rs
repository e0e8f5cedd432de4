//! The canary of `warden doctor`: the installed hook line, run.
//!
//! H-15: the canary. For every distinct installed command line the doctor runs that exact line
//! with `sh -c`, as Claude Code does (`CLAUDE_PROJECT_DIR` set to the project, `CLAUDECODE=1`,
//! the kill switch variable removed), on a synthetic `PreToolUse` of `Agent` from the main
//! session, bounded by the entry's Claude Code timeout. Only an answer of exit 0 with
//! `permissionDecision: "deny"` passes: exit 2 blocks but means the hook cannot decide, any
//! other exit or a timeout would let the call run. The canary is recorded in the real log like
//! any hook call, under the session `warden-doctor-canary-<unix ms>`, so an investigator tells
//! it apart. Only a `PreToolUse` is sent: a synthetic `SubagentStop` would compare and revert
//! the project's protected paths.
//!
//! V-48: when the lines ask a resident service, the kill switch is the server's environment
//! (V-4), which the canary cannot unset: a server running with it on, as it does in service,
//! would allow the spawn above. The canary then asks for a spawn of [`CANARY_TYPE`], a type no
//! persona declares, which the gate denies whatever the kill switch says; only that deny passes.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::check::Check;
use super::installed::Entry;
use super::wiring;

/// The session id prefix of the canary's events (H-15).
pub(super) const CANARY_SESSION: &str = "warden-doctor-canary-";

/// The subagent type of the canary sent to a server (V-48): declared by no persona.
pub(super) const CANARY_TYPE: &str = "warden-doctor-canary";

/// The spawn the canary asks for, and so what its deny proves. The kill switch variable is
/// removed from the line's environment either way.
#[derive(Clone, Copy, Debug)]
pub(super) enum Probe<'a> {
    /// Direct mode (H-15): `subagent`, which the main persona declares.
    KillSwitchUnset { subagent: &'a str },
    /// Through a server (V-48): [`CANARY_TYPE`], which no persona declares.
    UndeclaredType,
}

impl<'a> Probe<'a> {
    fn subagent(self) -> &'a str {
        match self {
            Probe::KillSwitchUnset { subagent } => subagent,
            Probe::UndeclaredType => CANARY_TYPE,
        }
    }

    /// The spawn, for the check's line.
    fn what(self, enable_env: &str) -> String {
        match self {
            Probe::KillSwitchUnset { .. } => format!("a spawn without `{enable_env}`"),
            Probe::UndeclaredType => format!(
                "a spawn of `{CANARY_TYPE}`, a type no persona declares, through the server (whose own \
                 environment holds the kill switch)"
            ),
        }
    }
}

/// What the canary's run came back with.
#[derive(Debug)]
struct Ran {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs `command` with `sh -c` as Claude Code would, `input` on stdin, for at most `limit`.
fn run_line(
    project: &Path,
    command: &str,
    input: &str,
    unset: &str,
    limit: Duration,
) -> Result<Option<Ran>, String> {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(project)
        .env("CLAUDE_PROJECT_DIR", project)
        .env("CLAUDECODE", "1")
        .env_remove(unset)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run `sh`: {e}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        // A line that exits without reading its input is judged by its exit, not by this.
        let _ = stdin.write_all(input.as_bytes());
    }
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_string(&mut text);
            }
            text
        })
    };
    let stdout = drain(child.stdout.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let stderr = drain(child.stderr.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() >= limit => {
                let _ = child.kill();
                let _ = child.wait();
                return Ok(None);
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => return Err(format!("cannot wait for `sh`: {e}")),
        }
    };
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    Ok(Some(Ran { code: status.code(), stdout, stderr }))
}

/// H-15: runs each distinct installed line on a spawn without the kill switch.
pub(super) fn canary(
    project: &Path,
    entries: &[Entry],
    enable_env: &str,
    probe: Probe<'_>,
    checks: &mut Vec<Check>,
) {
    let mut lines: Vec<(&str, u64)> = Vec::new();
    for entry in entries.iter().filter(|e| e.event == "PreToolUse") {
        if !lines.iter().any(|(line, _)| *line == entry.command) {
            lines.push((&entry.command, entry.timeout.unwrap_or(wiring::DEFAULT_DEADLINE_MS / 1000)));
        }
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or_default();
    let session = format!("{CANARY_SESSION}{now}");
    let input = json!({
        "session_id": session,
        "transcript_path": "",
        "cwd": project,
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Agent",
        "tool_use_id": "toolu_warden_doctor_canary",
        "tool_input": {
            "description": "warden doctor canary",
            "prompt": "A canary from `warden doctor`: this spawn must be denied.",
            "subagent_type": probe.subagent(),
        },
    })
    .to_string();
    let fix = "fix what the reason names, then run `warden doctor` again; do not start Claude Code before";
    for (line, timeout) in lines {
        let ran = run_line(project, line, &input, enable_env, Duration::from_secs(timeout));
        let last = |text: &str| text.lines().last().unwrap_or("").trim().to_owned();
        checks.push(match ran {
            Err(e) => Check::fail("canary", e, "make `sh` runnable"),
            Ok(None) => Check::fail(
                "canary",
                format!("no answer within the Claude Code timeout of {timeout} s: Claude Code would let the spawn run"),
                fix,
            ),
            Ok(Some(Ran { code: Some(0), stdout, .. })) => {
                let answer: Value = serde_json::from_str(stdout.trim()).unwrap_or(Value::Null);
                let decision = answer.pointer("/hookSpecificOutput/permissionDecision").and_then(Value::as_str);
                let reason = answer
                    .pointer("/hookSpecificOutput/permissionDecisionReason")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                if decision == Some("deny") {
                    Check::ok(
                        "canary",
                        format!("the installed line denied {} (session `{session}`): {reason}", probe.what(enable_env)),
                    )
                } else {
                    Check::fail(
                        "canary",
                        format!("the installed line let {} through (session `{session}`)", probe.what(enable_env)),
                        "check the configuration the line names; do not start Claude Code before this passes",
                    )
                }
            }
            Ok(Some(Ran { code: Some(2), stderr, .. })) => Check::fail(
                "canary",
                format!("the installed line blocks but cannot decide (exit 2): {}", last(&stderr)),
                fix,
            ),
            Ok(Some(Ran { code, stderr, .. })) => Check::fail(
                "canary",
                format!(
                    "the installed line exits {}: Claude Code would let the spawn run ({})",
                    code.map_or_else(|| "by a signal".to_owned(), |c| c.to_string()),
                    last(&stderr)
                ),
                "run `warden init claude-code` again",
            ),
        });
    }
}
