//! Copilot CLI as a [`Harness`]: its hook input decoded by [`super::parse_hook_input`], the
//! kernel's answer rendered by [`super::render`]. Over the domain alone, so that the thin hook
//! client, direct mode and the resident service hold the same object.

use agentwarden_domain::sessions::{
    Harness, HarnessProfile, HookAnswer, HookInput, InputError, Rendered, RulesAs,
};

use super::{PROFILE, SHELL_TOOLS, parse_hook_input, render, rules_as};

/// GitHub Copilot CLI.
#[derive(Clone, Copy, Debug, Default)]
pub struct Copilot;

impl Harness for Copilot {
    fn name(&self) -> &'static str {
        "Copilot CLI"
    }

    fn command(&self) -> &'static str {
        "copilot"
    }

    fn profile(&self) -> HarnessProfile {
        PROFILE
    }

    fn decode(&self, wire: &str) -> Result<HookInput, InputError> {
        parse_hook_input(wire)
    }

    fn render(&self, answer: &HookAnswer) -> Rendered {
        render(answer)
    }

    fn rules_as(&self, tool: &str, input: &serde_json::Value) -> RulesAs {
        rules_as(tool, input)
    }

    fn shell_tools(&self) -> &'static [&'static str] {
        &SHELL_TOOLS
    }
}
