//! Who decides, which log, which key: the one resolution of a command's trust root (V-67) is
//! the app's (`agentwarden::trust`, where its rules are stated); here its refusal is the command
//! line's failure (exit 2, `trust_root_refused`), and the configuration a command would read is
//! loaded to hold it to the command line.

use std::path::Path;

use agentwarden::Config;
use agentwarden::code::Code;
pub(crate) use agentwarden::trust::{
    Given, Server, Trusted, refuse_configured, refuse_implicit_server_config, refuse_variables, resolve,
    trusted,
};

use super::{EXIT_USAGE, Failure};

/// The refusal of an input the agent can write (exit 2, `trust_root_refused`).
pub(crate) fn refused(reason: impl Into<String>) -> Failure {
    Failure::new(EXIT_USAGE, Code::TrustRootRefused, reason)
}

impl From<agentwarden::trust::TrustRootRefused> for Failure {
    fn from(refusal: agentwarden::trust::TrustRootRefused) -> Self {
        Failure::new(EXIT_USAGE, refusal.code(), refusal.to_string())
    }
}

/// The configuration a command would read, loaded to hold it to the command line; `None` when it
/// cannot be read (the command then fails on it by itself, or reads none).
pub(crate) fn load(path: Option<&Path>) -> Option<Config> {
    Config::load(path).ok()
}
