//! Everything `warden doctor` checks of one harness in one project, in order (N-13, N-15; issue
//! 49 item 6): the installed lines read back, the configuration and the harness's section, the
//! persona, agent and manifest files, the guard's protection of itself, the approval keys, the
//! witnesses, each agent's confinement, the harness's own deny rules (K-13) and what its rules do
//! to a confined call, the kill switch, the server or the store, then the canary. The command line
//! picks the harnesses and prints.
//!
//! V-48, V-49, V-67: the hooks ask the server their installed lines name (`--server`), and only
//! that one; doctor asks only the server its own command line names (`--server`, with
//! `--server-uid`), never one named by the lines or the configuration alone: lines that ask
//! another one, or none while it names one, go around it and fail without being run (V-19).

use std::path::{Path, PathBuf};

use agentwarden::Config;
use agentwarden::sessions::HarnessProfile;

use crate::{Check, Integration, Probe};

/// What doctor is given for every harness it checks.
#[derive(Debug)]
pub struct Checkup<'a> {
    /// The project's root, canonical.
    pub project: &'a Path,
    /// `--config`, else the project's `agentwarden.toml`.
    pub config_path: PathBuf,
    /// The managed or system files given instead of the usual ones.
    pub managed: &'a [PathBuf],
    /// The harness's home, when the command line names one.
    pub harness_home: Option<PathBuf>,
    /// The store the command line names, when no server is.
    pub store: &'a Path,
    /// The server the command line names, and its user (V-67).
    pub server: Option<(PathBuf, Option<u32>)>,
    /// Every harness's profile: the sections the configuration may hold (U-19).
    pub profiles: &'a [HarnessProfile],
    /// What the configuration's witnesses call for, said by the server's rules.
    pub witnesses: fn(&Config) -> Option<Check>,
    /// The canary's time budget, in milliseconds.
    pub deadline_ms: u64,
}

/// What `warden doctor` finds of `harness` in the project.
pub async fn checkup(harness: &'static dyn Integration, given: &Checkup<'_>) -> Vec<Check> {
    let project = given.project.to_path_buf();
    let config_path = &given.config_path;
    let mut checks = Vec::new();
    let entries =
        harness.installed(&project, config_path, given.managed, given.harness_home.clone(), &mut checks);
    let mut canary_with = None;
    let loaded = match Config::load(Some(config_path)) {
        Err(e) => {
            checks.push(Check::fail(
                "config",
                e.to_string(),
                format!("write `{}` (see {})", config_path.display(), harness.guide()),
            ));
            None
        }
        Ok(config) => {
            checks.push(Check::ok("config", format!("`{}` loads", config_path.display())));
            let profile = harness.profile();
            let main = match config.harness(&profile) {
                Ok(settings) => {
                    checks.push(crate::harness_section(&config, &settings, given.profiles));
                    settings.config.main_persona
                }
                Err(why) => {
                    let fix = format!("edit `{}` as it says", config_path.display());
                    checks.push(Check::fail("harness section", why.message, fix));
                    "main".to_owned()
                }
            };
            let first = crate::check_files(&config, &main, profile.terms.section, &mut checks);
            crate::check_protection(harness, &project, &config, &mut checks);
            let var = &config.subagents.enable_env;
            checks.push(crate::approval_keys(&config));
            checks.extend((given.witnesses)(&config));
            checks.extend(crate::confinement(&project, &config, &main));
            // The harness's own deny rules, where Warden writes any (Claude Code's, K-13).
            if let Some(in_force) = harness.deny_rules_in_force(&project, given.managed) {
                let wanted = harness.deny_rules(&project, config.allowed_signers.as_deref(), None);
                checks.push(crate::permission_rules(harness, &project, wanted, &in_force));
            }
            // What the harness's own rules do to a confined call (C-21, C-22, M-30).
            if config.confine.mode != agentwarden::config::ConfineMode::Off {
                harness.check_confinement(&project, given.harness_home.clone(), &mut checks);
            }
            canary_with = Some((var.clone(), first.unwrap_or_else(|| "general-purpose".to_owned())));
            Some(config)
        }
    };
    // With a server named, the store is the server's: it is asked, not opened.
    let configured = given.server.as_ref().map(|(socket, _)| socket.clone());
    let configured_uid = given.server.as_ref().and_then(|(_, uid)| *uid);
    let again = |socket: &str| {
        format!("run `{} --project {} --server {socket}` again", harness.init(), project.display())
    };
    let server = crate::server_to_ask(&entries, configured, configured_uid, &again);
    let served = matches!(server, Ok(Some(_)));
    // Lines whose server doctor may not ask are not run either (V-69).
    let runnable = server.is_ok();
    if let Some((var, _)) = &canary_with {
        let from_files = crate::kill_switch_files(harness, &project, given.harness_home.clone(), var);
        checks.push(crate::kill_switch(var, served, harness, &from_files));
    }
    // The store is closed again before the canary runs: sled admits one process at a time.
    let store = given.store;
    match (server, store.to_str().filter(|s| agentwarden::store::is_postgres_url(s))) {
        (Err((why, fix)), _) => checks.push(Check::fail("server", why, fix)),
        (Ok(Some(socket)), _) => crate::check_server(&socket, configured_uid, config_path, &mut checks),
        (Ok(None), Some(url)) => checks.push(fleet_store(url).await),
        (Ok(None), None) => {
            let store = if store.is_absolute() { store.to_path_buf() } else { project.join(store) };
            crate::check_store(&store, loaded.as_ref(), &mut checks).await;
        }
    }
    if let Some((var, subagent)) = canary_with.filter(|_| !entries.is_empty() && runnable) {
        let probe = match served {
            false => Probe::KillSwitchUnset { subagent: &subagent },
            true => Probe::UndeclaredType,
        };
        let timeout = given.deadline_ms / 1000;
        crate::canary(harness, &project, &entries, &var, probe, timeout, &mut checks);
    }
    checks
}

/// The PostgreSQL fleet store: reachable, migrated, and its chain verifies.
#[cfg(feature = "postgres")]
async fn fleet_store(url: &str) -> Check {
    use agentwarden::{Verification, Warden, WardenError, store::StoreError};
    let config = match agentwarden::store::PgConfig::parse(url) {
        Ok(config) => config.create_if_missing(false),
        Err(e) => return Check::fail("store", e.to_string(), "fix the postgres:// URL"),
    };
    let server = config.server();
    let warden = match Warden::builder().postgres(config).build() {
        Ok(warden) => warden,
        Err(e) => return Check::fail("store", e.to_string(), "check the PostgreSQL server and URL"),
    };
    match warden.verify(None).await {
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
    }
}

/// Without the `postgres` feature a PostgreSQL store cannot be checked: a failure, never a pass.
#[cfg(not(feature = "postgres"))]
async fn fleet_store(_url: &str) -> Check {
    Check::fail(
        "store",
        "this build has no PostgreSQL store (the `postgres` feature)",
        "run the doctor of a `warden` built with PostgreSQL",
    )
}
