//! A hook event as the kernel reads it, whatever harness sent it: the session, the working
//! directory and what is asked — a spawn of an agent, a tool call (with the file a write names,
//! the agent a message goes to), an agent's start or stop, a change of the harness's settings.
//!
//! A harness integration parses its own wire format into these values (every input it cannot
//! use is an [`InputError`], answered as a failure, never a guess: H-1); the kernel decides on
//! them. Ids name files, so they are checked by [`is_safe_id`] (H-25).

use crate::code::Code;
use crate::lineage::RulesAs;

/// The id of the main session's agent, the root of every spawn tree, under which the main
/// session's snapshot of the protected paths is kept (H-45): no subagent may carry it.
pub const ROOT_ID: &str = "main";

/// A hook input larger than this is refused.
pub const MAX_HOOK_INPUT: usize = 1024 * 1024;

/// The longest id (`session_id`, `agent_id`, `tool_use_id`) Warden accepts (H-25).
pub const MAX_ID_LEN: usize = 128;

/// An id from the hook input names files (a session's quarantine marker and index, a
/// subagent's snapshot and violation directory), so it must be safe as one path component:
/// 1 to [`MAX_ID_LEN`] bytes of ASCII letters, digits, `_`, `-` and `.`, not starting with `.`
/// (so never `.`, `..` or a hidden name). The harnesses' ids (UUIDs, hex agent ids, tool-call
/// ids) all pass (H-25).
pub fn is_safe_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= MAX_ID_LEN
        && !id.starts_with('.')
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// The commands only a human runs (H-5, H-32, issue 21).
pub const HUMAN_VERBS: [&str; 4] = ["seal", "approve", "revoke", "release"];

/// The human verb a shell command runs through `warden`, if it looks like it does: after
/// removing quotes and backslashes, the command split at whitespace and shell punctuation holds
/// a word that is `warden` (or ends in `/warden`) and a word that is one of [`HUMAN_VERBS`].
/// Defence in depth only, and broad on purpose (`echo warden approve` is caught too): a command
/// that builds the name at run time (`w=ward; ${w}en approve`) passes, and the signatures
/// (K-1) are what an agent cannot get round (K-11).
pub fn human_verb_in(command: &str) -> Option<&'static str> {
    let plain: String = command.chars().filter(|c| !matches!(c, '"' | '\'' | '\\')).collect();
    let words: Vec<&str> = plain
        .split(|c: char| c.is_whitespace() || ";&|()<>`${}".contains(c))
        .filter(|w| !w.is_empty())
        .collect();
    let runs_warden = words.iter().any(|w| *w == "warden" || w.ends_with("/warden"));
    if !runs_warden {
        return None;
    }
    HUMAN_VERBS.into_iter().find(|verb| words.contains(verb))
}

/// The calling subagent, when a tool call comes from inside one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallingAgent {
    /// The harness's id of the subagent.
    pub agent_id: String,
    /// Its type (the subagent definition's name).
    pub agent_type: String,
}

/// How a harness says which agent an event comes from.
///
/// Most harnesses name the subagent in every event it causes: [`Attribution::Named`]. Some name
/// none: a subagent's calls arrive with its parent's session and no agent field, between the
/// spawn's call and its end. For such a harness the kernel holds a tool call without a caller to
/// the subagents running in its session: one running is the caller; several, and it is judged as
/// each of them in turn (the first denial stands); none, and it is the main session's (M-2). A
/// spawn is the main session's whatever runs: the only such harness gives its
/// subagents no spawn tool, so crediting a spawn to a running subagent would be a guess in the
/// asker's favour ([`Attribution::InFlight`], M-22).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Attribution {
    /// Every event names the subagent it comes from, or comes from the main session.
    #[default]
    Named,
    /// No event names a subagent: a tool call without a caller is the running subagents' (M-2),
    /// a spawn the main session's (M-22).
    InFlight,
}

/// A call of the subagent tool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpawnRequest {
    /// The harness's name of the tool that spawns it.
    pub tool_name: String,
    /// The tool call's id.
    pub tool_use_id: String,
    /// The subagent type asked for.
    pub subagent_type: String,
    /// Whether the harness says the type is one of its own built-in agent types (no instruction
    /// file of the project's): such a spawn is denied unless the configuration allows the type
    /// (H-20).
    pub builtin: bool,
    /// The prompt handed to the subagent (searched for a `result.json` it is asked to write).
    pub prompt: String,
    /// Who asks: a subagent, or the main session (`None`).
    pub caller: Option<CallingAgent>,
}

/// What a tool call that spawns no agent asks for, as far as Warden reads it (the integration
/// tells the kinds apart).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ToolKind {
    /// A tool that writes a file: the file it writes, as given (H-26).
    Write {
        /// `file_path` or `notebook_path`, unresolved.
        path: String,
    },
    /// A tool that writes several files at once (a patch): every file it writes, as given,
    /// each checked as a [`ToolKind::Write`] is; a protected one denies the whole call (H-26,
    /// C-5).
    Writes {
        /// The files, unresolved, in the order the call names them; never empty.
        paths: Vec<String>,
    },
    /// A message to (and so a resumption of) an existing agent (H-21).
    SendMessage {
        /// The agent it goes to, when named.
        to: Option<String>,
    },
    /// A tool that starts agents (H-22).
    StartsAgents,
    /// A shell command that runs one of Warden's human verbs (K-11).
    HumanVerb {
        /// `seal`, `approve`, `revoke` or `release`.
        verb: &'static str,
    },
    /// Anything else: governed only by who calls it (H-23, H-24).
    Other,
}

/// A tool call that spawns no agent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolCall {
    /// The tool's name.
    pub tool_name: String,
    /// The tool call's id, when given.
    pub tool_use_id: Option<String>,
    /// Who calls: a subagent, or the main session (`None`).
    pub caller: Option<CallingAgent>,
    /// What it asks for.
    pub kind: ToolKind,
    /// How the manifests' tool rules read the call: the integration's reading of its name and
    /// input (T-8, T-16).
    pub rules_as: RulesAs,
    /// The call's whole input when it is the harness's shell, so that Warden can run it under
    /// the confinement launcher (H-62); `None` for every other tool.
    pub shell: Option<super::ShellInput>,
}

/// One hook event, as far as Warden governs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HookEvent {
    /// A call of the tool that spawns agents: may this subagent be spawned?
    Spawn(SpawnRequest),
    /// A call of any other tool, before it runs.
    Tool(ToolCall),
    /// A subagent began.
    SubagentStart(CallingAgent),
    /// A subagent wants to stop.
    SubagentStop {
        /// The subagent.
        agent: CallingAgent,
        /// True when it is already going on because a stop hook blocked it before.
        stop_hook_active: bool,
    },
    /// The main session began (or resumed, or was cleared or compacted): its protected paths
    /// are snapshotted for its stop, once a session (H-45); a later start is compared with that
    /// snapshot and puts back what changed (H-52).
    SessionStart,
    /// The main session wants to stop (the end of its turn): the protected paths are compared
    /// with the session's snapshot and put back (H-46).
    SessionStop {
        /// True when it is already going on because a stop hook blocked it before.
        stop_hook_active: bool,
    },
    /// The session ends (the harness exits, or is cleared): the protected paths are compared
    /// with the session's snapshot and put back, and nothing can be blocked (H-48); the snapshot
    /// is kept, since an end can be the agent's and the session go on (H-53).
    SessionEnd {
        /// Why it ends, as the harness says, when it says.
        reason: Option<String>,
    },
    /// A settings or skills file of the harness changed during the session (H-43).
    ConfigChange {
        /// `source`: `user_settings`, `project_settings`, `local_settings`, `policy_settings`
        /// or `skills`, as the harness names it.
        source: String,
        /// `file_path`: the file that changed, when given.
        file_path: Option<String>,
    },
    /// Any other hook event: not governed here.
    Other {
        /// The event's name.
        name: String,
    },
}

/// A parsed hook input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HookInput {
    /// The harness's session.
    pub session_id: String,
    /// The session's working directory, when given.
    pub cwd: Option<String>,
    /// The event.
    pub event: HookEvent,
    /// Whether the harness names the subagent an event comes from (M-2).
    pub attribution: Attribution,
    /// The tool call this event asks for (its input kept when it proceeds) or says ran (its
    /// input checked against what was approved), when the integration names one (H-55).
    pub call: Option<super::CallStage>,
}

/// Why a hook input cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    /// Nothing on stdin.
    #[error("the hook input is empty")]
    Empty,
    /// Too large.
    #[error("the hook input is larger than {MAX_HOOK_INPUT} bytes")]
    TooLarge,
    /// Not JSON, or JSON with a duplicate key.
    #[error("the hook input is not valid JSON: {0}")]
    Json(String),
    /// Not an object.
    #[error("the hook input is {0}, not an object")]
    NotAnObject(&'static str),
    /// A field Warden needs is missing.
    #[error("the hook input has no `{0}`")]
    Missing(&'static str),
    /// An id that would name a file is not safe as one path component (H-25).
    #[error("`{field}` is not a safe id (1 to {MAX_ID_LEN} of A-Z a-z 0-9 _ - ., not starting with `.`)")]
    UnsafeId {
        /// The field.
        field: &'static str,
    },
    /// A field has the wrong type or an empty value.
    #[error("`{field}` is {seen}, expected {expected}")]
    Invalid {
        /// The field (a JSON path into the input).
        field: &'static str,
        /// What was seen.
        seen: String,
        /// What is expected.
        expected: &'static str,
    },
}

impl InputError {
    /// The stable code.
    pub fn code(&self) -> Code {
        match self {
            InputError::Empty => Code::HookInputEmpty,
            InputError::TooLarge => Code::HookInputTooLarge,
            InputError::Json(_) | InputError::NotAnObject(_) => Code::HookInputInvalid,
            InputError::Missing(_) => Code::HookInputMissingField,
            InputError::Invalid { .. } => Code::HookInputWrongType,
            InputError::UnsafeId { .. } => Code::HookInputUnsafeId,
        }
    }
}

/// The `result.json` a spawn's prompt asks for: the first whitespace-separated word that, with
/// surrounding quotes, backticks and punctuation removed, is a relative path ending in
/// `result.json` without `..` segments (H-4). `None` when the prompt names none.
pub fn requested_result_path(prompt: &str) -> Option<String> {
    prompt.split_whitespace().find_map(|word| {
        let quote = |c: char| matches!(c, '`' | '"' | '\'' | '(' | ')' | ',' | ';' | ':' | '<' | '>');
        let path = word.trim_start_matches(quote).trim_end_matches(|c| quote(c) || c == '.');
        let named = path == "result.json" || path.ends_with("/result.json");
        let inside = !path.starts_with('/') && !path.split(['/', '\\']).any(|p| p == "..");
        (named && inside).then(|| path.to_owned())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn safe_ids_are_one_plain_path_component() {
        for good in
            ["a", "toolu_01ABCdef", "9f1c2b3a-1111-2222-3333-444455556666", "a.b", &"x".repeat(MAX_ID_LEN)]
        {
            assert!(is_safe_id(good), "{good}");
        }
        for bad in ["", ".", "..", ".a", "a/b", "a\\b", "a b", "é", "a\n", &"x".repeat(MAX_ID_LEN + 1)] {
            assert!(!is_safe_id(bad), "{bad:?}");
        }
    }

    #[test]
    fn the_result_path_is_the_first_relative_result_json_named_in_the_prompt() {
        let rows = [
            ("write `runs/7/result.json` when done.", Some("runs/7/result.json")),
            ("write your report to `out/result.json`.", Some("out/result.json")),
            ("report to result.json", Some("result.json")),
            ("write /tmp/result.json", None),
            ("write ../result.json", None),
            ("no result asked", None),
            ("write out/my-result.json", None),
        ];
        for (prompt, expected) in rows {
            assert_eq!(requested_result_path(prompt).as_deref(), expected, "{prompt}");
        }
    }
}
