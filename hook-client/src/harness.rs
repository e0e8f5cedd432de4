//! Which harness calls the hook (issue 36): named on the hook's command line (`--harness
//! codex`; absent, Claude Code, as every line installed before there were two), it says how the
//! event on stdin is read and how the answer is printed, and the request names it to the server
//! (C-7).

use agentwarden_claude_code::wire::Rendering;
use agentwarden_domain::sessions::{HarnessProfile, HookAnswer, HookInput, HookReason, InputError};

/// A harness whose hook Warden answers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HookHarness {
    /// Claude Code (the default).
    #[default]
    ClaudeCode,
    /// OpenAI Codex CLI.
    Codex,
    /// Google Gemini CLI.
    Gemini,
}

/// What a hook process prints: its exit code, its stdout line, its stderr line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Printed {
    /// The exit code.
    pub exit_code: u8,
    /// One line on stdout, if any.
    pub stdout: Option<String>,
    /// One line on stderr, if any.
    pub stderr: Option<String>,
}

impl Printed {
    /// The halt (H-57): exit 0, one line of JSON that ends the session with `reason`, nothing on
    /// stderr; every harness Warden answers reads it the same way.
    pub fn halt(reason: &HookReason) -> Printed {
        Printed { exit_code: 0, stdout: Some(agentwarden_protocol::halt::render(reason)), stderr: None }
    }
}

impl HookHarness {
    /// The names `--harness` takes.
    pub const NAMES: [&'static str; 3] = ["claude-code", "codex", "gemini"];

    /// `--harness NAME`, or why it is refused.
    pub fn parse(name: &str) -> Result<HookHarness, String> {
        match name {
            "claude-code" => Ok(HookHarness::ClaudeCode),
            "codex" => Ok(HookHarness::Codex),
            "gemini" => Ok(HookHarness::Gemini),
            other => Err(format!("`--harness {other}` is not one of {}", HookHarness::NAMES.join(", "))),
        }
    }

    /// Every harness whose hook Warden answers.
    pub const ALL: [HookHarness; 3] = [HookHarness::ClaudeCode, HookHarness::Codex, HookHarness::Gemini];

    /// What its integration says of it to the kernel: its words and its configuration section,
    /// with the names that section may list (U-17).
    pub fn profile(self) -> HarnessProfile {
        match self {
            HookHarness::ClaudeCode => agentwarden_claude_code::wire::PROFILE,
            HookHarness::Codex => agentwarden_codex::wire::PROFILE,
            HookHarness::Gemini => agentwarden_gemini::wire::PROFILE,
        }
    }

    /// Every harness's profile: the sections a configuration may have besides Warden's own, any
    /// other refused (U-19).
    pub fn profiles() -> [HarnessProfile; 3] {
        HookHarness::ALL.map(HookHarness::profile)
    }

    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            HookHarness::ClaudeCode => "claude-code",
            HookHarness::Codex => "codex",
            HookHarness::Gemini => "gemini",
        }
    }

    /// The name a request to the server gives (C-7): none for the default, so that the request
    /// is the bytes an older server reads; any other harness by its name.
    pub fn requested(self) -> Option<String> {
        match self {
            HookHarness::ClaudeCode => None,
            HookHarness::Codex | HookHarness::Gemini => Some(self.name().to_owned()),
        }
    }

    /// Every tool of this harness that runs a shell command line: [`HookHarness::decode`] reads
    /// each as a shell call, whose writes are checked for every agent (T-31).
    pub fn shell_tools(self) -> &'static [&'static str] {
        match self {
            HookHarness::ClaudeCode => &agentwarden_claude_code::wire::SHELL_TOOLS,
            HookHarness::Codex => &agentwarden_codex::wire::SHELL_TOOLS,
            HookHarness::Gemini => &agentwarden_gemini::wire::SHELL_TOOLS,
        }
    }

    /// The event on stdin, read as this harness writes it.
    pub fn decode(self, text: &str) -> Result<HookInput, InputError> {
        match self {
            HookHarness::ClaudeCode => agentwarden_claude_code::wire::parse_hook_input(text),
            HookHarness::Codex => agentwarden_codex::wire::parse_hook_input(text),
            HookHarness::Gemini => agentwarden_gemini::wire::parse_hook_input(text),
        }
    }

    /// `answer` as this harness reads it; `program` names the hook on a failure's stderr
    /// (Claude Code's form, `warden: REASON`; Codex's and Gemini's name their answer itself,
    /// C-1, M-1).
    pub fn print(self, answer: &HookAnswer, program: &str) -> Printed {
        self.print_on(answer, program, false)
    }

    /// `answer` as this harness reads it on a line that says whether a failure halts (H-57): on
    /// a stop's line (`halt_on_failure`) a failure is the halt, every other answer as
    /// [`HookHarness::print`] says it.
    pub fn print_on(self, answer: &HookAnswer, program: &str, halt_on_failure: bool) -> Printed {
        if let (true, HookAnswer::Failed { reason }) = (halt_on_failure, answer) {
            return Printed::halt(reason);
        }
        match self {
            HookHarness::ClaudeCode => Printed {
                exit_code: answer.exit_code(),
                stdout: answer.stdout(),
                stderr: answer.stderr().map(|reason| format!("{program}: {reason}")),
            },
            // Each its own rendering: a confined call's allow differs (C-20, M-29).
            HookHarness::Codex => {
                let rendered = agentwarden_codex::wire::render(answer);
                Printed { exit_code: rendered.exit_code, stdout: rendered.stdout, stderr: rendered.stderr }
            }
            HookHarness::Gemini => {
                let rendered = agentwarden_gemini::wire::render(answer);
                Printed { exit_code: rendered.exit_code, stdout: rendered.stdout, stderr: rendered.stderr }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every harness `--harness` names has shell tools, and reads a call of each, before it
    /// runs, as a shell call (T-31): a harness added to the list without them fails here.
    #[test]
    fn every_harness_reads_each_of_its_shell_tools_as_a_shell_call() {
        use agentwarden_domain::sessions::{HookEvent, ToolKind};
        for name in HookHarness::NAMES {
            let harness = HookHarness::parse(name).unwrap();
            assert!(!harness.shell_tools().is_empty(), "{name} names no shell tool");
            let before = match harness {
                HookHarness::ClaudeCode | HookHarness::Codex => "PreToolUse",
                HookHarness::Gemini => "BeforeTool",
            };
            for tool in harness.shell_tools() {
                let wire = serde_json::json!({
                    "session_id": "s", "hook_event_name": before, "cwd": "/p", "tool_name": tool,
                    "tool_use_id": "t", "tool_input": {"command": "echo x > .git/hooks/pre-commit"},
                });
                let event = harness.decode(&wire.to_string()).unwrap().event;
                let HookEvent::Tool(call) = event else { panic!("{name} `{tool}`: {event:?}") };
                assert_eq!(
                    call.kind,
                    ToolKind::Shell { command: "echo x > .git/hooks/pre-commit".into(), dir: None },
                    "{name} `{tool}`"
                );
            }
        }
    }

    #[test]
    fn each_harness_prints_its_own_protocol_and_never_a_silent_failure() {
        for name in HookHarness::NAMES {
            let harness = HookHarness::parse(name).unwrap();
            assert_eq!(harness.name(), name);
            let failed = harness.print(&HookAnswer::failed("store_corrupt: x"), "warden");
            assert_eq!(failed.exit_code, 2, "{name}");
            assert!(failed.stderr.is_some_and(|s| s.contains("store_corrupt: x")), "{name}");
            assert_eq!(harness.print(&HookAnswer::Proceed, "warden").exit_code, 0);
        }
        let deny = HookAnswer::deny("no");
        assert_eq!(HookHarness::ClaudeCode.print(&deny, "warden").exit_code, 0, "a JSON deny");
        let codex = HookHarness::Codex.print(&deny, "warden");
        assert_eq!((codex.exit_code, codex.stderr.as_deref()), (2, Some("Agent Warden denied this: no")));
        assert_eq!(HookHarness::ClaudeCode.requested(), None, "C-7: the default is not named");
        assert_eq!(HookHarness::Codex.requested().as_deref(), Some("codex"));
        assert_eq!(HookHarness::Gemini.requested().as_deref(), Some("gemini"));
        let gemini = HookHarness::Gemini.print(&deny, "warden");
        assert_eq!((gemini.exit_code, gemini.stderr.as_deref()), (2, Some("Agent Warden denied this: no")));
        // On a stop's line a failure is the halt, in every harness; the other answers not (H-57).
        for name in HookHarness::NAMES {
            let harness = HookHarness::parse(name).unwrap();
            let halted = harness.print_on(&HookAnswer::failed("config_invalid: x"), "warden", true);
            assert_eq!((halted.exit_code, &halted.stderr), (0, &None), "{name}");
            let reason = agentwarden_protocol::halt::read_back(0, halted.stdout.as_deref(), None);
            assert_eq!(reason.map(|r| r.as_str().to_owned()), Ok("config_invalid: x".to_owned()), "{name}");
            for answer in [HookAnswer::Proceed, HookAnswer::block("okrs changed"), deny.clone()] {
                assert_eq!(
                    harness.print_on(&answer, "warden", true),
                    harness.print(&answer, "warden"),
                    "{name}"
                );
            }
        }
        for bad in ["", "Codex", "claude", "Gemini", "gemini-cli"] {
            assert!(HookHarness::parse(bad).is_err(), "{bad}");
        }
    }
}
