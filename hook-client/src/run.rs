//! Asking the server: the deadline's watchdog (H-10), stdin, the configuration, one exchange,
//! the answer written as the calling harness reads it.
//!
//! H-57: on a stop's line (`--halt-on-failure`) every failure — the server's, the exchange's,
//! the configuration's, the deadline's, a panic, a command line it cannot read — is the
//! harness's halt (exit 0, `{"continue":false,"stopReason":…}`), never the exit 2 that the
//! harness would answer by prompting the model again without end.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::{Duration, Instant};

use agentwarden_domain::code::Code;
use agentwarden_domain::sessions::{HookAnswer, HookReason, MAX_HOOK_INPUT};
use agentwarden_protocol::hook_line::HOOK_FAILED;
use agentwarden_protocol::{ClientError, Request};

use crate::line::{Asked, HookLine, USAGE, parse};

/// Runs `warden-hook` with the process's arguments and returns its exit code.
pub fn main() -> ExitCode {
    // Read before the line is: a panic, or a line it cannot read, on a stop's line halts too.
    let halting = halting_line(std::env::args_os());
    let settle = Settle::new();
    panic_fails(settle.clone(), "warden-hook", halting);
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
            if !halting {
                eprintln!("{USAGE}");
            }
            return failed("warden-hook", &ClientError::new(Code::UsageInvalid, why.to_string()), halting);
        }
    };
    if line.server.is_none() {
        // The watchdog is not needed to say this; the answer is the same failure.
        let why = "no `--server` on the command line (only the installed line names the server, V-49); \
                   warden-hook only asks a server, `warden hook` decides without one";
        let why = ClientError::new(Code::ServerUnavailable, why);
        return failed("warden-hook", &why, line.halt_on_failure);
    }
    answer_through_server(&line, "warden-hook", &settle)
}

/// Asks the server `line` names and prints its answer; any failure is exit 2
/// with one line on stderr, prefixed by the binary's `name`. Synchronous: no runtime (V-5, V-6, V-29).
/// `settle` is the process's one claim on its answer, shared with its panic hook ([`Settle`]).
pub fn answer_through_server(line: &HookLine, name: &str, settle: &Settle) -> ExitCode {
    let started = Instant::now();
    let halt = line.halt_on_failure;
    if let Err(e) = watchdog(line.deadline_ms, settle.clone(), halt) {
        let why = format!("cannot start the deadline watchdog: {e}");
        return failed(name, &ClientError::new(Code::InternalError, why), halt);
    }
    let answer = match begin(line) {
        Ok((socket, uid, config, input)) => {
            let left = u64::try_from(started.elapsed().as_millis())
                .map_or(0, |spent| line.deadline_ms.saturating_sub(spent));
            ask(&socket, uid, config, input, line.harness, left)
        }
        Err(why) => HookAnswer::failed(why.code, why.reason),
    };
    // Whoever settles first decides: this answer, or the watchdog's exit 2 (H-16).
    if !settle.claim() {
        leave_to_watchdog()
    }
    print(&line.harness.print_on(&answer, name, halt), name)
}

/// Who writes a hook call's one answer: the hook's own thread (its answer, or its failure, or its
/// panic's) or the deadline's watchdog, whichever claims it first (H-16, H-57). The claim is
/// kept: a thread that claimed the answer and then failed to write it still writes its failure,
/// and every later writer of the process asks the same claim — the failure a command returns
/// before its answer, the panic hook — so that only the watchdog's claim makes one stand down
/// ([`leave_to_watchdog`]), and a claim of the hook's own never does (which would wait for an
/// end that nothing brings).
#[derive(Clone, Debug, Default)]
pub struct Settle(Arc<AtomicU8>);

impl Settle {
    /// Nobody has claimed the answer yet.
    const OPEN: u8 = 0;
    /// The hook's thread holds it.
    const HOOK: u8 = 1;
    /// The watchdog holds it: it is writing its failure and ending the process.
    const WATCHDOG: u8 = 2;

    /// An answer not yet claimed.
    pub fn new() -> Self {
        Self::default()
    }

    /// The hook's side claims the answer: `true` when it holds it (now, or since an earlier claim
    /// of its own), `false` when the watchdog claimed it first.
    pub fn claim(&self) -> bool {
        match self.0.compare_exchange(Self::OPEN, Self::HOOK, Ordering::SeqCst, Ordering::SeqCst) {
            Ok(_) => true,
            Err(held) => held == Self::HOOK,
        }
    }

    /// The watchdog claims the answer: `true` only when nobody had.
    fn claim_for_watchdog(&self) -> bool {
        self.0.compare_exchange(Self::OPEN, Self::WATCHDOG, Ordering::SeqCst, Ordering::SeqCst).is_ok()
    }
}

/// Installs the process's panic hook for a hook call: a panic is the call's failure (exit 2,
/// or a stop's halt), never Rust's 101, which a harness lets through; unless the watchdog
/// claimed the answer first, when the panicking thread writes nothing and waits for the
/// watchdog's end.
pub fn panic_fails(settle: Settle, name: &'static str, halt: bool) {
    std::panic::set_hook(Box::new(move |info| {
        if !settle.claim() {
            leave_to_watchdog()
        }
        let why = ClientError::new(Code::InternalError, info.to_string());
        std::process::exit(i32::from(exit_failed(name, &why.to_string(), halt)));
    }));
}

/// The watchdog settled first: it is writing its failure (exit 2, or a stop's halt) and ending
/// the process, so this thread writes nothing and waits for that end. Writing a second answer
/// would put two on the harness's pipes — a stop's halt twice is not the one JSON object the
/// harness reads, and a harness that cannot read a stop's answer lets the stop through (H-16,
/// H-57).
pub fn leave_to_watchdog() -> ! {
    loop {
        std::thread::park();
    }
}

/// Writes what the harness reads: the stdout line, then the stderr line; a stdout that cannot
/// be written is exit 2.
pub fn print(printed: &agentwarden_domain::sessions::Rendered, name: &str) -> ExitCode {
    let mut stdout = std::io::stdout().lock();
    if let Some(text) = &printed.stdout
        && let Err(e) = writeln!(stdout, "{text}").and_then(|()| stdout.flush())
    {
        // Not even a halt can be written: exit 2, which a stop's shell tail halts on (H-57).
        return failed(name, &format!("cannot write the answer: {e}"), false);
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
        .unwrap_or_else(|why| HookAnswer::failed(why.code, why.reason))
}

/// Starts the deadline's watchdog (H-10): unless the answer is settled first, it writes the
/// reason and ends the process with exit 2 when `deadline_ms` has passed — whatever the hook is
/// waiting for (the server, the store's lock, a slow file system, a hung read). H-16: whoever
/// claims `settle` first decides: the hook before it writes its answer, the watchdog before it
/// exits ([`Settle`]). `warden hook` deciding without a server starts the same one. With `halt`
/// (a stop's line, H-57) the deadline is the halt instead of exit 2.
pub fn watchdog(deadline_ms: u64, settle: Settle, halt: bool) -> std::io::Result<()> {
    let deadline = Duration::from_millis(deadline_ms);
    std::thread::Builder::new().name("hook-deadline".into()).spawn(move || {
        std::thread::sleep(deadline);
        if settle.claim_for_watchdog() {
            let why = format!(
                "no answer within --deadline-ms {deadline_ms} (the store busy or locked, or a slow file \
                 system)"
            );
            let why = ClientError::new(Code::DeadlinePassed, why);
            std::process::exit(i32::from(exit_failed("warden", &why.to_string(), halt)));
        }
    })?;
    Ok(())
}

/// Whether the command line `args` is a stop's, which halts on a failure (H-57): read without
/// the parser, so that a line it refuses, and a panic, halt too.
pub fn halting_line(args: impl IntoIterator<Item = std::ffi::OsString>) -> bool {
    args.into_iter().any(|arg| arg == agentwarden_protocol::halt::FLAG)
}

/// Says a failure as the hook's line asks and returns the exit code: with `halt` (a stop's
/// line, H-57) the halt on stdout, exit 0, else `name: WHY` on stderr, exit 2. A halt that
/// cannot be written is exit 2 too, which the stop's shell tail halts on.
pub fn exit_failed(name: &str, why: &str, halt: bool) -> u8 {
    if halt {
        let text = agentwarden_protocol::halt::render(&HookReason::new(why));
        let mut stdout = std::io::stdout().lock();
        if writeln!(stdout, "{text}").and_then(|()| stdout.flush()).is_ok() {
            return 0;
        }
    }
    eprintln!("{name}: {why}");
    let _ = std::io::stderr().flush();
    HOOK_FAILED
}

/// The failure said as the line asks ([`exit_failed`]), `CODE: reason` for a [`ClientError`].
fn failed(name: &str, reason: &dyn std::fmt::Display, halt: bool) -> ExitCode {
    ExitCode::from(exit_failed(name, &reason.to_string(), halt))
}

#[cfg(test)]
mod tests {
    use super::Settle;

    /// The hook's side keeps its claim (its failure after a failed answer is still written);
    /// the watchdog's claim stands only where nobody claimed, and then the hook's side stands
    /// down.
    #[test]
    fn the_first_claim_holds_and_the_hooks_own_claim_is_kept() {
        let settle = Settle::new();
        assert!(settle.claim(), "an open answer is the hook's");
        assert!(settle.claim(), "the hook's own claim is kept: its failure may still be written");
        assert!(!settle.claim_for_watchdog(), "the watchdog writes nothing once the hook claimed");
        let settle = Settle::new();
        assert!(settle.claim_for_watchdog(), "an open answer at the deadline is the watchdog's");
        assert!(!settle.claim(), "then the hook's side stands down");
        assert!(!settle.clone().claim(), "every clone shares the one claim");
        assert!(!settle.claim_for_watchdog(), "claimed once");
    }
}
