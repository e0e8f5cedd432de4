//! Issue 48 for Codex: the same generator (`agentwarden_tests::differential`) against Codex
//! CLI's own permission language for commands, its exec policy (`prefix_rule`), asked through
//! the pinned binary's `codex execpolicy check --rules FILE -- WORD…`, which prints Codex's
//! decision as JSON (T-30). A manifest's `Bash(P:*)` or `Bash(P *)` is what an author writes
//! for Codex's `prefix_rule(pattern = P's words, decision = "allow")`: Warden (Codex's
//! `rules_as`, the kernel's matcher) never allows a command that rule does not. Codex's check
//! reads words, not a shell line (`bash -lc LINE` matches no rule), so only commands whose
//! words the shell would not change (no quote, expansion, glob, escape or operator) are
//! asked; the others, and rules with no `prefix_rule` equivalent (`Bash(P)` exactly, a `*`
//! inside), are counted as not asked. Codex's file edits (`apply_patch`) have no rules of
//! Codex's own to ask (its sandbox decides them): there is nothing to compare.

use std::path::Path;

use agentwarden_adapters::paths::LocalPaths;
use agentwarden_domain::lineage::{RulesAs, ToolRule, ToolRuleSet, ToolUse};
use agentwarden_tests::differential::Class;
use agentwarden_tests::differential::generate::batch;
use serde_json::json;

use super::*;

/// Characters after which the shell's words are not the line split at spaces.
const SHELL_CHANGES: [char; 22] = [
    '\'', '"', '\\', '$', '`', '~', '*', '?', '[', ']', '{', '}', '(', ')', '<', '>', '|', '&', ';', '#',
    '=', '!',
];

/// `Bash(P:*)` or `Bash(P *)` with no other `*`: P's words, Codex's `prefix_rule` pattern.
fn prefix_pattern(rule: &str) -> Option<Vec<String>> {
    let spec = rule.strip_prefix("Bash(")?.strip_suffix(')')?;
    let prefix = spec.strip_suffix(":*").or_else(|| spec.strip_suffix(" *"))?;
    let plain = !prefix.contains(SHELL_CHANGES) && prefix.split(' ').all(|w| !w.is_empty());
    plain.then(|| prefix.split(' ').map(str::to_owned).collect())
}

/// The command's words, when the shell would split it at single spaces and change nothing.
fn plain_words(command: &str) -> Option<Vec<String>> {
    let plain = !command.is_empty()
        && command.chars().all(|c| c.is_ascii_graphic() || c == ' ')
        && !command.contains(SHELL_CHANGES);
    plain.then(|| command.split_whitespace().map(str::to_owned).collect())
}

/// Codex's decision on `words` under `rules` (`allow`, `prompt`, `forbidden`, or none).
fn codex_decision(codex: &Path, home: &Path, rules: &Path, words: &[String]) -> Option<String> {
    let mut command = std::process::Command::new(codex);
    command
        .args(["execpolicy", "check", "--rules"])
        .arg(rules)
        .arg("--")
        .args(words)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("CODEX_HOME", home);
    let out = output_within(&mut command, HELPER_TIMEOUT);
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    answer.get("decision").and_then(Value::as_str).map(str::to_owned)
}

/// Warden's answer: the rule as a manifest holds it, the command as Codex's hook reads it.
fn warden_allows(rule: &str, command: &str, root: &Path) -> bool {
    let Ok(rule) = ToolRule::parse(rule) else { return false };
    let input = json!({ "command": command });
    let use_ = match agentwarden_codex::wire::rules_as(agentwarden_codex::wire::SHELL_TOOL, &input) {
        RulesAs::Call { tool, argument } => {
            let root = root.to_string_lossy();
            ToolUse::resolve_holding(
                &tool,
                &argument,
                &root,
                &root,
                &LocalPaths,
                agentwarden::HARNESS_HELD_NAMES,
            )
        }
        RulesAs::Unknown => return false,
    };
    ToolRuleSet::new(vec![rule]).grants(&use_)
}

/// Issue 48 for Codex: over generated prefix rules and commands, Warden never allows a command
/// Codex's own `prefix_rule` for the same words does not.
#[test]
#[ignore = "real Codex: run by `cargo xtask codex`"]
fn warden_never_allows_a_command_codexs_own_prefix_rule_does_not() {
    let codex = tools().codex;
    let dir = tempfile::tempdir().expect("temp dir");
    let (mut same, mut stricter, mut not_asked, mut wrong) = (0, 0, 0, Vec::new());
    for index in 0..40 {
        let drawn = batch(48, index, 10, &[Class::BashPrefix]);
        let Some(pattern) = prefix_pattern(&drawn.rule) else {
            not_asked += drawn.calls.len();
            continue;
        };
        let rules = dir.path().join(format!("b{index}.rules"));
        let rule_text = format!("prefix_rule(pattern = {}, decision = \"allow\")\n", json!(pattern));
        std::fs::write(&rules, rule_text).expect("write the rules file");
        for (k, call) in drawn.calls.iter().enumerate() {
            let command = call.input.get("command").and_then(Value::as_str).unwrap_or_default();
            let Some(words) = (call.tool == "Bash").then(|| plain_words(command)).flatten() else {
                not_asked += 1;
                continue;
            };
            let codex_allows = codex_decision(&codex, dir.path(), &rules, &words).as_deref() == Some("allow");
            let warden = warden_allows(&drawn.rule, command, dir.path());
            let line = format!(
                "seed=48 batch={index} call={k} {} | {command:?} | codex {codex_allows} warden {warden}",
                drawn.rule
            );
            println!("{line}");
            match (codex_allows, warden) {
                (false, true) => wrong.push(line),
                (true, false) => stricter += 1,
                _ => same += 1,
            }
        }
    }
    println!(
        "codex differential: same {same}, stricter {stricter}, more permissive {}, not asked {not_asked}",
        wrong.len()
    );
    assert!(same + stricter > 50, "too few commands were asked: {same} + {stricter}");
    assert!(wrong.is_empty(), "Warden allows what Codex's prefix rule does not:\n{}", wrong.join("\n"));
}

#[test]
fn a_rule_and_a_command_are_asked_only_when_their_words_are_plain() {
    // (rule, Codex's pattern, why)
    let rules: [(&str, Option<&[&str]>, &str); 6] = [
        ("Bash(git push:*)", Some(&["git", "push"]), "the colon form"),
        ("Bash(git push *)", Some(&["git", "push"]), "the space form"),
        ("Bash(git push)", None, "an exact rule: prefix_rule has none"),
        ("Bash(git * main)", None, "a wildcard inside"),
        ("Bash(echo $HOME:*)", None, "an expansion"),
        ("Read(src/**)", None, "not a command rule"),
    ];
    for (rule, expected, why) in rules {
        let expected = expected.map(|w| w.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>());
        assert_eq!(prefix_pattern(rule), expected, "{why}");
    }
    assert_eq!(plain_words("git push origin"), Some(vec!["git".into(), "push".into(), "origin".into()]));
    for odd in ["git push \"x\"", "ls ~", "a && b", "touch a*", "x\u{a0}y", ""] {
        assert_eq!(plain_words(odd), None, "{odd:?}");
    }
}
