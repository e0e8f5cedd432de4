//! Guardrail use cases. For now: validate a `result.json` and record the verdict.

use std::borrow::Cow;
use std::path::Path;

use agentwarden_domain::audit::{AuditEvent, Correlation, Head, ResultValidated};
use agentwarden_domain::governance::FileRead;
use agentwarden_domain::guardrails::{MAX_RESULT_BYTES, Problem, ResultValidation, validate_result};
use serde::Serialize;

use crate::warden::Warden;

/// The answer of [`Warden::validate_result_file`].
#[derive(Debug, Serialize)]
pub struct ResultOutcome {
    /// The verdict and every problem. Invalid too when the file cannot be read, or the
    /// verdict cannot be recorded.
    #[serde(flatten)]
    pub validation: ResultValidation,
    /// Where the verdict was recorded; `None` if it could not be.
    pub audit: Option<Head>,
}

fn unreadable(message: String) -> ResultValidation {
    ResultValidation {
        valid: false,
        problems: vec![Problem { pointer: String::new(), code: Cow::Borrowed("result_unreadable"), message }],
    }
}

impl Warden {
    /// Reads and validates the `result.json` at `path` (at most 1 MiB, UTF-8), records a
    /// `result_validated` event under `correlation`, and only then answers. A verdict that
    /// cannot be recorded is an invalid result.
    pub async fn validate_result_file(&self, path: &Path, correlation: Correlation) -> ResultOutcome {
        let (validation, digest) = match self.files.read_text(path, MAX_RESULT_BYTES).await {
            FileRead::Text(text) => {
                (validate_result(&text), Some(blake3::hash(text.as_bytes()).to_hex().to_string()))
            }
            FileRead::Missing => (unreadable(format!("`{}` does not exist", path.display())), None),
            FileRead::Unreadable(why) => (unreadable(format!("`{}` {why}", path.display())), None),
        };
        let event =
            ResultValidated { path: path.display().to_string(), digest, validation: validation.clone() };
        match self.record(correlation, &AuditEvent::ResultValidated(Box::new(event))).await {
            Ok(appended) => ResultOutcome { validation, audit: Some(appended.head) },
            Err(e) => {
                let mut validation = validation;
                validation.valid = false;
                validation.problems.push(Problem {
                    pointer: String::new(),
                    code: Cow::Borrowed("audit_unavailable"),
                    message: format!("the verdict could not be recorded: {e}"),
                });
                ResultOutcome { validation, audit: None }
            }
        }
    }
}
