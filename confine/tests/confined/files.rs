//! Writes beneath the write grants only; reads limited where the manifest has read rules.

use crate::support::{AGENT_UID, Tree, is_root, said, text};

/// The agent's ways to write outside the grants, each `{}` the target.
const WRITES: [&str; 6] =
    ["echo evil > {}", "touch {}", "mkdir {}", "ln -s /etc/passwd {}", "mkfifo {}", "cp /etc/hostname {}"];

fn writes_outside_fail(uid: Option<u32>) {
    let tree = Tree::new();
    let confinement = tree.confinement(&["Edit(/src/**)"], &[]);
    if let Some(uid) = uid {
        tree.give_to(uid);
    }
    let run = |command: &str| match uid {
        Some(uid) => tree.run_as(uid, &confinement, command),
        None => tree.run(&confinement, command),
    };
    for (n, write) in WRITES.iter().enumerate() {
        for outside in [tree.ws().join(format!("top{n}")), tree.out().join(format!("x{n}"))] {
            let output = run(&write.replace("{}", &text(&outside)));
            assert!(
                std::fs::symlink_metadata(&outside).is_err(),
                "{write} wrote {}: {}",
                outside.display(),
                said(&output)
            );
        }
        // The same write where the manifest grants it succeeds: the test tells them apart.
        let inside = tree.ws().join(format!("src/in{n}"));
        std::fs::create_dir_all(tree.ws().join("src")).unwrap();
        if let Some(uid) = uid {
            tree.give_to(uid);
        }
        let output = run(&write.replace("{}", &text(&inside)));
        assert!(
            std::fs::symlink_metadata(&inside).is_ok(),
            "{write} could not write {}: {}",
            inside.display(),
            said(&output)
        );
    }
    // The session's temporary directory is writable and is the command's TMPDIR (E-3, E-12).
    let output = run("echo t > \"$TMPDIR/t\" && echo \"$TMPDIR\"");
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), text(&tree.tmp()), "{}", said(&output));
    assert!(tree.tmp().join("t").exists());
}

#[test]
fn writes_outside_the_grants_fail_as_root() {
    writes_outside_fail(None);
}

#[test]
fn writes_outside_the_grants_fail_as_a_second_user() {
    assert!(is_root(), "this test runs the agent as a second user: it needs root to switch");
    writes_outside_fail(Some(AGENT_UID));
}

#[test]
fn reads_are_limited_where_the_manifest_has_read_rules() {
    let tree = Tree::new();
    tree.file("docs/a.md", "doc");
    tree.file("secret.txt", "secret");
    std::fs::write(tree.out().join("o.txt"), "other").unwrap();
    // (rules, file, readable, why)
    let table: [(&[&str], &str, bool, &str); 6] = [
        (&["Read(/docs/**)"], "docs/a.md", true, "granted"),
        (&["Read(/docs/**)"], "secret.txt", false, "in the workspace, not granted"),
        (
            &["Read(/docs/**)", "Edit(/src/**)"],
            "secret.txt",
            false,
            "a write grant elsewhere reads nothing here",
        ),
        (&["Edit(/src/**)"], "secret.txt", true, "no read rule: reads everywhere (E-5)"),
        (&["Read(/docs/**)"], "../out/o.txt", false, "outside the workspace"),
        (&["Read"], "../out/o.txt", true, "the read tool granted whole"),
    ];
    for (rules, file, readable, why) in table {
        let output = tree.run(&tree.confinement(rules, &[]), &format!("cat {file}"));
        assert_eq!(output.status.success(), readable, "{rules:?} {file}: {why}: {}", said(&output));
    }
    // With read rules the system's programs still run (the baseline, E-3).
    let output = tree.run(&tree.confinement(&["Read(/docs/**)"], &[]), "ls /usr/bin >/dev/null && echo ran");
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "ran", "{}", said(&output));
}

#[test]
fn a_read_grant_that_is_a_symbolic_link_grants_nothing() {
    let tree = Tree::new();
    std::fs::write(tree.out().join("secret.txt"), "secret").unwrap();
    // The agent made the granted directory a link to what it wants to read (E-30).
    std::os::unix::fs::symlink(tree.out(), tree.ws().join("docs")).unwrap();
    let output = tree.run(&tree.confinement(&["Read(/docs/**)"], &[]), "cat docs/secret.txt");
    assert!(!output.status.success(), "the read grant followed the link: {}", said(&output));
    assert!(!String::from_utf8_lossy(&output.stdout).contains("secret"), "{}", said(&output));
    // Beneath a link on the way, the same.
    std::fs::remove_file(tree.ws().join("docs")).unwrap();
    std::os::unix::fs::symlink(tree.dir_path(), tree.ws().join("docs")).unwrap();
    let output = tree.run(&tree.confinement(&["Read(/docs/out/**)"], &[]), "cat docs/out/secret.txt");
    assert!(!output.status.success(), "the read grant followed the link: {}", said(&output));
}
