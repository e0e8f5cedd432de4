//! The cases: for each batch a grammar class and a rule drawn from it, then calls drawn for
//! that rule — mostly of the rule's own tool and words, a few of any class (a rule must also
//! grant nothing it does not name). Everything is drawn from the batch's and the call's
//! position alone ([`Rng::at`]), so `(seed, batch, call)` is the whole of a case.

use serde_json::{Value, json};

use super::Class;
use super::grammar::{
    AGENT_TYPES, DOMAINS, JOINERS, LAUNCHERS, LINK_PATHS, MCP_NAMES, MOVERS, PATHS, PATTERNS, PROTECTED,
    Shape, URLS, UTILITIES, Utility, WORDS,
};
use super::rng::Rng;

/// One generated call: the tool, its input (`@ROOT@`, `@OUT@` still to be placed).
#[derive(Debug, Clone, PartialEq)]
pub struct GenCall {
    /// The tool's name as the model calls it.
    pub tool: String,
    /// Its input.
    pub input: Value,
}

/// One batch: its class and rule (`@ROOT@`/`@OUT@` written without their leading `/`, for
/// `//` rules), and its calls; call `k` is case (seed, batch, k).
#[derive(Debug, Clone, PartialEq)]
pub struct Batch {
    /// The seed.
    pub seed: u64,
    /// Its index under the seed.
    pub index: u64,
    /// The grammar class its rule was drawn from.
    pub class: Class,
    /// The rule, the project's one `permissions.allow` entry.
    pub rule: String,
    /// The calls asked about it.
    pub calls: Vec<GenCall>,
}

/// Batch `index` under `seed`, with `calls` calls, its class drawn from `classes` (not empty).
pub fn batch(seed: u64, index: u64, calls: usize, classes: &[Class]) -> Batch {
    let mut rng = Rng::at(seed, index, u64::MAX);
    let class = *rng.pick(classes);
    let rule = rule(class, &mut rng);
    let calls = (0..calls)
        .map(|k| {
            let mut rng = Rng::at(seed, index, k as u64);
            // One call in five is of any class: a rule grants nothing it does not name.
            let of = if rng.chance(20) { *rng.pick(&Class::ALL) } else { class };
            call(of, &rule, &mut rng, &format!("b{index}c{k}"))
        })
        .collect();
    Batch { seed, index, class, rule, calls }
}

/// A rule of `class`.
fn rule(class: Class, rng: &mut Rng) -> String {
    match class {
        Class::BashPrefix | Class::BashOddText | Class::BashLauncher | Class::BashPathArgs => {
            // The plain prefix class keeps to utilities that run nothing else and move nowhere (T-29).
            let plain: Vec<&Utility> =
                UTILITIES.iter().filter(|(n, _)| !LAUNCHERS.contains(n) && !MOVERS.contains(n)).collect();
            let (name, options) = match class {
                Class::BashPrefix => *plain.get(rng.below(plain.len())).copied().unwrap_or(&UTILITIES[0]),
                _ => *rng.pick(&UTILITIES),
            };
            let option = rng.pick(options);
            match rng.below(7) {
                0 => format!("Bash({name}:*)"),
                1 => format!("Bash({name} *)"),
                2 => format!("Bash({name} {option}:*)"),
                3 => format!("Bash({name} {option} *)"),
                4 => format!("Bash({name})"),
                5 => format!("Bash({name} * {})", rng.pick(&WORDS)),
                _ => format!("Bash({name} {option})"),
            }
        }
        Class::FilePaths | Class::FileLinks | Class::ProtectedNames => {
            let tool = if rng.chance(50) { "Edit" } else { "Read" };
            format!("{tool}({})", rng.pick(&PATTERNS))
        }
        Class::WebFetchHosts => format!("WebFetch(domain:{})", rng.pick(&DOMAINS)),
        Class::Mcp => rng.pick(&MCP_NAMES).to_string(),
        Class::AgentTypes => match rng.below(4) {
            0 => "Agent".to_owned(),
            1 => format!("Task({})", rng.pick(&AGENT_TYPES)),
            _ => format!("Agent({})", rng.pick(&AGENT_TYPES)),
        },
        Class::BareTools => rng
            .pick(&["Bash", "Read", "Edit", "Write", "Glob", "Grep", "NotebookEdit", "WebFetch"])
            .to_string(),
    }
}

/// The tool and first word of `rule` (`Bash(git push:*)`: `Bash`, `git`).
fn rule_words(rule: &str) -> (&str, &str) {
    let (tool, rest) = rule.split_once('(').unwrap_or((rule, ""));
    let first = rest.split([' ', ':', ')']).next().unwrap_or_default();
    (tool, first)
}

/// A call of `class` asked about `rule`; `fresh` names what it may create.
fn call(class: Class, rule: &str, rng: &mut Rng, fresh: &str) -> GenCall {
    let (rule_tool, rule_word) = rule_words(rule);
    match class {
        Class::BashPrefix => bash(command(rule_tool, rule_word, rng)),
        Class::BashLauncher => {
            let inner = command(rule_tool, rule_word, rng);
            let launcher = rng.pick(&[
                "env ",
                "env -i ",
                "command ",
                "builtin ",
                "exec ",
                "nohup ",
                "nice ",
                "timeout 5 ",
                "time ",
                "sudo ",
                "xargs ",
                "bash -c ",
                "sh -c ",
                "eval ",
                "/usr/bin/",
                "\\",
                "'",
                "X=1 ",
                "\"",
            ]);
            let text = match *launcher {
                "'" | "\"" => {
                    let (word, rest) = inner.split_once(' ').unwrap_or((&inner, ""));
                    format!("{launcher}{word}{launcher} {rest}")
                }
                "bash -c " | "sh -c " | "eval " => format!("{launcher}'{inner}'"),
                _ => format!("{launcher}{inner}"),
            };
            bash(text)
        }
        Class::BashOddText => {
            let inner = command(rule_tool, rule_word, rng);
            let odd = rng.pick(&[
                "\u{a0}",
                "\t",
                "\u{200b}",
                "\u{feff}",
                "\u{2028}",
                "\u{3000}",
                "  ",
                "\u{0}",
                "\u{1b}[2K",
                "\u{85}",
            ]);
            let text = match rng.below(4) {
                0 => format!("{odd}{inner}"),
                1 => format!("{inner}{odd}"),
                2 => inner.replacen(' ', odd, 1),
                _ => format!("{inner}{}{}", rng.pick(&JOINERS), command(rule_tool, rule_word, rng)),
            };
            bash(text)
        }
        Class::BashPathArgs => {
            let shape = path(rng, fresh, true);
            let (name, options) = if rng.chance(70) {
                UTILITIES.iter().find(|(n, _)| *n == rule_word).copied().unwrap_or(*rng.pick(&UTILITIES))
            } else {
                *rng.pick(&UTILITIES)
            };
            bash(format!("{name} {} {shape}", rng.pick(options)))
        }
        Class::FilePaths | Class::FileLinks | Class::ProtectedNames => {
            let table: &[Shape] = match class {
                Class::FileLinks => &LINK_PATHS,
                Class::ProtectedNames => &PROTECTED,
                _ => &PATHS,
            };
            file_call(table, rng, fresh)
        }
        Class::WebFetchHosts => {
            GenCall { tool: "WebFetch".to_owned(), input: json!({ "url": rng.pick(&URLS), "prompt": "p" }) }
        }
        Class::Mcp => {
            let name = rng.pick(&MCP_NAMES).replace('*', "x");
            GenCall { tool: name, input: json!({}) }
        }
        Class::AgentTypes => {
            let mut input = json!({ "description": "d", "prompt": "SUBTASK go", "run_in_background": false });
            let kind = rng.pick(&AGENT_TYPES);
            if !kind.is_empty() {
                input["subagent_type"] = json!(kind);
            }
            GenCall { tool: if rng.chance(80) { "Agent" } else { "Task" }.to_owned(), input }
        }
        Class::BareTools => {
            let of =
                *rng.pick(&[Class::BashPrefix, Class::FilePaths, Class::WebFetchHosts, Class::AgentTypes]);
            call(of, rule, rng, fresh)
        }
    }
}

/// A command: mostly the rule's own utility (when the rule is a `Bash` rule) with its options
/// and words, else any utility.
fn command(rule_tool: &str, rule_word: &str, rng: &mut Rng) -> String {
    let own = UTILITIES.iter().find(|(n, _)| *n == rule_word).copied();
    let plain: Vec<&Utility> =
        UTILITIES.iter().filter(|(n, _)| !LAUNCHERS.contains(n) && !MOVERS.contains(n)).collect();
    let (name, options) = match own {
        Some(own) if rule_tool == "Bash" && rng.chance(75) => own,
        // A command of the plain class names no launcher; the launcher class adds its own.
        _ => **plain.get(rng.below(plain.len())).unwrap_or(&&UTILITIES[0]),
    };
    let mut words = vec![name.to_owned()];
    for _ in 0..rng.below(4) {
        words.push(match rng.below(3) {
            0 | 1 => rng.pick(options).to_string(),
            _ => rng.pick(&WORDS).to_string(),
        });
    }
    words.join(" ")
}

/// A path from a table chosen by chance (the plain shapes, links, protected names), placed
/// with `fresh`; `writable` keeps to shapes a call may write through.
fn path(rng: &mut Rng, fresh: &str, writable: bool) -> String {
    let table: &[Shape] = match rng.below(3) {
        0 => &LINK_PATHS,
        1 => &PROTECTED,
        _ => &PATHS,
    };
    shape(table, rng, fresh, writable)
}

/// A shape of `table` (one that may be written, when `writable`) with `{n}`, `{long}` and
/// `{deep}` filled in.
fn shape(table: &[Shape], rng: &mut Rng, fresh: &str, writable: bool) -> String {
    let candidates: Vec<&Shape> = table.iter().filter(|(_, w)| *w || !writable).collect();
    let (text, _) =
        candidates.get(rng.below(candidates.len())).copied().copied().unwrap_or(("src/{n}.rs", true));
    text.replace("{n}", fresh).replace("{long}", &"l".repeat(300)).replace("{deep}", &vec!["d"; 60].join("/"))
}

/// A file tool's call on a path of `table`: a write (Write, or Edit creating the file), a read,
/// a search, or a notebook edit.
fn file_call(table: &[Shape], rng: &mut Rng, fresh: &str) -> GenCall {
    let (tool, input) = match rng.below(7) {
        0 | 1 => ("Write", json!({ "file_path": shape(table, rng, fresh, true), "content": "x\n" })),
        2 => (
            "Edit",
            json!({ "file_path": shape(table, rng, fresh, true), "old_string": "", "new_string": "x\n" }),
        ),
        3 => ("Read", json!({ "file_path": shape(table, rng, fresh, false) })),
        4 => (
            "Glob",
            json!({ "pattern": rng.pick(&["*", "**/*", "*.rs", "../*", "/etc/*"]), "path": shape(table, rng, fresh, false) }),
        ),
        5 => ("Grep", json!({ "pattern": "x", "path": shape(table, rng, fresh, false) })),
        _ => (
            "NotebookEdit",
            json!({ "notebook_path": shape(table, rng, fresh, true), "new_source": "x", "cell_type": "code", "edit_mode": "insert" }),
        ),
    };
    GenCall { tool: tool.to_owned(), input }
}

fn bash(command: String) -> GenCall {
    GenCall { tool: "Bash".to_owned(), input: json!({ "command": command }) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_is_its_seed_and_index_and_the_calls_it_is_asked_for() {
        let a = batch(7, 3, 10, &Class::ALL);
        assert_eq!(a, batch(7, 3, 10, &Class::ALL), "drawn again, the same batch");
        assert_eq!(a.calls.len(), 10);
        let longer = batch(7, 3, 12, &Class::ALL);
        assert_eq!(longer.calls.get(..10), Some(a.calls.as_slice()), "a call is its own position's");
        assert_ne!(a, batch(8, 3, 10, &Class::ALL));
    }

    #[test]
    fn every_class_is_drawn_and_a_batch_keeps_to_the_classes_it_is_given() {
        for class in Class::ALL {
            let drawn = (0..40).map(|i| batch(1, i, 1, &[class]));
            assert!(drawn.clone().all(|b| b.class == class), "{class:?}");
        }
        let seen: std::collections::BTreeSet<_> =
            (0..400).map(|i| batch(1, i, 0, &Class::ALL).class).collect();
        assert_eq!(seen.len(), Class::ALL.len(), "{seen:?}");
    }

    #[test]
    fn no_write_leaves_the_temp_dir() {
        for i in 0..300 {
            for call in batch(5, i, 12, &Class::ALL).calls {
                let Some(path) = call.input.get("file_path").or(call.input.get("notebook_path")) else {
                    continue;
                };
                let path = path.as_str().unwrap_or_default().trim();
                if call.tool == "Read" {
                    continue;
                }
                let allowed = ["@ROOT@", "@OUT@", "~/"];
                assert!(
                    !path.starts_with('/') && !path.starts_with("~r")
                        || allowed.iter().any(|a| path.starts_with(a)),
                    "{call:?}"
                );
                let climbs = path.split('/').filter(|s| *s == "..").count();
                let downs = path.split('/').filter(|s| !s.is_empty() && *s != ".." && *s != ".").count();
                assert!(climbs <= 1 || downs >= climbs, "{call:?}");
            }
        }
    }
}
