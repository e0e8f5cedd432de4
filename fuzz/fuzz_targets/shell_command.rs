//! A Bash command and a URL as a pattern rule reads them (T-22 … T-25): any rule against any
//! command and any URL. Never a panic; a pattern rule grants only a command it can read as one
//! (no compound line, no launcher first); a command a pattern rule can read is granted by the
//! rule that spells it; a URL's host, as Warden normalises it, loads as a rule that grants it.
#![no_main]

use agentwarden_domain::lineage::{Argument, CallArgument, NoLinks, ToolRule, ToolUse};
use libfuzzer_sys::fuzz_target;

/// A few launchers of the list (T-22), spelt here so that the list cannot lose them unseen.
const LAUNCHERS: [&str; 8] = ["exec", "eval", "env", "nohup", "time", "sudo", "xargs", "coproc"];

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    // rule \0 command-or-url
    let Some((rule, line)) = text.split_once('\0') else { return };
    let command = ToolUse::resolve("Bash", &CallArgument::Command(line.to_owned()), "/p", "/p", &NoLinks);
    let url = ToolUse::resolve("WebFetch", &CallArgument::Url(line.to_owned()), "/p", "/p", &NoLinks);
    if let Ok(rule) = ToolRule::parse(rule) {
        let patterned = rule.as_str().contains('(');
        if patterned && rule.grants(&command) {
            let Argument::Command(read) = &command.argument else {
                panic!("{rule} granted a line it cannot read as one command: {line:?}")
            };
            let first = read.split(' ').next().unwrap_or_default();
            assert!(!LAUNCHERS.contains(&first), "{rule} granted a launcher: {line:?}");
        }
        let _ = rule.grants(&url);
    }
    if let Argument::Command(read) = &command.argument {
        if let Ok(spelt) = ToolRule::parse(&format!("Bash({read})")) {
            assert!(spelt.grants(&command), "Bash({read}) does not grant its own command");
        }
    }
    let shown = url.to_string();
    if shown.starts_with("WebFetch(domain:") {
        let rule = ToolRule::parse(&shown).unwrap_or_else(|e| panic!("{shown} does not load: {e}"));
        assert!(rule.grants(&url), "{shown} does not grant {line:?}");
    }
});
