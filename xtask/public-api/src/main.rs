//! `xtask-public-api RUSTDOC_JSON`: prints a crate's public API, one item per line, rendered
//! with its signature by the `public-api` crate (the engine of cargo-public-api), in its
//! grouping order (an item, then its fields, methods and impls). `cargo xtask public-api`
//! builds the rustdoc JSON, runs this, and compares or writes `docs/public-api/`.
//!
//! Blanket impls (`impl<T> From<T> for T` …) are left out: std's, the same for every type.
//! Auto-trait impls (`Send`, `Sync`, `Unpin` …) and derived impls stay: losing one breaks a
//! consumer. A JSON of another format than the one this reads is refused, naming both: a
//! changed toolchain is not a changed API.

use std::process::ExitCode;

/// The one field read before the whole: which format rustdoc wrote.
#[derive(serde::Deserialize)]
struct Header {
    format_version: u32,
}

fn render(path: &str) -> Result<String, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read `{path}`: {e}"))?;
    let mut json = serde_json::Deserializer::from_str(&text);
    json.disable_recursion_limit();
    let header: Header = serde::Deserialize::deserialize(&mut json)
        .map_err(|e| format!("`{path}` is not rustdoc JSON: {e}"))?;
    if header.format_version != rustdoc_types::FORMAT_VERSION {
        return Err(format!(
            "`{path}` is rustdoc JSON format {}, this reads format {}: the toolchain changed; move the \
             `public-api` and `rustdoc-types` pins in xtask/Cargo.toml to a version that reads it",
            header.format_version,
            rustdoc_types::FORMAT_VERSION
        ));
    }
    let api = public_api::Builder::from_rustdoc_json(path)
        .omit_blanket_impls(true)
        .build()
        .map_err(|e| format!("cannot read the public API from `{path}`: {e}"))?;
    Ok(api.items().map(|item| format!("{item}\n")).collect())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [path] = args.as_slice() else {
        eprintln!("usage: xtask-public-api RUSTDOC_JSON");
        return ExitCode::from(2);
    };
    match render(path) {
        Ok(rendered) => {
            print!("{rendered}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("xtask-public-api: {e}");
            ExitCode::FAILURE
        }
    }
}
