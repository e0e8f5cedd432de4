//! `warden init copilot --managed DIR` (H-75, H-76), the real binary on the bundled Copilot
//! example: DIR gets the managed settings, merged (another key kept), and the marketplace whose
//! plugin's hook file is the project form's own; managed settings that say
//! `allowManagedHooksOnly: true` are refused with exit 2, the key named and nothing written.

#![expect(clippy::unwrap_used, reason = "test code: a failed unwrap is a failed test")]

use std::path::Path;
use std::process::{Command, Output};

#[expect(dead_code, reason = "these tests copy the Copilot example")]
mod support;

use support::{copy_dir, git};

const WARDEN: &str = env!("CARGO_BIN_EXE_warden");
const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/copilot");

fn init(root: &Path, args: &[&str]) -> Output {
    Command::new(WARDEN)
        .arg("--store")
        .arg(root.join(".agentwarden/audit"))
        .args(["init", "copilot", "--project"])
        .arg(root)
        .args(["--warden", WARDEN])
        .args(args)
        .current_dir(root)
        .env_remove("CLAUDECODE")
        .env_remove("CODEX_THREAD_ID")
        .env_remove("GEMINI_CLI")
        .env_remove("COPILOT_CLI")
        .output()
        .unwrap()
}

#[test]
fn the_managed_form_is_written_merged_and_a_switch_that_blocks_it_refused() {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(dir.path()).unwrap();
    let root = base.join("project");
    copy_dir(Path::new(EXAMPLE), &root);
    git(&root, &["init", "-q"]);
    let managed = base.join("managed");
    std::fs::create_dir_all(&managed).unwrap();
    std::fs::write(managed.join("managed-settings.json"), r#"{"model": "kept"}"#).unwrap();
    let out = init(&root, &["--managed", managed.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let settings: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(managed.join("managed-settings.json")).unwrap())
            .unwrap();
    assert_eq!(settings["model"], "kept");
    assert_eq!(settings["enabledPlugins"]["agentwarden@agentwarden"], true);
    assert_eq!(
        settings["extraKnownMarketplaces"]["agentwarden"]["source"]["path"],
        "/etc/github-copilot/agentwarden-marketplace"
    );
    let plugin_hooks =
        std::fs::read_to_string(managed.join("agentwarden-marketplace/agentwarden/hooks/hooks.json"))
            .unwrap();
    assert!(plugin_hooks.contains(" hook --harness copilot "), "{plugin_hooks}");
    assert!(!root.join(".github/hooks/agentwarden.json").exists(), "the managed form writes no project hook");
    // The project's form writes the same hook file.
    let out = init(&root, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(root.join(".github/hooks/agentwarden.json")).unwrap(), plugin_hooks);

    let blocked = base.join("blocked");
    std::fs::create_dir_all(&blocked).unwrap();
    std::fs::write(blocked.join("managed-settings.json"), r#"{"allowManagedHooksOnly": true}"#).unwrap();
    let out = init(&root, &["--managed", blocked.to_str().unwrap()]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(said.contains("allowManagedHooksOnly"), "{said}");
    assert_eq!(std::fs::read_dir(&blocked).unwrap().count(), 1, "nothing written");
}
