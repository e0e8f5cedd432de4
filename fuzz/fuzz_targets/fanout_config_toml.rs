//! `agentwarden.toml` with a `[fan_out]` table, through the configuration loader and the fan-out
//! rules: never a panic; the result is always clamped (1 ≤ max_agents ≤ 8, timeout ≥ 60 000 ms,
//! every phase's sizes ≥ 1); an in-range integer `max_agents` is kept as written.
#![no_main]

use std::path::Path;

use agentwarden_domain::fanout::validate_config;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(config) = agentwarden::Config::parse(Path::new("agentwarden.toml"), text) else { return };
    let (fan_out, _) = validate_config(config.fan_out.as_ref());
    assert!((1..=8).contains(&fan_out.max_agents()));
    assert!(fan_out.timeout_per_chunk_ms() >= 60_000);
    for phase in ["tests", "implement", "lint"] {
        let settings = fan_out.phase(phase);
        assert!(settings.per_agent >= 1 && settings.min_threshold >= 1);
    }
    let written = config
        .fan_out
        .as_ref()
        .and_then(|f| f.pointer("/defaults/max_agents"))
        .and_then(serde_json::Value::as_i64)
        .filter(|n| (1..=8).contains(n));
    if let Some(n) = written {
        assert_eq!(fan_out.max_agents(), n as u64, "an in-range max_agents is kept");
    }
});
