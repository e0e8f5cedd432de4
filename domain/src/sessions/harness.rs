//! What a harness integration implements (issues 35, 49): its hook event decoded into the
//! kernel's question, and the kernel's answer rendered in its protocol (its failure form
//! included), as one object-safe trait that the resident service, direct mode and the thin hook
//! client all hold the same way (`&dyn Harness`), chosen by name in one registry. An
//! integration knows its wire format and nothing of the store, a decision or a rule; it lives
//! here, beside the values it reads and writes, because every ring above uses it and none of
//! them may name a harness.

use crate::lineage::RulesAs;

use super::{HarnessProfile, HookAnswer, HookInput, InputError};

/// What a hook process of a harness says: its exit code, what it prints on stdout, and on
/// stderr. The one rendering of an answer, whatever harness reads it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rendered {
    /// The exit code.
    pub exit_code: u8,
    /// What goes to stdout, if anything (one line, without its newline).
    pub stdout: Option<String>,
    /// What goes to stderr, if anything (one line, without its newline).
    pub stderr: Option<String>,
}

/// A harness integration: its wire format in and out.
pub trait Harness: Send + Sync {
    /// The harness as its users call it: in a reason and in a finding.
    fn name(&self) -> &'static str;

    /// Its name on a command line and in a request: one lower-case word or words joined by `-`,
    /// what `--harness NAME` and `warden init NAME` give, and what a request to the server names
    /// (C-7). The one registry chooses a harness by it.
    fn command(&self) -> &'static str;

    /// What it says of itself to the kernel: its words, its configuration section and the names
    /// that section may list (U-17). Its decoded events carry the same.
    fn profile(&self) -> HarnessProfile;

    /// One hook event as the harness sent it, decoded into the kernel's question; an input the
    /// kernel cannot use is an [`InputError`] (answered as a failure and recorded, H-30).
    fn decode(&self, wire: &str) -> Result<HookInput, InputError>;

    /// The kernel's answer in the harness's protocol. A [`HookAnswer::Failed`] must render as
    /// what the harness treats as a deny of the call or a block of the stop, never as an allow.
    fn render(&self, answer: &HookAnswer) -> Rendered;

    /// What the hook process named `program` prints for `answer`: [`Harness::render`], unless
    /// the harness's protocol names the process beside a reason (a failure's stderr read by a
    /// human, `program: REASON`).
    fn print(&self, answer: &HookAnswer, program: &str) -> Rendered {
        let _ = program;
        self.render(answer)
    }

    /// How the manifests' tool rules read the harness's call of `tool` with `input` (the tool's
    /// input in its event), as its hook reads it: which of the rule syntax's tools it is and its
    /// argument, or a tool the integration does not know (T-8, T-16, C-6). What `warden
    /// authorize` asks of a request's input.
    fn rules_as(&self, tool: &str, input: &serde_json::Value) -> RulesAs;

    /// Every tool of the harness that runs a shell command line (its input's `command`),
    /// which its [`Harness::decode`] reads as a [`super::ToolKind::Shell`]: what the line writes
    /// is checked for every agent, the main session included (T-31). No default: a new harness
    /// names its own, and the conformance suite drives each.
    fn shell_tools(&self) -> &'static [&'static str];
}

/// A harness borrowed for as long as it lives is the same harness: a registry's `&'static dyn
/// Harness` can be held where an owned one is.
impl<H: Harness + ?Sized> Harness for &H {
    fn name(&self) -> &'static str {
        (**self).name()
    }

    fn command(&self) -> &'static str {
        (**self).command()
    }

    fn profile(&self) -> HarnessProfile {
        (**self).profile()
    }

    fn decode(&self, wire: &str) -> Result<HookInput, InputError> {
        (**self).decode(wire)
    }

    fn render(&self, answer: &HookAnswer) -> Rendered {
        (**self).render(answer)
    }

    fn print(&self, answer: &HookAnswer, program: &str) -> Rendered {
        (**self).print(answer, program)
    }

    fn rules_as(&self, tool: &str, input: &serde_json::Value) -> RulesAs {
        (**self).rules_as(tool, input)
    }

    fn shell_tools(&self) -> &'static [&'static str] {
        (**self).shell_tools()
    }
}
