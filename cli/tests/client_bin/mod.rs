//! Where the tests of the resident service's client find `warden-hook`.

/// `warden-hook` (crate `agentwarden-hook-client`), beside `warden`: a workspace build or test
/// run builds it.
pub(crate) fn client() -> String {
    let client = std::path::Path::new(env!("CARGO_BIN_EXE_warden")).with_file_name("warden-hook");
    assert!(
        client.is_file(),
        "no `warden-hook` at `{}`: run `cargo build -p agentwarden-hook-client`",
        client.display()
    );
    client.to_string_lossy().into_owned()
}
