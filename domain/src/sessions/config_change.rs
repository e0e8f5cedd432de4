//! A harness's settings or skills file that changes during a session (H-43).
//!
//! A harness's settings and skills are files the agent can write with its shell, and a harness
//! may apply a change to them mid-session: a settings file can set variables for the hooks'
//! environment and the agent's commands, and change what runs and what is asked. When the
//! harness asks its hook first, a block keeps the session on the settings it started with. So
//! every change is blocked and recorded: the human who changed a setting on purpose starts a new
//! session.

use super::answer::HookAnswer;
use super::events::{ConfigChangeBlocked, HookFailure};
use crate::verdict::{Code, Decision};

/// The stage a blocked change is recorded under.
pub const CONFIG_CHANGE_STAGE: &str = "config_change";

/// The decision on a settings change of `source` (`file_path` when the harness names it): always
/// blocked (H-43).
pub fn config_change_blocked(source: &str, file_path: Option<&str>) -> ConfigChangeBlocked {
    let what =
        file_path.map_or_else(|| format!("the {source} settings"), |path| format!("`{path}` ({source})"));
    let reason = format!(
        "Agent Warden blocked this at config_change (config_change_blocked): {what} changed during the \
         session; the session keeps the settings it started with (a human who changed them starts a new \
         session)"
    );
    ConfigChangeBlocked {
        source: source.to_owned(),
        file_path: file_path.map(str::to_owned),
        decision: Decision::Deny,
        failure: HookFailure::new(CONFIG_CHANGE_STAGE, Code::ConfigChangeBlocked, reason),
    }
}

/// The answer to a blocked change, recorded or not: the block stands either way (a change that
/// could not be recorded is no reason to apply it).
pub fn config_change_answer(blocked: &ConfigChangeBlocked) -> HookAnswer {
    HookAnswer::block(blocked.failure.reason.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_change_is_blocked_and_named() {
        for (source, path) in [("local_settings", Some("/p/.harness/settings.local.json")), ("skills", None)]
        {
            let blocked = config_change_blocked(source, path);
            assert_eq!(
                (blocked.decision, &blocked.failure.code),
                (Decision::Deny, &Code::ConfigChangeBlocked)
            );
            let answer = config_change_answer(&blocked);
            assert_eq!(answer, HookAnswer::block(blocked.failure.reason.clone()));
            assert!(blocked.failure.reason.contains(path.unwrap_or(source)), "{}", blocked.failure.reason);
        }
    }
}
