//! What the decision commands print of their answer (V-13: the same whoever answered, the server
//! or the command line itself): the protocol's `Outcome` of `warden gate`, `lineage check`,
//! `authorize`, `result validate`, `guard check`, `approvals` and `seal --show`, in text (each
//! command's module renders it) or as the one JSON object `--json` prints, the facade's outcome
//! serialized.

use std::io::Write;
use std::path::Path;

use agentwarden::{
    AuditRef, AuthorizationOutcome, GateOutput, GuardOutcome, LineageOutcome, ResultOutcome, SubagentConfig,
};
use agentwarden_protocol::Outcome;
use serde::Serialize;

use super::{approvals_json, approvals_now, gate, guard, lineage, result, seal};

/// How the command that asked prints its answer.
#[derive(Clone, Copy, Debug, Default)]
pub struct Shown<'a> {
    /// `--json`: one JSON object.
    pub json: bool,
    /// The file `result validate` checked, named on its first line.
    pub file: Option<&'a Path>,
    /// The configuration's `[subagents]`: where the gate says it looked for a missing persona's
    /// or agent's file (N-6).
    pub subagents: Option<&'a SubagentConfig>,
}

/// Why an answer could not be printed.
#[derive(Debug)]
pub enum Unprinted {
    /// It could not be written.
    Io(std::io::Error),
    /// It could not be serialized (`--json`).
    Json(serde_json::Error),
}

impl From<std::io::Error> for Unprinted {
    fn from(error: std::io::Error) -> Self {
        Unprinted::Io(error)
    }
}

/// `value` as one line of JSON.
fn line(value: &impl Serialize, out: &mut dyn Write) -> Result<(), Unprinted> {
    let text = serde_json::to_string(value).map_err(Unprinted::Json)?;
    Ok(writeln!(out, "{text}")?)
}

/// Prints `outcome` as the command that asked, `shown`, prints it.
pub fn outcome(outcome: Outcome, shown: &Shown<'_>, out: &mut dyn Write) -> Result<(), Unprinted> {
    let json = shown.json;
    match outcome {
        Outcome::Gate { report, evaluation_us, audit } if json => {
            let audit = audit.map(|h| AuditRef { seq: h.seq, hash: h.hash.to_string() });
            line(&GateOutput { report: &report, evaluation_us, audit }, out)
        }
        Outcome::Gate { report, audit, .. } => Ok(gate::summary(&report, audit, shown.subagents, out)?),
        Outcome::LineageCheck { decision, result, audit } => {
            let outcome = LineageOutcome { decision, result, audit };
            if json { line(&outcome, out) } else { Ok(lineage::check(&outcome, out)?) }
        }
        Outcome::Authorize { authorization, audit } => {
            let outcome = AuthorizationOutcome { authorization, audit };
            if json { line(&outcome, out) } else { Ok(lineage::authorize(&outcome, out)?) }
        }
        Outcome::ResultValidate { validation, audit } => {
            let outcome = ResultOutcome { validation, audit };
            let file = shown.file.unwrap_or(Path::new(""));
            if json { line(&outcome, out) } else { Ok(result::validation(file, &outcome, out)?) }
        }
        Outcome::GuardCheck { clean, violation, violation_file, audit } => {
            let outcome = GuardOutcome { clean, violation, violation_file, audit };
            if json { line(&outcome, out) } else { Ok(guard::check(&outcome, out)?) }
        }
        Outcome::Approvals { seal, approvals } if json => {
            Ok(writeln!(out, "{}", approvals_json(seal.as_ref(), &approvals))?)
        }
        Outcome::Approvals { seal, approvals } => {
            let approvals: Vec<_> = approvals.iter().map(|a| (&a.record, &a.state)).collect();
            Ok(approvals_now(seal.as_ref(), &approvals, out)?)
        }
        Outcome::SealShow { seal: shown_seal } if json => line(&shown_seal, out),
        Outcome::SealShow { seal: shown_seal } => Ok(seal(shown_seal.as_ref(), out)?),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the listing commands print with nothing to list, in text and as `--json`'s line:
    /// (answer, --json, expected, why).
    #[test]
    fn an_empty_seal_and_no_approvals_print_as_the_commands_always_did() {
        let seal = || Outcome::SealShow { seal: None };
        let approvals = || Outcome::Approvals { seal: None, approvals: Vec::new() };
        for (answer, json, expected, why) in [
            (seal(), false, "no seal in force\n", "seal --show"),
            (seal(), true, "null\n", "seal --show --json"),
            (approvals(), false, "seal: none\nno approvals recorded\n", "approvals"),
            (approvals(), true, "{\"approvals\":[],\"seal\":null}\n", "approvals --json"),
        ] {
            let mut out = Vec::new();
            outcome(answer, &Shown { json, ..Shown::default() }, &mut out).unwrap();
            assert_eq!(String::from_utf8(out).unwrap(), expected, "{why}");
        }
    }
}
