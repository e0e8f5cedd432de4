//! A Gemini CLI hook event's text answered by the kernel: parsed by [`crate::wire`], decided by a
//! [`Warden`], rendered by [`crate::wire::render`] (M-1). An input that cannot be used is
//! refused and recorded (H-30), as for Claude Code.

use agentwarden::harness::{Harness, Rendered};
use agentwarden::lineage_rules::RulesAs;
use agentwarden::sessions::{HookInput, InputError};
use agentwarden::{Config, HookAnswer, HookStorage, Pre, Warden, before_store_parsed};

use crate::wire::{parse_hook_input, render, rules_as};

/// Gemini CLI as a [`Harness`]: its hook input decoded by [`crate::wire::parse_hook_input`], the
/// kernel's answer rendered by [`crate::wire::render`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Gemini;

impl Harness for Gemini {
    fn name(&self) -> &'static str {
        "Gemini CLI"
    }

    fn profile(&self) -> agentwarden::sessions::HarnessProfile {
        crate::wire::PROFILE
    }

    fn decode(&self, wire: &str) -> Result<HookInput, InputError> {
        parse_hook_input(wire)
    }

    fn render(&self, answer: &HookAnswer) -> Rendered {
        let rendered = render(answer);
        Rendered { exit_code: rendered.exit_code, stdout: rendered.stdout, stderr: rendered.stderr }
    }

    fn rules_as(&self, tool: &str, input: &serde_json::Value) -> RulesAs {
        rules_as(tool, input)
    }

    fn shell_tools(&self) -> &'static [&'static str] {
        &crate::wire::SHELL_TOOLS
    }
}

/// Answers one hook event given as the JSON text of its stdin, with the hook's files in
/// `storage`.
pub async fn hook_with(warden: &Warden, text: &str, storage: &HookStorage) -> HookAnswer {
    warden.hook_parsed(text, parse_hook_input(text), storage).await
}

/// Decides what it can without the store (H-24); an input that does not parse goes to the
/// store, which records its refusal (H-30).
pub fn before_store(config: &Config, storage: &HookStorage, text: &str) -> Pre {
    before_store_parsed(config, storage, &parse_hook_input(text))
}

#[cfg(test)]
mod tests {
    /// The variable the application refuses the human verbs under is the one Gemini sets.
    #[test]
    fn the_application_knows_the_variable_gemini_sets() {
        assert_eq!(agentwarden::human::GEMINI_ENV, crate::wire::GEMINI_ENV);
    }
}
