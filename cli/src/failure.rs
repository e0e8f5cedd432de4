//! A command's failure: its exit code, its reason code when it has one, and its reason.
//!
//! a failure's code is typed — a [`Code`] of the code table (`docs/codes.md`, X-1), never
//! a word spliced into the reason — and is rendered exactly as the line always read:
//! `warden: CODE: reason` on stderr, and `CODE: reason` as the `reason` of `--json`'s
//! `{"error": {...}}`. X-74: a failure that printed no code keeps none (`code: None`):
//! the store's and the application's errors (their exit code says which kind), the arguments'
//! usage errors and the output's I/O errors print their reason alone, as before.

use agentwarden::store::StoreError;
use agentwarden::{WardenError, code::Code};
use agentwarden_protocol::ClientError;

use super::{EXIT_NO, EXIT_OK, EXIT_STORE, EXIT_USAGE};

/// A command's failure: the exit code, the code of the table when it has one, and a one-line
/// reason for stderr.
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) exit: u8,
    pub(crate) code: Option<Code>,
    pub(crate) reason: String,
}

impl Failure {
    /// A failure with its code.
    pub(crate) fn new(exit: u8, code: Code, reason: impl Into<String>) -> Self {
        Failure { exit, code: Some(code), reason: reason.into() }
    }

    /// A usage error (exit 2) without a code, for `reason` as it reads: a text or an
    /// error.
    pub(crate) fn usage(reason: impl std::fmt::Display) -> Self {
        Failure { exit: EXIT_USAGE, code: None, reason: reason.to_string() }
    }

    /// The answer is no (exit 1), without a code, for `reason` as it reads.
    pub(crate) fn no(reason: impl std::fmt::Display) -> Self {
        Failure { exit: EXIT_NO, code: None, reason: reason.to_string() }
    }

    /// A client's failure with its code, and the exit code it has where it happened.
    pub(crate) fn client(exit: u8, error: ClientError) -> Self {
        Failure { exit, code: Some(error.code), reason: error.reason }
    }

    /// The line stderr gets after `warden: `, and `--json`'s reason: `CODE: reason`, or the
    /// reason alone when there is no code.
    /// The failure as printed: never a credential a reason quotes.
    pub(crate) fn line(&self) -> String {
        let reason = agentwarden::observe::credentials(&self.reason);
        match &self.code {
            Some(code) => format!("{code}: {reason}"),
            None => reason,
        }
    }
}

impl From<WardenError> for Failure {
    fn from(error: WardenError) -> Self {
        let exit = match &error {
            // A path that is no store is a usage error, never a broken chain (N-4).
            WardenError::Store(StoreError::NotAStore { .. }) => EXIT_USAGE,
            WardenError::Store(StoreError::Corrupt { .. })
            | WardenError::Broken(_)
            | WardenError::Undecodable { .. } => EXIT_NO,
            WardenError::Store(_) | WardenError::Event(_) => EXIT_STORE,
            WardenError::Invalid(_) | WardenError::Config(_) | WardenError::Incomplete { .. } => EXIT_USAGE,
        };
        // No store yet: the refusal says how one comes to be, or how to name the right one (N-11).
        let next = match &error {
            WardenError::Store(StoreError::Missing { .. }) => {
                ": the first decision or `warden seal` in the project makes it; if the project has one \
                 elsewhere, name it with --store DIR|URL"
            }
            _ => "",
        };
        // The store's and the application's errors print their reason alone.
        Failure { exit, code: None, reason: format!("{error}{next}") }
    }
}

impl From<std::io::Error> for Failure {
    fn from(error: std::io::Error) -> Self {
        if error.kind() == std::io::ErrorKind::BrokenPipe {
            // `warden audit log | head`: the reader left; that is not a failure.
            return Failure { exit: EXIT_OK, code: None, reason: String::new() };
        }
        Failure { exit: EXIT_STORE, code: None, reason: format!("cannot write output: {error}") }
    }
}

/// A client's failure before any question is asked (`warden serve` finding its configuration):
/// a usage error, with its code.
impl From<ClientError> for Failure {
    fn from(error: ClientError) -> Self {
        Failure::client(EXIT_USAGE, error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A failure with a code renders `CODE: reason`, as the spliced string did; one
    /// without renders its reason alone.
    #[test]
    fn a_failure_renders_its_code_before_its_reason() {
        let coded = Failure::new(EXIT_USAGE, Code::ProofMalformed, "cannot read the proof: x");
        assert_eq!(coded.line(), "proof_malformed: cannot read the proof: x");
        assert_eq!(Failure::usage("no server").line(), "no server");
        let client = Failure::client(EXIT_NO, ClientError::new(Code::ServerUnavailable, "gone"));
        assert_eq!((client.exit, client.line().as_str()), (EXIT_NO, "server_unavailable: gone"));
        assert_eq!(Failure::from(ClientError::new(Code::ConfigInvalid, "x")).exit, EXIT_USAGE);
    }

    /// Every code of the table, so every code a failure can carry (no code is built from a
    /// string in the CLI: `tests/tests/codes_documented.rs`), is a row of `docs/codes.md` as
    /// checked in.
    #[test]
    fn every_code_is_a_row_of_docs_codes_md() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/codes.md");
        let doc = std::fs::read_to_string(path).unwrap();
        for code in Code::ALL {
            assert!(
                doc.contains(&format!("| `{code}` | ")),
                "`{code}` is not in docs/codes.md: run `cargo xtask codes`"
            );
        }
    }
}
