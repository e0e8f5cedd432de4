//! The registry of what `warden doctor` knows of each harness (N-15): each harness's integration
//! crate says it once as an [`Integration`] (feature `doctor`), and this table, by the name
//! `--harness` gives, is the one place in the command line that names a harness's crate; every
//! other command-line source holds a harness as `&dyn Integration` and runs one path for all of
//! them. Here too, `warden hook`'s default deadline, the same in every harness's line.

use agentwarden_doctor::Integration;

/// The default: `--harness` absent names Claude Code, as every line installed before there were two.
const DEFAULT: &dyn Integration = &agentwarden_claude_code::setup::integration::Doctor;

/// Every harness `warden doctor --harness` checks, the default first.
const ALL: [&dyn Integration; 3] = [
    DEFAULT,
    &agentwarden_codex::setup::integration::Doctor,
    &agentwarden_gemini::setup::integration::Doctor,
];

/// The harness `--harness NAME` names, the default when it is none of them (clap admits only
/// the names in [`ALL`]).
pub(crate) fn by_name(name: &str) -> &'static dyn Integration {
    ALL.into_iter().find(|harness| harness.command() == name).unwrap_or(DEFAULT)
}

/// `warden hook`'s deadline when no `--deadline-ms` is given: what `init` installs with its
/// default timeout (H-10).
pub(crate) const DEFAULT_DEADLINE_MS: u64 = agentwarden_claude_code::setup::line::DEFAULT_DEADLINE_MS;
// `warden-hook` reads the same default (V-34), and so does the Codex line (C-10).
const _: () = assert!(DEFAULT_DEADLINE_MS == agentwarden_hook_client::DEFAULT_DEADLINE_MS);
const _: () = assert!(
    agentwarden_codex::setup::line::DEFAULT_TIMEOUT_S * 1_000
        - agentwarden_codex::setup::line::START_MS
        - agentwarden_codex::setup::line::ANSWER_MS
        == DEFAULT_DEADLINE_MS
);

#[cfg(test)]
mod tests {
    use super::*;

    /// Every name `--harness` takes finds its own integration, and the hook registry names the
    /// same harnesses.
    #[test]
    fn every_name_finds_its_integration() {
        let names: Vec<&str> = ALL.iter().map(|h| h.command()).collect();
        assert_eq!(names, agentwarden_hook_client::HookHarness::NAMES);
        for name in names {
            assert_eq!(by_name(name).command(), name);
            let hook = agentwarden_hook_client::HookHarness::parse(name).unwrap().profile();
            assert_eq!(by_name(name).profile().terms.section, hook.terms.section, "{name}");
        }
    }
}
