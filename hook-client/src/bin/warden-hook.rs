//! The `warden-hook` binary: the resident service's hook client (V-34), in
//! [`agentwarden_hook_client::main`].

fn main() -> std::process::ExitCode {
    agentwarden_hook_client::main()
}
