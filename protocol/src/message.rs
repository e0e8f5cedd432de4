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
    /// The log's latest durable checkpoint (V-65): its size, root and chain head, and the note
    /// the server signed last when it signs (A-37).
    Checkpoint {},
    /// The inclusion proof of event `seq` in the tree of the log's first `size` events (V-65).
    InclusionProof {
        /// The event's sequence number.
        seq: u64,
        /// The size of the tree: the client's checkpoint's.
        size: u64,
    },
    /// The consistency proof from the tree of the first `old` events to that of the first
    /// `size` (V-65).
    ConsistencyProof {
        /// The older tree's size.
        old: u64,
        /// The newer tree's size.
        size: u64,
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
    /// The tool call runs with the input the frame's `tool_input` holds in place of the one sent
    /// (H-61, H-62); with a reason.
    Rewrite,
}

/// How a server's OpenTelemetry export goes (V-61): what `warden status` shows (V-64).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpanExport {
    /// Where the spans go: the OTLP traces endpoint.
    pub endpoint: String,
    /// Spans the endpoint accepted.
    pub exported: u64,
    /// Spans dropped: the queue was full, or the endpoint did not accept them.
    pub dropped: u64,
    /// Spans waiting to be sent.
    pub queued: u64,
    /// Why the last export failed, while the last one failed.
    pub last_error: Option<String>,
}

/// A witness the server submits its checkpoints to (A-40), as `warden status` shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WitnessReport {
    /// Where it answers.
    pub url: String,
    /// The size of the last checkpoint it cosigned for this server, when it did.
    pub cosigned: Option<u64>,
    /// Why the last submission failed, while the last one failed.
    pub last_error: Option<String>,
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
        /// With `failed` only: what failed, the stable code (X-1), a field beside the reason and
        /// never spliced into it (X-93). Never written when absent, so that every other answer
        /// is the frame an older client reads; an older client refuses a failure with it (an
        /// unknown field), which it says as its own failure (exit 2), never a pass.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        code: Option<Code>,
        /// Why (`null` with `proceed`); a failure's without its code.
        reason: Option<String>,
        /// With `rewrite` only: the whole input the tool runs with. Never written when absent,
        /// so that every other answer is the frame an older client reads; an older client refuses
        /// a frame with it (an unknown field), never runs the call as sent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool_input: Option<serde_json::Map<String, serde_json::Value>>,
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
        /// The OpenTelemetry export, when the server exports (V-61, V-64): absent when it does not,
        /// so a client that predates it still reads such a server's status; one that predates
        /// it refuses the status of a server that exports (an unknown field, V-2).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        export: Option<SpanExport>,
        /// The witnesses, when the server submits to any (A-40): absent otherwise, as `export`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        witnesses: Option<Vec<WitnessReport>>,
    },
    /// A decision command's outcome (V-54): the client renders it as direct mode does.
    Decided {
        /// What was found.
        outcome: Box<Outcome>,
    },
    /// The log's latest durable checkpoint (V-65).
    Checkpoint {
        /// How many events are durable: the tree's size.
        size: u64,
        /// The Merkle root of those events, standard base64 (as a checkpoint's third line).
        root: String,
        /// The hash of the chain's head at `size` (the `head_hash` of `audit checkpoint --json`).
        head_hash: String,
        /// The note the server signed last (A-37), when its configuration names a log key.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// An inclusion proof (V-65).
    InclusionProof {
        /// The event's sequence number.
        seq: u64,
        /// The tree's size.
        size: u64,
        /// The audit path, nearest the leaf first, each standard base64.
        hashes: Vec<String>,
        /// The event's stored body (the leaf), only to a peer that may read the store's files
        /// (V-66); `null` to any other.
        event: Option<String>,
    },
    /// A consistency proof (V-65).
    ConsistencyProof {
        /// The older tree's size.
        old: u64,
        /// The newer tree's size.
        size: u64,
        /// The Merkle root of the newer tree, standard base64: the client holds its checkpoint
        /// to it.
        root: String,
        /// The proof, each hash standard base64.
        hashes: Vec<String>,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn status(export: Option<SpanExport>) -> Answer {
        Answer::Status {
            pid: 1,
            store: "s".into(),
            head_seq: 2,
            head_hash: "h".into(),
            uptime_ms: 3,
            requests_served: 4,
            export,
            witnesses: None,
        }
    }

    /// The tree's requests and answers read back as themselves; a server that signs
    /// nothing sends no `note`; a field more is refused (V-2, V-65).
    #[test]
    fn the_trees_requests_and_answers_read_back_and_nothing_more() {
        let round = |frame: Vec<u8>| String::from_utf8(frame.get(4..).unwrap().to_vec()).unwrap();
        for request in [
            Request::Checkpoint {},
            Request::InclusionProof { seq: 42, size: 70 },
            Request::ConsistencyProof { old: 3, size: 70 },
        ] {
            let text = round(crate::encode(&request).unwrap());
            assert_eq!(crate::decode::<Request>(text.as_bytes()).unwrap(), request);
            let more = text.replacen('{', r#"{"body":true,"#, 1);
            assert_eq!(
                crate::decode::<Request>(more.as_bytes()).unwrap_err().code,
                Code::FrameInvalid,
                "{more}"
            );
        }
        let unsigned = Answer::Checkpoint { size: 1, root: "r".into(), head_hash: "h".into(), note: None };
        let text = round(crate::encode(&unsigned).unwrap());
        assert!(!text.contains("note"), "{text}");
        assert_eq!(crate::decode::<Answer>(text.as_bytes()).unwrap(), unsigned);
        let withheld = Answer::InclusionProof { seq: 1, size: 1, hashes: Vec::new(), event: None };
        let text = round(crate::encode(&withheld).unwrap());
        assert_eq!(crate::decode::<Answer>(text.as_bytes()).unwrap(), withheld);
    }

    /// A server that does not export sends the status of before (a client that predates
    /// `export` reads it); one that does sends `export`; a status without it reads as no export (V-64).
    #[test]
    fn the_export_is_in_the_status_only_when_the_server_exports() {
        let off = crate::encode(&status(None)).unwrap();
        let text = String::from_utf8(off.get(4..).unwrap().to_vec()).unwrap();
        assert!(!text.contains("export"), "{text}");
        assert_eq!(crate::decode::<Answer>(off.get(4..).unwrap()).unwrap(), status(None));

        let export = SpanExport {
            endpoint: "http://127.0.0.1:4318/v1/traces".into(),
            exported: 5,
            dropped: 6,
            queued: 7,
            last_error: Some("refused".into()),
        };
        let on = crate::encode(&status(Some(export.clone()))).unwrap();
        assert_eq!(crate::decode::<Answer>(on.get(4..).unwrap()).unwrap(), status(Some(export)));
        let mut extra = serde_json::from_slice::<serde_json::Value>(on.get(4..).unwrap()).unwrap();
        extra["export"]["more"] = 1.into();
        let refused = crate::decode::<Answer>(&serde_json::to_vec(&extra).unwrap()).unwrap_err();
        assert_eq!(refused.code, Code::FrameInvalid, "a field more in `export` is refused (V-2)");
    }
}
