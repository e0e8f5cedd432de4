//! A subagent's tool call through the manifests' tool rules (T-9, T-10), judged by the rules
//! as sealed (T-11), and the answer it becomes once recorded.

use super::answer::HookAnswer;
use super::events::HookFailure;
use super::request::ToolCall;
use super::state::SpawnTree;
use crate::fact::FactError;
use crate::governance::Name;
use crate::lineage::RulesAs;
use crate::lineage::ToolCallAuthorized;
use crate::lineage::{Manifests, ToolUse, refuse};
use crate::verdict::{Code, Decision, Failed, Verdict};

/// What a subagent's tool call is judged by under the manifests' tool rules (T-9, T-10).
#[derive(Debug)]
pub struct ToolRulesFacts<'a> {
    /// The main session's type, the lineage's root.
    pub main: &'a Name,
    /// The session's spawn tree.
    pub tree: &'a SpawnTree,
    /// The manifests as read now (T-11), or why they could not be read.
    pub manifests: Result<&'a Manifests, FactError>,
    /// The seal's verdict on the files as read now; `None` when no seal is recorded.
    pub seal: Option<Verdict>,
    /// The configured `tools = "shadow"`: a denial by the rules is recorded, not enforced.
    pub shadow_mode: bool,
}

/// A subagent's call judged by the tool rules: the event to record and whether the rules deny it.
#[derive(Debug)]
pub struct ToolRulesJudged {
    /// `tool_call_authorized`.
    pub event: ToolCallAuthorized,
    /// The deny to give, whatever the record: the rules deny and are enforced.
    pub refused: Option<HookAnswer>,
}

/// A subagent's call through the three layers on its recorded lineage. The
/// rules that judge it are the manifests as sealed: rules that are not (the seal fails, or
/// none is recorded) or that cannot be read deny in either mode; shadow mode softens only the
/// verdict of the sealed rules. `None` for the main session's own calls (`caller` `None`) (T-9, T-10, T-11).
pub fn judge_tool_rules(
    call: &ToolCall,
    tool: ToolUse,
    facts: ToolRulesFacts<'_>,
) -> Option<ToolRulesJudged> {
    let ToolRulesFacts { main, tree, manifests, seal, shadow_mode } = facts;
    let sealed = seal.unwrap_or_else(|| {
        let reason = "no seal is recorded, so no tool rule is in force (run `warden seal`)";
        Verdict::from(Failed::new(Code::SealNotRecorded, reason))
    });
    let mut enforced = true;
    let unknown = matches!(call.rules_as, RulesAs::Unknown);
    let (lineage, authorization) = match (manifests, &sealed) {
        // A tool the integration cannot map onto the rule syntax is granted by no rule, in
        // either mode; the main session's calls are not the rules' (as below) (C-6).
        _ if unknown => {
            let caller = call.caller.as_ref()?;
            let reason = format!(
                "`{}` is a tool Agent Warden does not know, so no tool rule can grant it to agent `{}`",
                call.tool_name, caller.agent_id
            );
            let why = Failed::new(Code::ToolNotAllowed, reason);
            (tree.caller_lineage(main, Some(caller)).unwrap_or_default(), refuse(&why))
        }
        (Ok(_), Verdict::Fail { code, reason }) => {
            let why = Failed::new(code.clone(), format!("the tool rules are not as sealed: {reason}"));
            (tree.caller_lineage(main, call.caller.as_ref()).unwrap_or_default(), refuse(&why))
        }
        (Ok(manifests), Verdict::Pass { .. }) => {
            enforced = false;
            tree.authorize_tool(main, call.caller.as_ref(), tool.clone(), manifests)?
        }
        (Err(e), _) => {
            (Vec::new(), refuse(&Failed::new(Code::ManifestsUnavailable, format!("manifests: {e}"))))
        }
    };
    let shadow = !enforced && shadow_mode;
    let denied = authorization.decision == Decision::Deny;
    let reason = authorization.first_failure.as_ref().map(|f| {
        format!("Agent Warden denied this at tool rules layer {} ({}): {}", f.layer, f.code, f.reason)
    });
    let refused = (denied && !shadow).then(|| {
        HookAnswer::deny(reason.unwrap_or_else(|| "Agent Warden denied this at tool rules".to_owned()))
    });
    let event = ToolCallAuthorized::new(
        lineage.last().cloned(),
        Some(tool.to_string()),
        authorization,
        &lineage,
        shadow,
    );
    Some(ToolRulesJudged { event, refused })
}

/// The answer to a subagent's call judged by the tool rules ([`ToolRulesJudged::refused`]),
/// once its event was appended or not: `Some` when the call is not to run — a denial enforced,
/// recorded or not, or an allow that could not be recorded (at `audit`); `None` when it may.
pub fn tool_rules_answer(refused: Option<HookAnswer>, recorded: Result<(), FactError>) -> Option<HookAnswer> {
    match (recorded, refused) {
        (_, Some(refused)) => Some(refused),
        (Ok(()), None) => None,
        (Err(e), None) => Some(HookAnswer::deny(HookFailure::unrecorded(&e).describe())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lineage::parse_manifest_text;
    use crate::sessions::ToolKind;
    use crate::sessions::tool::tests::{call, tree};

    #[test]
    fn a_denial_enforced_stands_and_an_allow_unrecorded_is_a_deny() {
        let refused = HookAnswer::deny("rules");
        assert_eq!(tool_rules_answer(Some(refused.clone()), Err("x".into())), Some(refused));
        assert_eq!(tool_rules_answer(None, Ok(())), None);
        assert!(matches!(tool_rules_answer(None, Err("x".into())), Some(HookAnswer::Deny { .. })));
    }

    /// Rules that are not the sealed ones, or cannot be read, deny even in shadow mode;
    /// shadow mode softens only the sealed rules' verdict (T-11).
    #[test]
    fn only_the_sealed_rules_verdict_is_softened_by_shadow_mode() {
        let tree = tree();
        let main = Name::new("main").unwrap_or_else(|e| panic!("{e}"));
        let manifests = parse_manifest_text(
            "m.toml",
            "[agents.main]\ncan_spawn = [\"planner\"]\nmax_spawn_depth = 3\ntools = []\n\
             [agents.planner]\ncan_spawn = []\nmax_spawn_depth = 3\ntools = [\"Read\"]\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        // A call the planner's rules (`Read` alone) do not grant.
        let shell = call(Some(("a1", "planner")), "Shell", ToolKind::Other);
        let judge = |seal: Option<Verdict>, readable: bool, shadow_mode: bool| {
            let tool = ToolUse::named("Shell");
            let facts = ToolRulesFacts {
                main: &main,
                tree: &tree,
                manifests: if readable { Ok(&manifests) } else { Err("gone".into()) },
                seal,
                shadow_mode,
            };
            judge_tool_rules(&shell, tool, facts).unwrap_or_else(|| panic!("a subagent's call is judged"))
        };
        let sealed = || Some(Verdict::pass("as sealed"));
        let changed = || Some(Verdict::fail(Code::SealedFileChanged, "m.toml changed"));
        /// Seal, manifests readable, shadow mode, refused, shadow recorded, the first code, why.
        type Row = (Option<Verdict>, bool, bool, bool, bool, Code, &'static str);
        let rows: [Row; 6] = [
            (sealed(), true, false, true, false, Code::ToolNotAllowed, "enforced: denied"),
            (sealed(), true, true, false, true, Code::ToolNotAllowed, "shadow: recorded, not enforced"),
            (None, true, true, true, false, Code::SealNotRecorded, "no seal: denied in shadow mode too"),
            (changed(), true, true, true, false, Code::SealedFileChanged, "rules not as sealed"),
            (sealed(), false, true, true, false, Code::ManifestsUnavailable, "rules unreadable"),
            (None, false, false, true, false, Code::ManifestsUnavailable, "unreadable before unsealed"),
        ];
        for (seal, readable, shadow_mode, refused, shadow, code, why) in rows {
            let judged = judge(seal, readable, shadow_mode);
            assert_eq!(judged.refused.is_some(), refused, "{why}");
            assert_eq!(judged.event.shadow, shadow, "{why}");
            let first = judged.event.authorization.first_failure.as_ref().map(|f| f.code.clone());
            assert_eq!(first, Some(code), "{why}");
        }
    }

    /// A tool the integration does not know is denied to a subagent even where a rule
    /// names it, in shadow mode too; the main session's call is not the rules' to judge (C-6).
    #[test]
    fn a_tool_no_integration_knows_is_granted_by_no_rule() {
        let tree = tree();
        let main = Name::new("main").unwrap_or_else(|e| panic!("{e}"));
        let manifests = parse_manifest_text(
            "m.toml",
            "[agents.main]\ncan_spawn = [\"planner\"]\nmax_spawn_depth = 3\ntools = [\"mystery\"]\n\
             [agents.planner]\ncan_spawn = []\nmax_spawn_depth = 3\ntools = [\"mystery\"]\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let judge = |caller: Option<(&str, &str)>, rules_as: RulesAs, shadow_mode: bool| {
            let call = ToolCall { rules_as, ..call(caller, "mystery", ToolKind::Other) };
            let facts = ToolRulesFacts {
                main: &main,
                tree: &tree,
                manifests: Ok(&manifests),
                seal: Some(Verdict::pass("as sealed")),
                shadow_mode,
            };
            judge_tool_rules(&call, ToolUse::named("mystery"), facts)
        };
        let a1 = Some(("a1", "planner"));
        let known = judge(a1, RulesAs::named("mystery"), false).unwrap_or_else(|| panic!("judged"));
        assert!(known.refused.is_none(), "control: the rule grants the tool by its name");
        for shadow_mode in [false, true] {
            let unknown = judge(a1, RulesAs::Unknown, shadow_mode).unwrap_or_else(|| panic!("judged"));
            assert!(unknown.refused.is_some(), "shadow mode {shadow_mode}: denied");
            let first = unknown.event.authorization.first_failure.as_ref().map(|f| f.code.clone());
            assert_eq!(first, Some(Code::ToolNotAllowed));
        }
        assert!(judge(None, RulesAs::Unknown, false).is_none(), "the main session's call");
    }
}
