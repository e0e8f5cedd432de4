//! The served decision commands (V-13): what the command line gives the server to answer `run`
//! requests with, and what it needs of the server to do so.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;

use agentwarden::{Config, Warden};
use agentwarden_domain::audit::Actor;
use agentwarden_domain::code::Code;
use agentwarden_protocol::Answer;

/// One `run` request, as the decider takes it.
#[derive(Debug)]
pub struct RunRequest {
    /// The command's arguments after `warden`.
    pub argv: Vec<String>,
    /// The client's working directory (checked absolute by [`Commands::run`]).
    pub cwd: String,
    /// The client's configuration file, canonical.
    pub config: Option<String>,
    /// Who asks (V-18): recorded as the actor of every event the command records.
    pub peer: Actor,
}

/// What the decider serves `run` requests with.
#[derive(Debug)]
pub struct Host {
    /// The Warden on the server's store (appending durably: a command's events are not left to
    /// the group's sync).
    pub warden: Warden,
    /// The server's configuration file, canonical.
    pub config: Option<PathBuf>,
    /// The server's own working directory, absolute.
    pub home: PathBuf,
    /// Directories no path argument may lead into (V-15): the store's and the socket's, canonical.
    pub guarded: Vec<PathBuf>,
}

/// The served decision commands (V-13): answers one `run` request on the decider's thread
/// (V-7), its events appended before it returns.
pub trait Commands: Send + Sync {
    /// Answers `request` with `host`'s Warden.
    fn run<'a>(&'a self, host: &'a Host, request: RunRequest) -> Pin<Box<dyn Future<Output = Answer> + 'a>>;
}

/// A server that serves no command: every `run` request is `command_not_served`.
#[derive(Clone, Copy, Debug, Default)]
pub struct NotServed;

impl Commands for NotServed {
    fn run<'a>(&'a self, _: &'a Host, _: RunRequest) -> Pin<Box<dyn Future<Output = Answer> + 'a>> {
        Box::pin(std::future::ready(Answer::error(Code::CommandNotServed, "this server serves no command")))
    }
}

/// Whether `path` (absolute) leads into one of `dirs` (canonical): its nearest existing ancestor
/// is resolved, links included, and what follows it appended (V-15).
pub fn guarded(path: &Path, dirs: &[PathBuf]) -> bool {
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
pub fn as_peer(warden: &Warden, mut config: Config, peer: &Actor) -> Warden {
    config.guardrails.actor = format!("{} ({})", config.guardrails.actor, peer.as_str());
    warden.with_config(config).with_actor(peer.clone())
}

/// The actor of the events recorded for a peer (V-18).
pub fn peer_actor(uid: Option<u32>, pid: Option<i32>) -> Result<Actor, String> {
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
