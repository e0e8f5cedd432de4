//! The `warden-hook` binary: the resident service's hook client (V-34), in
//! [`agentwarden_cli::hook_client_main`].

fn main() -> std::process::ExitCode {
    agentwarden_cli::hook_client_main()
}
