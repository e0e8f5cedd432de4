//! The decision commands' questions answered (V-13, V-54): each typed question of the protocol
//! ([`Question`]) read and checked before any store is opened ([`checked`], A-24), then answered
//! with a [`Warden`] ([`decide`]) into its typed [`Outcome`]. Direct mode (the command line) and
//! the server (`agentwarden-server`, around its own checks of the configuration, the paths and
//! the peer) both call these two, so a question is answered one way whoever asks.

use agentwarden_protocol::{AbsolutePath, ListedApproval, Outcome, Question};

use crate::harness::Harness;
use crate::requests::{Correlation, CorrelationId, TreeManifest, read_snapshot};
use crate::{Code, Warden, WardenError};

/// Why a question could not be answered (its outcome would not be one).
#[derive(Debug, thiserror::Error)]
pub enum Unanswered {
    /// An input the question names cannot be used: a usage error.
    #[error("{0}")]
    Input(String),
    /// The store (or the configuration behind it) cannot be used.
    #[error(transparent)]
    Warden(#[from] WardenError),
}

impl Unanswered {
    /// The stable code.
    pub fn code(&self) -> Code {
        match self {
            Unanswered::Input(_) => Code::RequestInvalid,
            Unanswered::Warden(e) => e.code(),
        }
    }
}

/// A question with its arguments read and checked before any store is opened: what
/// [`decide`] answers. Only [`checked`] makes one.
#[derive(Debug)]
pub struct Checked(Inner);

impl Checked {
    /// Whether the question decides, and so is answered on a store that cannot be used with a
    /// deny (or invalid) outcome: the gate, `lineage check`, `authorize` and `result
    /// validate`. The listings (`guard check`, `approvals`, `seal --show`) fail with the store's
    /// error instead.
    pub fn decides(&self) -> bool {
        match &self.0 {
            Inner::Asked(question) => {
                matches!(
                    question,
                    Question::Gate { .. } | Question::LineageCheck { .. } | Question::Authorize { .. }
                )
            }
            Inner::ResultValidate { .. } => true,
            Inner::GuardCheck { .. } => false,
        }
    }
}

#[derive(Debug)]
enum Inner {
    /// Every question but the two below, as asked.
    Asked(Question),
    /// `result validate`, its correlation checked.
    ResultValidate { file: AbsolutePath, correlation: Correlation },
    /// `guard check`, its snapshot read.
    GuardCheck {
        before: TreeManifest,
        revert: bool,
        item: String,
        run: String,
        artifacts: AbsolutePath,
        root: AbsolutePath,
    },
}

/// Reads and checks `question`'s arguments: the plan item and run of `result validate`,
/// the snapshot of `guard check` (at most [`crate::MAX_SNAPSHOT_BYTES`], read as every
/// untrusted file is). What it refuses is a usage error, whatever state the store is in. The
/// files a decision reads (a request, a lineage, a `result.json`) are the decision's: one that
/// cannot be read is a deny, recorded, not a refusal here.
pub fn checked(question: Question) -> Result<Checked, Unanswered> {
    Ok(Checked(match question {
        Question::ResultValidate { file, item, run } => {
            let id = |raw: Option<String>| {
                raw.map(CorrelationId::new).transpose().map_err(|e| Unanswered::Input(e.to_string()))
            };
            Inner::ResultValidate {
                file,
                correlation: Correlation { item: id(item)?, run: id(run)?, ..Correlation::default() },
            }
        }
        Question::GuardCheck { snapshot, revert, item, run, artifacts, root } => {
            let before = read_snapshot(snapshot.as_path()).map_err(|e| Unanswered::Input(e.to_string()))?;
            Inner::GuardCheck { before, revert, item, run, artifacts, root }
        }
        asked => Inner::Asked(asked),
    }))
}

/// Answers a checked question with `warden` (V-54): the use case direct mode runs, its outcome
/// typed. A decision is never an error: an input that cannot be read, a store that cannot
/// record, is a deny (or invalid) outcome with its reason; only the listings (`approvals`,
/// `seal --show`) meet a store that cannot be read as [`Unanswered`].
///
/// An `authorize` request's input is a call of `harness`, read as its hook reads it (T-16).
pub async fn decide(
    warden: &Warden,
    harness: &dyn Harness,
    question: Checked,
) -> Result<Outcome, Unanswered> {
    Ok(match question.0 {
        Inner::Asked(Question::Gate { request }) => {
            let outcome = warden.evaluate_delegation_at(request.as_path()).await;
            Outcome::Gate {
                report: outcome.report,
                evaluation_us: outcome.evaluation_us,
                audit: outcome.audit,
            }
        }
        Inner::Asked(Question::LineageCheck { lineage }) => {
            let outcome = warden.check_lineage_at(lineage.as_path()).await;
            Outcome::LineageCheck { decision: outcome.decision, result: outcome.result, audit: outcome.audit }
        }
        Inner::Asked(Question::Authorize { request }) => {
            // Its paths are placed as the hook places them (T-17).
            let outcome = warden.authorize_tool_call_at(request.as_path(), harness).await;
            Outcome::Authorize { authorization: outcome.authorization, audit: outcome.audit }
        }
        Inner::ResultValidate { file, correlation } => {
            let outcome = warden.validate_result_file(file.as_path(), correlation).await;
            Outcome::ResultValidate { validation: outcome.validation, audit: outcome.audit }
        }
        Inner::GuardCheck { before, revert, item, run, artifacts, root } => {
            let target = crate::GuardTarget {
                root: root.as_path(),
                item: &item,
                run: &run,
                session: None,
                artifacts: artifacts.as_path(),
            };
            let outcome = warden.check_guardrails(&target, &before, revert).await;
            Outcome::GuardCheck {
                clean: outcome.clean,
                violation: outcome.violation,
                violation_file: outcome.violation_file,
                audit: outcome.audit,
            }
        }
        Inner::Asked(Question::Approvals {}) => {
            let records = warden.records().await?.governance;
            let now = warden.now();
            let approvals = records
                .approvals
                .into_values()
                .map(|record| ListedApproval { state: record.state(now), record })
                .collect();
            Outcome::Approvals { seal: records.seal, approvals }
        }
        Inner::Asked(Question::SealShow {}) => {
            Outcome::SealShow { seal: warden.records().await?.governance.seal }
        }
        // `checked` moved these two into their own variants.
        Inner::Asked(Question::ResultValidate { .. } | Question::GuardCheck { .. }) => {
            return Err(Unanswered::Input("internal_error: an unchecked question".to_owned()));
        }
    })
}
