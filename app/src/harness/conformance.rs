//! The harness conformance suite (feature `conformance`, issue 35): the same situations driven
//! through each harness integration's wire format, against a kernel over a small project of its
//! own, as the ports' suites run on every adapter. An integration implements [`Scenarios`] (how
//! its harness says each event, and how its rendering reads back) and runs [`run_all`]:
//!
//! ```toml
//! [dev-dependencies]
//! agentwarden = { version = "…", features = ["conformance"] }
//! ```
//!
//! ```ignore
//! #[tokio::test]
//! async fn my_harness_conforms() {
//!     agentwarden::harness::conformance::run_all(&MyHarness).await;
//! }
//! ```
//!
//! Each situation panics, naming what broke, when the integration (or the kernel through it)
//! answers otherwise: a spawn allowed; a spawn denied by the kill switch, by a missing approval,
//! by the lineage; a subagent's tool call its rules forbid; an agent no allowed spawn accounts
//! for; a write into a protected path; paths judged where they land through every kind of
//! symbolic link (T-17, R-32); a stop after a protected change (blocked, the change
//! reverted), a subagent's and the main session's (blocked once, then let through; H-45, H-46);
//! a main session with no snapshot quarantined at its stop; garbage, empty and oversized input;
//! a store that cannot be used; an unsealed configuration edited by the agent's shell after the
//! session's start, which decides nothing (H-58, through the hook's entry as `warden hook` runs
//! it). Every answer is rendered by the integration and must read back
//! as the kernel's answer.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "a conformance suite: a broken promise is a panic that names it"
)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use agentwarden_domain::sessions::{HookAnswer, MAX_HOOK_INPUT};

use super::{Harness, Rendered};
use crate::human::{ApprovalRequest, Signer};
use crate::{
    Config, HookStorage, Warden,
    store::{MemoryEventStore, UnavailableEventStore},
    wiring::FixedEnvironment,
};

/// The kill switch of the suite's project.
const ENABLE: &str = "AGENTWARDEN_ENABLE_SUBAGENTS";
/// The session every situation runs in.
const SESSION: &str = "conformance-session";
/// The protected file, and what it holds.
const PROTECTED: (&str, &str) = ("okrs/q4.md", "# Q4\n");

/// An agent as the harness names it in its events.
#[derive(Clone, Copy, Debug)]
pub struct Agent<'a> {
    /// The harness's id of the agent.
    pub id: &'a str,
    /// Its type.
    pub agent_type: &'a str,
    /// The prompt its spawn gave it: a harness that names no agent in its events knows it by its
    /// spawn's input (M-2).
    pub prompt: &'a str,
}

/// A call of the harness's tool that spawns a subagent.
#[derive(Clone, Copy, Debug)]
pub struct Spawn<'a> {
    /// The session.
    pub session: &'a str,
    /// The tool call's id.
    pub call_id: &'a str,
    /// The subagent type asked for.
    pub subagent_type: &'a str,
    /// The prompt handed to it.
    pub prompt: &'a str,
    /// The calling subagent; `None`: the main session.
    pub caller: Option<Agent<'a>>,
    /// The session's working directory (absolute).
    pub cwd: &'a str,
}

/// What a tool call does, as far as the situations ask.
#[derive(Clone, Copy, Debug)]
pub enum ToolSpec<'a> {
    /// Writes the file `path` (absolute).
    Write {
        /// The file.
        path: &'a str,
    },
    /// Changes the existing file `path` (absolute): an edit in place, or a patch's update.
    Edit {
        /// The file.
        path: &'a str,
    },
    /// Reads the file `path` (absolute).
    Read {
        /// The file.
        path: &'a str,
    },
    /// Lists every file under the directory `root` (absolute): a search.
    Search {
        /// The directory searched.
        root: &'a str,
    },
    /// Runs the command line `command` through the harness's shell tool `tool` (one of its
    /// [`Harness::shell_tools`]), its `tool_input` `{"command": command}`.
    Shell {
        /// The shell tool.
        tool: &'a str,
        /// The command line.
        command: &'a str,
    },
}

/// A call of a tool that spawns nothing.
#[derive(Clone, Copy, Debug)]
pub struct Tool<'a> {
    /// The session.
    pub session: &'a str,
    /// The tool call's id.
    pub call_id: &'a str,
    /// The calling subagent; `None`: the main session.
    pub caller: Option<Agent<'a>>,
    /// The session's working directory (absolute).
    pub cwd: &'a str,
    /// What it does.
    pub spec: ToolSpec<'a>,
}

/// How a harness says each event of the situations in its wire format, and how what its hook
/// prints reads back as the kernel's answer.
pub trait Scenarios: Harness {
    /// A spawn of a subagent.
    fn spawn(&self, spawn: &Spawn<'_>) -> String;
    /// A tool call that spawns nothing, before it runs.
    fn tool(&self, tool: &Tool<'_>) -> String;
    /// `agent` began, in `cwd`; `None` when the harness sends no start (its allowed spawn
    /// starts the agent, M-2), and then no situation can name an agent no spawn accounts for.
    fn start(&self, session: &str, agent: Agent<'_>, cwd: &str) -> Option<String>;
    /// `agent` wants to stop (the first time).
    fn stop(&self, session: &str, agent: Agent<'_>, cwd: &str) -> String;
    /// The main session began, in `cwd` (H-45).
    fn session_start(&self, session: &str, cwd: &str) -> String;
    /// The main session wants to stop; `stop_hook_active`: it already went on once after a
    /// block (H-46).
    fn session_stop(&self, session: &str, cwd: &str, stop_hook_active: bool) -> String;
    /// The session ends (H-48); `None` when the harness's hook is not asked at the end.
    fn session_end(&self, _session: &str, _cwd: &str) -> Option<String> {
        None
    }
    /// What the hook printed, read back as the answer it says; `Err` when it says none: the
    /// harness's own reading error, by cause (X-97).
    fn read_back(&self, rendered: &Rendered) -> Result<HookAnswer, Box<dyn std::error::Error + Send + Sync>>;
    /// Whether a subagent of this harness can spawn: `false` when it gives its subagents no
    /// spawn tool, and every spawn is then the main session's (M-22).
    fn subagents_spawn(&self) -> bool {
        true
    }
    /// Whether [`ToolSpec::Read`] and [`ToolSpec::Search`] are tools that name their paths (the rules read it as `Read` of
    /// it); `false` when the harness reads files through its shell alone.
    fn reads_by_path(&self) -> bool {
        true
    }
    /// Whether its rendering can run a shell call under the confinement launcher (a
    /// [`HookAnswer::Rewrite`]); `false`: such a call is denied under `required` (H-61, E-13).
    fn confines_shell(&self) -> bool {
        false
    }
    /// Sets the harness's own settings in the project at `root` so that they allow the shell
    /// call `rule` grants as sent (H-61); nothing for a harness without such rules.
    fn allow_shell(&self, _root: &Path, _rule: &str) {}
}

/// Every situation, in turn.
pub async fn run_all(harness: &dyn Scenarios) {
    spawn_allowed(harness).await;
    spawn_denied_by_the_kill_switch(harness).await;
    spawn_denied_without_an_approval(harness).await;
    spawn_denied_by_the_lineage(harness).await;
    a_subagents_forbidden_tool_call_is_denied(harness).await;
    an_untracked_agent_may_call_nothing(harness).await;
    a_write_into_a_protected_path_is_denied(harness).await;
    a_shell_line_that_writes_a_held_name_is_denied(harness).await;
    paths_are_judged_where_the_writer_writes(harness).await;
    a_stop_after_a_protected_change_is_blocked_and_reverted(harness).await;
    a_sessions_stop_without_a_snapshot_quarantines_it(harness).await;
    a_late_subagent_and_the_sessions_end_hold_the_sessions_start(harness).await;
    garbage_empty_and_oversized_input_fail(harness).await;
    a_store_that_cannot_be_used_fails(harness).await;
    an_unsealed_configuration_edited_after_the_start_decides_nothing(harness).await;
    an_allowed_shell_call_runs_under_the_launcher(harness).await;
    the_harness_is_governed_by_its_own_section(harness).await;
}

/// A project of the suite's own: a main persona that may spawn a planner, a planner that may
/// spawn a coder (its instruction file names a researcher too, its manifest does not), no tool
/// granted to any subagent, and one protected directory.
struct Project {
    _dir: tempfile::TempDir,
    root: PathBuf,
    config: Config,
}

fn write(path: &Path, text: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(path, text).unwrap();
}

fn project() -> Project {
    project_with("[]")
}

/// [`project`], its planner (and so the main session, its ancestor) granted `planner_tools` (a
/// TOML array of tool rules).
fn project_with(planner_tools: &str) -> Project {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    write(
        &root.join("agentwarden.toml"),
        &format!(
            "[subagents]\nenable_env = \"{ENABLE}\"\npersonas_dir = \"agents\"\nagents_dir = \"agents\"\n\
             persona_file_pattern = \"{{name}}.md\"\nagent_file_pattern = \"{{name}}.md\"\n\n\
             [lineage]\nmanifests = \"manifests.toml\"\n\n\
             [guardrails]\nprotected = [\"okrs\"]\n"
        ),
    );
    write(&root.join("agents/main.md"), "---\nname: main\nsubagents: [planner]\n---\n\nThe main session.\n");
    for (name, subagents) in [("planner", "[coder, researcher]"), ("coder", "[]"), ("researcher", "[]")] {
        write(
            &root.join(format!("agents/{name}.md")),
            &format!(
                "---\nname: {name}\nsubagents: {subagents}\nAGENT_TYPE: 2\nAGENT_CLASS: TASK\n---\n\nA {name}.\n"
            ),
        );
    }
    write(
        &root.join("manifests.toml"),
        &format!(
            "[agents.main]\ncan_spawn = [\"planner\"]\nmax_spawn_depth = 3\ntools = {planner_tools}\n\n\
         [agents.planner]\ncan_spawn = [\"coder\"]\nmax_spawn_depth = 2\ntools = {planner_tools}\n\n\
         [agents.coder]\ncan_spawn = []\nmax_spawn_depth = 1\ntools = []\n\n\
         [agents.researcher]\ncan_spawn = []\nmax_spawn_depth = 1\ntools = []\n"
        ),
    );
    write(&root.join(PROTECTED.0), PROTECTED.1);
    let config = Config::load(Some(&root.join("agentwarden.toml"))).unwrap();
    Project { _dir: dir, root, config }
}

/// [`project`] with `section` added to its configuration: one harness's settings.
fn project_configured(section: &str) -> Project {
    let mut project = project();
    let path = project.root.join("agentwarden.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    write(&path, &format!("{text}\n{section}"));
    project.config = Config::load(Some(&path)).unwrap();
    project
}

/// A kernel over a fresh project and store.
struct Kernel {
    project: Project,
    warden: Warden,
    storage: HookStorage,
}

impl Kernel {
    async fn new(enabled: bool, sealed: bool, approved: bool) -> Kernel {
        Kernel::over(project(), enabled, sealed, approved).await
    }

    async fn over(project: Project, enabled: bool, sealed: bool, approved: bool) -> Kernel {
        let environment =
            if enabled { FixedEnvironment::with(ENABLE, "true") } else { FixedEnvironment::default() };
        let warden = Warden::builder()
            .store(Arc::new(MemoryEventStore::new()))
            .environment(Arc::new(environment))
            .config(project.config.clone())
            .confine_launcher(project.root.join(FAKE_LAUNCHER))
            .build()
            .unwrap();
        let signer = Signer { by: Some("conformance".to_owned()), key: None };
        if sealed {
            warden.seal(&signer).await.unwrap();
        }
        if approved {
            let request =
                ApprovalRequest { reference: "RUN-1".to_owned(), scope: Vec::new(), expires_in_ms: None };
            warden.approve(&request, &signer).await.unwrap();
        }
        let storage = HookStorage::new(project.root.join(".agentwarden"));
        Kernel { project, warden, storage }
    }

    fn cwd(&self) -> String {
        self.project.root.display().to_string()
    }

    /// `wire` answered by the kernel, rendered by the harness, and read back: the answer the
    /// rendering says, which must be the kernel's.
    async fn ask(&self, harness: &dyn Scenarios, wire: &str) -> HookAnswer {
        let answer = self.warden.hook_parsed(wire, harness.decode(wire), &self.storage).await;
        read_back(harness, &answer)
    }

    /// `wire` answered as `warden hook` answers it (direct mode and the server alike): the
    /// configuration loaded from the live file for this event, what needs no store decided
    /// first (H-24), then the store with that configuration; rendered and read back.
    async fn ask_as_hook(&self, harness: &dyn Scenarios, wire: &str) -> HookAnswer {
        let config = Config::load(Some(&self.project.root.join("agentwarden.toml"))).unwrap();
        let parsed = harness.decode(wire);
        let open = |config| Ok(self.warden.with_rules(config));
        let answer = crate::answer_hook(config, &self.storage, wire, parsed, open).await;
        read_back(harness, &answer)
    }

    /// A tool call of `caller` (`None`: the main session) in the project's root, answered.
    async fn tool_call(
        &self,
        harness: &dyn Scenarios,
        caller: Option<Agent<'_>>,
        spec: ToolSpec<'_>,
    ) -> HookAnswer {
        let cwd = self.cwd();
        let tool = Tool { session: SESSION, call_id: "call-9", caller, cwd: &cwd, spec };
        self.ask(harness, &harness.tool(&tool)).await
    }

    /// A planner spawned by the main session (`call_id`) and started as `a1`.
    async fn planner(&self, harness: &dyn Scenarios, call_id: &str) -> Agent<'static> {
        let cwd = self.cwd();
        let spawn = Spawn {
            session: SESSION,
            call_id,
            subagent_type: "planner",
            prompt: "plan",
            caller: None,
            cwd: &cwd,
        };
        let answer = self.ask(harness, &harness.spawn(&spawn)).await;
        assert_eq!(answer, HookAnswer::Proceed, "{}: the planner's spawn is allowed", harness.name());
        let agent = Agent { id: "a1", agent_type: "planner", prompt: "plan" };
        if let Some(start) = harness.start(SESSION, agent, &cwd) {
            let started = self.ask(harness, &start).await;
            assert_eq!(started, HookAnswer::Proceed, "{}: the planner's start", harness.name());
        }
        agent
    }
}

/// What the store alone decides of the event `text` as its harness parsed it (`parsed`),
/// without the steps [`crate::answer_hook`] takes before it (H-55, H-28, H-24): for an
/// integration's tests of the store's decision, as the suite's own `ask` (X-88). Not a way in for
/// a hook: only the entry is.
pub async fn decided_by_the_store(
    warden: &Warden,
    text: &str,
    parsed: Result<agentwarden_domain::sessions::HookInput, agentwarden_domain::sessions::InputError>,
    storage: &HookStorage,
) -> HookAnswer {
    warden.hook_parsed(text, parsed, storage).await
}

/// `answer` rendered by `harness` and read back, which must give `answer` again.
fn read_back(harness: &dyn Scenarios, answer: &HookAnswer) -> HookAnswer {
    let rendered = harness.render(answer);
    let read = harness.read_back(&rendered).unwrap_or_else(|e| {
        panic!("{}: {answer:?} rendered as {rendered:?} reads back as none: {e}", harness.name())
    });
    assert_eq!(&read, answer, "{}: {rendered:?} must read back as the answer rendered", harness.name());
    if matches!(answer, HookAnswer::Failed { .. }) {
        assert_ne!(
            rendered,
            Rendered::default(),
            "{}: a failure must not render as nothing said",
            harness.name()
        );
    }
    read
}

fn denied_with(harness: &dyn Scenarios, answer: &HookAnswer, what: &str, situation: &str) {
    match answer {
        HookAnswer::Deny { reason } if reason.as_str().contains(what) => {}
        other => panic!("{}: {situation}: expected a deny naming `{what}`, got {other:?}", harness.name()),
    }
}

/// A spawn the gate, the approval and the lineage allow proceeds.
pub async fn spawn_allowed(harness: &dyn Scenarios) {
    let kernel = Kernel::new(true, true, true).await;
    kernel.planner(harness, "call-1").await;
}

/// The kill switch unset: the spawn is denied at the environment gate.
pub async fn spawn_denied_by_the_kill_switch(harness: &dyn Scenarios) {
    let kernel = Kernel::new(false, true, true).await;
    let cwd = kernel.cwd();
    let spawn = Spawn {
        session: SESSION,
        call_id: "call-1",
        subagent_type: "planner",
        prompt: "plan",
        caller: None,
        cwd: &cwd,
    };
    let answer = kernel.ask(harness, &harness.spawn(&spawn)).await;
    denied_with(harness, &answer, "env_not_enabled", "the kill switch");
}

/// Sealed but not approved: the spawn is denied, saying no approval is active.
pub async fn spawn_denied_without_an_approval(harness: &dyn Scenarios) {
    let kernel = Kernel::new(true, true, false).await;
    let cwd = kernel.cwd();
    let spawn = Spawn {
        session: SESSION,
        call_id: "call-1",
        subagent_type: "planner",
        prompt: "plan",
        caller: None,
        cwd: &cwd,
    };
    let answer = kernel.ask(harness, &harness.spawn(&spawn)).await;
    denied_with(harness, &answer, "no approval is active", "no approval");
}

/// The planner's instruction file names a researcher, its manifest does not: the lineage denies.
/// A harness whose subagents cannot spawn credits the spawn to the main session (M-22).
pub async fn spawn_denied_by_the_lineage(harness: &dyn Scenarios) {
    let kernel = Kernel::new(true, true, true).await;
    let planner = kernel.planner(harness, "call-1").await;
    let cwd = kernel.cwd();
    let spawn = Spawn {
        session: SESSION,
        call_id: "call-2",
        subagent_type: "researcher",
        prompt: "research",
        caller: Some(planner),
        cwd: &cwd,
    };
    let answer = kernel.ask(harness, &harness.spawn(&spawn)).await;
    if harness.subagents_spawn() {
        denied_with(harness, &answer, "lineage", "the planner spawns a researcher");
    } else {
        // The spawn is the main session's, never the running planner's (M-22): the main persona
        // declares no researcher.
        denied_with(harness, &answer, "not_declared", "a spawn while the planner runs");
    }
}

/// A subagent's call its rules do not grant is denied by the tool rules.
pub async fn a_subagents_forbidden_tool_call_is_denied(harness: &dyn Scenarios) {
    let kernel = Kernel::new(true, true, true).await;
    let planner = kernel.planner(harness, "call-1").await;
    let cwd = kernel.cwd();
    let path = kernel.project.root.join("notes.md").display().to_string();
    let tool = Tool {
        session: SESSION,
        call_id: "call-2",
        caller: Some(planner),
        cwd: &cwd,
        spec: ToolSpec::Read { path: &path },
    };
    let answer = kernel.ask(harness, &harness.tool(&tool)).await;
    denied_with(harness, &answer, "tool_not_allowed", "a read no rule grants");
}

/// An agent that started with no allowed spawn to match may call nothing. A harness that sends
/// no start cannot say such an agent (M-2): nothing to check.
pub async fn an_untracked_agent_may_call_nothing(harness: &dyn Scenarios) {
    let kernel = Kernel::new(true, true, true).await;
    let cwd = kernel.cwd();
    let ghost = Agent { id: "ghost", agent_type: "planner", prompt: "haunt" };
    let Some(start) = harness.start(SESSION, ghost, &cwd) else { return };
    let started = kernel.ask(harness, &start).await;
    assert_eq!(started, HookAnswer::Proceed, "{}: a start is recorded, not refused", harness.name());
    let path = kernel.project.root.join("notes.md").display().to_string();
    let tool = Tool {
        session: SESSION,
        call_id: "call-2",
        caller: Some(ghost),
        cwd: &cwd,
        spec: ToolSpec::Read { path: &path },
    };
    let answer = kernel.ask(harness, &harness.tool(&tool)).await;
    denied_with(harness, &answer, "agent_untracked", "an untracked agent's call");
}

/// A write into a protected path is denied before it happens, from the main session too.
pub async fn a_write_into_a_protected_path_is_denied(harness: &dyn Scenarios) {
    let kernel = Kernel::new(true, true, true).await;
    let cwd = kernel.cwd();
    let path = kernel.project.root.join(PROTECTED.0).display().to_string();
    let tool = Tool {
        session: SESSION,
        call_id: "call-1",
        caller: None,
        cwd: &cwd,
        spec: ToolSpec::Write { path: &path },
    };
    let answer = kernel.ask(harness, &harness.tool(&tool)).await;
    denied_with(harness, &answer, "okrs", "a write into okrs/");
}

/// A shell line whose text writes a held name or a protected path is denied, for every shell
/// tool the harness names, the main session and a subagent granted the bare `Bash` alike, on the
/// store's path and on the hook's path that decides what it can before the store (T-31, T-32);
/// the lines the main session runs every day proceed.
pub async fn a_shell_line_that_writes_a_held_name_is_denied(harness: &dyn Scenarios) {
    let shells = harness.shell_tools();
    assert!(!shells.is_empty(), "{}: a harness names its shell tools", harness.name());
    // Line, the name its deny gives (`None`: it proceeds).
    let lines: [(&str, Option<&str>); 14] = [
        ("echo x > .git/hooks/pre-commit", Some(".git")),
        ("cp src/a.txt .git/hooks/pre-commit", Some(".git")),
        ("printf x | tee -a .bashrc", Some(".bashrc")),
        ("sed -i s/a/b/ .git/config", Some(".git")),
        ("ln -s ../x .git/hooks/post-checkout", Some(".git")),
        ("echo x > src/g/hooks/pre-commit", Some(".git")),
        ("echo x >> .GIT/config", Some(".git")),
        ("env A=1 sh -c 'echo x > .envrc'", Some(".envrc")),
        ("timeout 5 cp src/a.txt .npmrc", Some(".npmrc")),
        ("echo x > okrs/q4.md", Some("okrs")),
        ("D=.git; echo x > $D/hooks/pre-commit", Some(".git")),
        ("echo x > src/out.txt 2>/dev/null", None),
        ("cat .git/config", None),
        ("git status", None),
    ];
    let layout = |root: &Path| {
        write(&root.join("src/a.txt"), "a\n");
        std::fs::create_dir_all(root.join(".git/hooks")).unwrap();
        std::os::unix::fs::symlink("../.git", root.join("src/g")).unwrap();
    };
    let mut wrong: Vec<String> = Vec::new();
    let main = Kernel::new(true, true, true).await;
    layout(&main.project.root);
    let project = project_with("[\"Bash\"]");
    layout(&project.root);
    let kernel = Kernel::over(project, true, true, true).await;
    let planner = kernel.planner(harness, "call-1").await;
    for (kernel, caller, who) in [(&main, None, "the main session"), (&kernel, Some(planner), "a planner")] {
        let cwd = kernel.cwd();
        for tool in shells {
            for (command, named) in lines {
                let spec = ToolSpec::Shell { tool, command };
                let wire =
                    harness.tool(&Tool { session: SESSION, call_id: "call-7", caller, cwd: &cwd, spec });
                let situation = format!("{who}, `{tool}` `{command}`");
                let expect = named.map_or(Expect::Proceed, |_| Expect::Deny("protected_path_write"));
                let stored = kernel.ask(harness, &wire).await;
                wrong.extend(unexpected(&stored, expect, &format!("{situation}, the store")));
                let hook = kernel.ask_as_hook(harness, &wire).await;
                wrong.extend(unexpected(&hook, expect, &format!("{situation}, as the hook")));
                let config = Config::load(Some(&kernel.project.root.join("agentwarden.toml"))).unwrap();
                let fast = crate::hook::before_store_parsed(&config, &kernel.storage, &harness.decode(&wire));
                let held = |answer: &HookAnswer| {
                    named.is_some_and(
                        |n| matches!(answer, HookAnswer::Deny { reason } if reason.as_str().contains(n)),
                    )
                };
                let fast_denies =
                    matches!(&fast, crate::hook::Pre::Store { fallback: Some(deny) } if held(deny));
                if named.is_some() != fast_denies {
                    wrong.push(format!("{situation}, before the store: {fast:?}"));
                }
                if named.is_some() && !held(&stored) {
                    wrong.push(format!("{situation}: the deny does not name {named:?}: {stored:?}"));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}: shell lines that write held names:\n{}", harness.name(), wrong.join("\n"));
    for kernel in [&main, &kernel] {
        let hook = kernel.project.root.join(".git/hooks/pre-commit");
        assert!(!hook.exists(), "{}: nothing ran, nothing was written", harness.name());
    }
}

/// The links of [`paths_are_judged_where_the_writer_writes`], made in the project as the agent's
/// shell would: `(link, target)`, relative to the project root.
const LINKS: [(&str, &str); 10] = [
    ("src/l", "../agents"),
    ("src/up", ".."),
    ("src/dangling", "nowhere"),
    ("src/c1", "c2"),
    ("src/c2", "../okrs"),
    ("src/loop1", "loop2"),
    ("src/loop2", "loop1"),
    ("src/final", "../okrs/q4.md"),
    ("src/inner", "sub"),
    ("okrs/l", "../src/sub"),
];

/// What a row of [`paths_are_judged_where_the_writer_writes`] expects.
#[derive(Clone, Copy, Debug)]
enum Expect {
    Proceed,
    /// A deny whose reason names this.
    Deny(&'static str),
}

/// A path is judged where the writer writes (T-17, R-32): each path the harness's call names is
/// resolved component by component, a link followed before a `..` after it is applied (the
/// kernel's reading), and also with `..` removed as text first (a writer that normalises, as
/// Node's `path.resolve` does); a write lands in a protected path when either reading does, and
/// a rule scope grants the call only when it grants both. A path that cannot be resolved (a
/// loop, a link to nothing) is denied, `path_unresolvable`. Through the harness's own wire:
/// a link to a sibling then `..`, a link to `..`, a link outside the project, a dangling link, a
/// chain, a loop, a link as the final component, a link inside the scope, another case.
pub async fn paths_are_judged_where_the_writer_writes(harness: &dyn Scenarios) {
    let outside = tempfile::tempdir().unwrap();
    let outside = std::fs::canonicalize(outside.path()).unwrap();
    let layout = |root: &Path| {
        write(&root.join("src/a.txt"), "a\n");
        write(&root.join("src/sub/b.txt"), "b\n");
        for (link, target) in LINKS {
            std::os::unix::fs::symlink(target, root.join(link)).unwrap();
        }
        std::os::unix::fs::symlink(&outside, root.join("src/out")).unwrap();
    };
    // Whether `OKRS` names `okrs` on this file system: then it is the protected directory.
    let folds = |root: &Path| root.join("OKRS").exists();
    let protected = "protected_path_write";
    let unresolvable = "path_unresolvable";
    let mut wrong: Vec<String> = Vec::new();

    // The main session: where a write lands against the protected paths (R-32).
    let kernel = Kernel::new(true, true, true).await;
    layout(&kernel.project.root);
    let case = if folds(&kernel.project.root) { Expect::Deny(protected) } else { Expect::Proceed };
    let rows: [(&str, Expect, &str); 10] = [
        ("src/a.txt", Expect::Proceed, "a plain file outside"),
        (
            "src/l/../okrs/q4.md",
            Expect::Deny(protected),
            "a link to a sibling, then `..`: the kernel lands in okrs",
        ),
        ("src/up/okrs/q4.md", Expect::Deny(protected), "a link to `..`"),
        ("src/c1/q4.md", Expect::Deny(protected), "a chain of links into okrs"),
        ("src/final", Expect::Deny(protected), "a link as the final component, to a protected file"),
        ("okrs/l/../q4.md", Expect::Deny(protected), "`..` removed as text first lands in okrs"),
        ("src/dangling", Expect::Deny(unresolvable), "a link to nothing"),
        ("src/loop1/x.txt", Expect::Deny(unresolvable), "a loop"),
        ("src/inner/c.txt", Expect::Proceed, "a link that stays outside"),
        ("OKRS/q4.md", case, "another case: protected only where the file system folds it"),
    ];
    for (relative, expect, why) in rows {
        let path = kernel.project.root.join(relative).display().to_string();
        for spec in [ToolSpec::Write { path: &path }, ToolSpec::Edit { path: &path }] {
            let answer = kernel.tool_call(harness, None, spec).await;
            wrong.extend(unexpected(&answer, expect, &format!("the main session, {spec:?}: {why}")));
        }
    }

    // A planner held to `src/`: where a write or a read lands against its rule scopes (T-17).
    let project = project_with("[\"Edit(src/**)\", \"Read(src/**)\"]");
    layout(&project.root);
    let kernel = Kernel::over(project, true, true, true).await;
    let planner = kernel.planner(harness, "call-1").await;
    let not_granted = "tool_not_allowed";
    let rows: [(&str, Expect, &str); 9] = [
        ("src/a.txt", Expect::Proceed, "inside the scope"),
        ("src/inner/b.txt", Expect::Proceed, "a link that stays inside the scope"),
        ("src/up/escape5.txt", Expect::Deny(not_granted), "a link to `..`: lands outside src/"),
        ("src/l/../agentwarden.toml", Expect::Deny(not_granted), "a link to a sibling, then `..`"),
        ("src/out/x.txt", Expect::Deny(not_granted), "a link outside the project"),
        ("src/c1/x.md", Expect::Deny(protected), "a chain of links into okrs"),
        ("src/final", Expect::Deny(protected), "a final link to a protected file"),
        ("src/dangling", Expect::Deny(unresolvable), "a link to nothing"),
        ("src/loop1/x.txt", Expect::Deny(unresolvable), "a loop"),
    ];
    for (relative, expect, why) in rows {
        let path = kernel.project.root.join(relative).display().to_string();
        for spec in [ToolSpec::Write { path: &path }, ToolSpec::Edit { path: &path }] {
            let answer = kernel.tool_call(harness, Some(planner), spec).await;
            wrong.extend(unexpected(&answer, expect, &format!("the planner, {spec:?}: {why}")));
        }
    }
    let reads: [(&str, Expect, &str); 7] = [
        ("src/a.txt", Expect::Proceed, "inside the scope"),
        ("src/inner", Expect::Proceed, "a link that stays inside the scope"),
        ("src/out", Expect::Deny(not_granted), "a link outside the project, itself"),
        ("src/up/agentwarden.toml", Expect::Deny(not_granted), "a link to `..`"),
        ("src/l/../agentwarden.toml", Expect::Deny(not_granted), "a link to a sibling, then `..`"),
        ("src/out/x.txt", Expect::Deny(not_granted), "a link outside the project"),
        ("src/loop1/x.txt", Expect::Deny(unresolvable), "a loop"),
    ];
    for (relative, expect, why) in reads.into_iter().filter(|_| harness.reads_by_path()) {
        let path = kernel.project.root.join(relative).display().to_string();
        for spec in [ToolSpec::Read { path: &path }, ToolSpec::Search { root: &path }] {
            let answer = kernel.tool_call(harness, Some(planner), spec).await;
            wrong.extend(unexpected(&answer, expect, &format!("the planner, {spec:?}: {why}")));
        }
    }
    assert!(
        wrong.is_empty(),
        "{}: paths judged elsewhere than written:\n{}",
        harness.name(),
        wrong.join("\n")
    );
}

/// `None` when `answer` is what `expect` says; else what went wrong.
fn unexpected(answer: &HookAnswer, expect: Expect, situation: &str) -> Option<String> {
    match (expect, answer) {
        (Expect::Proceed, HookAnswer::Proceed) => None,
        (Expect::Deny(what), HookAnswer::Deny { reason }) if reason.as_str().contains(what) => None,
        (expect, answer) => Some(format!("{situation}: expected {expect:?}, got {answer:?}")),
    }
}

/// A subagent that changed a protected file may not stop: the stop is blocked, and the file is
/// put back. The main session's stop (H-45, H-46) the same, against the snapshot taken when the
/// session started: a change made since, by the main agent or anyone, is put back and blocks
/// the stop once; a repeated stop after a new change puts it back and is let through.
pub async fn a_stop_after_a_protected_change_is_blocked_and_reverted(harness: &dyn Scenarios) {
    let kernel = Kernel::new(true, true, true).await;
    let cwd = kernel.cwd();
    let started = kernel.ask(harness, &harness.session_start(SESSION, &cwd)).await;
    assert_eq!(started, HookAnswer::Proceed, "{}: the session's start", harness.name());
    let planner = kernel.planner(harness, "call-1").await;
    let file = kernel.project.root.join(PROTECTED.0);
    let blocked = |answer: &HookAnswer, whose: &str| match answer {
        HookAnswer::Block { reason } if reason.as_str().contains("protected_path_changed") => {}
        other => panic!(
            "{}: {whose} stop after a protected change: expected a block, got {other:?}",
            harness.name()
        ),
    };
    let reverted = |whose: &str| {
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            PROTECTED.1,
            "{}: the change is reverted at {whose} stop",
            harness.name()
        );
    };
    std::fs::write(&file, "# Q4, rewritten by the agent\n").unwrap();
    let answer = kernel.ask(harness, &harness.stop(SESSION, planner, &cwd)).await;
    blocked(&answer, "a subagent's");
    reverted("a subagent's");

    let clean = kernel.ask(harness, &harness.session_stop(SESSION, &cwd, false)).await;
    assert_eq!(clean, HookAnswer::Proceed, "{}: the session's stop, nothing changed", harness.name());
    std::fs::write(&file, "# Q4, rewritten by the main agent\n").unwrap();
    let added = kernel.project.root.join("okrs/added.md");
    std::fs::write(&added, "new\n").unwrap();
    let answer = kernel.ask(harness, &harness.session_stop(SESSION, &cwd, false)).await;
    blocked(&answer, "the session's");
    reverted("the session's");
    assert!(!added.exists(), "{}: an added protected file is removed at the session's stop", harness.name());
    // A later start of the same session keeps the first snapshot and is checked against it:
    // nothing is laundered, what changed before it is put back there, never held (H-52).
    std::fs::write(&file, "# Q4, changed before a resume\n").unwrap();
    let again = kernel.ask(harness, &harness.session_start(SESSION, &cwd)).await;
    assert!(
        matches!(again.failure(), Some(text) if text.contains("protected_path_changed")),
        "{}: the session's second start puts back and says so: {again:?}",
        harness.name()
    );
    reverted("the session's second start");
    std::fs::write(&file, "# Q4, changed after the resume\n").unwrap();
    let repeated = kernel.ask(harness, &harness.session_stop(SESSION, &cwd, true)).await;
    assert_eq!(
        repeated,
        HookAnswer::Proceed,
        "{}: a repeated stop is let through (stop_hook_active), the change put back",
        harness.name()
    );
    reverted("the session's repeated");
    assert!(
        kernel.storage.marker(SESSION).unwrap().is_none(),
        "{}: a change put back quarantines nothing",
        harness.name()
    );
}

/// A main session whose start Warden did not see has no snapshot: its stop cannot be checked,
/// so the session is quarantined and the stop blocked once with the reason (H-45).
pub async fn a_sessions_stop_without_a_snapshot_quarantines_it(harness: &dyn Scenarios) {
    let kernel = Kernel::new(true, true, true).await;
    let cwd = kernel.cwd();
    let answer = kernel.ask(harness, &harness.session_stop(SESSION, &cwd, false)).await;
    match &answer {
        HookAnswer::Block { reason } if reason.as_str().contains("snapshot_missing") => {}
        other => {
            panic!("{}: a session's stop without a snapshot: expected a block, got {other:?}", harness.name())
        }
    }
    assert!(kernel.storage.marker(SESSION).unwrap().is_some(), "{}: quarantined", harness.name());
    let repeated = kernel.ask(harness, &harness.session_stop(SESSION, &cwd, true)).await;
    assert_eq!(repeated, HookAnswer::Proceed, "{}: the repeated stop is let through", harness.name());
}

/// A subagent that starts after the main agent changed a protected file, and stops after the
/// session's stop put it back, does not bring the change back (H-47); the session's end puts
/// back what is left, never blocks, and keeps the session's snapshot (H-48, H-53); a start
/// after the end is checked against it and puts back what changed since (H-52).
pub async fn a_late_subagent_and_the_sessions_end_hold_the_sessions_start(harness: &dyn Scenarios) {
    let kernel = Kernel::new(true, true, true).await;
    let cwd = kernel.cwd();
    let started = kernel.ask(harness, &harness.session_start(SESSION, &cwd)).await;
    assert_eq!(started, HookAnswer::Proceed, "{}: the session's start", harness.name());
    let file = kernel.project.root.join(PROTECTED.0);
    std::fs::write(&file, "# Q4, rewritten by the main agent\n").unwrap();
    let planner = kernel.planner(harness, "call-1").await;
    let stopped = kernel.ask(harness, &harness.session_stop(SESSION, &cwd, false)).await;
    assert!(
        matches!(stopped, HookAnswer::Block { .. }),
        "{}: the session's stop: {stopped:?}",
        harness.name()
    );
    let late = kernel.ask(harness, &harness.stop(SESSION, planner, &cwd)).await;
    assert_eq!(late, HookAnswer::Proceed, "{}: nothing differs from the session's start", harness.name());
    let at_start = |when: &str| {
        let now = std::fs::read_to_string(&file).unwrap();
        assert_eq!(now, PROTECTED.1, "{}: {when}: the file as the session started", harness.name());
    };
    at_start("after the late subagent's stop");
    let Some(end) = harness.session_end(SESSION, &cwd) else { return };
    std::fs::write(&file, "# Q4, rewritten and never stopped\n").unwrap();
    let ended = kernel.ask(harness, &end).await;
    assert!(matches!(ended, HookAnswer::Failed { .. }), "{}: told, never blocked: {ended:?}", harness.name());
    at_start("after the session's end");
    let copy = kernel.storage.read_snapshot(SESSION, agentwarden_domain::sessions::ROOT_ID).unwrap();
    assert!(copy.is_some(), "{}: the session's snapshot is kept at its end (H-53)", harness.name());
    assert!(
        kernel.storage.marker(SESSION).unwrap().is_none(),
        "{}: put back, not quarantined",
        harness.name()
    );
    // An end can be the agent's: a change made after it, then a start, is put back there (H-52).
    std::fs::write(&file, "# Q4, rewritten after the end\n").unwrap();
    let again = kernel.ask(harness, &harness.session_start(SESSION, &cwd)).await;
    assert!(matches!(again, HookAnswer::Failed { .. }), "{}: told, never held: {again:?}", harness.name());
    at_start("after a start that followed the end");
    let kept = kernel.storage.read_snapshot(SESSION, agentwarden_domain::sessions::ROOT_ID).unwrap();
    assert_eq!(kept, copy, "{}: the start replaced nothing", harness.name());
}

/// Input the kernel cannot use is a failure, never a guess: garbage, nothing, too much.
pub async fn garbage_empty_and_oversized_input_fail(harness: &dyn Scenarios) {
    let kernel = Kernel::new(true, true, true).await;
    let cwd = kernel.cwd();
    let long = "x".repeat(MAX_HOOK_INPUT);
    let oversized = harness.spawn(&Spawn {
        session: SESSION,
        call_id: "call-1",
        subagent_type: "planner",
        prompt: &long,
        caller: None,
        cwd: &cwd,
    });
    for (wire, what) in
        [("{not json", "garbage"), ("", "empty"), ("\u{0}\u{1}", "binary"), (oversized.as_str(), "oversized")]
    {
        assert!(harness.decode(wire).is_err(), "{}: {what} input decodes as nothing", harness.name());
        let answer = kernel.ask(harness, wire).await;
        assert!(matches!(answer, HookAnswer::Failed { .. }), "{}: {what} input: {answer:?}", harness.name());
    }
}

/// A store that cannot be used: every decision fails, none is allowed.
pub async fn a_store_that_cannot_be_used_fails(harness: &dyn Scenarios) {
    let project = project();
    let warden = Warden::builder()
        .event_store(Arc::new(UnavailableEventStore::new("the store is gone".to_owned())))
        .without_state()
        .environment(Arc::new(FixedEnvironment::with(ENABLE, "true")))
        .config(project.config.clone())
        .build()
        .unwrap();
    let storage = HookStorage::new(project.root.join(".agentwarden"));
    let cwd = project.root.display().to_string();
    let spawn = Spawn {
        session: SESSION,
        call_id: "call-1",
        subagent_type: "planner",
        prompt: "plan",
        caller: None,
        cwd: &cwd,
    };
    let wire = harness.spawn(&spawn);
    let answer = warden.hook_parsed(&wire, harness.decode(&wire), &storage).await;
    let read = read_back(harness, &answer);
    assert!(
        matches!(read, HookAnswer::Failed { .. }),
        "{}: a spawn over an unusable store: {read:?}",
        harness.name()
    );
}

/// Issue 47, item 2, without a seal (H-58): the main agent's shell empties the protected list of
/// the live configuration (`sed -i 's/^protected = .*/protected = []/' agentwarden.toml`), then
/// writes a protected file through its write tool. Through the hook's entry as `warden hook`
/// runs it — the live file loaded for every event, the fast path first — the configuration the
/// session's first start found decides, and the deny names the edited file.
pub async fn an_unsealed_configuration_edited_after_the_start_decides_nothing(harness: &dyn Scenarios) {
    let kernel = Kernel::new(true, false, false).await;
    let cwd = kernel.cwd();
    let started = kernel.ask_as_hook(harness, &harness.session_start(SESSION, &cwd)).await;
    assert_eq!(started, HookAnswer::Proceed, "{}: the session's start", harness.name());
    let path = kernel.project.root.join(PROTECTED.0).display().to_string();
    let outside = kernel.project.root.join("notes.md").display().to_string();
    let tool = |call_id, path| Tool {
        session: SESSION,
        call_id,
        caller: None,
        cwd: &cwd,
        spec: ToolSpec::Write { path },
    };
    // A call the store answers writes the fast path's index (H-24).
    let before = kernel.ask_as_hook(harness, &harness.tool(&tool("call-1", &outside))).await;
    assert_eq!(before, HookAnswer::Proceed, "{}: a write outside before the edit", harness.name());
    let config = kernel.project.root.join("agentwarden.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, text.replace("protected = [\"okrs\"]", "protected = []")).unwrap();
    let answer = kernel.ask_as_hook(harness, &harness.tool(&tool("call-2", &path))).await;
    denied_with(harness, &answer, "okrs", "a protected write after the agent emptied the unsealed list");
    denied_with(harness, &answer, "changed since the session started", "the edited file named");
    let after = kernel.ask_as_hook(harness, &harness.tool(&tool("call-3", &outside))).await;
    assert_eq!(after, HookAnswer::Proceed, "{}: a write outside after the edit", harness.name());
    // A session Warden did not see start has no configuration to be decided with (H-59).
    let unseen = Tool {
        session: "unseen-session",
        call_id: "call-4",
        caller: None,
        cwd: &cwd,
        spec: ToolSpec::Write { path: &outside },
    };
    let answer = kernel.ask_as_hook(harness, &harness.tool(&unseen)).await;
    assert!(
        matches!(answer.failure(), Some(text) if text.contains("session_rules_missing")),
        "{}: a call of a session with no recorded start: {answer:?}",
        harness.name()
    );
}

/// The fake launcher the confinement scenario installs: it passes the kernel probe (exit 0);
/// the suite checks the answer and the record, the launcher's own tests what it enforces.
const FAKE_LAUNCHER: &str = "bin/warden-confine";

/// An allowed shell call of a subagent held to a manifest (issue 50): under `[confine] mode =
/// "required"`, a harness whose hook can replace the input is answered with the call's input,
/// the command the launcher around the original, every other field kept, read back exactly
/// (H-61, H-62); any other is denied with `confinement_unavailable` (E-13). Either way the
/// allow event records the outcome (E-14). With `main_session`, the main session's shell call
/// is rewritten as well (E-15).
pub async fn an_allowed_shell_call_runs_under_the_launcher(harness: &dyn Scenarios) {
    let mut project = project_with(r#"["Bash(python3:*)", "Edit(src/**)"]"#);
    project.config.confine =
        crate::ConfineConfig { mode: agentwarden_domain::confine::ConfineMode::Required, main_session: true };
    harness.allow_shell(&project.root, "Bash(python3:*)");
    write(&project.root.join(FAKE_LAUNCHER), "#!/bin/sh\nexit 0\n");
    let made_executable =
        std::process::Command::new("chmod").arg("+x").arg(project.root.join(FAKE_LAUNCHER)).status();
    assert!(made_executable.is_ok_and(|s| s.success()), "chmod the fake launcher");
    let kernel = Kernel::over(project, true, true, true).await;
    let planner = kernel.planner(harness, "call-1").await;
    let command = "python3 -c 'open(\"okrs/q4.md\", \"a\").write(\"x\")'";
    let launcher = kernel.project.root.join(FAKE_LAUNCHER).display().to_string();
    let tool = harness.shell_tools().first().copied().unwrap_or("Bash");
    for (caller, situation) in [(Some(planner), "a subagent's"), (None, "the main session's")] {
        let answer = kernel.tool_call(harness, caller, ToolSpec::Shell { tool, command }).await;
        if !harness.confines_shell() {
            denied_with(harness, &answer, "confinement_unavailable", situation);
            continue;
        }
        let HookAnswer::Rewrite { input, .. } = &answer else {
            panic!("{}: {situation} allowed shell call: expected a rewrite, got {answer:?}", harness.name());
        };
        let line = input.values().filter_map(serde_json::Value::as_str).find(|v| v.contains("v1 required"));
        let line = line.unwrap_or_else(|| panic!("{}: no launch line in {input:?}", harness.name()));
        let (launcher_word, command_word) = (
            agentwarden_domain::confine::shell_word(&launcher),
            agentwarden_domain::confine::shell_word(command),
        );
        assert!(
            line.starts_with(&format!("{launcher_word} ")) && line.ends_with(&format!(" {command_word}")),
            "{}: {situation}: the launcher around the command, each one word: {line}",
            harness.name()
        );
    }
    let records = kernel.warden.event_store().read(1, 10_000).await.unwrap();
    let confined = records
        .iter()
        .map(|r| String::from_utf8_lossy(&r.body).into_owned())
        .filter(|body| body.contains("tool_call_authorized") && body.contains("\"confinement\""))
        .count();
    // A harness that names no subagent judges a call while one runs as that subagent's (M-2).
    let expected = if harness.subagents_spawn() { 1 } else { 2 };
    assert_eq!(confined, expected, "{}: each subagent's allow records its confinement", harness.name());
}

/// Each harness is governed by its own section of the configuration, keyed as its integration
/// says (U-17): a spawn of one of its built-in agents is denied naming that section and the
/// harness; a section that lists a name not the harness's own fails every event, in the store
/// and before it; and a file with the section its settings were once read from and not its own
/// fails naming the key to add (U-18).
pub async fn the_harness_is_governed_by_its_own_section(harness: &dyn Scenarios) {
    let profile = harness.profile();
    let (name, section) = (profile.terms.harness, profile.terms.section);
    let spawn_of = |kernel: &Kernel, subagent_type: &str| {
        let cwd = kernel.cwd();
        let spawn = Spawn {
            session: SESSION,
            call_id: "call-1",
            subagent_type,
            prompt: "p",
            caller: None,
            cwd: &cwd,
        };
        harness.spawn(&spawn)
    };
    if let Some(builtin) = profile.builtin_agents.first() {
        let kernel = Kernel::over(project_configured(&format!("[{section}]\n")), true, true, true).await;
        let answer = kernel.ask(harness, &spawn_of(&kernel, builtin)).await;
        denied_with(
            harness,
            &answer,
            &format!("`[{section}] builtin_agents`"),
            "a built-in agent not listed",
        );
        denied_with(
            harness,
            &answer,
            &format!("a built-in {name} agent type"),
            "the denial names its harness",
        );
        // Listed in its own section, sealed: the sealed configuration's section lets it past
        // H-20 (the gate still wants an instruction file for it).
        let listed = project_configured(&format!("[{section}]\nbuiltin_agents = [\"{builtin}\"]\n"));
        let kernel = Kernel::over(listed, true, true, true).await;
        let answer = kernel.ask(harness, &spawn_of(&kernel, builtin)).await;
        let reason = answer.reason().map(|r| r.as_str().to_owned()).unwrap_or_default();
        assert!(
            !reason.contains("builtin_agent"),
            "{}: a built-in agent its sealed section lists passes H-20: {answer:?}",
            harness.name()
        );
    }
    let failed_with = |answer: &HookAnswer, what: &str, situation: &str| match answer {
        HookAnswer::Failed { code: agentwarden_domain::code::Code::ConfigInvalid, reason }
            if reason.as_str().contains(what) => {}
        other => {
            panic!("{}: {situation}: expected config_invalid naming `{what}`, got {other:?}", harness.name())
        }
    };
    let foreign = project_configured(&format!("[{section}]\nbuiltin_agents = [\"no-harness-has-this\"]\n"));
    let kernel = Kernel::over(foreign, true, true, true).await;
    let answer = kernel.ask(harness, &spawn_of(&kernel, "planner")).await;
    failed_with(
        &answer,
        &format!("`[{section}] builtin_agents`"),
        "a name not the harness's own, at the store",
    );
    let cwd = kernel.cwd();
    let path = kernel.project.root.join("notes.md").display().to_string();
    let tool = Tool {
        session: SESSION,
        call_id: "call-2",
        caller: None,
        cwd: &cwd,
        spec: ToolSpec::Write { path: &path },
    };
    let answer = kernel.ask_as_hook(harness, &harness.tool(&tool)).await;
    failed_with(
        &answer,
        &format!("`[{section}] builtin_agents`"),
        "a name not the harness's own, before the store",
    );
    if let Some(former) = profile.formerly {
        let old = project_configured(&format!("[{former}]\nmain_persona = \"main\"\n"));
        let kernel = Kernel::over(old, true, true, true).await;
        let answer = kernel.ask(harness, &spawn_of(&kernel, "planner")).await;
        failed_with(&answer, &format!("add a `[{section}]` section"), "the old shared section alone");
        let answer = kernel.ask_as_hook(harness, &harness.tool(&tool)).await;
        failed_with(
            &answer,
            &format!("add a `[{section}]` section"),
            "the old shared section alone, before the store",
        );
    }
}
