//! A protected path that does not exist beneath a write grant (E-34): the directories from the
//! grant's top down to its nearest existing ancestor refuse only the creation of entries, and
//! everything else in them stays as the grant gives it, so that `warden init`'s usual missing
//! paths (`.mcp.json`, `.claude/hooks`) no longer make the whole workspace read-only.

use crate::support::{Tree, said};

/// A workspace granted whole (a bare `Edit`), with `.mcp.json` and `.claude/hooks` protected and
/// missing, `.claude` itself there.
fn workspace() -> (Tree, String) {
    let tree = Tree::new();
    tree.file("README.md", "readme\n");
    tree.file("src/main.rs", "fn main() {}\n");
    tree.file(".claude/settings.json", "{}\n");
    tree.file("x", "payload\n");
    let confinement = tree.confinement(&["Edit"], &[".mcp.json", ".claude/hooks"]);
    (tree, confinement)
}

#[test]
fn a_missing_protected_path_leaves_the_rest_of_the_workspace_writable() {
    let (tree, confinement) = workspace();
    // Existing files at the top and in `.claude`, new files and directories beneath any other
    // directory: as the grant gives them.
    for (command, made) in [
        ("echo more >> README.md", "README.md"),
        ("echo x > src/new.rs", "src/new.rs"),
        ("mkdir src/d && echo x > src/d/f", "src/d/f"),
        ("echo '{\"a\":1}' > .claude/settings.json", ".claude/settings.json"),
    ] {
        let output = tree.run(&confinement, command);
        assert!(output.status.success(), "{command}: {}", said(&output));
        assert!(tree.ws().join(made).exists(), "{command}: {}", said(&output));
    }
    assert_eq!(std::fs::read_to_string(tree.ws().join("README.md")).unwrap(), "readme\nmore\n");
}

#[test]
fn a_missing_protected_path_cannot_be_made_by_any_means() {
    let (tree, confinement) = workspace();
    let attacks = [
        "touch .mcp.json",
        "echo '{}' > .mcp.json",
        "mv x .mcp.json",
        "ln -s x .mcp.json",
        "ln x .mcp.json",
        "mv src/main.rs .mcp.json",
        "mkfifo .mcp.json",
        "mkdir .claude/hooks",
        "mv src .claude/hooks",
        "ln -s ../src .claude/hooks",
        "mv .claude .claude-old && mkdir -p .claude/hooks",
        "rm -rf .claude && mkdir -p .claude/hooks",
        "cd src && mkdir ../.mcp.json",
    ];
    for attack in attacks {
        let output = tree.run(&confinement, attack);
        for name in [".mcp.json", ".claude/hooks"] {
            let made = tree.ws().join(name).symlink_metadata().is_ok();
            assert!(!made, "`{attack}` made {name}: {}", said(&output));
        }
    }
}

#[test]
fn a_new_entry_at_the_top_of_the_grant_is_the_cost() {
    let (tree, confinement) = workspace();
    // Named in the ruling (E-34): creation is refused in each directory on the way to a missing
    // protected path, the grant's top included.
    for command in ["touch NEW.md", "mkdir newdir", "mv README.md README2.md"] {
        let output = tree.run(&confinement, command);
        assert!(!output.status.success(), "{command}: {}", said(&output));
    }
    assert!(!tree.ws().join("NEW.md").exists() && !tree.ws().join("newdir").exists());
    assert!(tree.ws().join("README.md").exists());
}

#[test]
fn under_a_grant_of_the_whole_filesystem_only_the_way_to_the_missing_path_refuses_creation() {
    // The main session's grant (E-15): `/`, the workspace's missing `.mcp.json` protected.
    let tree = Tree::new();
    tree.file("README.md", "readme\n");
    tree.file("src/main.rs", "fn main() {}\n");
    let mcp = crate::support::text(&tree.ws().join(".mcp.json"));
    let confinement = format!("v1 required w=/ r=* ro={mcp} net=none");
    for (command, made) in [("echo more >> README.md", "README.md"), ("echo x > src/new.rs", "src/new.rs")] {
        let output = tree.run(&confinement, command);
        assert!(output.status.success() && tree.ws().join(made).exists(), "{command}: {}", said(&output));
    }
    // Beside the way: the tree's `out/` and `tmp/` take the full grant.
    let output = tree.run(&confinement, "echo x > ../out/new && echo x > ../tmp/new");
    assert!(output.status.success(), "{}", said(&output));
    for attack in ["touch .mcp.json", "mv README.md .mcp.json", "ln -s README.md .mcp.json"] {
        let output = tree.run(&confinement, attack);
        assert!(tree.ws().join(".mcp.json").symlink_metadata().is_err(), "`{attack}`: {}", said(&output));
    }
}

#[test]
fn as_a_second_user_the_same_holds() {
    if !crate::support::is_root() {
        return;
    }
    let (tree, confinement) = workspace();
    tree.give_to(crate::support::AGENT_UID);
    let uid = crate::support::AGENT_UID;
    let output = tree.run_as(uid, &confinement, "echo more >> README.md && echo x > src/new.rs");
    assert!(output.status.success(), "{}", said(&output));
    for attack in ["touch .mcp.json", "mv x .mcp.json", "ln -s x .mcp.json", "mkdir .claude/hooks"] {
        let output = tree.run_as(uid, &confinement, attack);
        for name in [".mcp.json", ".claude/hooks"] {
            assert!(
                tree.ws().join(name).symlink_metadata().is_err(),
                "`{attack}` made {name}: {}",
                said(&output)
            );
        }
    }
}
