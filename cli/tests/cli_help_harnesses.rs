//! The help speaks of every harness (N-10): a help text of the command line — a command's
//! about, long about and after-help, an option's help — that names one harness Warden governs
//! names them all, unless what it describes belongs to that harness alone: a command under
//! `init HARNESS`, or an option that applies with one `--harness` only (`HARNESS_OWN` says which
//! and why). A text that says "the Claude Code hook" of a command every harness calls would
//! tell a Codex or Gemini CLI user it is not theirs.

use clap::Command;

/// How each harness is named in prose, and how its command-line name reads.
const HARNESSES: [(&str, &str); 3] =
    [("Claude Code", "claude-code"), ("Codex", "codex"), ("Gemini", "gemini")];

/// Options that belong to one harness, by the command's path and the option's id, and why.
const HARNESS_OWN: [(&str, &str, &str); 2] = [
    ("doctor", "codex_home", "read with `--harness codex` only: Codex's home, where a project is trusted"),
    ("hook", "harness", "names the harnesses' command-line values, which the possible values list"),
];

/// The harnesses `text` names, in prose or as a command-line name.
fn named(text: &str) -> Vec<&'static str> {
    let lower = text.to_lowercase();
    HARNESSES
        .iter()
        .filter(|(prose, cli)| lower.contains(&prose.to_lowercase()) || lower.contains(cli))
        .map(|(prose, _)| *prose)
        .collect()
}

/// `Err` with the harnesses `text` leaves out when it names some and not all.
fn speaks_of_every_harness(text: &str) -> Result<(), Vec<&'static str>> {
    let named = named(text);
    let missing: Vec<&str> =
        HARNESSES.iter().map(|(prose, _)| *prose).filter(|prose| !named.contains(prose)).collect();
    if named.is_empty() || missing.is_empty() { Ok(()) } else { Err(missing) }
}

/// Every help text of `command` and its subcommands that names some harnesses and not all,
/// with its place.
fn offending(command: &Command, path: &str, found: &mut Vec<String>) {
    // A command of one harness (`init claude-code`) speaks of that harness.
    let own = HARNESSES.iter().any(|(_, cli)| path.split(' ').any(|word| word == *cli));
    if !own {
        let texts = [command.get_about(), command.get_long_about(), command.get_after_help()];
        for text in texts.into_iter().flatten() {
            if let Err(missing) = speaks_of_every_harness(&text.to_string()) {
                found.push(format!("`warden {path}`: names no {missing:?}: {text}"));
            }
        }
        for arg in command.get_arguments() {
            let id = arg.get_id().as_str();
            if HARNESS_OWN.iter().any(|(at, own, _)| *at == path && *own == id) {
                continue;
            }
            for text in [arg.get_help(), arg.get_long_help()].into_iter().flatten() {
                if let Err(missing) = speaks_of_every_harness(&text.to_string()) {
                    found.push(format!("`warden {path} --{id}`: names no {missing:?}: {text}"));
                }
            }
        }
    }
    for sub in command.get_subcommands() {
        let path =
            if path.is_empty() { sub.get_name().to_owned() } else { format!("{path} {}", sub.get_name()) };
        offending(sub, &path, found);
    }
}

#[test]
fn no_help_text_names_one_harness_where_it_applies_to_all() {
    let mut found = Vec::new();
    offending(&agentwarden_cli::command(), "", &mut found);
    assert!(found.is_empty(), "help texts that name one harness of several (N-10):\n{}", found.join("\n"));
}

/// The check itself.
#[test]
fn a_text_naming_some_harnesses_is_told_from_one_naming_all_or_none() {
    let rows: [(&str, bool, &str); 5] = [
        ("The Claude Code hook: reads one event", false, "one harness"),
        ("Refused inside a Claude Code or Codex session", false, "two of three"),
        ("Refused inside a harness's session (Claude Code, Codex CLI, Gemini CLI)", true, "all three"),
        ("`--harness claude-code`, `codex` or `gemini`", true, "their command-line names"),
        ("Seal the context", true, "none"),
    ];
    for (text, ok, why) in rows {
        assert_eq!(speaks_of_every_harness(text).is_ok(), ok, "{why}: {text}");
    }
}
