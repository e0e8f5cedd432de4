//! `warden serve`: the command line of the resident service (`agentwarden-server`): its
//! arguments and the store it holds. The server answers the decision commands' typed questions
//! itself (V-13, V-54), with the use cases direct mode runs.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use agentwarden::{Config, StoreLocation, Warden};

use super::{EXIT_OK, Failure};

/// `warden serve`.
#[derive(Debug, clap::Args)]
pub(super) struct ServeArgs {
    /// The socket to listen on [default: `[server] socket` in the configuration].
    #[arg(long, value_name = "PATH")]
    socket: Option<PathBuf>,
    /// The configuration the server decides with (default: `agentwarden.toml` in the working
    /// directory, if present); read again for every request.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// The longest a request may take, from its first byte to its answer.
    #[arg(long, default_value_t = 10_000, value_name = "MS")]
    request_timeout_ms: u64,
    /// How long a connection may take to send a complete request, from its accept or from its
    /// previous answer; past it the server answers `request_timeout` and closes it (V-51).
    #[arg(long, default_value_t = 1_000, value_name = "MS")]
    read_timeout_ms: u64,
    /// How many connections are open at once; when all are, a newcomer takes the place of one
    /// waiting on its client, and is refused only when all are working on a request (V-51).
    #[arg(long, default_value_t = 64, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    max_connections: u32,
    /// How many connections one peer (uid, pid) may hold at once; one more is refused (V-51).
    #[arg(long, default_value_t = 8, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    max_connections_per_peer: u32,
    /// The socket's permission bits, in octal (V-11): 600 lets only the server's own user
    /// connect; for a server running as its own user, 666 in a directory whose permissions
    /// admit the agent's user (or its group).
    #[arg(long, default_value = "600", value_name = "OCTAL", value_parser = parse_mode)]
    socket_mode: u32,
    /// How long SIGTERM waits for the requests in flight.
    #[arg(long, default_value_t = 10_000, value_name = "MS")]
    drain_timeout_ms: u64,
    /// Sign a checkpoint of the log after each group commit with this key (`warden audit
    /// keygen`) [default: `[server] log_key` in the configuration; none: sign nothing].
    #[arg(long, value_name = "FILE")]
    log_key: Option<PathBuf>,
}

/// `--socket-mode`: octal permission bits, at most 777.
fn parse_mode(text: &str) -> Result<u32, String> {
    u32::from_str_radix(text.trim_start_matches("0o"), 8)
        .ok()
        .filter(|mode| *mode <= 0o777)
        .ok_or_else(|| format!("`{text}` is not octal permission bits like `600` or `660`"))
}

/// Runs the server until SIGTERM or SIGINT (`agentwarden_server::run`).
///
/// V-67: the human starting the server names where it listens, its key, its witnesses and its
/// store: on this command line (`--socket`, `--log-key`, `--store`) or in a configuration
/// named by `--config`. An implicit configuration (found from the working directory upward,
/// which the agent can write) that names any of them refuses the start, never followed; and
/// `--server`, which names a server to ask, is refused here.
pub(super) async fn serve(
    args: ServeArgs,
    given: &super::trust::Given,
    stores: &agentwarden::stores::Stores,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    if given.server.is_some() {
        return Err(super::trust::refused(
            "`warden serve` listens at --socket PATH; --server names a server to ask, not one to be",
        ));
    }
    let explicit = args.config.is_some();
    if let Some(config) = super::trust::load(args.config.as_deref()) {
        super::trust::refuse_implicit_server_config(&config, explicit)?;
    }
    let stores = &agentwarden::stores::Stores { follow_config: explicit, ..stores.clone() };
    let options = agentwarden_server::ServeOptions {
        socket: args.socket,
        config: args.config,
        request_timeout: Duration::from_millis(args.request_timeout_ms),
        read_timeout: Duration::from_millis(args.read_timeout_ms),
        max_connections: usize::try_from(args.max_connections).unwrap_or(64),
        max_connections_per_peer: usize::try_from(args.max_connections_per_peer).unwrap_or(8),
        socket_mode: args.socket_mode,
        drain_timeout: Duration::from_millis(args.drain_timeout_ms),
        log_key: args.log_key,
    };
    let open = |config: Config, home: &Path| -> Result<(Warden, StoreLocation), Failure> {
        let mut stores = match stores.location(Some(&config))? {
            StoreLocation::Embedded(dir) if dir.is_relative() => {
                let dir = home.join(dir);
                let dir = dir
                    .to_str()
                    .ok_or_else(|| Failure::usage(format!("`{}` is not UTF-8", dir.display())))?;
                agentwarden::stores::Stores {
                    explicit: Some(dir.to_owned()),
                    sled: stores.sled.clone(),
                    follow_config: stores.follow_config,
                }
            }
            _ => stores.clone(),
        };
        // The server moves older events into segments on a thread of the store's own: no
        // answer waits for a move (S-13).
        stores.sled = stores.sled.archiving(agentwarden::store::Archiving::Background);
        let location = stores.location(Some(&config))?;
        let warden = stores.open(config, true).map_err(|e| {
            Failure::usage(format!(
                "cannot open the store `{}`: {e} (is another `warden serve` or `warden` process using it?)",
                location.describe()
            ))
        })?;
        Ok((warden, location))
    };
    agentwarden_server::run(options, harnesses(), open, out).await?;
    Ok(EXIT_OK)
}

/// The harnesses the server decides, each by the name `--harness` gives it, from the one
/// registry; the default (every line installed before there were two) is the default (C-7).
fn registered() -> [(agentwarden_hook_client::HookHarness, Arc<dyn agentwarden::harness::Harness>); 4] {
    agentwarden_hook_client::HookHarness::ALL.map(|hook| {
        let harness: Arc<dyn agentwarden::harness::Harness> = Arc::new(hook.harness());
        (hook, harness)
    })
}

/// [`registered`] as the server holds them: the default, and the others by their names.
fn harnesses() -> agentwarden_server::Harnesses {
    let default = agentwarden_hook_client::HookHarness::default().harness();
    let mut harnesses = agentwarden_server::Harnesses::new(Arc::new(default));
    for (hook, harness) in registered() {
        if let Some(name) = hook.requested() {
            harnesses = harnesses.with(name, harness);
        }
    }
    harnesses
}

impl From<String> for Failure {
    fn from(reason: String) -> Self {
        Failure::usage(reason)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every harness `--harness` names is one the server decides, under the same name, and the
    /// kernel's integration names the same shell tools as the hook's, whose every line is
    /// checked for the held names (T-31): a harness added to one list and not the other, or
    /// without its shell tools, fails here.
    #[test]
    fn every_harness_is_registered_with_its_shell_tools() {
        let registered = registered();
        let harnesses = harnesses();
        for name in agentwarden_hook_client::HookHarness::names() {
            let hook = agentwarden_hook_client::HookHarness::parse(name).unwrap();
            let (_, kernel) = registered.iter().find(|(h, _)| *h == hook).unwrap();
            let served = harnesses.get(hook.requested().as_deref()).unwrap();
            assert_eq!(served.name(), kernel.name(), "{name}");
            assert!(!kernel.shell_tools().is_empty(), "{name}");
            assert_eq!(kernel.shell_tools(), hook.shell_tools(), "{name}");
            assert_eq!(served.shell_tools(), hook.shell_tools(), "{name}");
        }
        assert_eq!(registered.len(), agentwarden_hook_client::HookHarness::names().len());
    }
}
