//! A temp project governed by Agent Warden for Gemini CLI, and a bounded run of the real
//! `gemini -p` in it against a [`FakeGemini`].
//!
//! The project: a copy of `examples/gemini` (personas and agents under `agents/`, manifests in
//! Gemini's tool names, `okrs/` protected), in a fresh git repository; `warden init gemini`,
//! `warden seal` and `warden approve` run as a human would. Gemini's home (`GEMINI_CLI_HOME`,
//! also `HOME`) holds the user settings (API-key auth, folder trust off, so the project's
//! settings are read) and the user agents `worker`, `planner`, `coder` and `researcher` (a
//! project's own agents need an acknowledgement first). Every run: an environment built from
//! `PATH` alone, the fake as the API (`GOOGLE_GEMINI_BASE_URL`) and the proxy for every other
//! host, a process group of its own killed at the deadline and after it exits.

use crate::project::copy_dir;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::FakeGemini;
use crate::claude_code::{output_within, workspace_root};

/// The `@google/gemini-cli` version pinned in `tests/gemini/package.json`.
pub const PINNED_VERSION: &str = "0.61.0";
/// Names the `gemini` script to run (default: the one `cargo xtask gemini` installs).
pub const GEMINI_BIN_ENV: &str = "AGENTWARDEN_GEMINI_BIN";
/// The approval reference the setup grants.
pub const APPROVAL_REF: &str = "GATE-2026-11-26-040";
/// The model the runs ask for.
const MODEL: &str = "gemini-2.5-flash";
/// Every hook event a [`HookRoute::Command`] run hooks, each for every tool.
pub const EVERY_EVENT: [&str; 8] = [
    "SessionStart",
    "BeforeAgent",
    "BeforeToolSelection",
    "BeforeTool",
    "AfterTool",
    "AfterAgent",
    "PreCompress",
    "SessionEnd",
];
/// The user agents Gemini's home holds, each with its description.
const USER_AGENTS: [(&str, &str); 4] = [
    ("worker", "Does small tasks."),
    ("planner", "Plans the change."),
    ("coder", "Writes the code."),
    ("researcher", "Reads and reports."),
];

/// Where `cargo xtask gemini` installs the pinned package.
pub fn install_dir() -> PathBuf {
    workspace_root().join("target").join("gemini")
}

/// The CLI's script inside an install directory (`#!/usr/bin/env node`).
pub fn gemini_in(install_dir: &Path) -> PathBuf {
    install_dir.join("node_modules/@google/gemini-cli/bundle/gemini.js")
}

/// The two programs a run needs.
#[derive(Debug, Clone)]
pub struct GeminiTools {
    /// The real Gemini CLI's script.
    pub gemini: PathBuf,
    /// The `warden` binary the hooks name.
    pub warden: PathBuf,
}

impl GeminiTools {
    /// Finds both, or says how to get them.
    pub fn locate(warden: impl Into<PathBuf>) -> Result<GeminiTools, String> {
        let gemini =
            std::env::var_os(GEMINI_BIN_ENV).map_or_else(|| gemini_in(&install_dir()), PathBuf::from);
        if !gemini.is_file() {
            return Err(format!(
                "no Gemini CLI at `{}`: run `cargo xtask gemini-install` (or set {GEMINI_BIN_ENV})",
                gemini.display()
            ));
        }
        let warden = warden.into();
        if !warden.is_file() {
            return Err(format!("no warden binary at `{}`", warden.display()));
        }
        Ok(GeminiTools { gemini, warden })
    }
}

/// How the hooks reach Warden.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookRoute {
    /// `warden hook --harness gemini` decides in its own process (`warden init gemini`).
    Direct,
    /// `warden init gemini --server SOCKET`: the resident service's client.
    Server(PathBuf),
    /// No hook at all: the project's settings hold none.
    None,
    /// This command for every event of [`EVERY_EVENT`], every tool, instead of Warden: the
    /// protocol probes' recording hook (and a bench's no-op hook).
    Command(String),
    /// Warden's hooks as `warden init gemini` installs them, the binary's path replaced by one
    /// that does not exist (a moved or removed binary, H-57).
    BinaryMissing,
    /// Warden's hooks as `warden init gemini` installs them, then the configuration they name
    /// overwritten with text that is not TOML (H-57).
    ConfigUnreadable,
}

/// How to run `gemini -p`.
#[derive(Debug, Clone)]
pub struct GeminiRun {
    /// `AGENTWARDEN_ENABLE_SUBAGENTS=true` in Gemini's environment (and so its hooks').
    pub kill_switch: bool,
    /// The hard deadline.
    pub timeout: Duration,
    /// How the hooks reach Warden.
    pub route: HookRoute,
    /// Gemini's timeout for each hook of a [`HookRoute::Command`], in milliseconds.
    pub hook_timeout_ms: u64,
    /// The hook names the user's settings switch off (`hooksConfig.disabled`).
    pub disabled: Vec<String>,
    /// Hooks of the user's own settings, each an event and a command, for every tool (the
    /// agent's own hooks beside Warden's: issue 47).
    pub user_hooks: Vec<(String, String)>,
    /// A policy of the user's own, written to `~/.gemini/policies/user.toml` when not empty
    /// (`[[rule]]` tables: the user tier of Gemini's policy engine).
    pub policy: String,
    /// `--yolo` (default); `false` runs in Gemini's default approval mode.
    pub yolo: bool,
}

impl Default for GeminiRun {
    fn default() -> GeminiRun {
        GeminiRun {
            kill_switch: true,
            timeout: Duration::from_secs(90),
            route: HookRoute::Direct,
            hook_timeout_ms: 10_000,
            disabled: Vec::new(),
            user_hooks: Vec::new(),
            policy: String::new(),
            yolo: true,
        }
    }
}

/// What a run left.
#[derive(Debug)]
pub struct GeminiOutcome {
    /// The exit code (`None`: killed).
    pub exit: Option<i32>,
    /// The `-o json` output (`Null` when stdout held none).
    pub output: Value,
    /// Gemini's stderr.
    pub stderr: String,
    /// Wall time.
    pub elapsed: Duration,
}

/// A project governed for Gemini CLI (see the module's doc).
#[derive(Debug)]
pub struct GeminiProject {
    dir: tempfile::TempDir,
    /// The project's root (Gemini's working directory).
    pub root: PathBuf,
    /// The programs.
    pub tools: GeminiTools,
}

impl GeminiProject {
    /// A copy of `examples/gemini`, `warden init gemini`, committed, sealed and approved.
    pub fn setup(tools: &GeminiTools) -> GeminiProject {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().join("project");
        copy_dir(&workspace_root().join("examples/gemini"), &root);
        std::fs::create_dir_all(dir.path().join("tmp")).expect("create tmp");
        let agents = dir.path().join("home/.gemini/agents");
        std::fs::create_dir_all(&agents).expect("create the user agents' dir");
        for (name, description) in USER_AGENTS {
            let text = format!("---\nname: {name}\ndescription: {description}\n---\nYou are the {name}.\n");
            std::fs::write(agents.join(format!("{name}.md")), text).expect("write a user agent");
        }
        let project = GeminiProject { dir, root, tools: tools.clone() };
        // `init gemini` adds Gemini's files to the protected paths: before the seal covers them.
        project.init(&HookRoute::Direct, 10_000);
        project.git(&["init", "-q"]);
        project.git(&["add", "-A"]);
        project.git(&["commit", "-q", "-m", "base"]);
        project.warden_ok(&["seal", "--by", "alice"]);
        project.warden_ok(&["approve", "--ref", APPROVAL_REF, "--by", "alice"]);
        project
    }

    /// Gemini's home (`GEMINI_CLI_HOME`, `HOME`).
    pub fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    /// A scratch directory outside the project (for a probe's script and log).
    pub fn scratch(&self) -> PathBuf {
        self.dir.path().to_path_buf()
    }

    /// Runs git in the project; panics if it fails.
    pub fn git(&self, args: &[&str]) -> String {
        crate::project::git(&self.root, args)
    }

    /// Runs `warden ARGS` in the project as a human would.
    pub fn warden(&self, args: &[&str]) -> std::process::Output {
        crate::project::warden(&self.tools.warden, &self.root, args)
    }

    /// [`Self::warden`], which must succeed; returns stdout.
    pub fn warden_ok(&self, args: &[&str]) -> String {
        crate::project::warden_ok(&self.tools.warden, &self.root, args)
    }

    /// The audit events of one type.
    pub fn audit_of(&self, event_type: &str) -> Vec<Value> {
        crate::project::audit_of(&self.tools.warden, &self.root, event_type)
    }

    /// A file of the project, if it is there.
    pub fn read(&self, relative: &str) -> Option<String> {
        std::fs::read_to_string(self.root.join(relative)).ok()
    }

    /// The project's `.gemini/settings.json` for `route`: `warden init gemini` for
    /// [`HookRoute::Direct`] and [`HookRoute::Server`], no hooks for [`HookRoute::None`], and
    /// `command` on every event for [`HookRoute::Command`] (with Gemini's `timeout_ms`).
    pub fn init(&self, route: &HookRoute, timeout_ms: u64) {
        let settings = self.root.join(".gemini/settings.json");
        let warden = self.tools.warden.display().to_string();
        let root = self.root.display().to_string();
        match route {
            HookRoute::Direct => {
                let _ = std::fs::remove_file(&settings);
                self.warden_ok(&["init", "gemini", "--project", &root, "--warden", &warden]);
            }
            HookRoute::BinaryMissing => {
                self.init(&HookRoute::Direct, timeout_ms);
                let text = std::fs::read_to_string(&settings).expect("read the project's settings");
                assert!(text.contains(&warden), "the hooks name {warden}");
                std::fs::write(&settings, text.replace(&warden, "/nonexistent/agentwarden/warden"))
                    .expect("write the project's settings");
            }
            HookRoute::ConfigUnreadable => {
                self.init(&HookRoute::Direct, timeout_ms);
                std::fs::write(self.root.join("agentwarden.toml"), "[guardrails\n")
                    .expect("break the configuration");
            }
            HookRoute::Server(socket) => {
                let _ = std::fs::remove_file(&settings);
                let socket = socket.display().to_string();
                self.warden_ok(&[
                    "init",
                    "gemini",
                    "--project",
                    &root,
                    "--warden",
                    &warden,
                    "--server",
                    &socket,
                ]);
            }
            HookRoute::None => write_json(&settings, &json!({})),
            HookRoute::Command(command) => {
                let entry = json!([{"matcher": "*", "hooks": [
                    {"type": "command", "command": command, "timeout": timeout_ms}]}]);
                let hooks: serde_json::Map<String, Value> =
                    EVERY_EVENT.iter().map(|event| ((*event).to_owned(), entry.clone())).collect();
                write_json(&settings, &json!({"hooks": hooks}));
            }
        }
    }

    /// Runs `gemini -p PROMPT` in the project against `api`.
    pub fn run(&self, api: &FakeGemini, prompt: &str, options: &GeminiRun) -> GeminiOutcome {
        self.init(&options.route, options.hook_timeout_ms);
        let home = self.home();
        let mut user_hooks = serde_json::Map::new();
        for (event, command) in &options.user_hooks {
            let group = json!({"matcher": "*", "hooks": [{"type": "command", "name": "users-own", "command": command, "timeout": 10_000}]});
            if let Some(groups) = user_hooks.entry(event.clone()).or_insert_with(|| json!([])).as_array_mut()
            {
                groups.push(group);
            }
        }
        let user_settings = json!({"security": {"auth": {"selectedType": "gemini-api-key"},
                                                 "folderTrust": {"enabled": false}},
                                   "hooksConfig": {"disabled": options.disabled},
                                   "hooks": user_hooks});
        write_json(&home.join(".gemini/settings.json"), &user_settings);
        let policies = home.join(".gemini/policies");
        let _ = std::fs::remove_dir_all(&policies);
        if !options.policy.is_empty() {
            std::fs::create_dir_all(&policies).expect("create the policies' dir");
            std::fs::write(policies.join("user.toml"), &options.policy).expect("write the policy");
        }
        let url = api.url();
        let mut command = Command::new(&self.tools.gemini);
        command
            .args(["-p", prompt, "-m", MODEL, "-o", "json"])
            .args(if options.yolo { &["--yolo"][..] } else { &[][..] })
            .current_dir(&self.root)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into()))
            .env("HOME", &home)
            .env("GEMINI_CLI_HOME", &home)
            .env("TMPDIR", self.dir.path().join("tmp"))
            .env("SHELL", "/bin/sh")
            .env("GEMINI_API_KEY", "fake")
            .env("GOOGLE_GEMINI_BASE_URL", &url)
            .env("GEMINI_CLI_NO_RELAUNCH", "true")
            .env("HTTPS_PROXY", &url)
            .env("HTTP_PROXY", &url)
            .env("https_proxy", &url)
            .env("http_proxy", &url)
            .env("NO_PROXY", "127.0.0.1")
            .env("no_proxy", "127.0.0.1");
        if options.kill_switch {
            command.env("AGENTWARDEN_ENABLE_SUBAGENTS", "true");
        }
        let started = Instant::now();
        let out = output_within(&mut command, options.timeout);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let output = stdout
            .find('{')
            .and_then(|at| stdout.get(at..))
            .and_then(|json| serde_json::from_str(json).ok())
            .unwrap_or(Value::Null);
        GeminiOutcome {
            exit: out.status.code(),
            output,
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            elapsed: started.elapsed(),
        }
    }
}

fn write_json(path: &Path, value: &Value) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("create the settings' dir");
    }
    std::fs::write(path, serde_json::to_string_pretty(value).expect("settings are JSON"))
        .expect("write settings");
}
