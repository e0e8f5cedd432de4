//! `--key FILE` of the human verbs, and how their outcome is printed. The verbs themselves —
//! their rules and their signatures (K-1 … K-17) — are use cases of the facade
//! (`agentwarden::human`); the CLI parses and renders.

use std::io::Write;
use std::path::PathBuf;

use agentwarden::store::Appended;

use super::{EXIT_OK, Failure};
use agentwarden::human::{HumanActError, Signer};

/// `--key`.
#[derive(Debug, clap::Args)]
pub(super) struct KeyArgs {
    /// Sign the record with this SSH key (required when `[approvals] allowed_signers` is set): a
    /// private key file, or a public key (`.pub`) to sign through ssh-agent.
    #[arg(long, value_name = "FILE")]
    pub(super) key: Option<PathBuf>,
}

impl KeyArgs {
    /// The signer: `by` with this key.
    pub(super) fn signer(self, by: Option<String>) -> Signer {
        Signer { by, key: self.key }
    }
}

impl From<HumanActError> for Failure {
    fn from(error: HumanActError) -> Self {
        match error {
            HumanActError::Usage(why) => Failure::usage(why),
            HumanActError::Refused(why) => Failure::no(why),
            HumanActError::Warden(e) => e.into(),
        }
    }
}

/// Prints where the record landed: `{"seq":…,"hash":…}`.
pub(super) fn print(appended: &Appended, out: &mut dyn Write) -> Result<u8, Failure> {
    let head = appended.head;
    writeln!(out, "{}", serde_json::json!({"seq": head.seq, "hash": head.hash.to_string()}))?;
    Ok(EXIT_OK)
}
