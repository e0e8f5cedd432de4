//! `warden init claude-code` and `warden doctor`: put Warden on a Claude Code project's hook
//! path, and check that everything it reads there is usable.
//!
//! H-6: Claude Code has no fail-closed switch for command hooks: a hook that times out, or
//! exits with anything but 2, lets the call run. So the entries carry a timeout well above
//! Warden's own bound (the store's lock wait, 5 s by default), Warden itself turns every
//! internal failure into exit 2, and the command names the `warden` binary by absolute path
//! (a missing binary would be exit 127: the call would run).

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Subcommand;
use serde::Serialize;
use serde_json::{Map, Value, json};

use agentwarden_domain::governance::{FileRead, PersonaReading, read_agent, read_persona};

use super::{EXIT_NO, EXIT_OK, Failure};
use crate::manifests::load_manifests;
use crate::{Config, SledConfig, StoreError, Verification, Warden, WardenError};

/// What marks a hook entry as Warden's: its command ends like this.
const MARK: &str = r#"hook --config "$CLAUDE_PROJECT_DIR/agentwarden.toml""#;
/// The events Warden's hook handles, with their matcher.
const EVENTS: [(&str, Option<&str>); 3] =
    [("PreToolUse", Some("Task|Agent")), ("SubagentStart", None), ("SubagentStop", None)];

#[derive(Debug, Subcommand)]
pub(super) enum InitCommand {
    /// Merge Warden's hook entries into `.claude/settings.json` (other keys are kept).
    ClaudeCode {
        /// The project's root directory.
        #[arg(long, default_value = ".", value_name = "DIR")]
        project: PathBuf,
        /// The `warden` binary the hook runs (default: this one).
        #[arg(long, value_name = "PATH")]
        warden: Option<PathBuf>,
        /// Claude Code's timeout for each hook call, in seconds.
        #[arg(long, default_value_t = 30, value_name = "SECONDS")]
        timeout: u64,
    },
}

#[derive(Debug, clap::Args)]
pub(super) struct DoctorArgs {
    /// The project's root directory.
    #[arg(long, default_value = ".", value_name = "DIR")]
    project: PathBuf,
    /// The configuration (default: `agentwarden.toml` in the project).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Print the checks as one JSON object.
    #[arg(long)]
    json: bool,
}

fn shell_quote(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', r"'\''"))
}

/// The hook command for `warden` at `exe`.
fn hook_command(exe: &Path) -> String {
    format!(r#"{} --store "$CLAUDE_PROJECT_DIR/.agentwarden/audit" {MARK}"#, shell_quote(exe))
}

fn is_ours(hook: &Value) -> bool {
    hook.get("command").and_then(Value::as_str).is_some_and(|c| c.ends_with(MARK))
}

/// Merges Warden's entries into `settings`: any earlier Warden entry is replaced, every other
/// key and hook is kept.
fn merge_hooks(settings: &mut Map<String, Value>, command: &str, timeout: u64) -> Result<(), String> {
    let hooks = settings.entry("hooks").or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(hooks) = hooks else { return Err("`hooks` is not an object".into()) };
    for (event, matcher) in EVENTS {
        let groups = hooks.entry(event).or_insert_with(|| Value::Array(Vec::new()));
        let Value::Array(groups) = groups else { return Err(format!("`hooks.{event}` is not an array")) };
        groups.retain_mut(|group| {
            let Some(Value::Array(list)) = group.get_mut("hooks") else { return true };
            let before = list.len();
            list.retain(|hook| !is_ours(hook));
            !(list.is_empty() && before > 0)
        });
        let mut group = Map::new();
        if let Some(matcher) = matcher {
            group.insert("matcher".into(), matcher.into());
        }
        group.insert("hooks".into(), json!([{"type": "command", "command": command, "timeout": timeout}]));
        groups.push(Value::Object(group));
    }
    Ok(())
}

pub(super) fn init(command: InitCommand, out: &mut dyn Write) -> Result<u8, Failure> {
    let InitCommand::ClaudeCode { project, warden, timeout } = command;
    let exe = match warden {
        Some(path) => path,
        None => {
            std::env::current_exe().map_err(|e| Failure::usage(format!("cannot find this binary: {e}")))?
        }
    };
    let exe = std::fs::canonicalize(&exe)
        .map_err(|e| Failure::usage(format!("`{}` is not a usable warden binary: {e}", exe.display())))?;
    let dir = project.join(".claude");
    let path = dir.join("settings.json");
    let mut settings =
        match agentwarden_adapters::untrusted::read_text(Some(&project), &path, crate::MAX_INPUT_BYTES) {
            Ok(text) => match serde_json::from_str::<Value>(&text) {
                Ok(Value::Object(map)) => map,
                Ok(_) => {
                    return Err(Failure::usage(format!(
                        "`{}` is not a JSON object; nothing written",
                        path.display()
                    )));
                }
                Err(e) => return Err(Failure::usage(format!("`{}`: {e}; nothing written", path.display()))),
            },
            Err(agentwarden_adapters::untrusted::UntrustedError::Missing { .. }) => Map::new(),
            Err(e) => return Err(Failure::usage(format!("cannot read {e}"))),
        };
    let command = hook_command(&exe);
    merge_hooks(&mut settings, &command, timeout)
        .map_err(|e| Failure::usage(format!("`{}`: {e}; nothing written", path.display())))?;
    let mut text = serde_json::to_string_pretty(&Value::Object(settings))
        .map_err(|e| Failure::usage(format!("cannot encode the settings: {e}")))?;
    text.push('\n');
    agentwarden_adapters::untrusted::write_atomic(Some(&project), &path, text.as_bytes(), 0o644)
        .map_err(|e| Failure::usage(format!("cannot write {e}")))?;
    writeln!(
        out,
        "merged Warden's hooks into {} (PreToolUse Task|Agent, SubagentStart, SubagentStop; timeout {timeout} s)",
        path.display()
    )?;
    writeln!(out, "  command: {command}")?;
    let config = project.join(crate::config::CONFIG_FILE);
    let first = if config.exists() { String::new() } else { format!("write `{}`, then ", config.display()) };
    writeln!(out, "next: {first}run `warden doctor --project {}`", project.display())?;
    Ok(EXIT_OK)
}

/// One finding of `warden doctor`.
#[derive(Debug, Serialize)]
struct Check {
    check: &'static str,
    ok: bool,
    detail: String,
    fix: Option<String>,
}

impl Check {
    fn ok(check: &'static str, detail: impl Into<String>) -> Check {
        Check { check, ok: true, detail: detail.into(), fix: None }
    }

    fn fail(check: &'static str, detail: impl Into<String>, fix: impl Into<String>) -> Check {
        Check { check, ok: false, detail: detail.into(), fix: Some(fix.into()) }
    }
}

fn covers(matcher: Option<&str>, tool: &str) -> bool {
    match matcher {
        None | Some("" | "*") => true,
        Some(m) => m.split('|').any(|part| part == tool),
    }
}

fn check_settings(project: &Path) -> Check {
    let path = project.join(".claude").join("settings.json");
    let fix = format!("run `warden init claude-code --project {}`", project.display());
    let read = agentwarden_adapters::untrusted::read_text(Some(project), &path, crate::MAX_INPUT_BYTES);
    let settings: Value = match read.map(|t| serde_json::from_str(&t)) {
        Ok(Ok(value)) => value,
        Ok(Err(e)) => {
            return Check::fail("settings", format!("`{}` is not valid JSON: {e}", path.display()), fix);
        }
        Err(e) => return Check::fail("settings", format!("cannot read {e}"), fix),
    };
    let mut missing = Vec::new();
    for (event, matcher) in EVENTS {
        let groups = settings.pointer(&format!("/hooks/{event}")).and_then(Value::as_array);
        let ours = groups.into_iter().flatten().filter_map(|group| {
            let hooks = group.get("hooks").and_then(Value::as_array)?;
            hooks.iter().any(is_ours).then(|| group.get("matcher").and_then(Value::as_str))
        });
        let wanted: Vec<&str> = matcher.map(|m| m.split('|').collect()).unwrap_or_default();
        let covered: Vec<Option<&str>> = ours.collect();
        if covered.is_empty() || !wanted.iter().all(|tool| covered.iter().any(|m| covers(*m, tool))) {
            missing.push(matcher.map_or_else(|| event.to_owned(), |m| format!("{event} ({m})")));
        }
    }
    if missing.is_empty() {
        Check::ok("settings", format!("`{}` runs `warden hook` for every governed event", path.display()))
    } else {
        Check::fail(
            "settings",
            format!("`{}` lacks Warden's hook for {}", path.display(), missing.join(", ")),
            fix,
        )
    }
}

fn read(path: &Path) -> FileRead {
    match agentwarden_adapters::untrusted::read_text(None, path, crate::MAX_INPUT_BYTES) {
        Ok(text) => FileRead::Text(text),
        Err(agentwarden_adapters::untrusted::UntrustedError::Missing { .. }) => FileRead::Missing,
        Err(e) => FileRead::Unreadable(e.reason()),
    }
}

fn check_files(config: &Config) -> Vec<Check> {
    let mut checks = Vec::new();
    let main = &config.claude_code.main_persona;
    let persona_file =
        agentwarden_domain::governance::Name::new(main).map(|name| config.subagents.persona_path(&name));
    let declared = match persona_file.as_ref().map(|path| (path, read_persona(main, Some(&read(path))))) {
        Err(e) => {
            checks.push(Check::fail(
                "persona",
                e.to_string(),
                "set `[claude_code] main_persona` to a plain name",
            ));
            Vec::new()
        }
        Ok((path, PersonaReading::Invalid(verdict))) => {
            let fix = format!("write `{}` with a `subagents:` list in its frontmatter", path.display());
            checks.push(Check::fail("persona", verdict.reason.to_string(), fix));
            Vec::new()
        }
        Ok((path, PersonaReading::Valid(persona))) => {
            let names: Vec<String> = persona.declared.iter().map(|n| n.as_str().to_owned()).collect();
            checks.push(Check::ok("persona", format!("`{}` declares {}", path.display(), names.join(", "))));
            persona.declared
        }
    };
    // Every agent reachable from the main persona: each declared subagent's own instruction
    // file, and the subagents it declares in turn when it is a persona too.
    let mut queue: std::collections::VecDeque<_> = declared.into();
    let mut seen = std::collections::BTreeSet::new();
    while let Some(name) = queue.pop_front() {
        if !seen.insert(name.clone()) {
            continue;
        }
        let path = config.subagents.agent_path(&name);
        let reading = read_agent(&read(&path));
        checks.push(if reading.verdict.passed {
            Check::ok("agent", format!("`{}`: {}", path.display(), reading.verdict.reason))
        } else {
            let fix = format!("give `{}` frontmatter with `AGENT_TYPE: 2`", path.display());
            Check::fail("agent", format!("`{}`: {}", path.display(), reading.verdict.reason), fix)
        });
        let persona = config.subagents.persona_path(&name);
        if let PersonaReading::Valid(p) = read_persona(name.as_str(), Some(&read(&persona))) {
            queue.extend(p.declared);
        }
    }
    checks.push(match load_manifests(&config.lineage.manifests) {
        Err(e) => Check::fail("manifests", e.to_string(), "fix the manifest file named above"),
        Ok(manifests) => {
            match agentwarden_domain::governance::Name::new(main).ok().and_then(|n| manifests.get(&n)) {
                Some(_) => {
                    Check::ok("manifests", format!("{} agent type(s), `{main}` included", manifests.len()))
                }
                None => Check::fail(
                    "manifests",
                    format!("no manifest for the main persona `{main}`: every spawn would be denied"),
                    format!("add `[agents.{main}]` with `can_spawn` and `max_spawn_depth` to the manifests"),
                ),
            }
        }
    });
    checks
}

async fn check_store(store: &Path) -> Check {
    if !store.exists() {
        return Check::ok(
            "store",
            format!("`{}` does not exist yet: the first hook call creates it", store.display()),
        );
    }
    let warden = match Warden::builder().embedded(SledConfig::new(store)).build() {
        Ok(warden) => warden,
        Err(e) => {
            return Check::fail(
                "store",
                e.to_string(),
                "stop the process holding the store, or restore it from a backup",
            );
        }
    };
    match warden.verify(None).await {
        Ok(Verification::Intact { head }) => {
            Check::ok("store", format!("`{}` verifies: {} event(s)", store.display(), head.seq))
        }
        Ok(Verification::Broken(broken)) => Check::fail(
            "store",
            format!("the chain is broken at seq {}: {broken}", broken.seq),
            "investigate with `warden audit verify`; do not append to a broken log",
        ),
        Err(e) => Check::fail("store", e.to_string(), "make the store readable"),
    }
}

/// The PostgreSQL fleet store: reachable, migrated, and its chain verifies.
async fn check_fleet_store(url: &str) -> Check {
    let config = match crate::PgConfig::parse(url) {
        Ok(config) => config.create_if_missing(false),
        Err(e) => return Check::fail("store", e.to_string(), "fix the postgres:// URL"),
    };
    let server = config.server();
    let warden = match Warden::builder().postgres(config).build() {
        Ok(warden) => warden,
        Err(e) => return Check::fail("store", e.to_string(), "check the PostgreSQL server and URL"),
    };
    match warden.verify(None).await {
        Ok(Verification::Intact { head }) => {
            Check::ok("store", format!("PostgreSQL at `{server}` verifies: {} event(s)", head.seq))
        }
        Ok(Verification::Broken(broken)) => Check::fail(
            "store",
            format!("the chain is broken at seq {}: {broken}", broken.seq),
            "investigate with `warden audit verify`; do not append to a broken log",
        ),
        Err(WardenError::Store(StoreError::Missing { .. })) => Check::ok(
            "store",
            format!("PostgreSQL at `{server}` has no event store yet: the first append creates it"),
        ),
        Err(e) => Check::fail("store", e.to_string(), "make the PostgreSQL server reachable from this host"),
    }
}

pub(super) async fn doctor(args: DoctorArgs, store: &Path, out: &mut dyn Write) -> Result<u8, Failure> {
    let mut checks = vec![check_settings(&args.project)];
    let config_path = args.config.clone().unwrap_or_else(|| args.project.join(crate::config::CONFIG_FILE));
    match Config::load(Some(&config_path)) {
        Err(e) => checks.push(Check::fail(
            "config",
            e.to_string(),
            format!("write `{}` (see the README's \"Guard Claude Code\")", config_path.display()),
        )),
        Ok(config) => {
            checks.push(Check::ok("config", format!("`{}` loads", config_path.display())));
            checks.extend(check_files(&config));
            let var = &config.subagents.enable_env;
            checks.push(match std::env::var(var).as_deref() {
                Ok("true") => {
                    Check::ok("kill switch", format!("`{var}` is `true`: subagents may be enabled"))
                }
                _ => Check::ok(
                    "kill switch",
                    format!(
                        "`{var}` is not `true` here: every spawn is denied until Claude Code runs with it set"
                    ),
                ),
            });
        }
    }
    match store.to_str().filter(|s| crate::PgConfig::is_postgres_url(s)) {
        Some(url) => checks.push(check_fleet_store(url).await),
        None => {
            let store = if store.is_absolute() { store.to_path_buf() } else { args.project.join(store) };
            checks.push(check_store(&store).await);
        }
    }
    let healthy = checks.iter().all(|c| c.ok);
    if args.json {
        writeln!(out, "{}", json!({"healthy": healthy, "checks": checks}))?;
    } else {
        for c in &checks {
            writeln!(out, "{}  {}: {}", if c.ok { "ok  " } else { "FAIL" }, c.check, c.detail)?;
            if let Some(fix) = &c.fix {
                writeln!(out, "      fix: {fix}")?;
            }
        }
    }
    Ok(if healthy { EXIT_OK } else { EXIT_NO })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merging_keeps_other_keys_and_replaces_earlier_warden_entries() {
        let mut settings: Map<String, Value> = serde_json::from_str(
            r#"{"model":"opus","hooks":{"PreToolUse":[
                {"matcher":"Bash","hooks":[{"type":"command","command":"lint.sh"}]},
                {"matcher":"Task|Agent","hooks":[{"type":"command","command":"'/old/warden' hook --config \"$CLAUDE_PROJECT_DIR/agentwarden.toml\""}]}
            ]}}"#,
        )
        .unwrap();
        merge_hooks(&mut settings, &hook_command(Path::new("/new/warden")), 30).unwrap();
        merge_hooks(&mut settings, &hook_command(Path::new("/new/warden")), 30).unwrap();
        assert_eq!(settings["model"], "opus");
        let pre = settings["hooks"]["PreToolUse"].as_array().unwrap();
        assert_eq!(pre.len(), 2, "lint kept, one Warden entry: {pre:?}");
        assert_eq!(pre[0]["hooks"][0]["command"], "lint.sh");
        assert_eq!(pre[1]["matcher"], "Task|Agent");
        assert!(pre[1]["hooks"][0]["command"].as_str().unwrap().starts_with("'/new/warden' --store"));
        assert_eq!(settings["hooks"]["SubagentStop"].as_array().unwrap().len(), 1);
        assert!(settings["hooks"]["SubagentStart"][0].get("matcher").is_none());
    }

    #[test]
    fn a_settings_file_of_the_wrong_shape_is_refused() {
        let mut settings: Map<String, Value> = serde_json::from_str(r#"{"hooks":[]}"#).unwrap();
        assert!(merge_hooks(&mut settings, "x", 30).is_err());
        let mut settings: Map<String, Value> =
            serde_json::from_str(r#"{"hooks":{"SubagentStop":{}}}"#).unwrap();
        assert!(merge_hooks(&mut settings, "x", 30).is_err());
    }

    #[test]
    fn quoting_survives_a_quote_in_the_path() {
        assert_eq!(shell_quote(Path::new("/a b/it's/warden")), r"'/a b/it'\''s/warden'");
    }

    #[test]
    fn matchers_cover_tools_by_alternative_or_wildcard() {
        assert!(covers(Some("Task|Agent"), "Agent"));
        assert!(covers(Some("*"), "Task"));
        assert!(covers(None, "Task"));
        assert!(!covers(Some("Task"), "Agent"));
    }
}
