//! A temp project governed by Agent Warden for Codex, and a bounded run of the real `codex exec`
//! in it against a [`FakeResponses`].
//!
//! The project: a copy of `examples/codex` (personas and agents under `agents/`, manifests in
//! Codex's tool names, `okrs/` protected), in a fresh git repository; `warden seal` and `warden approve` run as a human would.
//! Codex's home (`CODEX_HOME`, also `HOME`) holds the fake provider, the model's catalog entry
//! (from the binary's own catalog, with multi-agent v1, so that it offers `spawn_agent` and
//! `apply_patch`) and the project's agent roles; Warden's hooks are where `warden init codex`
//! puts them (the project's `.codex/config.toml`, the project trusted in Codex's home).
//! Every run: an environment built from `PATH` alone, the fake as the API and the proxy for every
//! other host, a process group of its own killed at the deadline and after it exits.

use crate::project::copy_dir;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::FakeResponses;
use crate::claude_code::{HELPER_TIMEOUT, output_within, workspace_root};

/// The `@openai/codex` version pinned in `tests/codex/package.json`.
pub const PINNED_VERSION: &str = "0.169.0";
/// Names the `codex` binary to run (default: the one `cargo xtask codex` installs).
pub const CODEX_BIN_ENV: &str = "AGENTWARDEN_CODEX_BIN";
/// The approval reference the setup grants.
pub const APPROVAL_REF: &str = "GATE-2026-11-26-036";
/// The model the runs use: one of the pinned binary's catalog.
const MODEL: &str = "gpt-5.5";

/// Where `cargo xtask codex` installs the pinned package.
pub fn install_dir() -> PathBuf {
    workspace_root().join("target").join("codex")
}

/// The native binary inside an install directory (linux x64).
pub fn codex_in(install_dir: &Path) -> PathBuf {
    install_dir.join("node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex")
}

/// The two binaries a run needs.
#[derive(Debug, Clone)]
pub struct CodexTools {
    /// The real Codex CLI.
    pub codex: PathBuf,
    /// The `warden` binary the hooks name.
    pub warden: PathBuf,
}

impl CodexTools {
    /// Finds both binaries, or says how to get them.
    pub fn locate(warden: impl Into<PathBuf>) -> Result<CodexTools, String> {
        let codex = std::env::var_os(CODEX_BIN_ENV).map_or_else(|| codex_in(&install_dir()), PathBuf::from);
        if !codex.is_file() {
            return Err(format!(
                "no Codex binary at `{}`: run `cargo xtask codex-install` (or set {CODEX_BIN_ENV})",
                codex.display()
            ));
        }
        let warden = warden.into();
        if !warden.is_file() {
            return Err(format!("no warden binary at `{}`", warden.display()));
        }
        Ok(CodexTools { codex, warden })
    }
}

/// How the hooks reach Warden.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookRoute {
    /// `warden hook --harness codex` decides in its own process.
    Direct,
    /// `warden hook --harness codex --server SOCKET` asks the resident service.
    Server(PathBuf),
    /// No hook at all: the project's `.codex/config.toml` is emptied after `warden init codex`
    /// (the session bench's baseline).
    None,
    /// The hook entries `warden init codex` installs, each running this command instead of
    /// Warden (the session bench's no-op hook).
    Command(String),
    /// `warden init codex --managed`: Warden's hooks in Codex's managed requirements (with
    /// `allow_managed_hooks_only`), which the run sees as `/etc/codex/requirements.toml` through
    /// an overlay in a private mount namespace (root only; the machine's `/etc` is never
    /// written). The project's own `.codex/config.toml` holds the hooks an agent would leave
    /// there to get around Warden: every command `true`, the project trusted.
    Managed,
    /// Warden's hooks as `warden init codex` installs them, the binary's path replaced by one
    /// that does not exist (a moved or removed binary, H-57).
    BinaryMissing,
    /// Warden's hooks as `warden init codex` installs them, then the configuration they name
    /// overwritten with text that is not TOML (H-57).
    ConfigUnreadable,
}

/// How to run `codex exec`.
#[derive(Debug, Clone)]
pub struct CodexRun {
    /// `AGENTWARDEN_ENABLE_SUBAGENTS=true` in Codex's environment (and so its hooks').
    pub kill_switch: bool,
    /// The hard deadline.
    pub timeout: Duration,
    /// How the hooks reach Warden.
    pub route: HookRoute,
    /// `codex exec` without `--json`: what a human reads on its stderr (each hook's name and
    /// status), in [`CodexOutcome::stderr`].
    pub human: bool,
    /// The user's own hooks, `(event, command)`, written to `$CODEX_HOME/hooks.json` (the agent's,
    /// as its shell could write them): each runs beside Warden's for every tool.
    pub user_hooks: Vec<(String, String)>,
    /// TOML appended to Codex's own `config.toml` in its home (the user's, which the agent's
    /// shell can write).
    pub user_config: String,
    /// Codex's `approval_policy` (default `never`).
    pub approval_policy: String,
    /// Codex's `sandbox_mode` (default `danger-full-access`).
    pub sandbox_mode: String,
    /// Codex's exec policy of the user's, written to `$CODEX_HOME/rules/default.rules` when not
    /// empty (`prefix_rule(...)` lines).
    pub rules: String,
}

impl Default for CodexRun {
    fn default() -> CodexRun {
        CodexRun {
            kill_switch: true,
            timeout: Duration::from_secs(90),
            route: HookRoute::Direct,
            human: false,
            user_hooks: Vec::new(),
            user_config: String::new(),
            approval_policy: "never".into(),
            sandbox_mode: "danger-full-access".into(),
            rules: String::new(),
        }
    }
}

/// What a run left.
#[derive(Debug)]
pub struct CodexOutcome {
    /// The exit code (`None`: killed).
    pub exit: Option<i32>,
    /// The `--json` events.
    pub events: Vec<Value>,
    /// Codex's stderr.
    pub stderr: String,
    /// Wall time.
    pub elapsed: Duration,
}

/// A project governed for Codex (see the module's doc).
#[derive(Debug)]
pub struct CodexProject {
    dir: tempfile::TempDir,
    /// The project's root (Codex's working directory).
    pub root: PathBuf,
    /// The binaries.
    pub tools: CodexTools,
}

impl CodexProject {
    /// A copy of `examples/codex`, `warden init codex`, committed, sealed and approved.
    pub fn setup(tools: &CodexTools) -> CodexProject {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().join("project");
        copy_dir(&workspace_root().join("examples/codex"), &root);
        for sub in ["home", "tmp"] {
            std::fs::create_dir_all(dir.path().join(sub)).expect("create home and tmp");
        }
        let project = CodexProject { dir, root, tools: tools.clone() };
        // `init codex` adds Codex's files to the protected paths: before the seal covers them.
        project.init(&HookRoute::Direct);
        project.git(&["init", "-q"]);
        project.git(&["add", "-A"]);
        project.git(&["commit", "-q", "-m", "base"]);
        project.warden_ok(&["seal", "--by", "alice"]);
        project.warden_ok(&["approve", "--ref", APPROVAL_REF, "--by", "alice"]);
        project
    }

    /// A directory of the run's own, outside the project (for the user's hook scripts).
    pub fn scratch(&self) -> PathBuf {
        self.dir.path().to_path_buf()
    }

    /// Codex's home.
    pub fn home(&self) -> PathBuf {
        self.dir.path().join("home")
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

    /// `warden init codex` for `route`, as the guide says: the hooks in the project's
    /// `.codex/config.toml`, the project trusted in Codex's home (a file of its own here, which
    /// each run joins to its configuration).
    pub fn init(&self, route: &HookRoute) {
        let home = self.home();
        let _ = std::fs::remove_file(home.join("config.toml"));
        let warden = self.tools.warden.display().to_string();
        let home_arg = home.display().to_string();
        let mut args = vec!["init", "codex", "--warden", &warden, "--codex-home", &home_arg];
        let socket;
        if let HookRoute::Server(path) = route {
            socket = path.display().to_string();
            args.extend(["--server", &socket]);
        }
        self.warden_ok(&args);
        std::fs::rename(home.join("config.toml"), home.join("trust.toml"))
            .expect("init codex trusted the project");
        let hooks = self.root.join(".codex/config.toml");
        let replaced_by = match route {
            HookRoute::Direct | HookRoute::Server(_) => None,
            HookRoute::BinaryMissing => {
                let text = std::fs::read_to_string(&hooks).expect("read the project's hooks");
                assert!(text.contains(&warden), "the hooks name {warden}");
                std::fs::write(&hooks, text.replace(&warden, "/nonexistent/agentwarden/warden"))
                    .expect("write the project's hooks");
                None
            }
            HookRoute::ConfigUnreadable => {
                std::fs::write(self.root.join("agentwarden.toml"), "[guardrails\n")
                    .expect("break the configuration");
                None
            }
            HookRoute::None => {
                std::fs::write(&hooks, "").expect("empty the project's hooks");
                None
            }
            HookRoute::Command(command) => Some(command.as_str()),
            HookRoute::Managed => {
                let requirements = self.managed_dir().join("codex/requirements.toml");
                let _ = std::fs::remove_file(&requirements);
                std::fs::create_dir_all(self.managed_dir().join("codex")).expect("create the managed dir");
                let managed = requirements.display().to_string();
                self.warden_ok(&["init", "codex", "--warden", &warden, "--managed", &managed]);
                Some("true")
            }
        };
        if let Some(command) = replaced_by {
            let text = std::fs::read_to_string(&hooks).expect("read the project's hooks");
            let replaced: String = text
                .lines()
                .map(|line| {
                    if line.trim_start().starts_with("command = ") {
                        format!("command = {}\n", toml_string(command))
                    } else {
                        format!("{line}\n")
                    }
                })
                .collect();
            assert!(replaced != text, "no hook command in {}", hooks.display());
            std::fs::write(&hooks, replaced).expect("write the project's hooks");
        }
    }

    /// The directory the run sees as `/etc` over the machine's (its `codex/requirements.toml`),
    /// for [`HookRoute::Managed`].
    pub fn managed_dir(&self) -> PathBuf {
        self.dir.path().join("etc-managed")
    }

    /// Writes Codex's home for a run against `api` (see the module's doc).
    fn write_home(&self, api: &FakeResponses, options: &CodexRun) {
        let (route, user_config) = (&options.route, options.user_config.as_str());
        let home = self.home();
        let models = output_within(
            Command::new(&self.tools.codex)
                .args(["debug", "models"])
                .env_clear()
                .env("CODEX_HOME", &home)
                .env("PATH", std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into())),
            HELPER_TIMEOUT,
        );
        let catalog: Value =
            serde_json::from_slice(&models.stdout).expect("`codex debug models` prints JSON");
        let mut entry = catalog
            .get("models")
            .and_then(Value::as_array)
            .and_then(|models| models.iter().find(|m| m.get("slug").and_then(Value::as_str) == Some(MODEL)))
            .cloned()
            .unwrap_or_else(|| panic!("the pinned Codex's catalog has no `{MODEL}`"));
        entry["multi_agent_version"] = "v1".into();
        let catalog_file = home.join("catalog.json");
        std::fs::write(&catalog_file, serde_json::json!({"models": [entry]}).to_string())
            .expect("write catalog");
        self.init(route);
        let trust = std::fs::read_to_string(home.join("trust.toml")).expect("read the project's trust");
        let config = format!(
            "model = \"{MODEL}\"\nmodel_provider = \"fake\"\nmodel_catalog_json = {}\n\
             approval_policy = {}\nsandbox_mode = {}\n\n\
             [features]\nmulti_agent = true\n\n\
             [model_providers.fake]\nname = \"fake\"\nbase_url = \"{}/v1\"\nwire_api = \"responses\"\n\
             env_key = \"FAKE_KEY\"\nrequest_max_retries = 0\nstream_max_retries = 0\n\n\
             [agents]\nmax_depth = 3\n\n\
             [agents.planner]\ndescription = \"Plans the change.\"\n\n\
             [agents.coder]\ndescription = \"Writes the code.\"\n\n\
             [agents.researcher]\ndescription = \"Reads and reports.\"\n\n{trust}\n{user_config}",
            toml_string(&catalog_file.display().to_string()),
            toml_string(&options.approval_policy),
            toml_string(&options.sandbox_mode),
            api.url()
        );
        std::fs::write(home.join("config.toml"), config).expect("write Codex's config");
        let rules = home.join("rules");
        let _ = std::fs::remove_dir_all(&rules);
        if !options.rules.is_empty() {
            std::fs::create_dir_all(&rules).expect("create the rules' dir");
            std::fs::write(rules.join("default.rules"), &options.rules).expect("write the rules");
        }
    }

    /// Runs `codex exec PROMPT` in the project against `api`.
    pub fn run(&self, api: &FakeResponses, prompt: &str, options: &CodexRun) -> CodexOutcome {
        self.write_home(api, options);
        let hooks_file = self.home().join("hooks.json");
        let _ = std::fs::remove_file(&hooks_file);
        if !options.user_hooks.is_empty() {
            let mut events = serde_json::Map::new();
            for (event, command) in &options.user_hooks {
                let group =
                    serde_json::json!({"hooks": [{"type": "command", "command": command, "timeout": 10}]});
                if let Some(groups) =
                    events.entry(event.clone()).or_insert_with(|| serde_json::json!([])).as_array_mut()
                {
                    groups.push(group);
                }
            }
            std::fs::write(&hooks_file, serde_json::json!({"hooks": events}).to_string())
                .expect("write the user's hooks");
        }
        let url = api.url();
        let mut command = match options.route {
            HookRoute::Managed => self.in_managed_namespace(),
            _ => Command::new(&self.tools.codex),
        };
        let json: &[&str] = if options.human { &[] } else { &["--json"] };
        command
            .args(["exec", "--skip-git-repo-check"])
            .args(json)
            .args(["--dangerously-bypass-hook-trust", prompt])
            .current_dir(&self.root)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into()))
            .env("HOME", self.home())
            .env("CODEX_HOME", self.home())
            .env("TMPDIR", self.dir.path().join("tmp"))
            .env("SHELL", "/bin/sh")
            .env("FAKE_KEY", "dummy")
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
        CodexOutcome {
            exit: out.status.code(),
            events: String::from_utf8_lossy(&out.stdout)
                .lines()
                .filter_map(|l| serde_json::from_str(l).ok())
                .collect(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            elapsed: started.elapsed(),
        }
    }
}

impl CodexProject {
    /// `unshare` into a private mount namespace, overlay `/etc` with [`Self::managed_dir`] as
    /// its upper layer, then `exec` Codex (same PID, so the process group is still the run's).
    fn in_managed_namespace(&self) -> Command {
        crate::project::in_managed_namespace(self.dir.path(), "", &self.managed_dir(), &self.tools.codex)
    }
}

/// `text` as a TOML basic string.
fn toml_string(text: &str) -> String {
    let escaped: String = text
        .chars()
        .map(|c| match c {
            '"' => "\\\"".to_owned(),
            '\\' => "\\\\".to_owned(),
            c if c.is_control() => format!("\\u{:04X}", u32::from(c)),
            c => c.to_string(),
        })
        .collect();
    format!("\"{escaped}\"")
}
