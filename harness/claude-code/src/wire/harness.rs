//! Claude Code as a [`Harness`]: its hook input decoded by [`super::parse_hook_input`], the
//! kernel's answer rendered by [`Rendering`]. Over the domain alone, so that the thin hook
//! client, direct mode and the resident service hold the same object.

use agentwarden_domain::sessions::{
    Harness, HarnessProfile, HookAnswer, HookInput, InputError, Rendered, RulesAs,
};

use super::{PROFILE, Rendering, SHELL_TOOLS, parse_hook_input, rules_as};

/// Claude Code.
#[derive(Clone, Copy, Debug, Default)]
pub struct ClaudeCode;

impl Harness for ClaudeCode {
    fn name(&self) -> &'static str {
        "Claude Code"
    }

    fn command(&self) -> &'static str {
        "claude-code"
    }

    fn profile(&self) -> HarnessProfile {
        PROFILE
    }

    fn decode(&self, wire: &str) -> Result<HookInput, InputError> {
        parse_hook_input(wire)
    }

    fn render(&self, answer: &HookAnswer) -> Rendered {
        Rendered { exit_code: answer.exit_code(), stdout: answer.stdout(), stderr: answer.stderr() }
    }

    /// A failure's stderr names the hook's process first (`warden: REASON`), as Claude Code
    /// shows it to the user.
    fn print(&self, answer: &HookAnswer, program: &str) -> Rendered {
        Rendered {
            stderr: answer.stderr().map(|reason| format!("{program}: {reason}")),
            ..self.render(answer)
        }
    }

    fn rules_as(&self, tool: &str, input: &serde_json::Value) -> RulesAs {
        rules_as(tool, input)
    }

    fn shell_tools(&self) -> &'static [&'static str] {
        &SHELL_TOOLS
    }
}
