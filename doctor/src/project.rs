//! What `warden doctor` checks of a project whatever its harness: the persona, agent and manifest
//! files the main persona reaches, each agent's confinement, the store's chain with its seal and
//! approvals, the approval keys, and the resident service the lines ask. Each reports in
//! [`Check`]s; the command line chooses which to run and prints (issue 49: moved from it as they
//! were).

use std::path::Path;

use agentwarden::governance::{
    ApprovalState, FileRead, PersonaReading, ReadDigests, read_agent, read_persona, seal_changes,
};
use agentwarden::manifests::load_manifests;
use agentwarden::{Config, Verification, Warden, store::SledConfig};

use crate::check::Check;

fn read(path: &Path) -> FileRead {
    // By descriptor, like every read of a file an agent can touch (U-1).
    match agentwarden::files::read_text(None, path, agentwarden::MAX_INPUT_BYTES) {
        Ok(text) => FileRead::Text(text),
        Err(agentwarden::files::UntrustedError::Missing { .. }) => FileRead::Missing,
        Err(e) => FileRead::Unreadable(e.to_string()),
    }
}

/// The persona, agent and manifest files; returns the first declared subagent of the main
/// persona (the canary asks for it).
pub fn check_files(config: &Config, main: &str, section: &str, checks: &mut Vec<Check>) -> Option<String> {
    let persona_file =
        agentwarden::governance::Name::new(main).map(|name| config.subagents.persona_path(&name));
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
        crate::tools::check_tool_rules(config, &manifests, checks);
    }
    checks.push(match load_manifests(&config.lineage.manifests) {
        Err(e) => Check::fail("manifests", e.to_string(), "fix the manifest file named above"),
        Ok(manifests) => {
            match agentwarden::governance::Name::new(main).ok().and_then(|n| manifests.get(&n)) {
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

/// What the kernel offers and what each agent's shell is confined to (issue 50, E-13, H-63,
/// H-64): a launcher or kernel that cannot confine warns under `on` and fails under `required`;
/// nothing is said under `off`.
pub fn confinement(project: &Path, config: &Config, main_persona: &str) -> Vec<Check> {
    use agentwarden::config::ConfineMode;
    let manifests = load_manifests(&config.lineage.manifests).map_err(|e| e.to_string());
    let root = project.to_string_lossy();
    let report = agentwarden::confine_report(
        config,
        manifests.as_ref().map_err(|e| e.as_str().into()),
        main_persona,
        &root,
    );
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

/// The store verifies; a seal is in force and an approval active.
pub async fn check_store(store: &Path, config: Option<&Config>, checks: &mut Vec<Check>) {
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
            Err(e) => Check::fail("seal", e.to_string(), "make the sealed files readable"),
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

/// Issue 21: without `[approvals] allowed_signers` an agent with the user's shell can approve
/// itself (`env -u CLAUDECODE warden approve`); a warning, with how to set it up.
pub fn approval_keys(config: &Config) -> Check {
    match &config.allowed_signers {
        Some(path) => {
            match agentwarden::files::read_text(Some(&config.root), path, agentwarden::MAX_INPUT_BYTES)
                .map_err(|e| e.to_string())
                .and_then(|text| {
                    agentwarden::signing::AllowedSigners::parse(&text).map_err(|e| e.to_string())
                }) {
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
pub fn check_server(socket: &Path, uid: Option<u32>, config_path: &Path, checks: &mut Vec<Check>) {
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

/// The harness's section of the configuration and the sections no harness reads (U-17, U-19),
/// among the `known` harnesses' profiles.
pub fn harness_section(
    config: &Config,
    settings: &agentwarden::HarnessSettings,
    known: &[agentwarden::sessions::HarnessProfile],
) -> Check {
    let unread = config.sections_no_harness_reads(known);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Each agent's confinement is said, and a missing launcher warns under `on` and fails under
    /// `required` (E-13, H-64).
    #[test]
    fn confinement_is_said_per_mode_and_agent() {
        use agentwarden::config::ConfineMode;
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
