//! Asking the server: the deadline's watchdog (H-10), stdin, the configuration, one exchange,
//! the answer written as the calling harness reads it.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use agentwarden_claude_code::wire::HOOK_FAILED;
use agentwarden_domain::code::Code;
use agentwarden_domain::sessions::{HookAnswer, MAX_HOOK_INPUT};
use agentwarden_protocol::{ClientError, Request};

use crate::line::{Asked, HookLine, USAGE, parse};

/// Runs `warden-hook` with the process's arguments and returns its exit code.
pub fn main() -> ExitCode {
    std::panic::set_hook(Box::new(|info| {
        eprintln!("warden-hook: {}: {info}", Code::InternalError);
        std::process::exit(i32::from(HOOK_FAILED));
    }));
    let line = match parse(std::env::args_os().skip(1)) {
        Ok(Asked::Hook(line)) => line,
        Ok(Asked::Help) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Ok(Asked::Version) => {
            println!("warden-hook {}", env!("CARGO_PKG_VERSION"));
            return ExitCode::SUCCESS;
        }
        Err(why) => {
            eprintln!("warden-hook: {}: {why}\n{USAGE}", Code::UsageInvalid);
            return ExitCode::from(HOOK_FAILED);
        }
    };
    if line.server.is_none() {
        // The watchdog is not needed to say this; the answer is the same exit 2.
        let why = "no `--server` on the command line (only the installed line names the server, V-49); \
                   warden-hook only asks a server, `warden hook` decides without one";
        return failed("warden-hook", &ClientError::new(Code::ServerUnavailable, why));
    }
    answer_through_server(&line, "warden-hook")
}

/// Asks the server `line` names and prints its answer; any failure is exit 2
/// with one line on stderr, prefixed by the binary's `name`. Synchronous: no runtime (V-5, V-6, V-29).
pub fn answer_through_server(line: &HookLine, name: &str) -> ExitCode {
    let started = Instant::now();
    let settled = Arc::new(AtomicBool::new(false));
    if let Err(e) = watchdog(line.deadline_ms, Arc::clone(&settled)) {
        let why = format!("cannot start the deadline watchdog: {e}");
        return failed(name, &ClientError::new(Code::InternalError, why));
    }
    let answer = match begin(line) {
        Ok((socket, uid, config, input)) => {
            let left = u64::try_from(started.elapsed().as_millis())
                .map_or(0, |spent| line.deadline_ms.saturating_sub(spent));
            ask(&socket, uid, config, input, line.harness, left)
        }
        Err(why) => HookAnswer::failed(why.to_string()),
    };
    // Whoever settles first decides: this answer, or the watchdog's exit 2 (H-16).
    if settled.swap(true, Ordering::SeqCst) {
        let why = format!("no answer within --deadline-ms {}", line.deadline_ms);
        return failed(name, &ClientError::new(Code::DeadlinePassed, why));
    }
    print(&line.harness.print(&answer, name), name)
}

/// Writes what the harness reads: the stdout line, then the stderr line; a stdout that cannot
/// be written is exit 2.
pub fn print(printed: &crate::harness::Printed, name: &str) -> ExitCode {
    let mut stdout = std::io::stdout().lock();
    if let Some(text) = &printed.stdout
        && let Err(e) = writeln!(stdout, "{text}").and_then(|()| stdout.flush())
    {
        return failed(name, &format!("cannot write the answer: {e}"));
    }
    if let Some(text) = &printed.stderr {
        eprintln!("{text}");
        let _ = std::io::stderr().flush();
    }
    ExitCode::from(printed.exit_code)
}

/// Everything before the exchange: the server and its user, the configuration, the event.
fn begin(line: &HookLine) -> Result<(PathBuf, Option<u32>, Option<String>, String), ClientError> {
    let socket =
        line.server.clone().ok_or_else(|| ClientError::new(Code::InternalError, "no server to ask"))?;
    let mut input = String::new();
    let limit = u64::try_from(MAX_HOOK_INPUT).unwrap_or(u64::MAX).saturating_add(1);
    std::io::stdin()
        .take(limit)
        .read_to_string(&mut input)
        .map_err(|e| ClientError::new(Code::HookInputInvalid, format!("cannot read stdin: {e}")))?;
    let config = crate::config::config_file(line.config.as_deref())?;
    let configured = crate::config::configured_uid(config.as_deref())?;
    let uid = crate::config::server_uid(line.server_uid, configured)?;
    let config = config.map(|p| p.to_string_lossy().into_owned());
    Ok((socket, uid, config, input))
}

/// `warden hook` through the server (V-6): the answer, or exit 2 with why.
pub fn ask(
    socket: &std::path::Path,
    uid: Option<u32>,
    config: Option<String>,
    input: String,
    harness: crate::HookHarness,
    deadline_ms: u64,
) -> HookAnswer {
    let request =
        Request::Hook { config, input, deadline_ms: Some(deadline_ms), harness: harness.requested() };
    agentwarden_protocol::exchange(socket, uid, &request, Duration::from_millis(deadline_ms))
        .and_then(crate::answer::checked)
        .unwrap_or_else(|why| HookAnswer::failed(why.to_string()))
}

/// Starts the deadline's watchdog (H-10): unless the answer is settled first, it writes the
/// reason and ends the process with exit 2 when `deadline_ms` has passed — whatever the hook is
/// waiting for (the server, the store's lock, a slow file system, a hung read). H-16: whoever
/// sets `settled` first decides: the hook before it writes its answer, the watchdog before it
/// exits. `warden hook` deciding without a server starts the same one.
pub fn watchdog(deadline_ms: u64, settled: Arc<AtomicBool>) -> std::io::Result<()> {
    let deadline = Duration::from_millis(deadline_ms);
    std::thread::Builder::new().name("hook-deadline".into()).spawn(move || {
        std::thread::sleep(deadline);
        if !settled.swap(true, Ordering::SeqCst) {
            eprintln!(
                "warden: {}: no answer within --deadline-ms {deadline_ms} (the store busy or locked, or a \
                 slow file system); blocked",
                Code::DeadlinePassed
            );
            std::process::exit(i32::from(HOOK_FAILED));
        }
    })?;
    Ok(())
}

/// Exit 2 with `name: ` and the failure's line (`CODE: reason` for a [`ClientError`]).
fn failed(name: &str, reason: &dyn std::fmt::Display) -> ExitCode {
    eprintln!("{name}: {reason}");
    let _ = std::io::stderr().flush();
    ExitCode::from(HOOK_FAILED)
}
