//! Every place Codex CLI 0.169.0 reads hooks from, as one list ([`places`]), and the hooks in
//! each that can hand a tool another input than the one Warden approved (C-18, H-55).
//!
//! Codex merges the hooks of its managed requirements (`/etc/codex/requirements.toml`, its
//! `[hooks]`) and of every configuration layer: the system's (`/etc/codex`), the user's
//! (`$CODEX_HOME`) and each project layer (`.codex/` of the project's root — found by
//! `project_root_markers`, which the user's configuration can change — and of every folder from
//! it down to the working directory), each layer both as `[hooks]` in its `config.toml` and
//! as its `hooks.json`. With `allow_managed_hooks_only` it runs the managed ones alone. A
//! `PreToolUse` hook anywhere else can answer `updatedInput` with `permissionDecision: "allow"`,
//! and Codex runs that input (held against the pinned client: `codex_real.rs`). Plugins' hooks
//! are not in this list: they are not files of a fixed place (docs/threat-model.md).

use std::path::{Path, PathBuf};

use serde_json::Value as Json;
use toml_edit::{DocumentMut, Item};

use super::config::{HOME_FILE, PROJECT_FILE};
use super::line::MARK;
use agentwarden_protocol::settings_file::SettingsError;

/// The system configuration layer's folder.
pub const SYSTEM_DIR: &str = "/etc/codex";
/// A layer's hooks in JSON, beside its `config.toml`.
pub const HOOKS_JSON: &str = "hooks.json";
/// The event whose hooks can replace a tool's input.
pub const REWRITING_EVENT: &str = "PreToolUse";

/// How a place holds its hooks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `[hooks]` of a TOML file (`[[hooks.PreToolUse]]` groups).
    Toml,
    /// `{"hooks": {"PreToolUse": [...]}}`.
    Json,
}

/// One place Codex reads hooks from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    /// The file.
    pub path: PathBuf,
    /// Its form.
    pub format: Format,
    /// Managed requirements: the only hooks Codex runs under `allow_managed_hooks_only`.
    pub managed: bool,
}

/// Every place Codex reads hooks from (see the module's doc), each once: the managed
/// requirements files `managed`, the system layer, the user's layer in `codex_home`, and the
/// project layers of `project_layers` (outermost first, down to where Codex runs).
pub fn places(managed: &[PathBuf], codex_home: &Path, project_layers: &[PathBuf]) -> Vec<Place> {
    let layer = |dir: PathBuf| {
        [
            Place { path: dir.join(HOME_FILE), format: Format::Toml, managed: false },
            Place { path: dir.join(HOOKS_JSON), format: Format::Json, managed: false },
        ]
    };
    let dot_codex = |project: &PathBuf| {
        project.join(PROJECT_FILE).parent().map_or_else(|| project.join(".codex"), Path::to_path_buf)
    };
    let mut all: Vec<Place> = managed
        .iter()
        .map(|path| Place { path: path.clone(), format: Format::Toml, managed: true })
        .collect();
    all.extend(layer(PathBuf::from(SYSTEM_DIR)));
    all.extend(layer(codex_home.to_path_buf()));
    for project in project_layers {
        all.extend(layer(dot_codex(project)));
    }
    // A project layer can be Codex's home (`~/.codex` under a project in `~`): read once.
    let mut seen = Vec::new();
    all.retain(|place| {
        let first = !seen.contains(&place.path);
        seen.push(place.path.clone());
        first
    });
    all
}

/// The hooks of a place's `text` that can replace a tool's input: every `PreToolUse` handler,
/// each named by its command (or its type when it has none); Warden's own (its line's mark) are
/// returned apart, as `(others, wardens)`. An error (text that says why) when the text cannot be
/// read as its format, or its `PreToolUse` is not a list of groups.
pub fn pre_tool_use_hooks(text: &str, format: Format) -> Result<(Vec<String>, Vec<String>), SettingsError> {
    let hooks: Json = match format {
        Format::Json => serde_json::from_str(text)
            .map_err(|e| SettingsError::NotValid { format: "JSON", detail: e.to_string() })?,
        Format::Toml => {
            let document: DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| {
                SettingsError::NotValid { format: "TOML", detail: e.to_string() }
            })?;
            toml_json(document.as_item())
        }
    };
    let Some(groups) = hooks.get("hooks").and_then(|h| h.get(REWRITING_EVENT)) else {
        return Ok((Vec::new(), Vec::new()));
    };
    let groups = groups.as_array().ok_or_else(|| SettingsError::Shape {
        key: format!("hooks.{REWRITING_EVENT}"),
        expected: "a list",
    })?;
    let (mut others, mut wardens) = (Vec::new(), Vec::new());
    for group in groups {
        let handlers = match group.get("hooks") {
            None => continue,
            Some(Json::Array(handlers)) => handlers,
            Some(_) => return Err(SettingsError::GroupNotAList { event: REWRITING_EVENT.to_owned() }),
        };
        for handler in handlers {
            let command = handler.get("command").and_then(Json::as_str);
            let kind = handler.get("type").and_then(Json::as_str).unwrap_or("command");
            match command {
                Some(command) if kind == "command" && command.contains(MARK) => {
                    wardens.push(command.to_owned())
                }
                Some(command) => others.push(format!("`{command}`")),
                None => others.push(format!("a `{kind}` hook")),
            }
        }
    }
    Ok((others, wardens))
}

/// A TOML item as JSON, as far as hooks need: tables (inline or not), arrays of tables, arrays,
/// strings; other values as `null`.
fn toml_json(item: &Item) -> Json {
    match item {
        Item::None => Json::Null,
        Item::Table(table) => Json::Object(table.iter().map(|(k, v)| (k.to_owned(), toml_json(v))).collect()),
        Item::ArrayOfTables(tables) => Json::Array(
            tables
                .iter()
                .map(|t| Json::Object(t.iter().map(|(k, v)| (k.to_owned(), toml_json(v))).collect()))
                .collect(),
        ),
        Item::Value(value) => toml_value_json(value),
    }
}

fn toml_value_json(value: &toml_edit::Value) -> Json {
    match value {
        toml_edit::Value::String(s) => Json::String(s.value().clone()),
        toml_edit::Value::Array(array) => Json::Array(array.iter().map(toml_value_json).collect()),
        toml_edit::Value::InlineTable(table) => {
            Json::Object(table.iter().map(|(k, v)| (k.to_owned(), toml_value_json(v))).collect())
        }
        _ => Json::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One place per layer and form, the managed ones first and marked.
    #[test]
    fn every_place_codex_reads_hooks_from_is_listed() {
        let managed = [PathBuf::from("/etc/codex/requirements.toml")];
        let layers = [PathBuf::from("/"), PathBuf::from("/p"), PathBuf::from("/p/sub")];
        let listed: Vec<(String, Format, bool)> = places(&managed, Path::new("/h"), &layers)
            .into_iter()
            .map(|p| (p.path.display().to_string(), p.format, p.managed))
            .collect();
        let expected = [
            ("/etc/codex/requirements.toml", Format::Toml, true),
            ("/etc/codex/config.toml", Format::Toml, false),
            ("/etc/codex/hooks.json", Format::Json, false),
            ("/h/config.toml", Format::Toml, false),
            ("/h/hooks.json", Format::Json, false),
            ("/.codex/config.toml", Format::Toml, false),
            ("/.codex/hooks.json", Format::Json, false),
            ("/p/.codex/config.toml", Format::Toml, false),
            ("/p/.codex/hooks.json", Format::Json, false),
            ("/p/sub/.codex/config.toml", Format::Toml, false),
            ("/p/sub/.codex/hooks.json", Format::Json, false),
        ];
        let expected: Vec<(String, Format, bool)> =
            expected.into_iter().map(|(p, f, m)| (p.to_owned(), f, m)).collect();
        assert_eq!(listed, expected);
        // A project layer that is Codex's home is listed once.
        let home_layer = places(&[], Path::new("/u/.codex"), &[PathBuf::from("/u")]);
        let paths: Vec<&Path> = home_layer.iter().map(|p| p.path.as_path()).collect();
        assert_eq!(paths.iter().filter(|p| **p == Path::new("/u/.codex/hooks.json")).count(), 1, "{paths:?}");
    }

    /// Table: (text, format, others, Warden's, why).
    #[test]
    fn every_pre_tool_use_hook_but_wardens_is_named() {
        let warden = "'/w/warden' hook --harness codex --config '/p/agentwarden.toml' || exit 2";
        let toml_warden = format!(
            "[[hooks.PreToolUse]]\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"{warden}\"\n"
        );
        let rows: Vec<(String, Format, Vec<&str>, usize, &str)> = vec![
            (String::new(), Format::Toml, vec![], 0, "nothing"),
            ("{}".into(), Format::Json, vec![], 0, "nothing"),
            (toml_warden.clone(), Format::Toml, vec![], 1, "Warden's alone"),
            (
                format!("{toml_warden}[[hooks.PreToolUse]]\n[[hooks.PreToolUse.hooks]]\ncommand = \"/x/rewrite.sh\"\n"),
                Format::Toml,
                vec!["`/x/rewrite.sh`"],
                1,
                "another group beside Warden's",
            ),
            (
                "hooks = { PreToolUse = [{ hooks = [{ type = \"command\", command = \"/x/r.sh\" }] }] }\n".into(),
                Format::Toml,
                vec!["`/x/r.sh`"],
                0,
                "inline tables",
            ),
            (
                "[[hooks.PreToolUse]]\nmatcher = \"Bash\"\n[[hooks.PreToolUse.hooks]]\ntype = \"prompt\"\nprompt = \"p\"\n".into(),
                Format::Toml,
                vec!["a `prompt` hook"],
                0,
                "a hook of another type",
            ),
            (
                r#"{"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "/x/r.sh"}]}]}}"#.into(),
                Format::Json,
                vec!["`/x/r.sh`"],
                0,
                "hooks.json",
            ),
            (
                format!(r#"{{"hooks": {{"PreToolUse": [{{"hooks": [{{"type": "prompt", "command": "{}"}}]}}]}}}}"#, " hook --harness codex "),
                Format::Json,
                vec!["` hook --harness codex `"],
                0,
                "the mark on a hook that is no command is not Warden's",
            ),
            (
                r#"{"hooks": {"PostToolUse": [{"hooks": [{"command": "/x/log.sh"}]}]}}"#.into(),
                Format::Json,
                vec![],
                0,
                "another event cannot rewrite an input",
            ),
        ];
        for (text, format, others, wardens, why) in rows {
            let (found, ours) = pre_tool_use_hooks(&text, format).unwrap_or_else(|e| panic!("{why}: {e}"));
            assert_eq!(found, others, "{why}");
            assert_eq!(ours.len(), wardens, "{why}");
        }
        // (text, format, why): each an error, never an empty list.
        let bad = [
            ("[[", Format::Toml, "not TOML"),
            ("{", Format::Json, "not JSON"),
            ("hooks = { PreToolUse = 1 }", Format::Toml, "PreToolUse not a list"),
            (r#"{"hooks": {"PreToolUse": [{"hooks": "x"}]}}"#, Format::Json, "a group's hooks not a list"),
        ];
        for (text, format, why) in bad {
            assert!(pre_tool_use_hooks(text, format).is_err(), "{why}");
        }
    }
}
