//! Prints the launcher's argument the domain's policy writes for a manifest of `Edit` in the
//! workspace `WS` with the session's temporary directory `TMP`, the protected paths after them
//! (relative to `WS`), the held names of the domain's list held (E-31): what
//! `cargo xtask bench confine` runs the launcher with.

use agentwarden_domain::confine::{Baseline, Mode, Place, confinement};
use agentwarden_domain::lineage::ToolRule;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [ws, tmp, protected @ ..] = args.as_slice() else {
        eprintln!("usage: confinement WS TMP [PROTECTED…]");
        std::process::exit(2);
    };
    let Ok(edit) = ToolRule::parse("Edit") else {
        eprintln!("`Edit` does not parse");
        std::process::exit(2);
    };
    let home = std::env::var("HOME").unwrap_or_else(|_| "/root".to_owned());
    let place = Place { root: ws, cwd: ws, session_tmp: tmp };
    println!("{}", confinement(&[edit], &place, protected, &Baseline::unix(&home)).encode(Mode::Required));
}
