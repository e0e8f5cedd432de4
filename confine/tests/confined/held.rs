//! The held names (T-19) are read-only in every confinement wherever the launcher looks
//! (E-31): a confined shell under a grant of the whole workspace cannot plant a git hook, change
//! git's configuration or a shell's start-up file; git itself still commits.

use std::path::Path;

use crate::support::{Tree, launch, said};

/// Writes `path` with python3, as an agent under `Bash(python3:*)` would: `append` or not.
fn python_writes(path: &str, append: bool) -> String {
    let mode = if append { "a" } else { "w" };
    format!("python3 -c \"open('{path}', '{mode}').write('evil\\n')\"")
}

fn git(dir: &Path, args: &[&str]) {
    let status = std::process::Command::new("git").args(args).current_dir(dir).status().unwrap();
    assert!(status.success(), "git {args:?}");
}

#[test]
fn a_confined_python_cannot_write_a_git_hook_or_gits_config_under_edit_everything() {
    // `Edit(**)` names a file at any depth, which the kernel cannot grant: the shell gets no
    // write at all there (E-2). These two grant the whole workspace.
    for edit in ["Edit(/**)", "Edit"] {
        python_cannot_write_git(edit);
    }
}

fn python_cannot_write_git(edit: &str) {
    let tree = Tree::new();
    tree.file("README.md", "hello");
    git(&tree.ws(), &["init", "-q"]);
    let config = std::fs::read_to_string(tree.ws().join(".git/config")).unwrap();
    let confinement = tree.confinement(&[edit, "Bash(python3:*)"], &[]);
    // (command, what it tries)
    let attacks = [
        (python_writes(".git/hooks/pre-commit", false), "plant a hook"),
        (python_writes(".git/config", true), "append to git's configuration"),
        ("git config core.hooksPath /tmp/hooks".to_owned(), "point git at other hooks"),
        (
            "rm -rf .git/hooks && mkdir .git/hooks && echo evil > .git/hooks/pre-commit".to_owned(),
            "replace them",
        ),
        (
            "mv .git/config .git/config.old; echo evil > .git/config".to_owned(),
            "move the configuration aside",
        ),
        (
            "mv .git .git.old; mkdir -p .git/hooks; echo evil > .git/hooks/pre-commit".to_owned(),
            "move .git aside",
        ),
    ];
    for (attack, what) in attacks {
        let output = tree.run(&confinement, &attack);
        assert!(!tree.ws().join(".git/hooks/pre-commit").exists(), "{edit} {what}: {}", said(&output));
        assert!(tree.ws().join(".git/hooks").is_dir(), "{what}: {}", said(&output));
        let now = std::fs::read_to_string(tree.ws().join(".git/config")).unwrap();
        assert_eq!(now, config, "{what}: git's configuration changed: {}", said(&output));
    }
    // The work still runs: a file written, a commit made.
    let output = tree.run(
        &confinement,
        "python3 -c \"open('src.txt', 'w').write('x')\" && git add -A && \
         git -c user.name=a -c user.email=a@example.org commit -qm confined && git log --format=%s",
    );
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "confined", "{}", said(&output));
}

#[test]
fn each_held_name_found_where_the_launcher_looks_is_read_only() {
    // (held name made at the top of the workspace, a directory or not)
    let names: [(&str, bool); 10] = [
        (".bashrc", false),
        (".profile", false),
        (".envrc", false),
        (".npmrc", false),
        (".mcp.json", false),
        (".gitmodules", false),
        (".vscode", true),
        (".husky", true),
        (".cargo", true),
        (".config/git", true),
    ];
    for (name, dir) in names {
        let tree = Tree::new();
        let file = if dir { format!("{name}/held") } else { name.to_owned() };
        tree.file(&file, "kept");
        let confinement = tree.confinement(&["Edit"], &[]);
        for attack in [
            format!("echo evil > {file}"),
            format!("echo evil >> {file}"),
            format!("rm -rf {name}"),
            format!("mv {name} moved; mkdir -p {name}; echo evil > {file}"),
            format!("mkdir -p {name}/x && echo evil > {name}/x/y"),
        ] {
            let output = tree.run(&confinement, &attack);
            let kept = std::fs::read_to_string(tree.ws().join(&file)).unwrap_or_default();
            assert_eq!(kept, "kept", "{name}: `{attack}`: {}", said(&output));
            assert!(!tree.ws().join(name).join("x").exists(), "{name}: `{attack}`: {}", said(&output));
        }
        // The rest of the workspace is the agent's.
        let output = tree.run(&confinement, "echo ok > free && cat free");
        assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "ok", "{name}: {}", said(&output));
    }
}

#[test]
fn held_names_are_looked_for_up_the_working_directory_and_at_the_root() {
    let tree = Tree::new();
    tree.file("a/b/.envrc", "kept");
    tree.file("a/.npmrc", "kept");
    tree.file(".bashrc", "kept");
    tree.file("c/d/.envrc", "not looked for");
    std::fs::create_dir_all(tree.ws().join("elsewhere")).unwrap();
    let confinement = tree.confinement(&["Edit"], &[]);
    // From `a/b`: its own `.envrc`, its parent's `.npmrc` and the root's `.bashrc` are held.
    let output = launch(
        None,
        &tree.ws().join("a/b"),
        &confinement,
        "echo evil > .envrc; echo evil > ../.npmrc; echo evil > ../../.bashrc; echo ok > free; cat free",
    );
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "ok", "{}", said(&output));
    for held in ["a/b/.envrc", "a/.npmrc", ".bashrc"] {
        assert_eq!(
            std::fs::read_to_string(tree.ws().join(held)).unwrap(),
            "kept",
            "{held}: {}",
            said(&output)
        );
    }
    // From elsewhere in the workspace, the root's still are.
    let output = launch(None, &tree.ws().join("elsewhere"), &confinement, "echo evil > ../.bashrc");
    assert_eq!(std::fs::read_to_string(tree.ws().join(".bashrc")).unwrap(), "kept", "{}", said(&output));
    // One neither on the way up nor at a grant's top is not looked for: the hook holds it for
    // the file tools; the shell may write it (E-31, named in confinement.md).
    let output = tree.run(&confinement, "echo written > c/d/.envrc");
    assert_eq!(
        std::fs::read_to_string(tree.ws().join("c/d/.envrc")).unwrap(),
        "written\n",
        "{}",
        said(&output)
    );
}

#[test]
fn a_git_file_is_held_and_a_git_directory_without_hooks_is_read_only_whole() {
    // A worktree's `.git` is a file naming its git directory: rewritten, it would point git at
    // one the agent made, hooks and all.
    let tree = Tree::new();
    tree.file(".git", "gitdir: /elsewhere/.git/worktrees/w");
    let confinement = tree.confinement(&["Edit"], &[]);
    let output =
        tree.run(&confinement, "echo 'gitdir: /tmp/evil' > .git; rm -f .git; echo ok > free; cat free");
    assert_eq!(
        std::fs::read_to_string(tree.ws().join(".git")).unwrap(),
        "gitdir: /elsewhere/.git/worktrees/w"
    );
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "ok", "{}", said(&output));
    // A git directory with no `hooks`: a new one cannot be made, so `.git` is read-only whole.
    let tree = Tree::new();
    tree.file(".git/config", "[core]\n");
    let output =
        tree.run(&tree.confinement(&["Edit"], &[]), "mkdir .git/hooks && echo evil > .git/hooks/pre-commit");
    assert!(!tree.ws().join(".git/hooks").exists(), "{}", said(&output));
}

#[test]
fn a_held_name_that_does_not_exist_leaves_the_workspace_writable() {
    // Nothing is carved where there is nothing (E-31): the work goes on.
    let tree = Tree::new();
    tree.file("src/main.rs", "fn main() {}");
    let output =
        tree.run(&tree.confinement(&["Edit"], &[]), "echo x > src/new.rs && echo x > top && echo ok");
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "ok", "{}", said(&output));
}

#[test]
fn a_held_name_that_is_a_symbolic_link_cannot_be_replaced() {
    // A dotfiles manager's `.bashrc` is a link: a link cannot be a mount point, so its directory
    // is read-only instead (E-31, E-4), and the link stays.
    let tree = Tree::new();
    std::fs::write(tree.out().join("bashrc"), "kept").unwrap();
    std::os::unix::fs::symlink(tree.out().join("bashrc"), tree.ws().join(".bashrc")).unwrap();
    tree.file("src/main.rs", "fn main() {}");
    let confinement = tree.confinement(&["Edit"], &[]);
    let output = tree.run(&confinement, "rm -f .bashrc; echo evil > .bashrc; echo evil > src/main.rs");
    assert!(
        std::fs::symlink_metadata(tree.ws().join(".bashrc")).unwrap().file_type().is_symlink(),
        "{}",
        said(&output)
    );
    assert_eq!(std::fs::read_to_string(tree.out().join("bashrc")).unwrap(), "kept");
    // Narrower: what is beneath the directory is read-only too.
    assert_eq!(std::fs::read_to_string(tree.ws().join("src/main.rs")).unwrap(), "fn main() {}");
}
