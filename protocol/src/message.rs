//! The requests and answers, typed. Each is one JSON object tagged by its `kind`; an unknown
//! field or kind refuses the frame (V-2).

use agentwarden_domain::code::Code;
use serde::{Deserialize, Serialize};

use crate::question::{AbsolutePath, Outcome, Question};

/// A request, after its `version` was checked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Request {
    /// Decide one hook event.
    Hook {
        /// The client's configuration file, canonical (`null`: none).
        config: Option<String>,
        /// The hook event: the text the harness wrote on the hook's stdin.
        input: String,
        /// The client's remaining deadline in milliseconds.
        deadline_ms: Option<u64>,
        /// Which harness's wire format `input` is in, by the name the server registered it under
        /// (`codex`); absent: the server's default harness, the one every client meant before
        /// there were two (C-7). Never written when absent, so that such a request is the one
        /// an older server reads; a request that names one is refused by an older server (an
        /// unknown field), never decided in another harness's format.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        harness: Option<String>,
    },
    /// Say how the server is.
    Status {},
    /// Answer one decision command's question (V-13, V-54).
    Decide {
        /// The client's configuration file, canonical: the server refuses any other than its own
        /// (V-16).
        config: AbsolutePath,
        /// The question.
        question: Question,
        /// The client's remaining deadline in milliseconds.
        deadline_ms: Option<u64>,
    },
}

/// What a hook decided (V-52): the harness's client renders it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HookDecision {
    /// The call runs (through the harness's own permission flow), the stop ends; no reason.
    Proceed,
    /// The tool call does not run; the reason is shown to the model.
    Deny,
    /// The stop is blocked: the agent goes on, told why.
    Block,
    /// The hook could not decide: the harness denies the call or blocks the stop.
    Failed,
}

/// An answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Answer {
    /// The hook's answer: the decision and its reason (V-52); a reason with every decision but
    /// `proceed`, none with it (the client refuses anything else, X-40, X-41).
    Hook {
        /// What was decided.
        decision: HookDecision,
        /// Why (`null` with `proceed`).
        reason: Option<String>,
    },
    /// The server's state.
    Status {
        /// The process id.
        pid: u32,
        /// The store, described (never a password).
        store: String,
        /// The log's head: sequence number.
        head_seq: u64,
        /// The log's head: hash.
        head_hash: String,
        /// Milliseconds since the server started.
        uptime_ms: u64,
        /// Requests answered so far (this one not counted).
        requests_served: u64,
    },
    /// A decision command's outcome (V-54): the client renders it as direct mode does.
    Decided {
        /// What was found.
        outcome: Box<Outcome>,
    },
    /// The request was refused or could not be answered.
    Error {
        /// A stable code (`docs/codes.md`).
        code: Code,
        /// Why.
        reason: String,
    },
}

impl Answer {
    /// An `error` answer.
    pub fn error(code: Code, reason: impl Into<String>) -> Answer {
        Answer::Error { code, reason: reason.into() }
    }
}
