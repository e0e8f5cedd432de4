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

use agentwarden_domain::governance::SealedText;
use agentwarden_domain::sessions::SessionRecords;

use crate::config::{CONFIG_FILE, Config};
use crate::files::key;
use crate::warden::Warden;

impl Warden {
    /// This Warden deciding with the sealed configuration when the live one is not what the
    /// seal in force holds (H-49), or the one a revoke withdrew (H-51); `None` when it is (or
    /// no seal was ever made, or the one in force is refused, K-3: the live rules then decide,
    /// H-50). An error when the seal holds the
    /// configuration's digest but no usable text: nothing the human sealed can decide, so the
    /// decision fails.
    pub(crate) fn sealed_rules(&self, records: &SessionRecords) -> Result<Option<Warden>, String> {
        // A seal withdrawn by a revoke still holds the rules until the next seal (H-51); a seal
        // in force whose signature does not count holds none (K-3).
        let governance = &records.governance;
        let Some(seal) = (match &governance.seal {
            Some(seal) => Some(seal).filter(|s| s.refused.is_none()),
            None => governance.withdrawn.as_ref(),
        }) else {
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
