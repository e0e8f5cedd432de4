//! `cargo xtask fuzz [--seconds N] [TARGET…]`: every fuzz target in `fuzz/`, each for N seconds
//! (default 60), seeded from `fuzz/seeds/TARGET/` (cases from the test tables). Installs
//! cargo-fuzz when it is missing. Runs on the stable toolchain without a sanitizer (`-s none`):
//! the targets' own assertions (reference checks of every decision) are the oracle. A crash
//! stops the run and names the artifact to turn into a regression test.

use std::process::Command;

/// Every target in `fuzz/Cargo.toml`.
const TARGETS: [&str; 21] = [
    "hook_input",
    "codex_hook_input",
    "gemini_hook_input",
    "copilot_hook_input",
    "gate_request",
    "instruction_file",
    "lineage_request",
    "manifests_toml",
    "fanout_inputs",
    "result_json",
    "audit_record",
    "governance_json",
    "fanout_config_toml",
    "envelope_view",
    "tool_rule",
    "shell_command",
    "call_paths",
    "archive_segment",
    "server_frame",
    "signed_note",
    "tlog_proof",
];

pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let mut seconds = 60u64;
    let mut targets: Vec<String> = Vec::new();
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--seconds" => {
                let value = rest.next().ok_or("--seconds needs a number")?;
                seconds = value.parse().map_err(|e| format!("--seconds `{value}`: {e}"))?;
            }
            name if TARGETS.contains(&name) => targets.push(name.to_owned()),
            other => {
                return Err(format!(
                    "unknown argument or target `{other}` (targets: {})",
                    TARGETS.join(", ")
                ));
            }
        }
    }
    if targets.is_empty() {
        targets = TARGETS.iter().map(|t| (*t).to_owned()).collect();
    }
    crate::ensure_cargo_tool("fuzz", "cargo-fuzz")?;
    let fuzz = crate::root().join("fuzz");
    for target in &targets {
        let corpus = fuzz.join("corpus").join(target);
        std::fs::create_dir_all(&corpus).map_err(|e| format!("{}: {e}", corpus.display()))?;
        let seeds = fuzz.join("seeds").join(target);
        println!("==> {target}: {seconds} s");
        let status = Command::new(crate::cargo())
            .current_dir(&fuzz)
            .args(["fuzz", "run", "-s", "none", target])
            .arg(&corpus)
            .arg(&seeds)
            .arg("--")
            .arg(format!("-max_total_time={seconds}"))
            .arg("-print_final_stats=1")
            .status()
            .map_err(|e| format!("cannot run cargo fuzz: {e}"))?;
        if !status.success() {
            return Err(format!(
                "`{target}` found a failure: see fuzz/artifacts/{target}/ and add it to the regression tests"
            ));
        }
    }
    println!("xtask fuzz: {} target(s) ran clean for {seconds} s each", targets.len());
    Ok(())
}
