//! Lineage manifests in TOML: never a panic; what loads has only valid names.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(manifests) = agentwarden::manifests::parse_manifests(Path::new("fuzz.toml"), text) {
        for (name, manifest) in &manifests {
            assert!(agentwarden_domain::governance::Name::is_valid(name.as_str()));
            assert!(manifest.can_spawn.iter().all(|n| agentwarden_domain::governance::Name::is_valid(n.as_str())));
        }
    }
});
