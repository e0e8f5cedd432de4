//! `warden audit checkpoint`, `audit prove` and `audit witness-request` through a running server
//! (V-65): what the server holding the store answers (the durable head, its root, a proof's path
//! and leaf), checked by the protocol's [`TreeClient`] and signed here exactly as the direct form
//! does, so that both print the same bytes.
//!
//! V-65, V-67: with a server named by `--server` (only there: a configuration's `[server]
//! socket` without it refuses the command, `trust`) and no `--store` on the command line, these
//! three ask it: a running server
//! holds an embedded store's lock, and nothing else can read its tree. `--store` names the store
//! to read directly (a PostgreSQL store, or an embedded one while no server runs). A server that
//! cannot be reached, or answers anything but the answer asked for, fails the command: nothing
//! falls back to the store.

use agentwarden::tlog::TlogError;
use agentwarden_protocol::{TreeClient, TreeError};

use super::super::{EXIT_NO, Failure};

/// The server a checkpoint or a proof is asked of.
pub(in super::super) type Served = TreeClient;

/// The server `--server` names for `audit checkpoint`, `prove` and `witness-request`, unless
/// `--store` names a store (V-65, V-67).
pub(in super::super) fn named(trusted: &crate::trust::Trusted) -> Option<Served> {
    match (&trusted.store, &trusted.server) {
        (None, Some(server)) => Some(TreeClient::new(server.socket.clone(), server.uid)),
        _ => None,
    }
}

/// The server's tree unusable, as the command line fails: exit 1, but a server that signs no
/// checkpoint is the key's usage error, as the direct form's.
impl From<TreeError> for Failure {
    fn from(error: TreeError) -> Self {
        match error {
            TreeError::Client(e) => Failure::client(EXIT_NO, e),
            TreeError::Inconsistent(why) => TlogError::Inconsistent(why).into(),
            TreeError::NoLogKey(why) => TlogError::KeyUnusable(why).into(),
            TreeError::Withheld(why) => Failure::new(EXIT_NO, agentwarden::code::Code::EventWithheld, why),
        }
    }
}
