//! The registry of harnesses (issues 36, 49): each harness Warden answers, by the name its hook's
//! command line gives it (`--harness codex`; absent, Claude Code, as every line installed before
//! there were two), held as the one object its integration crate implements: the [`Harness`]
//! its hook's events are read and its answers printed as, and, with this crate's feature
//! `doctor`, the same object as the [`Integration`](agentwarden_doctor::Integration) `warden
//! init` installs and `warden doctor` checks. This table is the one place outside the
//! integrations that names a harness: direct mode, the resident service's registration, this
//! client, `init` and `doctor` all choose one here, by name. Without `doctor` the
//! hook client links no installer (`tests/dependencies.rs`).

use agentwarden_claude_code::wire::ClaudeCode;
use agentwarden_codex::wire::Codex;
use agentwarden_copilot::wire::Copilot;
use agentwarden_domain::sessions::{Harness, HarnessProfile, HookAnswer, HookInput, InputError, Rendered};
use agentwarden_gemini::wire::Gemini;

/// `--harness NAME` names no harness whose hook Warden answers.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`--harness {name}` is not one of {}", HookHarness::names().join(", "))]
pub struct UnknownHarness {
    /// The name given.
    pub name: String,
}

/// What the registry holds of a harness: its integration's one object, as the hook uses it.
#[cfg(not(feature = "doctor"))]
type Entry = &'static dyn Harness;

/// What the registry holds of a harness: its integration's one object, as the hook, `warden
/// init` and `warden doctor` use it.
#[cfg(feature = "doctor")]
type Entry = &'static dyn agentwarden_doctor::Integration;

/// A harness Warden answers, as the registry holds it.
#[derive(Clone, Copy)]
pub struct HookHarness(Entry);

/// The default: every line installed before there were two harnesses names none.
const DEFAULT: HookHarness = HookHarness(&ClaudeCode);
const CODEX: HookHarness = HookHarness(&Codex);
const GEMINI: HookHarness = HookHarness(&Gemini);
const COPILOT: HookHarness = HookHarness(&Copilot);

// `warden hook`'s and `warden-hook`'s deadline when the line gives none (V-34) is what `warden
// init` installs with each harness's default timeout (H-10): Claude Code's line, and Codex's
// timeout less its start and answer margins (C-10).
#[cfg(feature = "doctor")]
const _: () =
    assert!(agentwarden_claude_code::setup::line::DEFAULT_DEADLINE_MS == crate::DEFAULT_DEADLINE_MS);
#[cfg(feature = "doctor")]
const _: () = assert!(
    agentwarden_codex::setup::line::DEFAULT_TIMEOUT_S * 1_000
        - agentwarden_codex::setup::line::START_MS
        - agentwarden_codex::setup::line::ANSWER_MS
        == crate::DEFAULT_DEADLINE_MS
);

impl std::fmt::Debug for HookHarness {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("HookHarness").field(&self.command()).finish()
    }
}

impl PartialEq for HookHarness {
    fn eq(&self, other: &HookHarness) -> bool {
        self.command() == other.command()
    }
}

impl Eq for HookHarness {}

impl Default for HookHarness {
    fn default() -> HookHarness {
        DEFAULT
    }
}

impl HookHarness {
    /// Every harness whose hook Warden answers, the default first.
    pub const ALL: [HookHarness; 4] = [DEFAULT, CODEX, GEMINI, COPILOT];

    /// The names `--harness` takes, in the registry's order.
    pub fn names() -> [&'static str; 4] {
        HookHarness::ALL.map(HookHarness::command)
    }

    /// `--harness NAME`, or why it is refused.
    pub fn parse(name: &str) -> Result<HookHarness, UnknownHarness> {
        HookHarness::ALL
            .into_iter()
            .find(|harness| harness.command() == name)
            .ok_or_else(|| UnknownHarness { name: name.to_owned() })
    }

    /// Its integration, as the kernel and the resident service hold it.
    pub fn harness(self) -> &'static dyn Harness {
        self.0
    }

    /// Its integration, as `warden init` installs it and `warden doctor` checks it: the same
    /// object as [`HookHarness::harness`].
    #[cfg(feature = "doctor")]
    pub fn integration(self) -> &'static dyn agentwarden_doctor::Integration {
        self.0
    }

    /// What its integration says of it to the kernel: its words and its configuration section,
    /// with the names that section may list (U-17).
    pub fn profile(self) -> HarnessProfile {
        self.0.profile()
    }

    /// Every harness's profile: the sections a configuration may have besides Warden's own, any
    /// other refused (U-19).
    pub fn profiles() -> [HarnessProfile; 4] {
        HookHarness::ALL.map(HookHarness::profile)
    }

    /// Its name on the command line ([`Harness::command`]).
    pub fn command(self) -> &'static str {
        self.0.command()
    }

    /// The name a request to the server gives (C-7): none for the default, so that the request
    /// is the bytes an older server reads; any other harness by its name.
    pub fn requested(self) -> Option<String> {
        (self != DEFAULT).then(|| self.command().to_owned())
    }

    /// Every tool of this harness that runs a shell command line: [`HookHarness::decode`] reads
    /// each as a shell call, whose writes are checked for every agent (T-31).
    pub fn shell_tools(self) -> &'static [&'static str] {
        self.0.shell_tools()
    }

    /// The event on stdin, read as this harness writes it.
    pub fn decode(self, text: &str) -> Result<HookInput, InputError> {
        self.0.decode(text)
    }

    /// `answer` as this harness reads it; `program` names the hook where the harness's protocol
    /// names it beside a reason ([`Harness::print`]).
    pub fn print(self, answer: &HookAnswer, program: &str) -> Rendered {
        self.0.print(answer, program)
    }

    /// `answer` as this harness reads it on a line that says whether a failure halts (H-57): on
    /// a stop's line (`halt_on_failure`) a failure is the halt, every other answer as
    /// [`HookHarness::print`] says it, a failure's reason without the credentials it may quote
    /// (a store's address, X-77). Direct mode and `warden-hook` both print through here, so
    /// that neither says what the other hides.
    pub fn print_on(self, answer: &HookAnswer, program: &str, halt_on_failure: bool) -> Rendered {
        match (halt_on_failure, answer) {
            (true, HookAnswer::Failed { .. }) => {
                let text = answer.failure().unwrap_or_default();
                agentwarden_protocol::halt::rendered(&agentwarden_domain::sessions::HookReason::new(text))
            }
            (false, HookAnswer::Failed { code, reason }) => {
                let shown = agentwarden_domain::redact::credentials(reason.as_str());
                self.print(&HookAnswer::failed(code.clone(), shown), program)
            }
            _ => self.print(answer, program),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentwarden_domain::code::Code;

    /// A failure's reason is printed without the credentials it quotes, by every harness, as
    /// direct mode and `warden-hook` both print it.
    #[test]
    fn a_failure_is_printed_without_its_credentials_by_every_harness() {
        let failed =
            HookAnswer::failed(Code::StoreUnavailable, "cannot reach postgres://alice:s3cret@db/warden");
        for name in HookHarness::names() {
            let printed = HookHarness::parse(name).unwrap().print_on(&failed, "warden-hook", false);
            let text = format!("{:?} {:?}", printed.stdout, printed.stderr);
            assert!(!text.contains("s3cret"), "{name}: {text}");
            assert!(text.contains("postgres://***@db/warden"), "{name} still says where: {text}");
        }
    }

    /// Every harness `--harness` names has shell tools, and reads a call of each, before it
    /// runs, as a shell call (T-31): a harness added to the list without them fails here.
    #[test]
    fn every_harness_reads_each_of_its_shell_tools_as_a_shell_call() {
        use agentwarden_domain::sessions::{HookEvent, ToolKind};
        for name in HookHarness::names() {
            let harness = HookHarness::parse(name).unwrap();
            assert!(!harness.shell_tools().is_empty(), "{name} names no shell tool");
            let before = match name {
                "gemini" => "BeforeTool",
                _ => "PreToolUse",
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
        for name in HookHarness::names() {
            let harness = HookHarness::parse(name).unwrap();
            assert_eq!(harness.command(), name);
            let failed = harness.print(&HookAnswer::failed(Code::StoreCorrupt, "x"), "warden");
            assert_eq!(failed.exit_code, 2, "{name}");
            assert!(failed.stderr.is_some_and(|s| s.contains("store_corrupt: x")), "{name}");
            assert_eq!(harness.print(&HookAnswer::Proceed, "warden").exit_code, 0);
        }
        let deny = HookAnswer::deny("no");
        assert_eq!(DEFAULT.print(&deny, "warden").exit_code, 0, "a JSON deny");
        let codex = CODEX.print(&deny, "warden");
        assert_eq!((codex.exit_code, codex.stderr.as_deref()), (2, Some("Agent Warden denied this: no")));
        assert_eq!(DEFAULT.requested(), None, "C-7: the default is not named");
        assert_eq!(CODEX.requested().as_deref(), Some("codex"));
        assert_eq!(GEMINI.requested().as_deref(), Some("gemini"));
        let gemini = GEMINI.print(&deny, "warden");
        assert_eq!((gemini.exit_code, gemini.stderr.as_deref()), (2, Some("Agent Warden denied this: no")));
        // On a stop's line a failure is the halt, in every harness; the other answers not (H-57).
        for name in HookHarness::names() {
            let harness = HookHarness::parse(name).unwrap();
            let halted = harness.print_on(&HookAnswer::failed(Code::ConfigInvalid, "x"), "warden", true);
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
