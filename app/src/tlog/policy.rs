//! The witness policy of the sealed configuration: `[audit] witnesses` and `quorum` in
//! `agentwarden.toml`, which `warden audit verify --checkpoint` holds every signed checkpoint to
//! when the configuration it runs with is the one the human sealed.
//!
//! Command-line `--witness`/`--quorum` are chosen by whoever runs `verify`, and the guarded agent
//! can run `warden`; a policy in the sealed configuration is the human's. So the configuration's
//! policy is checked on its own, whatever the flags say (they add a check, never replace or
//! lower this one), and it counts only while the configuration is the sealed one: a file changed
//! since the seal — the policy dropped, a key swapped, the quorum lowered — refuses to verify
//! (`witness_policy_unsealed`), and so does a policy no seal covers. A policy that cannot be
//! used — a key that does not parse, a quorum of none or above its keys — is
//! `witness_policy_invalid`, never read as "no policy".

use std::collections::BTreeSet;
use std::path::Path;

use agentwarden_domain::audit::note::parse_verifier_key;
use agentwarden_domain::governance::ReadDigests;

use super::witness::COSIGNATURE;
use super::{TlogError, check_quorum};
use crate::config::CONFIG_FILE;
use crate::{Config, Warden, WardenError};

/// A witness policy that can be checked: distinct cosignature keys, and a quorum from 1 to
/// their number. Only [`WitnessPolicy::configured`] makes one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WitnessPolicy {
    witnesses: Vec<String>,
    quorum: usize,
}

impl WitnessPolicy {
    /// The `[audit]` policy of `config`, checked; `None` when it names no witness and no quorum.
    pub fn configured(config: &Config) -> Result<Option<WitnessPolicy>, TlogError> {
        let invalid =
            |why: String| TlogError::PolicyInvalid(format!("`[audit]` of the configuration: {why}"));
        if config.audit_witnesses.is_empty() {
            return match config.audit_quorum {
                None => Ok(None),
                // A quorum of no witness would read as "no policy": never.
                Some(quorum) => Err(invalid(format!("`quorum = {quorum}` with no `witnesses`"))),
            };
        }
        let mut keys = BTreeSet::new();
        for vkey in &config.audit_witnesses {
            let shown: String = vkey.chars().take(80).collect();
            let (name, kind, _) =
                parse_verifier_key(vkey).map_err(|e| invalid(format!("the witness key `{shown}`: {e}")))?;
            if kind != COSIGNATURE {
                return Err(invalid(format!(
                    "the witness key `{name}` is of type {kind:#04x}, not a cosignature key"
                )));
            }
            keys.insert(vkey.clone());
        }
        let quorum = config.audit_quorum.unwrap_or(keys.len());
        if quorum == 0 || quorum > keys.len() {
            return Err(invalid(format!("a quorum of {quorum} among {} distinct witness keys", keys.len())));
        }
        Ok(Some(WitnessPolicy { witnesses: keys.into_iter().collect(), quorum }))
    }

    /// Checks that `note` carries cosignatures by the policy's quorum of its keys; how
    /// many cosigned.
    pub fn check(&self, note: &str) -> Result<usize, TlogError> {
        check_quorum(note, &self.witnesses, self.quorum).map_err(|e| match e {
            TlogError::QuorumUnmet(why) => {
                TlogError::QuorumUnmet(format!("the sealed configuration's policy: {why}"))
            }
            other => other,
        })
    }

    /// The quorum.
    pub fn quorum(&self) -> usize {
        self.quorum
    }
}

/// Whether the configuration a Warden runs with is the one the seal in force covers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfigSeal {
    /// No seal is recorded.
    Unsealed,
    /// The seal at this seq covers the configuration as it is.
    Sealed(u64),
    /// A seal is in force and the configuration is not what it covers: why.
    Changed(String),
}

impl Warden {
    /// Holds the configuration this Warden was built with to the seal in force (G-20, U-16): the
    /// bytes it was loaded from and the file as it reads now must both be the sealed ones, and a
    /// refused seal is no seal of it. Without a configuration file, a seal that covers an
    /// `agentwarden.toml` is not met either: verifying from elsewhere does not shed the policy.
    pub async fn configuration_seal(&self) -> Result<ConfigSeal, WardenError> {
        let records = self.records().await?;
        let Some(seal) = &records.governance.seal else { return Ok(ConfigSeal::Unsealed) };
        if self.config.source.is_none()
            && let Some(file) =
                seal.files.keys().find(|k| Path::new(k).file_name().is_some_and(|n| n == CONFIG_FILE))
        {
            return Ok(ConfigSeal::Changed(format!(
                "the seal (seq {}) covers `{file}`, and no configuration file was found here: run from the \
                 project",
                seal.seq
            )));
        }
        let mut read = ReadDigests::new();
        self.read_context_digests(&mut read).await;
        Ok(match records.governance.seal_verdict(&read) {
            Some(verdict) if verdict.passed() => ConfigSeal::Sealed(seal.seq),
            Some(verdict) => ConfigSeal::Changed(verdict.reason().to_string()),
            None => ConfigSeal::Unsealed,
        })
    }
}

/// Whether a signed checkpoint's verification may stand, given the configuration's seal and
/// whether it names a witness policy: a configuration changed since the seal refuses
/// with or without a policy (the agent may have dropped it), and a policy no seal covers is not
/// the human's.
pub fn policy_in_force(seal: &ConfigSeal, has_policy: bool) -> Result<(), TlogError> {
    match (seal, has_policy) {
        (ConfigSeal::Changed(why), _) => Err(TlogError::PolicyUnsealed(format!(
            "the configuration is not the one sealed, so its witness policy is not the human's: {why}"
        ))),
        (ConfigSeal::Unsealed, true) => Err(TlogError::PolicyUnsealed(
            "the configuration names `[audit] witnesses`, and no seal covers it: run `warden seal`".into(),
        )),
        (ConfigSeal::Unsealed, false) | (ConfigSeal::Sealed(_), _) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tlog::Cosigner;

    fn config(witnesses: &[String], quorum: Option<usize>) -> Config {
        Config { audit_witnesses: witnesses.to_vec(), audit_quorum: quorum, ..Config::default() }
    }

    /// What a configured policy may be (A-41, as a table).
    #[test]
    fn a_policy_that_cannot_be_checked_is_invalid_never_none() {
        let w = |i: u8| Cosigner::from_seed(&format!("witness.example/w{i}"), [i; 32]).unwrap().verifier();
        let (a, b) = (w(1), w(2));
        let log_key =
            crate::tlog::LogSigner::from_seed("log.example/a", [1; 32]).unwrap().verifier().to_text();
        let code = |c: Config| {
            WitnessPolicy::configured(&c)
                .map(|p| p.map(|p| p.quorum()))
                .map_err(|e| e.code().as_str().to_owned())
        };
        for (config, expected, why) in [
            (config(&[], None), Ok(None), "no policy"),
            (config(&[a.clone(), b.clone()], None), Ok(Some(2)), "all by default"),
            (config(&[a.clone(), b.clone()], Some(1)), Ok(Some(1)), "one of two"),
            (
                config(&[a.clone(), b.clone()], Some(3)),
                Err("witness_policy_invalid".to_owned()),
                "above its keys",
            ),
            (
                config(&[a.clone(), a.clone()], Some(2)),
                Err("witness_policy_invalid".to_owned()),
                "a key twice is one",
            ),
            (
                config(std::slice::from_ref(&a), Some(0)),
                Err("witness_policy_invalid".to_owned()),
                "a quorum of none",
            ),
            (config(&[], Some(1)), Err("witness_policy_invalid".to_owned()), "a quorum without witnesses"),
            (
                config(&["not a key".into()], None),
                Err("witness_policy_invalid".to_owned()),
                "a key that does not parse",
            ),
            (
                config(&[log_key], None),
                Err("witness_policy_invalid".to_owned()),
                "a log key, not a witness's",
            ),
        ] {
            assert_eq!(code(config), expected, "{why}");
        }
    }

    /// When the configuration's policy stands (A-41, as a table).
    #[test]
    fn only_a_sealed_configuration_carries_a_policy() {
        let changed = ConfigSeal::Changed("`agentwarden.toml` changed".into());
        let code = |seal: &ConfigSeal, policy| {
            policy_in_force(seal, policy).map_err(|e| e.code().as_str().to_owned())
        };
        assert_eq!(
            code(&changed, false),
            Err("witness_policy_unsealed".to_owned()),
            "the policy dropped after the seal"
        );
        assert_eq!(
            code(&changed, true),
            Err("witness_policy_unsealed".to_owned()),
            "the policy edited after the seal"
        );
        assert_eq!(
            code(&ConfigSeal::Unsealed, true),
            Err("witness_policy_unsealed".to_owned()),
            "a policy never sealed"
        );
        assert_eq!(code(&ConfigSeal::Unsealed, false), Ok(()), "no seal, no policy: the flags alone");
        assert_eq!(code(&ConfigSeal::Sealed(4), true), Ok(()), "the sealed policy");
        assert_eq!(code(&ConfigSeal::Sealed(4), false), Ok(()), "a sealed configuration without one");
    }
}
