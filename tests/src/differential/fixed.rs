//! Disagreements the generator found, kept as fixed cases (issue 48): each row is the rule, the
//! call and the class it was drawn from, written out so that a change to the grammars cannot
//! lose it. They are played with the generated batches, class by class: a row of a pending
//! class (T-29) is played once its class is.

use serde_json::Value;

use super::Class;
use super::generate::{Batch, GenCall};

/// The index the fixed batches start at (generated ones are below it).
pub const FIXED_BASE: u64 = 1_000_000;

/// (class, rule, tool, input as JSON, where it was found).
pub const FIXED: [(Class, &str, &str, &str, &str); 19] = [
    // `cd ..` moves above the project: Claude Code refuses it under the prefix rule.
    (Class::BashPathArgs, "Bash(cd .. *)", "Bash", r#"{"command":"cd .."}"#, "seed=48 batch=0 call=0"),
    // `source` runs a file's commands: Claude Code refuses it under a prefix rule.
    (
        Class::BashLauncher,
        "Bash(source .env *)",
        "Bash",
        r#"{"command":"source .env"}"#,
        "seed=48 batch=14 call=7",
    ),
    (
        Class::BashLauncher,
        "Bash(source .env *)",
        "Bash",
        r#"{"command":"source .env ./x.sh x"}"#,
        "seed=48 batch=14 call=2",
    ),
    // A leading NBSP or ideographic space: Claude Code refuses, Warden read it as the prefix.
    (
        Class::BashOddText,
        "Bash(basename *)",
        "Bash",
        "{\"command\":\"\u{a0}basename\"}",
        "seed=48 batch=6 call=3",
    ),
    (
        Class::BashOddText,
        "Bash(basename *)",
        "Bash",
        "{\"command\":\"\u{3000}basename -s .rs\"}",
        "seed=48 batch=6 call=7",
    ),
    // Names Claude Code protects, refused even under `Edit(**)` or `Edit(.*)`; Warden granted them.
    (
        Class::ProtectedNames,
        "Edit(**)",
        "Write",
        r#"{"file_path":".git/b2c0","content":"x\n"}"#,
        "seed=4848 batch=2 call=0",
    ),
    (
        Class::ProtectedNames,
        "Edit(**)",
        "Edit",
        r#"{"file_path":".envrc","old_string":"","new_string":"x\n"}"#,
        "seed=4848 batch=2 call=1",
    ),
    (
        Class::ProtectedNames,
        "Edit(**)",
        "Write",
        r#"{"file_path":".npmrc","content":"x\n"}"#,
        "seed=4848 batch=2 call=4",
    ),
    (
        Class::ProtectedNames,
        "Edit(**)",
        "Write",
        r#"{"file_path":".gitmodules","content":"x\n"}"#,
        "seed=4848 batch=171 call=3",
    ),
    (
        Class::ProtectedNames,
        "Edit(**)",
        "Write",
        r#"{"file_path":".vscode/b171c7.json","content":"x\n"}"#,
        "seed=4848 batch=171 call=7",
    ),
    (
        Class::ProtectedNames,
        "Edit(.*)",
        "Edit",
        r#"{"file_path":".idea/b80c2.xml","old_string":"","new_string":"x\n"}"#,
        "seed=4848 batch=80 call=2",
    ),
    (
        Class::ProtectedNames,
        "Edit(.*)",
        "Edit",
        r#"{"file_path":"src/../.git/hooks/b80c4","old_string":"","new_string":"x\n"}"#,
        "seed=4848 batch=80 call=4",
    ),
    (
        Class::ProtectedNames,
        "Edit(.*)",
        "Write",
        r#"{"file_path":".claude/commands/b80c5.md","content":"x\n"}"#,
        "seed=4848 batch=80 call=5",
    ),
    // A trailing space, a zero-width space at the end: Claude Code refuses. (`unzip ` alone was
    // seen accepted; after ` unzip` in the same turn, refused: the pair is kept as found.)
    (
        Class::BashOddText,
        "Bash(unzip *)",
        "Bash",
        "{\"command\":\"\u{a0}unzip\"}",
        "seed=4848 batch=24 call=0",
    ),
    (Class::BashOddText, "Bash(unzip *)", "Bash", r#"{"command":"unzip "}"#, "seed=4848 batch=24 call=4"),
    (
        Class::BashOddText,
        "Bash(find -type f:*)",
        "Bash",
        "{\"command\":\"find -type f a b\u{200b}\"}",
        "seed=4848 batch=133 call=8",
    ),
    // A path argument above the project.
    (
        Class::BashPathArgs,
        "Bash(tr:*)",
        "Bash",
        r#"{"command":"tr a-z A-Z ./.././outside/b164c4.txt"}"#,
        "seed=4848 batch=164 call=4",
    ),
    // Found by rule_meaning.rs's table (T-15): kept here too, in the generated run's classes.
    (Class::BashPrefix, "Bash(touch:*)", "Bash", r#"{"command":"touch ~/evil"}"#, "rule_meaning.rs"),
    (
        Class::WebFetchHosts,
        "WebFetch(domain:example.com)",
        "WebFetch",
        r#"{"url":"https://example.com@evil.invalid/","prompt":"p"}"#,
        "rule_meaning.rs",
    ),
];

/// The fixed rows of `classes`, one batch per rule (seed 0, indexes from [`FIXED_BASE`]).
pub fn fixed_batches(classes: &[Class]) -> Vec<Batch> {
    let mut batches: Vec<Batch> = Vec::new();
    for (class, rule, tool, input, _) in FIXED.iter().filter(|row| classes.contains(&row.0)) {
        let call =
            GenCall { tool: (*tool).to_owned(), input: serde_json::from_str(input).unwrap_or(Value::Null) };
        match batches.iter_mut().find(|b| b.rule == *rule && b.class == *class) {
            Some(batch) => batch.calls.push(call),
            None => batches.push(Batch {
                seed: 0,
                index: FIXED_BASE + batches.len() as u64,
                class: *class,
                rule: (*rule).to_owned(),
                calls: vec![call],
            }),
        }
    }
    batches
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_fixed_row_is_json_and_is_played_with_its_class_only() {
        for (_, rule, _, input, _) in FIXED {
            assert!(
                serde_json::from_str::<serde_json::Value>(input).is_ok_and(|v| v.is_object()),
                "{rule}: {input}"
            );
        }
        let all = fixed_batches(&Class::ALL);
        assert_eq!(all.iter().map(|b| b.calls.len()).sum::<usize>(), FIXED.len());
        let prefix = fixed_batches(&[Class::BashPrefix]);
        assert!(prefix.iter().all(|b| b.class == Class::BashPrefix) && prefix.len() == 1);
    }
}
