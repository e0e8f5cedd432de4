//! What paths a call names (T-8, T-13, T-14): a path Warden cannot resolve as Claude Code
//! would matches no path rule, and every input that names a path is held to the rules. Tables
//! of (rules, call, granted?, why) rows: the cases first, then the ones an agent would
//! try next.

use proptest::prelude::*;
use serde_json::{Value, json};

use agentwarden_domain::lineage::{Argument, ToolRule, ToolRuleSet, ToolUse, granted};

use super::rules_tests::call_in;

const ROOT: &str = "/home/u/project";
const SRC: &str = "/home/u/project/src";

fn call_at(cwd: &str, tool: &str, input: Value) -> ToolUse {
    call_in(cwd, tool, &input)
}

fn rules(texts: &[&str]) -> Vec<ToolRule> {
    texts.iter().map(|t| ToolRule::parse(t).unwrap_or_else(|e| panic!("{t}: {e}"))).collect()
}

/// Whether `texts` grant `call`, asked of the scan and of the index alike (T-12).
fn grants(texts: &[&str], call: &ToolUse) -> bool {
    let rules = rules(texts);
    let scan = granted(&rules, call);
    // More rules than the scan threshold, none of them about a file tool: the index answers.
    let mut padded = rules.clone();
    padded.extend((0..9).map(|i| ToolRule::parse(&format!("Bash(pad{i})")).unwrap()));
    assert_eq!(ToolRuleSet::new(padded).grants(call), scan, "the index answers as the scan: {call:?}");
    scan
}

/// Every row whose rules do not grant its call as it expects, named with why.
fn assert_rows(rows: Vec<(&[&str], ToolUse, bool, &str)>) {
    let wrong: Vec<String> = rows
        .into_iter()
        .filter(|(texts, call, expected, _)| grants(texts, call) != *expected)
        .map(|(texts, call, expected, why)| format!("{texts:?} vs {call:?} should be {expected}: {why}"))
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Item 2: a path that starts with `~`, or holds `$` or `%`, or has whitespace at an end that
/// Claude Code trims, is not read as a path under the working directory (T-13).
#[test]
fn a_path_warden_cannot_resolve_matches_no_path_rule() {
    // Absolute patterns, so that where a relative one is anchored (T-5) decides nothing here.
    let edit_src: &[&str] = &["Edit(//home/u/project/src/**)"];
    let read_md: &[&str] = &["Read(*.md)"];
    let read_src: &[&str] = &["Read(//home/u/project/src/**)"];
    let edit = |cwd: &str, path: &str| {
        call_at(cwd, "Edit", json!({"file_path": path, "old_string": "a", "new_string": "b"}))
    };
    let read = |cwd: &str, path: &str| call_at(cwd, "Read", json!({ "file_path": path }));
    let rows: Vec<(&[&str], ToolUse, bool, &str)> = vec![
        // The two.
        (edit_src, edit(SRC, "~/.bashrc"), false, "`~` is the home directory, not src/~"),
        (read_md, read(ROOT, "~/.ssh/notes.md"), false, "nor a `.md` inside the project"),
        // Every spelling of the home directory and of a variable.
        (edit_src, edit(SRC, "~"), false, "`~` alone"),
        (edit_src, edit(SRC, "~root/.bashrc"), false, "`~user`"),
        (edit_src, edit(SRC, "$HOME/.bashrc"), false, "`$HOME`"),
        (edit_src, edit(SRC, "${HOME}/.bashrc"), false, "`${HOME}`"),
        (edit_src, edit(SRC, "a/$X/b"), false, "`$` inside"),
        (edit_src, edit(SRC, "%HOME%/.bashrc"), false, "`%HOME%`"),
        (edit_src, edit(SRC, "%2e%2e/%2e%2e/.bashrc"), false, "a percent escape"),
        // Claude Code trims a path (JavaScript's whitespace) before it expands `~`.
        (edit_src, edit(SRC, " ~/.bashrc"), false, "a space, then `~`"),
        (edit_src, edit(SRC, "\t~/.bashrc"), false, "a tab, then `~`"),
        (edit_src, edit(SRC, "\u{a0}~/.bashrc"), false, "a no-break space, then `~`"),
        (edit_src, edit(SRC, "\u{feff}~/.bashrc"), false, "a byte-order mark, then `~`"),
        (edit_src, edit(SRC, "\n~/.bashrc"), false, "a newline, then `~`"),
        (edit_src, edit(ROOT, " /home/u/.bashrc"), false, "a space, then an absolute path"),
        (edit_src, edit(ROOT, "src/a.rs "), false, "a trailing space names another file"),
        // A `~` that is not at the start is an ordinary character, as Claude Code reads it.
        (edit_src, edit(ROOT, "src/~/a.rs"), true, "`~` inside a path is literal"),
        (edit_src, edit(SRC, "./~/a.rs"), true, "`./~` is a directory named `~`"),
        (edit_src, edit(SRC, "a~b.rs"), true, "a `~` inside a name"),
        // Only a bare rule grants a call Warden cannot resolve.
        (&["Edit"], edit(SRC, "~/.bashrc"), true, "the bare rule grants every use"),
        (&["Edit(//home/u/**)"], edit(SRC, "~/.bashrc"), false, "even a rule for the home directory"),
        (&["Edit(**)"], edit(SRC, "~/.bashrc"), false, "or for the whole project"),
        // Every file tool, every path input.
        (
            &["Edit(src/**)"],
            call_at(SRC, "Write", json!({"file_path": "~/.bashrc", "content": "x"})),
            false,
            "Write",
        ),
        (
            &["Edit(src/**)"],
            call_at(SRC, "NotebookEdit", json!({"notebook_path": "~/n.ipynb", "new_source": "x"})),
            false,
            "NotebookEdit",
        ),
        (read_src, call_at(SRC, "Grep", json!({"pattern": "x", "path": "~"})), false, "Grep's path"),
        (read_src, call_at(SRC, "Glob", json!({"pattern": "*", "path": "~/.ssh"})), false, "Glob's path"),
        (read_src, call_at(SRC, "Glob", json!({"pattern": "~/*"})), false, "Glob's pattern"),
        (read_src, call_at(SRC, "Glob", json!({"pattern": "{~,x}/*"})), false, "`~` from a brace"),
        (read_src, call_at(SRC, "Grep", json!({"pattern": "x", "glob": "~/*"})), false, "Grep's glob"),
        (
            read_src,
            call_at(SRC, "Glob", json!({"pattern": "*", "path": " ~"})),
            false,
            "Glob's path, trimmed",
        ),
    ];
    assert_rows(rows);
}

/// Item 3: each path-naming input of a known tool is checked, and a call is granted only when
/// every path it names is (T-14).
#[test]
fn every_input_that_names_a_path_is_held_to_the_rules() {
    let read_md: &[&str] = &["Read(*.md)"];
    let read_src: &[&str] = &["Read(src/**)"];
    let glob = |cwd: &str, input: Value| call_at(cwd, "Glob", input);
    let grep = |cwd: &str, input: Value| call_at(cwd, "Grep", input);
    let rows: Vec<(&[&str], ToolUse, bool, &str)> = vec![
        // The case.
        (read_md, glob(ROOT, json!({"path": "x.md", "pattern": "/etc/*"})), false, "an absolute pattern"),
        (read_md, glob(ROOT, json!({"path": "x.md", "pattern": "*"})), true, "a pattern under the path"),
        // Glob: the pattern is read under the path; an absolute one is its own.
        (
            &["Read(//home/u/project/src/**)"],
            glob(SRC, json!({"pattern": "**/*.rs"})),
            true,
            "under the working directory",
        ),
        (read_src, glob(ROOT, json!({"pattern": "src/**/*.rs"})), false, "the search starts at the cwd"),
        (read_src, glob(ROOT, json!({"path": "src", "pattern": "**/*.rs"})), true, "under the path"),
        (read_src, glob(ROOT, json!({"path": "src", "pattern": "a/*.rs"})), true, "a literal start"),
        (
            read_src,
            glob(ROOT, json!({"path": "src", "pattern": "/home/u/project/src/*"})),
            true,
            "absolute, in",
        ),
        (
            read_src,
            glob(ROOT, json!({"path": "src", "pattern": "/home/u/project/*"})),
            false,
            "absolute, out",
        ),
        (read_src, glob(ROOT, json!({"path": "src", "pattern": "../*"})), false, "`..` climbs to the root"),
        (read_src, glob(ROOT, json!({"path": "src", "pattern": "../src/*"})), true, "and back in"),
        (read_src, glob(ROOT, json!({"path": "src", "pattern": "**/../../*"})), false, "`..` after `**`"),
        (&["Glob"], glob(ROOT, json!({"path": "src", "pattern": "**/../../*"})), true, "the bare rule"),
        (&["Read(**)"], glob(ROOT, json!({"path": "src", "pattern": "*/../x"})), false, "`..` after `*`"),
        (&["Read(**)"], glob(ROOT, json!({"path": "src", "pattern": "*/x/.."})), false, "`..` at the end"),
        (read_src, glob(ROOT, json!({"path": "src", "pattern": "{.,}./*"})), false, "braces that spell `..`"),
        (read_src, glob(ROOT, json!({"path": "src", "pattern": ".{,}./*"})), false, "empty braces too"),
        (
            read_src,
            glob(ROOT, json!({"path": "src", "pattern": "{/etc,x}/*"})),
            false,
            "an absolute alternative",
        ),
        (read_src, glob(ROOT, json!({"path": "src", "pattern": "*.{rs,md}"})), true, "braces within a name"),
        (read_src, glob(ROOT, json!({"path": "src", "pattern": "{a,b/{c,d}}/*"})), true, "nested braces"),
        (read_src, glob(ROOT, json!({"path": "src", "pattern": "{a}/*"})), false, "a brace without a comma"),
        (read_src, glob(ROOT, json!({"path": "src", "pattern": "{a,b/*"})), false, "an unclosed brace"),
        (read_src, glob(ROOT, json!({"path": "src", "pattern": "a},b/*"})), false, "an unopened brace"),
        (read_src, glob(ROOT, json!({"path": "src", "pattern": "\\{a,b\\}/*"})), false, "an escape"),
        (read_src, glob(ROOT, json!({"path": "src", "pattern": "[ab]/*"})), true, "a class is a wildcard"),
        (read_src, glob(ROOT, json!({"path": "src", "pattern": ""})), false, "an empty pattern"),
        (read_src, glob(ROOT, json!({"path": "src"})), false, "no pattern"),
        (
            read_src,
            glob(ROOT, json!({"path": "src", "pattern": "{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}/*"})),
            false,
            "more alternatives than Warden reads",
        ),
        (
            read_src,
            glob(ROOT, json!({"path": "/etc", "pattern": "/home/u/project/src/*"})),
            false,
            "the path too",
        ),
        (read_src, glob(ROOT, json!({"path": "src/*", "pattern": "x"})), true, "a path is literal"),
        // Grep: its path, and its glob read under it.
        (
            read_src,
            grep(ROOT, json!({"pattern": "x", "path": "src", "glob": "{/etc/*,*.md}"})),
            false,
            "braces",
        ),
        (read_src, grep(ROOT, json!({"pattern": "x", "path": "src", "glob": "*.{md,rs}"})), true, "a filter"),
        (read_src, grep(ROOT, json!({"pattern": "x", "path": "src", "glob": "/etc/*"})), false, "absolute"),
        (read_src, grep(ROOT, json!({"pattern": "x", "path": "src", "glob": "../*"})), false, "climbing"),
        (
            read_src,
            grep(ROOT, json!({"pattern": "/etc/passwd", "path": "src"})),
            true,
            "a regex names no path",
        ),
        // Claude Code splits Grep's glob at whitespace, then at commas outside braces.
        (
            read_src,
            grep(ROOT, json!({"pattern": "x", "path": "src", "glob": "*.md /etc/*"})),
            false,
            "a space",
        ),
        (read_src, grep(ROOT, json!({"pattern": "x", "path": "src", "glob": "*.md\t../*"})), false, "a tab"),
        (
            read_src,
            grep(ROOT, json!({"pattern": "x", "path": "src", "glob": "*.md,/etc/*"})),
            false,
            "a comma",
        ),
        (
            read_src,
            grep(ROOT, json!({"pattern": "x", "path": "src", "glob": "*.md ~/*"})),
            false,
            "a `~` part",
        ),
        (
            read_src,
            grep(ROOT, json!({"pattern": "x", "path": "src", "glob": "*.md, *.rs"})),
            true,
            "both under",
        ),
        (
            read_src,
            grep(ROOT, json!({"pattern": "x", "path": "src", "glob": " *.md "})),
            true,
            "spaces split",
        ),
        (
            &["Read(src/**)", "Read(//etc/**)"],
            grep(ROOT, json!({"pattern": "x", "path": "src", "glob": "{/etc/*,*.md}"})),
            true,
            "each path by one rule or another",
        ),
        (
            &["Read(src/**)"],
            grep(
                ROOT,
                json!({"pattern": "x", "path": "src", "-n": true, "-C": 2, "type": "rust",
                               "output_mode": "content", "head_limit": 5, "multiline": false}),
            ),
            true,
            "Grep's other inputs name no path",
        ),
        // Inputs Warden does not know, or of the wrong type.
        (
            read_src,
            call_at(ROOT, "Read", json!({"file_path": "src/a.rs", "path": "/etc/passwd"})),
            false,
            "an input Warden does not know",
        ),
        (
            read_src,
            grep(ROOT, json!({"pattern": "x", "path": "src", "paths": ["/etc"]})),
            false,
            "another unknown input",
        ),
        (
            read_src,
            glob(ROOT, json!({"path": "src", "pattern": ["/etc/*"]})),
            false,
            "a pattern not a string",
        ),
        (read_src, glob(ROOT, json!({"path": ["/etc"], "pattern": "*"})), false, "a path not a string"),
        (read_src, glob(ROOT, json!({"path": null, "pattern": "*"})), false, "a null path"),
        (
            read_src,
            grep(ROOT, json!({"pattern": "x", "path": "src", "glob": 5})),
            false,
            "a glob not a string",
        ),
        (read_src, call_at(ROOT, "Read", json!("src/a.rs")), false, "an input that is no object"),
        // The other file tools, with everything they take.
        (
            &["Read(src/**)"],
            call_at(ROOT, "Read", json!({"file_path": "src/a.rs", "offset": 1, "limit": 2, "pages": "1"})),
            true,
            "Read",
        ),
        (
            &["Edit(src/**)"],
            call_at(
                ROOT,
                "Edit",
                json!({"file_path": "src/a.rs", "old_string": "a", "new_string": "b",
                                           "replace_all": false}),
            ),
            true,
            "Edit",
        ),
        (
            &["Edit(src/**)"],
            call_at(ROOT, "MultiEdit", json!({"file_path": "src/a.rs", "edits": []})),
            true,
            "MultiEdit",
        ),
        (
            &["Edit(src/**)"],
            call_at(
                ROOT,
                "NotebookEdit",
                json!({"notebook_path": "src/n.ipynb", "new_source": "x",
                                                  "cell_id": "c", "cell_type": "code", "edit_mode": "replace"}),
            ),
            true,
            "NotebookEdit",
        ),
        (
            &["Edit(src/**)"],
            call_at(ROOT, "NotebookEdit", json!({"notebook_path": "src/n.ipynb", "file_path": "/etc/x"})),
            false,
            "NotebookEdit with another tool's path input",
        ),
        // A tool whose path inputs Warden does not know: only a rule naming it grants it.
        (read_md, call_at(ROOT, "LS", json!({"path": "/etc"})), false, "LS is not Read"),
        (read_md, call_at(ROOT, "NotebookRead", json!({"notebook_path": "/etc/x.md"})), false, "nor this"),
    ];
    assert_rows(rows);
}

/// A denial names the path no rule grants, in rule syntax; a call Warden cannot resolve is
/// shown as the bare tool rule it needs.
#[test]
fn a_call_with_several_paths_is_shown_by_each() {
    let call = call_at(ROOT, "Glob", json!({"path": "x.md", "pattern": "/etc/*"}));
    assert_eq!(call.to_string(), "Glob(x.md), Glob(//etc)");
    let set = ToolRuleSet::new(rules(&["Read(*.md)"]));
    assert_eq!(set.missing(&call).map(|m| m.to_string()).as_deref(), Some("Glob(//etc)"));
    assert_eq!(set.missing(&call_at(ROOT, "Glob", json!({"path": "x.md", "pattern": "*"}))), None);
    let home = call_at(SRC, "Edit", json!({"file_path": "~/.bashrc", "old_string": "a", "new_string": "b"}));
    assert_eq!(home.to_string(), "Edit");
    assert!(matches!(&home.argument, Argument::Unresolved(why) if why.contains('~')), "{home:?}");
}

fn literal() -> impl Strategy<Value = String> {
    prop::sample::select(vec!["a", "b", ".", "..", "~", "x.md"]).prop_map(str::to_owned)
}

proptest! {
    /// A pattern's braces are read as every alternative they spell: whatever the pattern, a
    /// rule for `src/**` grants a Glob under `src` only when each alternative, as a pattern of
    /// its own, is granted too.
    #[test]
    fn braces_grant_only_what_every_alternative_grants(
        head in proptest::collection::vec(literal(), 0..3),
        alternatives in proptest::collection::vec(proptest::collection::vec(literal(), 0..3), 2..4),
        tail in prop::sample::select(vec!["*", "**/*", "x", "*/..", ""]),
    ) {
        let spell = |parts: &[String]| parts.join("/");
        let braces = alternatives.iter().map(|a| spell(a)).collect::<Vec<_>>().join(",");
        let pattern = format!("{}/{{{braces}}}/{tail}", spell(&head));
        let rules = rules(&["Read(src/**)"]);
        let whole = granted(&rules, &call_at(ROOT, "Glob", json!({"path": "src", "pattern": pattern})));
        let each = alternatives.iter().all(|a| {
            let one = format!("{}/{}/{tail}", spell(&head), spell(a));
            granted(&rules, &call_at(ROOT, "Glob", json!({"path": "src", "pattern": one})))
        });
        prop_assert_eq!(whole, each, "{}", pattern);
    }

    /// Whatever a Glob's pattern says, a call granted by `Read(src/**)` searches only under
    /// `src`: no `..`, absolute path, home or variable gets it out.
    #[test]
    fn a_granted_glob_stays_under_its_grant(pattern in "[a-z.~/*{},$%]{0,16}") {
        let call = call_at(ROOT, "Glob", json!({"path": "src", "pattern": pattern}));
        if granted(&rules(&["Read(src/**)"]), &call) {
            let paths = match &call.argument {
                Argument::Path(path) => vec![path.clone()],
                Argument::Paths(paths) => paths.clone(),
                _ => return Err(TestCaseError::fail(format!("{call:?}"))),
            };
            for path in &paths {
                prop_assert!(path.in_project().is_some_and(|p| p.first().map(String::as_str) == Some("src")));
            }
        }
    }
}

/// `warden authorize` reads its request's `input` as the hook does: both layers ask their own
/// manifest for every path, and the denial names the one missing, or why none was resolved.
#[test]
fn warden_authorize_reads_the_input_as_the_hook_does() {
    use agentwarden_domain::governance::Name;
    use agentwarden_domain::lineage::{Manifest, Manifests, ToolCallRequest, authorize};
    use agentwarden_domain::verdict::Decision;
    let manifest = |spawns: &[&str], tools: &[&str]| Manifest {
        can_spawn: spawns.iter().map(|s| Name::new(s).unwrap()).collect(),
        max_spawn_depth: 3,
        tools: rules(tools).into(),
    };
    let manifests = Manifests::from([
        // Absolute, so that the call's `cwd` in `src/` reads them as written (T-5).
        (Name::new("lead").unwrap(), manifest(&["reader"], &["Read(//home/u/project/src/**)"])),
        (Name::new("reader").unwrap(), manifest(&[], &["Read(//home/u/project/src/**)", "Read(//etc/**)"])),
    ]);
    let request = |input: Value| {
        let text = json!({
            "agent": {"id": "r1", "type": "reader", "spawn_depth": 1},
            "lineage": [{"id": "l0", "type": "lead", "spawn_depth": 0}, {"id": "r1", "type": "reader", "spawn_depth": 1}],
            "tool": "Grep", "input": input, "cwd": SRC,
        });
        let call = ToolCallRequest::from_json(
            &text.to_string(),
            ROOT,
            super::rules_as,
            &agentwarden_domain::lineage::NoLinks,
        )
        .unwrap()
        .call;
        authorize(&call, &manifests)
    };
    let allowed = request(json!({"pattern": "x", "glob": "*.rs"}));
    assert_eq!(allowed.decision, Decision::Allow, "{allowed:?}");
    let braces = request(json!({"pattern": "x", "glob": "{/etc/*,*.rs}"}));
    let failure = braces.first_failure.unwrap();
    assert_eq!(
        (failure.layer, failure.code.as_str()),
        (2, "ancestor_lacks_tool"),
        "the reader has //etc, its lead not"
    );
    assert!(failure.reason.contains("`Grep(//etc)`"), "{}", failure.reason);
    let home = request(json!({"pattern": "x", "path": "~"}));
    let failure = home.first_failure.unwrap();
    assert_eq!((failure.layer, failure.code.as_str()), (1, "tool_not_allowed"));
    assert!(
        failure.reason.contains("`Grep` (its path is not resolved: `~`: Claude Code reads a leading `~`"),
        "{}",
        failure.reason
    );
}

/// A call an integration maps onto a file tool naming several paths (a patch) is granted
/// only when each path is, by any rule; a path it cannot read, or none, matches no path rule (C-5).
#[test]
fn a_mapped_call_of_several_files_is_granted_only_when_each_is() {
    let files = |paths: &[&str]| {
        let paths: Vec<String> = paths.iter().map(|p| (*p).to_owned()).collect();
        ToolUse::files("Edit", &paths, "/p", "/p", &agentwarden_domain::lineage::NoLinks)
    };
    let rows: Vec<(&[&str], ToolUse, bool, &str)> = vec![
        (&["Edit(src/**)"], files(&["src/a.rs", "/p/src/b/c.rs"]), true, "both under src"),
        (&["Edit(src/**)"], files(&["src/a.rs", "okrs/q4.md"]), false, "one outside"),
        (&["Edit(src/**)", "Edit(docs/*)"], files(&["src/a.rs", "docs/x.md"]), true, "each by a rule"),
        (&["Edit(src/**)"], files(&["src/../okrs/q4.md"]), false, "climbing out of src"),
        (&["Edit(src/**)"], files(&[]), false, "no path"),
        (&["Edit(src/**)"], files(&["src/a\0b"]), false, "a NUL"),
        (&["Edit"], files(&["src/a\0b", "x"]), true, "the bare rule grants what is not resolved"),
    ];
    assert_rows(rows);
    assert!(matches!(files(&[]).argument, Argument::Unresolved(_)));
}
