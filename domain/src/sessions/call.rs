//! What Warden approved is what ran (issue 47, H-55): a tool call's input is named by a digest at
//! the event that asks for it (before it runs) and again at the event that says it ran; the two
//! must be the same call with the same input. Another hook of the harness can hand the tool a
//! replacement input after Warden approved the original (each harness crate names its field), so
//! the input that ran is checked, and a call that ran with an input Warden never approved is a
//! violation that quarantines its session.
//!
//! A harness that gives each call an id names the call by it, and the digest must match; one that
//! gives none names it by the digest alone, so the input that ran must be one Warden approved in
//! that session and has not yet seen run — conservatively, a multiset: each approval is used by
//! one run (H-55).

use serde_json::Value;

use crate::code::Code;

use super::events::HookFailure;

/// The stage the violation is recorded at.
pub const APPROVED_INPUT_STAGE: &str = "approved_input";

/// One tool call's input, as a hook event names it (H-55).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallInput {
    /// The tool's name.
    pub tool_name: String,
    /// The harness's id of the call, when it gives one.
    pub call_id: Option<String>,
    /// [`input_digest`] of the tool's name and input.
    pub digest: String,
}

impl CallInput {
    /// The call named by its id when it has one, else by its digest: what an approval is kept
    /// under and a run looks for.
    pub fn key(&self) -> &str {
        self.call_id.as_deref().unwrap_or(&self.digest)
    }
}

/// Where a hook event stands to a tool call (H-55).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CallStage {
    /// The call is asked for, before it runs: a proceed keeps its input as approved.
    Asked(CallInput),
    /// The call ran, with this input: it must be one Warden approved and has not seen run.
    Ran(CallInput),
}

/// The BLAKE3 (hex) of `tool_name` and `input` in a canonical form: object keys sorted at every
/// depth, no whitespace, each part prefixed by its length. The same input gives the same digest
/// whatever order its keys were sent in; any other change of a value gives another.
pub fn input_digest(tool_name: &str, input: &Value) -> String {
    let mut canonical = String::new();
    write_canonical(input, &mut canonical);
    let mut hasher = blake3::Hasher::new();
    for part in [tool_name, canonical.as_str()] {
        hasher.update(&(part.len() as u64).to_le_bytes());
        hasher.update(part.as_bytes());
    }
    hasher.finalize().to_hex().to_string()
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                if let Some(v) = map.get(key) {
                    write_canonical(v, out);
                }
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

/// What the approvals kept for a call say of the input that ran: `approved`, the digests of the
/// approvals found under the run's key (each taken, so used once). `None`: the run is one Warden
/// approved. Otherwise the violation (`ran_unapproved_input`): no approval under its key (the
/// call never reached Warden, was denied, or ran with another input), or one whose input is not
/// the input that ran (H-55).
pub fn check_ran(ran: &CallInput, approved: &[String]) -> Option<HookFailure> {
    if approved.contains(&ran.digest) {
        return None;
    }
    let call = match &ran.call_id {
        Some(id) => format!("`{}` call `{id}`", ran.tool_name),
        None => format!("a `{}` call", ran.tool_name),
    };
    let what = if approved.is_empty() {
        format!(
            "{call} ran with an input Warden never approved (digest {}): another hook rewrote its \
             input after Warden's, or the call never reached Warden",
            short(&ran.digest)
        )
    } else {
        let seen: Vec<&str> = approved.iter().map(|d| short(d)).collect();
        format!(
            "{call} ran with an input (digest {}) that is not the one Warden approved ({}): another \
             hook rewrote it",
            short(&ran.digest),
            seen.join(", ")
        )
    };
    Some(HookFailure::new(
        APPROVED_INPUT_STAGE,
        Code::RanUnapprovedInput,
        format!(
            "{what}; the session is quarantined. Remove every other hook that can rewrite a tool's \
             input (`warden doctor` names them), then `warden release` the session"
        ),
    ))
}

fn short(digest: &str) -> &str {
    digest.get(..16).unwrap_or(digest)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn ran(call_id: Option<&str>, input: &Value) -> CallInput {
        CallInput {
            tool_name: "run_shell_command".into(),
            call_id: call_id.map(str::to_owned),
            digest: input_digest("run_shell_command", input),
        }
    }

    /// The digest names the input, not how it was spelt.
    #[test]
    fn the_digest_is_of_the_input_not_its_spelling() {
        let a: Value = serde_json::from_str(r#"{"command":"echo innocent","dir_path":"."}"#).unwrap();
        let b: Value = serde_json::from_str(r#"{ "dir_path": ".", "command": "echo innocent" }"#).unwrap();
        assert_eq!(input_digest("t", &a), input_digest("t", &b), "key order and spaces");
        let rows = [
            (json!({"command": "touch m_rewritten", "dir_path": "."}), "another value"),
            (json!({"command": "echo innocent"}), "a key removed"),
            (json!({"command": "echo innocent", "dir_path": ".", "x": null}), "a key added"),
            (json!({"command": ["echo innocent"], "dir_path": "."}), "another type"),
        ];
        for (other, why) in rows {
            assert_ne!(input_digest("t", &a), input_digest("t", &other), "{why}");
        }
        assert_ne!(input_digest("t", &a), input_digest("u", &a), "another tool");
    }

    /// Table: what ran against what was approved under its key.
    #[test]
    fn a_run_is_checked_against_its_approvals() {
        let innocent = json!({"command": "echo innocent"});
        let rewritten = json!({"command": "touch m_rewritten"});
        let d = |v: &Value| input_digest("run_shell_command", v);
        let rows: [(CallInput, Vec<String>, bool, &str); 6] = [
            (ran(Some("c1"), &innocent), vec![d(&innocent)], true, "the approved input ran"),
            (ran(Some("c1"), &rewritten), vec![d(&innocent)], false, "rewritten after approval"),
            (ran(Some("c1"), &innocent), vec![], false, "never approved (or denied)"),
            (ran(None, &innocent), vec![d(&innocent)], true, "no id: the digest found"),
            (ran(None, &rewritten), vec![], false, "no id: a rewrite finds no approval"),
            (ran(None, &innocent), vec![d(&rewritten), d(&innocent)], true, "one of several"),
        ];
        for (call, approved, passes, why) in rows {
            let failure = check_ran(&call, &approved);
            assert_eq!(failure.is_none(), passes, "{why}: {failure:?}");
            if let Some(f) = failure {
                assert_eq!(f.code, Code::RanUnapprovedInput, "{why}");
                assert!(f.reason.contains("quarantined") && f.reason.contains("warden doctor"), "{why}");
            }
        }
    }
}
