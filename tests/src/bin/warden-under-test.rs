//! `warden` for the real-client suite: the binary's whole `main`, built by this crate so that
//! its tests get it as `CARGO_BIN_EXE_warden-under-test`, compiled with the same features as
//! they are (no separate build step, no stale binary).

fn main() -> std::process::ExitCode {
    agentwarden_cli::main()
}
