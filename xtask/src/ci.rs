//! `cargo xtask ci`: the one gate (format, clippy, tests, the real Claude Code suite, the
//! README's and the guides' commands, docs, the public API's snapshots, the CLI reference,
//! benches, supply chain). Each step prints
//! what it runs; a failing step names the command that fixes or reproduces it.

use std::process::Command;
use std::time::Instant;

use crate::cargo;
use crate::claude_code::{self, CannotRun};

struct Step {
    name: &'static str,
    args: &'static [&'static str],
    env: &'static [(&'static str, &'static str)],
    fix: &'static str,
}

const FMT: Step =
    Step { name: "format", args: &["fmt", "--all", "--", "--check"], env: &[], fix: "run `cargo fmt --all`" };

const CLIPPY: Step = Step {
    name: "clippy",
    args: &["clippy", "--workspace", "--all-targets", "--all-features", "--locked", "--", "-D", "warnings"],
    env: &[],
    fix: "see the warnings above; reproduce with `cargo clippy --workspace --all-targets --all-features`",
};

/// The library as a consumer builds it, without the CLI and PostgreSQL: it compiles
/// without warnings and its own tests pass (a PostgreSQL URL is then refused) (X-23).
const LIBRARY_ALONE: Step = Step {
    name: "library alone (no default features)",
    args: &[
        "clippy",
        "-p",
        "agentwarden",
        "--no-default-features",
        "--lib",
        "--locked",
        "--",
        "-D",
        "warnings",
    ],
    env: &[],
    fix: "reproduce with `cargo clippy -p agentwarden --no-default-features --lib`",
};

const LIBRARY_ALONE_TESTS: Step = Step {
    name: "library alone: its tests",
    args: &["test", "-p", "agentwarden", "--no-default-features", "--lib", "--locked"],
    env: &[],
    fix: "reproduce with `cargo test -p agentwarden --no-default-features --lib`",
};

const NEXTEST: Step = Step {
    name: "tests (nextest)",
    args: &["nextest", "run", "--workspace", "--all-features", "--locked", "--no-fail-fast"],
    env: &[],
    fix: "reproduce with `cargo nextest run --workspace --all-features`",
};

/// The PostgreSQL test binaries (they need `AGENTWARDEN_TEST_PG`, see `tests/src/pg.rs`).
const PG_TESTS: &[&str] = &["pg_store", "pg_fleet", "cli_postgres"];

/// The tests without the PostgreSQL binaries, when no server answers outside CI: they are then
/// not run at all, and the summary says so, rather than each passing after printing SKIPPED.
const NEXTEST_NO_PG: Step = Step {
    name: "tests (nextest, without PostgreSQL)",
    args: &[
        "nextest",
        "run",
        "--workspace",
        "--all-features",
        "--locked",
        "--no-fail-fast",
        "-E",
        "not (binary(=pg_store) | binary(=pg_fleet) | binary(=cli_postgres))",
    ],
    env: &[],
    fix: "reproduce with `cargo nextest run --workspace --all-features`",
};

const DOCTEST: Step = Step {
    name: "doc tests",
    args: &["test", "--workspace", "--all-features", "--locked", "--doc"],
    env: &[],
    fix: "reproduce with `cargo test --workspace --doc`",
};

const CARGO_TEST: Step = Step {
    name: "tests (cargo test)",
    args: &["test", "--workspace", "--all-features", "--locked", "--no-fail-fast"],
    env: &[],
    fix: "reproduce with `cargo test --workspace --all-features`",
};

const DOCS: Step = Step {
    name: "docs",
    args: &["doc", "--workspace", "--no-deps", "--all-features", "--locked"],
    env: &[("RUSTDOCFLAGS", "-D warnings")],
    fix: "reproduce with `RUSTDOCFLAGS='-D warnings' cargo doc --workspace --no-deps`",
};

const BENCHES: Step = Step {
    name: "benches compile",
    args: &["test", "--workspace", "--benches", "--no-run", "--locked"],
    env: &[],
    fix: "reproduce with `cargo test --workspace --benches --no-run`",
};

const DENY_POLICY: Step = Step {
    name: "supply chain: bans, licenses, sources",
    args: &["deny", "--locked", "check", "bans", "licenses", "sources"],
    env: &[],
    fix: "see deny.toml; reproduce with `cargo deny check bans licenses sources`",
};

const DENY_ADVISORIES: Step = Step {
    name: "supply chain: advisories",
    args: &["deny", "--locked", "check", "--disable-fetch", "advisories"],
    env: &[],
    fix: "upgrade the crate, or review the advisory and add it to deny.toml's ignore list with a reason",
};

/// Set to fail the gate when the RustSec database cannot be fetched.
const REQUIRE_ADVISORIES: &str = "AGENTWARDEN_REQUIRE_ADVISORIES";

fn run_step(step: &Step) -> Result<(), String> {
    println!("\n==> {}: cargo {}", step.name, step.args.join(" "));
    let started = Instant::now();
    let status = Command::new(cargo())
        .args(step.args)
        .envs(step.env.iter().copied())
        .status()
        .map_err(|e| format!("{}: cannot run cargo: {e}", step.name))?;
    let secs = started.elapsed().as_secs_f64();
    if status.success() {
        println!("==> {}: ok ({secs:.1} s)", step.name);
        Ok(())
    } else {
        Err(format!("{} failed ({status}, {secs:.1} s): {}", step.name, step.fix))
    }
}

/// Every example of the library (`app/examples/*.rs`, one per capability) runs to its end:
/// each asserts what it shows, so an example that no longer does what its doc says fails here.
fn examples() -> Result<(), String> {
    let dir = crate::root().join("app/examples");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.strip_suffix(".rs").map(str::to_owned))
        .collect();
    names.sort();
    if names.is_empty() {
        return Err(format!("no example in {}: the library's examples step ran nothing", dir.display()));
    }
    for name in &names {
        let args = ["run", "--quiet", "--locked", "-p", "agentwarden", "--example", name];
        println!("\n==> example {name}: cargo {}", args.join(" "));
        let started = Instant::now();
        let status = Command::new(cargo())
            .args(args)
            .status()
            .map_err(|e| format!("example {name}: cannot run cargo: {e}"))?;
        if !status.success() {
            return Err(format!(
                "example {name} failed ({status}): reproduce with `cargo run -p agentwarden --example {name}`"
            ));
        }
        println!("==> example {name}: ok ({:.1} s)", started.elapsed().as_secs_f64());
    }
    Ok(())
}

/// `cargo xtask install --debug --root target/install-check --check`, as a user runs it (V-43).
fn installed_client() -> Result<(), String> {
    println!("\n==> installed client: cargo xtask install --debug --root target/install-check --check");
    let root = crate::measure::target_dir().join("install-check");
    let _ = std::fs::remove_dir_all(&root);
    let args = ["--debug", "--root", &root.to_string_lossy(), "--check"].map(str::to_owned);
    crate::install::run(&args).map_err(|e| {
        format!(
            "installed client: {e}; reproduce with `cargo xtask install --debug --root target/install-check --check`"
        )
    })
}

/// `cargo deny` (installed when missing): the policy checks always; the advisories when the
/// RustSec database can be fetched. Where it cannot (the build machines reach only package
/// registries, not github.com), the output says the advisories were not checked, and
/// `AGENTWARDEN_REQUIRE_ADVISORIES=1` makes that a failure.
fn supply_chain() -> Result<(), String> {
    crate::ensure_cargo_tool("deny", "cargo-deny")
        .map_err(|e| format!("{e}: the supply-chain check cannot run"))?;
    run_step(&DENY_POLICY)?;
    println!("\n==> fetching the RustSec advisory database");
    let fetched = Command::new(cargo()).args(["deny", "fetch", "db"]).status().is_ok_and(|s| s.success());
    if fetched {
        return run_step(&DENY_ADVISORIES);
    }
    let why = "the RustSec advisory database could not be fetched";
    if std::env::var_os(REQUIRE_ADVISORIES).is_some() {
        return Err(format!("supply chain: advisories: {why} and {REQUIRE_ADVISORIES} is set"));
    }
    println!("==> supply chain: advisories NOT CHECKED: {why} (set {REQUIRE_ADVISORIES}=1 to fail here)");
    Ok(())
}

/// The real-client suite, a step of its own (its tests are `#[ignore]`d, so the test steps
/// above do not run them: H-40). `Ok(Some(why))`: skipped, outside CI only (H-41).
fn real_claude_code() -> Result<Option<String>, String> {
    println!("\n==> real Claude Code: installing the pinned CLI when absent");
    match claude_code::install() {
        Ok(binary) => claude_code::run_suite(&binary).map(|()| None),
        Err(cannot) => skip_or_fail(cannot, claude_code::under_ci()),
    }
}

/// The Codex real-client suite, the same way (issue 36, H-41).
fn real_codex() -> Result<Option<String>, String> {
    println!("\n==> real Codex: installing the pinned CLI when absent");
    match crate::codex::install() {
        Ok(binary) => crate::codex::run_suite(&binary).map(|()| None),
        Err(cannot) => skip_or_fail_named("Codex", cannot, claude_code::under_ci()),
    }
}

/// The Gemini CLI real-client suite, the same way (issue 40, H-41): a missing `node` is a
/// suite that cannot run.
fn real_gemini() -> Result<Option<String>, String> {
    println!("\n==> real Gemini CLI: installing the pinned CLI when absent");
    match crate::gemini::install() {
        Ok(script) => crate::gemini::run_suite(&script).map(|()| None),
        Err(cannot) => skip_or_fail_named("Gemini CLI", cannot, claude_code::under_ci()),
    }
}

/// The example harnesses on the Claude Agent SDK, TypeScript and Python, the same way (issue
/// 51, H-41): a missing `node` or `python3` is a suite that cannot run.
fn real_agent_sdk() -> Result<Option<String>, String> {
    println!("\n==> real Claude Agent SDK: installing the pinned SDKs when absent");
    match crate::agent_sdk::install() {
        Ok(installed) => crate::agent_sdk::run_suite(&installed).map(|()| None),
        Err(cannot) => skip_or_fail_named("Claude Agent SDK", cannot, claude_code::under_ci()),
    }
}

/// The Copilot CLI real-client suite, the same way (issue 51, H-41).
fn real_copilot() -> Result<Option<String>, String> {
    println!("\n==> real Copilot CLI: installing the pinned CLI when absent");
    match crate::copilot::install() {
        Ok(binary) => crate::copilot::run_suite(&binary).map(|()| None),
        Err(cannot) => skip_or_fail_named("Copilot CLI", cannot, claude_code::under_ci()),
    }
}

/// A suite that cannot run fails the gate under CI, and is a loud skip elsewhere (H-41).
fn skip_or_fail(cannot: CannotRun, under_ci: bool) -> Result<Option<String>, String> {
    skip_or_fail_named("Claude Code", cannot, under_ci)
}

/// [`skip_or_fail`] for the suite of `label`.
fn skip_or_fail_named(
    label: &str,
    CannotRun(why): CannotRun,
    under_ci: bool,
) -> Result<Option<String>, String> {
    if under_ci {
        return Err(format!("real {label} cannot run under CI=true: {why}"));
    }
    println!("==> real {label}: SKIPPED, NOT PASSED: {why} (under CI=true this fails)");
    Ok(Some(why))
}

/// The test server's URL, as `tests/src/pg.rs` reads it.
fn pg_url() -> String {
    std::env::var("AGENTWARDEN_TEST_PG").unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into())
}

/// `host:port` of a `postgres://` URL (default port 5432); `None` when it names none (a socket
/// directory in the query, say): then the tests decide for themselves.
fn pg_address(url: &str) -> Option<String> {
    let rest = url.split_once("://")?.1;
    let authority = rest.split(['/', '?']).next()?;
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    if host_port.is_empty() {
        return None;
    }
    let has_port = host_port.rsplit_once(':').is_some_and(|(_, p)| p.bytes().all(|b| b.is_ascii_digit()))
        && !host_port.ends_with(']');
    Some(if has_port { host_port.to_owned() } else { format!("{host_port}:5432") })
}

/// Whether something listens at the test server's address (`Err`: why not).
fn pg_reachable(url: &str) -> Result<(), String> {
    use std::net::ToSocketAddrs;
    let Some(address) = pg_address(url) else { return Ok(()) };
    let addresses = address.to_socket_addrs().map_err(|e| format!("`{address}`: {e}"))?;
    let mut last = format!("`{address}` resolves to no address");
    for socket in addresses {
        match std::net::TcpStream::connect_timeout(&socket, std::time::Duration::from_secs(2)) {
            Ok(_) => return Ok(()),
            Err(e) => last = format!("`{address}`: {e}"),
        }
    }
    Err(last)
}

/// Which test steps run, and what is skipped: without a PostgreSQL server, under `CI=true` the
/// gate fails at once (not after the other tests); elsewhere nextest leaves the PostgreSQL
/// binaries out and the summary names them as SKIPPED, NOT PASSED.
fn test_steps(
    nextest: bool,
    pg: Result<(), String>,
    under_ci: bool,
) -> Result<(Vec<&'static Step>, Option<String>), String> {
    let url = pg_url();
    let skipped = match pg {
        Ok(()) => None,
        Err(why) if under_ci => {
            return Err(format!(
                "no PostgreSQL server at AGENTWARDEN_TEST_PG `{url}` ({why}): CI=true needs one; start it, \
                 or set AGENTWARDEN_TEST_PG=postgres://USER:PASSWORD@HOST:PORT/DB"
            ));
        }
        Err(why) => Some(format!(
            "the PostgreSQL tests ({}): no server at AGENTWARDEN_TEST_PG `{url}` ({why})",
            PG_TESTS.join(", ")
        )),
    };
    let steps = match (nextest, skipped.is_some()) {
        (true, false) => vec![&NEXTEST, &DOCTEST],
        (true, true) => vec![&NEXTEST_NO_PG, &DOCTEST],
        // `cargo test` cannot leave binaries out: each PostgreSQL test prints SKIPPED and
        // returns; the summary still names them.
        (false, _) => vec![&CARGO_TEST],
    };
    Ok((steps, skipped))
}

/// The browser `warden audit report`'s tests render in (`cli/tests/cli_report.rs`): `Some(why)`
/// when it is missing. Those tests then fail under `CI=true` and print SKIPPED elsewhere; the
/// gate fails at once under CI, and elsewhere its summary names them (H-41).
fn chromium_missing() -> Option<String> {
    if std::env::var_os("AGENTWARDEN_CHROMIUM").is_some() {
        return None;
    }
    let names = ["chromium", "chromium-browser"];
    let found = std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|dir| names.iter().any(|name| dir.join(name).is_file()))
    });
    (!found).then(|| {
        "the browser tests of `warden audit report` (cli_report): chromium is not installed \
         (`apt-get install -y chromium`, or set AGENTWARDEN_CHROMIUM)"
            .to_owned()
    })
}

pub(crate) fn run() -> Result<(), String> {
    let started = Instant::now();
    let (tests, pg_skipped) =
        test_steps(crate::has_cargo_tool("nextest"), pg_reachable(&pg_url()), claude_code::under_ci())?;
    if let Some(why) = &pg_skipped {
        println!("==> SKIPPING {why}; under CI=true this fails");
    }
    let browser_skipped = chromium_missing();
    if let Some(why) = &browser_skipped {
        if claude_code::under_ci() {
            return Err(format!("{why}: CI=true needs it"));
        }
        println!("==> SKIPPING {why}; under CI=true this fails");
    }
    for step in [&FMT, &CLIPPY, &LIBRARY_ALONE, &LIBRARY_ALONE_TESTS].into_iter().chain(tests.iter().copied())
    {
        run_step(step)?;
    }
    let skipped = real_claude_code()?;
    let codex_skipped = real_codex()?;
    let gemini_skipped = real_gemini()?;
    let sdk_skipped = real_agent_sdk()?;
    let copilot_skipped = real_copilot()?;
    installed_client()?;
    // Seconds once `warden` is built: every ```sh block of the README, as written.
    println!("\n==> README commands: cargo xtask readme");
    crate::readme::run().map_err(|e| format!("README commands: {e}; reproduce with `cargo xtask readme`"))?;
    run_step(&DOCS)?;
    examples()?;
    // A change to a library crate's public surface is deliberate: its snapshot changes too (X-31).
    println!("\n==> public API: cargo xtask public-api");
    crate::public_api::run(&[])?;
    // The man pages and completions are what the clap definitions generate (N-9).
    println!("\n==> CLI reference: cargo xtask reference --check");
    crate::reference::run(&["--check".to_owned()])?;
    run_step(&BENCHES)?;
    supply_chain()?;
    let secs = started.elapsed().as_secs_f64();
    let skipped: Vec<String> = skipped
        .map(|why| format!("real Claude Code: {why}"))
        .into_iter()
        .chain(codex_skipped.map(|why| format!("real Codex: {why}")))
        .chain(gemini_skipped.map(|why| format!("real Gemini CLI: {why}")))
        .chain(sdk_skipped.map(|why| format!("real Claude Agent SDK: {why}")))
        .chain(copilot_skipped.map(|why| format!("real Copilot CLI: {why}")))
        .chain(pg_skipped)
        .chain(browser_skipped)
        .collect();
    if skipped.is_empty() {
        println!("\nxtask ci: all steps passed in {secs:.0} s");
    } else {
        println!("\nxtask ci: the other steps passed in {secs:.0} s; SKIPPED, NOT PASSED:");
        for why in skipped {
            println!("  - {why}");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{CannotRun, NEXTEST, NEXTEST_NO_PG, PG_TESTS, pg_address, skip_or_fail, test_steps};

    #[test]
    fn the_test_servers_address_is_read_from_its_url() {
        assert_eq!(pg_address("postgres://postgres@127.0.0.1:5432/test").as_deref(), Some("127.0.0.1:5432"));
        assert_eq!(pg_address("postgres://me:s@cr@t@db:5433/x?y=1").as_deref(), Some("db:5433"));
        assert_eq!(pg_address("postgresql://db.internal/audit").as_deref(), Some("db.internal:5432"));
        assert_eq!(pg_address("postgres://u@[::1]:6000/d").as_deref(), Some("[::1]:6000"));
        assert_eq!(pg_address("postgres:///d?host=/run/postgresql"), None);
    }

    #[test]
    fn without_postgresql_its_tests_are_left_out_and_named_or_ci_fails() {
        let (steps, skipped) = test_steps(true, Ok(()), true).unwrap();
        assert!(steps[0].name == NEXTEST.name && skipped.is_none());
        let (steps, skipped) = test_steps(true, Err("refused".into()), false).unwrap();
        assert!(steps[0].name == NEXTEST_NO_PG.name, "the PostgreSQL binaries are not run");
        let skipped = skipped.unwrap();
        assert!(PG_TESTS.iter().all(|t| skipped.contains(t)) && skipped.contains("refused"), "{skipped}");
        for test in PG_TESTS {
            assert!(NEXTEST_NO_PG.args.iter().any(|a| a.contains(&format!("binary(={test})"))));
        }
        let (_, skipped) = test_steps(false, Err("refused".into()), false).unwrap();
        assert!(skipped.is_some(), "cargo test runs them (each prints SKIPPED), the summary names them");
        assert!(
            test_steps(true, Err("refused".into()), true).is_err_and(|e| e.contains("CI=true needs one"))
        );
    }

    #[test]
    fn a_suite_that_cannot_run_fails_under_ci_and_is_a_skip_elsewhere() {
        let why = || CannotRun("npm is not installed".into());
        assert!(skip_or_fail(why(), true).is_err_and(|e| e.contains("npm is not installed")));
        assert_eq!(skip_or_fail(why(), false), Ok(Some("npm is not installed".into())));
    }
}
