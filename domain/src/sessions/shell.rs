//! A shell call's input as the harness sent it, kept whole so that Warden can hand the harness
//! back the same input with only the command replaced: the confinement launcher around the
//! original (issue 50, H-61, H-62).

use serde_json::{Map, Value};

/// How far Warden knows the harness's own permission rules for a shell call (H-61): a hook's
/// allow with a replaced input skips the harness's own asking, and the harness judges its rules
/// against the replaced input, not the one sent; so Warden rewrites only where it can show that
/// the harness would have let the call run as sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClientRules {
    /// The harness reads permission rules (`permissions.deny`, `.ask`, `.allow`) from JSON
    /// settings files, and gave this permission mode in the hook input: the application reads
    /// those files and judges the original command against them before it rewrites.
    Settings {
        /// The mode as the harness named it (`None`: it named none).
        permission_mode: Option<String>,
        /// Where the harness reads its settings, in the order it reads them (their
        /// [`RuleSource::refusing`] is not used: the rules themselves are judged). Named by the
        /// harness's integration, never by the application.
        sources: Vec<RuleSource>,
    },
    /// Warden does not model the harness's own rules for this call: it is never rewritten,
    /// and so runs unconfined (recorded) or, under `required`, is denied.
    Unmodeled,
    /// The harness's own command rules are text files Warden cannot read as rules but can read
    /// as text: the call is rewritten only where no file of `sources` mentions a decision that
    /// refuses or asks, and each one there can be read (C-22, M-30).
    Files {
        /// Where the harness reads its rules.
        sources: Vec<RuleSource>,
    },
}

/// A place a harness reads command rules from, for [`ClientRules::Files`] (C-22, M-30).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleSource {
    /// The file, or the folder whose files ending in [`RuleSource::ending`] are read: an
    /// absolute path; `~/PATH` beneath the user's home; `$VAR/PATH` beneath the value of the
    /// variable `VAR` where it is set (else nowhere); `./PATH` beneath each folder from the
    /// project's root down to the working directory; `^/PATH` beneath the project's root alone.
    pub place: String,
    /// `Some(ending)`: the place is a folder, and its files whose names end so (and are longer)
    /// are read; `None`: the place is one file.
    pub ending: Option<String>,
    /// Words any of which, anywhere in a file, mean a rule Warden cannot honour behind the
    /// launcher.
    pub refusing: Vec<String>,
}

impl super::ToolCall {
    /// Whether this is a shell call: the integration handed its input ([`ToolCall::shell`]), or
    /// the rules read it as the shell whatever the harness calls it (H-62). A shell call the
    /// integration cannot rewrite is still one: unconfined under `on`, denied under `required`
    /// (E-13).
    ///
    /// [`ToolCall::shell`]: super::ToolCall::shell
    pub fn is_shell(&self) -> bool {
        self.shell.is_some()
            || matches!(&self.rules_as, crate::lineage::RulesAs::Call { tool, .. }
                if tool == crate::lineage::syntax::SHELL)
    }
}

/// A shell call's whole input (H-62).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShellInput {
    /// The input, as sent.
    pub input: Map<String, Value>,
    /// The field that holds the command line.
    pub field: String,
    /// What Warden knows of the harness's own rules for it.
    pub client: ClientRules,
}

impl ShellInput {
    /// A shell call's input whose command is the string at `field`; `None` when the input has
    /// no string there (such a call is not rewritten).
    pub fn new(input: &Value, field: &str, client: ClientRules) -> Option<ShellInput> {
        let input = input.as_object()?;
        input.get(field)?.as_str()?;
        Some(ShellInput { input: input.clone(), field: field.to_owned(), client })
    }

    /// The command line, as sent.
    pub fn command(&self) -> &str {
        self.input.get(&self.field).and_then(Value::as_str).unwrap_or_default()
    }

    /// The input with the command line replaced by `line`, every other field as sent (H-62).
    pub fn with_command(&self, line: String) -> Map<String, Value> {
        let mut input = self.input.clone();
        input.insert(self.field.clone(), Value::String(line));
        input
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn only_the_command_is_replaced() {
        let sent = json!({"command": "ls", "description": "d", "timeout": 5, "run_in_background": true});
        let shell = ShellInput::new(&sent, "command", ClientRules::Unmodeled).unwrap();
        assert_eq!(shell.command(), "ls");
        let mut expected = sent.as_object().unwrap().clone();
        expected.insert("command".into(), json!("X"));
        assert_eq!(shell.with_command("X".into()), expected);
        for bad in [json!({"command": 1}), json!({}), json!("ls"), json!(null)] {
            assert_eq!(ShellInput::new(&bad, "command", ClientRules::Unmodeled), None, "{bad}");
        }
    }
}
