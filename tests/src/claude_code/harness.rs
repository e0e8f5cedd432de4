//! A temp project set up the way README.md's "Guard Claude Code" says, and a bounded run of
//! the real `claude -p` in it against a [`FakeApi`].
//!
//! Every run: a fresh `HOME` and `TMPDIR` inside the project's temp dir, an environment built
//! from nothing but `PATH` (so no key, no proxy, no `CLAUDECODE` of an enclosing session
//! leaks in), the fake as the API and as the proxy for every other host, the process in a process
//! group of its own, killed as a group (hooks, shells and all) at the deadline and again when it
//! has exited, so nothing it started outlives the test.

use crate::project::copy_dir;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::FakeApi;

/// The `@anthropic-ai/claude-code` version pinned in `tests/claude-code/package.json`.
pub const PINNED_VERSION: &str = "2.1.330";
/// Names the `claude` binary to run (default: the one `cargo xtask claude-code` installs).
pub const CLAUDE_BIN_ENV: &str = "AGENTWARDEN_CLAUDE_BIN";
/// Names the `warden` binary to install as the hook (default: the suite's own build of it).
pub const WARDEN_BIN_ENV: &str = "AGENTWARDEN_WARDEN_BIN";
/// The approval reference the README's setup grants.
pub const APPROVAL_REF: &str = "GATE-2026-11-22-001";
/// The tools the runs allow (`--allowedTools`).
pub const ALLOWED_TOOLS: &str = "Agent,Read,Write,Edit,Bash,SendMessage,Workflow";

/// The workspace root.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().map_or_else(|| PathBuf::from(".."), Path::to_path_buf)
}

/// Where `cargo xtask claude-code` installs the pinned package (`npm ci` into it).
pub fn install_dir() -> PathBuf {
    workspace_root().join("target").join("claude-code")
}

/// The native binary inside an install directory (linux x64; postinstall is not needed).
pub fn claude_in(install_dir: &Path) -> PathBuf {
    install_dir.join("node_modules/@anthropic-ai/claude-code-linux-x64/claude")
}

/// The two binaries a run needs.
#[derive(Debug, Clone)]
pub struct Tools {
    /// The real Claude Code CLI.
    pub claude: PathBuf,
    /// The `warden` binary the hook entries name.
    pub warden: PathBuf,
}

impl Tools {
    /// Finds both binaries, or says how to get them. `warden` is the binary the tests were
    /// built with (`env!("CARGO_BIN_EXE_warden-under-test")`), unless `AGENTWARDEN_WARDEN_BIN`
    /// names another.
    pub fn locate(warden: impl Into<PathBuf>) -> Result<Self, String> {
        let claude =
            std::env::var_os(CLAUDE_BIN_ENV).map_or_else(|| claude_in(&install_dir()), PathBuf::from);
        if !claude.is_file() {
            return Err(format!(
                "no Claude Code binary at `{}`: run `cargo xtask claude-code-install` (or set {CLAUDE_BIN_ENV})",
                claude.display()
            ));
        }
        let warden = std::env::var_os(WARDEN_BIN_ENV).map_or_else(|| warden.into(), PathBuf::from);
        if !warden.is_file() {
            return Err(format!("no warden binary at `{}`", warden.display()));
        }
        Ok(Self { claude, warden })
    }
}

/// How to run `claude -p`.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// `AGENTWARDEN_ENABLE_SUBAGENTS=true` in Claude Code's environment (and so its hooks').
    pub kill_switch: bool,
    /// `--allowedTools`.
    pub allowed_tools: String,
    /// More variables for Claude Code's environment.
    pub env: Vec<(String, String)>,
    /// The hard deadline: the whole process group is killed then.
    pub timeout: Duration,
    /// A directory that appears, for this run only, as `/etc/claude-code` (managed settings:
    /// `managed-settings.json`, `managed-settings.d/*.json`). The run then happens in a private
    /// mount namespace with an overlay on `/etc` (`unshare`; root only): the machine's `/etc`
    /// is never written.
    pub managed_settings: Option<PathBuf>,
    /// `Some(TOOLS)`: `--tools TOOLS` instead of `--permission-mode acceptEdits
    /// --allowedTools`, so the client offers exactly these tools and only the settings files
    /// decide what they may do (with [`Project::trust`], the project's `permissions` apply).
    pub settings_decide: Option<String>,
    /// `Some(ARGV)`: run this program instead of `claude -p PROMPT …` (a harness built on the
    /// Claude Agent SDK, which starts its own Claude Code), in the same environment, directory,
    /// namespace and deadline; the prompt is then the program's business.
    pub program: Option<Vec<std::ffi::OsString>>,
}

impl Default for RunOptions {
    fn default() -> Self {
        Self {
            kill_switch: true,
            allowed_tools: ALLOWED_TOOLS.to_owned(),
            env: Vec::new(),
            timeout: Duration::from_secs(60),
            managed_settings: None,
            settings_decide: None,
            program: None,
        }
    }
}

impl RunOptions {
    /// The defaults with the kill switch unset.
    pub fn kill_switch_unset() -> Self {
        Self { kill_switch: false, ..Self::default() }
    }
}

/// What a run of `claude -p` left.
#[derive(Debug)]
pub struct Run {
    /// The exit code (`None`: killed, or by a signal).
    pub exit: Option<i32>,
    /// Killed at the deadline.
    pub timed_out: bool,
    /// The `--output-format stream-json --verbose` events, one per line.
    pub events: Vec<Value>,
    /// Claude Code's stderr.
    pub stderr: String,
    /// Wall time.
    pub elapsed: Duration,
}

impl Run {
    /// The session id (from the `init` event).
    pub fn session_id(&self) -> Option<String> {
        self.events
            .iter()
            .find(|e| e.get("subtype").and_then(Value::as_str) == Some("init"))
            .and_then(|e| e.get("session_id"))
            .and_then(Value::as_str)
            .map(str::to_owned)
    }

    /// Panics, with what the client said, unless the run ended by itself with exit 0.
    pub fn assert_finished(&self) {
        assert!(
            !self.timed_out && self.exit == Some(0),
            "claude -p did not finish cleanly (exit {:?}, timed out {}, {:?}); stderr:\n{}",
            self.exit,
            self.timed_out,
            self.elapsed,
            self.stderr
        );
    }
}

/// A copy of `examples/claude-code` in a fresh git repository in a temp dir, with its own
/// `HOME` and `TMPDIR` for Claude Code.
#[derive(Debug)]
pub struct Project {
    dir: tempfile::TempDir,
    /// The project's root (Claude Code's working directory).
    pub root: PathBuf,
    /// The binaries.
    pub tools: Tools,
}

impl Project {
    /// The example copied, `git init`, everything committed (README: "reverts restore what git
    /// HEAD holds").
    pub fn example(tools: &Tools) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().join("project");
        copy_dir(&workspace_root().join("examples/claude-code"), &root);
        for sub in ["home", "tmp"] {
            std::fs::create_dir_all(dir.path().join(sub)).expect("create home and tmp");
        }
        let project = Self { dir, root, tools: tools.clone() };
        project.git(&["init", "-q"]);
        project.git(&["add", "-A"]);
        project.git(&["commit", "-q", "-m", "base"]);
        project
    }

    /// The example set up as the README says: `warden init claude-code` (naming this
    /// `warden` by absolute path), `warden seal --by alice`, `warden approve --ref
    /// GATE-2026-11-22-001 --by alice`.
    pub fn readme_setup(tools: &Tools) -> Self {
        let project = Self::example(tools);
        let warden = project.tools.warden.to_string_lossy().into_owned();
        project.warden_ok(&["init", "claude-code", "--warden", &warden]);
        project.warden_ok(&["seal", "--by", "alice"]);
        project.warden_ok(&["approve", "--ref", APPROVAL_REF, "--by", "alice"]);
        project
    }

    /// The temp dir that holds the project, `home/` and `tmp/`.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// Runs git in the project with a fixed identity; panics if it fails; returns stdout.
    pub fn git(&self, args: &[&str]) -> String {
        crate::project::git(&self.root, args)
    }

    /// Runs `warden ARGS` in the project as a human would (no `CLAUDECODE`).
    pub fn warden(&self, args: &[&str]) -> std::process::Output {
        crate::project::warden(&self.tools.warden, &self.root, args)
    }

    /// [`Self::warden`], which must succeed; returns stdout.
    pub fn warden_ok(&self, args: &[&str]) -> String {
        crate::project::warden_ok(&self.tools.warden, &self.root, args)
    }

    /// The audit log, one envelope per event (`warden audit log --json`).
    pub fn audit(&self) -> Vec<Value> {
        self.warden_ok(&["audit", "log", "--json"])
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).expect("audit log --json prints JSON lines"))
            .collect()
    }

    /// The audit events of one type.
    pub fn audit_of(&self, event_type: &str) -> Vec<Value> {
        self.audit()
            .into_iter()
            .filter(|e| e.get("event_type").and_then(Value::as_str) == Some(event_type))
            .collect()
    }

    /// `.claude/settings.json`.
    pub fn settings(&self) -> Value {
        let text = std::fs::read_to_string(self.root.join(".claude/settings.json")).expect("read settings");
        serde_json::from_str(&text).expect("settings are JSON")
    }

    /// Replaces `.claude/settings.json`.
    pub fn set_settings(&self, settings: &Value) {
        let text = serde_json::to_string_pretty(settings).expect("serialise settings");
        std::fs::write(self.root.join(".claude/settings.json"), text).expect("write settings");
    }

    /// Marks the project trusted in the run's fresh `HOME` (`.claude.json`), as accepting the
    /// trust dialog would: without it Claude Code ignores the project's `permissions.allow`.
    pub fn trust(&self) {
        let claude_json = serde_json::json!({"projects": {
            self.root.to_string_lossy(): {"hasTrustDialogAccepted": true}
        }});
        std::fs::write(self.dir().join("home/.claude.json"), claude_json.to_string())
            .expect("write .claude.json");
    }

    /// Reads a file of the project, `None` when it does not exist.
    pub fn read(&self, relative: &str) -> Option<String> {
        std::fs::read_to_string(self.root.join(relative)).ok()
    }

    /// Runs `claude -p PROMPT` in the project against `api`, bounded by `options.timeout`.
    pub fn run(&self, api: &FakeApi, prompt: &str, options: &RunOptions) -> Run {
        let stdout_path = self.dir().join("claude.stdout.jsonl");
        let stderr_path = self.dir().join("claude.stderr.txt");
        let stdout = std::fs::File::create(&stdout_path).expect("create stdout file");
        let stderr = std::fs::File::create(&stderr_path).expect("create stderr file");
        let url = api.url();
        let program = match &options.program {
            Some(argv) => argv.first().map_or_else(|| self.tools.claude.clone(), PathBuf::from),
            None => self.tools.claude.clone(),
        };
        let mut command = match &options.managed_settings {
            None => Command::new(&program),
            Some(managed) => self.in_managed_namespace(managed, &program),
        };
        match &options.program {
            Some(argv) => {
                command.args(argv.iter().skip(1));
            }
            None => {
                command.args(["-p", prompt, "--output-format", "stream-json", "--verbose"]);
                match &options.settings_decide {
                    Some(tools) => command.args(["--tools", tools]),
                    None => command.args([
                        "--permission-mode",
                        "acceptEdits",
                        "--allowedTools",
                        &options.allowed_tools,
                    ]),
                };
            }
        }
        command
            .current_dir(&self.root)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into()))
            .env("HOME", self.dir().join("home"))
            .env("TMPDIR", self.dir().join("tmp"))
            .env("ANTHROPIC_BASE_URL", &url)
            .env("ANTHROPIC_API_KEY", "dummy")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("DISABLE_TELEMETRY", "1")
            .env("DISABLE_AUTOUPDATER", "1")
            .env("DISABLE_ERROR_REPORTING", "1")
            .env("HTTPS_PROXY", &url)
            .env("HTTP_PROXY", &url)
            .env("https_proxy", &url)
            .env("http_proxy", &url)
            .env("NO_PROXY", "127.0.0.1")
            .env("no_proxy", "127.0.0.1")
            .stdin(Stdio::null())
            .stdout(stdout)
            .stderr(stderr);
        if options.kill_switch {
            command.env("AGENTWARDEN_ENABLE_SUBAGENTS", "true");
        }
        command.envs(options.env.iter().map(|(k, v)| (k, v)));
        std::os::unix::process::CommandExt::process_group(&mut command, 0);

        let started = Instant::now();
        let mut child = command.spawn().expect("start claude");
        let group = rustix::process::Pid::from_child(&child);
        let mut timed_out = false;
        let status = loop {
            if let Some(status) = child.try_wait().expect("wait for claude") {
                break Some(status);
            }
            if started.elapsed() >= options.timeout {
                timed_out = true;
                kill_group(group);
                break child.wait().ok();
            }
            std::thread::sleep(Duration::from_millis(25));
        };
        // Whatever it left behind (a background shell, a hook) goes with it.
        kill_group(group);
        let elapsed = started.elapsed();
        let events = std::fs::read_to_string(&stdout_path)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        let stderr = std::fs::read_to_string(&stderr_path).unwrap_or_default();
        Run { exit: status.and_then(|s| s.code()), timed_out, events, stderr, elapsed }
    }
}

impl Project {
    /// `unshare` into a private mount namespace with `/etc/claude-code` = a copy of `managed`,
    /// then `exec` `program` ([`crate::project::in_managed_namespace`]).
    fn in_managed_namespace(&self, managed: &Path, program: &Path) -> Command {
        crate::project::in_managed_namespace(self.dir(), "claude-code", managed, program)
    }
}

use crate::project::kill_group;
pub use crate::project::{HELPER_TIMEOUT, output_within};
