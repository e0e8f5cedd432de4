//! The example harnesses built on the Claude Agent SDK (`examples/agent-sdk/`), run for real:
//! where the pinned SDKs are, and the command line that runs one harness in a project set up by
//! [`crate::claude_code::Project`] against the fake Messages API ([`crate::claude_code::FakeApi`]).
//!
//! Each SDK starts its own bundled Claude Code, which talks to the fake exactly as `claude -p`
//! does, so the Claude Code suite's parts serve unchanged: a run is [`Project::run`] with
//! [`RunOptions::program`] set to the harness. The suite is `tests/tests/agent_sdk_real.rs`,
//! run by `cargo xtask agent-sdk`, which installs both SDKs first.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::claude_code::{Project, RunOptions, Tools, workspace_root};

/// The variable naming the TypeScript SDK's install directory (its `node_modules` inside).
pub const TYPESCRIPT_ENV: &str = "AGENTWARDEN_AGENT_SDK_TYPESCRIPT";
/// The variable naming the Python SDK's install directory (a `PYTHONPATH` entry).
pub const PYTHON_ENV: &str = "AGENTWARDEN_AGENT_SDK_PYTHON";

/// One of the two SDKs, each with its example harness.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sdk {
    /// `@anthropic-ai/claude-agent-sdk`, `examples/agent-sdk/typescript/harness.mjs`.
    TypeScript,
    /// `claude-agent-sdk` for Python, `examples/agent-sdk/python/harness.py`.
    Python,
}

/// How the harness wires Warden in (its `--wiring`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wiring {
    /// The hooks `warden init claude-code` wrote into `.claude/settings.json`, loaded by the SDK.
    Settings,
    /// Callbacks passed in code, each running `warden hook`.
    Code,
}

impl Wiring {
    fn flag(self) -> &'static str {
        match self {
            Wiring::Settings => "settings",
            Wiring::Code => "code",
        }
    }
}

impl Sdk {
    /// Both, for tables.
    pub const ALL: [Sdk; 2] = [Sdk::TypeScript, Sdk::Python];

    /// Where the SDK is installed: the variable's directory, else where `cargo xtask agent-sdk`
    /// installs it.
    fn install_dir(self) -> PathBuf {
        let (var, default) = match self {
            Sdk::TypeScript => (TYPESCRIPT_ENV, "target/agent-sdk/typescript"),
            Sdk::Python => (PYTHON_ENV, "target/agent-sdk/python"),
        };
        std::env::var_os(var).map_or_else(|| workspace_root().join(default), PathBuf::from)
    }

    /// The Claude Code the SDK bundles and starts.
    pub fn claude(self) -> PathBuf {
        let dir = self.install_dir();
        match self {
            Sdk::TypeScript => dir.join("node_modules/@anthropic-ai/claude-agent-sdk-linux-x64/claude"),
            Sdk::Python => dir.join("claude_agent_sdk/_bundled/claude"),
        }
    }

    /// The tools of a project run by this SDK's harness: its bundled Claude Code, and `warden`.
    pub fn tools(self, warden: &Path) -> Result<Tools, String> {
        let claude = self.claude();
        if !claude.is_file() {
            return Err(format!(
                "no Claude Agent SDK ({self:?}) at `{}`: run `cargo xtask agent-sdk-install`",
                claude.display()
            ));
        }
        Ok(Tools { claude, warden: warden.to_path_buf() })
    }

    /// The options that run this SDK's harness in `project`, with `wiring`, naming `warden` as
    /// the harness's `--warden`, with `more` arguments; `prompt` is the session's first message.
    pub fn run_options(
        self,
        project: &Project,
        warden: &Path,
        wiring: Wiring,
        prompt: &str,
        more: &[&str],
    ) -> RunOptions {
        let examples = workspace_root().join("examples/agent-sdk");
        let mut argv: Vec<OsString> = Vec::new();
        let mut env = Vec::new();
        match self {
            Sdk::TypeScript => {
                // Node resolves the SDK from the script's own directory: a copy of the script
                // beside a link to the installed `node_modules`.
                let dir = project.dir().join("typescript-harness");
                std::fs::create_dir_all(&dir).expect("create the harness's directory");
                std::fs::copy(examples.join("typescript/harness.mjs"), dir.join("harness.mjs"))
                    .expect("copy harness.mjs");
                let link = dir.join("node_modules");
                if !link.exists() {
                    std::os::unix::fs::symlink(self.install_dir().join("node_modules"), &link)
                        .expect("link node_modules");
                }
                argv.extend(["node".into(), dir.join("harness.mjs").into_os_string()]);
            }
            Sdk::Python => {
                argv.extend(["python3".into(), examples.join("python/harness.py").into_os_string()]);
                env.push(("PYTHONPATH".to_owned(), self.install_dir().to_string_lossy().into_owned()));
                env.push(("PYTHONDONTWRITEBYTECODE".to_owned(), "1".to_owned()));
            }
        }
        argv.extend(["--project".into(), project.root.clone().into_os_string()]);
        argv.extend(["--warden".into(), warden.as_os_str().to_owned()]);
        argv.extend(["--wiring".into(), wiring.flag().into(), "--prompt".into(), prompt.into()]);
        argv.extend(more.iter().map(OsString::from));
        RunOptions { program: Some(argv), env, ..RunOptions::default() }
    }
}
