//! `warden audit log` filters, `explain`, `replay` and `timeline` on a realistic log produced by
//! the real binary running the bundled examples: the gate's Examples 1–4, the lineage and
//! tool-call examples, the fan-out example, and two guardrail violations (one reverted, one
//! not). `--json` outputs are compared with golden files after normalising what a rerun
//! changes (times, hashes, temporary paths, chunk timings and finishing order);
//! `UPDATE_GOLDEN=1` rewrites them. Human outputs are checked for their key facts.

#![expect(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test code: a failed unwrap or index is a failed test"
)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn warden_in(dir: &Path, store: &Path, args: &[&str]) -> Output {
    // Git must not find a repository above `dir`: the test's workspaces live under the
    // project's own checkout, and "no repository" must not depend on where that is.
    Command::new(env!("CARGO_BIN_EXE_warden"))
        .current_dir(dir)
        .env("GIT_CEILING_DIRECTORIES", dir)
        .arg("--store")
        .arg(store)
        .args(args)
        .env("CHIRALITY_ENABLE_SUBAGENTS", "true")
        .env_remove("AGENTWARDEN_STORE")
        .env_remove("RUST_LOG")
        .output()
        .unwrap()
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git").arg("-C").arg(dir).args(args).output().unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// One guard check on a workspace whose `okrs/a.md` an agent edited.
fn violation(base: &Path, store: &Path, name: &str, with_git: bool) {
    let ws = base.join(name);
    std::fs::create_dir_all(ws.join("okrs")).unwrap();
    std::fs::write(ws.join("okrs/a.md"), "objective A\n").unwrap();
    if with_git {
        git(&ws, &["init", "-q"]);
        git(&ws, &["add", "-A"]);
        git(&ws, &["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "base"]);
    }
    let snapshot = base.join(format!("{name}.snapshot.json"));
    let ws_arg = ws.to_str().unwrap();
    let out =
        warden_in(base, store, &["guard", "snapshot", "--out", snapshot.to_str().unwrap(), "--root", ws_arg]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    std::fs::write(ws.join("okrs/a.md"), "hacked\n").unwrap();
    let artifacts = base.join(format!("{name}-artifacts"));
    let args = [
        "guard",
        "check",
        "--snapshot",
        snapshot.to_str().unwrap(),
        "--revert",
        "--item",
        "ITEM-1",
        "--run",
        name,
        "--artifacts",
        artifacts.to_str().unwrap(),
        "--root",
        ws_arg,
    ];
    assert_eq!(warden_in(base, store, &args).status.code(), Some(1));
}

/// Builds the realistic log under `base`.
fn build(base: &Path) -> PathBuf {
    let store = base.join("audit");
    let root = root();
    let config = ["--config", "examples/agentwarden.toml"];
    for request in [
        "example-1-allow",
        "example-2-missing-metadata",
        "example-3-context-not-sealed",
        "example-4-type-coercion",
    ] {
        let file = format!("examples/requests/{request}.json");
        warden_in(&root, &store, &[&["gate", "--request", &file][..], &config[..]].concat());
    }
    for lineage in ["three-levels", "mid-chain-violation"] {
        let file = format!("examples/lineage/{lineage}.json");
        warden_in(&root, &store, &[&["lineage", "check", "--lineage", &file][..], &config[..]].concat());
    }
    for request in ["authorize-write", "authorize-escalation"] {
        let file = format!("examples/lineage/{request}.json");
        warden_in(&root, &store, &[&["authorize", "--request", &file][..], &config[..]].concat());
    }
    let fan_out = [
        "fanout",
        "run",
        "--config",
        "examples/fanout/agentwarden.toml",
        "--items",
        "examples/fanout/items.json",
        "--phase",
        "tests",
        "--run",
        "run-7",
        "--",
        "sh",
        "examples/fanout/agent.sh",
    ];
    assert_eq!(warden_in(&root, &store, &fan_out).status.code(), Some(0));
    violation(base, &store, "run-reverted", true);
    violation(base, &store, "run-no-git", false);
    store
}

/// The shared read-only log (built once per test binary, under cargo's test tmpdir).
fn log() -> &'static (PathBuf, PathBuf) {
    static LOG: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    LOG.get_or_init(|| {
        let base =
            Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cli_investigate-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        std::fs::create_dir_all(&base).unwrap();
        let store = build(&base);
        (base, store)
    })
}

fn audit(args: &[&str]) -> Output {
    let (base, store) = log();
    warden_in(base, store, &[&["audit"][..], args].concat())
}

fn text(out: &Output) -> String {
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn json_lines(out: &Output) -> Vec<Value> {
    text(out).lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// Replaces what a rerun changes: times, hashes, the temporary base path, chunk timings.
fn normalise(value: &mut Value, base: &str) {
    match value {
        Value::String(s) => {
            let b = s.as_bytes();
            if s.len() == 24 && b.get(4) == Some(&b'-') && b.get(10) == Some(&b'T') && s.ends_with('Z') {
                *s = "<time>".into();
            } else if s.len() == 64
                && s.bytes().all(|c| c.is_ascii_hexdigit())
                && s.bytes().any(|c| c != b'0')
            {
                *s = "<hash>".into();
            } else if s.contains(base) {
                *s = s.replace(base, "<base>");
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| normalise(v, base)),
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                if key == "elapsed_ms" || key == "evaluation_us" {
                    *v = Value::from(0);
                } else {
                    normalise(v, base);
                }
            }
        }
        _ => {}
    }
}

fn golden(name: &str, mut actual: Value) {
    normalise(&mut actual, log().0.to_str().unwrap());
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden").join(format!("{name}.json"));
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, serde_json::to_string_pretty(&actual).unwrap() + "\n").unwrap();
    }
    let expected: Value = serde_json::from_str(
        &std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (run with UPDATE_GOLDEN=1 to create it)", path.display())),
    )
    .unwrap();
    assert_eq!(actual, expected, "{name} differs from {}", path.display());
}

#[test]
fn replay_json_matches_the_golden_files() {
    for name in ["approvals", "denials", "spawn-tree", "violations"] {
        let out = json_lines(&audit(&["replay", "--projection", name, "--json"]));
        golden(&format!("replay-{name}"), out[0].clone());
    }
    // Chunks finish in parallel: compare them in index order, without their seqs.
    let mut fan_out = json_lines(&audit(&["replay", "--projection", "fan-out", "--json"])).remove(0);
    for run in fan_out["runs"].as_array_mut().unwrap() {
        let chunks = run["chunks"].as_array_mut().unwrap();
        chunks.sort_by_key(|c| c["chunk_index"].as_u64());
        chunks.iter_mut().for_each(|c| c["seq"] = Value::Null);
    }
    golden("replay-fan-out", fan_out);
    // The hour buckets depend on when the test runs; their sum may not.
    let decisions = json_lines(&audit(&["replay", "--projection", "decisions", "--json"])).remove(0);
    let hours = decisions["hours"].as_object().unwrap();
    let allow: u64 = hours.values().map(|c| c["allow"].as_u64().unwrap()).sum();
    assert_eq!(allow, decisions["total"]["allow"].as_u64().unwrap());
    golden("replay-decisions-total", decisions["total"].clone());
}

#[test]
fn filtered_log_json_matches_the_golden_file() {
    let denied =
        json_lines(&audit(&["log", "--json", "--type", "delegation_evaluated", "--decision", "deny"]));
    golden("log-denied-gate-evaluations", Value::Array(denied));
}

#[test]
fn timeline_and_explain_json_match_the_golden_files() {
    golden(
        "timeline-example-session",
        Value::Array(json_lines(&audit(&["timeline", "--session", "example-session", "--json"]))),
    );
    for seq in ["1", "3", "6", "8"] {
        golden(&format!("explain-{seq}"), json_lines(&audit(&["explain", seq, "--json"])).remove(0));
    }
}

#[test]
fn human_outputs_state_the_key_facts() {
    // (command, facts it must state, why)
    let rows: [(&[&str], &[&str], &str); 7] = [
        (
            &["replay", "--projection", "approvals"],
            &["GATE-2026-02-21-001: 1 allowed, 0 denied; approved by ryan; delegated PREPARATION"],
            "what ran under the approval, and who approved",
        ),
        (
            &["replay", "--projection", "denials"],
            &["denials: 5", "context_sealed", "2", "MANAGER"],
            "Examples 3 and 4 fail at context_sealed",
        ),
        (
            &["replay", "--projection", "spawn-tree"],
            &[
                "session example-session",
                "    c1 (coder, depth 1)",
                "c2 (coder, depth 3)  DENIED 1 of 1 checks",
            ],
            "the denied spawn is in the tree, marked",
        ),
        (
            &["replay", "--projection", "fan-out"],
            &["run run-7 phase tests: 9 items, 3 chunks", "merged completed: 8 passed, 1 failed"],
            "the fan-out example",
        ),
        (
            &["replay", "--projection", "violations"],
            &["violations: 2 (1 reverted, 1 NOT reverted)", "okrs/a.md"],
            "the unreverted violation is called out",
        ),
        (
            &["explain", "3"],
            &[
                "decision: DENY",
                "FAIL gate context_sealed (not_boolean_true)",
                "approval: GATE-2026-02-21-002",
                "input metadata_digest: ",
                "chain: event 3 of",
            ],
            "why Example 3 was denied, and where it sits",
        ),
        (
            &["timeline", "--session", "example-session"],
            &[
                "under approval `GATE-2026-02-21-001`",
                "lineage of 4 agents denied (spawn_not_allowed)",
                "agent `r1` (researcher) denied tool `search`",
            ],
            "the session's story",
        ),
    ];
    for (args, facts, why) in rows {
        let out = text(&audit(args));
        for fact in facts {
            assert!(
                out.contains(fact),
                "`warden audit {}` must say `{fact}` ({why}):\n{out}",
                args.join(" ")
            );
        }
    }
}

fn seqs(args: &[&str]) -> Vec<u64> {
    json_lines(&audit(&[&["log", "--json"][..], args].concat()))
        .iter()
        .map(|e| e["seq"].as_u64().unwrap())
        .collect()
}

#[test]
fn log_filters_combine() {
    let all = seqs(&[]);
    // (filters, expected seqs, why)
    let rows: [(&[&str], Vec<u64>, &str); 9] = [
        (&["--type", "delegation_evaluated"], vec![1, 2, 3, 4], "the gate's four examples"),
        (
            &["--decision", "deny", "--type", "delegation_evaluated"],
            vec![2, 3, 4],
            "AND: denied gate evaluations",
        ),
        (&["--decision", "allow"], vec![1, 5, 7], "allows of every deciding type, tool calls included"),
        (&["--approval-ref", "GATE-2026-02-21-001"], vec![1], "Example 1's approval"),
        (&["--session", "example-session", "--type", "lineage_checked"], vec![5, 6], "session AND type"),
        (&["--run", "run-7", "--type", "chunk_finished"], vec![10, 11, 12], "the fan-out's chunks"),
        (&["--decision", "deny", "--limit", "2"], vec![2, 3], "the limit counts matches"),
        (
            &["--since", "7d", "--until", "2999-01-01T00:00:00Z"],
            all.clone(),
            "inclusive window around everything",
        ),
        (&["--until", "2000-01-01T00:00:00+01:00"], vec![], "nothing before 2000"),
    ];
    for (filters, want, why) in rows {
        assert_eq!(seqs(filters), want, "{filters:?}: {why}");
    }
    let first = json_lines(&audit(&["log", "--json", "--limit", "1"])).remove(0);
    let at = first["recorded_at"].as_str().unwrap();
    assert_eq!(seqs(&["--since", at, "--until", at, "--limit", "1"]), [1], "bounds are inclusive");
}

#[test]
fn malformed_filters_are_one_line_usage_errors() {
    // (arguments, what the error must name)
    let rows: [(&[&str], &str); 9] = [
        (&["log", "--decision", "maybe"], "--decision `maybe`"),
        (&["log", "--type", "delegation"], "--type `delegation` is not an event type"),
        (&["log", "--since", "yesterday"], "--since `yesterday`"),
        (&["log", "--until", "2026-02-30T00:00:00Z"], "--until `2026-02-30T00:00:00Z`"),
        (&["log", "--since", "2w"], "--since `2w`"),
        (&["log", "--since", "2026-02-21T10:00:00Z", "--until", "2026-02-21T09:00:00Z"], "is after --until"),
        (&["log", "--session", " "], "--session is empty"),
        (&["replay", "--projection", "everything"], "--projection `everything` is not a projection"),
        (&["timeline", "--session", ""], "--session is empty"),
    ];
    for (args, names) in rows {
        let out = audit(args);
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: one line: {err}");
        assert!(err.contains(names), "{args:?}: {err}");
    }
}

#[test]
fn explain_refuses_a_tampered_log_and_names_the_broken_seq() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("audit");
    for i in 1..=5 {
        let out = warden_in(dir.path(), &store, &["audit", "note", &format!("note {i}")]);
        assert_eq!(out.status.code(), Some(0));
    }
    {
        let db = sled::open(&store).unwrap();
        let events = db.open_tree("events").unwrap();
        let mut value = events.get(3u64.to_be_bytes()).unwrap().unwrap().to_vec();
        let at = value.len() - 4;
        value[at] ^= 0x01; // a forged character in note 3's message
        events.insert(3u64.to_be_bytes(), value).unwrap();
        db.flush().unwrap();
    }
    for seq in ["3", "4"] {
        let out = warden_in(dir.path(), &store, &["audit", "explain", seq]);
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.contains("broken at seq 3"), "{err}");
        assert!(out.stdout.is_empty(), "nothing of the forged event is explained");
    }
    let ok = warden_in(dir.path(), &store, &["audit", "explain", "2"]);
    assert_eq!(ok.status.code(), Some(0), "events before the break still verify");
    let replay = warden_in(dir.path(), &store, &["audit", "replay", "--projection", "denials"]);
    assert_eq!(replay.status.code(), Some(1));
    assert!(String::from_utf8(replay.stderr).unwrap().contains("broken at seq 3"));
    let missing = warden_in(dir.path(), &store, &["audit", "explain", "99"]);
    assert_eq!(missing.status.code(), Some(1));
}
