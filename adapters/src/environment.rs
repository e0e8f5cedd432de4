//! Environments: the process's, and a fixed one for tests and embedding.

use std::collections::BTreeMap;

use agentwarden_domain::governance::EnvValue;
use agentwarden_ports::Environment;

/// The process environment (`std::env::var_os`).
#[derive(Debug, Clone, Copy, Default)]
pub struct ProcessEnvironment;

impl Environment for ProcessEnvironment {
    fn var(&self, name: &str) -> EnvValue {
        match std::env::var_os(name) {
            None => EnvValue::Unset,
            Some(value) => value.into_string().map_or(EnvValue::NotUnicode, EnvValue::Set),
        }
    }
}

/// A fixed set of variables; everything else is unset.
#[derive(Debug, Clone, Default)]
pub struct FixedEnvironment(pub BTreeMap<String, String>);

impl FixedEnvironment {
    /// One variable set.
    pub fn with(name: &str, value: &str) -> Self {
        FixedEnvironment(BTreeMap::from([(name.to_owned(), value.to_owned())]))
    }
}

impl Environment for FixedEnvironment {
    fn var(&self, name: &str) -> EnvValue {
        self.0.get(name).map_or(EnvValue::Unset, |v| EnvValue::Set(v.clone()))
    }
}
