//! `warden release --session ID`: a human lifts a Claude Code session's quarantine (H-28).
//!
//! H-32: only a human releases. Refused where `CLAUDECODE` is set (inside a Claude Code session,
//! as `warden approve` is, H-5). The marker is removed first and the release recorded after
//! (`session_released`, under the session); if the release cannot be recorded the marker is
//! put back and the command fails — and a quarantine the log still holds is marked again by the
//! next hook call anyway. Releasing a session that is not quarantined is a usage error.

use std::io::Write;
use std::path::PathBuf;

use super::{EXIT_OK, Failure};
use agentwarden::{Config, HookStorage, Warden, WardenError};

/// `warden release`.
#[derive(Debug, clap::Args)]
pub(super) struct ReleaseArgs {
    /// The quarantined session (as the deny reason names it).
    #[arg(long, value_name = "ID")]
    session: String,
    /// Who releases it (recorded in the event).
    #[arg(long, value_name = "NAME")]
    by: Option<String>,
    /// The configuration (default: the project's `agentwarden.toml`, from here upward).
    #[arg(long, value_name = "FILE")]
    pub(super) config: Option<PathBuf>,
    #[command(flatten)]
    key: super::signed::KeyArgs,
}

/// Runs `warden release`.
pub(super) async fn run(
    args: ReleaseArgs,
    storage: impl FnOnce(&Config) -> HookStorage,
    open: impl FnOnce(Config) -> Result<Warden, WardenError>,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    // Before any store is opened (H-5, C-9).
    let is_set = |var: &str| std::env::var_os(var).is_some();
    agentwarden::human::refuse_inside_an_agent_session(is_set, "releases a quarantine")?;
    let config = Config::load(args.config.as_deref()).map_err(Failure::usage)?;
    let storage = storage(&config);
    let warden = open(config)?;
    let appended = warden.release(&args.session, &storage, &args.key.signer(args.by)).await?;
    writeln!(
        out,
        "{}",
        serde_json::json!({"released": args.session, "seq": appended.head.seq, "hash": appended.head.hash.to_string()})
    )?;
    Ok(EXIT_OK)
}
