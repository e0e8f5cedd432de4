//! Issue 49: one harness abstraction, chosen by name in one registry. Outside the
//! integrations (`harness/…`), no production source names a harness in its code: no identifier
//! spells `claude`, `codex`, `gemini` or `copilot` in any case (`HookHarness::Codex`, `ClaudeCode`,
//! `agentwarden_gemini::…`, `CLAUDE_CODE_ENV`). Code holds a harness as the domain's `Harness`
//! and gets it from the registry by its name; strings (a configuration key, a name on a command
//! line) and comments may still say which harness a text is about.
//!
//! Each workspace member's `src/` is read (the root manifest's list, so that a new crate is read
//! too), its test modules left out (a `#[cfg(test)]` module last, a `tests.rs`, a `tests/`
//! folder): tests drive a harness by name. Not `xtask` (the developer's tasks, which install and
//! run each real client by name) nor the tests crate. `ALLOWED` holds what still names one, each
//! with why; a listed file that no longer does, or is no longer there, fails the test too, so
//! that it is taken off.

use std::path::Path;

/// Files (relative to the workspace's root) allowed to name a harness in their code, and why.
const ALLOWED: [(&str, &str); 2] = [
    (
        "hook-client/src/harness.rs",
        "the registry: each harness by the name its hook's command line gives it, the one place that \
         chooses one, for the hook, the server, `init` and `doctor` (X-89, X-101)",
    ),
    (
        "app/src/human.rs",
        "the variables each harness sets in the processes its agent runs: a human verb refuses inside any \
         harness's session, whether or not the caller linked its integration (H-5, C-9; app_neutral.rs)",
    ),
];

/// Case-insensitive: a harness's name in an identifier.
const HARNESSES: [&str; 4] = ["claude", "codex", "gemini", "copilot"];

/// `source` without its comments, string literals and character literals: its code.
fn code(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let at = |i: usize| chars.get(i).copied();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    while let Some(c) = at(i) {
        match (c, at(i + 1)) {
            ('/', Some('/')) => {
                while at(i).is_some_and(|c| c != '\n') {
                    i += 1;
                }
            }
            ('/', Some('*')) => {
                i += 2;
                while at(i).is_some() && !(at(i) == Some('*') && at(i + 1) == Some('/')) {
                    i += 1;
                }
                i += 2;
            }
            ('r', Some('#' | '"')) if !at(i.wrapping_sub(1)).is_some_and(is_ident) => {
                let mut hashes = 0;
                let mut j = i + 1;
                while at(j) == Some('#') {
                    hashes += 1;
                    j += 1;
                }
                if at(j) != Some('"') {
                    out.push(c);
                    i += 1;
                    continue;
                }
                j += 1;
                loop {
                    match at(j) {
                        None => break,
                        Some('"') if (1..=hashes).all(|k| at(j + k) == Some('#')) => {
                            j += 1 + hashes;
                            break;
                        }
                        Some(_) => j += 1,
                    }
                }
                out.push_str("\"\"");
                i = j;
            }
            ('"', _) => {
                i += 1;
                while let Some(c) = at(i) {
                    i += if c == '\\' { 2 } else { 1 };
                    if c == '"' {
                        break;
                    }
                }
                out.push_str("\"\"");
            }
            ('\'', Some('\\')) => {
                i += 2;
                while at(i).is_some_and(|c| c != '\'') {
                    i += 1;
                }
                i += 1;
            }
            ('\'', Some(_)) if at(i + 2) == Some('\'') => i += 3,
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The identifiers of `code` that name a harness.
fn named(code: &str) -> Vec<String> {
    let mut found: Vec<String> = code
        .split(|c: char| !is_ident(c))
        .filter(|word| {
            let lower = word.to_lowercase();
            HARNESSES.iter().any(|h| lower.contains(h))
        })
        .map(str::to_owned)
        .collect();
    found.sort();
    found.dedup();
    found
}

/// Whether `relative` is a test module by its place: a `tests.rs` or a file under `tests/`.
fn is_test_file(relative: &str) -> bool {
    relative.ends_with("/tests.rs") || relative.contains("/tests/") || relative.ends_with("_tests.rs")
}

#[test]
fn no_source_outside_the_integrations_and_the_registry_names_a_harness() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let members = members(&std::fs::read_to_string(root.join("Cargo.toml")).unwrap());
    assert!(members.contains(&"cli".to_owned()) && members.contains(&"domain".to_owned()), "{members:?}");
    let mut read = 0;
    let mut offending = Vec::new();
    let mut listed_but_clean = Vec::new();
    for member in &members {
        for path in agentwarden_tests::sources::rust_files(&root.join(member).join("src")) {
            let relative = path.strip_prefix(&root).unwrap_or(&path).to_string_lossy().replace('\\', "/");
            if is_test_file(&relative) {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&path) else { continue };
            read += 1;
            let found = named(&code(agentwarden_tests::sources::outside_tests(&text)));
            let listed = ALLOWED.iter().any(|(file, _)| *file == relative);
            match (found.is_empty(), listed) {
                (false, false) => offending.push(format!("{relative}: {found:?}")),
                (true, true) => listed_but_clean.push(relative),
                _ => {}
            }
        }
    }
    assert!(read > 150, "the workspace's sources were read: {read}");
    assert!(
        offending.is_empty(),
        "code outside the integrations names a harness (issue 49, X-89): hold it as a `Harness` chosen by \
         name in the registry (`agentwarden_hook_client::HookHarness`), move it into its integration, or \
         list the file in `ALLOWED` with why:\n{}",
        offending.join("\n")
    );
    assert!(listed_but_clean.is_empty(), "neutral now: take these off `ALLOWED`: {listed_but_clean:?}");
    let gone: Vec<&str> =
        ALLOWED.iter().map(|(file, _)| *file).filter(|file| !root.join(file).is_file()).collect();
    assert!(
        gone.is_empty(),
        "moved or removed: take these off `ALLOWED`, or list them where they are: {gone:?}"
    );
}

/// The workspace's members (the root manifest's `members = [...]`) whose sources are read: not
/// the integrations (`harness/…`), the developer's tasks (`xtask`) or the tests crate.
fn members(manifest: &str) -> Vec<String> {
    let list = manifest
        .lines()
        .find_map(|line| line.trim().strip_prefix("members = ["))
        .and_then(|rest| rest.split_once(']'))
        .map_or("", |(list, _)| list);
    list.split(',')
        .map(|member| member.trim().trim_matches('"').to_owned())
        .filter(|m| !m.is_empty() && !m.starts_with("harness/") && m != "xtask" && m != "tests")
        .collect()
}

/// The check itself: an identifier that names a harness is found; a string, a comment, a
/// character literal and a lifetime are not.
#[test]
fn a_harness_is_found_in_code_and_nowhere_else() {
    let rows: [(&str, &[&str], &str); 9] = [
        ("HookHarness::Codex", &["Codex"], "a variant"),
        ("use agentwarden_gemini::wire;", &["agentwarden_gemini"], "a crate path"),
        ("let h = ClaudeCode;", &["ClaudeCode"], "a type"),
        ("CLAUDE_CODE_ENV", &["CLAUDE_CODE_ENV"], "a constant"),
        ("parse(\"codex\")", &[], "a name in a string"),
        ("r#\"{\"gemini\": 1}\"#", &[], "a raw string"),
        ("// for Claude Code\nlet a = 1;", &[], "a comment"),
        ("/* Codex */ fn f<'a>(x: &'a str) -> char { 'c' }", &[], "a block comment, a lifetime, a char"),
        ("\"a \\\" codex\" + gemini_x", &["gemini_x"], "an escaped quote, then code"),
    ];
    for (text, expected, why) in rows {
        assert_eq!(named(&code(text)), expected.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>(), "{why}");
    }
}
