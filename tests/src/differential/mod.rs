//! The generated differential (issue 48): a rule means in Warden no more than in the pinned
//! client, tested on rules and calls drawn from grammars rather than on a list. A batch is one
//! rule of one grammar [`Class`] and the calls asked about it ([`generate::batch`]); each call
//! is a case, reproducible from (seed, batch, call) alone. [`run`] plays batches through the
//! real Claude Code (`permissions.allow = [RULE]`, `dontAsk`, the project trusted) and asks
//! Warden's matcher the same question; [`classify`] sorts each call: the same answer, Warden
//! stricter, Warden more permissive (never allowed), or the client made no decision (counted,
//! not hidden). Ruling T-28.
//!
//! `dontAsk` accepts some calls no rule grants (reads inside the project, read-only commands):
//! such an accept is the client's default, not the rule's meaning. Each group of batches is
//! also run with no rule at all (the baseline), and a call the client accepts without the rule
//! is counted apart ([`Verdict::ClientDefault`]), whatever Warden answers (T-28).
//!
//! Classes whose fixes are still landing on other branches are listed in [`PENDING`]: they are
//! left out of a run unless asked for by name, and their counts are still printed when they
//! are asked for; the list only shrinks (T-29).

pub mod fixed;
pub mod generate;
pub mod grammar;
pub mod rng;
pub mod run;

use std::collections::BTreeMap;
use std::fmt;

/// A grammar the generator draws a batch's rule and calls from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// `Bash(U:*)`, `Bash(U OPT *)`, … and commands of a hundred utilities with their options.
    BashPrefix,
    /// Commands behind a launcher (`env`, `sudo`, `timeout 5`, `bash -c`, a path, quotes).
    BashLauncher,
    /// Commands with odd text: NBSP, zero-width, tab, control characters, a second command.
    BashOddText,
    /// Commands whose arguments are paths: links, protected names, `..`, `~`, Unicode.
    BashPathArgs,
    /// `Read(PAT)` / `Edit(PAT)` and file tools' calls on paths of every shape.
    FilePaths,
    /// The same rules, calls through links the project holds (inside, outside, dangling).
    FileLinks,
    /// The same rules, calls on names a client protects (`.git/…`, `.claude/…`, `.bashrc`, …).
    ProtectedNames,
    /// `WebFetch(domain:HOST)` and URLs naming hosts in every notation.
    WebFetchHosts,
    /// MCP tool rules and calls (`mcp__SERVER__TOOL`).
    Mcp,
    /// `Agent(TYPE)` / `Task(TYPE)` and subagent calls.
    AgentTypes,
    /// A bare tool name and calls of every tool.
    BareTools,
}

impl Class {
    /// Every class.
    pub const ALL: [Class; 11] = [
        Class::BashPrefix,
        Class::BashLauncher,
        Class::BashOddText,
        Class::BashPathArgs,
        Class::FilePaths,
        Class::FileLinks,
        Class::ProtectedNames,
        Class::WebFetchHosts,
        Class::Mcp,
        Class::AgentTypes,
        Class::BareTools,
    ];

    /// Its name on the command line and in the reports.
    pub fn name(self) -> &'static str {
        match self {
            Class::BashPrefix => "bash-prefix",
            Class::BashLauncher => "bash-launcher",
            Class::BashOddText => "bash-odd-text",
            Class::BashPathArgs => "bash-path-args",
            Class::FilePaths => "file-paths",
            Class::FileLinks => "file-links",
            Class::ProtectedNames => "protected-names",
            Class::WebFetchHosts => "webfetch-hosts",
            Class::Mcp => "mcp",
            Class::AgentTypes => "agent-types",
            Class::BareTools => "bare-tools",
        }
    }

    /// The class named `name`.
    pub fn named(name: &str) -> Option<Class> {
        Class::ALL.into_iter().find(|c| c.name() == name)
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The classes whose matcher fixes are still landing: switched off in a default run, so the
/// suite holds the property on the others, and emptied once the fixes are merged (T-29). The
/// fixes of issue 48 (links, held names and path arguments of commands; launchers, odd text and
/// hosts) have landed: none is pending.
pub const PENDING: [Class; 0] = [];

/// The classes a run draws from: those named in `spec` (`all`, or names separated by `,`),
/// else every class not [`PENDING`]. `Err` names an unknown class.
pub fn classes(spec: Option<&str>) -> Result<Vec<Class>, String> {
    match spec.map(str::trim) {
        None | Some("") => Ok(Class::ALL.into_iter().filter(|c| !PENDING.contains(c)).collect()),
        Some("all") => Ok(Class::ALL.to_vec()),
        Some(list) => list
            .split(',')
            .map(|name| {
                Class::named(name.trim()).ok_or_else(|| {
                    let known: Vec<&str> = Class::ALL.iter().map(|c| c.name()).collect();
                    format!("unknown class `{name}`: one of {}", known.join(", "))
                })
            })
            .collect(),
    }
}

/// How Warden's answer on a call stands to the client's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Verdict {
    /// Both allow, or both refuse.
    Same,
    /// Warden refuses what the client accepts (allowed where a ruling says so).
    Stricter,
    /// Warden allows what the client rejects: never allowed.
    MorePermissive,
    /// The client made no permission decision on the call (it refused it before asking, or
    /// has no such tool): nothing was tested.
    Undecided,
    /// The client accepts the call with no rule at all (`dontAsk`'s default): the rule's
    /// meaning was not tested.
    ClientDefault,
}

impl Verdict {
    /// Every verdict, in report order.
    pub const ALL: [Verdict; 5] = [
        Verdict::Same,
        Verdict::Stricter,
        Verdict::MorePermissive,
        Verdict::Undecided,
        Verdict::ClientDefault,
    ];

    /// Its name in the reports.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Same => "same",
            Verdict::Stricter => "stricter",
            Verdict::MorePermissive => "more-permissive",
            Verdict::Undecided => "undecided",
            Verdict::ClientDefault => "client-default",
        }
    }
}

/// The verdict on one call: the client's decision with the rule (`accept`, `reject`, or none),
/// without any rule (the baseline), and whether Warden grants it (a rule it refuses to load
/// grants nothing). A call the client rejects and Warden allows is more permissive whatever
/// the baseline said.
pub fn classify(client: Option<&str>, baseline: Option<&str>, warden_allows: bool) -> Verdict {
    match (client, warden_allows) {
        (Some("reject"), true) => Verdict::MorePermissive,
        (Some("reject"), false) => Verdict::Same,
        (Some("accept"), _) if baseline == Some("accept") => Verdict::ClientDefault,
        (Some("accept"), true) => Verdict::Same,
        (Some("accept"), false) => Verdict::Stricter,
        // No decision, or one this suite does not know: nothing was tested.
        _ => Verdict::Undecided,
    }
}

/// Counts by class and verdict.
#[derive(Debug, Default, Clone)]
pub struct Tally(pub BTreeMap<(Class, Verdict), usize>);

impl Tally {
    /// One more `verdict` in `class`.
    pub fn add(&mut self, class: Class, verdict: Verdict) {
        *self.0.entry((class, verdict)).or_default() += 1;
    }

    /// How many of `verdict`, over every class.
    pub fn total(&self, verdict: Verdict) -> usize {
        self.0.iter().filter(|((_, v), _)| *v == verdict).map(|(_, n)| n).sum()
    }

    /// The table: one row per class, one column per verdict, and the totals.
    pub fn table(&self) -> String {
        let mut out = format!("| class | cases | {} |\n", Verdict::ALL.map(Verdict::name).join(" | "));
        out.push_str(&format!("| --- | ---:{} |\n", " | ---:".repeat(Verdict::ALL.len())));
        let row = |label: &str, count: &dyn Fn(Verdict) -> usize| {
            let counts = Verdict::ALL.map(count);
            let cells: Vec<String> = counts.iter().map(usize::to_string).collect();
            format!("| {label} | {} | {} |\n", counts.iter().sum::<usize>(), cells.join(" | "))
        };
        for class in Class::ALL {
            if self.0.keys().any(|(c, _)| *c == class) {
                out.push_str(&row(class.name(), &|v| self.0.get(&(class, v)).copied().unwrap_or(0)));
            }
        }
        out.push_str(&row("all", &|v| self.total(v)));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_pair_of_answers_has_its_verdict() {
        // (client, baseline, warden allows, verdict, why)
        let rows = [
            (Some("reject"), None, true, Verdict::MorePermissive, "Warden allows what the client rejects"),
            (
                Some("reject"),
                Some("accept"),
                true,
                Verdict::MorePermissive,
                "the baseline never excuses a reject",
            ),
            (Some("reject"), Some("reject"), false, Verdict::Same, "both refuse"),
            (Some("accept"), Some("reject"), true, Verdict::Same, "both allow, by the rule"),
            (Some("accept"), Some("reject"), false, Verdict::Stricter, "Warden refuses what the rule grants"),
            (Some("accept"), None, false, Verdict::Stricter, "no baseline decision: the rule's accept"),
            (Some("accept"), Some("accept"), true, Verdict::ClientDefault, "accepted with no rule"),
            (Some("accept"), Some("accept"), false, Verdict::ClientDefault, "accepted with no rule"),
            (None, Some("accept"), true, Verdict::Undecided, "no decision with the rule"),
            (Some("ask"), None, true, Verdict::Undecided, "a decision this suite does not know"),
        ];
        for (client, baseline, warden, expected, why) in rows {
            assert_eq!(
                classify(client, baseline, warden),
                expected,
                "{why}: {client:?} {baseline:?} {warden}"
            );
        }
    }

    #[test]
    fn classes_are_named_once_and_the_default_leaves_out_the_pending_ones() {
        for class in Class::ALL {
            assert_eq!(Class::named(class.name()), Some(class));
        }
        let default = classes(None).unwrap();
        assert!(default.iter().all(|c| !PENDING.contains(c)) && !default.is_empty());
        assert_eq!(classes(Some("all")).unwrap(), Class::ALL.to_vec());
        assert_eq!(classes(Some("mcp, file-links")).unwrap(), vec![Class::Mcp, Class::FileLinks]);
        assert!(classes(Some("bash")).unwrap_err().contains("unknown class `bash`"));
    }

    #[test]
    fn the_table_counts_every_verdict_per_class_and_in_all() {
        let mut tally = Tally::default();
        tally.add(Class::BashPrefix, Verdict::Same);
        tally.add(Class::BashPrefix, Verdict::Stricter);
        tally.add(Class::FilePaths, Verdict::MorePermissive);
        let table = tally.table();
        assert!(table.contains("| bash-prefix | 2 | 1 | 1 | 0 | 0 | 0 |"), "{table}");
        assert!(table.contains("| file-paths | 1 | 0 | 0 | 1 | 0 | 0 |"), "{table}");
        assert!(table.contains("| all | 3 | 1 | 1 | 1 | 0 | 0 |"), "{table}");
        assert_eq!(tally.total(Verdict::MorePermissive), 1);
    }
}
