//! `warden init copilot --managed DIR`: Warden's hooks in the form an administrator installs
//! for every user of the machine, as Copilot CLI 1.0.102 loads it (measured, H-75):
//!
//! - Copilot reads the managed settings file `/etc/github-copilot/managed-settings.json`. Its
//!   schema has no `hooks` key — a `hooks` written there is ignored — but a managed
//!   `extraKnownMarketplaces` entry of type `directory` with the plugin force-enabled in
//!   `enabledPlugins` loads the plugin's `hooks/hooks.json` in every session, with no install
//!   step and nothing in the user's home. The plugin's hook file is Warden's own hook file,
//!   unchanged; its events get the same Claude-style payloads.
//! - That hook holds when the user's settings say `disableAllHooks: true`; a trusted
//!   repository's `.github/copilot/settings.json` saying so still switches it off (measured), so
//!   `.github/copilot` stays protected and doctor still reads it.
//! - `allowManagedHooksOnly: true` in the managed settings switches off every hook, the managed
//!   plugin's included, contrary to what the schema says (measured, H-76): `init` refuses a file
//!   that says it, and doctor fails it.
//!
//! `DIR` is what the administrator installs as `/etc/github-copilot`: the files name the
//! marketplace at its installed place, [`MARKETPLACE_PATH`], whatever `DIR` is. A managed
//! settings file already in `DIR` keeps its other keys.

use std::path::Path;

use agentwarden_doctor::{FileWrite, InstallError, Installing, Read};
use agentwarden_protocol::settings_file::SettingsError;
use serde_json::{Value, json};

use crate::setup::hooks::{self, EVENTS, hook_file};

/// The folder Copilot reads its managed settings from, on Linux.
pub const MANAGED_DIR: &str = "/etc/github-copilot";
/// The managed settings file, in [`MANAGED_DIR`].
pub const SETTINGS_FILE: &str = "managed-settings.json";
/// The marketplace's folder, in [`MANAGED_DIR`].
pub const MARKETPLACE_DIR: &str = "agentwarden-marketplace";
/// Where the marketplace is once installed: what the managed settings name.
pub const MARKETPLACE_PATH: &str = "/etc/github-copilot/agentwarden-marketplace";
/// The marketplace's name, and the plugin's.
pub const NAME: &str = "agentwarden";
/// The plugin's key in `enabledPlugins`: `PLUGIN@MARKETPLACE`.
pub const PLUGIN_KEY: &str = "agentwarden@agentwarden";
/// The plugin's hook file, relative to the marketplace's folder.
pub const PLUGIN_HOOKS: &str = "agentwarden/hooks/hooks.json";

/// Why the managed settings cannot carry Warden's plugin.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ManagedError {
    /// The file is not a JSON object, read as every Copilot settings file is.
    #[error(transparent)]
    Settings(#[from] SettingsError),
    /// `allowManagedHooksOnly: true` switches off every hook, the plugin's included (H-76).
    #[error(
        "it says `allowManagedHooksOnly: true`, which switches off every hook, Warden's managed plugin's included (Copilot CLI 1.0.102, measured); remove that key"
    )]
    BlocksAllHooks,
    /// A key Warden writes into that holds something other than an object.
    #[error("`{key}` is not an object")]
    NotAnObject { key: &'static str },
    /// The merged settings did not serialise.
    #[error(transparent)]
    Serialise(#[from] serde_json::Error),
}

/// The managed settings `text` as a JSON object (an empty text is an empty one), read as every
/// Copilot settings file is ([`hooks::object_of`]).
fn object_of(text: &str) -> Result<serde_json::Map<String, Value>, ManagedError> {
    Ok(hooks::object_of(text)?)
}

/// Whether the managed settings `text` switch off every hook, Warden's managed plugin's
/// included (`allowManagedHooksOnly: true`, H-76).
pub fn blocks_all_hooks(text: &str) -> Result<bool, ManagedError> {
    Ok(object_of(text)?.get("allowManagedHooksOnly") == Some(&Value::Bool(true)))
}

/// Whether the managed settings `text` load Warden's plugin: its marketplace named at
/// [`MARKETPLACE_PATH`] and the plugin force-enabled.
pub fn loads_plugin(text: &str) -> Result<bool, ManagedError> {
    let object = object_of(text)?;
    let enabled = object.get("enabledPlugins").and_then(|p| p.get(PLUGIN_KEY)) == Some(&Value::Bool(true));
    let source = object.get("extraKnownMarketplaces").and_then(|m| m.get(NAME)).and_then(|m| m.get("source"));
    let at = source.and_then(|s| s.get("path")).and_then(Value::as_str);
    let kind = source.and_then(|s| s.get("source")).and_then(Value::as_str);
    Ok(enabled && kind == Some("directory") && at == Some(MARKETPLACE_PATH))
}

/// The managed settings `text` with Warden's marketplace and plugin added, every other key
/// kept; `Err` when the text is not an object of objects where Warden writes, or says
/// `allowManagedHooksOnly: true`, which would switch Warden's hooks off (H-76).
pub fn merged_settings(text: &str) -> Result<String, ManagedError> {
    if blocks_all_hooks(text)? {
        return Err(ManagedError::BlocksAllHooks);
    }
    let mut object = object_of(text)?;
    let source = json!({"source": {"source": "directory", "path": MARKETPLACE_PATH}});
    let markets = object.entry("extraKnownMarketplaces").or_insert_with(|| json!({}));
    markets
        .as_object_mut()
        .ok_or(ManagedError::NotAnObject { key: "extraKnownMarketplaces" })?
        .insert(NAME.to_owned(), source);
    let plugins = object.entry("enabledPlugins").or_insert_with(|| json!({}));
    plugins
        .as_object_mut()
        .ok_or(ManagedError::NotAnObject { key: "enabledPlugins" })?
        .insert(PLUGIN_KEY.to_owned(), json!(true));
    Ok(serde_json::to_string_pretty(&Value::Object(object)).map(|t| t + "\n")?)
}

/// The marketplace's catalogue, naming the one plugin.
fn marketplace() -> String {
    let catalogue = json!({
        "name": NAME,
        "owner": {"name": "Agent Warden"},
        "plugins": [{"name": NAME, "source": format!("./{NAME}"),
                     "description": "Agent Warden's hooks: every tool call, spawn and stop asked of Warden"}],
    });
    serde_json::to_string_pretty(&catalogue).map(|t| t + "\n").unwrap_or_default()
}

/// The plugin's manifest.
fn plugin() -> String {
    let manifest = json!({
        "name": NAME, "version": env!("CARGO_PKG_VERSION"),
        "description": "Agent Warden's hooks, installed by the administrator (warden init copilot --managed)",
    });
    serde_json::to_string_pretty(&manifest).map(|t| t + "\n").unwrap_or_default()
}

/// What `warden init copilot --managed DIR` writes and says for the hook line `command` with
/// Copilot's `timeout` (seconds): DIR's managed settings (merged) and the marketplace under it.
/// `Err` says why nothing is written.
pub fn install(
    dir: &Path,
    project: &Path,
    command: &str,
    timeout: u64,
    read: Read<'_>,
) -> Result<Installing, InstallError> {
    let settings = dir.join(SETTINGS_FILE);
    let old = read(dir, &settings)?.unwrap_or_default();
    let merged = merged_settings(&old).map_err(|e| InstallError::file(&settings, e))?;
    let market = dir.join(MARKETPLACE_DIR);
    let file = |relative: &str, text: String| {
        let path = market.join(relative);
        FileWrite { root: dir.to_path_buf(), make: path.parent().map(Path::to_path_buf), path, text }
    };
    let writes = vec![
        file(".claude-plugin/marketplace.json", marketplace()),
        file(&format!("{NAME}/.claude-plugin/plugin.json"), plugin()),
        file(PLUGIN_HOOKS, hook_file(command, timeout)),
        FileWrite {
            root: dir.to_path_buf(),
            path: settings.clone(),
            text: merged,
            make: Some(dir.to_path_buf()),
        },
    ];
    let said = vec![
        format!(
            "wrote Warden's managed plugin to {} ({}; timeout {timeout} s) and named it in {}",
            market.display(),
            EVENTS.join(", "),
            settings.display()
        ),
        format!(
            "  install {} as {MANAGED_DIR} (root-owned): Copilot then runs Warden's hooks for every user, \
             whatever their settings; a trusted project's `disableAllHooks` still switches them off \
             (docs/copilot.md)",
            dir.display()
        ),
    ];
    let next = format!(
        "next: seal and approve (`warden seal`, `warden approve`), check with `warden doctor --harness \
         copilot --project {}`, then run Copilot with AGENTWARDEN_ENABLE_SUBAGENTS=true",
        project.display()
    );
    Ok(Installing { writes, said, next, ..Installing::default() })
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::{PLUGIN_HOOKS, blocks_all_hooks, install, loads_plugin, merged_settings};

    /// The merge keeps every other key, adds the marketplace and the force-enabled plugin, and
    /// what it writes is read back as loading the plugin.
    #[test]
    fn the_merge_keeps_other_keys_and_loads_the_plugin() {
        let old = r#"{"model": "m", "enabledPlugins": {"other@x": false}}"#;
        let merged = merged_settings(old).unwrap_or_default();
        let value: serde_json::Value = serde_json::from_str(&merged).unwrap_or_default();
        assert_eq!(value["model"], "m");
        assert_eq!(value["enabledPlugins"]["other@x"], false);
        assert_eq!(value["enabledPlugins"]["agentwarden@agentwarden"], true);
        assert_eq!(loads_plugin(&merged).ok(), Some(true));
        assert_eq!(loads_plugin(old).ok(), Some(false));
        assert_eq!(loads_plugin("").ok(), Some(false));
    }

    /// A file that switches every hook off, is not an object, or holds a key Warden writes
    /// that is not an object is refused: nothing would load Warden's hooks (H-76).
    #[test]
    fn a_file_that_would_switch_warden_off_is_refused() {
        for text in [
            r#"{"allowManagedHooksOnly": true}"#,
            "[]",
            "{not json",
            r#"{"enabledPlugins": []}"#,
            r#"{"extraKnownMarketplaces": "x"}"#,
        ] {
            assert!(merged_settings(text).is_err(), "{text}");
        }
        assert_eq!(blocks_all_hooks(r#"{"allowManagedHooksOnly": true}"#).ok(), Some(true));
        assert_eq!(blocks_all_hooks(r#"{"allowManagedHooksOnly": false}"#).ok(), Some(false));
    }

    /// The plan writes the marketplace, the plugin and its hook file under DIR, then the
    /// settings; the hook file is Warden's own.
    #[test]
    fn the_plan_writes_the_marketplace_then_the_settings() {
        let mut none = |_: &Path, _: &Path| Ok(None);
        let plan =
            install(Path::new("/m"), Path::new("/p"), "warden hook", 30, &mut none).unwrap_or_default();
        let paths: Vec<&Path> = plan.writes.iter().map(|w| w.path.as_path()).collect();
        assert_eq!(
            paths,
            [
                Path::new("/m/agentwarden-marketplace/.claude-plugin/marketplace.json"),
                Path::new("/m/agentwarden-marketplace/agentwarden/.claude-plugin/plugin.json"),
                &Path::new("/m/agentwarden-marketplace").join(PLUGIN_HOOKS),
                Path::new("/m/managed-settings.json"),
            ]
        );
        let hooks = plan.writes.get(2).map(|w| w.text.as_str()).unwrap_or_default();
        assert_eq!(hooks, crate::setup::hooks::hook_file("warden hook", 30));
        let mut refusing = |_: &Path, _: &Path| Ok(Some(r#"{"allowManagedHooksOnly": true}"#.to_owned()));
        assert!(install(Path::new("/m"), Path::new("/p"), "warden hook", 30, &mut refusing).is_err());
    }
}
