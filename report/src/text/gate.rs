//! What `warden gate` prints for a human: the decision on its first line (`ALLOW` with the
//! approval, or `DENY` with the first gate that failed and its fix), then every other failure,
//! each candidate's verdict, the warnings and where the evaluation was recorded. For a persona or
//! agent that has no instruction file, where the gate looked and which names that directory holds
//! (N-6). `--json` prints the facade's `GateOutput` instead.

use std::io::{Result, Write};
use std::path::Path;

use agentwarden::SubagentConfig;
use agentwarden::audit::Head;
use agentwarden::config::FilePattern;
use agentwarden::governance::{Decision, GateReport, Name};

/// For a persona or agent that has no instruction file, where the gate looked and which
/// names that directory holds (what a typo would have meant), e.g.
/// "looked for `personas/AGENT_MANGER.md`; `personas` holds: MANAGER, PLANNER" (N-6).
pub fn where_looked(dir: &Path, pattern: &FilePattern, name: &str) -> String {
    let looked = match Name::new(name) {
        Ok(name) => format!("looked for `{}`", dir.join(pattern.file_name(&name)).display()),
        Err(_) => format!("looked in `{}`", dir.display()),
    };
    let mut names: Vec<String> = match agentwarden::files::list_dir(None, dir) {
        Ok(entries) => entries
            .iter()
            .filter_map(|(file, _)| pattern.name_of(&file.to_string_lossy()).map(str::to_owned))
            .collect(),
        Err(e) => return format!("{looked}; `{}` cannot be listed: {}", dir.display(), e.reason()),
    };
    names.sort();
    if names.is_empty() {
        format!("{looked}; `{}` holds no `{}` file", dir.display(), pattern.as_str())
    } else {
        format!("{looked}; `{}` holds: {}", dir.display(), names.join(", "))
    }
}

/// The gate's report in text; `subagents`, the configuration's, says where a missing persona's
/// or agent's file was looked for.
pub fn summary(
    report: &GateReport,
    audit: Option<Head>,
    subagents: Option<&SubagentConfig>,
    out: &mut dyn Write,
) -> Result<()> {
    let GateReport { decision, delegated, persona, first_failure, failures, candidates, warnings, .. } =
        report;
    let persona = persona.as_deref().unwrap_or("?");
    match decision {
        Decision::Allow => {
            let approval = report.approval_ref.as_deref().unwrap_or("?");
            let by = report.approved_by.as_deref().map(|b| format!(" by {b}")).unwrap_or_default();
            writeln!(out, "ALLOW  {persona} -> {}  (approval {approval}{by})", delegated.join(", "))?;
        }
        Decision::Deny => match first_failure {
            Some(f) => {
                let reason = agentwarden::with_fix(&f.code, &f.reason);
                writeln!(out, "DENY  {persona}: {} ({}): {reason}", f.gate.as_str(), f.code)?;
            }
            None => writeln!(out, "DENY  {persona}")?,
        },
    }
    for failure in failures.iter().skip(1) {
        writeln!(out, "  also failed: {} ({}): {}", failure.gate.as_str(), failure.code, failure.reason)?;
    }
    if let Some(subagents) = subagents
        && failures.iter().any(|f| f.code == "persona_missing")
    {
        let hint = where_looked(&subagents.personas_dir, &subagents.persona_file_pattern, persona);
        writeln!(out, "  {hint}")?;
    }
    for c in candidates {
        let verdict = if c.delegated {
            "delegated".to_owned()
        } else {
            format!("not delegated ({})", c.code.as_deref().unwrap_or("?"))
        };
        // "not delegated (gates_failed): a gate failed", not "…: not delegated: a gate failed".
        let reason = c.reason.strip_prefix("not delegated: ").unwrap_or(&c.reason);
        writeln!(out, "  candidate {}: {verdict}: {reason}", c.name)?;
        if let Some(subagents) = subagents
            && c.code.as_deref() == Some("agent_not_registered")
        {
            writeln!(
                out,
                "    {}",
                where_looked(&subagents.agents_dir, &subagents.agent_file_pattern, &c.name)
            )?;
        }
        for w in &c.warnings {
            writeln!(out, "    warning: {w}")?;
        }
    }
    for w in warnings {
        writeln!(out, "  warning: {w}")?;
    }
    match audit {
        Some(head) => writeln!(out, "  audit: seq {} hash {}", head.seq, head.hash),
        None => writeln!(out, "  audit: not recorded"),
    }
}
