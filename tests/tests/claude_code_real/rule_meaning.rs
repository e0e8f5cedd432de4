//! Issue 34, item 8: a rule grants no more in Warden than in Claude Code. The manifests are
//! written in Claude Code's rule syntax, so the real client is the reference: for each rule of
//! the table, the pinned client's main session runs with `permissions.allow = [RULE]`,
//! `defaultMode: "dontAsk"` and the project trusted in its fresh `HOME`, the fake model makes
//! every call of the row in one turn, and the client's own decision for each call is read from
//! stream-json (`tool_result_meta[].permission_decision.decision`: `accept` or `reject`). The same
//! rule and call then go through Warden's matcher (the rule as a manifest's rule set holds it,
//! the call as the hook builds it from the same input and working directory). Warden may refuse
//! what Claude Code accepts (where it is deliberately stricter, rulings T-3 … T-6 and T-22 … T-27
//! say so), never the reverse; a rule Warden refuses to load grants nothing. Issue 48's rows
//! (launchers, options that run or write, text the client distrusts, numeric hosts, a directory
//! rule) are here too; an MCP server whose name holds `__` is not (it needs a real MCP server of
//! that name, which the suite does not run), so T-26 is held by the domain's table alone.
//!
//! In `dontAsk` mode Claude Code also accepts calls no rule grants (reads inside the project,
//! read-only commands): an `accept` is the client's whole answer, not the rule's. The rows are
//! chosen where the rule decides: files outside the project, commands that write.

use agentwarden_tests::claude_code::{client_decisions, placed, warden_grants};

use super::*;

/// One call of a row: the tool, its input (`@ROOT@` is the project root, `@OUT@` a directory
/// outside it holding `o.txt`), and the working directory it runs in, relative to the root
/// (a row that runs `cd sub` says so for the calls after it).
#[derive(Clone)]
struct Call {
    tool: &'static str,
    input: Value,
    cwd: &'static str,
}

fn call(tool: &'static str, input: Value) -> Call {
    Call { tool, input, cwd: "" }
}

fn in_sub(tool: &'static str, input: Value) -> Call {
    Call { tool, input, cwd: "sub" }
}

fn bash(command: &str) -> Call {
    call("Bash", json!({ "command": command }))
}

fn write(path: &str) -> Call {
    call("Write", json!({ "file_path": path, "content": "x\n" }))
}

fn edit_a() -> Call {
    call("Edit", json!({ "file_path": "src/a.rs", "old_string": "one", "new_string": "two" }))
}

fn notebook_edit() -> [Call; 2] {
    // Claude Code refuses to edit a notebook it has not read, before it asks for permission.
    [
        call("Read", json!({ "file_path": "n.ipynb" })),
        call(
            "NotebookEdit",
            json!({ "notebook_path": "n.ipynb", "new_source": "x", "cell_type": "code", "edit_mode": "insert" }),
        ),
    ]
}

fn outside_searches() -> [Call; 3] {
    [
        call("Read", json!({ "file_path": "@OUT@/o.txt" })),
        call("Glob", json!({ "pattern": "*", "path": "@OUT@" })),
        call("Grep", json!({ "pattern": "outside", "path": "@OUT@" })),
    ]
}

/// Commands a prefix rule for `touch` is asked about: plain words and quotes, then every
/// expansion the shell would make before `touch` sees its arguments.
const TOUCHES: [&str; 16] = [
    "touch a1",
    "touch",
    "touch \"a b\"",
    "touch ~/evil",
    "touch $HOME/evil",
    "touch ${HOME}/evil",
    "touch \"$HOME/q\"",
    "touch '$HOME'",
    "touch ~",
    "touch {a,b}",
    "touch a*",
    "touch a?",
    "touch a[1]",
    "touch e\\ f",
    "touch x=$y",
    "touch \"~/x\"",
];

/// Commands whose text the client does not take at face value (issue 48): Unicode spaces,
/// invisible and bidi characters inside a word, a word over 255 bytes, a command over 10 000,
/// zsh's `=word`, an unbalanced `)`.
fn shown_touches() -> Vec<String> {
    let mut touches: Vec<String> =
        ["\u{a0}", "\u{200b}", "\u{2028}", "\u{2029}", "\u{202e}", "\u{3000}", "\u{feff}"]
            .iter()
            .map(|c| format!("touch u1{c}u2"))
            .collect();
    touches.push(format!("touch {}", "w".repeat(256)));
    touches.push(format!("touch {}", vec!["c".repeat(99); 102].join(" ")));
    touches.extend(["touch =a".to_owned(), "touch a)".to_owned(), "touch \"a\")".to_owned()]);
    touches
}

/// Writes the client refuses whatever the rules say (issue 48, class 2), in several letter cases.
const HELD_WRITES: [&str; 13] = [
    ".git/config",
    ".git/hooks/pre-commit",
    ".claude/settings.local.json",
    ".bashrc",
    ".vscode/settings.json",
    ".mcp.json",
    ".npmrc",
    ".envrc",
    ".husky/pre-commit",
    ".Git/hooks/pre-push",
    ".BASHRC",
    "sub/.Npmrc",
    ".config/git/config",
];

/// The table: each rule, and the calls asked about it.
fn rows() -> Vec<(&'static str, Vec<Call>)> {
    vec![
        // A bare name is that tool only; a path rule `Edit(…)` covers the edit family (T-3).
        ("Edit", [vec![edit_a(), write("src/new.rs")], notebook_edit().into()].concat()),
        ("Write", vec![write("src/w.rs"), edit_a()]),
        ("NotebookEdit", [notebook_edit().to_vec(), vec![edit_a(), write("src/w.rs")]].concat()),
        ("Edit(src/**)", vec![edit_a(), write("src/new.rs"), write("docs/y.md"), write("@OUT@/w.txt")]),
        ("Edit(*.ipynb)", [notebook_edit().to_vec(), vec![write("src/w.rs")]].concat()),
        ("Write(src/**)", vec![write("src/new.rs"), write("@OUT@/w.txt")]),
        ("Write(//@OUT@/**)", vec![write("@OUT@/w.txt")]),
        ("NotebookEdit(**)", notebook_edit().into()),
        ("Read", outside_searches().into()),
        ("Glob", outside_searches().into()),
        ("Grep", outside_searches().into()),
        ("Read(//@OUT@/**)", [outside_searches().to_vec(), vec![write("@OUT@/w.txt")]].concat()),
        ("Grep(//@OUT@/**)", outside_searches().into()),
        ("Glob(//@OUT@/**)", outside_searches().into()),
        ("Edit(//@OUT@/**)", [outside_searches().to_vec(), vec![write("@OUT@/w.txt")]].concat()),
        // Every path a call names, `~` included, is held to the rule (T-13, T-14).
        (
            "Read(src/**)",
            vec![
                call("Glob", json!({ "pattern": "/etc/*", "path": "src" })),
                call("Glob", json!({ "pattern": "*", "path": "~" })),
                call("Grep", json!({ "pattern": "x", "path": "~" })),
                call("Read", json!({ "file_path": "~/.bashrc" })),
            ],
        ),
        (
            "Read(*.md)",
            vec![
                call("Read", json!({ "file_path": "~/notes.md" })),
                call("Glob", json!({ "pattern": "/etc/*", "path": "x.md" })),
            ],
        ),
        // A relative pattern is read from the working directory, `/x` from the root (T-5).
        (
            "Edit(src/**)",
            vec![
                bash("cd sub"),
                in_sub("Write", json!({ "file_path": "src/n1.rs", "content": "x\n" })),
                in_sub("Write", json!({ "file_path": "@ROOT@/src/n2.rs", "content": "x\n" })),
                in_sub("Write", json!({ "file_path": "@ROOT@/sub/src/n3.rs", "content": "x\n" })),
            ],
        ),
        (
            "Edit(*.rs)",
            vec![
                bash("cd sub"),
                in_sub("Write", json!({ "file_path": "@ROOT@/src/n2.rs", "content": "x\n" })),
                in_sub("Write", json!({ "file_path": "@ROOT@/sub/n4.rs", "content": "x\n" })),
            ],
        ),
        (
            "Edit(/src/**)",
            vec![
                bash("cd sub"),
                in_sub("Write", json!({ "file_path": "@ROOT@/src/n2.rs", "content": "x\n" })),
                in_sub("Write", json!({ "file_path": "@ROOT@/sub/src/n3.rs", "content": "x\n" })),
            ],
        ),
        // `:*` and ` *` are prefix rules; the shell's expansions are not the prefix's (T-4).
        ("Bash(touch:*)", TOUCHES.iter().map(|c| bash(c)).collect()),
        ("Bash(touch *)", TOUCHES.iter().map(|c| bash(c)).collect()),
        ("Bash(touch ~/evil)", vec![bash("touch ~/evil")]),
        ("Bash(touch $HOME/evil)", vec![bash("touch $HOME/evil")]),
        (
            "Bash(git * main *)",
            vec![bash("git push main"), bash("git push origin main"), bash("git push origin main --force")],
        ),
        (
            "Bash(git * main)",
            vec![bash("git push main"), bash("git push origin main"), bash("git push $X main")],
        ),
        ("Bash(*)", vec![bash("touch ~/evil2"), bash("touch {c,d}")]),
        // Issue 48, class 1: a path is judged where it lands; a write through a final link,
        // dangling or not, is refused (T-17, T-18).
        ("Edit(src/**)", vec![write("src/lnk/new.txt"), write("src/dang"), write("src/flink")]),
        ("Write", vec![write("src/dang"), write("src/flink")]),
        (
            "Read(lnk/**)",
            vec![
                call("Glob", json!({ "pattern": "*", "path": "lnk" })),
                call("Grep", json!({ "pattern": "outside", "path": "lnk" })),
                call("Read", json!({ "file_path": "lnk/o.txt" })),
            ],
        ),
        // Class 2: what the client holds whatever the rules say (T-19).
        ("Edit(**)", HELD_WRITES.iter().map(|p| write(p)).collect()),
        (
            "Edit(.git/**)",
            vec![write(".git/config"), write(".git/hooks/pre-commit"), write(".GIT/hooks/post-merge")],
        ),
        ("Write", HELD_WRITES.iter().map(|p| write(p)).collect()),
        // Class 3: the paths a known command names (T-20).
        (
            "Bash(touch:*)",
            vec![bash("touch ../outside/new.txt"), bash("touch .git/x"), bash("touch -- ../outside/n3")],
        ),
        (
            "Bash(cat:*)",
            vec![bash("cat /etc/hostname"), bash("cat /proc/self/environ"), bash("cat lnk/o.txt")],
        ),
        (
            "Bash(cp:*)",
            vec![
                bash("cp ../outside/o.txt c1.txt"),
                bash("cp src/a.rs ../outside/c2.txt"),
                bash("cp -t ../outside src/a.rs"),
                bash("cp src/a.rs .npmrc"),
            ],
        ),
        ("Bash(rm:*)", vec![bash("rm /etc"), bash("rm ../outside/o.txt")]),
        (
            "Bash",
            vec![
                bash("cat /etc/hostname"),
                bash("touch .git/x2"),
                bash("touch ../outside/n2.txt"),
                bash("touch .bashrc"),
                // A line of several commands that writes a held name (T-21).
                bash("echo x > .git/hooks/pre-commit"),
                bash("echo x >> .bashrc"),
                bash("true && touch .npmrc"),
                bash("cat /etc/hostname | wc -l"),
            ],
        ),
        ("Bash(echo:*)", vec![bash("echo x > .git/hooks/pre-commit"), bash("echo x > ../outside/e.txt")]),
        // A fetch rule is its domain (T-7).
        (
            "WebFetch(domain:example.com)",
            vec![
                call("WebFetch", json!({ "url": "https://sub.example.com/", "prompt": "p" })),
                call("WebFetch", json!({ "url": "https://example.com@evil.invalid/", "prompt": "p" })),
            ],
        ),
        // Issue 48, class 4: a launcher or a grammar form runs another command than its first
        // word names; a command whose options run or write something else (T-22, T-23).
        ("Bash(exec:*)", vec![bash("exec touch l1")]),
        ("Bash(eval:*)", vec![bash("eval touch l2")]),
        ("Bash(builtin:*)", vec![bash("builtin exec touch l3")]),
        ("Bash(command:*)", vec![bash("command touch l4")]),
        ("Bash(setsid:*)", vec![bash("setsid touch l5")]),
        ("Bash(ionice:*)", vec![bash("ionice touch l6")]),
        ("Bash(flock:*)", vec![bash("flock l7.lock touch l7")]),
        ("Bash(coproc:*)", vec![bash("coproc touch l8")]),
        ("Bash(nohup:*)", vec![bash("nohup touch l9")]),
        ("Bash(nice:*)", vec![bash("nice touch l10")]),
        ("Bash(timeout:*)", vec![bash("timeout 5 touch l11")]),
        ("Bash(env:*)", vec![bash("env touch l12")]),
        ("Bash(xargs:*)", vec![bash("xargs touch l13")]),
        ("Bash(stdbuf:*)", vec![bash("stdbuf -o0 touch l14")]),
        ("Bash(time:*)", vec![bash("time touch l15")]),
        ("Bash(! touch:*)", vec![bash("! touch l16")]),
        ("Bash((touch l17))", vec![bash("(touch l17)")]),
        (
            "Bash(find:*)",
            vec![
                bash("find nothere -delete"),
                bash("find . -maxdepth 0 -fprint fp.txt"),
                bash("find . -maxdepth 0 -fls fl.txt"),
                bash("find . -maxdepth 0 -execdir touch fe.txt +"),
            ],
        ),
        ("Bash(jq:*)", vec![bash("jq -n 'system(\"touch jq1\")'"), bash("jq -n -f prog.jq")]),
        ("Bash(sed:*)", vec![bash("sed -i s/one/two/ src/a.rs"), bash("sed -n 1w sw.txt src/a.rs")]),
        (
            "Bash(git:*)",
            vec![
                bash("git -c core.fsmonitor=true status"),
                bash("git --exec-path=. status"),
                bash("git -C . status"),
            ],
        ),
        ("Bash(A=1 touch:*)", vec![bash("A=1 touch l18")]),
        ("Bash(busybox:*)", vec![bash("busybox touch l19")]),
        ("Bash(exec:*)", vec![bash("e'x'\"ec\" touch l20")]),
        ("Bash(tar:*)", vec![bash("tar --to-command=sh -xf none.tar"), bash("tar Ixf sh none.tar")]),
        ("Bash(awk:*)", vec![bash("awk 'BEGIN{system(\"touch aw\")}'")]),
        ("Bash(curl:*)", vec![bash("curl -o c.txt http://127.0.0.1:1/")]),
        // Issue 48, class 5: text the client does not take at face value (T-24).
        ("Bash(touch:*)", shown_touches().iter().map(|c| bash(c)).collect()),
        // Numeric hosts are read as the URL parser reads them (T-25).
        (
            "WebFetch(domain:10.1)",
            vec![
                call("WebFetch", json!({ "url": "http://10.1/", "prompt": "p" })),
                call("WebFetch", json!({ "url": "http://10.0.0.1/", "prompt": "p" })),
            ],
        ),
        (
            "WebFetch(domain:10.0.0.1)",
            [
                "http://10.1/",
                "http://0x0a.0.0.1/",
                "http://012.0.0.1/",
                "http://167772161/",
                "http://10.0.0.1./",
            ]
            .iter()
            .map(|url| call("WebFetch", json!({ "url": url, "prompt": "p" })))
            .collect(),
        ),
        // A directory rule never grants a file of that name (T-27).
        ("Edit(notes/)", vec![write("notes"), write("notes/n.md")]),
    ]
}

/// What one client run found for one row.
struct Outcome {
    rule: String,
    /// Per call: its rendering, Claude Code's decision (`None`: it made none), Warden's.
    calls: Vec<(String, Option<String>, Result<bool, String>)>,
}

/// The project a row runs in: the example, with a few files to act on, and the rule alone as
/// the project's permissions.
fn rule_project(rule: &str) -> (Project, String) {
    let project = Project::example(&tools());
    let outside = project.dir().join("outside");
    let out = outside.to_string_lossy().into_owned();
    for (path, text) in [
        (project.root.join("src/a.rs"), "one\n"),
        (project.root.join("docs/x.md"), "doc\n"),
        (project.root.join("sub/src/b.rs"), "b\n"),
        (
            project.root.join("n.ipynb"),
            "{\"cells\":[],\"metadata\":{},\"nbformat\":4,\"nbformat_minor\":5}\n",
        ),
        (outside.join("o.txt"), "outside\n"),
    ] {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    // Links for issue 48, class 1: out of the project, to nothing, to a file of the project.
    for (link, target) in [
        ("src/lnk", outside.clone()),
        ("lnk", outside.clone()),
        ("src/dang", project.root.join("src/nowhere")),
        ("src/flink", project.root.join("src/a.rs")),
    ] {
        std::os::unix::fs::symlink(target, project.root.join(link)).unwrap();
    }
    project.set_settings(&json!({
        "permissions": { "allow": [rule.replace("@OUT@", out.trim_start_matches('/'))], "defaultMode": "dontAsk" }
    }));
    project.trust();
    (project, out)
}

fn run_row(index: usize, rule: &str, calls: &[Call]) -> Outcome {
    let (project, out) = rule_project(rule);
    let root = project.root.to_string_lossy().into_owned();
    let inputs: Vec<Value> = calls.iter().map(|c| placed(&c.input, &root, &out)).collect();
    let blocks = calls
        .iter()
        .zip(&inputs)
        .enumerate()
        .map(|(i, (c, input))| Block::tool_with_id(&format!("toolu_r{index}_{i}"), c.tool, input.clone()))
        .collect();
    let api = start(Script::new().agent("MAINTASK", vec![Turn(blocks)]));
    let options = RunOptions {
        settings_decide: Some("Bash,Read,Edit,Write,Glob,Grep,NotebookEdit,WebFetch".to_owned()),
        timeout: std::time::Duration::from_secs(120),
        ..RunOptions::default()
    };
    let run = project.run(&api, "MAINTASK go", &options);
    run.assert_finished();
    if !rule.starts_with("WebFetch") {
        // An accepted WebFetch asks another host (refused by the fake) before it fetches.
        assert_loopback_only(&api);
    }
    let found = client_decisions(&run);
    let rule_text = rule.replace("@OUT@", out.trim_start_matches('/'));
    let calls = calls
        .iter()
        .zip(&inputs)
        .enumerate()
        .map(|(i, (c, input))| {
            let shown = format!("{} {}", c.tool, input);
            let claude = found.get(&format!("toolu_r{index}_{i}")).cloned();
            let warden = warden_grants(&rule_text, c.tool, input, &project.root.join(c.cwd), &project.root);
            (shown, claude, warden)
        })
        .collect();
    Outcome { rule: rule_text, calls }
}

/// Issue 34, item 8: for every row, Warden never allows a call the pinned client rejects, and
/// the client decided every call (a call it refused before asking, e.g. an unread file, would
/// test nothing).
#[test]
#[ignore = "real Claude Code: run by `cargo xtask claude-code`"]
fn no_rule_grants_more_in_warden_than_in_claude_code() {
    let rows = rows();
    let mut outcomes = Vec::new();
    // Four clients at a time: each mostly waits on its own start-up and tool processes.
    for (chunk_at, chunk) in rows.chunks(4).enumerate() {
        std::thread::scope(|scope| {
            let handles: Vec<_> = chunk
                .iter()
                .enumerate()
                .map(|(i, (rule, calls))| scope.spawn(move || run_row(chunk_at * 4 + i, rule, calls)))
                .collect();
            outcomes.extend(handles.into_iter().map(|h| h.join().expect("a row's run panicked")));
        });
    }
    let mut wrong = Vec::new();
    for outcome in &outcomes {
        for (shown, claude, warden) in &outcome.calls {
            let warden_text = match warden {
                Ok(true) => "allow".to_owned(),
                Ok(false) => "deny".to_owned(),
                Err(e) => e.clone(),
            };
            println!(
                "{:<40} {:<70.70} claude {:<7} warden {warden_text}",
                outcome.rule,
                shown,
                claude.as_deref().unwrap_or("none")
            );
            match (claude.as_deref(), warden) {
                (None, _) => {
                    wrong.push(format!("`{}`: Claude Code made no decision on {shown}", outcome.rule))
                }
                (Some("reject"), Ok(true)) => {
                    wrong.push(format!("`{}`: Warden allows {shown}, Claude Code rejects it", outcome.rule));
                }
                _ => {}
            }
        }
    }
    assert!(wrong.is_empty(), "{} disagreements:\n{}", wrong.len(), wrong.join("\n"));
}
