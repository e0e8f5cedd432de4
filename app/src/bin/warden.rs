//! The `warden` binary: everything is in [`agentwarden::cli`].

fn main() -> std::process::ExitCode {
    agentwarden::cli::main()
}
