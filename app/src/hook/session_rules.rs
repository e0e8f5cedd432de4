//! Which rules decide a session's calls while no seal holds any: the configuration as the
//! session's first start found it, never the file as the agent may have edited it since (H-58).
//!
//! The copy is taken at the moment the session's first snapshot is (H-45) and, like it, stays
//! the reference until the session has really ended, which Warden never assumes (H-53): it is
//! kept in the store beside that snapshot (the state store, under the session and a name no
//! subagent carries), never replaced by a later start, and removed by no hook event. While the
//! live file is the copied one it decides as it always did; once it is not (edited, removed, or
//! appeared where the start found none), the copy decides, and the live file is named as
//! changed in what the session is told.
//!
//! A tool call with nothing to be decided with fails, naming the fix (H-59, H-60): no copy
//! (Warden did not see the session start, or it started under an earlier version), or a copy
//! that cannot be read, does not decode, or whose text is not its digest's. A seal, in force
//! or withdrawn, holds the rules whatever the session copied (H-49, H-51): a seal made
//! mid-session wins.

use std::path::{Path, PathBuf};

use agentwarden_domain::sessions::HookEvent;
use serde::{Deserialize, Serialize};

use crate::config::{CONFIG_FILE, Config};
use crate::warden::Warden;

/// The name the copy is kept under among the session's snapshots: not an id a harness gives an
/// agent (it is not a safe id, H-25), so no subagent's snapshot is kept there.
pub(crate) const RULES_ID: &str = "main/config";

/// The configuration a session's first start found (H-58), as kept in the store.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RulesCopy {
    /// The file it was read from, absolute; `None` when the start found none (the defaults).
    pub path: Option<String>,
    /// The workspace root it decided for, absolute.
    pub root: String,
    /// The file's seal digest (its BLAKE3 and mode, U-15); `None` with no file.
    pub digest: Option<String>,
    /// The file's text (empty with no file).
    pub text: String,
}

impl RulesCopy {
    /// Whether the text is the one its digest names (an edited copy is not).
    fn intact(&self) -> bool {
        match &self.digest {
            Some(digest) => {
                let hex = digest.split(' ').next().unwrap_or_default();
                self.path.is_some() && blake3::hash(self.text.as_bytes()).to_hex().as_str() == hex
            }
            None => self.path.is_none() && self.text.is_empty(),
        }
    }

    /// The configuration it holds, deciding as if loaded from its file (its digest the copied
    /// one, so the live file, which differs, still reads as changed where a decision compares).
    fn config(&self) -> Result<Config, String> {
        let Some(path) = &self.path else {
            return Ok(Config { root: PathBuf::from(&self.root), ..Config::default() });
        };
        let path = PathBuf::from(path);
        let mut config = Config::parse(&path, &self.text)
            .map_err(|e| format!("the configuration recorded at the session's start does not parse: {e}"))?;
        config.source_digest.clone_from(&self.digest);
        config.source = Some(path);
        Ok(config)
    }
}

/// `path` made absolute against the working directory (the hook's, which is the project's).
fn absolute(path: &Path) -> Option<String> {
    std::path::absolute(path).ok().map(|p| p.to_string_lossy().into_owned())
}

/// The fix every failure here names.
const FIX: &str = "start a new session with Warden's hooks installed (`warden init`), or have a human run \
                   `warden seal`";

/// What decides a session's event while no seal holds the rules.
pub(crate) enum SessionRules {
    /// The live configuration: it is the copied one.
    Live,
    /// The live configuration, with no copy to hold it to: for an event that needs none. The
    /// fast path's index is not written from it (H-59).
    Uncopied,
    /// The copy, the live file being another (named in `changed`).
    Copied(Box<Warden>, String),
    /// Nothing: the event fails with this reason, for the cause `session_rules_missing` (the
    /// code is a field of the answer, never spliced into the reason, X-96).
    Missing(String),
}

impl Warden {
    /// Keeps the configuration deciding this first start as the session's rules (H-58), read
    /// again from its file by descriptor: kept only when those bytes are the ones it was loaded
    /// from (a file changed in between is not copied, and the session's calls then fail, H-60).
    /// `false` when nothing was kept.
    pub(crate) async fn keep_session_rules(&self, session: &str) -> bool {
        let Some(store) = &self.snapshots else { return false };
        // The first copy stays the reference: whatever is kept already is never replaced.
        match store.read_snapshot(session, RULES_ID).await {
            Ok(None) => {}
            Ok(Some(_)) => return true,
            Err(_) => return false,
        }
        let Some(root) = absolute(&self.config.root) else { return false };
        let copy = match (&self.config.source, &self.config.source_digest) {
            (None, _) => RulesCopy { path: None, root, digest: None, text: String::new() },
            (Some(path), Some(loaded)) => {
                let read =
                    agentwarden_adapters::untrusted::read_bytes_mode(None, path, crate::MAX_INPUT_BYTES);
                let Ok((bytes, mode)) = read else { return false };
                let Ok(text) = String::from_utf8(bytes) else { return false };
                if &crate::files::text_digest(&text, Some(mode)) != loaded {
                    tracing::warn!("the configuration changed while the session started: not copied");
                    return false;
                }
                RulesCopy { path: absolute(path), root, digest: Some(loaded.clone()), text }
            }
            // Not loaded from its file (a sealed text decides): nothing read to copy.
            (Some(_), None) => return false,
        };
        let Ok(bytes) = serde_json::to_vec(&copy) else { return false };
        match store.write_snapshot(session, RULES_ID, bytes).await {
            Ok(()) => true,
            Err(e) => {
                tracing::warn!(error = %e, "the session's configuration could not be kept");
                false
            }
        }
    }

    /// What decides `event` of `session` while no seal holds the rules (H-58): the live
    /// configuration while it is the copied one, else the copy. A tool call with no copy, or a
    /// copy that cannot be used, has nothing to be decided with (H-59, H-60); any other event
    /// (a start, a stop, an end, a spawn, which every unsealed configuration denies, G-21) is
    /// decided with the live configuration then, its check being against the session's snapshot.
    pub(crate) async fn session_rules(&self, session: &str, event: &HookEvent) -> SessionRules {
        let needs = matches!(event, HookEvent::Tool(_));
        let missing = |why: String| match needs {
            true => SessionRules::Missing(format!("{why}: {FIX}")),
            false => {
                // A first start has none yet: nothing to warn of.
                tracing::debug!(reason = %why, "the session's configuration is not there; the live one decides");
                SessionRules::Uncopied
            }
        };
        let Some(store) = &self.snapshots else {
            return missing("no store keeps the configuration recorded at the session's start".into());
        };
        let copy = match store.read_snapshot(session, RULES_ID).await {
            Ok(Some(bytes)) => match serde_json::from_slice::<RulesCopy>(&bytes) {
                Ok(copy) if copy.intact() => copy,
                _ => return missing("the configuration recorded at the session's start is corrupt".into()),
            },
            Ok(None) => {
                return missing(
                    "no configuration was recorded at this session's start (Warden did not see it start, or \
                     it started under an earlier version)"
                        .into(),
                );
            }
            Err(e) => {
                return missing(format!(
                    "the configuration recorded at the session's start cannot be read: {e}"
                ));
            }
        };
        let live_path = self.config.source.as_deref().and_then(absolute);
        if copy.digest == self.config.source_digest && copy.path == live_path {
            return SessionRules::Live;
        }
        match copy.config() {
            Ok(config) => {
                let name = copy.path.as_deref().or(live_path.as_deref()).unwrap_or(CONFIG_FILE).to_owned();
                SessionRules::Copied(Box::new(self.with_rules(config)), name)
            }
            Err(why) => missing(why),
        }
    }
}

#[cfg(test)]
mod tests;
