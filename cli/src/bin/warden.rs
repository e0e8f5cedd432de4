//! The `warden` binary: everything is in [`agentwarden_cli`].

fn main() -> std::process::ExitCode {
    agentwarden_cli::main()
}
