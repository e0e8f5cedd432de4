//! `cargo xtask bench session`: what Warden costs a whole session of a real harness, as a user
//! feels it (issue 36, item 5; issue 50, item 6).
//!
//! For each harness (the pinned Claude Code, Codex CLI, Gemini CLI and Copilot CLI, offline
//! against their scripted fake model APIs), the same session is run in interleaved rounds under
//! four hook set-ups (Copilot CLI without the confined one: Warden does not confine its calls,
//! H-68):
//!
//! - **no hook**: the project without any hook (what the harness costs by itself);
//! - **no-op hook**: the very hook entries `warden init` installs, each running `true` instead
//!   of Warden (the harness's own cost of running any hook);
//! - **Warden (service)**: `warden init … --server` and `warden serve`, the deployment the
//!   guide recommends, its client `warden-hook`, with `[confine] mode = "off"`;
//! - **Warden (service), confined**: the same with `[confine] mode = "required"`, so that each
//!   shell call runs under `warden-confine` (the one beside `warden` in `--bin`) or is denied;
//! - with `--baseline-bin DIR`, **Warden (service), the baseline build**: the second set-up with
//!   the binaries in `DIR` (another commit's, `cargo xtask bench session --baseline REV`), its
//!   project set up, sealed and served by that build; the Warden arm is then also held to
//!   1.03 × this one (issue 49, item 8).
//!
//! The session: the main agent spawns the planner and the planner makes `CALLS` shell calls,
//! `echo step-N`, one a turn — the planner's manifest grants the shell, and the client's own
//! settings allow the calls, so every call of the subagent is a governed, allowed decision (its
//! tool rules, its ancestors', a durable record), and each is checked to have run. The figure
//! is the wall time of the client's process, median over the rounds; the target is each
//! Warden session within 1.05 × the no-op session's. A round whose session did not finish, a
//! Warden arm that did not record every call as allowed, or a confined arm that did not record
//! every call as confined, fails the bench: a figure is only printed for sessions that did what
//! was asked.
//!
//! Usage: `session_bench --bin DIR [--baseline-bin DIR] [--calls N] [--rounds R] [--harness
//! claude-code|codex|gemini|copilot|all]`, where `DIR` holds the release `warden`, `warden-hook` and
//! `warden-confine`; the client binaries are found as the real-client suites find them.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use agentwarden_tests::claude_code::{
    self as cc, APPROVAL_REF as CC_APPROVAL, Block, FakeApi, Project, RunOptions, Script, Turn,
};
use agentwarden_tests::codex::{self, CodexProject, CodexRun, CodexTools, FakeResponses, HookRoute, Item};
use agentwarden_tests::copilot::{
    self, CopilotProject, CopilotRun, CopilotTools, FakeCopilotApi, HookRoute as CopilotRoute,
};
use agentwarden_tests::gemini::{
    self, FakeGemini, GeminiProject, GeminiRun, GeminiTools, HookRoute as GeminiRoute, Part,
};
use serde_json::{Value, json};

/// The target: each Warden session within this factor of the no-op hook's (issue 36, issue 50).
const TARGET: f64 = 1.05;

/// The Warden arm against the baseline build's: no more than 3 % slower (issue 49, item 8).
const BASELINE_TARGET: f64 = 1.03;

/// The most shell calls a Gemini CLI subagent makes in one session here: its subagents stop at
/// a turn limit of their own (a 40-call session ran 29), so its rows are of at most this many.
const GEMINI_MOST_CALLS: usize = 25;

/// The harnesses, as `--harness` names them.
const HARNESSES: [&str; 4] = ["claude-code", "codex", "gemini", "copilot"];

/// How a session's hooks are set up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Arm {
    NoHook,
    NoOp,
    Warden,
    Confined,
    /// Warden through the service of the baseline build (`--baseline-bin`), confinement off.
    Baseline,
}

impl Arm {
    const ALL: [Arm; 5] = [Arm::NoHook, Arm::NoOp, Arm::Warden, Arm::Confined, Arm::Baseline];

    fn label(self) -> &'static str {
        match self {
            Arm::NoHook => "no hook",
            Arm::NoOp => "no-op hook (`true`)",
            Arm::Warden => "Warden through the service",
            Arm::Confined => "Warden through the service, confined",
            Arm::Baseline => "Warden through the service, baseline build",
        }
    }

    /// The `[confine]` section of Warden's arms: off, or every shell call confined or denied.
    fn confine(self) -> Option<&'static str> {
        match self {
            Arm::NoHook | Arm::NoOp => None,
            Arm::Warden | Arm::Baseline => Some("mode = \"off\""),
            Arm::Confined => Some("mode = \"required\""),
        }
    }
}

struct Options {
    bin: PathBuf,
    baseline: Option<PathBuf>,
    calls: usize,
    rounds: usize,
    harnesses: Vec<&'static str>,
}

fn options() -> Result<Options, String> {
    let mut args = std::env::args().skip(1);
    let (mut bin, mut baseline) = (None, None);
    let (mut calls, mut rounds) = (40, 7);
    let mut harnesses = HARNESSES.to_vec();
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("`{arg}` needs a value"));
        match arg.as_str() {
            "--bin" => bin = Some(PathBuf::from(value()?)),
            "--baseline-bin" => baseline = Some(PathBuf::from(value()?)),
            "--calls" => calls = value()?.parse().map_err(|e| format!("--calls: {e}"))?,
            "--rounds" => rounds = value()?.parse().map_err(|e| format!("--rounds: {e}"))?,
            "--harness" => {
                let named = value()?;
                harnesses = match HARNESSES.iter().find(|h| **h == named) {
                    Some(harness) => vec![*harness],
                    None if named == "all" => HARNESSES.to_vec(),
                    None => return Err(format!("--harness `{named}`: {} or all", HARNESSES.join(", "))),
                }
            }
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    let bin = bin.ok_or("--bin DIR (the release warden, warden-hook and warden-confine) is required")?;
    if calls == 0 || rounds == 0 {
        return Err("--calls and --rounds must be at least 1".into());
    }
    Ok(Options { bin, baseline, calls, rounds, harnesses })
}

impl Options {
    /// The arms this run times: the baseline build's only when one is given.
    fn arms(&self) -> Vec<Arm> {
        Arm::ALL.into_iter().filter(|arm| *arm != Arm::Baseline || self.baseline.is_some()).collect()
    }

    /// The `warden` of `arm`: the baseline build's for its arm, else this build's.
    fn warden(&self, arm: Arm) -> PathBuf {
        match (&self.baseline, arm) {
            (Some(dir), Arm::Baseline) => dir.join("warden"),
            _ => self.bin.join("warden"),
        }
    }
}

fn main() -> ExitCode {
    let result = options().and_then(|o| {
        let mut ok = true;
        for harness in &o.harnesses {
            let (rows, calls) = match *harness {
                "claude-code" => (claude_code(&o)?, o.calls),
                "codex" => (codex_cli(&o)?, o.calls),
                "copilot" => (copilot_cli(&o)?, o.calls),
                _ => {
                    let calls = o.calls.min(GEMINI_MOST_CALLS);
                    (
                        gemini_cli(&Options {
                            bin: o.bin.clone(),
                            baseline: o.baseline.clone(),
                            calls,
                            rounds: o.rounds,
                            harnesses: Vec::new(),
                        })?,
                        calls,
                    )
                }
            };
            ok &= report(harness, calls, o.rounds, &rows);
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

/// The wall times of each arm, in the order of [`Options::arms`].
type Rows = Vec<(Arm, Vec<Duration>)>;

/// Runs `rounds` rounds, each of `arms` once a round, the arms' order rotating from round to
/// round.
fn interleaved(
    rounds: usize,
    arms: &[Arm],
    mut session: impl FnMut(Arm) -> Result<Duration, String>,
) -> Result<Rows, String> {
    let mut rows: Rows = arms.iter().map(|a| (*a, Vec::new())).collect();
    for round in 0..rounds {
        for k in 0..arms.len() {
            let index = (round + k) % arms.len();
            let arm = arms.get(index).copied().ok_or("arm index")?;
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

/// Prints the harness's rows; false when a Warden arm misses the target.
fn report(harness: &str, calls: usize, rounds: usize, rows: &Rows) -> bool {
    let of = |arm: Arm| rows.iter().find(|(a, _)| *a == arm).map(|(_, t)| median(t)).unwrap_or_default();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let per_call = |a: Duration, b: Duration| (ms(a) - ms(b)) / calls as f64;
    println!(
        "\nwhole session, {harness}: {calls} shell calls of a subagent, median of {rounds} interleaved rounds"
    );
    println!("{:<44} {:>10} {:>26}", "hooks", "session", "per call over the no-op hook");
    let noop = of(Arm::NoOp);
    let mut pass = true;
    for arm in rows.iter().map(|(arm, _)| *arm) {
        let took = of(arm);
        match arm {
            Arm::NoHook | Arm::NoOp => println!("{:<44} {:>7.0} ms", arm.label(), ms(took)),
            Arm::Warden | Arm::Confined | Arm::Baseline => {
                let ratio = took.as_secs_f64() / noop.as_secs_f64();
                let met = ratio <= TARGET;
                pass &= met;
                println!(
                    "{:<44} {:>7.0} ms {:>+23.2} ms   {ratio:.3} × no-op (target ≤ {TARGET:.2}) {}",
                    arm.label(),
                    ms(took),
                    per_call(took, noop),
                    if met { "PASS" } else { "MISS" }
                );
            }
        }
    }
    // The same session through the baseline build's service, when there is one: this build's
    // within 3 % of it (issue 49, item 8).
    if rows.iter().any(|(arm, _)| *arm == Arm::Baseline) {
        let ratio = of(Arm::Warden).as_secs_f64() / of(Arm::Baseline).as_secs_f64();
        let met = ratio <= BASELINE_TARGET;
        pass &= met;
        println!(
            "{:<44} {ratio:>10.3} × the baseline build (target ≤ {BASELINE_TARGET:.2}) {}",
            Arm::Warden.label(),
            if met { "PASS" } else { "MISS" }
        );
    }
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

/// How many allowed calls a `warden audit log --json` output records, and how many of them
/// ran confined (E-14).
fn allowed_calls(audit_json: &str) -> (usize, usize) {
    let allowed: Vec<Value> = audit_json
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e.get("event_type").and_then(Value::as_str) == Some("tool_call_authorized"))
        .filter(|e| e.pointer("/payload/authorization/decision").and_then(Value::as_str) == Some("allow"))
        .collect();
    let confined = allowed
        .iter()
        .filter(|e| e.pointer("/payload/confinement/outcome").and_then(Value::as_str) == Some("confined"))
        .count();
    (allowed.len(), confined)
}

/// A Warden arm's service and the log's counts before it started.
struct Served {
    arm: Arm,
    server: Server,
    before: (usize, usize),
}

impl Served {
    /// Starts the service of `arm`'s project, its log read first (the server holds the store).
    fn start(arm: Arm, warden: &Path, root: &Path, socket: &Path, log: &str) -> Result<Served, String> {
        let before = allowed_calls(log);
        Ok(Served { arm, server: Server::start(warden, root, socket)?, before })
    }

    /// Stops the service, then checks that its log recorded each of the `calls` as allowed,
    /// and as confined in the confined arm: `log` reads the log.
    fn check(self, calls: usize, log: impl Fn() -> String) -> Result<(), String> {
        let Served { arm, server, before } = self;
        drop(server);
        let (allowed, confined) = allowed_calls(&log());
        let (allowed, confined) = (allowed - before.0, confined - before.1);
        if allowed != calls {
            return Err(format!(
                "{}: Warden recorded {allowed} of the planner's {calls} calls as allowed",
                arm.label()
            ));
        }
        let expected = if arm == Arm::Confined { calls } else { 0 };
        if confined != expected {
            return Err(format!(
                "{}: {confined} of the {calls} calls ran confined, not {expected}",
                arm.label()
            ));
        }
        Ok(())
    }
}

/// `agentwarden.toml` at `root` with `[confine]` as `section` says.
fn set_confine(root: &Path, section: &str) -> Result<(), String> {
    let path = root.join("agentwarden.toml");
    let config = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    std::fs::write(&path, format!("{config}\n[confine]\n{section}\n"))
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// What the bench does with each client's project: the same verbs on three types.
trait Governed {
    fn root(&self) -> &Path;
    fn warden_ok(&self, args: &[&str]) -> String;
    fn git(&self, args: &[&str]) -> String;
}

/// The same three verbs, each the project type's own method of that name.
macro_rules! governed {
    ($($project:ty),*) => {$(
        impl Governed for $project {
            fn root(&self) -> &Path {
                &self.root
            }
            fn warden_ok(&self, args: &[&str]) -> String {
                <$project>::warden_ok(self, args)
            }
            fn git(&self, args: &[&str]) -> String {
                <$project>::git(self, args)
            }
        }
    )*};
}

governed!(Project, CodexProject, CopilotProject, GeminiProject);

/// A project already set up and sealed, with `[confine]` as `arm` says for Warden's arms,
/// committed and sealed again.
fn reconfined<P: Governed>(project: P, arm: Arm) -> Result<P, String> {
    if let Some(section) = arm.confine() {
        set_confine(project.root(), section)?;
        project.git(&["commit", "-qam", "the bench's configuration"]);
        project.warden_ok(&["seal", "--by", "alice"]);
    }
    Ok(project)
}

/// The project of `arm` among `projects`, one for each of `arms` in its order.
fn of_arm<'p, P>(projects: &'p [P], arms: &[Arm], arm: Arm) -> Result<&'p P, String> {
    arms.iter().position(|a| *a == arm).and_then(|i| projects.get(i)).ok_or_else(|| "no project".into())
}

/// Starts the service of each Warden arm among `arms` (one project each, in order) with that
/// arm's `warden`, at the socket `socket` names for it.
fn serve<P: Governed>(
    o: &Options,
    arms: &[Arm],
    projects: &[P],
    socket: impl Fn(&P) -> PathBuf,
) -> Result<Vec<Served>, String> {
    let mut served = Vec::new();
    for (arm, project) in arms.iter().zip(projects) {
        if arm.confine().is_some() {
            let log = project.warden_ok(&["audit", "log", "--json"]);
            served.push(Served::start(*arm, &o.warden(*arm), project.root(), &socket(project), &log)?);
        }
    }
    Ok(served)
}

/// Stops each service and checks its log ([`Served::check`]) for `calls` calls.
fn checked<P: Governed>(
    served: Vec<Served>,
    projects: &[P],
    arms: &[Arm],
    calls: usize,
) -> Result<(), String> {
    for served in served {
        let project = of_arm(projects, arms, served.arm)?;
        served.check(calls, || project.warden_ok(&["audit", "log", "--json"]))?;
    }
    Ok(())
}

/// The planner's `calls` shell commands, `echo step-N`.
fn steps(calls: usize) -> impl Iterator<Item = (usize, String)> {
    (0..calls).map(|i| (i, format!("echo step-{i}")))
}

// ----- Claude Code -------------------------------------------------------------------------

/// The example's planner offered the shell as well (its manifest grants `Bash`).
const CC_PLANNER_TOOLS: (&str, &str) =
    ("tools: Read, Grep, Glob, Task\n", "tools: Read, Grep, Glob, Task, Bash\n");

/// The tools the client offers; its own settings decide what they may do (H-61).
const CC_TOOLS: &str = "Agent,Bash,Read";

fn claude_code(o: &Options) -> Result<Rows, String> {
    let arms = o.arms();
    // Each arm's project as the README sets one up — `init` (with `--server SOCKET` for the
    // service), the seal, the approval — with the planner offered the shell, `[confine]` as the
    // arm says, and the client's own settings allowing the calls: Warden confines a call only
    // where those would run it as sent (H-61).
    let project = |arm: Arm| -> Result<Project, String> {
        let tools = cc::Tools::locate(o.warden(arm))?;
        let warden = tools.warden.to_string_lossy().into_owned();
        let project = Project::example(&tools);
        let planner = project.root.join(".claude/agents/planner.md");
        let text = std::fs::read_to_string(&planner).map_err(|e| e.to_string())?;
        if !text.contains(CC_PLANNER_TOOLS.0) {
            return Err(format!("{} does not offer `{}`", planner.display(), CC_PLANNER_TOOLS.0.trim()));
        }
        std::fs::write(&planner, text.replacen(CC_PLANNER_TOOLS.0, CC_PLANNER_TOOLS.1, 1))
            .map_err(|e| e.to_string())?;
        if let Some(section) = arm.confine() {
            set_confine(&project.root, section)?;
        }
        project.git(&["add", "-A"]);
        project.git(&["commit", "-q", "-m", "the bench's planner and configuration"]);
        let socket_arg = project.dir().join("warden.sock").to_string_lossy().into_owned();
        match arm {
            Arm::NoHook => {}
            Arm::NoOp => {
                project.warden_ok(&["init", "claude-code", "--warden", &warden]);
            }
            Arm::Warden | Arm::Confined | Arm::Baseline => {
                project.warden_ok(&["init", "claude-code", "--warden", &warden, "--server", &socket_arg]);
            }
        }
        let mut settings =
            if project.root.join(".claude/settings.json").is_file() { project.settings() } else { json!({}) };
        if arm == Arm::NoOp {
            replace_commands(&mut settings, "true");
        }
        settings["permissions"]["allow"] = json!(["Agent", "Bash(echo:*)", "Read"]);
        project.set_settings(&settings);
        project.trust();
        if arm != Arm::NoHook {
            project.warden_ok(&["seal", "--by", "alice"]);
            project.warden_ok(&["approve", "--ref", CC_APPROVAL, "--by", "alice"]);
        }
        Ok(project)
    };
    let projects: Vec<Project> = arms.iter().map(|arm| project(*arm)).collect::<Result<_, _>>()?;
    let socket = |p: &Project| p.dir().join("warden.sock");
    let served = serve(o, &arms, &projects, socket)?;
    let script = |calls: usize| {
        let turns = steps(calls)
            .map(|(i, command)| {
                Turn::one(Block::tool_with_id(
                    &format!("call_{i}"),
                    "Bash",
                    json!({"command": command, "description": "a step"}),
                ))
            })
            .collect();
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
    let rows = interleaved(o.rounds, &arms, |arm| {
        let project = of_arm(&projects, &arms, arm)?;
        let api = FakeApi::start(script(o.calls)).map_err(|e| format!("fake API: {e}"))?;
        let options = RunOptions {
            timeout: Duration::from_secs(300),
            settings_decide: Some(CC_TOOLS.into()),
            ..RunOptions::default()
        };
        let run = project.run(&api, "MAINTASK go", &options);
        if run.timed_out || run.exit != Some(0) {
            return Err(format!("claude -p did not finish (exit {:?}): {}", run.exit, run.stderr));
        }
        let results = api.tool_results();
        let ran = steps(o.calls)
            .filter(|(i, _)| {
                results.iter().any(|r| {
                    r.tool_use_id == format!("call_{i}")
                        && !r.is_error
                        && r.text.contains(&format!("step-{i}"))
                })
            })
            .count();
        if ran != o.calls {
            return Err(format!("{ran} of the planner's {} commands ran: {results:?}", o.calls));
        }
        Ok(run.elapsed)
    })?;
    checked(served, &projects, &arms, o.calls * o.rounds)?;
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
    let arms = o.arms();
    // The example, its planner's manifest granting `Bash(echo:*)`, set up by the arm's build;
    // Warden's arms with `[confine]` as the arm says, sealed again.
    let projects: Vec<CodexProject> = arms
        .iter()
        .map(|arm| reconfined(CodexProject::setup(&CodexTools::locate(o.warden(*arm))?), *arm))
        .collect::<Result<_, _>>()?;
    let socket = |p: &CodexProject| p.scratch().join("tmp/warden.sock");
    let served = serve(o, &arms, &projects, socket)?;
    let script = |calls: usize| {
        let turns = steps(calls).map(|(i, command)| Item::shell(&format!("call_{i}"), &command)).collect();
        codex::Script::new()
            .agent(
                "MAINTASK",
                vec![Item::spawn("call_spawn", "planner", "PLANTASK plan it"), Item::wait("call_wait")],
            )
            .agent("PLANTASK", turns)
    };
    let rows = interleaved(o.rounds, &arms, |arm| {
        let project = of_arm(&projects, &arms, arm)?;
        let route = match arm {
            Arm::NoHook => HookRoute::None,
            Arm::NoOp => HookRoute::Command("true".into()),
            Arm::Warden | Arm::Confined | Arm::Baseline => HookRoute::Server(socket(project)),
        };
        let api = FakeResponses::start(script(o.calls)).map_err(|e| format!("fake API: {e}"))?;
        let options = CodexRun { route, timeout: Duration::from_secs(300), ..CodexRun::default() };
        let run = project.run(&api, "MAINTASK go", &options);
        if run.exit != Some(0) {
            return Err(format!("codex exec did not finish (exit {:?}): {}", run.exit, run.stderr));
        }
        let ran = steps(o.calls)
            .filter(|(i, _)| {
                api.output_of(&format!("call_{i}")).is_some_and(|out| out.contains(&format!("step-{i}")))
            })
            .count();
        if ran != o.calls {
            return Err(format!("{ran} of the planner's {} commands ran: {}", o.calls, run.stderr));
        }
        Ok(run.elapsed)
    })?;
    checked(served, &projects, &arms, o.calls * o.rounds)?;
    Ok(rows)
}

// ----- Gemini CLI --------------------------------------------------------------------------

fn gemini_cli(o: &Options) -> Result<Rows, String> {
    let arms = o.arms();
    // The example, its planner's manifest granting `Bash(echo:*)`, set up by the arm's build;
    // Warden's arms with `[confine]` as the arm says, sealed again.
    let projects: Vec<GeminiProject> = arms
        .iter()
        .map(|arm| reconfined(GeminiProject::setup(&GeminiTools::locate(o.warden(*arm))?), *arm))
        .collect::<Result<_, _>>()?;
    let socket = |p: &GeminiProject| p.scratch().join("warden.sock");
    let served = serve(o, &arms, &projects, socket)?;
    let script = |calls: usize| {
        gemini::Script::new()
            .agent("MAINTASK", vec![Part::invoke("planner", "PLANTASK plan it")])
            .agent("PLANTASK", steps(calls).map(|(_, command)| Part::shell(&command)).collect())
    };
    let rows = interleaved(o.rounds, &arms, |arm| {
        let project = of_arm(&projects, &arms, arm)?;
        let route = match arm {
            Arm::NoHook => GeminiRoute::None,
            Arm::NoOp => GeminiRoute::Command("true".into()),
            Arm::Warden | Arm::Confined | Arm::Baseline => GeminiRoute::Server(socket(project)),
        };
        let api = FakeGemini::start(script(o.calls)).map_err(|e| format!("fake API: {e}"))?;
        let options = GeminiRun { route, timeout: Duration::from_secs(300), ..GeminiRun::default() };
        let run = project.run(&api, "MAINTASK go", &options);
        if run.exit != Some(0) {
            return Err(format!("gemini -p did not finish (exit {:?}): {}", run.exit, run.stderr));
        }
        let shown: Vec<String> = api.responses_to("run_shell_command").iter().map(Value::to_string).collect();
        // The responses in the order of the calls: the N-th shows `step-N`.
        let ran = steps(o.calls)
            .filter(|(i, _)| shown.get(*i).is_some_and(|out| out.contains(&format!("step-{i}"))))
            .count();
        if ran != o.calls {
            return Err(format!("{ran} of the planner's {} commands ran: {shown:?}", o.calls));
        }
        Ok(run.elapsed)
    })?;
    checked(served, &projects, &arms, o.calls * o.rounds)?;
    Ok(rows)
}

// ----- Copilot CLI -------------------------------------------------------------------------

fn copilot_cli(o: &Options) -> Result<Rows, String> {
    // Warden does not confine Copilot's calls (H-68): under `required` they would be denied. A
    // baseline build older than the Copilot integration has no arm here, said so.
    let baseline_knows = o.baseline.is_some()
        && Command::new(o.warden(Arm::Baseline))
            .args(["init", "copilot", "--help"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
    if o.baseline.is_some() && !baseline_knows {
        println!("\nthe baseline build has no `init copilot`: Copilot CLI's rows are without it");
    }
    let arms: Vec<Arm> = o
        .arms()
        .into_iter()
        .filter(|arm| *arm != Arm::Confined && (*arm != Arm::Baseline || baseline_knows))
        .collect();
    // The example, its planner's manifest granting `Bash(echo:*)`, set up by the arm's build.
    let projects: Vec<CopilotProject> = arms
        .iter()
        .map(|arm| reconfined(CopilotProject::setup(&CopilotTools::locate(o.warden(*arm))?), *arm))
        .collect::<Result<_, _>>()?;
    let socket = |p: &CopilotProject| p.scratch().join("warden.sock");
    let served = serve(o, &arms, &projects, socket)?;
    let script = |calls: usize| {
        copilot::Script::new()
            .agent("MAINTASK", vec![copilot::Turn::task("planner", "PLANTASK plan it")])
            .agent("PLANTASK", steps(calls).map(|(_, command)| copilot::Turn::shell(&command)).collect())
    };
    let rows = interleaved(o.rounds, &arms, |arm| {
        let project = of_arm(&projects, &arms, arm)?;
        let route = match arm {
            Arm::NoHook => CopilotRoute::None,
            Arm::NoOp => CopilotRoute::Command("true".into()),
            Arm::Warden | Arm::Confined | Arm::Baseline => CopilotRoute::Server(socket(project)),
        };
        let api = FakeCopilotApi::start(script(o.calls)).map_err(|e| format!("fake API: {e}"))?;
        let options = CopilotRun { route, timeout: Duration::from_secs(300), ..CopilotRun::default() };
        let run = project.run(&api, "MAINTASK go", &options);
        if run.exit != Some(0) {
            return Err(format!("copilot -p did not finish (exit {:?}): {}", run.exit, run.stderr));
        }
        let shown = api.tool_results();
        let ran = steps(o.calls)
            .filter(|(i, _)| {
                shown.iter().any(|out| out.lines().any(|line| line.trim() == format!("step-{i}")))
            })
            .count();
        if ran != o.calls {
            return Err(format!("{ran} of the planner's {} commands ran: {shown:?}", o.calls));
        }
        Ok(run.elapsed)
    })?;
    checked(served, &projects, &arms, o.calls * o.rounds)?;
    Ok(rows)
}
