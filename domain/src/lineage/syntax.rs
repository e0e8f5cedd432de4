//! The rule syntax's words (T-16). The manifests' tool rules are written in the permission-rule
//! syntax the harnesses share (issue 24), and these are its keywords: the one place in the
//! domain that spells them. They are the syntax's, not a harness's: an integration maps each of
//! its harness's calls onto them ([`RulesAs`](super::RulesAs)), its shell onto [`SHELL`], a patch
//! tool onto [`EDIT`] (C-5), and a tool it does not know onto nothing (C-6).

/// `Bash(PATTERN)`: a rule that compares a command line (T-4).
pub const SHELL: &str = "Bash";

/// `WebFetch(domain:HOST)`: a rule that compares a URL's host.
pub const WEB_FETCH: &str = "WebFetch";

/// `Edit(PATH)`: a path rule that covers every tool of [`EDIT_FAMILY`]; a bare `Edit` is `Edit`
/// alone (T-3).
pub const EDIT: &str = "Edit";

/// The tools an `Edit(PATH)` rule covers (T-3).
pub const EDIT_FAMILY: [&str; 4] = [EDIT, "Write", "MultiEdit", "NotebookEdit"];

/// `Read(PATH)`: a path rule that covers every tool of [`READ_FAMILY`]; a bare `Read` is `Read`
/// alone (T-3).
pub const READ: &str = "Read";

/// The tools a `Read(PATH)` rule covers (T-3).
pub const READ_FAMILY: [&str; 3] = [READ, "Grep", "Glob"];

/// `Agent(TYPE)`, and `Task(TYPE)` (its former name): a rule that compares a subagent type.
pub const AGENT_FAMILY: [&str; 2] = ["Agent", "Task"];
