//! `cargo xtask reference [--check | --bless]`: the CLI reference checked in under `docs/man/`
//! (`warden.1` and one page per subcommand) and `docs/completions/` (bash, zsh, fish) is what
//! the clap definitions generate (N-9). xtask has no workspace dependency, so the generation
//! runs through the `warden` binary it builds: the hidden `warden manpages DIR` and `warden
//! completions SHELL`. `--check` (the default, a step of `cargo xtask ci`) names every file that
//! is stale, missing or no longer generated; `--bless` rewrites both directories.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where the manual pages live, relative to the workspace root.
const MAN: &str = "docs/man";
/// Where the completion scripts live, relative to the workspace root.
const COMPLETIONS: &str = "docs/completions";
/// Each shell and the file its script is checked in as (the names each shell looks for).
const SHELLS: &[(&str, &str)] = &[("bash", "warden.bash"), ("zsh", "_warden"), ("fish", "warden.fish")];
/// What fixes a stale reference.
const FIX: &str = "run `cargo xtask reference --bless` and commit the result";

pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let bless = match args {
        [] => false,
        [flag] if flag == "--check" => false,
        [flag] if flag == "--bless" => true,
        _ => {
            return Err(format!(
                "reference: unknown arguments `{}`; usage: cargo xtask reference [--check | --bless]",
                args.join(" ")
            ));
        }
    };
    let warden = crate::demo::build_warden()?;
    let root = crate::root();
    let scratch = crate::measure::target_dir().join("reference");
    let _ = std::fs::remove_dir_all(&scratch);
    let (man, completions) = generate(&warden, &scratch)?;
    if bless {
        write_all(&root.join(MAN), &man)?;
        write_all(&root.join(COMPLETIONS), &completions)?;
        println!("==> wrote {MAN}/ ({} pages) and {COMPLETIONS}/ ({} scripts)", man.len(), completions.len());
        return Ok(());
    }
    let mut problems = differences(MAN, &read_all(&root.join(MAN))?, &man);
    problems.extend(differences(COMPLETIONS, &read_all(&root.join(COMPLETIONS))?, &completions));
    if problems.is_empty() {
        println!("==> reference: {MAN}/ ({} pages) and {COMPLETIONS}/ are current", man.len());
        Ok(())
    } else {
        Err(format!("the CLI reference is not what `warden` generates: {}; {FIX}", problems.join("; ")))
    }
}

/// The manual pages and the completion scripts `warden` generates, by file name.
#[expect(clippy::type_complexity, reason = "two maps of file name to content, named at the call")]
fn generate(
    warden: &Path,
    scratch: &Path,
) -> Result<(BTreeMap<String, Vec<u8>>, BTreeMap<String, Vec<u8>>), String> {
    let dir = scratch.join("man");
    println!("==> {} manpages {}", warden.display(), dir.display());
    output(Command::new(warden).arg("manpages").arg(&dir))?;
    let man = read_all(&dir)?;
    if !man.contains_key("warden.1") {
        return Err(format!("`warden manpages` wrote no warden.1 into {}", dir.display()));
    }
    let mut completions = BTreeMap::new();
    for (shell, file) in SHELLS {
        println!("==> {} completions {shell}", warden.display());
        let script = output(Command::new(warden).args(["completions", shell]))?;
        completions.insert((*file).to_owned(), script);
    }
    Ok((man, completions))
}

/// The stdout of a command that must succeed.
fn output(command: &mut Command) -> Result<Vec<u8>, String> {
    let shown = format!("{command:?}");
    let out =
        command.env_remove("AGENTWARDEN_STORE").output().map_err(|e| format!("cannot run {shown}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{shown} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(out.stdout)
}

/// Every file of `dir` by name (none when it does not exist).
fn read_all(dir: &Path) -> Result<BTreeMap<String, Vec<u8>>, String> {
    let mut files = BTreeMap::new();
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(files),
        Err(e) => return Err(format!("cannot list {}: {e}", dir.display())),
    };
    for entry in entries {
        let path = entry.map_err(|e| format!("cannot list {}: {e}", dir.display()))?.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()).map(str::to_owned) else { continue };
        if path.is_file() {
            let bytes = std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            files.insert(name, bytes);
        }
    }
    Ok(files)
}

/// Replaces the files of `dir` with `files`.
fn write_all(dir: &PathBuf, files: &BTreeMap<String, Vec<u8>>) -> Result<(), String> {
    for name in read_all(dir)?.keys() {
        std::fs::remove_file(dir.join(name))
            .map_err(|e| format!("cannot remove {}/{name}: {e}", dir.display()))?;
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    for (name, bytes) in files {
        std::fs::write(dir.join(name), bytes)
            .map_err(|e| format!("cannot write {}/{name}: {e}", dir.display()))?;
    }
    Ok(())
}

/// What differs between the files checked in under `dir` and the generated ones, one phrase
/// per file.
fn differences(
    dir: &str,
    checked_in: &BTreeMap<String, Vec<u8>>,
    generated: &BTreeMap<String, Vec<u8>>,
) -> Vec<String> {
    let mut problems = Vec::new();
    for (name, bytes) in generated {
        match checked_in.get(name) {
            None => problems.push(format!("{dir}/{name} is missing")),
            Some(held) if held != bytes => problems.push(format!("{dir}/{name} is stale")),
            Some(_) => {}
        }
    }
    for name in checked_in.keys().filter(|name| !generated.contains_key(*name)) {
        problems.push(format!("{dir}/{name} is no longer generated"));
    }
    problems
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::differences;

    fn files(entries: &[(&str, &str)]) -> BTreeMap<String, Vec<u8>> {
        entries.iter().map(|(name, text)| ((*name).to_owned(), text.as_bytes().to_vec())).collect()
    }

    /// Files checked in, files generated, the problems expected, and why.
    type Row = (
        &'static [(&'static str, &'static str)],
        &'static [(&'static str, &'static str)],
        &'static [&'static str],
        &'static str,
    );

    #[test]
    fn each_stale_missing_or_extra_file_is_named() {
        let rows: &[Row] = &[
            (&[("warden.1", "a")], &[("warden.1", "a")], &[], "the same bytes: current"),
            (&[("warden.1", "a")], &[("warden.1", "b")], &["d/warden.1 is stale"], "an edited page"),
            (&[], &[("warden.1", "a")], &["d/warden.1 is missing"], "a new subcommand's page"),
            (
                &[("warden.1", "a"), ("warden-gone.1", "x")],
                &[("warden.1", "a")],
                &["d/warden-gone.1 is no longer generated"],
                "a removed subcommand's page stays behind",
            ),
        ];
        for (held, made, expected, why) in rows {
            assert_eq!(differences("d", &files(held), &files(made)), *expected, "{why}");
        }
    }
}
