//! The decision commands' questions and outcomes, typed (V-13, V-54): what `warden gate`,
//! `lineage check`, `authorize`, `result validate`, `guard check`, `approvals` and
//! `seal --show` ask, and what the decider answers. The client renders the outcome exactly as
//! direct mode does (text or `--json`); nothing on the wire is a command line or captured output.
//!
//! V-54: a question names files by absolute path only ([`AbsolutePath`]): the server resolves
//! nothing against a working directory of its own or of the client's, so no request moves the
//! process's working directory.

use agentwarden_domain::audit::Head;
use agentwarden_domain::governance::{ApprovalRecord, ApprovalState, GateReport, SealRecord};
use agentwarden_domain::guardrails::{ResultValidation, Violation};
use agentwarden_domain::lineage::{Authorization, LineageVerdict};
use agentwarden_domain::verdict::Decision;
use serde::{Deserialize, Serialize};

/// A path that is absolute, UTF-8 and holds no NUL (V-54): anything else is refused where it is
/// read, the frame included.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct AbsolutePath(String);

/// Why a path is not an [`AbsolutePath`] (X-95).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PathError {
    /// The path does not start at the root.
    #[error("the path `{0}` is not absolute")]
    Relative(String),
    /// The path holds a NUL byte.
    #[error("a path holds a NUL byte")]
    Nul,
    /// A relative path, and the working directory to resolve it against cannot be read.
    #[error("`{path}` cannot be made absolute: {why}")]
    Unresolved {
        /// The path as given.
        path: String,
        /// Why the working directory cannot be read.
        why: String,
    },
    /// The path is not UTF-8 (shown lossily).
    #[error("the path `{0}` is not UTF-8")]
    NotUtf8(String),
}

impl AbsolutePath {
    /// `path`, when it is absolute and holds no NUL.
    pub fn new(path: impl Into<String>) -> Result<AbsolutePath, PathError> {
        let path = path.into();
        if !path.starts_with('/') {
            return Err(PathError::Relative(path));
        }
        if path.contains('\0') {
            return Err(PathError::Nul);
        }
        Ok(AbsolutePath(path))
    }

    /// `path` as a question names it (V-54): absolute, against the working directory when
    /// relative. The working directory is the kernel's (`getcwd`: physical, no link in it), so a
    /// `..` that leads a relative path is its parent exactly, as the kernel would resolve it; any
    /// later `..` is kept for the reader to judge (U-2), never resolved by text. The client
    /// resolves it before anything is asked; the server never changes its own directory.
    pub fn resolved(path: &std::path::Path) -> Result<AbsolutePath, PathError> {
        use std::path::{Component, PathBuf};
        let joined = if path.is_absolute() {
            path.to_path_buf()
        } else {
            let mut base = std::env::current_dir().map_err(|e| PathError::Unresolved {
                path: path.display().to_string(),
                why: e.to_string(),
            })?;
            let mut rest = PathBuf::new();
            for component in path.components() {
                match component {
                    Component::CurDir => {}
                    Component::ParentDir if rest.as_os_str().is_empty() => {
                        base.pop();
                    }
                    other => rest.push(other),
                }
            }
            base.join(rest)
        };
        let text = joined
            .into_os_string()
            .into_string()
            .map_err(|p| PathError::NotUtf8(p.to_string_lossy().into_owned()))?;
        AbsolutePath::new(text)
    }

    /// The path.
    pub fn as_path(&self) -> &std::path::Path {
        std::path::Path::new(&self.0)
    }

    /// The path as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for AbsolutePath {
    type Error = PathError;

    fn try_from(path: String) -> Result<Self, Self::Error> {
        AbsolutePath::new(path)
    }
}

impl From<AbsolutePath> for String {
    fn from(path: AbsolutePath) -> Self {
        path.0
    }
}

/// A decision command's question (V-13, V-54).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "command", rename_all = "snake_case", deny_unknown_fields)]
pub enum Question {
    /// `warden gate --request FILE`: may this persona inject these subagents?
    Gate {
        /// The request file.
        request: AbsolutePath,
    },
    /// `warden lineage check --lineage FILE`: may this chain of agents exist?
    LineageCheck {
        /// The lineage file.
        lineage: AbsolutePath,
    },
    /// `warden authorize --request FILE`: may this agent use this tool?
    Authorize {
        /// The request file.
        request: AbsolutePath,
    },
    /// `warden result validate FILE`: is this `result.json` valid?
    ResultValidate {
        /// The `result.json`.
        file: AbsolutePath,
        /// The plan item it belongs to.
        item: Option<String>,
        /// The run it belongs to.
        run: Option<String>,
    },
    /// `warden guard check`: did anything protected change since the snapshot?
    GuardCheck {
        /// The manifest from `warden guard snapshot`.
        snapshot: AbsolutePath,
        /// Put the changes back with git.
        revert: bool,
        /// The plan item.
        item: String,
        /// The run.
        run: String,
        /// The item's artifacts directory (`violation.json` goes there).
        artifacts: AbsolutePath,
        /// The workspace root.
        root: AbsolutePath,
    },
    /// `warden approvals`: the seal and the approvals recorded.
    Approvals {},
    /// `warden seal --show`: the seal in force.
    SealShow {},
}

impl Question {
    /// Every path the question names (V-15: none may lead into the server's own directories).
    pub fn paths(&self) -> Vec<&AbsolutePath> {
        match self {
            Question::Gate { request } | Question::Authorize { request } => vec![request],
            Question::LineageCheck { lineage } => vec![lineage],
            Question::ResultValidate { file, .. } => vec![file],
            Question::GuardCheck { snapshot, artifacts, root, .. } => vec![snapshot, artifacts, root],
            Question::Approvals {} | Question::SealShow {} => Vec::new(),
        }
    }

    /// The command as a user types it.
    pub fn command(&self) -> &'static str {
        match self {
            Question::Gate { .. } => "gate",
            Question::LineageCheck { .. } => "lineage check",
            Question::Authorize { .. } => "authorize",
            Question::ResultValidate { .. } => "result validate",
            Question::GuardCheck { .. } => "guard check",
            Question::Approvals {} => "approvals",
            Question::SealShow {} => "seal --show",
        }
    }
}

/// One approval as `warden approvals` lists it: the record and its state when it was asked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListedApproval {
    /// The record.
    pub record: ApprovalRecord,
    /// Its state at the time of the answer.
    pub state: ApprovalState,
}

/// What a decision command found: the typed answer the client renders (V-54).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "command", rename_all = "snake_case", deny_unknown_fields)]
pub enum Outcome {
    /// The gate's report.
    Gate {
        /// Everything the gate found.
        report: GateReport,
        /// How long the evaluation took, reading included, in microseconds.
        evaluation_us: u64,
        /// Where the decision was recorded; `null` if it could not be (then it is a deny).
        audit: Option<Head>,
    },
    /// A lineage check's answer.
    LineageCheck {
        /// Allow or deny.
        decision: Decision,
        /// The walker's verdict.
        result: LineageVerdict,
        /// Where the decision was recorded.
        audit: Option<Head>,
    },
    /// A tool call's authorization.
    Authorize {
        /// Every layer and the decision.
        authorization: Authorization,
        /// Where the decision was recorded.
        audit: Option<Head>,
    },
    /// A `result.json`'s verdict.
    ResultValidate {
        /// The verdict and every problem.
        validation: ResultValidation,
        /// Where the verdict was recorded.
        audit: Option<Head>,
    },
    /// A guardrail check's answer.
    GuardCheck {
        /// Nothing protected changed and the tree could be read.
        clean: bool,
        /// The violation, when there is one.
        violation: Option<Violation>,
        /// Where `violation.json` was written, when it could be.
        violation_file: Option<String>,
        /// Where the violation was recorded.
        audit: Option<Head>,
    },
    /// The seal and the approvals recorded.
    Approvals {
        /// The seal in force.
        seal: Option<SealRecord>,
        /// Every approval recorded, by reference.
        approvals: Vec<ListedApproval>,
    },
    /// The seal in force.
    SealShow {
        /// The seal, if one is in force.
        seal: Option<SealRecord>,
    },
}

impl Outcome {
    /// Whether this outcome answers `question` (a server answering another command's outcome
    /// is not believed, V-14).
    pub fn answers(&self, question: &Question) -> bool {
        matches!(
            (self, question),
            (Outcome::Gate { .. }, Question::Gate { .. })
                | (Outcome::LineageCheck { .. }, Question::LineageCheck { .. })
                | (Outcome::Authorize { .. }, Question::Authorize { .. })
                | (Outcome::ResultValidate { .. }, Question::ResultValidate { .. })
                | (Outcome::GuardCheck { .. }, Question::GuardCheck { .. })
                | (Outcome::Approvals { .. }, Question::Approvals {})
                | (Outcome::SealShow { .. }, Question::SealShow {})
        )
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::ffi::OsStrExt;
    use std::path::{Path, PathBuf};

    use super::*;

    /// A relative path is made absolute against the working directory; a leading `..` is
    /// its parent (the working directory is physical); a later `..` is kept for the reader (V-54).
    #[test]
    fn a_relative_path_is_made_absolute_against_the_working_directory_and_nothing_else_is_resolved() {
        let cwd = std::env::current_dir().unwrap();
        let parent = cwd.parent().unwrap().to_path_buf();
        let text = |p: &Path| AbsolutePath::resolved(p).unwrap().as_str().to_owned();
        for (given, expected, why) in [
            ("r.json", cwd.join("r.json"), "relative"),
            ("./r.json", cwd.join("r.json"), "a leading dot"),
            ("../r.json", parent.join("r.json"), "a leading `..` is the parent"),
            ("a/../r.json", cwd.join("a/../r.json"), "a later `..` is kept"),
            ("/etc/../r.json", PathBuf::from("/etc/../r.json"), "an absolute path as given"),
        ] {
            assert_eq!(text(Path::new(given)), expected.display().to_string(), "{why}");
        }
        let not_utf8 = std::ffi::OsStr::from_bytes(b"\xff.json");
        assert!(AbsolutePath::resolved(Path::new(not_utf8)).is_err(), "not UTF-8");
    }

    #[test]
    fn only_an_absolute_path_without_nul_is_a_path_of_a_question() {
        for (path, ok, why) in [
            ("/work/request.json", true, "absolute"),
            ("request.json", false, "relative"),
            ("./request.json", false, "relative with a dot"),
            ("", false, "empty"),
            ("/a\0b", false, "a NUL"),
        ] {
            assert_eq!(AbsolutePath::new(path).is_ok(), ok, "{why}");
        }
        let relative = r#"{"command":"gate","request":"request.json"}"#;
        assert!(serde_json::from_str::<Question>(relative).is_err(), "a relative path on the wire");
        let more = r#"{"command":"gate","request":"/r.json","cwd":"/"}"#;
        assert!(serde_json::from_str::<Question>(more).is_err(), "an unknown field");
        let good = r#"{"command":"gate","request":"/r.json"}"#;
        assert!(serde_json::from_str::<Question>(good).is_ok());
    }

    #[test]
    fn an_outcome_answers_only_its_own_question() {
        let question = Question::SealShow {};
        assert!(Outcome::SealShow { seal: None }.answers(&question));
        assert!(!Outcome::Approvals { seal: None, approvals: Vec::new() }.answers(&question));
    }
}
