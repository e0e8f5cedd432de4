//! Issue 48: a rule never grants more in Warden than in the harness. Every example of the issue
//! as a row of (rule, call, granted?, why), then each class from its definition: every launcher
//! of the list, every option of every command form, every character class, every IPv4
//! notation, every MCP name that splits two ways (T-22 … T-27).

use proptest::prelude::*;

use super::rules::mcp_splits;
use super::sed_script::plain_sed_script;
use super::shell_forms::{LAUNCHERS, beyond_patterns};
use super::shell_words::{MAX_COMMAND_LEN, MAX_WORD_LEN, Word, face_value_char, words};
use super::web_host::{host_of, rule_host};
use super::*;

const ROOT: &str = "/p";

fn bash(command: &str) -> ToolUse {
    ToolUse::resolve(syntax::SHELL, &CallArgument::Command(command.to_owned()), ROOT, ROOT, &NoLinks)
}

fn fetch(url: &str) -> ToolUse {
    ToolUse::resolve("WebFetch", &CallArgument::Url(url.to_owned()), ROOT, ROOT, &NoLinks)
}

/// An edit of `path` (the file tools' family shares the path rules, T-3).
fn write(path: &str) -> ToolUse {
    ToolUse::files(syntax::EDIT, &[path.to_owned()], ROOT, ROOT, &NoLinks)
}

/// Whether `rule` loads and grants `call`.
fn grants(rule: &str, call: &ToolUse) -> bool {
    ToolRule::parse(rule).is_ok_and(|rule| ToolRuleSet::new(vec![rule]).grants(call))
}

#[test]
fn the_issue_48_table() {
    let long_word = format!("touch {}", "w".repeat(256));
    let long_line = format!("touch {}", vec!["c".repeat(99); 102].join(" "));
    let rows: Vec<(&str, ToolUse, bool, &str)> = vec![
        // Class 4: launchers and grammar forms run another command (T-22).
        ("Bash(exec:*)", bash("exec touch a"), false, "exec runs touch"),
        ("Bash(eval:*)", bash("eval touch a"), false, "eval runs its words"),
        ("Bash(builtin:*)", bash("builtin exec touch a"), false, "builtin runs a builtin"),
        ("Bash(setsid:*)", bash("setsid touch a"), false, "setsid runs touch"),
        ("Bash(ionice:*)", bash("ionice touch a"), false, "ionice runs touch"),
        ("Bash(flock:*)", bash("flock l touch a"), false, "flock runs touch"),
        ("Bash(coproc:*)", bash("coproc touch a"), false, "a coprocess"),
        ("Bash(time:*)", bash("time touch a"), false, "time is grammar"),
        ("Bash(nohup:*)", bash("/usr/bin/nohup touch a"), false, "a launcher by its path"),
        ("Bash(A=1 env:*)", bash("A=1 env touch a"), false, "after an assignment"),
        (
            "Bash(LD_PRELOAD=x touch:*)",
            bash("LD_PRELOAD=x touch a"),
            false,
            "an assignment changes what runs",
        ),
        ("Bash(exec:*)", bash("e'x'\"ec\" touch a"), false, "a launcher spelt with quotes"),
        ("Bash(busybox:*)", bash("busybox sh"), false, "a multiplexer"),
        ("Bash(! touch:*)", bash("! touch a"), false, "a negated pipeline"),
        ("Bash((touch a))", bash("(touch a)"), false, "a subshell"),
        (syntax::SHELL, bash("exec touch a"), true, "the bare Bash grants every form"),
        // Class 4: options that run or write something else (T-23).
        ("Bash(find:*)", bash("find . -delete"), false, "find deletes"),
        ("Bash(find:*)", bash("find . -fprint x"), false, "find writes x"),
        ("Bash(find:*)", bash("find . -fprintf x %p"), false, "find writes x"),
        ("Bash(find:*)", bash("find . -name x"), true, "a plain find"),
        ("Bash(jq:*)", bash("jq -n 'system(\"touch x\")'"), false, "jq runs a program"),
        ("Bash(jq:*)", bash("jq -nf prog.jq"), false, "jq reads its program from a file"),
        ("Bash(jq:*)", bash("jq .a f.json"), true, "a plain jq"),
        ("Bash(sed:*)", bash("sed -i s/a/b/ f"), false, "sed writes in place"),
        ("Bash(sed:*)", bash("sed --in-pl s/a/b/ f"), false, "an abbreviation of --in-place"),
        ("Bash(sed:*)", bash("sed -n 1w out f"), false, "sed writes out"),
        ("Bash(sed:*)", bash("sed 's/a/b/e' f"), false, "sed runs the pattern space"),
        ("Bash(sed:*)", bash("sed -n '1,5p' f"), true, "a plain sed"),
        ("Bash(git:*)", bash("git -c core.fsmonitor=x status"), false, "a configuration names a program"),
        ("Bash(git:*)", bash("git --exec-path=. status"), false, "git's programs from elsewhere"),
        ("Bash(git:*)", bash("git rebase -ix 'touch a' main"), false, "rebase runs a command"),
        ("Bash(git:*)", bash("git submodule foreach touch"), false, "foreach runs a command"),
        ("Bash(git status:*)", bash("git status --short"), true, "a plain git"),
        ("Bash(tar:*)", bash("tar --to-command=sh -xf a.tar"), false, "tar runs a command"),
        ("Bash(rsync:*)", bash("rsync -ave sh a b"), false, "rsync's shell in a cluster"),
        ("Bash(tar:*)", bash("tar Ixf sh a.tar"), false, "tar's first argument is a cluster"),
        ("Bash(git:*)", bash("git clone -u sh r"), false, "clone's upload-pack"),
        ("Bash(git:*)", bash("git --namespace n -c a=b log"), false, "-c after a global's value"),
        ("Bash(git:*)", bash("git grep -O sh x"), false, "grep's pager"),
        ("Bash(git switch:*)", bash("git switch -c b"), true, "switch's -c is switch's"),
        ("Bash(find:*)", bash("find . -de''lete"), false, "quotes inside a predicate"),
        ("Bash(ssh:*)", bash("ssh -oProxyCommand=sh h"), false, "ssh runs a local command"),
        ("Bash(awk:*)", bash("awk '@load \"x\"'"), false, "gawk loads an extension"),
        // Class 5: text the client does not take at face value (T-24).
        ("Bash(touch:*)", bash("touch a\u{a0}b"), false, "a no-break space"),
        ("Bash(basename *)", bash("\u{a0}basename"), false, "a no-break space before the program"),
        (
            "Bash(basename *)",
            bash("\u{3000}basename -s .rs"),
            false,
            "an ideographic space before the program",
        ),
        ("Bash(touch:*)", bash("touch a\u{2028}"), false, "a line separator after the last word"),
        ("Bash(touch:*)", bash(" touch a "), true, "ASCII spaces around the command are trimmed"),
        ("Bash(touch:*)", bash("touch a\u{200b}b"), false, "a zero-width space"),
        ("Bash(touch:*)", bash("touch a\u{2028}b"), false, "a line separator"),
        ("Bash(touch:*)", bash("touch a\u{202e}b"), false, "a bidi override (the client takes it)"),
        ("Bash(touch:*)", bash(&long_word), false, "a word over 255 bytes"),
        ("Bash(touch:*)", bash(&long_line), false, "a command over 10 000 bytes"),
        ("Bash(touch:*)", bash("touch =a"), false, "zsh's =word"),
        ("Bash(touch:*)", bash("touch a)"), false, "an unbalanced `)`"),
        ("Bash(touch:*)", bash("touch 'a"), false, "an unclosed quote"),
        ("Bash(touch:*)", bash("touch \"a)b\" café"), true, "a quoted `)`, a letter of another script"),
        // Numeric hosts, normalised as the URL parser does (T-25).
        ("WebFetch(domain:10.1)", fetch("http://10.1/"), false, "the rule is not a normal host"),
        ("WebFetch(domain:10.0.0.1)", fetch("http://10.1/"), true, "10.1 is 10.0.0.1"),
        ("WebFetch(domain:10.0.0.1)", fetch("http://0x0a.0.0.1/"), true, "hexadecimal"),
        ("WebFetch(domain:10.0.0.1)", fetch("http://012.0.0.1/"), true, "octal"),
        ("WebFetch(domain:10.0.0.1)", fetch("http://167772161/"), true, "one number"),
        ("WebFetch(domain:10.0.0.1)", fetch("http://10.0.0.1./"), true, "a trailing dot (T-7)"),
        ("WebFetch(domain:10.0.0.2)", fetch("http://10.1/"), false, "another address"),
        ("WebFetch(domain:example.com)", fetch("http://EXAMPLE.com:8080/x"), true, "case and port"),
        ("WebFetch(domain:example.com)", fetch("http://[::1]/"), false, "IPv6 grants nothing"),
        ("WebFetch(domain:example.com)", fetch("http://exämple.com/"), false, "IDNA grants nothing"),
        // An MCP name that splits two ways (T-26).
        ("mcp__a", ToolUse::named("mcp__a__b__c"), false, "server a, or a__b"),
        ("mcp__a_", ToolUse::named("mcp__a___c"), false, "server a_, or a"),
        ("mcp__a__b__c", ToolUse::named("mcp__a__b__c"), false, "refused at load"),
        ("mcp__a", ToolUse::named("mcp__a__b"), true, "one reading"),
        // A directory rule (T-27).
        ("Edit(notes/)", write("/p/notes"), false, "the file notes is no directory"),
        ("Edit(notes/)", write("/p/notes/n.md"), true, "a file under notes/"),
        ("Edit(/docs/)", write("/p/docs"), false, "anchored"),
        ("Edit(/docs/)", write("/p/docs/a/b"), true, "anchored, deeper"),
        ("Edit(notes)", write("/p/notes"), true, "without the slash, the file too"),
    ];
    for (rule, call, expected, why) in rows {
        assert_eq!(grants(rule, &call), expected, "{rule} on {call}: {why}");
    }
}

#[test]
fn no_pattern_rule_grants_a_launcher_or_a_grammar_word() {
    for launcher in LAUNCHERS {
        for command in [format!("{launcher} touch a"), format!("/usr/bin/{launcher} touch a")] {
            assert!(beyond_patterns(&command).is_some(), "{command}");
            let rule = format!("Bash({launcher}:*)");
            if let Ok(rule) = ToolRule::parse(&rule) {
                assert!(!rule.grants(&bash(&command)), "{rule} granted {command}");
            }
        }
    }
}

#[test]
fn every_text_rule_of_t24_is_enforced() {
    // Every Unicode space and every default-ignorable character is refused.
    for c in (0..0x11_0000).filter_map(char::from_u32) {
        if c.is_whitespace() && c != ' ' || crate::unicode::is_default_ignorable(c) || c.is_control() {
            assert!(!face_value_char(c), "{:?}", c);
        }
    }
    let at = |n: usize| format!("touch {}", "x".repeat(n));
    assert!(words(&at(MAX_WORD_LEN)).is_ok());
    assert!(words(&at(MAX_WORD_LEN + 1)).is_err());
    let line = |n: usize| format!("touch {}", vec!["y".repeat(99); n].join(" "));
    assert!(words(&line(10)).is_ok());
    assert!(line(102).len() > MAX_COMMAND_LEN && words(&line(102)).is_err());
    assert_eq!(
        words("a 'b c'\"d\" ''").unwrap(),
        ["a", "b cd", ""].map(|t| Word { text: t.to_owned() }).to_vec(),
        "quotes removed, words split where the shell splits them"
    );
}

#[test]
fn sed_scripts() {
    let rows: [(&[&str], bool, &str); 13] = [
        (&["s/a/b/g", "f"], true, "a substitution"),
        (&["s/a;w x/b/g", "f"], true, "a `;` inside the regex is the regex's"),
        (&["-n", "/x/,+3p", "f"], true, "addresses"),
        (&["-e", "1d", "-e", "s|a|b|2", "f"], true, "two scripts"),
        (&["y/ab/cd/"], true, "a transliteration"),
        (&["s/a/b/w out"], false, "the w flag"),
        (&["s/a/b/e"], false, "the e flag"),
        (&["1e touch x"], false, "the e command"),
        (&["-ne", "1r /etc/passwd"], false, "r in a script after a cluster"),
        (&["-es/a/b/"], false, "a script inside a cluster"),
        (&["1a text"], false, "a text command"),
        (&["-e"], false, "-e without a script"),
        (&[], true, "no script: sed refuses to run"),
    ];
    for (args, expected, why) in rows {
        let words: Vec<Word> = args.iter().map(|a| Word { text: (*a).to_owned() }).collect();
        let refs: Vec<&Word> = words.iter().collect();
        assert_eq!(plain_sed_script(&refs), expected, "{args:?}: {why}");
    }
}

#[test]
fn hosts_as_the_url_parser_reads_them() {
    let rows: [(&str, Option<&str>); 14] = [
        ("http://10.1/", Some("10.0.0.1")),
        ("http://10.0.1/", Some("10.0.0.1")),
        ("http://0x0A.0.0.1/", Some("10.0.0.1")),
        ("http://0x/", Some("0.0.0.0")),
        ("http://4294967295/", Some("255.255.255.255")),
        ("http://4294967296/", None),
        ("http://256.0.0.1/", None),
        ("http://09.0.0.1/", None),
        ("http://1.2.3.4.5/", None),
        ("http://example.123/", None),
        ("http://example.0x1/", None),
        ("https://Example.COM./p", Some("example.com")),
        ("http://a@b/", None),
        ("ftp://example.com/", None),
    ];
    for (url, expected) in rows {
        assert_eq!(host_of(url).as_deref(), expected, "{url}");
    }
    for (rule, loads) in [
        ("10.0.0.1", true),
        ("10.1", false),
        ("010.0.0.1", false),
        ("a..b", false),
        ("a.", false),
        ("a.1", false),
    ] {
        assert_eq!(rule_host(rule).is_ok(), loads, "{rule}");
    }
}

proptest! {
    /// A pattern rule never grants a command with a launcher first, whatever follows (T-22).
    #[test]
    fn a_launcher_never_passes_a_prefix_rule(i in 0..LAUNCHERS.len(), rest in "[a-z ]{0,12}") {
        let launcher = LAUNCHERS[i];
        let rule = ToolRule::parse("Bash(*)").unwrap();
        let command = format!("{launcher} {rest}");
        prop_assert!(!rule.grants(&bash(&command)), "{}", command);
    }

    /// The `shell_command` fuzz target's invariants over words built to hit the lists: a
    /// pattern rule grants only a line read as one command, never one with a launcher first,
    /// and a command read as one is granted by the rule that spells it (T-22 … T-24).
    #[test]
    fn a_command_read_as_one_is_granted_by_its_own_rule(
        parts in proptest::collection::vec(
            prop::sample::select(vec![
                "exec", "env", "touch", "find", "-delete", "-name", "sed", "-i", "s/a/b/", "1w", "git", "-c",
                "status", "'x y'", "\"q\"", "=a", "a)", "A=1", "caf\u{e9}", "a\u{a0}b", "!", "jq", "system",
            ]),
            1..6,
        ),
        rule in prop::sample::select(vec!["Bash(*)", "Bash(touch:*)", "Bash(find:*)", "Bash(git:*)", "Bash(sed *)"]),
    ) {
        let line = parts.join(" ");
        let call = bash(&line);
        let rule = ToolRule::parse(rule).unwrap();
        if rule.grants(&call) {
            let Argument::Command(read) = &call.argument else { panic!("{rule} granted {line:?}") };
            let first = read.split(' ').next().unwrap_or_default();
            prop_assert!(!LAUNCHERS.contains(&first), "{} granted {:?}", rule, line);
        }
        if let Argument::Command(read) = &call.argument {
            let spelt = ToolRule::parse(&format!("Bash({read})")).unwrap();
            prop_assert!(spelt.grants(&call), "{:?}", read);
        }
    }

    /// Every numeric spelling of an address is read as that address, and only the canonical
    /// spelling loads as a rule (T-25).
    #[test]
    fn every_ipv4_spelling_reads_as_its_address(address in any::<u32>(), parts in 1_usize..5, radix in 0_usize..3) {
        let [a, b, c, d] = address.to_be_bytes();
        let spell = |n: u64| match radix { 0 => n.to_string(), 1 => format!("0x{n:x}"), _ => format!("0{n:o}") };
        let host = match parts {
            1 => spell(u64::from(address)),
            2 => format!("{}.{}", spell(u64::from(a)), spell(u64::from(address & 0x00ff_ffff))),
            3 => format!("{}.{}.{}", spell(u64::from(a)), spell(u64::from(b)), spell(u64::from(address & 0xffff))),
            _ => [a, b, c, d].map(|n| spell(u64::from(n))).join("."),
        };
        let normal = format!("{a}.{b}.{c}.{d}");
        prop_assert_eq!(host_of(&format!("http://{host}/")), Some(normal.clone()));
        prop_assert!(rule_host(&normal).is_ok());
        prop_assert_eq!(rule_host(&host).is_ok(), host == normal);
    }

    /// An MCP name is granted by a server rule only when it splits one way (T-26).
    #[test]
    fn an_mcp_name_that_splits_two_ways_is_granted_by_no_rule(server in "[a-z_]{1,4}", tool in "[a-z_]{1,4}") {
        let name = format!("mcp__{server}__{tool}");
        let rest = name.strip_prefix("mcp__").unwrap_or_default();
        let granted = ToolRule::parse(&format!("mcp__{server}")).is_ok_and(|r| r.grants(&ToolUse::named(name.clone())));
        if mcp_splits(rest) != 1 {
            prop_assert!(!granted);
            prop_assert!(ToolRule::parse(&name).is_err());
        }
    }
}
