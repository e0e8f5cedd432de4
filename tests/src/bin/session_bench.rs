//! `cargo xtask bench session`: what Warden costs a whole session of a real harness, as a user
//! feels it (issue 36, item 5).
//!
//! For each harness (the pinned Claude Code and Codex CLI, offline against their scripted fake
//! model APIs), the same session is run in interleaved rounds under three hook set-ups:
//!
//! - **no hook**: the project without any hook (what the harness costs by itself);
//! - **no-op hook**: the very hook entries `warden init` installs, each running `true` instead
//!   of Warden (the harness's own cost of running any hook);
//! - **Warden (service)**: `warden init … --server` and `warden serve`, the deployment the
//!   guide recommends, its client `warden-hook`.
//!
//! The session: the main agent spawns the planner and the planner makes `CALLS` tool calls, one
//! a turn — with Claude Code a `Read` of `okrs/q4.md` (the example's planner is offered Read,
//! Grep, Glob and Task), with Codex a shell command `echo` (its manifest grants `Bash(echo:*)`)
//! — so every call of the subagent is a governed, allowed decision (its tool rules, its
//! ancestors', a durable record), and each is checked to have run. The figure is the wall time of the client's process,
//! median over the rounds; the target is Warden's session within 1.05 × the no-op session's.
//! A round whose session did not finish, or a Warden arm that did not record every call, fails
//! the bench: a figure is only printed for sessions that did what was asked.
//!
//! Usage: `session_bench --bin DIR [--calls N] [--rounds R] [--harness claude-code|codex|all]`,
//! where `DIR` holds the release `warden` and `warden-hook`; the client binaries are found as
//! the real-client suites find them (`cargo xtask claude-code-install`, `cargo xtask
//! codex-install`).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use agentwarden_tests::claude_code::{
    self as cc, APPROVAL_REF as CC_APPROVAL, Block, FakeApi, Project, RunOptions, Script, Turn,
};
use agentwarden_tests::codex::{self, CodexProject, CodexRun, CodexTools, FakeResponses, HookRoute, Item};
use serde_json::{Value, json};

/// The target: Warden's whole session within this factor of the no-op hook's (issue 36).
const TARGET: f64 = 1.05;

/// How a session's hooks are set up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Arm {
    NoHook,
    NoOp,
    Warden,
}

impl Arm {
    const ALL: [Arm; 3] = [Arm::NoHook, Arm::NoOp, Arm::Warden];

    fn label(self) -> &'static str {
        match self {
            Arm::NoHook => "no hook",
            Arm::NoOp => "no-op hook (`true`)",
            Arm::Warden => "Warden through the service",
        }
    }
}

struct Options {
    bin: PathBuf,
    calls: usize,
    rounds: usize,
    harnesses: Vec<&'static str>,
}

fn options() -> Result<Options, String> {
    let mut args = std::env::args().skip(1);
    let mut bin = None;
    let (mut calls, mut rounds) = (40, 7);
    let mut harnesses = vec!["claude-code", "codex"];
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("`{arg}` needs a value"));
        match arg.as_str() {
            "--bin" => bin = Some(PathBuf::from(value()?)),
            "--calls" => calls = value()?.parse().map_err(|e| format!("--calls: {e}"))?,
            "--rounds" => rounds = value()?.parse().map_err(|e| format!("--rounds: {e}"))?,
            "--harness" => {
                harnesses = match value()?.as_str() {
                    "claude-code" => vec!["claude-code"],
                    "codex" => vec!["codex"],
                    "all" => vec!["claude-code", "codex"],
                    other => return Err(format!("--harness `{other}`: claude-code, codex or all")),
                }
            }
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    let bin = bin.ok_or("--bin DIR (the release warden and warden-hook) is required")?;
    if calls == 0 || rounds == 0 {
        return Err("--calls and --rounds must be at least 1".into());
    }
    Ok(Options { bin, calls, rounds, harnesses })
}

fn main() -> ExitCode {
    let result = options().and_then(|o| {
        let mut ok = true;
        for harness in &o.harnesses {
            let rows = match *harness {
                "claude-code" => claude_code(&o),
                _ => codex_cli(&o),
            }?;
            ok &= report(harness, &o, &rows);
        }
        Ok(ok)
    });
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("session bench: {e}");
            ExitCode::from(2)
        }
    }
}

/// The wall times of each arm, in the order of [`Arm::ALL`].
type Rows = Vec<(Arm, Vec<Duration>)>;

/// Runs `rounds` rounds, each arm once a round, the arms' order rotating from round to round.
fn interleaved(
    rounds: usize,
    mut session: impl FnMut(Arm) -> Result<Duration, String>,
) -> Result<Rows, String> {
    let mut rows: Rows = Arm::ALL.iter().map(|a| (*a, Vec::new())).collect();
    for round in 0..rounds {
        for k in 0..Arm::ALL.len() {
            let index = (round + k) % Arm::ALL.len();
            let arm = Arm::ALL.get(index).copied().ok_or("arm index")?;
            let took = session(arm).map_err(|e| format!("round {round}, {}: {e}", arm.label()))?;
            if let Some((_, times)) = rows.get_mut(index) {
                times.push(took);
            }
        }
    }
    Ok(rows)
}

fn median(times: &[Duration]) -> Duration {
    let mut sorted = times.to_vec();
    sorted.sort();
    sorted.get(sorted.len() / 2).copied().unwrap_or_default()
}

/// Prints the harness's rows; false when Warden misses the target.
fn report(harness: &str, o: &Options, rows: &Rows) -> bool {
    let of = |arm: Arm| rows.iter().find(|(a, _)| *a == arm).map(|(_, t)| median(t)).unwrap_or_default();
    let (none, noop, warden) = (of(Arm::NoHook), of(Arm::NoOp), of(Arm::Warden));
    let per_call = |a: Duration, b: Duration| (a.as_secs_f64() - b.as_secs_f64()) * 1e3 / o.calls as f64;
    let ratio = warden.as_secs_f64() / noop.as_secs_f64();
    let pass = ratio <= TARGET;
    println!(
        "\nwhole session, {harness}: {} tool calls of a subagent, median of {} interleaved rounds",
        o.calls, o.rounds
    );
    println!("{:<44} {:>10} {:>22}", "hooks", "session", "per call over the row above");
    println!("{:<44} {:>7.0} ms", Arm::NoHook.label(), none.as_secs_f64() * 1e3);
    println!(
        "{:<44} {:>7.0} ms {:>+19.2} ms",
        Arm::NoOp.label(),
        noop.as_secs_f64() * 1e3,
        per_call(noop, none)
    );
    println!(
        "{:<44} {:>7.0} ms {:>+19.2} ms",
        Arm::Warden.label(),
        warden.as_secs_f64() * 1e3,
        per_call(warden, noop)
    );
    println!(
        "Warden / no-op session: {ratio:.3} (target ≤ {TARGET:.2})  {}",
        if pass { "PASS" } else { "MISS" }
    );
    pass
}

/// A running `warden serve`, stopped when dropped.
struct Server(Child);

impl Server {
    fn start(warden: &Path, root: &Path, socket: &Path) -> Result<Server, String> {
        let child = Command::new(warden)
            .arg("serve")
            .arg("--socket")
            .arg(socket)
            .current_dir(root)
            .env_remove("CLAUDECODE")
            .env_remove("CODEX_THREAD_ID")
            // The server's environment is the kill switch (V-4).
            .env("AGENTWARDEN_ENABLE_SUBAGENTS", "true")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start warden serve: {e}"))?;
        let mut server = Server(child);
        let started = Instant::now();
        while std::os::unix::net::UnixStream::connect(socket).is_err() {
            if started.elapsed() > Duration::from_secs(60) {
                return Err("warden serve did not answer within 60 s".into());
            }
            if let Ok(Some(status)) = server.0.try_wait() {
                return Err(format!("warden serve exited: {status}"));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(server)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = rustix::process::kill_process(
            rustix::process::Pid::from_child(&self.0),
            rustix::process::Signal::TERM,
        );
        let _ = self.0.wait();
    }
}

/// How many events of `event_type` a `warden audit log --json` output holds that record an
/// allowed decision.
fn count_of(audit_json: &str, event_type: &str) -> usize {
    audit_json
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e.get("event_type").and_then(Value::as_str) == Some(event_type))
        .filter(|e| e.pointer("/payload/authorization/decision").and_then(Value::as_str) == Some("allow"))
        .count()
}

// ----- Claude Code -------------------------------------------------------------------------

fn claude_code(o: &Options) -> Result<Rows, String> {
    let tools = cc::Tools::locate(o.bin.join("warden"))?;
    let warden = tools.warden.to_string_lossy().into_owned();
    // As the README sets a project up: `init` (with `--server SOCKET` for the service), the seal
    // and the approval.
    let set_up = |project: &Project, server: Option<&Path>| {
        let mut init = vec!["init", "claude-code", "--warden", &warden];
        let socket = server.map(|path| path.to_string_lossy().into_owned());
        if let Some(socket) = &socket {
            init.extend(["--server", socket]);
        }
        project.warden_ok(&init);
        project.warden_ok(&["seal", "--by", "alice"]);
        project.warden_ok(&["approve", "--ref", CC_APPROVAL, "--by", "alice"]);
    };
    let no_hook = Project::example(&tools);
    let noop = Project::example(&tools);
    set_up(&noop, None);
    let mut settings = noop.settings();
    replace_commands(&mut settings, "true");
    noop.set_settings(&settings);
    let served = Project::example(&tools);
    let socket = served.dir().join("warden.sock");
    set_up(&served, Some(&socket));
    // The server holds the store: the log is read before it starts and after it stopped.
    let before = count_of(&served.warden_ok(&["audit", "log", "--json"]), "tool_call_authorized");
    let server = Server::start(&tools.warden, &served.root, &socket)?;

    // The planner's definition offers it Read, Grep, Glob and Task: it reads a file N times.
    let script = |calls: usize, project: &Project| {
        let file = project.root.join("okrs/q4.md").to_string_lossy().into_owned();
        let turns = (0..calls).map(|_| Turn::one(Block::tool("Read", json!({"file_path": file})))).collect();
        Script::new()
            .agent(
                "MAINTASK",
                vec![Turn::one(Block::tool(
                    "Agent",
                    json!({"description": "Plan", "prompt": "PLANTASK plan the change",
                           "subagent_type": "planner", "run_in_background": false}),
                ))],
            )
            .agent("PLANTASK", turns)
    };
    let rows = interleaved(o.rounds, |arm| {
        let project = match arm {
            Arm::NoHook => &no_hook,
            Arm::NoOp => &noop,
            Arm::Warden => &served,
        };
        let api = FakeApi::start(script(o.calls, project)).map_err(|e| format!("fake API: {e}"))?;
        let options = RunOptions { timeout: Duration::from_secs(300), ..RunOptions::default() };
        let run = project.run(&api, "MAINTASK go", &options);
        if run.timed_out || run.exit != Some(0) {
            return Err(format!("claude -p did not finish (exit {:?}): {}", run.exit, run.stderr));
        }
        let results = api.tool_results();
        let read = results.iter().filter(|r| !r.is_error && r.text.contains("Q4 objectives")).count();
        if read != o.calls {
            return Err(format!("{read} of the planner's {} reads ran: {results:?}", o.calls));
        }
        Ok(run.elapsed)
    })?;
    drop(server);
    let log = served.warden_ok(&["audit", "log", "--json"]);
    let after = count_of(&log, "tool_call_authorized");
    if after - before != o.calls * o.rounds {
        return Err(format!(
            "Warden recorded {} of the planner's {} calls as allowed: the service did not allow them all\n{log}",
            after - before,
            o.calls * o.rounds
        ));
    }
    Ok(rows)
}

/// Every hook command of Claude Code's settings becomes `command`.
fn replace_commands(settings: &mut Value, command: &str) {
    let Some(events) = settings.get_mut("hooks").and_then(Value::as_object_mut) else { return };
    for groups in events.values_mut().filter_map(Value::as_array_mut) {
        for group in groups {
            for hook in group.get_mut("hooks").and_then(Value::as_array_mut).into_iter().flatten() {
                if let Some(slot) = hook.get_mut("command") {
                    *slot = command.into();
                }
            }
        }
    }
}

// ----- Codex CLI ---------------------------------------------------------------------------

fn codex_cli(o: &Options) -> Result<Rows, String> {
    let tools = CodexTools::locate(o.bin.join("warden"))?;
    let no_hook = CodexProject::setup(&tools);
    let noop = CodexProject::setup(&tools);
    let served = CodexProject::setup(&tools);
    let socket = served.root.parent().ok_or("project has a parent")?.join("tmp/warden.sock");
    // The server holds the store: the log is read before it starts and after it stopped.
    let count =
        |p: &CodexProject| count_of(&p.warden_ok(&["audit", "log", "--json"]), "tool_call_authorized");
    let before = count(&served);
    let server = Server::start(&tools.warden, &served.root, &socket)?;

    let script = |calls: usize| {
        // The planner's manifest grants `Bash(echo:*)`: every call is an allowed, governed one.
        let turns =
            (0..calls).map(|i| Item::shell(&format!("call_{i}"), &format!("echo step-{i}"))).collect();
        codex::Script::new()
            .agent(
                "MAINTASK",
                vec![Item::spawn("call_spawn", "planner", "PLANTASK plan it"), Item::wait("call_wait")],
            )
            .agent("PLANTASK", turns)
    };
    let rows = interleaved(o.rounds, |arm| {
        let (project, route) = match arm {
            Arm::NoHook => (&no_hook, HookRoute::None),
            Arm::NoOp => (&noop, HookRoute::Command("true".into())),
            Arm::Warden => (&served, HookRoute::Server(socket.clone())),
        };
        let api = FakeResponses::start(script(o.calls)).map_err(|e| format!("fake API: {e}"))?;
        let options = CodexRun { route, timeout: Duration::from_secs(300), ..CodexRun::default() };
        let run = project.run(&api, "MAINTASK go", &options);
        if run.exit != Some(0) {
            return Err(format!("codex exec did not finish (exit {:?}): {}", run.exit, run.stderr));
        }
        let ran = (0..o.calls)
            .filter(|i| {
                api.output_of(&format!("call_{i}")).is_some_and(|out| out.contains(&format!("step-{i}")))
            })
            .count();
        if ran != o.calls {
            return Err(format!("{ran} of the planner's {} commands ran: {}", o.calls, run.stderr));
        }
        Ok(run.elapsed)
    })?;
    drop(server);
    let after = count(&served);
    if after - before != o.calls * o.rounds {
        return Err(format!(
            "Warden recorded {} of the planner's {} calls as allowed: the service did not allow them all",
            after - before,
            o.calls * o.rounds
        ));
    }
    Ok(rows)
}
