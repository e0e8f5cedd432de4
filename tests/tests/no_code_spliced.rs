//! Issue 49 item 4: a reason code is a field, never spliced into a message. Every
//! `.rs` file of every workspace member (the root manifest's list, so that a new crate is read
//! too; its sources, tests and benches) is read, and two shapes are refused:
//!
//! - an error message that starts with a known code, `#[error("store_corrupt: {0}")]`: the code
//!   belongs in a `code()` method or a field beside the message;
//! - a string composed with a code as its first word from a `code()` call,
//!   `format!("{}: {e}", e.code())`, or from a code named by its path or its text,
//!   `format!("{}: {why}", Code::UsageInvalid)`, `format!("{}: {why}", code.as_str())`: the
//!   value carries the code, and only a renderer composes text. `ALLOWED` holds the renderers that do, each with why; a listed file that no longer
//!   does, or is no longer there, fails the test too, so that it is taken off.

use std::path::{Path, PathBuf};

use agentwarden_domain::code::Code;

/// Files (relative to the workspace's root) that compose `code: reason` from a `code()` call,
/// and why: each is a rendering of a typed value, the one place its text is made.
const ALLOWED: [(&str, &str); 2] = [
    (
        "witness/src/http.rs",
        "the witness's HTTP error body: a refusal rendered as the protocol's text/plain `code: reason` (A-34)",
    ),
    (
        "domain/src/governance/signed.rs",
        "`SignatureRefusal`'s `Display`: the one renderer of a typed refusal, `code: reason` (K-3, X-96)",
    ),
];

/// The macros whose first string literal is a format string.
const FORMATTING: [&str; 5] = ["format!(", "write!(", "writeln!(", "format_args!(", "panic!("];

/// The string literal that starts at byte `at` of `text` (`at` is its opening quote): its
/// contents, escapes kept, and the byte after its closing quote.
fn literal(text: &str, at: usize) -> Option<(&str, usize)> {
    let bytes = text.as_bytes();
    let mut i = at + 1;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\\' => i += 2,
            b'"' => return Some((text.get(at + 1..i)?, i + 1)),
            _ => i += 1,
        }
    }
    None
}

/// The arguments of the macro call whose `(` is at byte `open`: the text up to its matching
/// `)`, string literals skipped whole.
fn arguments(text: &str, open: usize) -> &str {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut i = open;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'"' => {
                i = literal(text, i).map_or(bytes.len(), |(_, end)| end);
                continue;
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return text.get(open + 1..i).unwrap_or("");
                }
            }
            _ => {}
        }
        i += 1;
    }
    text.get(open + 1..).unwrap_or("")
}

/// Whether a format string starts with a placeholder and `: `, the shape of `code: reason`.
fn starts_with_a_placeholder(format: &str) -> bool {
    format.strip_prefix('{').and_then(|rest| rest.split_once('}')).is_some_and(|(inside, after)| {
        inside.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':' || c == '?')
            && after.starts_with(": ")
    })
}

/// Whether a format's first argument is a code: a `code()` call, a `Code::` path (a constant of
/// the table, `Code::UsageInvalid`), or a code's text (`code.as_str()`).
fn names_a_code(argument: &str) -> bool {
    let argument = argument.trim();
    argument.contains("code()") || argument.contains("Code::") || argument.ends_with("code.as_str()")
}

/// The places of `text` that splice a code into a message, each as a short excerpt.
fn spliced(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (at, _) in text.match_indices("#[error(\"") {
        let Some((message, _)) = literal(text, at + "#[error(".len()) else { continue };
        if let Some((word, _)) = message.split_once(':')
            && Code::known(word).is_some()
        {
            found.push(format!("#[error(\"{message}\")]"));
        }
    }
    for name in FORMATTING {
        for (at, _) in text.match_indices(name) {
            // `format!(` inside `my_format!(`: not this macro.
            if text
                .get(..at)
                .and_then(|before| before.chars().last())
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
            {
                continue;
            }
            let args = arguments(text, at + name.len() - 1);
            let Some(quote) = args.find('"') else { continue };
            let Some((format, end)) = literal(args, quote) else { continue };
            let rest = args.get(end..).unwrap_or("");
            if starts_with_a_placeholder(format) && rest.split(',').nth(1).is_some_and(names_a_code) {
                found.push(format!("{name}\"{format}\"{rest})"));
            }
        }
    }
    found
}

fn walk(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { panic!("{} cannot be read", dir.display()) };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if !matches!(name.as_str(), "target" | "node_modules" | ".git" | "corpus" | "artifacts") {
                walk(&path, found);
            }
        } else if name.ends_with(".rs") {
            found.push(path);
        }
    }
}

/// The workspace's members, as the root manifest lists them.
fn members(manifest: &str) -> Vec<String> {
    let list = manifest
        .lines()
        .find_map(|line| line.trim().strip_prefix("members = ["))
        .and_then(|rest| rest.split_once(']'))
        .map_or("", |(list, _)| list);
    list.split(',')
        .map(|member| member.trim().trim_matches('"').to_owned())
        .filter(|m| !m.is_empty())
        .collect()
}

#[test]
fn no_code_is_spliced_into_a_message() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let members = members(&std::fs::read_to_string(root.join("Cargo.toml")).unwrap());
    assert!(
        members.contains(&"app".to_owned()) && members.contains(&"harness/codex".to_owned()),
        "{members:?}"
    );
    let this = Path::new(file!()).file_name().unwrap().to_owned();
    let mut read = 0;
    let mut offending = Vec::new();
    let mut listed_but_clean = Vec::new();
    for member in &members {
        let mut files = Vec::new();
        walk(&root.join(member), &mut files);
        for path in files {
            if path.file_name() == Some(this.as_os_str()) {
                continue;
            }
            let relative = path.strip_prefix(&root).unwrap_or(&path).to_string_lossy().replace('\\', "/");
            let Ok(text) = std::fs::read_to_string(&path) else { continue };
            read += 1;
            let found = spliced(&text);
            let listed = ALLOWED.iter().any(|(file, _)| *file == relative);
            match (found.is_empty(), listed) {
                (false, false) => offending.extend(found.into_iter().map(|at| format!("{relative}: {at}"))),
                (true, true) => listed_but_clean.push(relative),
                _ => {}
            }
        }
    }
    assert!(read > 300, "the workspace's sources were read: {read}");
    assert!(
        offending.is_empty(),
        "a code is spliced into a message (issue 49, X-94): give it as a field or a `code()` beside the \
         message, and compose `code: reason` only where the value is rendered:\n{}",
        offending.join("\n")
    );
    assert!(listed_but_clean.is_empty(), "no splice left: take these off `ALLOWED`: {listed_but_clean:?}");
    let gone: Vec<&str> =
        ALLOWED.iter().map(|(file, _)| *file).filter(|file| !root.join(file).is_file()).collect();
    assert!(
        gone.is_empty(),
        "moved or removed: take these off `ALLOWED`, or list them where they are: {gone:?}"
    );
}

/// The check itself: each shape is found, and what only looks like it is not.
#[test]
fn a_spliced_code_is_found_and_nothing_else() {
    let rows: [(&str, usize, &str); 15] = [
        ("#[error(\"store_corrupt: {0}\")]", 1, "a known code first in an error message"),
        ("#[error(\"checkpoint_invalid: the note: {0}\")]", 1, "another known code"),
        ("#[error(\"{0}\")]", 0, "a message without a code"),
        ("#[error(\"not_a_code_at_all: {0}\")]", 0, "a word that is no code"),
        ("#[error(\"exit code {0}, not 0 or 2\")]", 0, "a message about codes"),
        ("HookAnswer::failed(format!(\"{}: {e}\", e.code()))", 1, "a code() call spliced first"),
        ("let t = format!(\"{}: {}\", err.code(), err.reason());", 1, "a code() call and a reason"),
        ("write!(f, \"{}: {}\", self.code(), self.reason)", 1, "a Display that splices"),
        ("format!(\"exit {:?}: {stderr}\", out.status.code())", 0, "words before the placeholder"),
        ("format!(\"{}: {why}\", show(name))", 0, "no code() call"),
        ("format!(\"{}: {why}\", Code::UsageInvalid)", 1, "a code's constant spliced first"),
        ("let why = format!(\n    \"{}: no answer\",\n    Code::DeadlinePassed\n);", 1, "over lines"),
        ("format!(\"{}: {why}\", code.as_str())", 1, "a code's text spliced first"),
        ("format!(\"{}: {why}\", agentwarden::code::Code::InternalError)", 1, "a code's full path"),
        ("format!(\"{}: {}\", what, Code::UsageInvalid)", 0, "a code that is not first"),
    ];
    for (text, expected, why) in rows {
        assert_eq!(spliced(text).len(), expected, "{why}: {text}");
    }
}
