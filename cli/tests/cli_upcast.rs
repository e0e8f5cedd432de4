//! Schema evolution end to end: a log written before `lineage_checked` version 2 (the fixture
//! `fixtures/lineage-v1.jsonl`, see its README) is sealed into a real store and replayed by
//! today's binary. The version-1 events (`length`) are upcast on read to today's type
//! (`lineage_length`); nothing in the store is rewritten.

#![expect(clippy::unwrap_used, reason = "test code: a failed unwrap or index is a failed test")]

use std::path::Path;
use std::process::{Command, Output};

use agentwarden::audit::Hash;
use serde_json::Value;

/// Seals each fixture line after its chain prefix and writes the store exactly as
/// `SledEventStore` lays it out: `events` (seq → hash ‖ body) and the `meta` format marker.
fn store_from_fixture(path: &Path) -> Vec<Vec<u8>> {
    store_from_lines(path, include_str!("fixtures/lineage-v1.jsonl"))
}

fn store_from_lines(path: &Path, fixture: &str) -> Vec<Vec<u8>> {
    let db = sled::open(path).unwrap();
    db.open_tree("meta").unwrap().insert("format", b"agentwarden-events/1".as_slice()).unwrap();
    let events = db.open_tree("events").unwrap();
    let mut prev = Hash::GENESIS;
    let mut bodies = Vec::new();
    for (i, line) in fixture.lines().enumerate() {
        let seq = i as u64 + 1;
        let body = format!("{{\"seq\":{seq},\"prev_hash\":\"{prev}\",{line}").into_bytes();
        let hash = Hash::link(&prev, &body);
        events.insert(seq.to_be_bytes(), [hash.as_bytes().as_slice(), &body].concat()).unwrap();
        prev = hash;
        bodies.push(body);
    }
    db.flush().unwrap();
    bodies
}

fn warden(store: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warden")).arg("--store").arg(store).args(args).output().unwrap()
}

fn json(out: &Output) -> Value {
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn a_version_1_log_replays_through_todays_projections() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("audit");
    let bodies = store_from_fixture(&store);
    assert!(json(&warden(&store, &["audit", "verify", "--json"]))["intact"].as_bool().unwrap());

    let tree = json(&warden(&store, &["audit", "replay", "--projection", "spawn-tree", "--json"]));
    let agents = &tree["sessions"]["legacy-session"]["agents"];
    // (agent, parent, checks, denied, why)
    let rows = [
        ("o1", Value::Null, 0, 0, "the root, from a version-1 lineage"),
        ("c1", "o1".into(), 0, 0, "a middle agent"),
        ("r1", "c1".into(), 1, 0, "the newest agent of the allowed version-1 check"),
        ("c2", "r1".into(), 1, 1, "the denied spawn of the second version-1 check"),
        ("c3", "o1".into(), 1, 0, "from the version-2 event beside them"),
    ];
    for (id, parent, checks, denied, why) in rows {
        let agent = &agents[id];
        assert_eq!(
            (&agent["parent"], agent["checks"].as_u64(), agent["denied"].as_u64()),
            (&parent, Some(checks), Some(denied)),
            "{id}: {why}"
        );
    }

    let explained = json(&warden(&store, &["audit", "explain", "2", "--json"]));
    assert_eq!(explained["event_version"], 1, "the event keeps the version it was written with");
    assert!(explained["summary"].as_str().unwrap().starts_with("lineage of 4 agents denied"), "{explained}");

    let denials = json(&warden(&store, &["audit", "replay", "--projection", "denials", "--json"]));
    assert_eq!(denials["by_persona"]["researcher"], 1, "the spawning parent of the failing pair");

    // Replaying read the old events; it rewrote none of them.
    let db = sled::open(&store).unwrap();
    let events = db.open_tree("events").unwrap();
    for (i, body) in bodies.iter().enumerate() {
        let stored = events.get((i as u64 + 1).to_be_bytes()).unwrap().unwrap();
        assert_eq!(&stored[32..], body.as_slice());
    }
}

#[test]
fn an_event_an_investigation_needs_but_cannot_read_stops_it() {
    let v1 = include_str!("fixtures/lineage-v1.jsonl");
    let future = v1.lines().next().unwrap().replace("\"event_version\":1", "\"event_version\":3");
    let unknown = r#""recorded_at":"2026-02-21T11:00:00.000Z","actor":"warden","session":"legacy-session","event_type":"launch_missiles","event_version":1,"payload":{}}"#;
    // (the log's extra line, command, expected stderr, why)
    let rows: [(&str, &[&str], Option<&str>, &str); 3] = [
        (
            &future,
            &["audit", "replay", "--projection", "spawn-tree"],
            Some("event 4 cannot be read: `lineage_checked` version 3 is newer"),
            "a version from the future is not guessed at",
        ),
        (
            unknown,
            &["audit", "timeline", "--session", "legacy-session"],
            Some("event 4 cannot be read: unknown event type `launch_missiles`"),
            "the timeline needs every event of its session",
        ),
        (
            unknown,
            &["audit", "replay", "--projection", "denials"],
            None,
            "a projection that never reads the type is not stopped by it",
        ),
    ];
    for (extra, args, error, why) in rows {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("audit");
        store_from_lines(&store, &format!("{v1}{extra}\n"));
        let out = warden(&store, args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        match error {
            Some(error) => {
                assert_eq!(out.status.code(), Some(1), "{why}: {stderr}");
                assert!(stderr.contains(error), "{why}: {stderr}");
            }
            None => assert_eq!(out.status.code(), Some(0), "{why}: {stderr}"),
        }
    }
}
