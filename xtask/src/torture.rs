//! `cargo xtask torture [--rounds N] [--seed S]`: the store's crash torture (S-11), long.
//!
//! Runs the ignored test `torture_long` in `cli/tests/store_torture.rs`: N rounds (default 200)
//! of 4 `warden gate` writers killed with SIGKILL at random moments, each round reopened,
//! verified, and checked for every decision a writer printed. CI runs a short version of the
//! same test.

use std::process::Command;

use crate::{cargo, root};

pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let mut rounds = "200".to_owned();
    let mut seed = None;
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let value = |name: &str, v: Option<&String>| {
            v.filter(|v| v.parse::<u64>().is_ok_and(|n| n > 0))
                .cloned()
                .ok_or_else(|| format!("`{name}` takes a positive whole number"))
        };
        match arg.as_str() {
            "--rounds" => rounds = value("--rounds", rest.next())?,
            "--seed" => seed = Some(value("--seed", rest.next())?),
            other => {
                return Err(format!(
                    "unknown argument `{other}`: usage: cargo xtask torture [--rounds N] [--seed S]"
                ));
            }
        }
    }
    let mut command = Command::new(cargo());
    command
        .current_dir(root())
        .args(["test", "--package", "agentwarden-cli", "--test", "store_torture", "--", "torture_long"])
        .args(["--ignored", "--exact", "--nocapture"])
        .env("AGENTWARDEN_TORTURE_ROUNDS", &rounds);
    if let Some(seed) = seed {
        command.env("AGENTWARDEN_TORTURE_SEED", seed);
    }
    let status = command.status().map_err(|e| format!("cannot run cargo: {e}"))?;
    if status.success() { Ok(()) } else { Err(format!("the torture failed ({rounds} rounds)")) }
}
