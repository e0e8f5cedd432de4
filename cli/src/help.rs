//! The help: the global options (`--store`, `--server`, `--server-uid`, `--fsync`,
//! `--lock-timeout-ms`) are listed once, in
//! a section of `warden --help`, and hidden from every subcommand's help (they are still accepted
//! there); each subcommand's help ends with one example (N-8). Clap copies a global option,
//! hidden or not, into every subcommand when the command is built, and an argument cannot be
//! changed safely after that; so the options are declared hidden, and the root's section is
//! written from their own help texts.

use clap::{Command, CommandFactory};

/// The global options' ids.
const GLOBAL: [&str; 5] = ["store", "server", "server_uid", "fsync", "lock_timeout_ms"];

/// One example per subcommand, by its path under `warden`.
const EXAMPLES: &[(&str, &str)] = &[
    (
        "gate",
        "CHIRALITY_ENABLE_SUBAGENTS=true warden gate --config examples/agentwarden.toml \\\n    \
         --request examples/requests/example-1-allow.json",
    ),
    (
        "lineage",
        "warden lineage check --config examples/agentwarden.toml --lineage examples/lineage/three-levels.json",
    ),
    (
        "lineage check",
        "warden lineage check --config examples/agentwarden.toml --lineage examples/lineage/three-levels.json",
    ),
    (
        "authorize",
        "warden authorize --config examples/agentwarden.toml --request examples/lineage/authorize-escalation.json",
    ),
    (
        "fanout",
        "warden fanout run --config examples/fanout/agentwarden.toml --items examples/fanout/items.json \\\n    \
         --phase tests -- sh examples/fanout/agent.sh",
    ),
    (
        "fanout plan",
        "warden fanout plan --config examples/fanout/agentwarden.toml --items examples/fanout/items.json --phase tests",
    ),
    (
        "fanout run",
        "warden fanout run --config examples/fanout/agentwarden.toml --items examples/fanout/items.json \\\n    \
         --phase tests -- sh examples/fanout/agent.sh",
    ),
    ("fanout merge", "warden fanout merge chunk-0.json chunk-1.json --json"),
    ("guard", "warden guard run --item ITEM-1 --run RUN-1 --artifacts out -- ./agent.sh"),
    ("guard snapshot", "warden guard snapshot --out before.json"),
    (
        "guard run",
        "warden guard run --item ITEM-1 --run RUN-1 --artifacts out --result out/result.json -- ./agent.sh",
    ),
    (
        "guard check",
        "warden guard check --snapshot before.json --item ITEM-1 --run RUN-1 --artifacts out --revert",
    ),
    ("result", "warden result validate out/result.json --item ITEM-1 --run RUN-1"),
    ("result validate", "warden result validate out/result.json --item ITEM-1 --run RUN-1"),
    ("audit", "warden audit log --decision deny --since 2h"),
    ("audit log", "warden audit log --decision deny --session example-session --since 2h"),
    ("audit explain", "warden --store target/demo/audit audit explain 3"),
    ("audit replay", "warden audit replay --projection denials"),
    ("audit timeline", "warden audit timeline --session example-session"),
    ("audit show", "warden audit show 1 --json"),
    ("audit verify", "warden audit verify --checkpoint ~/checkpoint.txt --verifier \"$(cat ~/log.vkey)\""),
    ("audit checkpoint", "warden audit checkpoint > ~/checkpoint.txt"),
    ("audit keygen", "warden audit keygen --origin example.com/warden/audit > ~/log.vkey"),
    ("audit prove", "warden audit prove 42 --checkpoint ~/checkpoint.txt > event-42.proof"),
    (
        "audit verify-proof",
        "warden audit verify-proof --proof event-42.proof --checkpoint checkpoint.txt --verifier \"$(cat log.vkey)\"",
    ),
    (
        "audit witness-request",
        "warden audit witness-request --old 1200 --checkpoint ~/checkpoint.txt > request",
    ),
    ("audit export", "warden audit export --format jsonl | jq -c '{seq, event_type}'"),
    ("audit stats", "warden audit stats --json"),
    ("audit copy", "warden audit copy --from .agentwarden/audit --to postgres://warden@db.internal/audit"),
    (
        "audit report",
        "warden --store target/demo/audit audit report --session example-session --out report.html",
    ),
    (
        "witness",
        "warden witness add-checkpoint --key w.key --log \"$(cat log.vkey)\" --state /var/lib/warden-witness < request",
    ),
    ("witness keygen", "warden witness keygen --name witness.example.com/w1 --out w.key > w.vkey"),
    (
        "witness add-checkpoint",
        "warden witness add-checkpoint --key w.key --log \"$(cat log.vkey)\" --state /var/lib/warden-witness < request",
    ),
    (
        "witness serve",
        "warden witness serve --listen 127.0.0.1:7380 --key w.key --state /var/lib/warden-witness --log \"$(cat log.vkey)\"",
    ),
    ("audit note", "warden audit note \"maintenance begins\" --actor alice"),
    (
        "hook",
        "cd examples/claude-code && AGENTWARDEN_ENABLE_SUBAGENTS=true \\\n    \
         warden hook --config agentwarden.toml < events/pre-task-main-planner.json",
    ),
    ("seal", "warden seal --by alice"),
    (
        "approve",
        "warden approve --ref GATE-2026-02-21-001 --by alice --expires-in 8h --scope persona:MANAGER",
    ),
    ("revoke", "warden revoke --ref GATE-2026-02-21-001 --by alice"),
    ("approvals", "warden approvals --json"),
    ("release", "warden release --session SESSION --by alice"),
    (
        "init",
        "warden init claude-code   # or codex, gemini, copilot; in the project's root, beside agentwarden.toml",
    ),
    ("init claude-code", "warden init claude-code   # in the project's root, beside agentwarden.toml"),
    ("init codex", "warden init codex   # in the project's root; trusts it in ~/.codex (docs/codex.md)"),
    (
        "init gemini",
        "warden init gemini   # in the project's root; hooks in .gemini/settings.json (docs/gemini.md)",
    ),
    (
        "init copilot",
        "warden init copilot   # in the project's root; hooks in .github/hooks/agentwarden.json (docs/copilot.md)",
    ),
    ("doctor", "warden doctor"),
    ("serve", "warden serve --socket /run/agentwarden/warden.sock --config agentwarden.toml"),
    ("status", "warden status --server /run/agentwarden/warden.sock"),
    ("completions", "warden completions bash > ~/.local/share/bash-completion/completions/warden"),
    ("manpages", "warden manpages docs/man   # what `cargo xtask reference --bless` runs"),
];

/// What `warden hook --help` says before its example: what it reads and where the examples are.
const HOOK: &str = "Stdin: one Claude Code hook event, JSON as Claude Code sends it (`hook_event_name`, \
`session_id`, `cwd`, and for `PreToolUse` `tool_name` and `tool_input`; see docs/claude-code-protocol.md), \
or with `--harness codex` one Codex CLI hook event (docs/codex.md), with `--harness gemini` one Gemini \
CLI hook event (docs/gemini.md), with `--harness copilot` one Copilot CLI hook event, Claude-style \
(docs/copilot.md). Stdout: the protocol's answer (nothing when allowed). One file per \
event to try it with: examples/claude-code/events/, examples/codex/events/, examples/gemini/events/.";

/// `warden`'s command, with the examples and the global options shown once.
pub(super) fn command() -> Command {
    let command = super::Cli::command();
    let globals = global_section(&command);
    decorate(command.after_help(globals), "")
}

/// "Global options: …", in the layout of clap's own option list, from the options' help.
fn global_section(command: &Command) -> String {
    let mut rows = Vec::new();
    for arg in command.get_arguments().filter(|a| GLOBAL.contains(&a.get_id().as_str())) {
        let long = arg.get_long().unwrap_or_default();
        let value = match arg.get_value_names().and_then(|v| v.first()) {
            Some(name) if arg.get_action().takes_values() => format!(" <{name}>"),
            _ => String::new(),
        };
        let help = arg.get_help().map(ToString::to_string).unwrap_or_default();
        let env = arg.get_env().map(|e| format!(" [env: {}]", e.to_string_lossy())).unwrap_or_default();
        let default = match arg.get_default_values() {
            [value] => format!(" [default: {}]", value.to_string_lossy()),
            _ => String::new(),
        };
        rows.push((format!("--{long}{value}"), format!("{help}{default}{env}")));
    }
    let width = rows.iter().map(|(flag, _)| flag.len()).max().unwrap_or(0);
    let mut text =
        String::from("Global options (before or after the command; not repeated in each command's help):");
    for (flag, help) in rows {
        text.push_str(&format!("\n      {flag:width$}  {help}"));
    }
    text
}

fn decorate(command: Command, path: &str) -> Command {
    let names: Vec<String> =
        command.get_subcommands().map(|s| s.get_name().to_owned()).filter(|n| n != "help").collect();
    names.into_iter().fold(command, |command, name| {
        let path = if path.is_empty() { name.clone() } else { format!("{path} {name}") };
        command.mut_subcommand(&name, |sub| decorate(explain(sub, &path), &path))
    })
}

fn explain(command: Command, path: &str) -> Command {
    let example = EXAMPLES.iter().find(|(p, _)| *p == path).map(|(_, e)| *e);
    let mut text = String::new();
    if path == "hook" {
        text.push_str(HOOK);
        text.push_str("\n\n");
    }
    if let Some(example) = example {
        text.push_str(&format!("Example:\n  {example}\n\n"));
    }
    text.push_str("Global options (--store, --fsync, --lock-timeout-ms): see `warden --help`.");
    command.after_help(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(command: &Command, prefix: &str, out: &mut Vec<String>) {
        for sub in command.get_subcommands().filter(|s| s.get_name() != "help") {
            let path = if prefix.is_empty() {
                sub.get_name().to_owned()
            } else {
                format!("{prefix} {}", sub.get_name())
            };
            paths(sub, &path, out);
            out.push(path);
        }
    }

    #[test]
    fn every_subcommand_has_an_example_and_the_global_options_are_shown_once() {
        let mut command = command();
        let mut all = Vec::new();
        paths(&command, "", &mut all);
        assert!(all.len() > 30, "{all:?}");
        for path in &all {
            assert!(EXAMPLES.iter().any(|(p, _)| p == path), "N-8: `warden {path}` has no example");
        }
        for (path, _) in EXAMPLES {
            assert!(
                all.contains(&(*path).to_owned()),
                "an example for `warden {path}`, which does not exist"
            );
        }
        let root = command.render_help().to_string();
        for flag in [
            "--store <DIR|URL>",
            "--server <PATH>",
            "--server-uid <UID>",
            "--fsync",
            "--lock-timeout-ms <MS>",
        ] {
            assert_eq!(root.matches(flag).count(), 1, "N-8: `{flag}` once on `warden --help`: {root}");
        }
        // No variable names the store or the server (V-67).
        assert!(root.contains("[default: 5000]") && !root.contains("[env: AGENTWARDEN_"), "{root}");
        let log = command.find_subcommand_mut("audit").and_then(|a| a.find_subcommand_mut("log")).unwrap();
        let help = log.render_help().to_string();
        assert!(!help.contains("--store <") && !help.contains("--lock-timeout-ms <"), "N-8: {help}");
        assert!(help.contains("Example:\n  warden audit log"), "{help}");
    }

    #[test]
    fn the_global_options_are_still_accepted_after_a_subcommand() {
        let matches = command()
            .try_get_matches_from(["warden", "audit", "log", "--store", "x", "--lock-timeout-ms", "7"])
            .unwrap();
        assert_eq!(matches.get_one::<String>("store").map(String::as_str), Some("x"));
        assert_eq!(matches.get_one::<u64>("lock_timeout_ms"), Some(&7));
        let hook = command().try_get_matches_from(["warden", "hook", "--config", "c.toml"]).unwrap();
        assert_eq!(hook.subcommand_name(), Some("hook"));
    }
}
