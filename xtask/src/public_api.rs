//! `cargo xtask public-api [--bless]`: the public API of the library crates a consumer uses,
//! one file per crate under `docs/public-api/`, so a change to the surface is deliberate (X-31,
//! issue 22). Each crate's rustdoc JSON is built by stable rustdoc (`RUSTC_BOOTSTRAP=1`, in a
//! target directory of its own so the normal build is not invalidated) and rendered, one item
//! per line with its signature, by `xtask-public-api` (this package's binary behind the
//! `public-api` feature: `cargo xtask` itself stays free of dependencies). Without `--bless`
//! the rendering is compared with the file and every crate whose surface moved is named;
//! `--bless` writes the files.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// One snapshot: a package, the features it is documented with, and its file.
struct Surface {
    package: &'static str,
    /// The cargo arguments that choose its features (X-31: every feature a library consumer
    /// can turn on, not the binary's `cli`, not the test aid `mocks`).
    features: &'static [&'static str],
}

/// The library crates a consumer or the command line links: the library, the
/// resident service's protocol and server (another client or host builds on them), each
/// harness's integration with its `setup` and `doctor` features (what `warden init` and `warden
/// doctor` call), the doctor, the report, the witness, the confinement launcher's library and
/// the hook client's (with `doctor`, its registry as the command line links it). Not `agentwarden-tests`, `xtask` or the fuzz targets (nobody depends on
/// them), nor the command line's crate (a binary: its surface is its help, `docs/reference`).
const SURFACES: &[Surface] = &[
    Surface { package: "agentwarden", features: &["--features", "postgres,conformance"] },
    Surface { package: "agentwarden-domain", features: &[] },
    Surface { package: "agentwarden-ports", features: &["--features", "conformance"] },
    Surface { package: "agentwarden-adapters", features: &["--features", "postgres"] },
    Surface { package: "agentwarden-claude-code", features: &["--features", "doctor"] },
    Surface { package: "agentwarden-codex", features: &["--features", "setup,doctor"] },
    Surface { package: "agentwarden-gemini", features: &["--features", "setup,doctor"] },
    Surface { package: "agentwarden-copilot", features: &["--features", "setup,doctor"] },
    Surface { package: "agentwarden-protocol", features: &[] },
    Surface { package: "agentwarden-server", features: &[] },
    Surface { package: "agentwarden-doctor", features: &["--features", "postgres"] },
    Surface { package: "agentwarden-report", features: &[] },
    Surface { package: "agentwarden-witness", features: &[] },
    Surface { package: "agentwarden-confine", features: &[] },
    Surface { package: "agentwarden-hook-client", features: &["--features", "doctor"] },
];

/// Where the snapshots live, relative to the workspace root.
const DIR: &str = "docs/public-api";

/// What fixes a stale snapshot.
const FIX: &str = "run `cargo xtask public-api --bless` and review the diff";

pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let bless = match args {
        [] => false,
        [flag] if flag == "--bless" => true,
        _ => {
            return Err(format!(
                "public-api: unknown arguments `{}`; usage: cargo xtask public-api [--bless]",
                args.join(" ")
            ));
        }
    };
    let started = Instant::now();
    let root = crate::root();
    let target = target_dir(&root);
    let mut stale = Vec::new();
    for surface in SURFACES {
        let rendered = render(surface, &root, &target)?;
        let file = root.join(DIR).join(format!("{}.txt", surface.package));
        if bless {
            write(&file, &rendered)?;
            println!("==> wrote {DIR}/{}.txt ({} items)", surface.package, rendered.lines().count());
            continue;
        }
        let committed = match std::fs::read_to_string(&file) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(format!("cannot read {}: {e}", file.display())),
        };
        if let Some(reason) = stale_reason(surface.package, &committed, &rendered) {
            print_diff(&diff(&committed, &rendered));
            stale.push(reason);
        }
    }
    let secs = started.elapsed().as_secs_f64();
    match stale.as_slice() {
        [] => {
            println!("==> public API: {} crates as {DIR}/ says ({secs:.1} s)", SURFACES.len());
            Ok(())
        }
        [one] => Err(one.clone()),
        many => {
            for reason in many {
                eprintln!("==> {reason}");
            }
            Err(format!("{} crates' public API changed (named above): {FIX}", many.len()))
        }
    }
}

/// `$CARGO_TARGET_DIR/public-api`, else `target/public-api`: rustdoc JSON needs
/// `RUSTC_BOOTSTRAP=1`, and cargo rebuilds what it built without it (the proc macros first), so
/// in the normal target directory every check would invalidate the normal build.
fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from).join("public-api")
}

/// The crate's public API, one item per line: its rustdoc JSON, rendered by `xtask-public-api`.
fn render(surface: &Surface, root: &Path, target: &Path) -> Result<String, String> {
    let package = surface.package;
    println!("==> public API of `{package}`: cargo rustdoc -p {package} {}", surface.features.join(" "));
    let status = Command::new(crate::cargo())
        .current_dir(root)
        .env("CARGO_TARGET_DIR", target)
        .env("RUSTC_BOOTSTRAP", "1")
        .args(["rustdoc", "--quiet", "--locked", "-p", package, "--lib"])
        .args(surface.features)
        .args(["--", "-Z", "unstable-options", "--output-format", "json"])
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err(format!("the rustdoc JSON of `{package}` failed ({status})"));
    }
    let json = target.join("doc").join(format!("{}.json", package.replace('-', "_")));
    let output = Command::new(crate::cargo())
        .current_dir(root)
        .env("CARGO_TARGET_DIR", target)
        // The same as the rustdoc's: the proc macros both share are then built once, not again
        // each time one follows the other.
        .env("RUSTC_BOOTSTRAP", "1")
        .args(["run", "--quiet", "--locked", "--manifest-path", "xtask/public-api/Cargo.toml", "--"])
        .arg(&json)
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "rendering the public API of `{package}` failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    String::from_utf8(output.stdout).map_err(|e| format!("the public API of `{package}` is not UTF-8: {e}"))
}

fn write(file: &Path, rendered: &str) -> Result<(), String> {
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    std::fs::write(file, rendered).map_err(|e| format!("cannot write {}: {e}", file.display()))
}

/// The lines one text has and the other has not, each counted (an item twice is two lines).
#[derive(Debug, Default, PartialEq)]
struct Diff {
    removed: Vec<String>,
    added: Vec<String>,
}

fn diff(committed: &str, rendered: &str) -> Diff {
    let mut count: BTreeMap<&str, i64> = BTreeMap::new();
    for line in committed.lines() {
        *count.entry(line).or_default() -= 1;
    }
    for line in rendered.lines() {
        *count.entry(line).or_default() += 1;
    }
    let mut out = Diff::default();
    for (line, n) in count {
        let side = if n < 0 { &mut out.removed } else { &mut out.added };
        side.extend(std::iter::repeat_n(
            line.to_owned(),
            usize::try_from(n.unsigned_abs()).unwrap_or(usize::MAX),
        ));
    }
    out
}

fn print_diff(diff: &Diff) {
    for line in &diff.removed {
        println!("- {line}");
    }
    for line in &diff.added {
        println!("+ {line}");
    }
}

/// Why the committed snapshot is not the rendering, in one line naming the crate; `None`
/// when it is, byte for byte (a reordering or a lost newline is stale too).
fn stale_reason(package: &str, committed: &str, rendered: &str) -> Option<String> {
    if committed == rendered {
        return None;
    }
    let file = format!("{DIR}/{package}.txt");
    let Diff { removed, added } = diff(committed, rendered);
    Some(if committed.is_empty() {
        format!("public API of `{package}`: {file} is missing or empty: {FIX}")
    } else if removed.is_empty() && added.is_empty() {
        format!("public API of `{package}`: {file} holds the same items in another order or layout: {FIX}")
    } else {
        format!(
            "public API of `{package}` changed ({} added, {} removed, vs {file}): {FIX}",
            added.len(),
            removed.len()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::{Diff, SURFACES, diff, stale_reason};

    const SNAPSHOT: &str =
        "pub fn agentwarden::Warden::gate(&self, &str) -> bool\npub struct agentwarden::Warden\n";

    #[test]
    fn the_same_rendering_is_not_stale() {
        assert_eq!(stale_reason("agentwarden", SNAPSHOT, SNAPSHOT), None);
        assert_eq!(diff(SNAPSHOT, SNAPSHOT), Diff::default());
    }

    #[test]
    fn a_changed_signature_is_a_line_removed_and_one_added_naming_the_crate() {
        let changed = SNAPSHOT.replace("-> bool", "-> u8");
        let d = diff(SNAPSHOT, &changed);
        assert_eq!(d.removed, ["pub fn agentwarden::Warden::gate(&self, &str) -> bool"]);
        assert_eq!(d.added, ["pub fn agentwarden::Warden::gate(&self, &str) -> u8"]);
        let reason = stale_reason("agentwarden", SNAPSHOT, &changed).unwrap();
        assert_eq!(
            reason,
            "public API of `agentwarden` changed (1 added, 1 removed, vs docs/public-api/agentwarden.txt): \
             run `cargo xtask public-api --bless` and review the diff"
        );
        assert!(!reason.contains('\n'));
    }

    #[test]
    fn a_new_item_a_lost_item_a_reordering_and_a_missing_file_are_each_stale() {
        let added = format!("{SNAPSHOT}pub struct agentwarden::Warden::new_field: u8\n");
        assert!(
            stale_reason("agentwarden-domain", SNAPSHOT, &added)
                .unwrap()
                .contains("`agentwarden-domain` changed (1 added, 0 removed")
        );
        assert!(
            stale_reason("agentwarden-domain", &added, SNAPSHOT).unwrap().contains("(0 added, 1 removed")
        );
        let reordered: String = SNAPSHOT.lines().rev().map(|l| format!("{l}\n")).collect();
        assert!(stale_reason("agentwarden-ports", SNAPSHOT, &reordered).unwrap().contains("another order"));
        assert!(
            stale_reason("agentwarden-ports", SNAPSHOT, SNAPSHOT.trim_end()).is_some(),
            "a lost final newline"
        );
        assert!(stale_reason("agentwarden-adapters", "", SNAPSHOT).unwrap().contains("missing or empty"));
    }

    #[test]
    fn an_item_listed_twice_counts_twice() {
        let twice = format!("{SNAPSHOT}pub struct agentwarden::Warden\n");
        assert_eq!(diff(SNAPSHOT, &twice).added, ["pub struct agentwarden::Warden"]);
    }

    #[test]
    fn the_library_crates_are_snapshotted_and_the_binarys_features_are_not() {
        let packages: Vec<&str> = SURFACES.iter().map(|s| s.package).collect();
        assert_eq!(
            packages,
            [
                "agentwarden",
                "agentwarden-domain",
                "agentwarden-ports",
                "agentwarden-adapters",
                "agentwarden-claude-code",
                "agentwarden-codex",
                "agentwarden-gemini",
                "agentwarden-copilot",
                "agentwarden-protocol",
                "agentwarden-server",
                "agentwarden-doctor",
                "agentwarden-report",
                "agentwarden-witness",
                "agentwarden-confine",
                "agentwarden-hook-client"
            ]
        );
        for surface in SURFACES {
            assert!(
                !surface.features.iter().any(|f| f.contains("cli") || f.contains("mocks")),
                "{}",
                surface.package
            );
        }
        let app = SURFACES.iter().find(|s| s.package == "agentwarden").unwrap();
        assert!(
            app.features.iter().any(|f| f.contains("postgres")),
            "the fleet store is part of what a consumer can use"
        );
        assert!(
            app.features.iter().any(|f| f.contains("conformance")),
            "the harness conformance suite is part of what an integration uses"
        );
        for harness in
            ["agentwarden-claude-code", "agentwarden-codex", "agentwarden-gemini", "agentwarden-copilot"]
        {
            let surface = SURFACES.iter().find(|s| s.package == harness).unwrap();
            assert!(
                surface.features.iter().any(|f| f.contains("doctor")),
                "{harness}: what `warden init` and `warden doctor` call is part of its surface (X-100)"
            );
        }
    }
}
