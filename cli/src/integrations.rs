//! What `warden doctor` and `warden init` ask of the one registry of harnesses (N-15, X-101):
//! each harness's integration, as the hook client's registry holds it (feature `doctor`); every
//! command-line source holds a harness as `&dyn Integration` and runs one path for all of them
//! `warden init`'s subcommands are theirs, in the registry's order (N-19).

use agentwarden_doctor::Integration;
use agentwarden_hook_client::HookHarness;

/// The harness `--harness NAME` names, the default when it is none of them (clap admits only
/// the registry's names).
pub(crate) fn by_name(name: &str) -> &'static dyn Integration {
    HookHarness::parse(name).unwrap_or_default().integration()
}

/// The harness known by `name` (`warden init NAME`), if any.
pub(crate) fn named(name: &str) -> Option<&'static dyn Integration> {
    HookHarness::parse(name).ok().map(HookHarness::integration)
}

/// Every harness, in the registry's order (the default first): `warden init`'s subcommands,
/// what `warden doctor` checks.
pub(crate) fn all() -> [&'static dyn Integration; HookHarness::ALL.len()] {
    HookHarness::ALL.map(HookHarness::integration)
}

/// The harnesses `warden doctor` checks when none is named: each whose Warden hooks are
/// installed for `project` (each reads its own places, as `doctor` checks them), and each the
/// project shows is used although its hooks are not (removing a harness's hooks must not take
/// it out of the check: it is checked, and fails, N-18), in the registry's order.
pub(crate) fn in_use(
    project: &std::path::Path,
    config_path: &std::path::Path,
    managed: &[std::path::PathBuf],
    home: &Option<std::path::PathBuf>,
) -> Vec<&'static dyn Integration> {
    let shown: Vec<&str> = found(project, None).iter().map(|(harness, _)| harness.command()).collect();
    let hooked: Vec<&str> =
        installed(project, config_path, managed, home).iter().map(|harness| harness.command()).collect();
    all()
        .into_iter()
        .filter(|harness| shown.contains(&harness.command()) || hooked.contains(&harness.command()))
        .collect()
}

/// The harnesses whose Warden hooks are installed for `project` (each reads its own places, as
/// `doctor` checks them), in the registry's order (N-18).
fn installed(
    project: &std::path::Path,
    config_path: &std::path::Path,
    managed: &[std::path::PathBuf],
    home: &Option<std::path::PathBuf>,
) -> Vec<&'static dyn Integration> {
    all()
        .into_iter()
        .filter(|harness| {
            // Only whether it finds lines counts here: its findings are made again when it is checked.
            let mut scratch = Vec::new();
            !harness.installed(project, config_path, managed, home.clone(), &mut scratch).is_empty()
        })
        .collect()
}

/// Each harness whose signs are found, in the project or in `home`, with what was found
/// (`` `.claude` in the project ``), in the registry's order (N-18). A sign is a path that exists
/// as anything (its link not followed): the answer only chooses what `init` offers to set up.
pub(crate) fn found(
    project: &std::path::Path,
    home: Option<&std::path::Path>,
) -> Vec<(&'static dyn Integration, Vec<String>)> {
    all()
        .into_iter()
        .filter_map(|harness| {
            let signs = harness.signs();
            let exists = |path: std::path::PathBuf| path.symlink_metadata().is_ok();
            let mut seen: Vec<String> = signs
                .project
                .iter()
                .filter(|sign| exists(project.join(sign)))
                .map(|sign| format!("`{sign}` in the project"))
                .collect();
            if let Some(home) = home {
                seen.extend(
                    signs
                        .home
                        .iter()
                        .filter(|sign| exists(home.join(sign)))
                        .map(|sign| format!("`~/{sign}`")),
                );
            }
            (!seen.is_empty()).then_some((harness, seen))
        })
        .collect()
}

/// Every harness's signs, as a refusal names them.
pub(crate) fn signs_said() -> String {
    all()
        .iter()
        .map(|harness| {
            let signs = harness.signs();
            let each: Vec<String> = signs
                .project
                .iter()
                .map(|sign| format!("`{sign}`"))
                .chain(signs.home.iter().map(|sign| format!("`~/{sign}`")))
                .collect();
            format!("{}: {}", harness.name(), each.join(", "))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every name `--harness` takes finds its own integration, and the hook registry names the
    /// same harnesses.
    #[test]
    fn every_name_finds_its_integration() {
        let names: Vec<&str> = all().iter().map(|h| h.command()).collect();
        assert_eq!(names, agentwarden_hook_client::HookHarness::names());
        for name in names {
            assert_eq!(by_name(name).command(), name);
            let hook = agentwarden_hook_client::HookHarness::parse(name).unwrap().profile();
            assert_eq!(by_name(name).profile().terms.section, hook.terms.section, "{name}");
        }
    }

    /// Every harness in the registry has its `warden init NAME` subcommand, named as the registry
    /// names it, which takes `--project DIR` and hands it on: a harness added to the registry
    /// cannot be left without an `init` (N-14).
    #[test]
    fn every_harness_has_an_init_that_takes_a_project() {
        for harness in all() {
            let name = harness.command();
            let command = harness.init_command();
            assert_eq!(command.get_name(), name);
            let matches = command.try_get_matches_from([name, "--project", "/p"]).unwrap();
            let options = harness.init_options(&matches).unwrap();
            assert_eq!(options.project(), Some(std::path::Path::new("/p")), "{name}");
            assert_eq!(options.warden(), None, "{name}");
            assert_eq!(options.timeout(), 30, "{name}: the default timeout");
        }
    }

    /// Each integration reads its own harness's answers as that harness does (H-15, C-11, M-1):
    /// a deny as its hook prints it is the canary's pass, a proceed lets the spawn run, a failure
    /// blocks without deciding; and the canary's event is read by the harness's own parser as a
    /// spawn of the subagent asked for.
    #[test]
    fn each_integration_reads_its_own_harness_as_the_harness_does() {
        use agentwarden::sessions::{HookAnswer, HookEvent};
        use agentwarden_doctor::CanaryAnswer;
        for name in agentwarden_hook_client::HookHarness::names() {
            let hook = agentwarden_hook_client::HookHarness::parse(name).unwrap();
            let doctor = by_name(name);
            let read = |answer: &HookAnswer| {
                let printed = hook.print(answer, "warden");
                doctor.read_canary(
                    Some(i32::from(printed.exit_code)),
                    printed.stdout.as_deref().unwrap_or(""),
                    printed.stderr.as_deref().unwrap_or(""),
                )
            };
            let denied = read(&HookAnswer::deny("the canary is denied"));
            assert!(
                matches!(&denied, CanaryAnswer::Denied(reason) if reason.contains("the canary is denied")),
                "{name}: {denied:?}"
            );
            assert_eq!(read(&HookAnswer::Proceed), CanaryAnswer::LetThrough, "{name}");
            let failed = read(&HookAnswer::failed(agentwarden::Code::StoreCorrupt, "x"));
            assert!(
                !matches!(failed, CanaryAnswer::Denied(_) | CanaryAnswer::LetThrough),
                "{name}: a failure neither passes nor lets through: {failed:?}"
            );
            let event = doctor.canary_event("warden-doctor-canary-1", std::path::Path::new("/p"), "planner");
            let input = hook.decode(&event).unwrap();
            assert!(
                matches!(&input.event, HookEvent::Spawn(spawn) if spawn.subagent_type.as_str() == "planner"),
                "{name}: {:?}",
                input.event
            );
        }
    }
}
