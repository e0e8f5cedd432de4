//! A protected path under a writable directory: a read-only hole no write, rename, unlink,
//! mode change or link gets through, as root and as a second user (E-4).

use std::os::unix::fs::{MetadataExt, PermissionsExt};

use crate::support::{AGENT_UID, Tree, is_root, launch, said, text};

/// The protected paths of these tests: a directory, a file, and a file deep below unprotected
/// directories (whose parents the agent may try to move aside).
const PROTECTED: [&str; 3] = ["okrs", "config.toml", "a/b/c.txt"];

/// Every way the agent may try to change a protected file from a writable directory: (command,
/// what it tries).
const ATTACKS: [(&str, &str); 20] = [
    ("echo evil > /proc/$PPID/cwd/okrs/a.md", "through the launching process's working directory"),
    ("echo evil > /proc/1/root$PWD/okrs/a.md", "through the first process's root"),
    ("echo evil > okrs/a.md", "write"),
    ("echo evil >> config.toml", "append"),
    (": > config.toml", "truncate"),
    ("echo evil > e && mv -f e config.toml", "rename over"),
    ("echo evil > e && cp e config.toml", "copy over"),
    ("rm -f config.toml", "unlink"),
    ("rm -rf okrs", "remove the directory"),
    ("mv okrs okrs.old; mkdir -p okrs; echo evil > okrs/a.md", "move the directory aside"),
    ("mv a z; mkdir -p a/b; echo evil > a/b/c.txt", "move a parent aside"),
    ("mv a/b z; mkdir -p a/b; echo evil > a/b/c.txt", "move the direct parent aside"),
    ("rm -rf a", "remove a parent"),
    ("chmod 777 config.toml", "mode change"),
    ("touch -d 2000-01-01 config.toml", "time change"),
    ("ln config.toml hard && echo evil > hard", "a hard link made now"),
    ("ln -sf /dev/null okrs/a.md", "a link in place of a file"),
    ("mkdir okrs/new && echo evil > okrs/new/x", "a new file in the directory"),
    ("unshare -Urm sh -c 'umount -l okrs; echo evil > okrs/a.md'", "unmount the hole in a new namespace"),
    ("unshare -Urm sh -c 'mount -o remount,rw,bind okrs; echo evil > okrs/a.md'", "remount it writable"),
];

/// (relative path, contents, mode, mtime) of every file beneath the protected paths.
fn snapshot(tree: &Tree) -> Vec<(String, String, u32, i64)> {
    let mut files = Vec::new();
    let mut stack: Vec<std::path::PathBuf> = PROTECTED.iter().map(|p| tree.ws().join(p)).collect();
    while let Some(path) = stack.pop() {
        let meta =
            std::fs::symlink_metadata(&path).unwrap_or_else(|e| panic!("{} is gone: {e}", path.display()));
        let name = path.strip_prefix(tree.ws()).unwrap().display().to_string();
        if meta.is_dir() {
            files.push((name, String::new(), meta.mode(), meta.mtime()));
            stack.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
        } else {
            files.push((name, std::fs::read_to_string(&path).unwrap(), meta.mode(), meta.mtime()));
        }
    }
    files.sort();
    files
}

fn protected_holes_hold(uid: Option<u32>) {
    for (attack, what) in ATTACKS {
        let tree = Tree::new();
        tree.file("okrs/a.md", "objectives");
        tree.file("config.toml", "setting = 1");
        tree.file("a/b/c.txt", "deep");
        std::fs::set_permissions(tree.ws().join("config.toml"), std::fs::Permissions::from_mode(0o644))
            .unwrap();
        let confinement = tree.confinement(&["Edit"], &PROTECTED);
        if let Some(uid) = uid {
            tree.give_to(uid);
        }
        let before = snapshot(&tree);
        let output = match uid {
            Some(uid) => tree.run_as(uid, &confinement, attack),
            None => tree.run(&confinement, attack),
        };
        assert_eq!(
            snapshot(&tree),
            before,
            "{what} (`{attack}`) changed a protected path: {}",
            said(&output)
        );
        // The rest of the workspace stays writable: the hole is a hole, not a lock.
        let output = match uid {
            Some(uid) => tree.run_as(uid, &confinement, "echo ok > free && cat free"),
            None => tree.run(&confinement, "echo ok > free && cat free"),
        };
        assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "ok", "{what}: {}", said(&output));
    }
}

#[test]
fn a_protected_path_under_a_writable_dir_cannot_be_changed_as_root() {
    protected_holes_hold(None);
}

#[test]
fn a_protected_path_under_a_writable_dir_cannot_be_changed_as_a_second_user() {
    assert!(is_root(), "this test runs the agent as a second user: it needs root to switch");
    protected_holes_hold(Some(AGENT_UID));
}

#[test]
fn a_protected_path_holds_from_a_working_directory_beneath_its_parents() {
    let tree = Tree::new();
    tree.file("a/b/c.txt", "deep");
    tree.file("okrs/a.md", "objectives");
    let confinement = tree.confinement(&["Edit"], &["a/b/c.txt", "okrs"]);
    // (working directory, attack)
    let table: [(&str, &str); 3] = [
        ("a/b", "echo evil > c.txt"),
        ("a", "mv b z; mkdir b; echo evil > b/c.txt"),
        ("okrs", "echo evil > a.md"),
    ];
    for (cwd, attack) in table {
        let output = launch(None, &tree.ws().join(cwd), &confinement, attack);
        assert_eq!(
            std::fs::read_to_string(tree.ws().join("a/b/c.txt")).unwrap(),
            "deep",
            "{cwd}: {}",
            said(&output)
        );
        assert_eq!(
            std::fs::read_to_string(tree.ws().join("okrs/a.md")).unwrap(),
            "objectives",
            "{cwd}: {}",
            said(&output)
        );
    }
}

#[test]
fn holes_that_share_a_parent_or_nest_all_hold() {
    // (protected paths, in the order the launcher is given them, the files written)
    let table: [(&[&str], &[&str]); 6] = [
        (&["a/x", "a/y"], &["a/x", "a/y"]),
        (&["a/b/x", "a/y"], &["a/b/x", "a/y"]),
        (&["a", "a/b/x"], &["a/b/x", "a/y"]),
        (&["a/b/x", "a"], &["a/b/x", "a/y"]),
        // A missing hole refuses creation in its parent `a`, which the other hole's pin binds;
        // `a/y`, not protected, stays writable there (E-34).
        (&["a/missing", "a/b/x"], &["a/b/x"]),
        (&["a/b/x", "a/missing"], &["a/b/x"]),
    ];
    for (protected, files) in table {
        let tree = Tree::new();
        for file in files {
            tree.file(file, "kept");
        }
        // In the given order, nested ones too: the launcher must not rely on the policy's.
        let mut confinement = tree.confinement(&["Edit"], &[]);
        for path in protected {
            confinement.push_str(&format!(" ro={}", text(&tree.ws().join(path))));
        }
        for file in files {
            let output = tree.run(&confinement, &format!("echo evil > {file}"));
            let kept = std::fs::read_to_string(tree.ws().join(file)).unwrap();
            assert_eq!(kept, "kept", "{protected:?}: {file} written: {}", said(&output));
        }
        for path in protected.iter().filter(|p| !tree.ws().join(p).exists()) {
            let output = tree.run(&confinement, &format!("echo evil > {path}"));
            assert!(!tree.ws().join(path).exists(), "{protected:?}: {path} made: {}", said(&output));
        }
    }
}

#[test]
fn a_protected_path_that_does_not_exist_cannot_be_made() {
    let tree = Tree::new();
    tree.file("src/main.rs", "fn main() {}");
    let confinement = tree.confinement(&["Edit"], &["okrs"]);
    let output = tree.run(&confinement, "mkdir okrs; echo evil > okrs/a.md");
    assert!(!tree.ws().join("okrs").exists(), "the agent made the protected path: {}", said(&output));
    // The way to it refuses creation, nothing more: a directory beside it keeps the grant
    // (E-34, which replaced the read-only parent of E-4).
    let output = tree.run(&confinement, "echo x > src/new.rs");
    assert!(tree.ws().join("src/new.rs").exists(), "{}", said(&output));
}

#[test]
fn a_protected_path_that_is_a_symbolic_link_cannot_be_replaced() {
    let tree = Tree::new();
    std::fs::create_dir(tree.out().join("real")).unwrap();
    std::os::unix::fs::symlink(tree.out().join("real"), tree.ws().join("okrs")).unwrap();
    let confinement = tree.confinement(&["Edit"], &["okrs"]);
    let output = tree.run(&confinement, "rm okrs; mkdir okrs; echo evil > okrs/a.md");
    assert!(
        std::fs::symlink_metadata(tree.ws().join("okrs")).unwrap().file_type().is_symlink(),
        "{}",
        said(&output)
    );
}

#[test]
fn a_protected_path_beneath_a_symbolic_link_cannot_be_replaced() {
    let tree = Tree::new();
    tree.file("real/b/c.txt", "deep");
    std::os::unix::fs::symlink(tree.ws().join("real"), tree.ws().join("a")).unwrap();
    let confinement = tree.confinement(&["Edit"], &["a/b/c.txt"]);
    let output = tree.run(&confinement, "rm a && mkdir -p a/b && echo evil > a/b/c.txt");
    assert!(
        std::fs::symlink_metadata(tree.ws().join("a")).unwrap().file_type().is_symlink(),
        "{}",
        said(&output)
    );
    assert_eq!(std::fs::read_to_string(tree.ws().join("a/b/c.txt")).unwrap(), "deep");
}

#[test]
fn a_write_grant_through_a_symbolic_link_is_refused() {
    let tree = Tree::new();
    // An earlier call, or anyone, made the granted directory a link to somewhere else.
    std::os::unix::fs::symlink(tree.out(), tree.ws().join("src")).unwrap();
    let output = tree.run(&tree.confinement(&["Edit(/src/**)"], &[]), "echo ran; echo evil > src/x");
    assert_eq!(output.status.code(), Some(agentwarden_confine::REFUSED), "{}", said(&output));
    assert!(!tree.out().join("x").exists(), "the grant followed the link: {}", said(&output));
}

#[test]
fn a_protected_file_with_another_hard_link_is_refused() {
    let tree = Tree::new();
    let protected = tree.file("config.toml", "setting = 1");
    // A link made earlier, by a process that was not confined.
    std::fs::hard_link(&protected, tree.ws().join("alias")).unwrap();
    let output = tree.run(&tree.confinement(&["Edit"], &["config.toml"]), "echo ran; echo evil > alias");
    assert_eq!(output.status.code(), Some(agentwarden_confine::REFUSED), "{}", said(&output));
    assert!(output.stdout.is_empty(), "the command ran: {}", said(&output));
    assert_eq!(std::fs::read_to_string(&protected).unwrap(), "setting = 1");
    let reason = String::from_utf8_lossy(&output.stderr);
    assert_eq!(reason.lines().count(), 1, "one line: {reason}");
    assert!(reason.contains("hard link"), "{reason}");
}
