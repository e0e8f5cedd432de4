//! `warden doctor`: check that everything Warden reads in a Claude Code, Codex or Gemini CLI project is
//! usable, and that the installed hook really blocks — by running it.
//!
//! H-14: the entries are read back from where Claude Code reads them and each line checked
//! (each harness crate's `setup::installed`, N-13: the form in force, `disableAllHooks`, a missing binary, a line
//! without the `|| exit 2` tail, a timeout without margin over the lock wait and the
//! deadline). C-10: with `--harness codex`, Codex's hooks the same way: the managed
//! requirements or the project's configuration, the project trusted in Codex's home, each event
//! `init codex` installs, the binary, the configuration the lines name, the tail, the timeout's
//! margin; then its canary (C-11). Here: what would make a guarded session unsafe or useless —
//! no git repository where reverts need one (any protected path: reverts restore what git `HEAD` holds),
//! `.agentwarden/` not ignored by git (a subagent's `git add -A && git commit` would take the
//! log into history), the guard's own files not protected (H-12), no seal in force, no active
//! approval. Then the canary (H-15, [`super::canary`]) runs each installed line.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::json;

use agentwarden_domain::governance::{
    ApprovalState, FileRead, PersonaReading, ReadDigests, read_agent, read_persona, seal_changes,
};

use super::canary::Harness;
use super::setup::{covered, in_git_work_tree, own_files, own_files_of, store_ignored};
use super::trust::{Given, Server, Trusted};
use super::{EXIT_NO, EXIT_OK, Failure};
use agentwarden::manifests::load_manifests;
use agentwarden::{Config, SledConfig, StoreError, Verification, Warden, WardenError};
use agentwarden_doctor::Check;

#[derive(Debug, clap::Args)]
pub(super) struct DoctorArgs {
    /// The project's root directory [default: the nearest directory, from here upward, with an
    /// `agentwarden.toml` (N-1), else this one].
    #[arg(long, value_name = "DIR")]
    project: Option<PathBuf>,
    /// The configuration (default: `agentwarden.toml` in the project).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// A managed-settings file to read instead of `/etc/claude-code/managed-settings.json` and
    /// `/etc/claude-code/managed-settings.d/*.json` (repeatable, in merge order); with
    /// `--harness codex`, the managed requirements instead of `/etc/codex/requirements.toml`;
    /// with `--harness gemini`, the system settings instead of `/etc/gemini-cli/settings.json`.
    #[arg(long, value_name = "FILE")]
    managed: Vec<PathBuf>,
    /// The harness whose installed hooks are checked (C-10).
    #[arg(long, value_name = "NAME", default_value = "claude-code", value_parser = ["claude-code", "codex", "gemini"])]
    harness: String,
    /// With `--harness codex`: Codex's home, where the project must be trusted [default:
    /// `$CODEX_HOME`, else `~/.codex`].
    #[arg(long, value_name = "DIR")]
    codex_home: Option<PathBuf>,
    /// Print the checks as one JSON object.
    #[arg(long)]
    json: bool,
}

fn read(path: &Path) -> FileRead {
    // By descriptor, like every read of a file an agent can touch (U-1).
    match agentwarden_adapters::untrusted::read_text(None, path, agentwarden::MAX_INPUT_BYTES) {
        Ok(text) => FileRead::Text(text),
        Err(agentwarden_adapters::untrusted::UntrustedError::Missing { .. }) => FileRead::Missing,
        Err(e) => FileRead::Unreadable(e.to_string()),
    }
}

/// The harness's section of the configuration and the sections no harness reads (U-17, U-19).
fn harness_section(config: &Config, settings: &agentwarden::HarnessSettings) -> Check {
    let known = agentwarden_hook_client::HookHarness::profiles();
    let unread = config.sections_no_harness_reads(&known);
    let section = settings.terms.section;
    if unread.is_empty() {
        let read = if config.harnesses.contains_key(section) { "its section" } else { "the defaults" };
        Check::ok("harness section", format!("{} reads `[{section}]`: {read}", settings.terms.harness))
    } else {
        let keys: Vec<String> = known.iter().map(|p| format!("`[{}]`", p.terms.section)).collect();
        Check::fail(
            "harness section",
            format!("no harness reads `[{}]`", unread.join("]`, `[")),
            format!("name each harness's section by its key ({}) or remove it", keys.join(", ")),
        )
    }
}

/// The persona, agent and manifest files; returns the first declared subagent of the main
/// persona (the canary asks for it).
fn check_files(config: &Config, main: &str, section: &str, checks: &mut Vec<Check>) -> Option<String> {
    let persona_file =
        agentwarden_domain::governance::Name::new(main).map(|name| config.subagents.persona_path(&name));
    let declared = match persona_file.as_ref().map(|path| (path, read_persona(main, Some(&read(path))))) {
        Err(e) => {
            checks.push(Check::fail(
                "persona",
                e.to_string(),
                format!("set `[{section}] main_persona` to a plain name"),
            ));
            Vec::new()
        }
        Ok((path, PersonaReading::Invalid(verdict))) => {
            let fix = format!("write `{}` with a `subagents:` list in its frontmatter", path.display());
            checks.push(Check::fail("persona", verdict.reason().to_string(), fix));
            Vec::new()
        }
        Ok((path, PersonaReading::Valid(persona))) => {
            let names: Vec<String> = persona.declared.iter().map(|n| n.as_str().to_owned()).collect();
            checks.push(Check::ok("persona", format!("`{}` declares {}", path.display(), names.join(", "))));
            persona.declared
        }
    };
    let first = declared.first().map(|n| n.as_str().to_owned());
    // Every agent reachable from the main persona: each declared subagent's own instruction
    // file, and the subagents it declares in turn when it is a persona too.
    let mut queue: std::collections::VecDeque<_> = declared.into();
    let mut seen = std::collections::BTreeSet::new();
    while let Some(name) = queue.pop_front() {
        if !seen.insert(name.clone()) {
            continue;
        }
        let path = config.subagents.agent_path(&name);
        let reading = read_agent(&read(&path));
        checks.push(if reading.verdict.passed() {
            Check::ok("agent", format!("`{}`: {}", path.display(), reading.verdict.reason()))
        } else {
            let fix = format!("give `{}` frontmatter with `AGENT_TYPE: 2`", path.display());
            Check::fail("agent", format!("`{}`: {}", path.display(), reading.verdict.reason()), fix)
        });
        let persona = config.subagents.persona_path(&name);
        if let PersonaReading::Valid(p) = read_persona(name.as_str(), Some(&read(&persona))) {
            queue.extend(p.declared);
        }
    }
    if let Ok(manifests) = load_manifests(&config.lineage.manifests) {
        super::doctor_tools::check_tool_rules(config, &manifests, checks);
    }
    checks.push(match load_manifests(&config.lineage.manifests) {
        Err(e) => Check::fail("manifests", e.to_string(), "fix the manifest file named above"),
        Ok(manifests) => {
            match agentwarden_domain::governance::Name::new(main).ok().and_then(|n| manifests.get(&n)) {
                Some(_) => {
                    Check::ok("manifests", format!("{} agent type(s), `{main}` included", manifests.len()))
                }
                None => Check::fail(
                    "manifests",
                    format!("no manifest for the main persona `{main}`: every spawn would be denied"),
                    format!("add `[agents.{main}]` with `can_spawn` and `max_spawn_depth` to the manifests"),
                ),
            }
        }
    });
    first
}

/// The guard protects itself (H-12), the harness's own files included; reverts need git; git
/// ignores the store.
/// What the kernel offers and what each agent's shell is confined to (issue 50, E-13, H-63,
/// H-64): a launcher or kernel that cannot confine warns under `on` and fails under `required`;
/// nothing is said under `off`.
fn confinement(project: &Path, config: &Config, main_persona: &str) -> Vec<Check> {
    use agentwarden_domain::confine::ConfineMode;
    let manifests = load_manifests(&config.lineage.manifests).map_err(|e| e.to_string());
    let root = project.to_string_lossy();
    let report =
        agentwarden::confine_report(config, manifests.as_ref().map_err(Clone::clone), main_persona, &root);
    if report.mode == ConfineMode::Off {
        return vec![Check::ok("confine", "`[confine] mode = \"off\"`: no shell call is confined")];
    }
    let mode = if report.mode == ConfineMode::Required { "required" } else { "on" };
    let problem = |detail: String, fix: &str| match report.mode {
        ConfineMode::Required => Check::fail("confine", detail, fix),
        _ => Check::warn("confine", detail, fix),
    };
    let namespaces = match &report.user_namespaces {
        Ok(n) => format!("user namespaces: up to {n}"),
        Err(why) => format!("user namespaces: unknown ({why})"),
    };
    let mut checks = vec![match (&report.launcher, &report.kernel) {
        (Err(why), _) => problem(
            format!("mode {mode}: no launcher: {why}"),
            "install `warden-confine` beside `warden` (`cargo install --path confine`)",
        ),
        (Ok(_), Err(why)) => problem(
            format!("mode {mode}: the kernel cannot confine: {why}; {namespaces}"),
            "a kernel with Landlock ABI 4 or newer and unprivileged user namespaces (docs/confinement.md)",
        ),
        (Ok(path), Ok(())) => Check::ok(
            "confine",
            format!(
                "mode {mode}: `{}` confines here (Landlock ABI 4 or newer, user and mount namespaces); {namespaces}; \
                 the main session's shell {}",
                path.display(),
                if report.main_session { "too, its protected paths read-only" } else { "is not confined" }
            ),
        ),
    }];
    match &report.agents {
        Ok(agents) => checks.extend(
            agents
                .iter()
                .map(|(name, grants)| Check::ok("confine", format!("agent `{name}`'s shell: {grants}"))),
        ),
        Err(why) => checks.push(problem(format!("the manifests cannot be read: {why}"), "fix the manifests")),
    }
    checks
}

fn check_protection(harness: Harness, project: &Path, config: &Config, checks: &mut Vec<Check>) {
    let init = format!("run `{} --project {}`", harness.init(), project.display());
    let protected = &config.guardrails.protected;
    let own = match harness {
        Harness::ClaudeCode => own_files(project, config),
        Harness::Codex => own_files_of(
            "Codex's configuration",
            &agentwarden_codex::setup::config::PROTECTED_FILES,
            project,
            config,
        ),
        Harness::Gemini => own_files_of(
            "Gemini CLI's settings",
            &agentwarden_gemini::setup::settings::PROTECTED_FILES,
            project,
            config,
        ),
    };
    checks.push(match own {
        Err(e) => Check::fail("protected", e, "move the file into the project"),
        Ok(own) => {
            let missing: Vec<&String> = own.iter().filter(|p| !covered(protected, p)).collect();
            if missing.is_empty() {
                Check::ok(
                    "protected",
                    format!("`[guardrails] protected` covers the guard's own files: {}", own.join(", ")),
                )
            } else {
                let missing: Vec<&str> = missing.iter().map(|s| s.as_str()).collect();
                Check::fail(
                    "protected",
                    format!(
                        "a subagent could change the guard's own files: {} not in `[guardrails] protected`",
                        missing.join(", ")
                    ),
                    init,
                )
            }
        }
    });
    let in_git = in_git_work_tree(project);
    if !protected.is_empty() {
        checks.push(if in_git {
            Check::ok("git", "the project is in a git work tree: reverts restore what `HEAD` holds")
        } else {
            Check::fail(
                "git",
                format!(
                    "`{}` is not in a git work tree: a change to a protected path cannot be reverted",
                    project.display()
                ),
                format!(
                    "`git -C {0} init && git -C {0} add -A && git -C {0} commit -m base`",
                    project.display()
                ),
            )
        });
    }
    if in_git {
        checks.push(match store_ignored(project) {
            Some(true) => Check::ok("ignored", "git ignores `.agentwarden/`"),
            Some(false) => Check::fail(
                "ignored",
                "git does not ignore `.agentwarden/`: a subagent's `git add -A && git commit` takes the log and its violations into history",
                format!("add `.agentwarden/` to `{}`", project.join(".gitignore").display()),
            ),
            None => Check::fail("ignored", "`git check-ignore` failed", "make `git` usable in the project"),
        });
    }
}

/// The store verifies; a seal is in force and an approval active.
async fn check_store(store: &Path, config: Option<&Config>, checks: &mut Vec<Check>) {
    // With a key list, the human signs (after a change of the list, with a key of the old) (K-8).
    let signed = config.is_some_and(|c| c.allowed_signers.is_some());
    let seal_fix = if signed {
        "a human runs `warden seal --key KEY` from their own terminal (after a change of `allowed_signers`, \
         with a key the old list names)"
    } else {
        "a human runs `warden seal --by NAME` from their own terminal"
    };
    let approve_fix = if signed {
        "a human runs `warden approve --ref GATE-YYYY-MM-DD-NNN --key KEY` from their own terminal"
    } else {
        "a human runs `warden approve --ref GATE-YYYY-MM-DD-NNN --by NAME` from their own terminal"
    };
    if !store.exists() {
        checks.push(Check::ok(
            "store",
            format!("`{}` does not exist yet: the first hook call creates it", store.display()),
        ));
        checks.push(Check::fail("seal", "no seal in force: every spawn is denied", seal_fix));
        checks.push(Check::fail("approval", "no approval recorded: every spawn is denied", approve_fix));
        return;
    }
    let mut builder = Warden::builder().embedded(SledConfig::new(store));
    if let Some(config) = config {
        builder = builder.config(config.clone());
    }
    let warden = match builder.build() {
        Ok(warden) => warden,
        Err(e) => {
            checks.push(Check::fail(
                "store",
                e.to_string(),
                "stop the process holding the store, or restore it from a backup",
            ));
            return;
        }
    };
    match warden.verify(None).await {
        Ok(Verification::Intact { head }) => {
            checks.push(Check::ok("store", format!("`{}` verifies: {} event(s)", store.display(), head.seq)));
        }
        Ok(Verification::Broken(broken)) => {
            return checks.push(Check::fail(
                "store",
                format!("the chain is broken at seq {}: {broken}", broken.seq),
                "investigate with `warden audit verify`; do not append to a broken log",
            ));
        }
        Err(e) => return checks.push(Check::fail("store", e.to_string(), "make the store readable")),
    }
    check_governance(&warden, config.is_some(), checks, seal_fix, approve_fix).await;
}

async fn check_governance(
    warden: &Warden,
    configured: bool,
    checks: &mut Vec<Check>,
    seal_fix: &str,
    approve_fix: &str,
) {
    // The saved projection agrees with the log (it is rebuilt from the log either way) (K-15).
    checks.push(match warden.saved_records_differ().await {
        Ok(differ) if differ.is_empty() => {
            Check::ok("saved records", "the saved projection agrees with the log")
        }
        Ok(differ) => Check::fail(
            "saved records",
            format!(
                "the saved projection holds {} other than the log says: the state store was written outside \
                 Warden (or kept a quarantine put back under an earlier configuration); rebuilt from the log",
                differ.join(", ")
            ),
            "find what wrote the store: an agent with your shell can; run the hook through `warden serve` \
             as another user, which folds the log itself (docs/threat-model.md)",
        ),
        Err(e) => Check::fail("saved records", e.to_string(), "make the store readable"),
    });
    let records = match warden.records().await {
        Ok(records) => records.governance,
        Err(e) => return checks.push(Check::fail("seal", e.to_string(), "make the store readable")),
    };
    checks.push(match &records.seal {
        None => Check::fail("seal", "no seal in force: every spawn is denied", seal_fix),
        // A seal whose signature does not count is no seal (K-3).
        Some(seal) if seal.refused.is_some() => Check::fail(
            "seal",
            format!(
                "the seal of seq {} is not a seal: {}; every spawn is denied at context_sealed",
                seal.seq,
                seal.refused.as_ref().map(ToString::to_string).unwrap_or_default()
            ),
            seal_fix,
        ),
        Some(seal) if !configured => {
            Check::ok("seal", format!("in force since seq {} ({} file(s))", seal.seq, seal.files.len()))
        }
        Some(seal) => match warden.seal_digests().await {
            Err(e) => Check::fail("seal", e, "make the sealed files readable"),
            Ok(now) => {
                // What the gate would read now, beside what was sealed (missing: `None`).
                let mut read: ReadDigests = now.into_iter().map(|(path, digest)| (path, Some(digest))).collect();
                for path in seal.files.keys() {
                    read.entry(path.clone()).or_insert(None);
                }
                let changes = seal_changes(&seal.files, &read);
                // A seal made by an earlier version holds the configuration's digest but not its
                // text: once the file changes, no sealed rules can decide and every hook decision
                // fails until a human seals again (H-49).
                let config_key = seal.files.keys().find(|k| {
                    Path::new(k).file_name().is_some_and(|n| n == agentwarden::config::CONFIG_FILE)
                });
                let rules_missing = config_key.is_some_and(|k| !seal.texts.contains_key(k));
                if changes.is_empty() && rules_missing {
                    Check::warn(
                        "seal",
                        format!(
                            "in force since seq {}, made by an earlier version: it holds the configuration's digest \
                             but not its rules, so a change of the file would fail every hook decision (H-49)",
                            seal.seq
                        ),
                        seal_fix,
                    )
                } else if changes.is_empty() {
                    Check::ok(
                        "seal",
                        format!("in force since seq {}; its {} file(s) unchanged", seal.seq, seal.files.len()),
                    )
                } else {
                    Check::fail(
                        "seal",
                        format!(
                            "the seal of seq {} no longer matches: {}; every spawn is denied at context_sealed",
                            seal.seq,
                            changes.join(", ")
                        ),
                        format!("review the change, then {seal_fix}"),
                    )
                }
            }
        },
    });
    let now = warden.now();
    let active: Vec<&str> = records
        .approvals
        .values()
        .filter(|r| r.refused.is_none() && r.state(now) == ApprovalState::Active)
        .map(|r| r.approval_ref.as_str())
        .collect();
    checks.push(if active.is_empty() {
        Check::fail("approval", "no active approval: every spawn is denied", approve_fix)
    } else {
        Check::ok("approval", format!("active: {}", active.join(", ")))
    });
}

/// A server whose configuration names witnesses and no log key refuses to start unless its
/// command line gives one: said here before it is met at `warden serve`.
fn witnesses_fed(config: &Config) -> Option<Check> {
    match (config.server_witnesses.len(), &config.server_log_key) {
        (0, _) => None,
        (n, Some(key)) => Some(Check::ok(
            "witnesses",
            format!("the server signs with `{}` and submits to {n} witness(es)", key.display()),
        )),
        (n, None) => Some(Check::warn(
            "witnesses",
            agentwarden_server::unfed_witnesses(n),
            "set `[server] log_key` (`warden audit keygen`), or start `warden serve --log-key FILE`",
        )),
    }
}

/// Issue 21: without `[approvals] allowed_signers` an agent with the user's shell can approve
/// itself (`env -u CLAUDECODE warden approve`); a warning, with how to set it up.
fn approval_keys(config: &Config) -> Check {
    match &config.allowed_signers {
        Some(path) => {
            match agentwarden_adapters::untrusted::read_text(
                Some(&config.root),
                path,
                agentwarden::MAX_INPUT_BYTES,
            )
            .map_err(|e| e.to_string())
            .and_then(|text| agentwarden::signing::AllowedSigners::parse(&text).map_err(|e| e.to_string()))
            {
                Ok(signers) if !signers.entries.is_empty() => Check::ok(
                    "approval keys",
                    format!(
                        "`{}` lists {} key(s): seals and approvals must be signed",
                        path.display(),
                        signers.entries.len()
                    ),
                ),
                Ok(_) => Check::fail(
                    "approval keys",
                    format!("`{}` lists no key: no seal or approval can count", path.display()),
                    "add a line `NAME namespaces=\"agentwarden\" <your ~/.ssh/id_ed25519.pub>`",
                ),
                Err(e) => Check::fail(
                    "approval keys",
                    format!("`{}` cannot be used: {e}", path.display()),
                    "fix the file (OpenSSH allowed_signers format)",
                ),
            }
        }
        None => Check::warn(
            "approval keys",
            "`[approvals] allowed_signers` is not configured: an agent with your shell can run `warden approve` itself",
            "list your SSH key in a file `allowed_signers` (`NAME namespaces=\"agentwarden\" ssh-ed25519 AAAA…`), \
             set `[approvals] allowed_signers = \"allowed_signers\"` in agentwarden.toml, then seal and approve with `--key`",
        ),
    }
}

/// The configured server answers (its store's head), or the command that starts it (V-19).
fn check_server(socket: &Path, uid: Option<u32>, config_path: &Path, checks: &mut Vec<Check>) {
    let asked = agentwarden_protocol::exchange(
        socket,
        uid,
        &agentwarden_protocol::Request::Status {},
        std::time::Duration::from_millis(2_000),
    );
    checks.push(match asked {
        Ok(agentwarden_protocol::Answer::Status { pid, store, head_seq, .. }) => Check::ok(
            "server",
            format!(
                "the server at `{}` answers (pid {pid}): store {store}, head seq {head_seq}; the store is the \
                 server's and is not opened here (its seal and approvals: `warden approvals`)",
                socket.display()
            ),
        ),
        Ok(other) => Check::fail(
            "server",
            format!("the server at `{}` answered nonsense: {other:?}", socket.display()),
            "restart it with this build of warden",
        ),
        Err(why) => Check::fail(
            "server",
            format!("{why}: every hook call and served command fails closed until it answers"),
            format!(
                "start it: `warden serve --config {}` (or `systemctl start agentwarden`)",
                config_path.display()
            ),
        ),
    });
}

/// Claude Code's own deny rules for the human verbs and the files an agent must not edit
/// (what `init claude-code` writes). Defence in depth beside the hook and the signatures: a
/// warning, with the rules missing, when any is not in force (K-13).
fn permission_rules(project: &Path, config: &Config, managed: &[PathBuf]) -> Check {
    let in_force = agentwarden_claude_code::setup::installed::deny_rules_in_force(project, managed);
    let missing: Vec<String> = super::setup::deny_rules(project, config, None)
        .into_iter()
        .filter(|rule| !in_force.contains(rule))
        .collect();
    if missing.is_empty() {
        Check::ok(
            "permission rules",
            "Claude Code denies the human verbs and edits of the store, the configuration and the key list",
        )
    } else {
        Check::warn(
            "permission rules",
            format!("Claude Code's `permissions.deny` lacks {}", missing.join(", ")),
            format!("run `warden init claude-code --project {}` again", project.display()),
        )
    }
}

/// The PostgreSQL fleet store: reachable, migrated, and its chain verifies.
async fn check_fleet_store(url: &str, checks: &mut Vec<Check>) {
    let config = match agentwarden::PgConfig::parse(url) {
        Ok(config) => config.create_if_missing(false),
        Err(e) => return checks.push(Check::fail("store", e.to_string(), "fix the postgres:// URL")),
    };
    let server = config.server();
    let warden = match Warden::builder().postgres(config).build() {
        Ok(warden) => warden,
        Err(e) => {
            return checks.push(Check::fail("store", e.to_string(), "check the PostgreSQL server and URL"));
        }
    };
    checks.push(match warden.verify(None).await {
        Ok(Verification::Intact { head }) => {
            Check::ok("store", format!("PostgreSQL at `{server}` verifies: {} event(s)", head.seq))
        }
        Ok(Verification::Broken(broken)) => Check::fail(
            "store",
            format!("the chain is broken at seq {}: {broken}", broken.seq),
            "investigate with `warden audit verify`; do not append to a broken log",
        ),
        Err(WardenError::Store(StoreError::Missing { .. })) => Check::ok(
            "store",
            format!("PostgreSQL at `{server}` has no event store yet: the first append creates it"),
        ),
        Err(e) => Check::fail("store", e.to_string(), "make the PostgreSQL server reachable from this host"),
    });
}

/// Where the kill switch `var` is read, and what it says there: through a server, the server's
/// environment (V-4), which this process cannot see. G-25: it may come only from the environment
/// a human starts the harness from, never from a file the harness loads into it (`from_files`,
/// which the agent's shell can write): one that sets it fails the check when the hooks decide
/// directly, and is a warning when they ask a server (which reads its own environment).
fn kill_switch(var: &str, served: bool, harness: Harness, from_files: &[PathBuf]) -> Check {
    if !from_files.is_empty() {
        let files: Vec<String> = from_files.iter().map(|f| format!("`{}`", f.display())).collect();
        let detail = format!(
            "`{var}` is set in {}, which {} loads into its environment (and its hooks') at start: the agent's \
             shell can write that file, so the next session's spawns would be enabled with no human involved (G-25)",
            files.join(", "),
            harness.name()
        );
        let fix = format!(
            "remove `{var}` from {}; set it only in the environment you start {} from",
            files.join(", "),
            harness.name()
        );
        return if served {
            Check::warn("kill switch", detail, fix)
        } else {
            Check::fail("kill switch", detail, fix)
        };
    }
    match (served, std::env::var(var).as_deref()) {
        (true, _) => Check::ok(
            "kill switch",
            format!(
                "the hooks ask a server: `{var}` is read from the server's environment (V-4), not this shell's"
            ),
        ),
        (false, Ok("true")) => {
            Check::ok("kill switch", format!("`{var}` is `true`: subagents may be enabled"))
        }
        (false, _) => Check::ok(
            "kill switch",
            format!(
                "`{var}` is not `true` here: every spawn is denied until {} runs with it set",
                harness.name()
            ),
        ),
    }
}

/// The configuration doctor checks: `--config`, else the project's `agentwarden.toml`.
fn config_path(args: &DoctorArgs) -> Result<PathBuf, Failure> {
    let project = match &args.project {
        Some(project) => project.clone(),
        None => agentwarden::config::project_root().map_err(|e| Failure::usage(e.to_string()))?,
    };
    Ok(args.config.clone().unwrap_or_else(|| project.join(agentwarden::config::CONFIG_FILE)))
}

/// Doctor's trust root (V-67): its command line's `--server` and `--store`, once the
/// configuration it checks names none they do not.
pub(super) fn trusted(args: &DoctorArgs, given: &Given) -> Result<Trusted, Failure> {
    let config = config_path(args).ok().and_then(|path| super::trust::load(Some(&path)));
    // With a server named, doctor asks it and opens no store.
    super::trust::resolve(given, config.as_ref(), true)
}

pub(super) async fn doctor(
    args: DoctorArgs,
    store: &Path,
    trusted_server: Option<&Server>,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    let project = match &args.project {
        Some(project) => project.clone(),
        None => agentwarden::config::project_root().map_err(|e| Failure::usage(e.to_string()))?,
    };
    let project = std::fs::canonicalize(&project)
        .map_err(|e| Failure::usage(format!("`{}`: {e}", project.display())))?;
    let harness = match args.harness.as_str() {
        "codex" => Harness::Codex,
        "gemini" => Harness::Gemini,
        // clap admits only `claude-code`, `codex` and `gemini`.
        _ => Harness::ClaudeCode,
    };
    let mut checks = Vec::new();
    let config_path = args.config.clone().unwrap_or_else(|| project.join(agentwarden::config::CONFIG_FILE));
    let entries = match harness {
        Harness::ClaudeCode => {
            agentwarden_claude_code::setup::installed::check(&project, &args.managed, &mut checks)
        }
        Harness::Codex => agentwarden_codex::setup::installed::check(
            &project,
            &config_path,
            &args.managed,
            args.codex_home.clone(),
            &mut checks,
        ),
        Harness::Gemini => {
            agentwarden_gemini::setup::installed::check(&project, &config_path, &args.managed, &mut checks)
        }
    };
    let mut canary_with = None;
    let loaded = match Config::load(Some(&config_path)) {
        Err(e) => {
            checks.push(Check::fail(
                "config",
                e.to_string(),
                match harness {
                    Harness::ClaudeCode => {
                        format!("write `{}` (see the README's \"Guard Claude Code\")", config_path.display())
                    }
                    Harness::Codex => format!("write `{}` (see docs/codex.md)", config_path.display()),
                    Harness::Gemini => format!("write `{}` (see docs/gemini.md)", config_path.display()),
                },
            ));
            None
        }
        Ok(config) => {
            checks.push(Check::ok("config", format!("`{}` loads", config_path.display())));
            let profile = harness.profile();
            let main = match config.harness(&profile) {
                Ok(settings) => {
                    checks.push(harness_section(&config, &settings));
                    settings.config.main_persona
                }
                Err(why) => {
                    let fix = format!("edit `{}` as it says", config_path.display());
                    checks.push(Check::fail("harness section", why.message, fix));
                    "main".to_owned()
                }
            };
            let first = check_files(&config, &main, profile.terms.section, &mut checks);
            check_protection(harness, &project, &config, &mut checks);
            let var = &config.subagents.enable_env;
            checks.push(approval_keys(&config));
            checks.extend(witnesses_fed(&config));
            checks.extend(confinement(&project, &config, &main));
            // Claude Code's own deny rules; Codex has none Warden writes (K-13).
            if harness == Harness::ClaudeCode {
                checks.push(permission_rules(&project, &config, &args.managed));
            }
            // What Codex's and Gemini's own rules do to a confined call (C-21, C-22, M-30).
            if config.confine.mode != agentwarden_domain::confine::ConfineMode::Off {
                match harness {
                    Harness::Codex => agentwarden_codex::setup::installed::check_confinement(
                        &project,
                        args.codex_home.clone(),
                        &mut checks,
                    ),
                    Harness::Gemini => {
                        agentwarden_gemini::setup::installed::check_confinement(&project, &mut checks)
                    }
                    Harness::ClaudeCode => {}
                }
            }
            canary_with = Some((var.clone(), first.unwrap_or_else(|| "general-purpose".to_owned())));
            Some(config)
        }
    };
    // With a server named, the store is the server's: it is asked, not opened.
    // V-48, V-49, V-67: the hooks ask the server their installed lines name (`--server`), and
    // only that one; doctor asks only the server its own command line names (`--server`, with
    // `--server-uid`), never one named by the lines or the configuration alone: lines that ask
    // another one, or none while it names one, go around it and fail without being run (V-19).
    let configured = trusted_server.map(|s| s.socket.clone());
    let configured_uid = trusted_server.and_then(|s| s.uid);
    let again = |socket: &str| {
        format!("run `{} --project {} --server {socket}` again", harness.init(), project.display())
    };
    let server = match agentwarden_doctor::server_named(&entries) {
        Err(why) => Err((why, again("PATH"))),
        Ok(Some((socket, uid))) => match &configured {
            Some(trusted) if *trusted != socket => Err((
                format!(
                    "the installed lines ask the server at `{}`, but --server names `{}`",
                    socket.display(),
                    trusted.display()
                ),
                again(&trusted.display().to_string()),
            )),
            None => Err((
                format!(
                    "the installed lines ask the server at `{}`, and doctor asks only a server its own command \
                     line names (V-67)",
                    socket.display()
                ),
                format!(
                    "run `warden doctor --server {}` (with --server-uid UID) to check it",
                    socket.display()
                ),
            )),
            _ if configured_uid.is_some() && uid != configured_uid => Err((
                format!(
                    "the installed lines believe a server running as {}, but --server-uid is {}",
                    uid.map_or_else(|| "any user".to_owned(), |uid| format!("uid {uid}")),
                    configured_uid.unwrap_or_default()
                ),
                again(&socket.display().to_string()),
            )),
            _ => Ok(Some(socket)),
        },
        Ok(None) if !entries.is_empty() && configured.is_some() => Err((
            "--server names a server, but the installed lines ask none: the hooks decide directly and never \
             ask it (V-49)"
                .to_owned(),
            again(&configured.as_ref().map(|c| c.display().to_string()).unwrap_or_default()),
        )),
        Ok(None) => Ok(configured),
    };
    let served = matches!(server, Ok(Some(_)));
    // Lines whose server doctor may not ask are not run either (V-69).
    let runnable = server.is_ok();
    if let Some((var, _)) = &canary_with {
        let codex_home = agentwarden_codex::setup::config::home(
            args.codex_home.clone(),
            std::env::var_os(agentwarden_codex::setup::config::HOME_ENV),
            std::env::var_os("HOME"),
        );
        let from_files = super::doctor_env::kill_switch_files(harness, &project, codex_home.as_deref(), var);
        checks.push(kill_switch(var, served, harness, &from_files));
    }
    // The store is closed again before the canary runs: sled admits one process at a time.
    match (server, store.to_str().filter(|s| agentwarden::PgConfig::is_postgres_url(s))) {
        (Err((why, fix)), _) => checks.push(Check::fail("server", why, fix)),
        (Ok(Some(socket)), _) => check_server(&socket, configured_uid, &config_path, &mut checks),
        (Ok(None), Some(url)) => check_fleet_store(url, &mut checks).await,
        (Ok(None), None) => {
            let store = if store.is_absolute() { store.to_path_buf() } else { project.join(store) };
            check_store(&store, loaded.as_ref(), &mut checks).await;
        }
    }
    if let Some((var, subagent)) = canary_with.filter(|_| !entries.is_empty() && runnable) {
        let probe = match served {
            false => super::canary::Probe::KillSwitchUnset { subagent: &subagent },
            true => super::canary::Probe::UndeclaredType,
        };
        super::canary::canary(harness, &project, &entries, &var, probe, &mut checks);
    }
    let healthy = checks.iter().all(|c| c.ok);
    if args.json {
        writeln!(out, "{}", json!({"healthy": healthy, "checks": checks}))?;
    } else {
        for c in &checks {
            let mark = match (c.ok, &c.fix) {
                (true, None) => "ok  ",
                (true, Some(_)) => "warn",
                (false, _) => "FAIL",
            };
            writeln!(out, "{mark}  {}: {}", c.check, c.detail)?;
            if let Some(fix) = &c.fix {
                writeln!(out, "      fix: {fix}")?;
            }
        }
    }
    Ok(if healthy { EXIT_OK } else { EXIT_NO })
}

#[cfg(test)]
mod approval_key_tests {
    use super::*;

    /// Each agent's confinement is said, and a missing launcher warns under `on` and fails under
    /// `required` (E-13, H-64).
    #[test]
    fn confinement_is_said_per_mode_and_agent() {
        use agentwarden_domain::confine::ConfineMode;
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("manifests.toml"),
            "[agents.main]\ncan_spawn = [\"coder\"]\nmax_spawn_depth = 2\ntools = [\"Bash\", \"Edit\"]\n\n\
             [agents.coder]\ncan_spawn = []\nmax_spawn_depth = 1\ntools = [\"Bash(python3:*)\", \"Edit(src/**)\"]\n",
        )
        .unwrap();
        let mut config = Config { root: dir.path().to_path_buf(), ..Config::default() };
        config.lineage.manifests = dir.path().join("manifests.toml");
        config.confine.mode = ConfineMode::Off;
        assert_eq!(confinement(dir.path(), &config, "main").len(), 1, "off: one line");
        // The test binary has no launcher beside it: `required` fails, `on` warns.
        for (mode, failed) in [(ConfineMode::Required, true), (ConfineMode::On, false)] {
            config.confine.mode = mode;
            let checks = confinement(dir.path(), &config, "main");
            let text = format!("{checks:?}");
            assert!(text.contains("no launcher"), "{text}");
            assert_eq!(!checks[0].ok, failed, "{text}");
            assert!(text.contains("agent `coder`'s shell: write:") && text.contains("/src"), "{text}");
            assert!(!text.contains("agent `main`"), "{text}");
        }
    }

    /// Witnesses with no log key are said, with how to feed them.
    #[test]
    fn witnesses_without_a_log_key_are_said() {
        let config = |key: Option<&str>| Config {
            server_witnesses: vec![("http://w:1".into(), "w+1+a".into())],
            server_log_key: key.map(PathBuf::from),
            ..Config::default()
        };
        let unfed = witnesses_fed(&config(None)).unwrap();
        assert!(unfed.ok && unfed.fix.is_some(), "a warning: {unfed:?}");
        assert!(unfed.detail.contains("nothing would be signed"), "{unfed:?}");
        let fed = witnesses_fed(&config(Some("log.key"))).unwrap();
        assert!(fed.ok && fed.fix.is_none(), "{fed:?}");
        assert!(witnesses_fed(&Config::default()).is_none());
    }

    #[test]
    fn approval_keys_warn_when_unset_and_fail_when_unusable() {
        let dir = tempfile::tempdir().unwrap();
        let config = |file: Option<&str>| Config {
            root: dir.path().to_path_buf(),
            allowed_signers: file.map(|f| dir.path().join(f)),
            ..Config::default()
        };
        let unset = approval_keys(&config(None));
        assert!(unset.ok && unset.fix.is_some(), "a warning: {unset:?}");
        std::fs::write(dir.path().join("empty"), "# nobody yet\n").unwrap();
        assert!(!approval_keys(&config(Some("empty"))).ok);
        assert!(!approval_keys(&config(Some("missing"))).ok);
        let key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAICBTpl5EwMQaftglvSQwtBQC9LrXWCh2cYt78/9jhzuH";
        std::fs::write(dir.path().join("signers"), format!("alice {key}\n")).unwrap();
        let listed = approval_keys(&config(Some("signers")));
        assert!(listed.ok && listed.fix.is_none(), "{listed:?}");
    }
}
