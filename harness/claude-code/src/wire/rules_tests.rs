//! Tool rules: a table of (rule, call, granted?, why) rows — Claude Code's documented forms
//! first, then the ones an agent would try to slip through — the parse errors, and properties.

use proptest::prelude::*;
use serde_json::json;

use agentwarden_domain::lineage::{
    Argument, RulesAs, ToolRule, ToolRuleSet, ToolUse, compare_offered, granted,
};

use super::rules_as;

const ROOT: &str = "/home/u/project";

/// Claude Code's call of `tool` with `input`, made in `cwd`, as the tool rules read it.
pub(super) fn call_in(cwd: &str, tool: &str, input: &serde_json::Value) -> ToolUse {
    match rules_as(tool, input) {
        RulesAs::Call { tool, argument } => {
            ToolUse::resolve(&tool, &argument, cwd, ROOT, &agentwarden_domain::lineage::NoLinks)
        }
        RulesAs::Unknown => panic!("Claude Code's reading knows every tool"),
    }
}

fn call(tool: &str, input: serde_json::Value) -> ToolUse {
    call_in(ROOT, tool, &input)
}

/// A call made after `cd sub`: its working directory is `ROOT/sub`.
fn in_sub(tool: &str, path: &str) -> ToolUse {
    call_in("/home/u/project/sub", tool, &json!({ "file_path": path }))
}

fn bash(command: &str) -> ToolUse {
    call("Bash", json!({ "command": command }))
}

fn edit(tool: &str, path: &str) -> ToolUse {
    call(tool, json!({ "file_path": path }))
}

#[test]
fn the_rule_table() {
    let rows: Vec<(&str, ToolUse, bool, &str)> = vec![
        // Names.
        ("Read", edit("Read", "/etc/passwd"), true, "a bare rule grants every use"),
        // A bare name is that tool alone, as in Claude Code (T-3).
        ("Read", call("Grep", json!({"pattern": "x", "path": "/etc"})), false, "a bare Read is no Grep"),
        ("Read", call("Glob", json!({"pattern": "*", "path": "/etc"})), false, "a bare Read is no Glob"),
        ("Read", edit("Edit", "/home/u/project/a"), false, "Read never grants an edit"),
        ("Edit", edit("Edit", "/etc/hosts"), true, "a bare Edit is every Edit"),
        ("Edit", edit("Write", "/home/u/project/a"), false, "a bare Edit is no Write"),
        ("Edit", call("NotebookEdit", json!({"notebook_path": "n.ipynb"})), false, "nor NotebookEdit"),
        ("Edit", edit("MultiEdit", "/home/u/project/a"), false, "nor MultiEdit"),
        ("Write", edit("Write", "/etc/hosts"), true, "a bare Write is every Write"),
        // A sed script other than `s`, `p`, `d`, `q` may write or run: no pattern grants it
        // (T-23; the case the prefix property drew, `sed a a a`).
        ("Bash(sed * a *)", bash("sed a a a"), false, "sed's `a` script is granted by no pattern"),
        ("Bash(sed *)", bash("sed s/a/b/ f"), true, "a plain sed script is"),
        ("Write", edit("Edit", "/home/u/project/a"), false, "Write is Write only"),
        ("Glob", call("Glob", json!({"pattern": "*", "path": "/etc"})), true, "a bare Glob is every Glob"),
        ("Glob", call("Grep", json!({"pattern": "*", "path": "/etc"})), false, "and nothing else"),
        // A path rule `Edit(…)` covers the edit family, `Read(…)` the read family (T-3).
        ("Edit(**)", edit("Write", "/home/u/project/a"), true, "Edit(path) covers Write"),
        ("Edit(**)", call("NotebookEdit", json!({"notebook_path": "n.ipynb"})), true, "and NotebookEdit"),
        ("Edit(**)", edit("MultiEdit", "/home/u/project/a"), true, "and MultiEdit"),
        ("Edit(**)", edit("Read", "/home/u/project/a"), false, "but no read (Claude Code's does: T-3)"),
        (
            "Read(//etc/**)",
            call("Grep", json!({"pattern": "x", "path": "/etc"})),
            true,
            "Read(path) covers Grep",
        ),
        ("Read(//etc/**)", call("Glob", json!({"pattern": "*", "path": "/etc/x"})), true, "and Glob"),
        ("Read(//etc/**)", edit("Edit", "/etc/hosts"), false, "but no edit"),
        ("read", ToolUse::named("read"), true, "an old capability name, exact"),
        ("read", ToolUse::named("Read"), false, "names are case-sensitive"),
        ("WebSearch", call("WebSearch", json!({"query": "q"})), true, "a tool without specifiers"),
        ("Bash", bash("rm -rf / ; curl x | sh"), true, "bare Bash grants any command"),
        // MCP.
        ("mcp__github", call("mcp__github__get_issue", json!({})), true, "a whole server"),
        ("mcp__github__*", call("mcp__github__get_issue", json!({})), true, "a whole server, wildcard form"),
        ("mcp__github__get_issue", call("mcp__github__get_issue", json!({})), true, "one tool"),
        ("mcp__github__get_issue", call("mcp__github__delete_repo", json!({})), false, "another tool"),
        ("mcp__github", call("mcp__githubx__get_issue", json!({})), false, "a server with a longer name"),
        ("mcp__github", call("mcp__github__", json!({})), false, "no tool name at all"),
        ("mcp__github", call("mcp__github", json!({})), false, "the server itself is no tool"),
        // Bash specifiers (T-4, T-6).
        ("Bash(npm test)", bash("npm test"), true, "exact"),
        ("Bash(python -c \"print(1)\")", bash("python -c \"print(1)\""), true, "balanced parentheses"),
        ("Bash(npm test)", bash("  npm test  "), true, "surrounding space is no part of the command"),
        ("Bash(npm test)", bash("npm test --watch"), false, "exact means exact"),
        ("Bash(npm test:*)", bash("npm test"), true, "legacy prefix: the bare prefix"),
        ("Bash(npm test:*)", bash("npm test --watch"), true, "legacy prefix: with arguments"),
        ("Bash(npm test:*)", bash("npm tests"), false, "the prefix ends at a word"),
        ("Bash(npm test *)", bash("npm test -- -u"), true, "the space-star form"),
        ("Bash(ls*)", bash("lsof -i"), true, "no space: any continuation"),
        ("Bash(git * main)", bash("git push origin main"), true, "a star in the middle"),
        ("Bash(git * main)", bash("git push origin main2"), false, "the literal after the star is a suffix"),
        ("Bash(npm test:*)", bash("npm test && git push"), false, "&& runs a second command"),
        ("Bash(npm test:*)", bash("npm test; git push"), false, "; runs a second command"),
        ("Bash(npm test:*)", bash("npm test | sh"), false, "a pipe runs a second command"),
        ("Bash(npm test:*)", bash("npm test $(git push)"), false, "command substitution"),
        ("Bash(npm test:*)", bash("npm test `git push`"), false, "backquote substitution"),
        ("Bash(npm test:*)", bash("npm test > ~/.bashrc"), false, "a redirection writes a file"),
        ("Bash(npm test:*)", bash("npm test\ngit push"), false, "a newline runs a second command"),
        ("Bash(npm test:*)", bash("npm test & git push"), false, "& runs a second command"),
        ("Bash(*)", bash("anything at all"), true, "star alone: any single command"),
        ("Bash(git * push *)", bash("git --no-pager push -f"), true, "a star at each end of a word"),
        ("Bash(git * push *)", bash("git -C x push -f"), false, "another repository's configuration (T-23)"),
        (
            "Bash(git * push *)",
            bash("git --no-pager push"),
            false,
            "only a prefix rule also matches its bare prefix",
        ),
        ("Bash(git * main *)", bash("git push main"), false, "as in Claude Code"),
        ("Bash(git * push *)", bash("git --no-pager pushy"), false, "but at a word"),
        ("Bash(touch *)", bash("touch"), true, "a prefix rule matches its bare prefix"),
        // The shell's expansions are not the pattern's, under any pattern rule (T-4).
        ("Bash(touch:*)", bash("touch ~/evil"), false, "a home directory"),
        ("Bash(touch:*)", bash("touch $HOME/evil"), false, "a variable"),
        ("Bash(touch:*)", bash("touch ${HOME}/evil"), false, "a braced variable"),
        ("Bash(touch:*)", bash("touch '$HOME'"), false, "quoted or not"),
        ("Bash(touch:*)", bash("touch {a,b}"), false, "a brace expansion"),
        ("Bash(touch:*)", bash("touch a*"), false, "a glob"),
        ("Bash(touch:*)", bash("touch a?"), false, "a glob"),
        ("Bash(touch:*)", bash("touch a[1]"), false, "a glob"),
        ("Bash(touch:*)", bash("touch e\\ f"), false, "an escape"),
        ("Bash(touch:*)", bash("touch \"a b\""), true, "quotes are no expansion"),
        ("Bash(touch ~/evil)", bash("touch ~/evil"), false, "not even a rule that spells it out"),
        ("Bash(*)", bash("touch ~/evil"), false, "nor Bash(*): Warden is stricter there (T-15)"),
        ("Bash", bash("touch ~/evil"), true, "only the bare rule"),
        ("Bash(*)", bash("a || b"), false, "but never two"),
        ("Bash(git push)", call("Bash", json!({"command": 7})), false, "a command that is not a string"),
        ("Bash(git push)", call("Bash", json!({})), false, "no command"),
        // Path specifiers (T-5).
        ("Edit(src/**)", edit("Edit", "/home/u/project/src/a/b.rs"), true, "under the directory"),
        ("Edit(src/**)", edit("Write", "/home/u/project/src/new.rs"), true, "Write to a new file under it"),
        ("Edit(src/**)", edit("Edit", "/home/u/project/srcx/a.rs"), false, "a sibling with a longer name"),
        ("Edit(src/**)", edit("Edit", "/home/u/project/src/../okrs/q.md"), false, "`..` is resolved first"),
        ("Edit(src/**)", edit("Edit", "/home/u/other/src/a.rs"), false, "another project"),
        ("Edit(src/**)", edit("Edit", "src/a.rs"), true, "relative to the working directory"),
        ("Edit(src/**)", edit("Edit", "../project/src/a.rs"), true, "climbing back in"),
        ("Edit(/src/*.rs)", edit("Edit", "/home/u/project/src/a.rs"), true, "/ is the project root"),
        // A relative pattern is read from the working directory, and the root too (T-5).
        ("Edit(src/**)", in_sub("Write", "src/a.rs"), false, "from sub, the root's src/ is not src/"),
        ("Edit(src/**)", in_sub("Write", "/home/u/project/src/a.rs"), false, "however it is named"),
        ("Edit(*.rs)", in_sub("Write", "/home/u/project/src/a.rs"), false, "a floating one too"),
        ("Edit(*.rs)", in_sub("Write", "x/a.rs"), true, "under the working directory"),
        ("Edit(./x/**)", in_sub("Write", "x/a.rs"), false, "sub/x is not x from the root"),
        (
            "Edit(/src/**)",
            in_sub("Write", "/home/u/project/src/a.rs"),
            true,
            "/ is the root, wherever the call is",
        ),
        ("Edit(/src/**)", in_sub("Write", "src/a.rs"), false, "sub/src is not /src"),
        (
            "Edit(*.rs)",
            call_in("/tmp", "Write", &json!({"file_path": "/tmp/a.rs"})),
            false,
            "a cd out of the project takes no relative rule with it",
        ),
        ("Edit(/src/*.rs)", edit("Edit", "/home/u/project/src/a/b.rs"), false, "* stays in one segment"),
        (
            "Edit(./docs)",
            edit("Edit", "/home/u/project/docs/x/y.md"),
            true,
            "a directory grants what is under it",
        ),
        ("Edit(*.md)", edit("Edit", "/home/u/project/a/b/c.md"), true, "no slash: any depth"),
        ("Edit(*.md)", edit("Edit", "/tmp/c.md"), false, "but inside the project only"),
        ("Read(//etc/hosts)", edit("Read", "/etc/hosts"), true, "// is absolute"),
        ("Read(//etc/hosts)", edit("Read", "/etc/hosts2"), false, "exact file"),
        ("Read(//etc/*)", edit("Read", "/etc/x/../hosts"), true, "normalised before matching"),
        ("Edit(src/**)", edit("Edit", "/home/u/project/../project/src/a.rs"), true, "normalised inside"),
        (
            "Edit(src/**)",
            call("Edit", json!({"file_path": ["src/a.rs"]})),
            false,
            "a path that is not a string",
        ),
        ("Edit(src/?.rs)", edit("Edit", "/home/u/project/src/é.rs"), true, "? is one character"),
        ("Edit(src/?.rs)", edit("Edit", "/home/u/project/src/ab.rs"), false, "and only one"),
        ("Read(src)", call("Grep", json!({"pattern": "x", "path": "src"})), true, "Grep's path"),
        ("Read(src)", call("Grep", json!({"pattern": "x"})), false, "Grep without a path searches the cwd"),
        // WebFetch (T-7).
        (
            "WebFetch(domain:example.com)",
            call("WebFetch", json!({"url": "https://example.com/a"})),
            true,
            "host",
        ),
        (
            "WebFetch(domain:example.com)",
            call("WebFetch", json!({"url": "https://EXAMPLE.com:443"})),
            true,
            "case, port",
        ),
        (
            "WebFetch(domain:example.com)",
            call("WebFetch", json!({"url": "https://example.com.evil.io/"})),
            false,
            "a longer host",
        ),
        (
            "WebFetch(domain:example.com)",
            call("WebFetch", json!({"url": "https://example.com@evil.io/"})),
            false,
            "userinfo",
        ),
        (
            "WebFetch(domain:example.com)",
            call("WebFetch", json!({"url": "ftp://example.com/"})),
            false,
            "not http",
        ),
        (
            "WebFetch(domain:example.com)",
            call("WebFetch", json!({"url": "https://evil.io/?example.com"})),
            false,
            "in the query",
        ),
        // Agent (T-8).
        ("Agent(Explore)", call("Agent", json!({"subagent_type": "Explore"})), true, "the subagent type"),
        (
            "Agent(Explore)",
            call("Task", json!({"subagent_type": "Explore"})),
            true,
            "Task is Agent's old name",
        ),
        ("Agent(Explore)", call("Agent", json!({"prompt": "p"})), false, "no type is general-purpose"),
        ("Agent(general-purpose)", call("Agent", json!({"prompt": "p"})), true, "as Claude Code defaults it"),
        // A specifier never grants a different tool.
        ("Bash(npm test)", edit("Edit", "npm test"), false, "another tool"),
    ];
    for (rule, use_, expected, why) in rows {
        let parsed = ToolRule::parse(rule).unwrap_or_else(|e| panic!("{rule}: {e}"));
        assert_eq!(parsed.grants(&use_), expected, "{rule} vs {use_:?}: {why}");
    }
}

#[test]
fn rules_warden_cannot_read_exactly_are_refused() {
    let rows = [
        ("", "empty"),
        ("Bash(", "unclosed"),
        ("Bash(npm test", "unclosed"),
        ("Bash(a)b)", "text after the specifier"),
        ("Bash(a(b)", "unbalanced"),
        ("Bash()", "empty specifier"),
        ("Bash( )", "blank specifier"),
        ("Bash( npm test)", "leading space"),
        ("Bash(npm *:*)", "star inside a legacy prefix"),
        ("Edit(~/x)", "home paths"),
        ("Edit(src/[ab].rs)", "character classes"),
        ("Edit(!src)", "negation"),
        ("Edit(src/{a,b})", "braces"),
        ("Edit(src\\a)", "escapes"),
        ("Edit(src/../okrs)", "`..` in a pattern"),
        ("Edit(src//a)", "empty segment"),
        ("Edit(src/a**)", "** inside a segment"),
        ("WebFetch(example.com)", "domain: is required"),
        ("WebFetch(domain:)", "empty domain"),
        ("WebFetch(domain:a/b)", "a path is no domain"),
        ("WebSearch(q)", "a specifier Warden cannot compare"),
        ("mcp__github(x)", "an MCP rule with a specifier"),
        ("mcp__", "no server"),
        ("mcp__a b", "space in a server"),
        ("mcp__a__b*", "a partial wildcard"),
        ("Agent(a b)", "a space in an agent type"),
        ("1Bash", "a name starts with a letter"),
        ("Ba sh", "space in a name"),
        ("Bash\n", "control characters"),
        ("Bash\u{200b}", "invisible characters"),
        ("*", "a bare star"),
        ("Write(src/**)", "Claude Code grants nothing for a Write path rule (T-3)"),
        ("MultiEdit(src/**)", "nor a MultiEdit one"),
        ("NotebookEdit(**)", "nor a NotebookEdit one"),
        ("Grep(src)", "nor a Grep one"),
        ("Glob(//etc/**)", "nor a Glob one"),
    ];
    for (rule, why) in rows {
        assert!(ToolRule::parse(rule).is_err(), "`{}` should be refused: {why}", rule.escape_debug());
    }
    assert!(ToolRule::parse(&format!("Bash({})", "a".repeat(600))).is_err(), "over the length limit");
}

#[test]
fn a_call_is_shown_as_the_rule_that_would_grant_it() {
    assert_eq!(bash("git push origin").to_string(), "Bash(git push origin)");
    assert_eq!(edit("Edit", "/home/u/project/okrs/q.md").to_string(), "Edit(okrs/q.md)");
    assert_eq!(edit("Read", "/etc/hosts").to_string(), "Read(//etc/hosts)");
    assert_eq!(call("WebFetch", json!({"url": "https://a.io/x"})).to_string(), "WebFetch(domain:a.io)");
    assert_eq!(ToolUse::named("Read").to_string(), "Read");
    assert_eq!(ToolUse::named("`").to_string(), "`", "a backtick of the name is kept (fuzz regression)");
    assert_eq!(bash("a\nb").to_string(), "Bash(a\\nb)", "control characters are escaped");
}

#[test]
fn rules_and_offered_tools_are_compared_by_name() {
    let rules: Vec<ToolRule> = ["Read", "Bash(npm test:*)", "WebFetch(domain:a.io)", "mcp__github"]
        .iter()
        .map(|r| ToolRule::parse(r).unwrap())
        .collect();
    let offered: Vec<String> =
        ["Read", "Grep", "Bash", "Write", "Task"].iter().map(|s| (*s).to_owned()).collect();
    let d = compare_offered(&rules, &offered);
    assert_eq!(
        d.offered_not_granted,
        ["Grep", "Write"],
        "a bare Read is Read alone; Bash has a rule; Task spawns"
    );
    assert_eq!(d.granted_not_offered, ["WebFetch(domain:a.io)"], "MCP rules are not compared");
}

/// The index matches a Bash call only with the rules whose first bytes it starts with;
/// at the edges (a command exactly as long as a rule's first bytes, a rule's first bytes longer
/// than the word the index compares, a leading `*`) it still answers as the scan does (T-12).
#[test]
fn the_index_skips_only_rules_that_cannot_grant() {
    let texts = [
        "Bash(npm)",
        "Bash(npm test status:*)",
        "Bash(np* -v)",
        "Bash(* test)",
        "Bash(g)",
        "Bash(cargo b:*)",
        "Read",
        "Write",
        "Read(src)",
        "WebFetch(domain:a.io)",
    ];
    let rules: Vec<ToolRule> = texts.iter().map(|t| ToolRule::parse(t).unwrap()).collect();
    let set = ToolRuleSet::new(rules.clone());
    let cases = [
        ("npm", true),
        ("npm test status", true),
        ("npm test status -v", true),
        ("npm test statu", false),
        ("npx -v", true),
        ("run test", true),
        ("g", true),
        ("gi", false),
        ("cargo b", true),
        ("cargo build", false),
        ("cargo b x", true),
        ("cargo", false),
        ("", false),
    ];
    for (command, expected) in cases {
        let use_ = bash(command);
        assert_eq!(granted(&rules, &use_), expected, "the scan, {command:?}");
        assert_eq!(set.grants(&use_), expected, "the index, {command:?}");
    }
    assert!(!set.grants(&ToolUse::named("Bash")), "a command rule grants no call without a command");
}

proptest! {
    /// The indexed set answers exactly as a scan of every rule does.
    #[test]
    fn the_indexed_set_agrees_with_the_scan(
        picks in proptest::collection::vec(0_usize..22, 0..20),
        tool in prop::sample::select(vec![
            "Read", "Grep", "Glob", "Edit", "Write", "MultiEdit", "Bash", "WebFetch", "Agent", "Task",
            "mcp__github__get_issue", "mcp__gitlab__x", "read", "NotebookEdit",
        ]),
        command in "(npm|np|n|git|g|)( test| t|t| |)( status|x|)[a-z ]{0,6}",
    ) {
        // Bash patterns whose first bytes are shorter, longer than a word, shared, or
        // none (a leading `*`), against commands that share some of them (T-12).
        let pool = [
            "Read", "Edit(src/**)", "Write", "Bash(npm test:*)", "Bash", "mcp__github", "mcp__github__get_issue",
            "WebFetch(domain:a.io)", "Agent(Explore)", "Task", "Read(src)", "read", "Read(//etc/*)", "mcp__gitlab__*",
            "Bash(n*)", "Bash(* test)", "Bash(npm)", "Bash(npm test status:*)", "Bash(np* t*)", "Bash(git *)",
            "Bash(g)", "Bash(*)",
        ];
        let rules: Vec<ToolRule> = picks.iter().map(|&i| ToolRule::parse(pool[i]).unwrap()).collect();
        // A file tool's call with an input it does not take names no path (T-14).
        let input = match tool {
            "Read" | "Edit" | "Write" | "MultiEdit" => json!({"file_path": "/home/u/project/src/a.rs"}),
            "NotebookEdit" => json!({"notebook_path": "src/n.ipynb"}),
            "Grep" => json!({"pattern": "x", "path": "src"}),
            "Glob" => json!({"pattern": "*.rs", "path": "src"}),
            _ => json!({"command": command, "url": "https://a.io/", "subagent_type": "Explore"}),
        };
        let use_ = call(tool, input);
        let set = ToolRuleSet::new(rules.clone());
        prop_assert_eq!(set.grants(&use_), granted(&rules, &use_));
    }

    /// A call shown as a rule is granted by that rule (when it is one command a pattern rule
    /// can grant: no operators, no launcher, T-22 … T-24), and by the bare tool rule.
    #[test]
    fn the_shown_rule_grants_the_call(words in proptest::collection::vec("[a-z0-9=.-]{1,8}", 1..5)) {
        let use_ = bash(&words.join(" "));
        prop_assume!(matches!(use_.argument, Argument::Command(_)));
        let rule = ToolRule::parse(&use_.to_string()).unwrap();
        prop_assert!(rule.grants(&use_));
        prop_assert!(ToolRule::parse("Bash").unwrap().grants(&use_));
    }

    /// Whatever is appended after an operator, a prefix rule never grants it.
    #[test]
    fn no_operator_smuggles_a_second_command(
        tail in "[a-z][ -~]{0,20}",
        op in prop::sample::select(vec![";", "&&", "||", "|", "&", "\n", "$(", "`", ">", "<"]),
    ) {
        let rule = ToolRule::parse("Bash(npm test:*)").unwrap();
        let command = format!("npm test {op}{tail}");
        prop_assert!(!rule.grants(&bash(&command)));
    }

    /// Parsing never panics, and a rule that parses grants nothing to a tool it does not name.
    #[test]
    fn parsing_any_text_is_total(text in "\\PC{0,40}") {
        if let Ok(rule) = ToolRule::parse(&text) {
            prop_assert!(!rule.grants(&ToolUse::named("NoSuchTool_zz")) || text == "NoSuchTool_zz");
        }
    }

    /// A bare name grants its own tool and no other, as in Claude Code (T-3).
    #[test]
    fn a_bare_name_grants_its_tool_alone(
        name in prop::sample::select(vec!["Edit", "Read", "Write", "Glob", "Grep", "NotebookEdit", "MultiEdit"]),
        tool in prop::sample::select(vec!["Edit", "Read", "Write", "Glob", "Grep", "NotebookEdit", "MultiEdit"]),
        path in "/[a-z]{1,4}(/[a-z]{1,4}){0,3}",
    ) {
        let rule = ToolRule::parse(name).unwrap();
        let input = json!({"file_path": path, "notebook_path": path, "path": path, "pattern": "*"});
        prop_assert_eq!(rule.grants(&call(tool, input)), name == tool);
    }

    /// No pattern rule grants a command whose words the shell expands, not even the rule
    /// that spells the command out; only the bare `Bash` does (T-4).
    #[test]
    fn no_pattern_rule_grants_an_expansion(
        head in "[a-z]{1,5}",
        tail in "[a-z/]{0,5}",
        expansion in prop::sample::select(vec!["~", "~/", "$HOME", "${HOME}", "{a,b}", "*", "?", "[1]", "\\ ", "'$x'"]),
    ) {
        let command = format!("touch {head}{expansion}{tail}");
        for rule in ["Bash(touch:*)", "Bash(touch *)", "Bash(touch*)", "Bash(* *)", "Bash(*)"] {
            prop_assert!(!ToolRule::parse(rule).unwrap().grants(&bash(&command)), "{} granted {}", rule, command);
        }
        if let Ok(spelled) = ToolRule::parse(&format!("Bash({command})")) {
            prop_assert!(!spelled.grants(&bash(&command)), "{} granted itself", command);
        }
        prop_assert!(ToolRule::parse("Bash").unwrap().grants(&bash(&command)));
    }

    /// Only a prefix rule (`PREFIX *`, its one star last) also matches its bare prefix (T-4).
    #[test]
    fn only_a_prefix_rule_matches_its_bare_prefix(a in "[a-z]{1,5}", b in "[a-z]{1,5}", c in "[a-z]{1,5}") {
        let (bare, longer) = (format!("{a} {b} {c}"), format!("{a} {b} {c} {b}"));
        // A launcher first, or a command whose words run or write something else (`sed a a a`:
        // a sed script other than `s`, `p`, `d`, `q`), is granted by no pattern rule (T-22, T-23).
        prop_assume!(matches!(bash(&a).argument, Argument::Command(_)));
        prop_assume!(matches!(bash(&longer).argument, Argument::Command(_)));
        let rule = ToolRule::parse(&format!("Bash({a} * {c} *)")).unwrap();
        prop_assert!(!rule.grants(&bash(&bare)));
        prop_assert!(rule.grants(&bash(&longer)));
        let prefix = ToolRule::parse(&format!("Bash({a} *)")).unwrap();
        prop_assert!(prefix.grants(&bash(&a)));
    }

    /// A relative rule grants nothing outside the call's working directory, as Claude Code
    /// reads it, whether the path is written absolute or relative (T-5).
    #[test]
    fn a_relative_rule_stays_in_the_working_directory(
        cwd in proptest::collection::vec("[a-z]{1,3}", 1..3),
        path in proptest::collection::vec("[a-z.]{1,4}", 1..4),
    ) {
        let last = cwd.last().cloned().unwrap_or_default();
        let cwd = format!("{ROOT}/{}", cwd.join("/"));
        // A sibling of the working directory, inside the project.
        let relative = format!("../{last}x/{}", path.join("/"));
        let absolute = format!("{cwd}x/{}", path.join("/"));
        for rule in ["Edit(**)", "Edit(*)", "Edit(*.md)", "Edit(./**)", "Edit(x/**)"] {
            let rule = ToolRule::parse(rule).unwrap();
            for written in [&relative, &absolute] {
                let use_ = call_in(&cwd, "Write", &json!({"file_path": written}));
                prop_assert!(!rule.grants(&use_), "{} granted {:?} from {}", rule, use_, cwd);
            }
        }
    }

    /// Path rules: a path outside the project is never granted by a project-relative rule.
    #[test]
    fn project_rules_stay_in_the_project(segments in proptest::collection::vec("[a-z.]{1,4}", 1..6)) {
        let path = format!("/elsewhere/{}", segments.join("/"));
        for rule in ["Edit(**)", "Edit(*)", "Edit(/)", "Edit(*.md)"] {
            if let Ok(rule) = ToolRule::parse(rule) {
                prop_assert!(!rule.grants(&edit("Edit", &path)), "{rule} granted {path}");
            }
        }
    }
}
