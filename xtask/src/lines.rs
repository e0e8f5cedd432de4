//! `cargo xtask lines [DIR…]`: the lines of Rust a crate's sources hold outside its tests, per
//! file and in all (issue 49 item 6 asks `cli/src` to stay under 4 000). Every line counts —
//! code, comments and blanks, as `wc -l` counts them — except a `#[cfg(test)]` item (a `mod
//! tests { … }` block, or a `mod NAME;` whose file is then left out whole) and a file that opens
//! with `#![cfg(test)]`. Beside that figure, the lines of code alone (neither blank nor only a
//! comment). The default directory is `cli/src`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// What `lines` counts when given no directory.
const DEFAULT: &str = "cli/src";

pub(crate) fn run(args: &[String]) -> Result<(), String> {
    if args.iter().any(|a| a.starts_with('-')) {
        return Err(format!(
            "lines: unknown arguments `{}`; usage: cargo xtask lines [DIR…]",
            args.join(" ")
        ));
    }
    let root = crate::root();
    let dirs: Vec<String> = if args.is_empty() { vec![DEFAULT.to_owned()] } else { args.to_vec() };
    for dir in dirs {
        let counted = count_dir(&root.join(&dir))?;
        let lines: usize = counted.iter().map(|(_, counted)| counted.lines).sum();
        let code: usize = counted.iter().map(|(_, counted)| counted.code).sum();
        println!("{:>6} {:>6}", "lines", "code");
        for (path, counted) in &counted {
            let shown = path.strip_prefix(&root).unwrap_or(path);
            println!("{:>6} {:>6} {}", counted.lines, counted.code, shown.display());
        }
        println!("{lines:>6} {code:>6} {dir} (outside tests)");
    }
    Ok(())
}

/// What one file holds outside its tests.
#[derive(Debug, Default, PartialEq, Eq)]
struct Counted {
    /// Every line, as `wc -l` counts.
    lines: usize,
    /// The lines neither blank nor only a comment.
    code: usize,
    /// The `#[cfg(test)] mod NAME;` it declares.
    test_modules: Vec<String>,
}

/// Each `.rs` file under `dir` compiled outside tests, with what it holds, sorted by path.
fn count_dir(dir: &Path) -> Result<Vec<(PathBuf, Counted)>, String> {
    let mut files = Vec::new();
    rust_files(dir, &mut files)?;
    files.sort();
    let mut test_only = BTreeSet::new();
    let mut counted = Vec::new();
    for file in &files {
        let text =
            std::fs::read_to_string(file).map_err(|e| format!("cannot read `{}`: {e}", file.display()))?;
        let counted_file = count(&text);
        for name in &counted_file.test_modules {
            test_only.extend(module_files(file, name));
        }
        counted.push((file.clone(), counted_file));
    }
    counted.retain(|(file, _)| !test_only.contains(file));
    Ok(counted)
}

fn rust_files(dir: &Path, found: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("cannot list `{}`: {e}", dir.display()))?;
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, found)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
    Ok(())
}

/// The files `mod NAME;` in `file` may name: `NAME.rs` or `NAME/mod.rs` beside a crate root or
/// `mod.rs`, under `STEM/` beside any other file.
fn module_files(file: &Path, name: &str) -> Vec<PathBuf> {
    let dir = file.parent().unwrap_or_else(|| Path::new("."));
    let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
    let base = if matches!(stem, "lib" | "main" | "mod") || dir.ends_with("bin") {
        dir.to_path_buf()
    } else {
        dir.join(stem)
    };
    vec![base.join(format!("{name}.rs")), base.join(name).join("mod.rs")]
}

/// What `text` holds outside `#[cfg(test)]` items (nothing when the file opens with
/// `#![cfg(test)]`).
fn count(text: &str) -> Counted {
    let lines: Vec<&str> = text.lines().collect();
    if lines.iter().map(|l| l.trim()).find(|l| !l.is_empty() && !l.starts_with("//")) == Some("#![cfg(test)]")
    {
        return Counted::default();
    }
    let mut kept = Counted::default();
    let mut at = 0;
    while let Some(line) = lines.get(at) {
        if line.trim() != "#[cfg(test)]" {
            kept.lines += 1;
            if !line.trim().is_empty() && !line.trim().starts_with("//") {
                kept.code += 1;
            }
            at += 1;
            continue;
        }
        // The item the attribute is on: past further attributes, up to its `;` or the brace
        // that closes its body.
        let mut depth = 0usize;
        let mut opened = false;
        at += 1;
        while let Some(line) = lines.get(at) {
            at += 1;
            let code = strip_literals(line);
            let trimmed = code.trim();
            if !opened && (trimmed.starts_with("#[") || trimmed.is_empty()) {
                continue;
            }
            if !opened && let Some(name) = trimmed.strip_suffix(';').and_then(module_name) {
                kept.test_modules.push(name.to_owned());
                break;
            }
            for c in code.chars() {
                match c {
                    '{' => {
                        depth += 1;
                        opened = true;
                    }
                    '}' => depth = depth.saturating_sub(1),
                    _ => {}
                }
            }
            if (opened && depth == 0) || (!opened && trimmed.ends_with(';')) {
                break;
            }
        }
    }
    kept
}

/// `NAME` of `mod NAME` (any visibility).
fn module_name(item: &str) -> Option<&str> {
    let item = item.strip_prefix("pub").map_or(item, |rest| match rest.trim_start().strip_prefix('(') {
        Some(scoped) => scoped.split_once(')').map_or(rest, |(_, after)| after),
        None => rest,
    });
    item.trim_start().strip_prefix("mod ").map(str::trim)
}

/// `line` with its comments, string and character literals blanked, so that their braces are
/// not counted (a literal across lines is rare enough in this tree to be read as code).
fn strip_literals(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => break,
            '"' => {
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => {
                            chars.next();
                        }
                        '"' => break,
                        _ => {}
                    }
                }
            }
            // A character literal (`'{'`, `'\''`), not a lifetime (`'a`).
            '\'' => {
                let mut ahead = chars.clone();
                let literal = match ahead.next() {
                    Some('\\') => true,
                    Some(_) => ahead.next() == Some('\''),
                    None => false,
                };
                if literal {
                    while let Some(c) = chars.next() {
                        match c {
                            '\\' => {
                                chars.next();
                            }
                            '\'' => break,
                            _ => {}
                        }
                    }
                }
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{Counted, count};

    #[test]
    fn test_modules_and_test_only_files_are_left_out() {
        let text = "fn a() {}\n\n#[cfg(test)]\nmod tests {\n    fn b() { let _ = \"}\"; let _ = '{'; }\n}\n\
                    #[cfg(test)]\nmod fixtures;\n#[cfg(test)]\n#[expect(dead_code)]\nfn c<'a>() {\n}\nfn d() {}\n";
        assert_eq!(count(text), Counted { lines: 3, code: 2, test_modules: vec!["fixtures".to_owned()] });
        assert_eq!(count("//! doc\n#![cfg(test)]\nfn a() {}\n"), Counted::default());
    }
}
