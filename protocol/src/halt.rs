//! A failure at a stop, said as the harness's halt (H-57): the session ends, its reason shown to
//! the human, instead of a block the harness answers by prompting the model again.
//!
//! Claude Code, Codex CLI and Gemini CLI each answer a blocked stop (`Stop`, `SubagentStop`,
//! `AfterAgent`) by prompting the model again, at once and without a limit of their own. A
//! failure Warden cannot recover from within the session — its binary missing or crashing, a
//! configuration it cannot read, a store it cannot use, a server that does not answer, its
//! deadline passed — fails the same way at every retry, so a block there loops the session
//! forever (Codex 0.169.0 sent 1 686 model requests in 120 s). All three read the same halt on
//! such a stop: exit 0 with one line of JSON on stdout, `{"continue":false,"stopReason":…}`,
//! which ends the turn (Codex: the turn breaks; Gemini: the agent loop stops) and shows the
//! reason to the human. So a stop event's installed line carries [`FLAG`], with which the hook
//! renders a failure ([`HookAnswer::Failed`](agentwarden_domain::sessions::HookAnswer)) as
//! [`render`]; a block Warden decided stays a block; and the line's shell tail (in `hook_line`)
//! says the same halt when the binary cannot run at all.

use agentwarden_domain::sessions::{HookReason, Rendered};
use serde_json::Value;

/// The hook's option that renders a failure as the halt (H-57): on the lines of the events
/// whose block the harness retries, and on no other.
pub const FLAG: &str = "--halt-on-failure";

/// The words every halt's `stopReason` starts with.
pub const STOPPED: &str = "Agent Warden stopped the session: ";

/// What the halt adds after the reason: what the human does next.
pub const NEXT: &str = " (fix it, then check with `warden doctor`)";

/// The one line of JSON (without its newline) that halts the session with `reason`.
pub fn render(reason: &HookReason) -> String {
    let text = Value::String(format!("{STOPPED}{reason}{NEXT}")).to_string();
    format!(r#"{{"continue":false,"stopReason":{text}}}"#)
}

/// The halt as the hook process says it: exit 0, [`render`]'s line on stdout, nothing on
/// stderr; every harness Warden answers reads it the same way.
pub fn rendered(reason: &HookReason) -> Rendered {
    Rendered { exit_code: 0, stdout: Some(render(reason)), stderr: None }
}

/// Why a rendering is not a halt.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HaltError {
    /// An exit code other than 0.
    #[error("exit code {0}, not 0")]
    ExitCode(u8),
    /// Something on stderr.
    #[error("a reason on stderr beside the halt")]
    Stderr,
    /// A stdout that is not exactly a halt as [`render`] writes it.
    #[error("its stdout is not exactly a halt")]
    Stdout,
}

/// The reason of the halt whose rendering is exactly (`exit_code`, `stdout`, `stderr`), or why
/// there is none: exit 0, nothing on stderr, and on stdout the bytes [`render`] gives for a
/// reason that is not blank.
pub fn read_back(exit_code: u8, stdout: Option<&str>, stderr: Option<&str>) -> Result<HookReason, HaltError> {
    if exit_code != 0 {
        return Err(HaltError::ExitCode(exit_code));
    }
    if stderr.is_some() {
        return Err(HaltError::Stderr);
    }
    let text = stdout.ok_or(HaltError::Stdout)?;
    let value: Value = serde_json::from_str(text).map_err(|_| HaltError::Stdout)?;
    let said = value.get("stopReason").and_then(Value::as_str).ok_or(HaltError::Stdout)?;
    let reason = said
        .strip_prefix(STOPPED)
        .and_then(|rest| rest.strip_suffix(NEXT))
        .and_then(HookReason::parse)
        .ok_or(HaltError::Stdout)?;
    if render(&reason) != text {
        return Err(HaltError::Stdout);
    }
    Ok(reason)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn a_halt_is_the_json_every_harness_reads_as_the_end_of_the_session() {
        let rendered = render(&HookReason::new("config_invalid: `/p/agentwarden.toml`: \"x\""));
        assert_eq!(
            rendered,
            r#"{"continue":false,"stopReason":"Agent Warden stopped the session: config_invalid: `/p/agentwarden.toml`: \"x\" (fix it, then check with `warden doctor`)"}"#
        );
        let value: Value = serde_json::from_str(&rendered).unwrap();
        assert_eq!(value["continue"], Value::Bool(false), "continue: false is what halts");
        assert_eq!(value.as_object().map(serde_json::Map::len), Some(2), "Codex refuses any other key");
    }

    #[test]
    fn only_the_exact_rendering_of_a_halt_is_read_back() {
        let good = render(&HookReason::new("store_unavailable: x"));
        assert_eq!(read_back(0, Some(&good), None), Ok(HookReason::new("store_unavailable: x")));
        // Exit code, stdout, stderr, why it is refused.
        let spaced = good.replace(':', ": ");
        let refused: [(u8, Option<&str>, Option<&str>, &str); 7] = [
            (2, Some(&good), None, "exit 2 blocks the stop"),
            (0, Some(&good), Some("r"), "stderr beside it"),
            (0, None, None, "nothing: the stop just ends"),
            (0, Some(r#"{"continue":true,"stopReason":"r"}"#), None, "continue: true"),
            (0, Some(&spaced), None, "other bytes"),
            (
                0,
                Some(
                    r#"{"continue":false,"stopReason":"Agent Warden stopped the session:  (fix it, then check with `warden doctor`)"}"#,
                ),
                None,
                "a blank reason",
            ),
            (0, Some(r#"{"decision":"block","reason":"r"}"#), None, "a block"),
        ];
        for (exit, stdout, stderr, why) in refused {
            assert!(read_back(exit, stdout, stderr).is_err(), "{why}");
        }
    }

    proptest! {
        /// Render, then read back: the same reason, whatever it holds.
        #[test]
        fn a_rendered_halt_reads_back_as_itself(reason in "(?s).{0,64}") {
            let reason = HookReason::new(reason);
            prop_assert_eq!(read_back(0, Some(&render(&reason)), None), Ok(reason));
        }
    }
}
