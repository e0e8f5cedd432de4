//! The CLI reference is generated from the clap definitions, never written by hand: `warden
//! completions SHELL` prints a shell's completion script, and the hidden `warden manpages DIR`
//! writes `warden.1` and one page per subcommand (`warden-audit-log.1`, …). `cargo xtask
//! reference` runs both and checks `docs/completions/` and `docs/man/` against them (N-9). Only
//! these two commands reach this code, so no other command pays for it.

use std::io::Write;
use std::path::PathBuf;

use crate::{EXIT_OK, EXIT_STORE, Failure};

/// `warden completions SHELL`.
#[derive(Debug, clap::Args)]
pub(crate) struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    shell: Shell,
}

/// The shells a completion script is generated for.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum Shell {
    Bash,
    Zsh,
    Fish,
}

impl Shell {
    fn generator(self) -> clap_complete::Shell {
        match self {
            Shell::Bash => clap_complete::Shell::Bash,
            Shell::Zsh => clap_complete::Shell::Zsh,
            Shell::Fish => clap_complete::Shell::Fish,
        }
    }
}

/// `warden manpages DIR` (hidden: `cargo xtask reference` runs it).
#[derive(Debug, clap::Args)]
pub(crate) struct ManpagesArgs {
    /// The directory to write the pages into (created if missing; pages there are overwritten).
    #[arg(value_name = "DIR")]
    dir: PathBuf,
}

/// Prints the completion script of `args.shell` for the `warden` command as `warden --help`
/// shows it.
pub(crate) fn completions(args: &CompletionsArgs, out: &mut dyn Write) -> Result<u8, Failure> {
    let mut command = without_hidden_commands(super::help::command());
    clap_complete::generate(args.shell.generator(), &mut command, "warden", out);
    Ok(EXIT_OK)
}

/// `warden` as its completions should offer it: clap_complete offers every subcommand, hidden
/// ones too, and clap cannot remove one, so the root is rebuilt with the visible ones (its
/// arguments, the global options among them, and its about and version are what completions
/// read of it).
fn without_hidden_commands(command: clap::Command) -> clap::Command {
    let visible: Vec<clap::Command> =
        command.get_subcommands().filter(|s| !s.is_hide_set()).cloned().collect();
    let rebuilt = clap::Command::new("warden")
        .version(env!("CARGO_PKG_VERSION"))
        .args(command.get_arguments().cloned())
        .subcommands(visible);
    match command.get_about() {
        Some(about) => rebuilt.about(about.clone()),
        None => rebuilt,
    }
}

/// Writes `warden.1` and one page per visible subcommand into `args.dir`, and prints each file's
/// name, one per line. The pages are rendered in memory and each written atomically by
/// descriptor (U-4): a link or FIFO planted at a page's name is replaced, never followed, and
/// no name is listed from the directory (the names are the pages written).
pub(crate) fn manpages(args: &ManpagesArgs, out: &mut dyn Write) -> Result<u8, Failure> {
    let dir = &args.dir;
    let cannot = |why: String| Failure {
        exit: EXIT_STORE,
        code: None,
        reason: format!("cannot write the manual pages into {}: {why}", dir.display()),
    };
    // As `clap_mangen::generate_to` builds them: every visible subcommand, depth first.
    fn pages(command: clap::Command, into: &mut Vec<(String, Vec<u8>)>) -> std::io::Result<()> {
        for sub in command.get_subcommands().filter(|s| !s.is_hide_set()).cloned() {
            pages(sub, into)?;
        }
        let man = clap_mangen::Man::new(command);
        let mut page = Vec::new();
        man.render(&mut page)?;
        into.push((man.get_filename(), page));
        Ok(())
    }
    let mut command = super::help::command().disable_help_subcommand(true);
    command.build();
    let mut rendered = Vec::new();
    pages(command, &mut rendered).map_err(|e| cannot(e.to_string()))?;
    rendered.sort();
    for (name, page) in &rendered {
        agentwarden::files::write_atomic(None, &dir.join(name), page, 0o644)
            .map_err(|e| cannot(e.to_string()))?;
    }
    for (name, _) in rendered {
        writeln!(out, "{name}")?;
    }
    Ok(EXIT_OK)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (shell, what its script must hold, why)
    const SCRIPTS: &[(Shell, &str, &str)] = &[
        (Shell::Bash, "complete -F _warden", "bash registers its completion function"),
        (Shell::Zsh, "#compdef warden", "zsh's completion file header"),
        (Shell::Fish, "complete -c warden", "fish completes the warden command"),
    ];

    #[test]
    fn each_shell_gets_a_script_that_knows_the_subcommands_but_not_the_hidden_one() {
        for (shell, marker, why) in SCRIPTS {
            let mut out = Vec::new();
            let code = completions(&CompletionsArgs { shell: *shell }, &mut out).unwrap();
            let script = String::from_utf8(out).unwrap();
            assert_eq!(code, EXIT_OK);
            assert!(script.contains(marker), "{why}: {shell:?}");
            for sub in ["gate", "authorize", "audit", "explain", "completions"] {
                assert!(script.contains(sub), "{shell:?} completes `{sub}`");
            }
            assert!(!script.contains("manpages"), "{shell:?}: the hidden command is not offered");
        }
    }

    #[test]
    fn a_page_is_written_for_warden_and_for_every_visible_subcommand() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("man");
        let mut out = Vec::new();
        assert_eq!(manpages(&ManpagesArgs { dir: target.clone() }, &mut out).unwrap(), EXIT_OK);
        let listed = String::from_utf8(out).unwrap();
        for page in
            ["warden.1", "warden-gate.1", "warden-audit.1", "warden-audit-log.1", "warden-completions.1"]
        {
            assert!(listed.lines().any(|l| l == page), "{page} in {listed}");
            assert!(target.join(page).is_file(), "{page} written");
        }
        assert!(!listed.contains("manpages"), "the hidden command has no page: {listed}");
        let root = std::fs::read_to_string(target.join("warden.1")).unwrap();
        assert!(root.contains("Global options"), "the global options are on warden(1): {root}");
    }

    #[test]
    fn a_directory_that_cannot_be_made_is_exit_3_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a-file");
        std::fs::write(&file, "").unwrap();
        let failed = manpages(&ManpagesArgs { dir: file.join("man") }, &mut Vec::new()).unwrap_err();
        assert_eq!(failed.exit, EXIT_STORE);
        assert!(failed.reason.contains("a-file"), "{}", failed.reason);
    }
}
