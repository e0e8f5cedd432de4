//! A temp project governed by Agent Warden for Copilot CLI, and a bounded run of the real
//! `copilot -p` in it against a [`FakeCopilotApi`].
//!
//! The project: a copy of `examples/copilot` (personas and agents under `agents/`, manifests,
//! `okrs/` protected), in a fresh git repository; `warden init copilot` (the project's
//! `.github/hooks/agentwarden.json`), `warden seal` and `warden approve` run as a human would.
//! Copilot's home (`HOME`) trusts the project's folder, so the project's hooks load. Every run:
//! an environment built from `PATH` alone, the fake as the provider
//! (`COPILOT_PROVIDER_BASE_URL`) and the proxy for every other host, the unpacked client shared
//! under the install directory (`XDG_CACHE_HOME`), a process group of its own killed at the
//! deadline and after it exits.

use crate::project::copy_dir;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::json;

use super::{FakeCopilotApi, MODEL};
use crate::claude_code::{output_within, workspace_root};

/// The `@github/copilot` version pinned in `tests/copilot/package.json`.
pub const PINNED_VERSION: &str = "1.0.102";
/// Names the `copilot` binary to run (default: the one `cargo xtask copilot` installs).
pub const COPILOT_BIN_ENV: &str = "AGENTWARDEN_COPILOT_BIN";
/// The approval reference the setup grants.
pub const APPROVAL_REF: &str = "GATE-2026-11-28-051";
/// The user's custom agents Copilot's home holds, each with its description.
const USER_AGENTS: [(&str, &str); 3] =
    [("planner", "Plans the change."), ("coder", "Writes the code."), ("researcher", "Reads and reports.")];
/// The provider's key: long and distinctive, since Copilot masks its value in everything it
/// prints.
const API_KEY: &str = "agentwarden-copilot-suite-key-0123456789abcdef";

/// Where `cargo xtask copilot` installs the pinned package.
pub fn install_dir() -> PathBuf {
    workspace_root().join("target").join("copilot")
}

/// The native binary inside an install directory.
pub fn copilot_in(install_dir: &Path) -> PathBuf {
    install_dir.join("node_modules/@github/copilot-linux-x64/copilot")
}

/// The two programs a run needs.
#[derive(Debug, Clone)]
pub struct CopilotTools {
    /// The real Copilot CLI's binary.
    pub copilot: PathBuf,
    /// The `warden` binary the hooks name.
    pub warden: PathBuf,
}

impl CopilotTools {
    /// Finds both, or says how to get them.
    pub fn locate(warden: impl Into<PathBuf>) -> Result<CopilotTools, String> {
        let copilot =
            std::env::var_os(COPILOT_BIN_ENV).map_or_else(|| copilot_in(&install_dir()), PathBuf::from);
        if !copilot.is_file() {
            return Err(format!(
                "no Copilot CLI at `{}`: run `cargo xtask copilot-install` (or set {COPILOT_BIN_ENV})",
                copilot.display()
            ));
        }
        let warden = warden.into();
        if !warden.is_file() {
            return Err(format!("no warden binary at `{}`", warden.display()));
        }
        Ok(CopilotTools { copilot, warden })
    }
}

/// How the hooks reach Warden.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookRoute {
    /// `warden hook --harness copilot` decides in its own process (`warden init copilot`).
    Direct,
    /// No hook at all.
    None,
    /// This command for every event Warden's file names, instead of Warden's line: a hook that
    /// fails, or answers garbage.
    Command(String),
    /// This command for every event, with this `timeoutSec`.
    Timed(String, u64),
    /// Warden's hooks as `warden init copilot --server SOCKET` installs them: the thin client
    /// `warden-hook` asking the resident service at this socket.
    Server(PathBuf),
    /// Warden's hooks as `warden init copilot` installs them, the binary's path replaced by this
    /// program (one that does not exist, one that crashes or prints garbage): the line's own
    /// tail must still refuse.
    Binary(String),
}

/// How to run `copilot -p`.
#[derive(Debug, Clone)]
pub struct CopilotRun {
    /// `AGENTWARDEN_ENABLE_SUBAGENTS=true` in Copilot's environment (and so its hooks').
    pub kill_switch: bool,
    /// The hard deadline.
    pub timeout: Duration,
    /// How the hooks reach Warden.
    pub route: HookRoute,
    /// A directory that appears, for this run only, as `/etc/github-copilot` (Copilot's managed
    /// settings). The run then happens in a private mount namespace with an overlay on `/etc`
    /// (`unshare`; root only): the machine's `/etc` is never written.
    pub managed: Option<PathBuf>,
}

impl Default for CopilotRun {
    fn default() -> CopilotRun {
        CopilotRun {
            kill_switch: true,
            timeout: Duration::from_secs(120),
            route: HookRoute::Direct,
            managed: None,
        }
    }
}

/// What a run left.
#[derive(Debug)]
pub struct CopilotOutcome {
    /// The exit code (`None`: killed).
    pub exit: Option<i32>,
    /// Copilot's stdout.
    pub stdout: String,
    /// Copilot's stderr.
    pub stderr: String,
    /// Wall time.
    pub elapsed: Duration,
}

/// A project governed for Copilot CLI (see the module's doc).
#[derive(Debug)]
pub struct CopilotProject {
    dir: tempfile::TempDir,
    /// The project's root (Copilot's working directory).
    pub root: PathBuf,
    /// The programs.
    pub tools: CopilotTools,
}

impl CopilotProject {
    /// A copy of `examples/copilot`, `warden init copilot`, committed, sealed and approved.
    pub fn setup(tools: &CopilotTools) -> CopilotProject {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().join("project");
        copy_dir(&workspace_root().join("examples/copilot"), &root);
        std::fs::create_dir_all(dir.path().join("tmp")).expect("create tmp");
        let home = dir.path().join("home/.copilot");
        std::fs::create_dir_all(&home).expect("create Copilot's home");
        let config = json!({"trustedFolders": [root.display().to_string()]});
        std::fs::write(home.join("config.json"), config.to_string()).expect("trust the project");
        // Copilot's `task` spawns only its built-in types and the custom agents it finds.
        std::fs::create_dir_all(home.join("agents")).expect("create the user agents' dir");
        for (name, description) in USER_AGENTS {
            let text = format!("---\nname: {name}\ndescription: {description}\n---\nYou are the {name}.\n");
            std::fs::write(home.join("agents").join(format!("{name}.agent.md")), text)
                .expect("write a user agent");
        }
        let project = CopilotProject { dir, root, tools: tools.clone() };
        // `init copilot` adds Copilot's files to the protected paths: before the seal covers them.
        project.init(&HookRoute::Direct);
        project.git(&["init", "-q"]);
        project.git(&["add", "-A"]);
        project.git(&["commit", "-q", "-m", "base"]);
        project.warden_ok(&["seal", "--by", "alice"]);
        project.warden_ok(&["approve", "--ref", APPROVAL_REF, "--by", "alice"]);
        project
    }

    /// Copilot's `HOME`.
    pub fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    /// A scratch directory outside the project.
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
    pub fn audit_of(&self, event_type: &str) -> Vec<serde_json::Value> {
        crate::project::audit_of(&self.tools.warden, &self.root, event_type)
    }

    /// A file of the project, if it is there.
    pub fn read(&self, relative: &str) -> Option<String> {
        std::fs::read_to_string(self.root.join(relative)).ok()
    }

    /// The line `warden init copilot` installs for `PreToolUse` (direct).
    pub fn installed_line(&self) -> String {
        self.init(&HookRoute::Direct);
        let text = std::fs::read_to_string(self.root.join(".github/hooks/agentwarden.json"))
            .expect("read the hook file");
        let hooks: serde_json::Value = serde_json::from_str(&text).expect("the hook file is JSON");
        hooks["hooks"]["PreToolUse"][0]["bash"].as_str().expect("a PreToolUse line").to_owned()
    }

    /// The project's `.github/hooks/agentwarden.json` for `route`.
    pub fn init(&self, route: &HookRoute) {
        let file = self.root.join(".github/hooks/agentwarden.json");
        let warden = self.tools.warden.display().to_string();
        let root = self.root.display().to_string();
        match route {
            HookRoute::Direct => {
                let _ = std::fs::remove_file(&file);
                self.warden_ok(&["init", "copilot", "--project", &root, "--warden", &warden]);
            }
            HookRoute::Binary(program) => {
                self.init(&HookRoute::Direct);
                let text = std::fs::read_to_string(&file).expect("read the hook file");
                assert!(text.contains(&warden), "the hooks name {warden}");
                std::fs::write(&file, text.replace(&warden, program)).expect("write the hook file");
            }
            HookRoute::Server(socket) => {
                let _ = std::fs::remove_file(&file);
                let socket = socket.display().to_string();
                self.warden_ok(&[
                    "init",
                    "copilot",
                    "--project",
                    &root,
                    "--warden",
                    &warden,
                    "--server",
                    &socket,
                ]);
            }
            HookRoute::None => {
                let _ = std::fs::remove_file(&file);
            }
            HookRoute::Command(command) => self.init(&HookRoute::Timed(command.clone(), 30)),
            HookRoute::Timed(command, timeout_s) => {
                self.init(&HookRoute::Direct);
                let text = std::fs::read_to_string(&file).expect("read the hook file");
                let mut hooks: serde_json::Value =
                    serde_json::from_str(&text).expect("the hook file is JSON");
                if let Some(events) = hooks.get_mut("hooks").and_then(serde_json::Value::as_object_mut) {
                    for entries in events.values_mut() {
                        *entries = json!([{"type": "command", "bash": command, "timeoutSec": timeout_s}]);
                    }
                }
                std::fs::write(&file, hooks.to_string()).expect("write the hook file");
            }
        }
    }

    /// Runs `copilot -p PROMPT --allow-all-tools` in the project against `api`.
    pub fn run(&self, api: &FakeCopilotApi, prompt: &str, options: &CopilotRun) -> CopilotOutcome {
        self.init(&options.route);
        let url = api.url();
        let cache = install_dir().join("cache");
        let mut command = match &options.managed {
            Some(managed) => self.in_managed_namespace(managed),
            None => Command::new(&self.tools.copilot),
        };
        command
            .args(["-p", prompt, "--allow-all-tools"])
            .current_dir(&self.root)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into()))
            .env("HOME", self.home())
            .env("XDG_CACHE_HOME", &cache)
            .env("TMPDIR", self.dir.path().join("tmp"))
            .env("SHELL", "/bin/sh")
            .env("COPILOT_OFFLINE", "true")
            .env("COPILOT_PROVIDER_TYPE", "openai")
            .env("COPILOT_PROVIDER_BASE_URL", api.base_url())
            .env("COPILOT_PROVIDER_API_KEY", API_KEY)
            .env("COPILOT_MODEL", MODEL)
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
        CopilotOutcome {
            exit: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            elapsed: started.elapsed(),
        }
    }
}

impl CopilotProject {
    /// `unshare` into a private mount namespace with `/etc/github-copilot` = a copy of
    /// `managed`, then `exec` Copilot ([`crate::project::in_managed_namespace`]).
    fn in_managed_namespace(&self, managed: &Path) -> Command {
        crate::project::in_managed_namespace(self.dir.path(), "github-copilot", managed, &self.tools.copilot)
    }
}
