//! The harnesses whose hook events the server decides (issue 36, C-7): a default one, which a
//! request that names none is in (every client before there were two), and others by the name
//! a request gives in its `harness` field. The server names no harness itself: the
//! command line registers them.

use std::collections::BTreeMap;
use std::sync::Arc;

use agentwarden::harness::Harness;

/// The server's harnesses.
#[derive(Clone)]
pub struct Harnesses {
    default: Arc<dyn Harness>,
    named: BTreeMap<String, Arc<dyn Harness>>,
}

impl std::fmt::Debug for Harnesses {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Harnesses")
            .field("default", &self.default.name())
            .field("named", &self.named.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl Harnesses {
    /// `default` alone: the harness of every request that names none.
    pub fn new(default: Arc<dyn Harness>) -> Harnesses {
        Harnesses { default, named: BTreeMap::new() }
    }

    /// With `harness` too, for the requests that name it `name`.
    #[must_use]
    pub fn with(mut self, name: impl Into<String>, harness: Arc<dyn Harness>) -> Harnesses {
        self.named.insert(name.into(), harness);
        self
    }

    /// The profiles of every harness it decides: the sections a configuration may have besides
    /// Warden's own, any other refused (U-19).
    pub fn profiles(&self) -> Vec<agentwarden::harness::HarnessProfile> {
        std::iter::once(&self.default).chain(self.named.values()).map(|harness| harness.profile()).collect()
    }

    /// The harness of every request that names none.
    pub fn default_harness(&self) -> &dyn Harness {
        self.default.as_ref()
    }

    /// The harness a request names (`None`: the default), or why there is none: a name the
    /// server did not register is refused, never read in another harness's format (C-7); its
    /// code is [`UnknownHarness::code`], beside the message.
    pub fn get(&self, name: Option<&str>) -> Result<&dyn Harness, UnknownHarness> {
        match name {
            None => Ok(self.default_harness()),
            Some(name) => self.named.get(name).map(AsRef::as_ref).ok_or_else(|| UnknownHarness {
                name: name.to_owned(),
                known: self.named.keys().cloned().collect(),
            }),
        }
    }
}

/// A request names a harness this server did not register (C-7).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "this server decides no harness named `{}` (it knows: {})",
    name.escape_debug(),
    if known.is_empty() { "none but its default".to_owned() } else { known.join(", ") }
)]
pub struct UnknownHarness {
    /// The name the request gave.
    pub name: String,
    /// The names the server knows, besides its default.
    pub known: Vec<String>,
}

impl UnknownHarness {
    /// The code: `request_invalid`.
    pub fn code(&self) -> agentwarden::Code {
        agentwarden::Code::RequestInvalid
    }
}

impl From<Arc<dyn Harness>> for Harnesses {
    fn from(default: Arc<dyn Harness>) -> Harnesses {
        Harnesses::new(default)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No name is the default; a registered name its harness; any other name refused (C-7).
    #[test]
    fn a_request_is_decoded_by_the_harness_it_names_or_refused() {
        let harnesses = Harnesses::new(Arc::new(agentwarden_claude_code::wire::ClaudeCode))
            .with("codex", Arc::new(agentwarden_codex::wire::Codex));
        assert_eq!(harnesses.get(None).map(|h| h.name()), Ok("Claude Code"));
        assert_eq!(harnesses.get(Some("codex")).map(|h| h.name()), Ok("Codex"));
        for unknown in ["claude-code", "Codex", "", "gemini"] {
            let refused = harnesses.get(Some(unknown)).map(|h| h.name()).unwrap_err();
            assert_eq!(refused.code(), agentwarden::Code::RequestInvalid);
            let text = refused.to_string();
            assert!(
                text.starts_with("this server decides no harness named") && text.contains("codex"),
                "{text}"
            );
        }
    }
}
