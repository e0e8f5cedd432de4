//! One finding of `warden doctor` (healthy, a failure with its fix, or a warning): the value
//! every part of the doctor — the files, the installed lines, the canary, the tool rules —
//! reports in, so that none of them needs the doctor itself.

use agentwarden::observe::credentials;
use serde::Serialize;

/// One finding of `warden doctor`.
#[derive(Debug, Serialize)]
pub struct Check {
    /// What was checked.
    pub check: &'static str,
    /// Whether it is healthy.
    pub ok: bool,
    /// What was found.
    pub detail: String,
    /// How to fix it, when there is something to fix.
    pub fix: Option<String>,
}

/// What a finding says, as shown: never a credential it quotes.
fn shown(text: impl Into<String>) -> String {
    credentials(&text.into())
}

impl Check {
    /// A healthy finding.
    #[must_use]
    pub fn ok(check: &'static str, detail: impl Into<String>) -> Check {
        Check { check, ok: true, detail: shown(detail), fix: None }
    }

    /// A failure, with its fix.
    #[must_use]
    pub fn fail(check: &'static str, detail: impl Into<String>, fix: impl Into<String>) -> Check {
        Check { check, ok: false, detail: shown(detail), fix: Some(shown(fix)) }
    }

    /// A warning: healthy, with something to fix.
    #[must_use]
    pub fn warn(check: &'static str, detail: impl Into<String>, fix: impl Into<String>) -> Check {
        Check { check, ok: true, detail: shown(detail), fix: Some(shown(fix)) }
    }
}
