//! What a harness integration implements (issue 35): its hook event decoded into the kernel's
//! question, and the kernel's answer rendered in its protocol (its failure form included). The
//! kernel decides in between ([`Warden::answer_hook`]); an integration knows its wire format and
//! nothing of the store, a decision or a rule.
//!
//! With the feature `conformance`, [`conformance`] holds the harness conformance suite: the same
//! situations driven through each integration's wire format, as the ports' suites run on every
//! adapter. A new harness is done when it passes.

#[cfg(feature = "conformance")]
pub mod conformance;

use agentwarden_domain::lineage::RulesAs;
use agentwarden_domain::sessions::{HarnessProfile, HookAnswer, HookInput, InputError};

use crate::hook::HookStorage;
use crate::warden::Warden;

/// What a hook process of the harness says: its exit code, what it prints on stdout, and on
/// stderr.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rendered {
    /// The exit code.
    pub exit_code: u8,
    /// What goes to stdout, if anything.
    pub stdout: Option<String>,
    /// What goes to stderr, if anything.
    pub stderr: Option<String>,
}

/// A harness integration: its wire format in and out.
pub trait Harness: Send + Sync {
    /// The harness as its users call it.
    fn name(&self) -> &'static str;

    /// What it says of itself to the kernel: its words, its configuration section and the names
    /// that section may list (U-17). Its decoded events carry the same.
    fn profile(&self) -> HarnessProfile;

    /// One hook event as the harness sent it, decoded into the kernel's question; an input the
    /// kernel cannot use is an [`InputError`] (answered as a failure and recorded, H-1, H-30).
    fn decode(&self, wire: &str) -> Result<HookInput, InputError>;

    /// The kernel's answer in the harness's protocol. A [`HookAnswer::Failed`] must render as
    /// what the harness treats as a deny of the call or a block of the stop, never as an allow.
    fn render(&self, answer: &HookAnswer) -> Rendered;

    /// How the manifests' tool rules read the harness's call of `tool` with `input` (its
    /// `tool_input`), as its hook reads it: which of the rule syntax's tools it is and its
    /// argument, or a tool the integration does not know (T-8, T-16, C-6). What `warden
    /// authorize` asks of a request's input.
    fn rules_as(&self, tool: &str, input: &serde_json::Value) -> RulesAs;

    /// Every tool of the harness that runs a shell command line (its `tool_input.command`),
    /// which its [`Harness::decode`] reads as a [`agentwarden_domain::sessions::ToolKind::Shell`]:
    /// what the line writes is checked for every agent, the main session included (T-31). No
    /// default: a new harness names its own, and the conformance suite drives each.
    fn shell_tools(&self) -> &'static [&'static str];
}

impl Warden {
    /// One hook event in `harness`'s wire format, answered in it: decoded, decided and recorded
    /// by the kernel, rendered by the harness. It runs what the command line and the server run:
    /// first what needs no store (the check of what ran against what was approved, H-55, and the
    /// quarantine marker, H-28), then the store's decision on the same parse; a caller of this
    /// function is never given less.
    pub async fn answer_hook(&self, harness: &dyn Harness, wire: &str, storage: &HookStorage) -> Rendered {
        let parsed = harness.decode(wire);
        let answer = match crate::hook::before_store_parsed(&self.config, storage, &parsed) {
            crate::hook::Pre::Done(done) => done,
            crate::hook::Pre::Store { .. } => self.hook_parsed(wire, parsed, storage).await,
        };
        harness.render(&answer)
    }
}
