//! `cargo xtask readme`: every ```sh block of README.md and of the guides (`docs/*.md`) runs as
//! written, so that no command a reader is shown can rot. First every relative link of the
//! repository's Markdown files must resolve ([`crate::links`]). Then the repository's files
//! (those git tracks or would track) are copied to a temporary directory, `warden` is built and
//! put on the `PATH`, the demo's store is made the way `cargo xtask demo` makes it, and each
//! block runs with `sh -e` from the copy's root: README.md's in order, then each guide's, the
//! guides in the order of their names. The first block that fails stops the run, named by its
//! file, line and heading.
//!
//! An HTML comment on the line before a block changes what is expected of it:
//! `<!-- readme: skip REASON -->` (not run; the reason is printed: it needs PostgreSQL, root,
//! a key of yours…) or `<!-- readme: exit N REASON -->` (the block must exit N, e.g. a deny).
//! Claude Code itself is not run: a `claude` on the `PATH` feeds the hook the bundled spawn event
//! of `examples/claude-code/events/` and fails if it is not allowed.
//!
//! The "Library quick start" is pasted into a fresh crate, as a reader would: its ```toml
//! block is the crate's `[dependencies]` (the git URL pointed at the copy), its ```rust block
//! is `src/main.rs`, and the crate is built offline (with the workspace's `Cargo.lock`) and run.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use crate::root;

/// One ```sh block of the README or of a guide.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Block {
    /// The file that holds it, relative to the repository's root.
    pub(crate) file: String,
    /// The line of its opening fence (1-based).
    pub(crate) line: usize,
    /// The heading it sits under.
    pub(crate) heading: String,
    pub(crate) script: String,
    pub(crate) expect: Expect,
}

#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Expect {
    Exit(i32),
    Skip(String),
}

/// The ```sh blocks of `markdown` (the text of `file`), with what each must do.
pub(crate) fn blocks(file: &str, markdown: &str) -> Result<Vec<Block>, String> {
    let mut blocks = Vec::new();
    let mut heading = String::new();
    let mut previous = "";
    let mut lines = markdown.lines().enumerate();
    while let Some((index, line)) = lines.next() {
        let trimmed = line.trim();
        if let Some(title) = trimmed.strip_prefix('#').filter(|_| !line.starts_with(' ')) {
            heading = title.trim_start_matches('#').trim().to_owned();
        }
        if trimmed.starts_with("```") {
            let fence_line = index + 1;
            let mut script = String::new();
            let mut closed = false;
            for (_, body) in lines.by_ref() {
                if body.trim() == "```" {
                    closed = true;
                    break;
                }
                script.push_str(body.trim_start());
                script.push('\n');
            }
            if !closed {
                return Err(format!("{file}:{fence_line}: a code block is never closed"));
            }
            if trimmed == "```sh" {
                let expect = annotation(previous).map_err(|e| format!("{file}:{}: {e}", fence_line - 1))?;
                blocks.push(Block {
                    file: file.to_owned(),
                    line: fence_line,
                    heading: heading.clone(),
                    script,
                    expect,
                });
            }
            previous = "";
            continue;
        }
        if !trimmed.is_empty() {
            previous = trimmed;
        }
    }
    Ok(blocks)
}

/// What `<!-- readme: … -->` on the line before a block says (none: exit 0).
fn annotation(line: &str) -> Result<Expect, String> {
    let Some(inner) = line.strip_prefix("<!--").and_then(|l| l.strip_suffix("-->")) else {
        return Ok(Expect::Exit(0));
    };
    let Some(directive) = inner.trim().strip_prefix("readme:") else {
        return Ok(Expect::Exit(0));
    };
    let directive = directive.trim();
    if let Some(reason) = directive.strip_prefix("skip") {
        let reason = reason.trim();
        if reason.is_empty() {
            return Err("`readme: skip` needs a reason".into());
        }
        return Ok(Expect::Skip(reason.to_owned()));
    }
    if let Some(rest) = directive.strip_prefix("exit") {
        let code = rest.split_whitespace().next().and_then(|c| c.parse().ok());
        return code
            .map(Expect::Exit)
            .ok_or_else(|| format!("`readme: exit N` needs a number: `{directive}`"));
    }
    Err(format!("unknown readme directive `{directive}` (known: `skip REASON`, `exit N`)"))
}

fn copy_repo(from: &Path, to: &Path) -> Result<(), String> {
    for file in crate::links::files(from)? {
        let source = from.join(&file);
        if !source.is_file() {
            continue; // listed but deleted in the work tree
        }
        let target = to.join(&file);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
        }
        std::fs::copy(&source, &target).map_err(|e| format!("cannot copy {}: {e}", source.display()))?;
    }
    Ok(())
}

/// Claude Code's stand-in for the README's `claude` lines: one spawn from the main session,
/// the bundled event, must be allowed (exit 0 and no deny on stdout).
const CLAUDE_STUB: &str = r#"#!/bin/sh
# cargo xtask readme: stands in for Claude Code by feeding the hook a bundled event.
out=$(warden hook --config agentwarden.toml < events/pre-task-main-planner.json) || exit $?
case "$out" in *'"deny"'*) echo "claude (stand-in): the hook denied the spawn: $out" >&2; exit 1;; esac
echo "claude (stand-in): the hook allowed the bundled spawn event"
"#;

/// A fresh directory under the system's temporary directory, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Result<TempDir, String> {
        let nanos =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let dir = std::env::temp_dir().join(format!("xtask-readme-{}-{nanos}", std::process::id()));
        std::fs::create_dir(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        Ok(TempDir(dir))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn bin_dir(temp: &Path, warden: &Path) -> Result<PathBuf, String> {
    let bin = temp.join("bin");
    std::fs::create_dir(&bin).map_err(|e| format!("cannot create {}: {e}", bin.display()))?;
    std::os::unix::fs::symlink(warden, bin.join("warden")).map_err(|e| format!("cannot link warden: {e}"))?;
    // The hook client, beside `warden` as `cargo xtask install` puts it (V-34).
    std::os::unix::fs::symlink(warden.with_file_name("warden-hook"), bin.join("warden-hook"))
        .map_err(|e| format!("cannot link warden-hook: {e}"))?;
    let claude = bin.join("claude");
    std::fs::write(&claude, CLAUDE_STUB).map_err(|e| format!("cannot write {}: {e}", claude.display()))?;
    let executable = std::os::unix::fs::PermissionsExt::from_mode(0o755);
    std::fs::set_permissions(&claude, executable)
        .map_err(|e| format!("cannot make {} executable: {e}", claude.display()))?;
    Ok(bin)
}

/// Runs one block; `Err` names it.
fn run_block(block: &Block, repo: &Path, path: &str, tmp: &Path) -> Result<(), String> {
    let name = format!("{}:{} (under \"{}\")", block.file, block.line, block.heading);
    let expected = match &block.expect {
        Expect::Skip(reason) => {
            println!("\n==> {name}: SKIPPED, NOT RUN: {reason}");
            return Ok(());
        }
        Expect::Exit(code) => *code,
    };
    println!("\n==> {name}");
    for line in block.script.lines() {
        println!("$ {line}");
    }
    let started = Instant::now();
    let status = Command::new("sh")
        .args(["-e", "-c", &block.script])
        .current_dir(repo)
        .env("PATH", path)
        .env("TMPDIR", tmp)
        .env("HOME", tmp)
        .env("GIT_AUTHOR_NAME", "readme")
        .env("GIT_AUTHOR_EMAIL", "readme@example.invalid")
        .env("GIT_COMMITTER_NAME", "readme")
        .env("GIT_COMMITTER_EMAIL", "readme@example.invalid")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env_remove("CLAUDECODE")
        .env_remove("AGENTWARDEN_STORE")
        .env_remove("AGENTWARDEN_SERVER")
        .env_remove("AGENTWARDEN_ENABLE_SUBAGENTS")
        .env_remove("CHIRALITY_ENABLE_SUBAGENTS")
        .status()
        .map_err(|e| format!("{name}: cannot run sh: {e}"))?;
    let secs = started.elapsed().as_secs_f64();
    match status.code() {
        Some(code) if code == expected => {
            println!("==> {name}: ok, exit {code} ({secs:.1} s)");
            Ok(())
        }
        _ => Err(format!("{name} failed: {status}, expected exit {expected}; see its output above")),
    }
}

/// The "Library quick start" section's ```toml and ```rust blocks.
pub(crate) fn library_quick_start(markdown: &str) -> Result<(String, String), String> {
    let section = markdown
        .split("\n## ")
        .find(|s| s.starts_with("Library quick start"))
        .ok_or("README.md has no \"Library quick start\" section")?;
    let block = |fence: &str| {
        let start = section.find(fence).ok_or(format!("the library quick start has no {fence} block"))?;
        let body = section.get(start + fence.len()..).unwrap_or("");
        let end = body.find("\n```").ok_or(format!("its {fence} block is never closed"))?;
        Ok::<String, String>(body.get(..end).unwrap_or("").trim_start_matches('\n').to_owned() + "\n")
    };
    Ok((block("```toml\n")?, block("```rust\n")?))
}

/// The library quick start, pasted into a fresh crate beside the copy `repo`, built and run.
fn run_library_quick_start(markdown: &str, repo: &Path, temp: &Path) -> Result<(), String> {
    let (toml, main) = library_quick_start(markdown)?;
    const GIT: &str = "git = \"https://github.com/agentwarden/agentwarden\"";
    if !toml.contains(GIT) {
        return Err(format!("the library quick start's Cargo.toml lines do not say `{GIT}`"));
    }
    let crate_dir = temp.join("guarded");
    let write = |path: &Path, text: &str| {
        std::fs::create_dir_all(path.parent().unwrap_or(temp))
            .map_err(|e| format!("{}: {e}", path.display()))?;
        std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
    };
    let manifest = format!(
        "[package]\nname = \"guarded\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n[workspace]\n\n{}",
        toml.replace(GIT, &format!("path = \"{}\"", repo.join("app").display()))
    );
    write(&crate_dir.join("Cargo.toml"), &manifest)?;
    write(&crate_dir.join("src/main.rs"), &main)?;
    std::fs::copy(repo.join("Cargo.lock"), crate_dir.join("Cargo.lock"))
        .map_err(|e| format!("Cargo.lock: {e}"))?;
    println!(
        "\n==> README.md \"Library quick start\": a fresh crate in {}, built and run",
        crate_dir.display()
    );
    let status = Command::new(crate::cargo())
        .args(["run", "--quiet", "--offline"])
        .current_dir(&crate_dir)
        .env("CARGO_TARGET_DIR", root().join("target/readme-library"))
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("the library quick start, pasted into a fresh crate, failed ({status})"))
    }
}

/// The documents whose blocks run: README.md, then every guide of `docs/` by name.
fn documents(root: &Path) -> Result<Vec<String>, String> {
    let dir = root.join("docs");
    let mut guides: Vec<String> = std::fs::read_dir(&dir)
        .map_err(|e| format!("cannot list {}: {e}", dir.display()))?
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("docs/{name}"))
        .collect();
    guides.sort();
    Ok(std::iter::once("README.md".to_owned()).chain(guides).collect())
}

pub(crate) fn run() -> Result<(), String> {
    let started = Instant::now();
    let root = root();
    crate::links::check(&root)?;
    let read =
        |file: &str| std::fs::read_to_string(root.join(file)).map_err(|e| format!("cannot read {file}: {e}"));
    let markdown = read("README.md")?;
    let documents = documents(&root)?;
    let mut blocks = Vec::new();
    for document in &documents {
        blocks.extend(self::blocks(document, &read(document)?)?);
    }
    let warden = crate::demo::build_warden()?;
    let temp = TempDir::new()?;
    let repo = temp.0.join("repo");
    let tmp = temp.0.join("tmp");
    std::fs::create_dir_all(&tmp).map_err(|e| format!("cannot create {}: {e}", tmp.display()))?;
    copy_repo(&root, &repo)?;
    println!("==> a copy of the repository in {}", repo.display());
    let bin = bin_dir(&temp.0, &warden)?;
    let path = match std::env::var_os("PATH") {
        Some(path) => format!("{}:{}", bin.display(), path.to_string_lossy()),
        None => bin.display().to_string(),
    };
    println!("\n==> the demo's store, as `cargo xtask demo` makes it");
    crate::demo::examples(&warden, &repo)?;
    let mut skipped = 0;
    for block in &blocks {
        skipped += usize::from(matches!(block.expect, Expect::Skip(_)));
        run_block(block, &repo, &path, &tmp)?;
    }
    run_library_quick_start(&markdown, &repo, &temp.0)?;
    println!(
        "\nxtask readme: {} blocks of {} files ran as written, {skipped} SKIPPED (reasons above), in {:.0} s",
        blocks.len() - skipped,
        documents.len(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{Expect, blocks};

    #[test]
    fn blocks_are_found_with_their_heading_and_annotation() {
        let md = "# A\n\n```sh\nwarden gate\n```\n\n## B\n<!-- readme: skip needs root -->\n```sh\n  sudo x\n```\n\
                  ```toml\n[x]\n```\n<!-- readme: exit 1 a deny -->\n\n```sh\nwarden authorize\n```\n";
        let found = blocks("docs/guide.md", md).unwrap();
        assert_eq!(found.len(), 3);
        assert_eq!(
            (found[0].file.as_str(), found[0].line, found[0].heading.as_str(), found[0].script.as_str()),
            ("docs/guide.md", 3, "A", "warden gate\n")
        );
        assert_eq!(found[0].expect, Expect::Exit(0));
        assert_eq!(found[1].expect, Expect::Skip("needs root".into()));
        assert_eq!(found[1].script, "sudo x\n");
        assert_eq!(found[2].expect, Expect::Exit(1));
    }

    #[test]
    fn the_library_quick_start_is_its_toml_and_rust_blocks() {
        let md = "# T\n\n## Library quick start\n\ntext\n\n```toml\n[dependencies]\nx = 1\n```\n\n```rust\nfn main() {}\n```\n\n## Next\n```rust\nno\n```\n";
        let (toml, rust) = super::library_quick_start(md).unwrap();
        assert_eq!((toml.as_str(), rust.as_str()), ("[dependencies]\nx = 1\n", "fn main() {}\n"));
        assert!(super::library_quick_start("# T\n## Other\n").is_err());
        assert!(super::library_quick_start("## Library quick start\n```rust\nfn main() {}\n```\n").is_err());
    }

    #[test]
    fn a_bad_annotation_or_an_unclosed_block_is_an_error() {
        let blocks = |md| blocks("docs/guide.md", md);
        assert!(blocks("<!-- readme: skip -->\n```sh\nx\n```\n").is_err());
        assert!(blocks("<!-- readme: exit one -->\n```sh\nx\n```\n").is_err());
        assert!(blocks("<!-- readme: sometimes -->\n```sh\nx\n```\n").is_err());
        assert!(blocks("```sh\nx\n").is_err_and(|e| e.starts_with("docs/guide.md:1:")), "named by its file");
    }
}
