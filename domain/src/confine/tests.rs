//! The policy's rules as tables (input, expected, why), and its invariants as properties: no
//! protected path is ever writable; stacking only narrows.

use proptest::prelude::*;

use super::*;
use crate::lineage::ToolRule;
use crate::lineage::syntax::{EDIT, EDIT_FAMILY, READ, READ_FAMILY};

/// The rule syntax's words (T-16), named where the domain spells them.
const WRITE: &str = EDIT_FAMILY[1];
const GREP: &str = READ_FAMILY[1];

const ROOT: &str = "/ws";
const TMP: &str = "/tmp/s1";

fn rules(texts: &[&str]) -> Vec<ToolRule> {
    texts.iter().map(|t| ToolRule::parse(t).unwrap_or_else(|e| panic!("{e}"))).collect()
}

fn at(cwd: &str, texts: &[&str], protected: &[&str]) -> Confinement {
    let place = Place { root: ROOT, cwd, session_tmp: TMP };
    let protected: Vec<String> = protected.iter().map(|p| (*p).to_owned()).collect();
    confinement(&rules(texts), &place, &protected, &Baseline::default())
}

fn of(texts: &[&str], protected: &[&str]) -> Confinement {
    at(ROOT, texts, protected)
}

fn strings(paths: &[&str]) -> Vec<String> {
    paths.iter().map(|p| (*p).to_owned()).collect()
}

#[test]
fn write_grants_are_the_edit_rules_directories() {
    // (rules, expected write grants beyond the session's temp dir, why)
    let table: [(&[&str], &[&str], &str); 10] = [
        (&[], &[TMP], "nothing granted: the session's temp dir alone (E-3)"),
        (&["Edit(src/**)"], &["/tmp/s1", "/ws/src"], "a directory and all beneath it"),
        (&["Edit(/src)"], &["/tmp/s1", "/ws/src"], "from the root: the same directory"),
        (&["Edit(//var/out/**)"], &["/tmp/s1", "/var/out"], "absolute"),
        (&["Edit(src/*.rs)"], &[TMP], "a glob in the last segment: not expressible, nothing (E-2)"),
        (&["Edit(src/**/gen)"], &[TMP], "a glob before the end: nothing (E-2)"),
        (&["Edit(*.md)"], &[TMP], "a name at any depth: nothing (E-2)"),
        (&[EDIT], &["/tmp/s1", "/ws"], "the tool granted whole: the workspace only (E-3)"),
        (&[WRITE], &["/tmp/s1", "/ws"], "a family member granted whole: the workspace only (E-3)"),
        (&["Edit(src/**)", "Edit(src/a/**)", "Bash(git *)"], &["/tmp/s1", "/ws/src"], "outermost only"),
    ];
    for (texts, expected, why) in table {
        assert_eq!(of(texts, &[]).write, strings(expected), "{texts:?}: {why}");
    }
}

#[test]
fn a_relative_rule_grants_where_the_root_and_the_working_directory_readings_meet() {
    // (cwd, rule, expected write grants, why)
    let table: [(&str, &str, &[&str], &str); 3] = [
        ("/ws", "Edit(src/**)", &["/tmp/s1", "/ws/src"], "the cwd is the root: one reading"),
        (
            "/ws/src",
            "Edit(src/**)",
            &["/tmp/s1", "/ws/src/src"],
            "/ws/src/src is beneath /ws/src: the deeper",
        ),
        ("/ws/lib", "Edit(src/**)", &[TMP], "/ws/src and /ws/lib/src never meet (T-5)"),
    ];
    for (cwd, rule, expected, why) in table {
        assert_eq!(at(cwd, &[rule], &[]).write, strings(expected), "{cwd} {rule}: {why}");
    }
}

/// (rules, protected, expected write grants, expected holes, why)
type Case = (
    &'static [&'static str],
    &'static [&'static str],
    &'static [&'static str],
    &'static [&'static str],
    &'static str,
);

#[test]
fn protected_paths_are_holes_or_take_the_grant_away() {
    let table: [Case; 4] = [
        (&[EDIT], &["okrs/"], &["/tmp/s1", "/ws"], &["/ws/okrs"], "a hole under a writable dir (E-4)"),
        (&["Edit(okrs/team/**)"], &["okrs"], &[TMP], &[], "a grant beneath a protected path is none (E-4)"),
        (&["Edit(okrs/**)"], &["okrs"], &[TMP], &[], "a grant of the protected path itself is none"),
        (
            &["Edit(src/**)"],
            &["okrs", "//etc/passwd"],
            &["/tmp/s1", "/ws/src"],
            &[],
            "not under a grant: no hole",
        ),
    ];
    for (texts, protected, write, holes, why) in table {
        let got = of(texts, protected);
        assert_eq!(got.write, strings(write), "{texts:?}: {why}");
        assert_eq!(got.read_only, strings(holes), "{texts:?}: {why}");
    }
    assert!(
        of(&["Edit(okrs/**)"], &["okrs"]).unenforced.iter().any(|u| u.contains("protected path `/ws/okrs`"))
    );
}

#[test]
fn reads_are_all_without_read_rules_and_limited_with_them() {
    let baseline = Baseline { read_exec: strings(&["/usr"]), ..Baseline::default() };
    let place = Place { root: ROOT, cwd: ROOT, session_tmp: TMP };
    // (rules, expected, why)
    let table: [(&[&str], Reads, &str); 4] = [
        (&["Edit(src/**)"], Reads::All, "no read tool named: all (E-5)"),
        (&[READ], Reads::All, "the read tool granted whole: all"),
        (
            &["Read(docs/**)"],
            Reads::Beneath(strings(&["/tmp/s1", "/usr", "/ws/docs"])),
            "docs, tmp, baseline",
        ),
        (
            &["Read(docs/**)", "Edit(src/**)", GREP],
            Reads::All,
            "a family member granted whole reads anywhere",
        ),
    ];
    for (texts, expected, why) in table {
        assert_eq!(confinement(&rules(texts), &place, &[], &baseline).read, expected, "{texts:?}: {why}");
    }
    let limited = confinement(&rules(&["Read(docs/**)", "Edit(src/**)"]), &place, &[], &baseline);
    assert_eq!(
        limited.read,
        Reads::Beneath(strings(&["/tmp/s1", "/usr", "/ws/docs", "/ws/src"])),
        "writes read"
    );
}

#[test]
fn the_network_is_the_web_fetch_grants() {
    // (rules, expected, why)
    let table: [(&[&str], Network, &str); 4] = [
        (&["Edit(src/**)"], Network::None, "no WebFetch rule: none (E-6)"),
        (
            &["WebFetch(domain:b.org)", "WebFetch(domain:a.org)"],
            Network::Hosts(strings(&["a.org", "b.org"])),
            "hosts",
        ),
        (&["WebFetch"], Network::Any, "the tool granted whole"),
        (&["WebSearch"], Network::None, "only WebFetch grants the network"),
    ];
    for (texts, expected, why) in table {
        assert_eq!(of(texts, &[]).network, expected, "{texts:?}: {why}");
    }
}

#[test]
fn a_lineage_grants_what_every_manifest_grants() {
    let place = Place { root: ROOT, cwd: ROOT, session_tmp: TMP };
    let parent = rules(&["Edit(src/**)", "Read(src/**)", "WebFetch(domain:a.org)"]);
    let child = rules(&[EDIT, "WebFetch(domain:a.org)", "WebFetch(domain:b.org)"]);
    let got = lineage_confinement(&[&parent, &child], &place, &strings(&["src/gen"]), &Baseline::default());
    // (what, expected, why)
    assert_eq!(
        got.write,
        strings(&["/tmp/s1", "/ws/src"]),
        "the child's bare Edit is held to the parent's src/"
    );
    assert_eq!(got.read_only, strings(&["/ws/src/gen"]), "the protected path stays a hole");
    assert_eq!(
        got.read,
        Reads::Beneath(strings(&["/tmp/s1", "/ws/src"])),
        "the parent's read rules hold the child"
    );
    assert_eq!(got.network, Network::Hosts(strings(&["a.org"])), "the hosts both grant");
    let none = lineage_confinement(&[], &place, &[], &Baseline::default());
    assert_eq!(none.write, strings(&[TMP]), "no manifest: the baseline alone");
}

#[test]
fn the_encoding_escapes_every_byte_that_could_split_a_word() {
    let c = Confinement {
        write: strings(&["/ws/a b", "/ws/%x"]),
        read: Reads::Beneath(strings(&["/usr"])),
        read_only: strings(&["/ws/a b/.git"]),
        network: Network::Hosts(strings(&["none"])),
        temp: Some("/tmp/s 1".to_owned()),
        unenforced: Vec::new(),
        held: strings(&[".git/hooks", "a b"]),
        held_files: strings(&[".git"]),
        held_at: strings(&["/ws"]),
    };
    assert_eq!(
        c.encode(Mode::Required),
        "v1 required w=/ws/a%20b w=/ws/%25x r=/usr ro=/ws/a%20b/.git held=.git/hooks held=a%20b heldfile=.git \
         at=/ws host=none tmp=/tmp/s%201"
    );
    assert_eq!(Confinement::default().encode(Mode::Recorded), "v1 recorded r=* net=none");
}

/// Paths of a small tree, so that grants, holes and probes meet often.
fn path() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(vec!["ws", "a", "b", "okrs", ".git"]), 0..4)
        .prop_map(|segments| crate::lineage::lexical(&format!("/{}", segments.join("/"))))
}

fn rule() -> impl Strategy<Value = String> {
    let path = prop::collection::vec(prop::sample::select(vec!["a", "b", "okrs", ".git", "*", "**"]), 1..4)
        .prop_map(|s| s.join("/"));
    (prop::sample::select(vec![EDIT, READ]), prop::sample::select(vec!["", "/", "//ws/"]), path)
        .prop_map(|(tool, anchor, path)| format!("{tool}({anchor}{path})"))
        .boxed()
        .prop_union(
            prop::sample::select(vec![EDIT, WRITE, READ, "WebFetch(domain:a.org)"])
                .prop_map(String::from)
                .boxed(),
        )
}

/// A manifest's confinement or, one time in four, one whose network is the main session's
/// (E-35).
fn arbitrary() -> impl Strategy<Value = Confinement> {
    (prop::collection::vec(rule(), 0..5), prop::collection::vec(path(), 0..3), 0..4u8).prop_map(
        |(texts, protected, all)| {
            let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
            let place = Place { root: ROOT, cwd: ROOT, session_tmp: TMP };
            let mut c = confinement(&rules(&texts), &place, &protected, &Baseline::default());
            if all == 0 {
                c.network = Network::All;
            }
            c
        },
    )
}

proptest! {
    /// No protected path, nor anything beneath it, is ever writable (E-4).
    #[test]
    fn no_protected_path_is_ever_writable(
        texts in prop::collection::vec(rule(), 0..6),
        protected in prop::collection::vec(path(), 0..4),
        probe in path(),
    ) {
        let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
        let place = Place { root: ROOT, cwd: ROOT, session_tmp: TMP };
        let c = confinement(&rules(&texts), &place, &protected, &Baseline::default());
        for p in &protected {
            prop_assert!(!c.may_write(p), "{p} writable in {c:?}");
            let below = format!("{p}/{}", probe.trim_start_matches('/'));
            let below = crate::lineage::lexical(&below);
            prop_assert!(!c.may_write(&below), "{below} writable in {c:?}");
        }
    }

    /// A lineage's confinement allows only what each of its manifests allows (T-9, E-7).
    #[test]
    fn a_lineage_only_narrows(
        a in prop::collection::vec(rule(), 0..5),
        b in prop::collection::vec(rule(), 0..5),
        protected in prop::collection::vec(path(), 0..3),
        probe in path(),
    ) {
        let place = Place { root: ROOT, cwd: ROOT, session_tmp: TMP };
        let (a, b): (Vec<&str>, Vec<&str>) = (a.iter().map(String::as_str).collect(), b.iter().map(String::as_str).collect());
        let (a, b) = (rules(&a), rules(&b));
        let each = [&a, &b].map(|r| confinement(r, &place, &protected, &Baseline::default()));
        let both = lineage_confinement(&[&a, &b], &place, &protected, &Baseline::default());
        let mut probes = vec![probe];
        for c in &each {
            for path in c.write.iter().chain(&c.read_only) {
                probes.push(path.clone());
                probes.push(format!("{path}/below"));
            }
        }
        for probe in &probes {
            prop_assert!(!both.may_write(probe) || each.iter().all(|c| c.may_write(probe)), "write {probe}");
            prop_assert!(!both.may_read(probe) || each.iter().all(|c| c.may_read(probe)), "read {probe}");
        }
    }

    /// Stacking two confinements only narrows: what the stack allows, each allows (E-7).
    #[test]
    fn stacking_only_narrows(a in arbitrary(), b in arbitrary(), probe in path(), host in "[ab]\\.org") {
        let both = a.stack(&b);
        // The random path, and every path either confinement names, and one below each: where
        // a widening would show.
        let named = [&a.write, &b.write, &a.read_only, &b.read_only];
        let mut probes = vec![probe];
        for path in named.into_iter().flatten() {
            probes.push(path.clone());
            probes.push(format!("{path}/below"));
        }
        for probe in &probes {
            prop_assert!(!both.may_write(probe) || (a.may_write(probe) && b.may_write(probe)), "write {probe}");
            prop_assert!(!both.may_read(probe) || (a.may_read(probe) && b.may_read(probe)), "read {probe}");
        }
        prop_assert!(!both.may_reach(&host) || (a.may_reach(&host) && b.may_reach(&host)), "reach {host}");
        // The whole network only where both have it: stacked with `all`, the other's (E-35).
        prop_assert!(both.network != Network::All || (a.network == Network::All && b.network == Network::All));
        if a.network == Network::All {
            prop_assert_eq!(&both.network, &b.network);
        }
    }

    /// No manifest's confinement, nor a lineage's, has the main session's whole network (E-35).
    #[test]
    fn no_manifest_grants_the_whole_network(
        a in prop::collection::vec(rule(), 0..5),
        b in prop::collection::vec(rule(), 0..5),
    ) {
        let place = Place { root: ROOT, cwd: ROOT, session_tmp: TMP };
        let (a, b): (Vec<&str>, Vec<&str>) = (a.iter().map(String::as_str).collect(), b.iter().map(String::as_str).collect());
        let (a, b) = (rules(&a), rules(&b));
        prop_assert_ne!(confinement(&a, &place, &[], &Baseline::default()).network, Network::All);
        prop_assert_ne!(lineage_confinement(&[&a, &b], &place, &[], &Baseline::default()).network, Network::All);
    }
}

#[test]
fn the_held_names_are_held_for_the_shell_and_git_may_still_commit() {
    let harness =
        crate::lineage::HeldNames { directories: &[".h2"], worktree_homes: &[".h1"], files: &[".h1.json"] };
    let baseline = Baseline::unix("/home/u").holding(harness);
    // (name, held whatever it is, held where it is not a directory, why)
    let table: [(&str, bool, bool, &str); 9] = [
        (".git/config", true, false, "git's configuration (E-31)"),
        (".git/hooks", true, false, "git's hooks"),
        (".git", false, true, "a `.git` file; a `.git` directory is for commits to write"),
        (".bashrc", true, false, "a shell's start-up file"),
        (".config/git", true, false, "a run of directories, as its path"),
        (".vscode", true, false, "an editor's settings"),
        (".h1", true, false, "a harness's worktree home, held whole for the shell"),
        (".h2", true, false, "a harness's directory"),
        (".h1.json", true, false, "a harness's file"),
    ];
    for (name, held, file, why) in table {
        assert_eq!(baseline.held.iter().any(|h| h == name), held, "{name}: {why}");
        assert_eq!(baseline.held_files.iter().any(|h| h == name), file, "{name}: {why}");
    }
    let place = Place { root: ROOT, cwd: "/ws/src", session_tmp: TMP };
    let c = confinement(&rules(&[EDIT]), &place, &[], &baseline);
    assert_eq!(c.held, baseline.held);
    assert_eq!(c.held_at, strings(&[ROOT]), "the workspace root is looked in from anywhere");
    // Stacked, the held names of either are held (E-7, E-31).
    let mut other = c.clone();
    other.held = strings(&[".extra"]);
    assert!(c.stack(&other).held.iter().any(|h| h == ".extra"));
    assert!(other.stack(&c).held.iter().any(|h| h == ".bashrc"));
    // No held names, nothing to look for.
    assert!(of(&[EDIT], &[]).held_at.is_empty());
}

#[test]
fn a_write_grant_at_or_beneath_a_held_name_in_the_workspace_is_no_grant() {
    let baseline = Baseline::unix("/home/u");
    let place = Place { root: ROOT, cwd: ROOT, session_tmp: TMP };
    // (rule, granted, why)
    let table: [(&str, bool, &str); 7] = [
        ("Edit(/.vscode/**)", false, "a held directory (E-31)"),
        ("Edit(/.git/hooks/**)", false, "git's hooks"),
        ("Edit(/.GIT/**)", false, "in another case"),
        ("Edit(/sub/.husky/**)", false, "a held name deeper in the workspace"),
        ("Edit(/.bashrc)", false, "a held file"),
        ("Edit(/src/**)", true, "no held name on the way"),
        ("Edit(//var/cache/.cargo/**)", true, "outside the workspace: the deployment's own grant"),
    ];
    for (rule, granted, why) in table {
        let c = confinement(&rules(&[rule]), &place, &[], &baseline);
        let dir = c.write.iter().any(|w| w != TMP && !w.starts_with("/dev/"));
        assert_eq!(dir, granted, "{rule}: {why}: {:?}", c.write);
        assert_eq!(
            c.unenforced.iter().any(|u| u.contains("held name")),
            !granted,
            "{rule}: {:?}",
            c.unenforced
        );
    }
    // Without held names (a bare baseline) the grant stands.
    assert!(of(&["Edit(/.vscode/**)"], &[]).write.iter().any(|w| w == "/ws/.vscode"));
}
