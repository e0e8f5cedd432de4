//! Every relative link of the repository's Markdown files resolves: `[text](path)` and
//! `[label]: path` outside code, relative to the file that holds it, name a file or directory
//! the repository has (its `#anchor` aside). Links with a scheme (`https:`, `mailto:`) and links
//! to an anchor of the same page are not checked. `cargo xtask readme` runs this first, and a
//! test runs it over the repository, so a guide that moves cannot leave a link behind.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The link targets of `markdown`, with their line (1-based), outside fenced blocks and inline
/// code.
pub(crate) fn targets(markdown: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut fenced = false;
    for (index, line) in markdown.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let text = without_code_spans(line);
        if let Some(rest) = text.trim_start().strip_prefix('[')
            && let Some((_, target)) = rest.split_once("]:")
            && let Some(target) = target.split_whitespace().next()
        {
            found.push((index + 1, target.to_owned()));
        }
        let mut rest = text.as_str();
        while let Some(at) = rest.find("](") {
            let after = rest.get(at + 2..).unwrap_or("");
            let end = after.find(')').unwrap_or(after.len());
            let target = after.get(..end).unwrap_or("").split_whitespace().next().unwrap_or("");
            if !target.is_empty() {
                found.push((index + 1, target.to_owned()));
            }
            rest = after.get(end..).unwrap_or("");
        }
    }
    found
}

/// `line` with every `code span` blanked (a link inside one is text, not a link).
fn without_code_spans(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut in_code = false;
    for c in line.chars() {
        if c == '`' {
            in_code = !in_code;
            out.push(' ');
        } else {
            out.push(if in_code { ' ' } else { c });
        }
    }
    out
}

/// Whether a target is a relative path to check (not a URL, not an anchor of the same page).
fn is_relative(target: &str) -> bool {
    let scheme = target.split_once(':').is_some_and(|(s, _)| {
        !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    });
    !(scheme || target.starts_with('#') || target.starts_with('<'))
}

/// The links of `file` (a path relative to `root`) whose target does not exist, each as
/// `FILE:LINE: TARGET`.
pub(crate) fn broken_in(root: &Path, file: &Path, markdown: &str) -> Vec<String> {
    let dir = root.join(file).parent().map(Path::to_path_buf).unwrap_or_else(|| root.to_path_buf());
    targets(markdown)
        .into_iter()
        .filter(|(_, target)| is_relative(target))
        .filter(|(_, target)| {
            let path = target.split(['#', '?']).next().unwrap_or("");
            !path.is_empty() && !dir.join(path).exists()
        })
        .map(|(line, target)| format!("{}:{line}: `{target}` does not exist", file.display()))
        .collect()
}

/// Every broken relative link of the Markdown files git tracks (or would track) under `root`.
pub(crate) fn broken(root: &Path) -> Result<Vec<String>, String> {
    let mut broken = Vec::new();
    let mut checked = 0;
    for file in files(root)? {
        if file.extension().is_none_or(|e| e != "md") || !root.join(&file).is_file() {
            continue;
        }
        let markdown = std::fs::read_to_string(root.join(&file))
            .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
        broken.extend(broken_in(root, &file, &markdown));
        checked += 1;
    }
    if checked == 0 {
        return Err(format!(
            "no Markdown file found under {}: the link check checked nothing",
            root.display()
        ));
    }
    Ok(broken)
}

/// Fails naming every broken link.
pub(crate) fn check(root: &Path) -> Result<(), String> {
    let broken = broken(root)?;
    if broken.is_empty() {
        println!("==> every relative link of the Markdown files resolves");
        Ok(())
    } else {
        Err(format!("relative links that resolve to nothing (fix the path): {}", broken.join("; ")))
    }
}

/// The repository's files: every file git tracks or would track (not `target/`, not ignored
/// ones). The links are checked in them, and `readme` copies them.
pub(crate) fn files(root: &Path) -> Result<Vec<PathBuf>, String> {
    let output = Command::new("git")
        .args(["ls-files", "-z", "--cached", "--others", "--exclude-standard"])
        .current_dir(root)
        .output()
        .map_err(|e| format!("cannot run git to list the repository's files: {e}"))?;
    if !output.status.success() {
        return Err(format!("`git ls-files` failed in {}: is it a git checkout?", root.display()));
    }
    let listed = String::from_utf8(output.stdout).map_err(|_| "a file name is not UTF-8".to_owned())?;
    Ok(listed.split('\0').filter(|f| !f.is_empty()).map(PathBuf::from).collect())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::{broken_in, is_relative, targets};

    #[test]
    fn links_are_read_outside_code_only() {
        let md = "See [a](docs/a.md) and [b](b.md#part \"title\").\n\
                  `[not](a-link.md)` and\n```sh\n[not](either.md)\n```\n[label]: ref/c.md\n[e]()\n";
        let found: Vec<(usize, String)> = targets(md);
        let expected = [(1, "docs/a.md"), (1, "b.md#part"), (6, "ref/c.md")];
        assert_eq!(found, expected.map(|(l, t)| (l, t.to_owned())));
    }

    #[test]
    fn only_relative_paths_are_checked() {
        // (target, checked, why)
        let rows = [
            ("docs/a.md", true, "a path"),
            ("../README.md", true, "a path upward"),
            ("man/", true, "a directory"),
            ("https://rustup.rs", false, "a URL"),
            ("mailto:x@y.invalid", false, "a scheme"),
            ("#get-warden", false, "an anchor of the same page"),
        ];
        for (target, checked, why) in rows {
            assert_eq!(is_relative(target), checked, "{target}: {why}");
        }
    }

    #[test]
    fn a_link_to_nothing_is_named_with_its_file_and_line() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let md = "[ok](../README.md), [ok](rulings.md#n-9), [web](https://x.invalid)\n[gone](gone.md)\n";
        let broken = broken_in(&root, Path::new("docs/guide.md"), md);
        assert_eq!(broken, ["docs/guide.md:2: `gone.md` does not exist"]);
    }

    #[test]
    fn every_relative_link_of_the_repository_resolves() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let broken = super::broken(&root).unwrap();
        assert!(broken.is_empty(), "broken links: {broken:#?}");
    }
}
