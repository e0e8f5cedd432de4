//! `cargo xtask bench cedar`: the domain gate against Cedar's `is_authorized` on the same
//! policy (issue 20, X-60). `xtask/cedar-bench/` is a crate outside the workspace with its own
//! `Cargo.lock` (Cedar never enters the workspace's graph); this runs its test first (both
//! engines decide every case alike, X-61), then its criterion bench in release, in a target
//! directory of its own (`$CARGO_TARGET_DIR/cedar-bench`), and prints each pair of medians with
//! their ratio. Not a step of `cargo xtask ci`: the first build compiles Cedar (minutes).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cargo;
use crate::measure::{exec, human_ns, median_ns_in, target_dir};

/// The bench crate's manifest, relative to the workspace root.
const MANIFEST: &str = "xtask/cedar-bench/Cargo.toml";

/// The floor: the domain gate at least this many times faster than Cedar.
const TARGET: f64 = 3.5;

/// One row: what is compared, the criterion group, and the functions' suffix (each group has
/// `domain_…` and `cedar_…`).
const ROWS: [(&str, &str, &str); 4] = [
    ("pre-parsed, 4 candidates (1 evaluate | 4 is_authorized)", "cedar_pre_parsed", "every_candidate"),
    ("pre-parsed, 1 candidate (1 evaluate | 1 is_authorized)", "cedar_pre_parsed", "one_candidate"),
    ("from text, 4 candidates (parse + evaluate | parse + 4 ×)", "cedar_from_text", "every_candidate"),
    ("from text, 1 candidate", "cedar_from_text", "one_candidate"),
];

/// The version of `package` in a `Cargo.lock`'s text.
fn locked_version(lock: &str, package: &str) -> Option<String> {
    let mut lines = lock.lines().skip_while(|l| l.trim() != format!("name = \"{package}\""));
    lines.next()?;
    let version = lines.next()?.trim().strip_prefix("version = \"")?.strip_suffix('"')?;
    Some(version.to_owned())
}

/// The 1-, 5- and 15-minute load averages, to print beside figures from a shared machine.
fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".to_owned())
}

/// `$CARGO_TARGET_DIR/cedar-bench` (or `target/cedar-bench`), absolute: criterion writes its
/// reports under the target directory cargo gives it.
fn bench_target() -> PathBuf {
    let dir = target_dir().join("cedar-bench");
    std::path::absolute(&dir).unwrap_or(dir)
}

pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let root = crate::root();
    let target = bench_target();
    let manifest = root.join(MANIFEST);
    println!("$ cargo test --release --locked --manifest-path {MANIFEST}");
    exec(
        Command::new(cargo())
            .current_dir(&root)
            .env("CARGO_TARGET_DIR", &target)
            .args(["test", "--release", "--locked", "--manifest-path"])
            .arg(&manifest),
    )?;
    let load_before = load();
    println!("$ cargo bench --locked --manifest-path {MANIFEST} --bench cedar -- {}", args.join(" "));
    exec(
        Command::new(cargo())
            .current_dir(&root)
            .env("CARGO_TARGET_DIR", &target)
            .args(["bench", "--locked", "--manifest-path"])
            .arg(&manifest)
            .args(["--bench", "cedar", "--"])
            .args(args),
    )?;
    let lock = std::fs::read_to_string(root.join("xtask/cedar-bench/Cargo.lock")).unwrap_or_default();
    let cedar = locked_version(&lock, "cedar-policy").unwrap_or_else(|| "?".to_owned());
    print_rows(&target.join("criterion"), &cedar, &load_before, &load());
    Ok(())
}

fn print_rows(criterion: &Path, cedar: &str, load_before: &str, load_after: &str) {
    println!(
        "\nThe domain gate against Cedar {cedar} (`is_authorized`), the same policy, medians of one run \
         (load average {load_before} before, {load_after} after); ratio = Cedar / domain\n"
    );
    println!("{:<58} {:>12} {:>12} {:>7} {:>7}  verdict", "comparison", "domain", "Cedar", "ratio", "target");
    for (what, group, suffix) in ROWS {
        let domain = median_ns_in(criterion, group, &format!("domain_{suffix}"));
        let cedar = median_ns_in(criterion, group, &format!("cedar_{suffix}"));
        match (domain, cedar) {
            (Ok(domain), Ok(cedar)) => {
                let ratio = cedar / domain;
                println!(
                    "{what:<58} {:>12} {:>12} {ratio:>7.2} {TARGET:>7.1}  {}",
                    human_ns(domain),
                    human_ns(cedar),
                    if ratio >= TARGET { "PASS" } else { "MISS" }
                );
            }
            (a, b) => println!("{what:<58} missing: {:?} {:?}", a.err(), b.err()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::locked_version;

    #[test]
    fn the_locked_version_is_read_from_the_package_entry() {
        let lock = "[[package]]\nname = \"cedar-policy-core\"\nversion = \"9.9.9\"\n\n\
                    [[package]]\nname = \"cedar-policy\"\nversion = \"4.14.1\"\nsource = \"registry\"\n";
        assert_eq!(locked_version(lock, "cedar-policy").as_deref(), Some("4.14.1"));
        assert_eq!(locked_version(lock, "criterion"), None);
    }

    #[test]
    fn the_bench_crate_pins_cedar_and_stays_out_of_the_workspace() {
        let root = crate::root();
        let manifest = std::fs::read_to_string(root.join(super::MANIFEST)).unwrap();
        assert!(manifest.contains("cedar-policy = \"="), "Cedar is pinned with `=`");
        assert!(manifest.lines().any(|l| l.trim() == "[workspace]"), "a workspace of its own");
        let workspace = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
        assert!(workspace.contains("\"xtask/cedar-bench\""), "the root manifest excludes it");
        let lock = std::fs::read_to_string(root.join("Cargo.lock")).unwrap();
        assert_eq!(locked_version(&lock, "cedar-policy"), None, "Cedar is not in the workspace's lock");
        let ours = std::fs::read_to_string(root.join("xtask/cedar-bench/Cargo.lock")).unwrap();
        assert_eq!(
            locked_version(&ours, "criterion"),
            locked_version(&lock, "criterion"),
            "the workspace's criterion"
        );
    }
}
