//! The `fan_out` configuration (§4.1, §5.1, F-1 … F-3). A [`ValidatedConfig`] only exists
//! clamped: `max_agents` in [1, 8] (a hard cap no configuration can raise), a timeout of at
//! least 60 000 ms, positive sizes and thresholds.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::json::type_name;

/// The hard cap on parallel chunk agents (§4.3).
pub const MAX_AGENTS: u64 = 8;
/// The default per-chunk timeout (F-1).
pub const DEFAULT_TIMEOUT_MS: u64 = 600_000;
/// The smallest per-chunk timeout a configuration may set (F-1).
pub const MIN_TIMEOUT_MS: u64 = 60_000;

/// How a phase's items are split.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    /// Item *i* to chunk *i mod n* (F-6).
    RoundRobin,
    /// Whole directories onto the least-loaded chunk (F-5).
    GroupByDirectory,
}

/// What a phase works on (F-3). A phase named `test`, `tests` or `testing` works on tests;
/// any other on files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PhaseKind {
    /// Tests: round-robin, 250 per agent, threshold 250.
    Tests,
    /// Files: group-by-directory, 7 per agent, threshold 5.
    Files,
}

impl PhaseKind {
    /// The kind of the phase called `name`.
    pub fn of(name: &str) -> PhaseKind {
        if matches!(name, "test" | "tests" | "testing") { PhaseKind::Tests } else { PhaseKind::Files }
    }
}

/// One phase's settings, validated.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PhaseConfig {
    /// Tests or files.
    pub kind: PhaseKind,
    /// How to split.
    pub strategy: Strategy,
    /// Items per agent, at least 1.
    pub per_agent: u64,
    /// Below this many items, no fan-out; at least 1.
    pub min_threshold: u64,
}

impl PhaseConfig {
    /// The defaults of a kind (F-3).
    pub fn default_for(kind: PhaseKind) -> PhaseConfig {
        match kind {
            PhaseKind::Tests => {
                PhaseConfig { kind, strategy: Strategy::RoundRobin, per_agent: 250, min_threshold: 250 }
            }
            PhaseKind::Files => {
                PhaseConfig { kind, strategy: Strategy::GroupByDirectory, per_agent: 7, min_threshold: 5 }
            }
        }
    }
}

/// The configuration, clamped. Fields are private: it can only come from [`validate_config`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ValidatedConfig {
    enabled: bool,
    max_agents: u64,
    timeout_per_chunk_ms: u64,
    overrides: BTreeMap<String, PhaseConfig>,
    pass_env: Vec<String>,
}

/// The prefix of Warden's own variables: never passed to a chunk agent (F-19).
pub const WARDEN_ENV_PREFIX: &str = "AGENTWARDEN_";

/// A name a chunk agent may be passed: `[A-Za-z_][A-Za-z0-9_]*`, not one of Warden's (F-19).
pub fn passable_env_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.to_ascii_uppercase().starts_with(WARDEN_ENV_PREFIX)
}

impl ValidatedConfig {
    /// Fan-out on or off.
    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// In [1, 8].
    pub fn max_agents(&self) -> u64 {
        self.max_agents
    }

    /// At least 60 000.
    pub fn timeout_per_chunk_ms(&self) -> u64 {
        self.timeout_per_chunk_ms
    }

    /// The variables `fan_out.pass_env` passes to chunk agents on top of the base set (F-19):
    /// names only, none of Warden's own.
    pub fn pass_env(&self) -> &[String] {
        &self.pass_env
    }

    /// The settings of the phase called `name`: its override, or its kind's defaults.
    pub fn phase(&self, name: &str) -> PhaseConfig {
        self.overrides.get(name).cloned().unwrap_or_else(|| PhaseConfig::default_for(PhaseKind::of(name)))
    }
}

/// Not an integer → `default`; an integer outside [min, max] → the nearest bound (F-2).
fn integer(
    value: Option<&Value>,
    field: &str,
    default: u64,
    min: u64,
    max: u64,
    warnings: &mut Vec<String>,
) -> u64 {
    let Some(value) = value else { return default };
    let seen = value.as_i64().map(i128::from).or_else(|| value.as_u64().map(i128::from));
    let Some(seen) = seen else {
        warnings.push(format!("{field} is {}, expected an integer: using {default}", type_name(value)));
        return default;
    };
    let used = u64::try_from(seen.clamp(i128::from(min), i128::from(max))).unwrap_or(max);
    if i128::from(used) != seen {
        warnings.push(format!("{field} is {seen}, outside [{min}, {max}]: using {used}"));
    }
    used
}

/// Validates a `fan_out` value (or its absence), returning the clamped configuration and one
/// warning per value changed.
pub fn validate_config(fan_out: Option<&Value>) -> (ValidatedConfig, Vec<String>) {
    let mut warnings = Vec::new();
    let mut config = ValidatedConfig {
        enabled: true,
        max_agents: MAX_AGENTS,
        timeout_per_chunk_ms: DEFAULT_TIMEOUT_MS,
        overrides: BTreeMap::new(),
        pass_env: Vec::new(),
    };
    let fields = match fan_out {
        None => return (config, warnings),
        Some(Value::Object(fields)) => fields,
        Some(other) => {
            warnings.push(format!("fan_out is {}, expected an object: using all defaults", type_name(other)));
            return (config, warnings);
        }
    };
    for key in fields
        .keys()
        .filter(|k| !["enabled", "defaults", "phase_overrides", "pass_env"].contains(&k.as_str()))
    {
        warnings.push(format!("fan_out.{key} is not a known setting: ignored"));
    }
    match fields.get("enabled") {
        None | Some(Value::Bool(true)) => {}
        Some(Value::Bool(false)) => config.enabled = false,
        Some(other) => {
            warnings.push(format!("enabled is {}, expected a boolean: using true", type_name(other)))
        }
    }
    let defaults = fields.get("defaults").and_then(Value::as_object);
    if let Some(other) = fields.get("defaults").filter(|d| !d.is_object()) {
        warnings.push(format!("defaults is {}, expected an object: using the defaults", type_name(other)));
    }
    config.max_agents = integer(
        defaults.and_then(|d| d.get("max_agents")),
        "max_agents",
        MAX_AGENTS,
        1,
        MAX_AGENTS,
        &mut warnings,
    );
    config.timeout_per_chunk_ms = match defaults.and_then(|d| d.get("timeout_per_chunk_ms")) {
        None => {
            warnings.push(format!("timeout_per_chunk_ms is missing: using {DEFAULT_TIMEOUT_MS}"));
            DEFAULT_TIMEOUT_MS
        }
        Some(Value::Number(n)) => match n.as_f64() {
            Some(ms) if ms >= MIN_TIMEOUT_MS as f64 => n.as_u64().unwrap_or(ms as u64),
            _ => {
                warnings
                    .push(format!("timeout_per_chunk_ms is {n}, below the floor: using {MIN_TIMEOUT_MS}"));
                MIN_TIMEOUT_MS
            }
        },
        Some(other) => {
            warnings.push(format!(
                "timeout_per_chunk_ms is {}, expected a number: using {DEFAULT_TIMEOUT_MS}",
                type_name(other)
            ));
            DEFAULT_TIMEOUT_MS
        }
    };
    match fields.get("pass_env") {
        None => {}
        Some(Value::Array(names)) => {
            for name in names {
                match name.as_str() {
                    Some(n) if passable_env_name(n) => config.pass_env.push(n.to_owned()),
                    Some(n) if n.to_ascii_uppercase().starts_with(WARDEN_ENV_PREFIX) => {
                        warnings.push(format!("pass_env `{n}` is one of Warden's own variables: not passed"))
                    }
                    Some(n) => warnings.push(format!("pass_env `{n}` is not a variable name: not passed")),
                    None => warnings.push(format!(
                        "pass_env holds {}, expected a variable name: ignored",
                        type_name(name)
                    )),
                }
            }
        }
        Some(other) => warnings.push(format!(
            "pass_env is {}, expected a list of variable names: nothing passed",
            type_name(other)
        )),
    }
    if let Some(phases) = fields.get("phase_overrides").and_then(Value::as_object) {
        for (name, value) in phases {
            let base = PhaseConfig::default_for(PhaseKind::of(name));
            let Some(o) = value.as_object() else {
                warnings.push(format!(
                    "phase_overrides.{name} is {}, expected an object: ignored",
                    type_name(value)
                ));
                continue;
            };
            let strategy = match o.get("strategy") {
                None => base.strategy,
                Some(Value::String(s)) if s == "round-robin" => Strategy::RoundRobin,
                Some(Value::String(s)) if s == "group-by-directory" => Strategy::GroupByDirectory,
                Some(other) => {
                    warnings.push(format!(
                        "phase_overrides.{name}.strategy `{other}` is not known: using the phase default"
                    ));
                    base.strategy
                }
            };
            let (size_key, threshold_key) = match base.kind {
                PhaseKind::Tests => ("tests_per_agent", "min_tests_threshold"),
                PhaseKind::Files => ("files_per_agent", "min_files_threshold"),
            };
            let per_agent = integer(
                o.get(size_key),
                &format!("phase_overrides.{name}.{size_key}"),
                base.per_agent,
                1,
                u64::MAX,
                &mut warnings,
            );
            let min_threshold = integer(
                o.get(threshold_key),
                &format!("phase_overrides.{name}.{threshold_key}"),
                base.min_threshold,
                1,
                u64::MAX,
                &mut warnings,
            );
            config
                .overrides
                .insert(name.clone(), PhaseConfig { kind: base.kind, strategy, per_agent, min_threshold });
        }
    }
    (config, warnings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn with_defaults(defaults: Value) -> (ValidatedConfig, Vec<String>) {
        validate_config(Some(&json!({"enabled": true, "defaults": defaults})))
    }

    #[test]
    fn pass_env_takes_names_but_never_wardens_own() {
        let (c, w) = validate_config(Some(&json!({
            "defaults": {"timeout_per_chunk_ms": 60_000},
            "pass_env": ["CARGO_HOME", "AGENTWARDEN_STORE", "agentwarden_x", "1BAD", "A=B", 7, "_OK"]
        })));
        assert_eq!(c.pass_env(), ["CARGO_HOME", "_OK"]);
        assert_eq!(w.len(), 5, "{w:?}");
        assert!(w.iter().any(|w| w.contains("`AGENTWARDEN_STORE` is one of Warden's own")), "{w:?}");
        let (c, w) =
            validate_config(Some(&json!({"defaults": {"timeout_per_chunk_ms": 60_000}, "pass_env": "PATH"})));
        assert!(c.pass_env().is_empty() && w.len() == 1, "{w:?}");
    }

    #[test]
    fn missing_section_means_all_defaults() {
        let (c, w) = validate_config(None);
        assert!(c.enabled() && w.is_empty());
        assert_eq!((c.max_agents(), c.timeout_per_chunk_ms()), (8, 600_000));
        assert_eq!(c.phase("tests"), PhaseConfig::default_for(PhaseKind::Tests));
        assert_eq!(c.phase("implement"), PhaseConfig::default_for(PhaseKind::Files));
    }

    #[test]
    fn max_agents_table_f2() {
        for (value, used, warns) in [
            (json!(4), 4, false),
            (json!(0), 1, true),
            (json!(-5), 1, true),
            (json!(100), 8, true),
            (json!("4"), 8, true),
            (json!(2.5), 8, true),
            (json!(null), 8, true),
            (json!(true), 8, true),
        ] {
            let (c, w) = with_defaults(json!({"max_agents": value, "timeout_per_chunk_ms": 600_000}));
            assert_eq!(c.max_agents(), used, "{value}");
            assert_eq!(!w.is_empty(), warns, "{value}: {w:?}");
        }
    }

    #[test]
    fn timeout_table_f1() {
        for (value, used) in [
            (Some(json!(120_000)), 120_000),
            (Some(json!(59_999)), 60_000),
            (Some(json!(0)), 60_000),
            (Some(json!("600000")), 600_000),
            (None, 600_000),
        ] {
            let defaults = match &value {
                Some(v) => json!({"timeout_per_chunk_ms": v}),
                None => json!({}),
            };
            let (c, w) = with_defaults(defaults);
            assert_eq!(c.timeout_per_chunk_ms(), used, "{value:?}");
            assert_eq!(w.is_empty(), value == Some(json!(120_000)), "{value:?}: {w:?}");
        }
    }

    #[test]
    fn enabled_strategy_and_sizes() {
        let (c, w) = validate_config(Some(
            &json!({"enabled": "no", "defaults": {"timeout_per_chunk_ms": 60_000},
            "phase_overrides": {"tests": {"strategy": "random", "tests_per_agent": 0, "min_tests_threshold": "x"},
                                "implement": {"strategy": "round-robin", "files_per_agent": 3}}}),
        ));
        assert!(c.enabled());
        let tests = c.phase("tests");
        assert_eq!((tests.strategy, tests.per_agent, tests.min_threshold), (Strategy::RoundRobin, 1, 250));
        let implement = c.phase("implement");
        assert_eq!(
            (implement.strategy, implement.per_agent, implement.min_threshold),
            (Strategy::RoundRobin, 3, 5)
        );
        assert_eq!(w.len(), 4, "{w:?}");
        let (off, _) = validate_config(Some(&json!({"enabled": false})));
        assert!(!off.enabled());
        let (_, w) = validate_config(Some(&json!([1])));
        assert_eq!(w.len(), 1);
        // Each strategy by its own name: tests default to round-robin, files to directories.
        let (c, w) = validate_config(Some(&json!({"phase_overrides": {
            "tests": {"strategy": "group-by-directory"}, "implement": {"strategy": "round-robin"}}})));
        assert_eq!(c.phase("tests").strategy, Strategy::GroupByDirectory);
        assert_eq!(c.phase("implement").strategy, Strategy::RoundRobin);
        assert!(w.iter().all(|w| !w.contains("strategy")), "{w:?}");
    }
}
