//! What the record of an allowed shell call says of its confinement (issue 50, E-14): a value
//! of the `tool_call_authorized` event, made by the confinement policy (`crate::confine`).

use serde::{Deserialize, Serialize};

/// What the record of an allowed shell call says was done about its confinement (E-14).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Applied {
    /// It runs under the launcher, which the kernel holds to the confinement.
    Confined {
        /// BLAKE3 (hex) of the launcher's argument ([`Confinement::encode`](crate::confine::Confinement::encode)).
        digest: String,
        /// The mechanisms, in words.
        mechanism: String,
        /// The confinement in short: the write grants, the read grants, the holes, the network.
        grants: String,
        /// The launcher's mode (`required` or `recorded`).
        launcher_mode: String,
        /// The rules the kernel cannot enforce as written (E-2).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        unenforced: Vec<String>,
    },
    /// It runs, but not confined: why.
    Unconfined {
        /// Why.
        why: String,
        /// Whether it still runs under the launcher (mode `recorded`, which tries again and says
        /// UNCONFINED on standard error where it cannot).
        launched: bool,
    },
    /// It does not run: it could not be confined and the mode is `required`.
    Refused {
        /// Why.
        why: String,
    },
}

impl Applied {
    /// One line for a reader (`audit explain`, the session report).
    pub fn summary(&self) -> String {
        match self {
            Applied::Confined { digest, grants, launcher_mode, .. } => {
                format!("confined ({launcher_mode}), digest {}: {grants}", digest.get(..16).unwrap_or(digest))
            }
            Applied::Unconfined { why, launched: true } => {
                format!("unconfined (under the launcher, recorded): {why}")
            }
            Applied::Unconfined { why, launched: false } => format!("unconfined: {why}"),
            Applied::Refused { why } => format!("refused, not confinable: {why}"),
        }
    }
}
