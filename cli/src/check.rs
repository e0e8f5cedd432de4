//! One finding of `warden doctor` (healthy, a failure with its fix, or a warning): the value
//! every part of the doctor — the files, the installed lines, the canary, the tool rules —
//! reports in, so that none of them needs the doctor itself.

use agentwarden_domain::redact::credentials;
use serde::Serialize;

/// One finding of `warden doctor`.
#[derive(Debug, Serialize)]
pub(super) struct Check {
    pub(super) check: &'static str,
    pub(super) ok: bool,
    pub(super) detail: String,
    pub(super) fix: Option<String>,
}

/// What a finding says, as shown: never a credential it quotes.
fn shown(text: impl Into<String>) -> String {
    credentials(&text.into())
}

impl Check {
    pub(super) fn ok(check: &'static str, detail: impl Into<String>) -> Check {
        Check { check, ok: true, detail: shown(detail), fix: None }
    }

    pub(super) fn fail(check: &'static str, detail: impl Into<String>, fix: impl Into<String>) -> Check {
        Check { check, ok: false, detail: shown(detail), fix: Some(shown(fix)) }
    }

    /// A warning: healthy, with something to fix.
    pub(super) fn warn(check: &'static str, detail: impl Into<String>, fix: impl Into<String>) -> Check {
        Check { check, ok: true, detail: shown(detail), fix: Some(shown(fix)) }
    }
}
