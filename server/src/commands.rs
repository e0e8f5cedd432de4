//! The decision commands (V-13, V-54): each typed question answered by the use case direct mode
//! runs too (`agentwarden::questions`), and the server's checks around it (the configuration,
//! the paths, the peer).

use std::path::{Path, PathBuf};

use agentwarden::harness::Harness;
use agentwarden::questions::{checked, decide};
use agentwarden::requests::Actor;
use agentwarden::{Code, Config, Deferring, Warden};
use agentwarden_protocol::{AbsolutePath, Answer, Question};

/// One `decide` request, as the decider takes it.
#[derive(Debug)]
pub(crate) struct DecideRequest {
    /// The client's configuration file, canonical.
    pub(crate) config: AbsolutePath,
    /// What it asks.
    pub(crate) question: Question,
    /// Who asks (V-18): recorded as the actor of every event the question records.
    pub(crate) peer: Actor,
}

/// What the decider answers `decide` requests with.
#[derive(Debug)]
pub(crate) struct Host {
    /// The Warden on the server's store (appending durably: a command's events are not left to
    /// the group's sync).
    pub(crate) warden: Warden,
    /// The server's configuration file, canonical.
    pub(crate) config: Option<PathBuf>,
    /// Directories no path of a question may lead into (V-15): the store's and the socket's,
    /// canonical.
    pub(crate) guarded: Vec<PathBuf>,
}

/// Answers one `decide` request (V-13, V-15, V-16, V-54) on the decider's thread (V-7), its
/// `authorize` input read as `harness`'s calls (T-16): the
/// events its question records are appended (durable) before it returns. The request must name
/// the server's own configuration; no path of its question may lead into the server's store or
/// socket directory.
pub(crate) async fn answer(host: &Host, harness: &dyn Harness, request: DecideRequest) -> Answer {
    let DecideRequest { config, question, peer } = request;
    if host.config.as_deref() != Some(config.as_path()) {
        let name = |p: Option<&Path>| p.map_or_else(|| "none".to_owned(), |p| format!("`{}`", p.display()));
        return Answer::error(
            Code::ServerConfigMismatch,
            format!(
                "the command's configuration is {} but this server decides with {}; run it with the project's \
                 `--config` (or from its root)",
                name(Some(config.as_path())),
                name(host.config.as_deref())
            ),
        );
    }
    if let Some(path) = question.paths().into_iter().find(|p| guarded(p.as_path(), &host.guarded)) {
        return Answer::error(
            Code::PathRefused,
            format!("`{}` leads into the server's store or socket directory", path.as_str()),
        );
    }
    let loaded = match Config::load(Some(config.as_path())) {
        Ok(loaded) => loaded,
        Err(e) => return Answer::error(Code::ConfigInvalid, e.to_string()),
    };
    let warden = as_peer(&host.warden, loaded, &peer);
    let checked = match checked(question) {
        Ok(checked) => checked,
        Err(e) => return Answer::error(e.code(), e.to_string()),
    };
    match decide(&warden, harness, checked).await {
        Ok(outcome) => Answer::Decided { outcome: Box::new(outcome) },
        Err(e) => Answer::error(e.code(), e.to_string()),
    }
}

/// Whether `path` (absolute) leads into one of `dirs` (canonical): its nearest existing ancestor
/// is resolved, links included, and what follows it appended (V-15).
pub(crate) fn guarded(path: &Path, dirs: &[PathBuf]) -> bool {
    let mut existing = path;
    let mut rest = Vec::new();
    let resolved = loop {
        if let Ok(found) = std::fs::canonicalize(existing) {
            break rest.iter().rev().fold(found, |p: PathBuf, c| p.join(c));
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_owned());
                existing = parent;
            }
            // `..` or the root that cannot be resolved: refused, to be safe.
            _ => return true,
        }
    };
    dirs.iter().any(|dir| resolved.starts_with(dir))
}

/// `warden` deciding with `config` and recording as `peer` (V-18). A guardrail violation, which
/// direct mode records as the configured `[guardrails] actor`, names the peer after it:
/// `daemon (warden-serve peer uid=1000 pid=4242)`.
pub(crate) fn as_peer(warden: &Warden, mut config: Config, peer: &Actor) -> Warden {
    config.guardrails.actor = format!("{} ({})", config.guardrails.actor, peer.as_str());
    warden.with_config(config).with_actor(peer.clone())
}

/// [`as_peer`] for the decider's deferring Warden.
pub(crate) fn deferring_as_peer(warden: &Deferring, mut config: Config, peer: &Actor) -> Deferring {
    config.guardrails.actor = format!("{} ({})", config.guardrails.actor, peer.as_str());
    warden.with_config(config).with_actor(peer.clone())
}

/// The actor of the events recorded for a peer (V-18).
pub(crate) fn peer_actor(uid: Option<u32>, pid: Option<i32>) -> Result<Actor, String> {
    let uid = uid.ok_or("the peer's uid cannot be read (SO_PEERCRED)")?;
    let pid = pid.map_or_else(|| "unknown".to_owned(), |p| p.to_string());
    Actor::new(format!("warden-serve peer uid={uid} pid={pid}")).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_into_the_store_is_refused_however_it_is_spelled() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("audit");
        std::fs::create_dir_all(store.join("blobs")).unwrap();
        std::fs::create_dir_all(dir.path().join("project")).unwrap();
        std::os::unix::fs::symlink(&store, dir.path().join("project/link")).unwrap();
        let dirs = [std::fs::canonicalize(&store).unwrap()];
        let p = dir.path();
        for (path, refused, why) in [
            (p.join("audit/db"), true, "a file of the store"),
            (p.join("audit"), true, "the store itself"),
            (p.join("project/../audit/conf"), true, "through `..`"),
            (p.join("project/link/db"), true, "through a link"),
            (p.join("project/link/new/violation.json"), true, "a new file through a link"),
            (p.join("project/request.json"), false, "beside the store"),
            (p.join("audit-other/x"), false, "a sibling whose name starts alike"),
        ] {
            assert_eq!(guarded(&path, &dirs), refused, "{why}: {}", path.display());
        }
    }

    #[test]
    fn the_peer_is_named_by_uid_and_pid_and_an_unknown_uid_is_refused() {
        assert_eq!(
            peer_actor(Some(1000), Some(4242)).unwrap().as_str(),
            "warden-serve peer uid=1000 pid=4242"
        );
        assert_eq!(peer_actor(Some(0), None).unwrap().as_str(), "warden-serve peer uid=0 pid=unknown");
        assert!(peer_actor(None, Some(1)).is_err());
    }
}
