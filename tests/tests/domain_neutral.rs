//! Issue 35: the domain names no harness. Every file under `domain/` (sources, tests, benches,
//! fixtures) is read, and none may name a harness (`claude`, `codex`, `gemini`, any case), a
//! Claude Code tool as a string literal (`"Bash"`, `"Edit"`, …), the hook's exit code
//! (`HOOK_FAILED`), or a key of a harness's hook JSON (`hook_event_name`, `tool_input`,
//! `hookSpecificOutput`, `permissionDecision`). A harness integration (`harness/…`) holds all of
//! that and hands the kernel neutral values.
//!
//! One file is the rule syntax's (T-16): the manifests' tool rules are written in the
//! permission-rule syntax the harnesses share, and `src/lineage/syntax.rs` spells its keywords
//! (`Bash`, `Edit` and its family, …) — the syntax's words, which every integration maps its
//! calls onto. It may hold those literals and nothing else of the list: no harness's name, exit
//! code or hook JSON.
//!
//! `NOT_YET_NEUTRAL` lists the files that still name something, each with why: the audit
//! fixtures are a log as the Claude Code integration recorded it (event bytes that must stay).
//! The list may only shrink: a listed file that no longer names anything fails the test too, so
//! that it is taken off.

use std::path::Path;

/// The rule syntax's keywords (T-16): the one file that may spell them.
const SYNTAX: &str = "src/lineage/syntax.rs";

/// Files allowed to name a harness for now (relative to `domain/`), and why.
const NOT_YET_NEUTRAL: [(&str, &str); 2] = [
    ("src/audit/testdata/explained.json", "fixture: a log as the Claude Code integration recorded it"),
    ("src/audit/testdata/log.jsonl", "fixture: a log as the Claude Code integration recorded it"),
];

/// Case-insensitive: a harness's name in any spelling.
const HARNESSES: [&str; 3] = ["claude", "codex", "gemini"];

/// Case-sensitive: Claude Code's tool names as string literals, its exit code's name, and the
/// keys of its hook JSON.
const WIRE: [&str; 15] = [
    // The first ten are the rule syntax's words too (T-16).
    "\"Bash\"",
    "\"Edit\"",
    "\"Write\"",
    "\"Read\"",
    "\"Agent\"",
    "\"Task\"",
    "\"Glob\"",
    "\"Grep\"",
    "\"NotebookEdit\"",
    "\"MultiEdit\"",
    "HOOK_FAILED",
    "hook_event_name",
    "tool_input",
    "hookSpecificOutput",
    "permissionDecision",
];

/// What `text` names that the domain must not, one entry per kind found.
fn named(text: &str) -> Vec<&'static str> {
    let lower = text.to_lowercase();
    let mut found: Vec<&'static str> = HARNESSES.into_iter().filter(|h| lower.contains(h)).collect();
    found.extend(WIRE.into_iter().filter(|w| text.contains(w)));
    found
}

/// What the file `relative` (to `domain/`) names that it must not: [`SYNTAX`] may spell the
/// rule syntax's words, the first ten of [`WIRE`] (T-16).
fn named_in(relative: &str, text: &str) -> Vec<&'static str> {
    let mut found = named(text);
    if relative == SYNTAX {
        found.retain(|name| !WIRE[..10].contains(name));
    }
    found
}

#[test]
fn the_domain_names_no_harness_tool_exit_code_or_hook_json() {
    let domain = Path::new(env!("CARGO_MANIFEST_DIR")).join("../domain");
    let all = agentwarden_tests::sources::all_files(&domain);
    assert!(all.len() > 50, "the domain's files were read: {}", all.len());
    let mut offending = Vec::new();
    let mut listed_but_clean = Vec::new();
    for path in &all {
        let Ok(text) = std::fs::read_to_string(path) else { continue };
        let relative = path.strip_prefix(&domain).unwrap_or(path).to_string_lossy().replace('\\', "/");
        let found = named_in(&relative, &text);
        let listed = NOT_YET_NEUTRAL.iter().any(|(file, _)| *file == relative);
        match (found.is_empty(), listed) {
            (false, false) => offending.push(format!("{relative}: {found:?}")),
            (true, true) => listed_but_clean.push(relative),
            _ => {}
        }
    }
    assert!(offending.is_empty(), "the domain names a harness (issue 35):\n{}", offending.join("\n"));
    assert!(
        listed_but_clean.is_empty(),
        "neutral now: take these off `NOT_YET_NEUTRAL`: {listed_but_clean:?}"
    );
}

/// The check itself: each kind of name is found, and neutral text is not.
#[test]
fn each_kind_of_name_is_found() {
    let rows: [(&str, bool, &str); 8] = [
        ("// for Claude Code", true, "a harness, in prose"),
        ("[claude_code]", true, "a harness, in a configuration key"),
        ("Codex CLI", true, "another harness"),
        (r#"tool_name: "Bash".into()"#, true, "a tool name as a string literal"),
        (r#"{"tool_input": 1}"#, true, "a hook JSON key"),
        ("HOOK_FAILED", true, "the hook's exit code"),
        (r#"AGENT_CLASS: "TASK""#, false, "the gate's own `TASK`, not the tool"),
        ("a shell command that runs `warden seal`", false, "neutral prose"),
    ];
    for (text, expected, why) in rows {
        assert_eq!(!named(text).is_empty(), expected, "{why}: {text}");
    }
    // The syntax's file may spell its words, and nothing else of the list (T-16).
    let words = r#"pub const SHELL: &str = "Bash"; pub const EDIT_FAMILY = ["Edit", "Write"];"#;
    assert_eq!(named_in(SYNTAX, words), Vec::<&str>::new(), "the syntax's words");
    assert_eq!(named_in("src/lineage/rules.rs", words).len(), 3, "anywhere else, each is found");
    assert_eq!(named_in(SYNTAX, "// as Claude Code reads it"), ["claude"], "a harness's name is not a word");
    assert_eq!(named_in(SYNTAX, r#"{"tool_input": 1}"#), ["tool_input"], "nor its hook JSON");
}
