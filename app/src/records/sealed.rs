//! Which rules a decision is made with (H-49): while a seal is in force, the configuration as
//! it was sealed — its text is in the seal, content-addressed by the sealed digest — never the
//! file as the agent may have edited it since. The file as it reads now is still compared with
//! the seal where a decision checks it, so a change is named and refused as before (G-20, T-11,
//! U-16): it can only make the decision stricter, never looser.
//!
//! The other sealed files need no text: every decision that reads a persona, subagent or
//! manifest file compares it with the seal and denies on a change (G-20, T-11), and the key list
//! is carried already (K-14).

use std::path::{Path, PathBuf};

use agentwarden_domain::governance::{Approvals, SealRecord, SealedText};
use agentwarden_domain::sessions::SessionRecords;

use crate::config::{CONFIG_FILE, Config};
use crate::files::key;
use crate::warden::Warden;

/// The seal whose configuration holds the rules: the one in force, or the one a revoke
/// withdrew, which still holds them until the next seal (H-51); a seal in force whose signature
/// does not count holds none (K-3). `None`: no seal holds any, and the session's copy decides
/// (H-58).
pub(crate) fn holding_rules(governance: &Approvals) -> Option<&SealRecord> {
    match &governance.seal {
        Some(seal) => Some(seal).filter(|s| s.refused.is_none()),
        None => governance.withdrawn.as_ref(),
    }
}

impl Warden {
    /// This Warden deciding with the sealed configuration when the live one is not what the
    /// seal in force holds (H-49), or the one a revoke withdrew (H-51); `None` when it is (or
    /// no seal was ever made, or the one in force is refused, K-3: the live rules then decide,
    /// H-50). An error when the seal holds the
    /// configuration's digest but no usable text: nothing the human sealed can decide, so the
    /// decision fails.
    pub(crate) fn sealed_rules(&self, records: &SessionRecords) -> Result<Option<Warden>, String> {
        let Some(seal) = holding_rules(&records.governance) else {
            return Ok(None);
        };
        let root = &self.config.root;
        // The sealed configuration's name: the live file's, else (no file found now, the agent
        // may have removed it) the one the seal covers.
        let (path, name) = match &self.config.source {
            Some(path) => (path.clone(), key(root, path)),
            None => {
                match seal.files.keys().find(|k| Path::new(k).file_name().is_some_and(|n| n == CONFIG_FILE)) {
                    Some(name) => (root.join(name), name.clone()),
                    None => return Ok(None),
                }
            }
        };
        let sealed_digest = seal.files.get(&name);
        if sealed_digest.is_some() && sealed_digest == self.config.source_digest.as_ref() {
            return Ok(None);
        }
        let text = match seal.sealed_text(&name) {
            SealedText::Text(text) => text,
            // No configuration file when sealed: the defaults were sealed, and a file that
            // appeared since is not the human's.
            SealedText::NotSealed => "",
            SealedText::DigestOnly => {
                return Err(format!(
                    "`{name}` is not what the seal at seq {} holds, and that seal carries its digest but not its \
                     rules (made by an earlier version): put the file back, or have a human run `warden seal` again",
                    seal.seq
                ));
            }
            SealedText::Mismatch => {
                return Err(format!(
                    "the seal at seq {} carries a text of `{name}` that is not the one its digest names",
                    seal.seq
                ));
            }
        };
        let mut config = Config::parse(&path, text)
            .map_err(|e| format!("the configuration sealed at seq {} does not parse: {e}", seal.seq))?;
        // The digest it was "loaded" from is the sealed one: the live file, which differs, still
        // reads as changed where a decision compares it with the seal (U-16).
        config.source_digest = sealed_digest.cloned();
        config.source = Some(PathBuf::from(&path));
        Ok(Some(self.with_rules(config)))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::Arc;

    use agentwarden_adapters::MemoryEventStore;
    use agentwarden_domain::governance::{SignatureCode, SignatureRefusal};

    use super::*;

    const SEALED: &str = "[guardrails]\nprotected = [\"okrs\"]\n";
    const EDITED: &str = "[guardrails]\nprotected = []\n";

    /// How the seal (or the withdrawn one) holds the configuration in one row.
    enum Held {
        /// No seal was ever made.
        Nothing,
        /// A seal in force with the sealed text under its digest (or another text: `Some`).
        Text(Option<&'static str>),
        /// A seal in force of an earlier version: the digest alone.
        DigestOnly,
        /// A seal in force whose signature does not count (K-3).
        Refused,
        /// A seal withdrawn by a revoke, no seal in force (H-51).
        Withdrawn,
        /// A seal that covers no configuration: the defaults were sealed.
        NotCovering,
    }

    /// What the decision is made with.
    #[derive(Debug, PartialEq)]
    enum Rules {
        Live,
        Protecting(Vec<String>),
        Fails,
    }

    fn record(files: BTreeMap<String, String>, texts: BTreeMap<String, String>) -> SealRecord {
        SealRecord { seq: 1, by: None, files, signature: None, after: None, refused: None, texts }
    }

    /// The rules a hook decision is made with (H-49, H-50, H-51): the sealed configuration
    /// whenever the live one is not it, the live one only where no seal holds any rules, and
    /// nothing — a failed decision — where the seal holds the digest and not a usable text.
    #[test]
    fn the_rules_a_decision_is_made_with() {
        let table: [(&str, &str, Held, Rules); 11] = [
            ("no seal ever", EDITED, Held::Nothing, Rules::Live),
            ("sealed, unchanged", SEALED, Held::Text(None), Rules::Live),
            ("sealed, edited", EDITED, Held::Text(None), Rules::Protecting(vec!["okrs".into()])),
            ("sealed, removed (no file found)", "", Held::Text(None), Rules::Protecting(vec!["okrs".into()])),
            ("an earlier version's seal, unchanged", SEALED, Held::DigestOnly, Rules::Live),
            ("an earlier version's seal, edited", EDITED, Held::DigestOnly, Rules::Fails),
            ("a text that is not the sealed digest's", EDITED, Held::Text(Some(EDITED)), Rules::Fails),
            ("a refused seal", EDITED, Held::Refused, Rules::Live),
            ("a withdrawn seal, edited", EDITED, Held::Withdrawn, Rules::Protecting(vec!["okrs".into()])),
            (
                "the defaults sealed, a file added",
                EDITED,
                Held::NotCovering,
                Rules::Protecting(vec!["okrs".into()]),
            ),
            ("a withdrawn seal, unchanged", SEALED, Held::Withdrawn, Rules::Live),
        ];
        for (why, live, held, expected) in table {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("agentwarden.toml");
            std::fs::write(&path, SEALED).unwrap();
            let sealed_digest = Config::load(Some(&path)).unwrap().source_digest.unwrap();
            let config = if live.is_empty() {
                // No configuration file found: the defaults, at the project's root.
                Config { root: dir.path().to_path_buf(), ..Config::default() }
            } else {
                std::fs::write(&path, live).unwrap();
                Config::load(Some(&path)).unwrap()
            };
            let files: BTreeMap<String, String> =
                [("agentwarden.toml".to_owned(), sealed_digest.clone())].into();
            let texts = |text: &str| [("agentwarden.toml".to_owned(), text.to_owned())].into();
            let mut records = SessionRecords::default();
            match held {
                Held::Nothing => {}
                Held::Text(text) => {
                    records.governance.seal = Some(record(files, texts(text.unwrap_or(SEALED))))
                }
                Held::DigestOnly => records.governance.seal = Some(record(files, BTreeMap::new())),
                Held::Refused => {
                    let refused =
                        SignatureRefusal { code: SignatureCode::Missing, reason: "unsigned".into() };
                    records.governance.seal =
                        Some(SealRecord { refused: Some(refused), ..record(files, texts(SEALED)) });
                }
                Held::Withdrawn => records.governance.withdrawn = Some(record(files, texts(SEALED))),
                Held::NotCovering => {
                    let other: BTreeMap<String, String> =
                        [("manifests.toml".to_owned(), "ab".to_owned())].into();
                    records.governance.seal = Some(record(other, BTreeMap::new()));
                }
            }
            let warden =
                Warden::builder().config(config).store(Arc::new(MemoryEventStore::new())).build().unwrap();
            let rules = match warden.sealed_rules(&records) {
                Ok(None) => Rules::Live,
                Ok(Some(sealed)) => {
                    if !matches!(held, Held::NotCovering) {
                        assert_eq!(sealed.config.source_digest.as_ref(), Some(&sealed_digest), "{why}");
                    }
                    Rules::Protecting(sealed.config.guardrails.protected.clone())
                }
                Err(_) => Rules::Fails,
            };
            assert_eq!(rules, expected, "{why}");
        }
    }
}
