//! `warden-confine CONFINEMENT COMMAND`: confines itself, then becomes `/bin/sh -c COMMAND`
//! (issue 50). See the library's documentation.

fn main() {
    std::process::exit(agentwarden_confine::main_with(std::env::args_os().collect()));
}
