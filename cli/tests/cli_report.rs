//! `warden audit report` end to end, rendered by a real browser (headless Chromium, issue 39):
//! the page's DOM holds what the log holds, no script fails, hostile log values stay text, a
//! broken chain, an undecodable event and an empty window are said at the top (A-27 … A-29),
//! and 10 000 decisions load within a measured bound.
//!
//! The logs are the domain's golden log (`domain/src/audit/testdata/log.jsonl`, written by the
//! bundled examples), sealed into a real store as `SledEventStore` lays it out, with values
//! replaced where a test needs hostile ones. Without Chromium the browser tests fail under
//! `CI=true` and print SKIPPED elsewhere (as the real Claude Code suite does, H-41);
//! `UPDATE_SCREENSHOT=1` rewrites `docs/report.png` from the golden log's report.

#![expect(
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "test code: a failed unwrap or index is a failed test"
)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use agentwarden::audit::Hash;
use serde_json::{Value, json};

const GOLDEN: &str = include_str!("../../domain/src/audit/testdata/log.jsonl");

/// Hostile strings, each with why it is hostile.
const HOSTILE: &[(&str, &str)] = &[
    ("</script><script>alert(1)</script>", "closes the data element and opens a script"),
    ("\"><img src=x onerror=alert(2)>", "breaks out of an attribute into an element"),
    ("<!-- <script>", "a comment that changes how a script element ends"),
    ("line\u{2028}separator", "a line terminator to older script parsers"),
];

/// The golden log's events, without their chain fields.
fn golden() -> Vec<Value> {
    GOLDEN
        .lines()
        .map(|line| {
            let mut event: Value = serde_json::from_str(line).unwrap();
            let object = event.as_object_mut().unwrap();
            for key in ["seq", "prev_hash", "hash"] {
                object.remove(key);
            }
            event
        })
        .collect()
}

/// Seals `events` into a store at `path`, as `SledEventStore` lays it out.
/// The store at `path` holding `events`, its handle returned: sled lets its file lock go only
/// once its flusher thread has let the handle go, so opening it again at once in this process
/// can find it still locked (a test edits the events through this handle instead).
fn store(path: &Path, events: &[Value]) -> sled::Db {
    let db = sled::open(path).unwrap();
    db.open_tree("meta").unwrap().insert("format", b"agentwarden-events/1".as_slice()).unwrap();
    let tree = db.open_tree("events").unwrap();
    let mut prev = Hash::GENESIS;
    let mut batch = sled::Batch::default();
    for (i, event) in events.iter().enumerate() {
        let seq = i as u64 + 1;
        let rest = serde_json::to_string(event).unwrap();
        let body = format!("{{\"seq\":{seq},\"prev_hash\":\"{prev}\",{}", &rest[1..]).into_bytes();
        let hash = Hash::link(&prev, &body);
        batch.insert(&seq.to_be_bytes(), [hash.as_bytes().as_slice(), &body].concat());
        prev = hash;
    }
    tree.apply_batch(batch).unwrap();
    db.flush().unwrap();
    db
}

fn warden(store: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warden"))
        .arg("--store")
        .arg(store)
        .args(args)
        .env_remove("AGENTWARDEN_STORE")
        .env_remove("RUST_LOG")
        .output()
        .unwrap()
}

/// Writes the report of `args` to `dir/report.html`; returns its path and the command's output.
fn report(dir: &Path, store: &Path, args: &[&str]) -> (PathBuf, Output) {
    let page = dir.join("report.html");
    let mut all = vec!["audit", "report", "--out", page.to_str().unwrap()];
    all.extend_from_slice(args);
    let out = warden(store, &all);
    (page, out)
}

/// The data embedded in a page, parsed back.
fn data(page: &Path) -> Value {
    let html = std::fs::read_to_string(page).unwrap();
    let start = r#"<script type="application/json" id="report-data">"#;
    let from = html.find(start).unwrap() + start.len();
    let to = from + html[from..].find("</script>").unwrap();
    serde_json::from_str(&html[from..to]).unwrap()
}

/// Chromium, if installed (`AGENTWARDEN_CHROMIUM` names another binary); `None` outside CI
/// when it is not, after printing SKIPPED; under `CI=true` its absence fails the test.
fn chromium(test: &str) -> Option<PathBuf> {
    let named = std::env::var_os("AGENTWARDEN_CHROMIUM").map(PathBuf::from);
    let found = named.or_else(|| {
        ["chromium", "chromium-browser"].iter().find_map(|name| {
            std::env::split_paths(&std::env::var_os("PATH")?)
                .map(|dir| dir.join(name))
                .find(|path| path.is_file())
        })
    });
    if found.is_none() {
        let why = "chromium is not installed (`apt-get install -y chromium`, or set AGENTWARDEN_CHROMIUM)";
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("{test}: {why}; CI=true needs it");
        }
        eprintln!("SKIPPED, NOT PASSED: {test}: {why}");
    }
    found
}

/// What the browser made of a page: the DOM after its scripts ran, and the wall time of the
/// whole browser run (start, load, render, serialise, exit).
struct Rendered {
    dom: String,
    wall: Duration,
}

impl Rendered {
    /// An attribute of the status element the page's script fills in last.
    fn status(&self, attribute: &str) -> String {
        let at = self.dom.find(r#"id="report-status""#).unwrap();
        let tag = &self.dom[at..at + self.dom[at..].find('>').unwrap()];
        let key = format!("{attribute}=\"");
        let from = tag.find(&key).map(|i| i + key.len()).unwrap_or_else(|| panic!("no {attribute} in {tag}"));
        tag[from..from + tag[from..].find('"').unwrap()].to_owned()
    }

    /// The page rendered everything and no script failed.
    fn assert_ok(&self) {
        assert_eq!(self.status("data-state"), "ok", "{}", self.errors());
        assert!(self.errors().is_empty(), "script errors: {}", self.errors());
    }

    fn errors(&self) -> String {
        let at = self.dom.find(r#"<pre id="report-errors""#).unwrap();
        let from = at + self.dom[at..].find('>').unwrap() + 1;
        self.dom[from..from + self.dom[from..].find("</pre>").unwrap()].to_owned()
    }

    /// The `data-seq` of every timeline row in the DOM, in order.
    fn rows(&self) -> Vec<u64> {
        self.dom
            .match_indices(r#"data-seq=""#)
            .map(|(i, m)| {
                let from = i + m.len();
                self.dom[from..from + self.dom[from..].find('"').unwrap()].parse().unwrap()
            })
            .collect()
    }
}

/// Runs `chromium --headless --dump-dom` on `page`, killed after 60 s: a page that freezes, or
/// one where injected markup opened an `alert()` (which blocks a headless browser), fails.
fn render(browser: &Path, page: &Path, extra: &[&str]) -> Rendered {
    let profile = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let mut child = Command::new(browser)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions"])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(extra)
        .arg("--dump-dom")
        .arg(format!("file://{}", page.display()))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Read while it runs: a DOM larger than the pipe would otherwise stall it.
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut dom = Vec::new();
        std::io::Read::read_to_end(&mut stdout, &mut dom).map(|_| dom)
    });
    let deadline = started + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!(
                "chromium did not finish rendering {} in 60 s: the page froze, or an injected alert() blocks it",
                page.display()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let wall = started.elapsed();
    assert!(status.success(), "chromium failed: {status:?}");
    let dom = reader.join().unwrap().unwrap();
    Rendered { dom: String::from_utf8(dom).unwrap(), wall }
}

/// Every agent of every tree `audit replay --projection spawn-tree` rebuilds from the store.
fn agents_of(store: &Path) -> Vec<String> {
    let out = warden(store, &["audit", "replay", "--projection", "spawn-tree", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let tree: Value = serde_json::from_slice(&out.stdout).unwrap();
    let sessions = tree["sessions"].as_object().unwrap().values().chain([&tree["without_session"]]);
    sessions.flat_map(|t| t["agents"].as_object().unwrap().keys().cloned().collect::<Vec<_>>()).collect()
}

#[test]
fn the_golden_logs_report_holds_every_event_agent_approval_and_violation() {
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit");
    let events = golden();
    store(&audit, &events);
    let (page, out) = report(dir.path(), &audit, &["--since", "2000-01-01T00:00:00Z"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let report = data(&page);
    assert_eq!(report["chain"]["intact"], true);
    assert_eq!(report["rows"].as_array().unwrap().len(), events.len());
    // (seq, verdict, why)
    let verdicts = [
        (1, json!("allow"), "Example 1: the gate allowed"),
        (3, json!("deny"), "Example 3: denied at context_sealed"),
        (17, Value::Null, "a seal decides nothing"),
        (24, json!("allow"), "a stop that changed nothing"),
    ];
    for (seq, verdict, why) in verdicts {
        assert_eq!(report["rows"][seq - 1]["verdict"], verdict, "{why}");
    }
    let denial = &report["rows"][2]["failed"][0];
    assert!(denial["layer"].as_str().unwrap().contains("context_sealed"), "{denial}");
    assert_eq!(report["violations"].as_array().unwrap().len(), 2, "the guard's two violations");
    assert_eq!(report["violations"][1]["reverted"], false, "the second was not put back");

    let Some(browser) = chromium("the_golden_logs_report_holds_every_event_agent_approval_and_violation")
    else {
        return;
    };
    let rendered = render(&browser, &page, &[]);
    rendered.assert_ok();
    assert_eq!(rendered.rows(), (1..=events.len() as u64).collect::<Vec<_>>(), "one row per event");
    let agents = agents_of(&audit);
    assert_eq!(rendered.status("data-agents"), agents.len().to_string());
    for agent in &agents {
        assert!(rendered.dom.contains(&format!(r#"data-agent="{agent}""#)), "agent {agent} is in the tree");
    }
    assert!(rendered.dom.contains(r#"data-intact="true""#));
    assert!(rendered.dom.contains("NOT reverted"), "the violation left in place is said");
    if std::env::var_os("UPDATE_SCREENSHOT").is_some() {
        let png = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/report.png");
        let profile = tempfile::tempdir().unwrap();
        let status = Command::new(&browser)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                "--window-size=1400,3600",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg(format!("--screenshot={}", png.display()))
            .arg(format!("file://{}", page.display()))
            .stderr(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success());
    }
}

#[test]
fn hostile_session_ids_agent_types_reasons_and_paths_stay_text() {
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit");
    let session = HOSTILE[0].0;
    let mut events: Vec<Value> =
        golden().into_iter().filter(|e| e["session"] == "demo-session").collect::<Vec<_>>();
    for (i, event) in events.iter_mut().enumerate() {
        event["session"] = json!(session);
        let (hostile, _) = HOSTILE[i % HOSTILE.len()];
        let event_type = event["event_type"].as_str().unwrap().to_owned();
        let payload = &mut event["payload"];
        match event_type.as_str() {
            "subagent_started" => payload["agent_type"] = json!(hostile),
            "subagent_stopped" => {
                payload["agent_type"] = json!(HOSTILE[1].0);
                payload["decision"] = json!("deny");
                payload["changed_files"] =
                    json!(HOSTILE.iter().map(|(h, _)| format!("okrs/{h}")).collect::<Vec<_>>());
                payload["failures"] = json!([{"stage": "guardrails", "code": "protected_path_changed", "reason": HOSTILE[2].0}]);
            }
            "subagent_spawn_evaluated" => payload["result_path"] = json!(hostile),
            _ => {}
        }
    }
    store(&audit, &events);
    let (page, out) = report(dir.path(), &audit, &["--session", session]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let html = std::fs::read_to_string(&page).unwrap();
    for (hostile, why) in HOSTILE {
        assert!(!html.contains(hostile), "{why}: the page holds it raw");
    }
    let report = data(&page);
    assert_eq!(report["window"]["session"], session, "the JSON holds the value itself");
    assert_eq!(report["rows"].as_array().unwrap().len(), events.len());

    let Some(browser) = chromium("hostile_session_ids_agent_types_reasons_and_paths_stay_text") else {
        return;
    };
    let rendered = render(&browser, &page, &[]);
    rendered.assert_ok();
    let dom = &rendered.dom;
    assert_eq!(dom.matches("<script").count(), 2, "no script element was injected");
    assert!(!dom.contains("<img"), "no element was injected");
    assert_eq!(rendered.rows().len(), events.len());
    // Each hostile value is in the DOM as text, which serialises with `<` and `>` escaped.
    for (hostile, why) in HOSTILE {
        let text = hostile.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
        assert!(dom.contains(&text), "{why}: `{text}` is not text in the DOM");
    }
}

/// Names an object literal inherits in JavaScript: as a key of a plain object each is found
/// before it is ever set, or (`__proto__`) cannot be set at all.
const INHERITED: &[&str] = &["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf"];

/// `value` with every string equal to a key of `names` replaced by its name, object keys too.
fn renamed(value: &Value, names: &[(&str, &str)]) -> Value {
    let rename =
        |text: &str| names.iter().find(|(from, _)| *from == text).map_or(text, |(_, to)| to).to_owned();
    match value {
        Value::String(text) => Value::String(rename(text)),
        Value::Array(items) => Value::Array(items.iter().map(|v| renamed(v, names)).collect()),
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (rename(k), renamed(v, names))).collect())
        }
        other => other.clone(),
    }
}

/// Every object key anywhere in `value`.
fn object_keys(value: &Value, keys: &mut Vec<String>) {
    match value {
        Value::Array(items) => items.iter().for_each(|v| object_keys(v, keys)),
        Value::Object(map) => map.iter().for_each(|(k, v)| {
            keys.push(k.clone());
            object_keys(v, keys);
        }),
        _ => {}
    }
}

/// Agent ids, session ids and paths named like what a JavaScript object inherits (issue 47, item
/// 8): in each of five rotations every such name is some agent's id — a root, a parent, a child,
/// an untracked agent — and some session's id, and every path is one. The page draws all of it
/// and its script runs to its end (the status it sets last says `ok`, nothing was thrown).
#[test]
fn agent_session_and_path_names_a_javascript_object_inherits_are_drawn() {
    let browser = chromium("agent_session_and_path_names_a_javascript_object_inherits_are_drawn");
    let dir = tempfile::tempdir().unwrap();
    for turn in 0..INHERITED.len() {
        let name = |i: usize| INHERITED[(turn + i) % INHERITED.len()];
        let names = [
            ("o1", name(0)),
            ("c1", name(1)),
            ("r1", name(2)),
            ("c2", name(3)),
            ("agent-planner-1", name(4)),
            ("agent-coder-1", name(0)),
            ("example-session", name(0)),
            ("demo-session", name(1)),
            ("okrs/a.md", name(2)),
            ("/tmp/fx/bad-result.json", name(3)),
            ("agentwarden.toml", name(4)),
        ];
        let mut events: Vec<Value> = golden().iter().map(|e| renamed(e, &names)).collect();
        for event in &mut events {
            if event["event_type"] == "subagent_stopped" {
                event["payload"]["changed_files"] = json!(INHERITED);
            }
        }
        let audit = dir.path().join(format!("audit-{turn}"));
        store(&audit, &events);
        let (page, out) = report(dir.path(), &audit, &["--since", "2000-01-01T00:00:00Z"]);
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        // The embedded JSON names them only as values, never as keys: a reader's map keyed by
        // them is the script's own, which must not inherit.
        let mut keys = Vec::new();
        object_keys(&data(&page), &mut keys);
        for name in INHERITED {
            assert!(
                !keys.contains(&(*name).to_owned()),
                "turn {turn}: `{name}` is a key of the report's JSON"
            );
        }
        let Some(browser) = &browser else { continue };
        let rendered = render(browser, &page, &[]);
        rendered.assert_ok();
        assert_eq!(rendered.rows().len(), events.len(), "turn {turn}: one row per event");
        let agents = agents_of(&audit);
        assert_eq!(rendered.status("data-agents"), agents.len().to_string(), "turn {turn}");
        let drawn = rendered.dom.matches("data-agent=\"").count();
        assert!(drawn >= agents.len(), "turn {turn}: {drawn} agents drawn of {agents:?}");
        for agent in &agents {
            assert!(
                rendered.dom.contains(&format!(r#"data-agent="{agent}""#)),
                "turn {turn}: agent {agent} drawn"
            );
        }
        for session in [name(0), name(1)] {
            assert!(
                rendered.dom.contains(&format!(r#"<option value="{session}">"#)),
                "turn {turn}: session {session} filter"
            );
            assert!(
                rendered.dom.contains(&format!("<h3>session {session}</h3>")),
                "turn {turn}: session {session} tree"
            );
        }
        for path in INHERITED {
            assert!(rendered.dom.contains(&format!("<li>{path}</li>")), "turn {turn}: path {path} listed");
        }
        assert!(rendered.dom.contains("NOT reverted"), "turn {turn}: the violations are drawn");
        assert!(rendered.dom.contains(r#"id="approvals""#), "turn {turn}: the approvals are drawn");
    }
}

#[test]
fn a_broken_chain_an_undecodable_event_and_an_empty_window_are_said_at_the_top() {
    let dir = tempfile::tempdir().unwrap();
    // An event of a type this reader does not know, in the window (A-28).
    let audit = dir.path().join("future");
    let mut events = golden();
    events.push(json!({
        "recorded_at": "2026-11-22T22:56:00.000Z", "actor": "warden", "session": "example-session",
        "event_type": "from_a_later_warden", "event_version": 1, "payload": {"why": HOSTILE[0].0}
    }));
    store(&audit, &events);
    let (page, out) = report(dir.path(), &audit, &["--session", "example-session"]);
    assert_eq!(out.status.code(), Some(1), "the page is written, the answer is not whole");
    let future = data(&page);
    assert_eq!(future["undecodable"], 1);
    let last = future["rows"].as_array().unwrap().last().unwrap().clone();
    assert!(last["undecodable"].as_str().unwrap().contains("from_a_later_warden"), "{last}");
    assert!(last["raw"].as_str().unwrap().contains(HOSTILE[0].0), "{last}");

    // A window nothing falls in (A-29): said, exit 0; no window at all: a usage error.
    let (page, out) = report(dir.path(), &audit, &["--session", "no-such-session"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(data(&page)["rows"].as_array().unwrap().len(), 0);
    assert_eq!(report_code(dir.path(), &audit, &[]), Some(2), "a report needs a window");
    assert_eq!(
        report_code(dir.path(), &audit, &["--since", "1h", "--until", "2h"]),
        Some(2),
        "an inverted window"
    );

    // An event edited after it was written (A-27): written, red, exit 1.
    let broken = dir.path().join("broken");
    {
        let db = store(&broken, &golden());
        let tree = db.open_tree("events").unwrap();
        let key = 5u64.to_be_bytes();
        let mut record = tree.get(key).unwrap().unwrap().to_vec();
        let at = record.windows(5).position(|w| w == b"allow").unwrap();
        record[at..at + 5].copy_from_slice(b"ALLOW");
        tree.insert(key, record).unwrap();
        db.flush().unwrap();
    }
    let (page, out) = report(dir.path(), &broken, &["--session", "example-session"]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("broken at seq 5"));
    let verdict = data(&page);
    assert_eq!(verdict["chain"]["broken"]["seq"], 5);
    assert!(
        verdict["rows"].as_array().unwrap().iter().all(|r| r["seq"].as_u64().unwrap() < 5),
        "nothing past it"
    );
    assert!(verdict["records"]["unavailable"].is_string(), "no record is read from a broken chain");

    let Some(browser) =
        chromium("a_broken_chain_an_undecodable_event_and_an_empty_window_are_said_at_the_top")
    else {
        return;
    };
    let rendered = render(&browser, &page, &[]);
    rendered.assert_ok();
    assert!(rendered.dom.contains(r#"data-intact="false""#));
    assert!(rendered.dom.contains("does NOT verify"));
}

fn report_code(dir: &Path, store: &Path, args: &[&str]) -> Option<i32> {
    report(dir, store, args).1.status.code()
}

/// 10 000 decisions: the page loads, renders its first page of rows and can filter, within a
/// bound measured on the 2-core CI machine with a wide margin (see
/// `docs/investigations-report.md` for the numbers).
#[test]
fn ten_thousand_decisions_load_within_the_measured_bound() {
    const DECISIONS: usize = 10_000;
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit");
    let allow = golden().into_iter().find(|e| e["event_type"] == "lineage_checked").unwrap();
    let deny = golden().into_iter().filter(|e| e["event_type"] == "lineage_checked").nth(1).unwrap();
    assert_eq!(
        (allow["payload"]["decision"].as_str(), deny["payload"]["decision"].as_str()),
        (Some("allow"), Some("deny"))
    );
    let events: Vec<Value> =
        (0..DECISIONS).map(|i| if i % 7 == 0 { deny.clone() } else { allow.clone() }).collect();
    store(&audit, &events);
    let started = Instant::now();
    let (page, out) = report(dir.path(), &audit, &["--session", "example-session"]);
    let written = started.elapsed();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let Some(browser) = chromium("ten_thousand_decisions_load_within_the_measured_bound") else { return };
    let rendered = render(&browser, &page, &[]);
    rendered.assert_ok();
    assert_eq!(rendered.status("data-rows"), DECISIONS.to_string());
    assert_eq!(rendered.rows(), (1..=100).collect::<Vec<u64>>(), "the first page of the timeline");
    let script_ms: u64 = rendered.status("data-ms").parse().unwrap();
    eprintln!(
        "10 000 decisions: report written in {written:?}, {} bytes; browser run {:?}, of which the page's script {script_ms} ms",
        std::fs::metadata(&page).unwrap().len(),
        rendered.wall,
    );
    assert!(script_ms < 3_000, "the page's script took {script_ms} ms");
    assert!(rendered.wall < Duration::from_secs(30), "the browser took {:?}", rendered.wall);
}

fn keygen(path: &Path) {
    let out = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "test", "-f"])
        .arg(path)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// The records' signatures are shown as every decision checks them (K-3), against the
/// configuration's `allowed_signers`: verified while the key list is the one sealed, refused
/// once a key is slipped into it (K-10).
#[test]
fn the_signatures_of_seals_and_approvals_are_shown_as_decisions_check_them() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    for sub in ["personas", "agents", "manifests"] {
        std::fs::create_dir_all(root.join(sub)).unwrap();
        for entry in std::fs::read_dir(examples.join(sub)).unwrap() {
            let entry = entry.unwrap();
            std::fs::copy(entry.path(), root.join(sub).join(entry.file_name())).unwrap();
        }
    }
    let config = std::fs::read_to_string(examples.join("agentwarden.toml")).unwrap();
    std::fs::write(
        root.join("agentwarden.toml"),
        format!("{config}\n[approvals]\nallowed_signers = \"allowed_signers\"\n"),
    )
    .unwrap();
    let (alice, mallory) = (dir.path().join("alice"), dir.path().join("mallory"));
    keygen(&alice);
    keygen(&mallory);
    let public = |key: &Path| std::fs::read_to_string(key.with_extension("pub")).unwrap();
    std::fs::write(
        root.join("allowed_signers"),
        format!("alice namespaces=\"agentwarden\" {}", public(&alice)),
    )
    .unwrap();
    let audit = dir.path().join("audit");
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_warden"))
            .arg("--store")
            .arg(&audit)
            .args(args)
            .current_dir(&root)
            .env_remove("SSH_AUTH_SOCK")
            .env_remove("AGENTWARDEN_STORE")
            .output()
            .unwrap()
    };
    for args in [
        vec!["seal", "--key", alice.to_str().unwrap()],
        vec!["approve", "--ref", "GATE-1", "--key", alice.to_str().unwrap()],
    ] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
    let page = dir.path().join("report.html");
    let records = |why: &str| {
        let out =
            run(&["audit", "report", "--since", "2000-01-01T00:00:00Z", "--out", page.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(0), "{why}: {}", String::from_utf8_lossy(&out.stderr));
        data(&page)["records"].clone()
    };
    let signed = records("signed by a listed key");
    // (record, principal, status, why)
    let rows = [
        (&signed["seal"]["signature"], "alice", "verified", "the seal, signed by alice"),
        (&signed["approvals"][0]["signature"], "alice", "verified", "the approval, signed by alice"),
    ];
    for (signature, principal, status, why) in rows {
        assert_eq!(
            (signature["principal"].as_str(), signature["status"].as_str()),
            (Some(principal), Some(status)),
            "{why}: {signed}"
        );
    }
    let mut list = std::fs::read_to_string(root.join("allowed_signers")).unwrap();
    list.push_str(&format!("mallory namespaces=\"agentwarden\" {}", public(&mallory)));
    std::fs::write(root.join("allowed_signers"), list).unwrap();
    let slipped = records("a key slipped into the sealed list");
    for signature in [&slipped["seal"]["signature"], &slipped["approvals"][0]["signature"]] {
        assert_eq!(signature["status"], "refused", "{slipped}");
        assert!(signature["why"].as_str().unwrap().contains("signers_unavailable"), "{slipped}");
    }
}
