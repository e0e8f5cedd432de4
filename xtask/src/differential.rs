//! `cargo xtask differential [--cases N] [--seed S] [--classes all|A,B]`: the generated
//! differential (issue 48, T-28) at the size asked. It installs the pinned Claude Code when
//! needed and runs the real-client suite's one differential test with the size, seed and
//! classes in `AGENTWARDEN_DIFFERENTIAL_*` variables; the test prints every case's line, the
//! counts by class and verdict, and every more-permissive case with the seed, batch and call
//! that draw it again, and fails when there is one. Ruling X-78: a run that cannot start, or
//! a bad argument, is a failure, never a skip.

use crate::claude_code::{self, CannotRun};

/// The options, checked.
#[derive(Debug, PartialEq, Eq)]
struct Options {
    cases: u64,
    seed: u64,
    classes: Option<String>,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut options = Options { cases: 120, seed: 48, classes: None };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or_else(|| format!("differential: {name} needs a value"));
        match arg.as_str() {
            "--cases" => {
                let text = value("--cases")?;
                options.cases =
                    text.parse().map_err(|_| format!("differential: `--cases {text}` is not a number"))?;
                if options.cases == 0 {
                    return Err("differential: `--cases 0` tests nothing".into());
                }
            }
            "--seed" => {
                let text = value("--seed")?;
                options.seed =
                    text.parse().map_err(|_| format!("differential: `--seed {text}` is not a number"))?;
            }
            "--classes" => options.classes = Some(value("--classes")?.clone()),
            other => return Err(format!("differential: unknown argument `{other}`")),
        }
    }
    Ok(options)
}

/// `cargo xtask differential …`.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let options = parse(args)?;
    let claude =
        claude_code::install().map_err(|CannotRun(why)| format!("differential cannot run: {why}"))?;
    let cases = options.cases.to_string();
    let seed = options.seed.to_string();
    let mut vars = vec![
        ("AGENTWARDEN_DIFFERENTIAL_CASES", cases.as_str()),
        ("AGENTWARDEN_DIFFERENTIAL_SEED", seed.as_str()),
    ];
    if let Some(classes) = &options.classes {
        vars.push(("AGENTWARDEN_DIFFERENTIAL_CLASSES", classes));
    }
    let args = [
        "test",
        "--locked",
        "--workspace",
        "--all-features",
        "--test",
        "claude_code_real",
        "--",
        "--ignored",
        "--exact",
        "differential::warden_never_allows_what_the_client_rejects_on_generated_cases",
        "--nocapture",
    ];
    let again = format!("cargo xtask differential --cases {} --seed {}", options.cases, options.seed);
    claude_code::run_real_suite_with(
        "differential",
        &args,
        &vars,
        ("AGENTWARDEN_CLAUDE_BIN", &claude),
        &again,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn the_arguments_are_read_or_refused_by_name() {
        assert_eq!(parse(&[]), Ok(Options { cases: 120, seed: 48, classes: None }));
        assert_eq!(
            parse(&args(&["--cases", "2000", "--seed", "7", "--classes", "all"])),
            Ok(Options { cases: 2000, seed: 7, classes: Some("all".into()) })
        );
        let refused = [
            (vec!["--cases"], "--cases needs a value"),
            (vec!["--cases", "x"], "`--cases x` is not a number"),
            (vec!["--cases", "0"], "tests nothing"),
            (vec!["--seed", "-1"], "`--seed -1` is not a number"),
            (vec!["--case", "3"], "unknown argument `--case`"),
        ];
        for (given, said) in refused {
            let err = parse(&args(&given)).unwrap_err();
            assert!(err.contains(said), "{given:?}: {err}");
        }
    }
}
