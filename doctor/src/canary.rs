//! The canary of `warden doctor`: the installed hook line, run. What the harness sends, the
//! environment it gives a hook and how it reads the answer are its integration crate's
//! (`setup::canary`); here the line runs and the finding is reported.
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
//!
//! C-11: for Codex the same, in Codex's words: a `PreToolUse` of `spawn_agent` from the main
//! session, run with `sh -c` in the project, bounded by the hook's timeout; only exit 2 with
//! `Agent Warden denied this: …` on stderr passes (C-1): exit 0 and any other exit let the spawn
//! run, and an exit 2 that is not a deny blocks without deciding.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::check::Check;
use crate::integration::{CanaryAnswer as Answer, Integration};
use crate::lines::Line;

/// The session id prefix of the canary's events (H-15).
pub const CANARY_SESSION: &str = "warden-doctor-canary-";

/// The subagent type of the canary sent to a server (V-48): declared by no persona.
pub const CANARY_TYPE: &str = "warden-doctor-canary";

/// The spawn the canary asks for, and so what its deny proves. The kill switch variable is
/// removed from the line's environment either way.
#[derive(Clone, Copy, Debug)]
pub enum Probe<'a> {
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

/// Runs `command` with `sh -c` as the harness would, with its variables `env`, `input` on
/// stdin, for at most `limit`.
fn run_line(
    project: &Path,
    command: &str,
    input: &str,
    env: &[(&str, String)],
    unset: &str,
    limit: Duration,
) -> Result<Option<Ran>, String> {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(project)
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
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

/// Runs each distinct installed line of the tool event (`PreToolUse`, Gemini's `BeforeTool`) on a spawn without the kill
/// switch (H-15, C-11).
pub fn canary(
    harness: &dyn Integration,
    project: &Path,
    lines: &[Line],
    enable_env: &str,
    probe: Probe<'_>,
    default_timeout_s: u64,
    checks: &mut Vec<Check>,
) {
    let mut distinct: Vec<(&str, u64)> = Vec::new();
    for line in lines.iter().filter(|l| l.event == harness.tool_event()) {
        if !distinct.iter().any(|(command, _)| *command == line.command) {
            distinct.push((&line.command, line.timeout.unwrap_or(default_timeout_s)));
        }
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or_default();
    let session = format!("{CANARY_SESSION}{now}");
    let input = harness.canary_event(&session, project, probe.subagent());
    let env = harness.canary_environment(project);
    let name = harness.name();
    let fix =
        format!("fix what the reason names, then run `warden doctor` again; do not start {name} before");
    for (line, timeout) in distinct {
        let ran = run_line(project, line, &input, &env, enable_env, Duration::from_secs(timeout));
        checks.push(match ran {
            Err(e) => Check::fail("canary", e, "make `sh` runnable"),
            Ok(None) => Check::fail(
                "canary",
                format!("no answer within the {name} timeout of {timeout} s: {name} would let the spawn run"),
                fix.clone(),
            ),
            Ok(Some(ran)) => match harness.read_canary(ran.code, &ran.stdout, &ran.stderr) {
                Answer::Denied(reason) => Check::ok(
                    "canary",
                    format!(
                        "the installed line denied {} (session `{session}`): {reason}",
                        probe.what(enable_env)
                    ),
                ),
                Answer::LetThrough => Check::fail(
                    "canary",
                    format!(
                        "the installed line let {} through (session `{session}`)",
                        probe.what(enable_env)
                    ),
                    format!("check the configuration the line names; do not start {name} before this passes"),
                ),
                Answer::CannotDecide(last) => Check::fail(
                    "canary",
                    format!("the installed line blocks but cannot decide (exit 2): {last}"),
                    fix.clone(),
                ),
                Answer::Exited(code, last) => Check::fail(
                    "canary",
                    format!(
                        "the installed line exits {}: {name} would let the spawn run ({last})",
                        code.map_or_else(|| "by a signal".to_owned(), |c| c.to_string()),
                    ),
                    format!("run `{}` again", harness.init()),
                ),
            },
        });
    }
}
