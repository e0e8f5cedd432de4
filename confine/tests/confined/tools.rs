//! The everyday tools work confined where the manifest allows them (issue 50): a commit with
//! the hooks protected, an offline build with its target in the workspace, a package's tests.

use crate::support::{Tree, said};

#[test]
fn git_commits_with_the_hooks_protected() {
    let tree = Tree::new();
    tree.file("README.md", "hello");
    let git =
        std::process::Command::new("git").arg("init").arg("-q").current_dir(tree.ws()).status().unwrap();
    assert!(git.success());
    let confinement = tree.confinement(&["Edit"], &[".git/hooks"]);
    let output = tree.run(
        &confinement,
        "git add -A && git -c user.name=a -c user.email=a@example.org commit -qm first && git log --format=%s",
    );
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "first", "{}", said(&output));
    // A hook is exactly what the agent must not plant.
    let output = tree
        .run(&confinement, "echo 'touch pwned' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit");
    assert!(!tree.ws().join(".git/hooks/pre-commit").exists(), "{}", said(&output));
}

#[test]
fn cargo_builds_offline_with_its_target_in_the_workspace() {
    let tree = Tree::new();
    tree.file(
        "Cargo.toml",
        "[package]\nname = \"tiny\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
    );
    tree.file("src/main.rs", "fn main() { println!(\"tiny ran\"); }\n");
    // The lock file is made before: a grant of a file that does not exist yet grants nothing
    // (Landlock grants beneath what it can open).
    let lock = std::process::Command::new("cargo")
        .args(["generate-lockfile", "--offline"])
        .current_dir(tree.ws())
        .status();
    assert!(lock.unwrap().success());
    let confinement = tree.confinement(&["Edit(/target/**)", "Edit(/Cargo.lock)"], &[]);
    std::fs::create_dir(tree.ws().join("target")).unwrap();
    let output = tree.run(&confinement, "cargo build --offline -q && ./target/debug/tiny");
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "tiny ran", "{}", said(&output));
    // The sources are not the build's to write.
    let output = tree.run(&confinement, "echo '// x' >> src/main.rs");
    assert!(!output.status.success(), "{}", said(&output));
}

#[test]
fn npm_runs_a_packages_tests() {
    let tree = Tree::new();
    tree.file("package.json", r#"{"name":"tiny","version":"1.0.0","scripts":{"test":"node test.js"}}"#);
    tree.file(
        "test.js",
        "require('fs').writeFileSync('result.txt', 'passed'); console.log('tests passed');\n",
    );
    let output = tree.run(&tree.confinement(&["Edit"], &[]), "npm test --silent");
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "tests passed", "{}", said(&output));
    assert_eq!(std::fs::read_to_string(tree.ws().join("result.txt")).unwrap(), "passed");
}
