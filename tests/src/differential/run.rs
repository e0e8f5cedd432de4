//! Plays generated batches through the pinned Claude Code and Warden's matcher (T-28).
//!
//! Each batch runs in a fresh copy of the example (files to act on, `outside/` beside it, the
//! grammar's links), its rule alone in `permissions.allow` with `defaultMode: "dontAsk"` and the
//! project trusted; the fake model makes every call of the batch in one turn. A group of
//! batches is also run with an empty `allow` (the baseline: what the client accepts with no
//! rule). Warden's answer is taken before the client runs, on the same tree.
//!
//! The client's shell is a stub (`CLAUDE_CODE_SHELL`) that records its arguments and runs
//! nothing: the permission decision is made before the shell is started, so every command the
//! client accepts is decided and none runs — a generated `rm -rf` or `kill -9 -1` harms
//! nothing. The file tools' writes stay inside the temp dir by the grammar's construction.

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use serde_json::json;

use super::generate::{Batch, GenCall};
use super::grammar::LINKS;
use super::{Tally, Verdict, classify};
use crate::claude_code::{
    Block, FakeApi, Project, RunOptions, Script, Tools, Turn, client_decisions, placed, warden_grants,
};

/// The tools the client offers in a run.
const OFFERED: &str = "Bash,Read,Edit,Write,Glob,Grep,NotebookEdit,WebFetch,Agent";

/// Batches run at once (each mostly waits on its client's start-up).
const PARALLEL: usize = 4;

/// One call's outcome.
#[derive(Debug, Clone)]
pub struct CaseResult {
    /// `seed=S batch=B call=K`: what reproduces it.
    pub id: String,
    /// The batch's class.
    pub class: super::Class,
    /// The rule as written into the settings.
    pub rule: String,
    /// The call, placed.
    pub call: String,
    /// The client's decision with the rule.
    pub client: Option<String>,
    /// The client's decision with no rule.
    pub baseline: Option<String>,
    /// Warden's answer (`Err`: the rule was refused at load).
    pub warden: Result<bool, String>,
    /// The verdict.
    pub verdict: Verdict,
}

impl CaseResult {
    /// One line for the log.
    pub fn line(&self) -> String {
        let warden = match &self.warden {
            Ok(true) => "allow".to_owned(),
            Ok(false) => "deny".to_owned(),
            Err(e) => format!("deny ({e})"),
        };
        format!(
            "{:<15} {} [{}] {} | {} | claude {} (no rule: {}) | warden {warden}",
            self.verdict.name(),
            self.id,
            self.class,
            self.rule.escape_debug(),
            self.call,
            self.client.as_deref().unwrap_or("none"),
            self.baseline.as_deref().unwrap_or("none"),
        )
    }
}

/// What a run of batches found.
#[derive(Debug, Default)]
pub struct Report {
    /// Every call's outcome.
    pub cases: Vec<CaseResult>,
    /// Counts by class and verdict.
    pub tally: Tally,
    /// Client runs that did not end cleanly, or reached another host, with why.
    pub troubles: Vec<String>,
}

impl Report {
    /// The more-permissive cases.
    pub fn more_permissive(&self) -> Vec<&CaseResult> {
        self.cases.iter().filter(|c| c.verdict == Verdict::MorePermissive).collect()
    }
}

/// Runs `batches` (in groups of `PARALLEL`, each group with its baseline), printing each
/// call's line as its group ends.
pub fn run_batches(tools: &Tools, batches: &[Batch]) -> Report {
    let mut report = Report::default();
    for group in batches.chunks(PARALLEL) {
        let (outcomes, baseline) = std::thread::scope(|scope| {
            let handles: Vec<_> = group.iter().map(|b| scope.spawn(move || run_one(tools, b))).collect();
            let baseline = run_baseline(tools, group);
            let outcomes: Vec<_> = handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|_| (Vec::new(), vec!["a batch's run panicked".to_owned()])))
                .collect();
            (outcomes, baseline)
        });
        let (base_decisions, base_troubles) = baseline;
        report.troubles.extend(base_troubles);
        for (batch, (calls, troubles)) in group.iter().zip(outcomes) {
            report.troubles.extend(troubles);
            for (k, (call, client, warden)) in calls.into_iter().enumerate() {
                let base = base_decisions.get(&call_id(batch.index, k)).cloned();
                let verdict = classify(client.as_deref(), base.as_deref(), warden == Ok(true));
                let result = CaseResult {
                    id: match batch.index.checked_sub(super::fixed::FIXED_BASE) {
                        Some(row) => format!("fixed batch={row} call={k}"),
                        None => format!("seed={} batch={} call={k}", batch.seed, batch.index),
                    },
                    class: batch.class,
                    rule: batch.rule.clone(),
                    call,
                    client,
                    baseline: base,
                    warden,
                    verdict,
                };
                println!("{}", result.line());
                report.tally.add(batch.class, verdict);
                report.cases.push(result);
            }
        }
    }
    report
}

/// The `tool_use_id` of call `k` of batch `index` (the same in the batch's run and the
/// baseline).
fn call_id(index: u64, k: usize) -> String {
    format!("toolu_d{index}_{k}")
}

/// A project set up for a batch: the example, files to act on, `outside/`, the links, the stub
/// shell, `allow` as the project's permissions, trusted. Returns it with `outside/`'s path.
fn project_for(tools: &Tools, allow: &[String]) -> (Project, String) {
    let project = Project::example(tools);
    let outside = project.dir().join("outside");
    let out = outside.to_string_lossy().into_owned();
    let files = [
        (project.root.join("src/a.rs"), "one\n"),
        (project.root.join("docs/x.md"), "doc\n"),
        (project.root.join("sub/src/b.rs"), "b\n"),
        (
            project.root.join("n.ipynb"),
            "{\"cells\":[],\"metadata\":{},\"nbformat\":4,\"nbformat_minor\":5}\n",
        ),
        (outside.join("o.txt"), "outside\n"),
    ];
    for (path, text) in files {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create a file's directory");
        }
        std::fs::write(path, text).expect("write a file to act on");
    }
    for (name, target) in LINKS {
        std::os::unix::fs::symlink(target.replace("@OUT@", &out), project.root.join(name))
            .expect("make a link");
    }
    let shell = project.dir().join("shell");
    std::fs::create_dir_all(&shell).expect("create the stub shell's dir");
    // One file per invocation: concurrent shells never interleave their records.
    let log = project.dir().join("shell.log.d");
    std::fs::create_dir_all(&log).expect("create the stub shell's log");
    let stub = format!("#!/bin/sh\nprintf '%s\\n' \"$*\" > '{}'/$$\nexit 0\n", log.display());
    std::fs::write(shell.join("bash"), stub).expect("write the stub shell");
    let chmod = std::process::Command::new("chmod").arg("+x").arg(shell.join("bash")).status();
    assert!(chmod.is_ok_and(|s| s.success()), "chmod the stub shell");
    let rules: Vec<String> = allow.iter().map(|r| placed_rule(r, &out, &project.root)).collect();
    project.set_settings(&json!({ "permissions": { "allow": rules, "defaultMode": "dontAsk" } }));
    project.trust();
    offer_mcp_servers(&project);
    (project, out)
}

/// The MCP servers the grammar's names call (`mcp__SERVER__TOOL`), each a stub that offers its
/// tools and answers every call with `ok`, in the user's `.claude.json` beside the project's
/// trust, so the client decides on their calls.
const MCP_SERVERS: [(&str, &[&str]); 3] =
    [("fs", &["read", "write", "read__x", "x"]), ("git", &["push"]), ("fs_x", &["read"])];

/// A stdio MCP server in `sh`: `initialize`, `tools/list` (its arguments are its tools),
/// `tools/call` (`ok`), `ping`; any other request is an unknown method, a notification is
/// ignored.
const MCP_STUB: &str = r#"tools=""
for t in "$@"; do
  tools="$tools${tools:+,}{\"name\":\"$t\",\"description\":\"stub\",\"inputSchema\":{\"type\":\"object\",\"properties\":{}}}"
done
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/.*"id":\([^,}]*\).*/\1/p')
  [ -z "$id" ] && continue
  case "$line" in
    *'"method":"initialize"'*) r='{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"stub","version":"1"}}' ;;
    *'"method":"tools/list"'*) r="{\"tools\":[$tools]}" ;;
    *'"method":"tools/call"'*) r='{"content":[{"type":"text","text":"ok"}]}' ;;
    *'"method":"ping"'*) r='{}' ;;
    *) printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no such method"}}\n' "$id"; continue ;;
  esac
  printf '{"jsonrpc":"2.0","id":%s,"result":%s}\n' "$id" "$r"
done
"#;

fn offer_mcp_servers(project: &Project) {
    let stub = project.dir().join("mcp_stub.sh");
    std::fs::write(&stub, MCP_STUB).expect("write the MCP stub");
    let servers: serde_json::Map<String, serde_json::Value> = MCP_SERVERS
        .iter()
        .map(|(name, tools)| {
            let mut args = vec![stub.to_string_lossy().into_owned()];
            args.extend(tools.iter().map(|t| (*t).to_owned()));
            ((*name).to_owned(), json!({ "type": "stdio", "command": "/bin/sh", "args": args }))
        })
        .collect();
    let path = project.dir().join("home/.claude.json");
    let mut claude_json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("read .claude.json"))
            .expect(".claude.json is JSON");
    claude_json["mcpServers"] = serde_json::Value::Object(servers);
    std::fs::write(&path, claude_json.to_string()).expect("write .claude.json");
}

/// A rule with `@OUT@` and `@ROOT@` placed (written after `//`, so without their leading `/`).
fn placed_rule(rule: &str, out: &str, root: &Path) -> String {
    let root = root.to_string_lossy();
    rule.replace("@OUT@", out.trim_start_matches('/')).replace("@ROOT@", root.trim_start_matches('/'))
}

/// A run of `blocks` in `project`; the client's decisions, and what went wrong.
fn play(project: &Project, blocks: Vec<Block>, fetches: bool) -> (HashMap<String, String>, Vec<String>) {
    let api = FakeApi::start(Script::new().agent("MAINTASK", vec![Turn(blocks)]).agent("SUBTASK", vec![]))
        .expect("start the fake Messages API");
    let shell = project.dir().join("shell/bash");
    let options = RunOptions {
        settings_decide: Some(OFFERED.to_owned()),
        timeout: Duration::from_secs(180),
        env: vec![
            ("CLAUDE_CODE_SHELL".to_owned(), shell.to_string_lossy().into_owned()),
            // The MCP stubs connected before the model's first turn, so their tools are offered.
            ("MCP_CONNECTION_NONBLOCKING".to_owned(), "false".to_owned()),
        ],
        ..RunOptions::default()
    };
    let run = project.run(&api, "MAINTASK go", &options);
    let mut troubles = Vec::new();
    if run.timed_out || run.exit != Some(0) {
        troubles.push(format!("exit {:?}, timed out {}: {}", run.exit, run.timed_out, run.stderr.trim()));
    }
    let foreign = api.foreign_requests();
    // An accepted WebFetch asks another host (refused by the fake): only then is one expected.
    if !fetches && !foreign.is_empty() {
        troubles.push(format!("the client tried to reach other hosts: {foreign:?}"));
    }
    (client_decisions(&run), troubles)
}

/// The tool_use blocks of `calls` (placed for `project`), with the batch's ids.
fn blocks(index: u64, calls: &[GenCall], root: &str, out: &str) -> Vec<(String, GenCall)> {
    calls
        .iter()
        .enumerate()
        .map(|(k, c)| {
            (call_id(index, k), GenCall { tool: c.tool.clone(), input: placed(&c.input, root, out) })
        })
        .collect()
}

/// One call: its rendering, the client's decision, Warden's answer.
type Played = (String, Option<String>, Result<bool, String>);

/// One batch: Warden's answers on the fresh tree, then the client's run.
fn run_one(tools: &Tools, batch: &Batch) -> (Vec<Played>, Vec<String>) {
    let (project, out) = project_for(tools, std::slice::from_ref(&batch.rule));
    let root = project.root.to_string_lossy().into_owned();
    let rule = placed_rule(&batch.rule, &out, &project.root);
    let placed = blocks(batch.index, &batch.calls, &root, &out);
    let warden: Vec<Result<bool, String>> = placed
        .iter()
        .map(|(_, c)| warden_grants(&rule, &c.tool, &c.input, &project.root, &project.root))
        .collect();
    let fetches = placed.iter().any(|(_, c)| c.tool == "WebFetch");
    let list = placed.iter().map(|(id, c)| Block::tool_with_id(id, &c.tool, c.input.clone())).collect();
    let (found, mut troubles) = play(&project, list, fetches);
    // Every accepted command reached the stub (one record each, ending by recording the working
    // directory, `pwd -P >|`): none ran elsewhere.
    let accepted_bash = placed
        .iter()
        .filter(|(id, c)| c.tool == "Bash" && found.get(id).is_some_and(|d| d == "accept"))
        .count();
    let records = std::fs::read_dir(project.dir().join("shell.log.d")).into_iter().flatten().flatten();
    let stubbed = records
        .filter(|r| {
            std::fs::read_to_string(r.path()).is_ok_and(|t| t.starts_with("-c") && t.contains("pwd -P >|"))
        })
        .count();
    if stubbed < accepted_bash {
        troubles.push(format!("{accepted_bash} commands accepted, {stubbed} reached the stub shell"));
    }
    let tag = |t: String| format!("seed={} batch={}: {t}", batch.seed, batch.index);
    let played = placed
        .into_iter()
        .zip(warden)
        .map(|((id, c), warden)| (format!("{} {}", c.tool, c.input), found.get(&id).cloned(), warden))
        .collect();
    (played, troubles.drain(..).map(tag).collect())
}

/// The baseline: every call of `group` in one run with no rule.
fn run_baseline(tools: &Tools, group: &[Batch]) -> (HashMap<String, String>, Vec<String>) {
    let (project, out) = project_for(tools, &[]);
    let root = project.root.to_string_lossy().into_owned();
    let mut list = Vec::new();
    let mut fetches = false;
    for batch in group {
        for (id, c) in blocks(batch.index, &batch.calls, &root, &out) {
            fetches |= c.tool == "WebFetch";
            list.push(Block::tool_with_id(&id, &c.tool, c.input));
        }
    }
    let (found, troubles) = play(&project, list, fetches);
    let first = group.first().map_or(0, |b| b.index);
    (found, troubles.into_iter().map(|t| format!("baseline from batch {first}: {t}")).collect())
}
