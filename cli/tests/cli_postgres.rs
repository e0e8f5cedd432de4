//! `warden` on the PostgreSQL fleet store through the real binary: `--store postgres://…`
//! selects it, and `AGENTWARDEN_STORE` or a `[store] url` the command line does not name refuse
//! the command (V-67); an unreachable server denies the gate; and
//! `audit copy` carries a log sled → PostgreSQL → sled byte for byte. Needs
//! `AGENTWARDEN_TEST_PG` (see `tests/src/pg.rs`).

#![expect(clippy::unwrap_used, clippy::panic, reason = "test code: a failed unwrap is a failed test")]

#[path = "../../tests/src/pg.rs"]
#[expect(dead_code, unreachable_pub, reason = "shared with the tests crate; not every helper is used here")]
mod pg;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use agentwarden::store::{EventStore, SledConfig, SledEventStore};

fn warden(store: Option<&str>, args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_warden"));
    if let Some(store) = store {
        command.arg("--store").arg(store);
    }
    command.args(args).env_remove("AGENTWARDEN_STORE").env_remove("RUST_LOG").output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples")
}

/// The records of a sled store, read directly.
async fn sled_records(path: &Path) -> Vec<agentwarden::audit::StoredRecord> {
    let store = SledEventStore::open(&SledConfig::new(path).create_if_missing(false)).unwrap();
    store.read(1, 10_000).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notes_verify_and_copy_round_trip_sled_postgres_sled() {
    let Some(pg) = pg::PgTest::start("cli_copy").await else { return };
    let url = pg.url_for(&pg.schema());
    let dir = tempfile::tempdir().unwrap();
    let (first, second) = (dir.path().join("first"), dir.path().join("second"));
    let first_s = first.to_str().unwrap();
    for i in 0..25 {
        let out = warden(Some(first_s), &["audit", "note", &format!("note {i}"), "--session", "s1"]);
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    let out = warden(None, &["audit", "copy", "--from", first_s, "--to", &url, "--batch", "7"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains(r#""copied":25"#), "{}", text(&out.stdout));
    // The fleet store takes more appends through the CLI, by flag only: the variable refuses (V-67).
    assert!(warden(Some(&url), &["audit", "note", "on postgres"]).status.success());
    let by_env = Command::new(env!("CARGO_BIN_EXE_warden"))
        .args(["audit", "note", "by env"])
        .env("AGENTWARDEN_STORE", &url)
        .output()
        .unwrap();
    assert_eq!(by_env.status.code(), Some(2), "{}", text(&by_env.stderr));
    assert!(text(&by_env.stderr).contains("trust_root_refused"), "{}", text(&by_env.stderr));
    assert!(warden(Some(&url), &["audit", "note", "by flag"]).status.success());
    let verified = warden(Some(&url), &["audit", "verify"]);
    assert!(text(&verified.stdout).starts_with("intact: 27 events"), "{}", text(&verified.stdout));
    // Back to a new sled store, then resume into the first one (a prefix of the source).
    let second_s = second.to_str().unwrap();
    let out = warden(None, &["audit", "copy", "--from", &url, "--to", second_s]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = warden(None, &["audit", "copy", "--from", &url, "--to", first_s]);
    assert!(text(&out.stdout).contains(r#""copied":2,"#), "{}", text(&out.stdout));
    assert!(warden(Some(second_s), &["audit", "verify"]).status.success());
    assert!(warden(Some(first_s), &["audit", "verify"]).status.success());
    let (a, b) = (sled_records(&first).await, sled_records(&second).await);
    assert_eq!(a.len(), 27);
    assert_eq!(a, b, "the same bytes and hashes after sled → PostgreSQL → sled");
    let pg_store =
        agentwarden::store::PostgresEventStore::new(agentwarden::store::PgConfig::parse(&url).unwrap());
    assert_eq!(pg_store.read(1, 100).await.unwrap(), a);
    // A destination that diverges from the source is refused, and nothing is written.
    let other = dir.path().join("other");
    let other_s = other.to_str().unwrap();
    assert!(warden(Some(other_s), &["audit", "note", "elsewhere"]).status.success());
    let out = warden(None, &["audit", "copy", "--from", &url, "--to", other_s]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("not a prefix of the source"), "{}", text(&out.stderr));
    assert_eq!(sled_records(&other).await.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_configured_fleet_store_is_named_on_the_command_line() {
    let Some(pg) = pg::PgTest::start("cli_config").await else { return };
    let url = pg.url_for(&pg.schema());
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("agentwarden.toml"), format!("[store]\nurl = \"{url}\"\n")).unwrap();
    // The configuration alone chooses no store: refused, nothing created anywhere (V-67).
    let out = Command::new(env!("CARGO_BIN_EXE_warden"))
        .args(["audit", "note", "via config"])
        .current_dir(dir.path())
        .env_remove("AGENTWARDEN_STORE")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("`[store] url`") && text(&out.stderr).contains("--store"),
        "{}",
        text(&out.stderr)
    );
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_warden"))
            .arg("--store")
            .arg(&url)
            .args(args)
            .current_dir(dir.path())
            .env_remove("AGENTWARDEN_STORE")
            .env_remove("CLAUDECODE")
            .output()
            .unwrap()
    };
    // A reader never creates the store: a dropped log cannot verify as an empty one (A-6).
    let out = run(&["audit", "verify"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("there is no event store at `PostgreSQL schema"),
        "{}",
        text(&out.stderr)
    );
    assert!(run(&["audit", "note", "via config"]).status.success());
    let out = run(&["audit", "verify"]);
    assert!(text(&out.stdout).starts_with("intact: 1 events"), "{}", text(&out.stdout));
    // Approvals and their saved projection live on the fleet store too.
    let out = run(&["approve", "--ref", "GATE-FLEET-1", "--by", "ops"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = run(&["approvals", "--json"]);
    assert!(text(&out.stdout).contains("GATE-FLEET-1"), "{}{}", text(&out.stdout), text(&out.stderr));
    assert!(!dir.path().join(".agentwarden").exists(), "nothing went to the embedded store");
}

#[test]
fn an_unreachable_server_denies_the_gate_and_fails_appends() {
    let closed = "postgres://postgres@127.0.0.1:1/test";
    let request = examples().join("requests").join("example-1-allow.json");
    let config = examples().join("agentwarden.toml");
    let out = Command::new(env!("CARGO_BIN_EXE_warden"))
        .args(["--store", closed, "gate", "--request", request.to_str().unwrap()])
        .args(["--config", config.to_str().unwrap(), "--json"])
        .env("CHIRALITY_ENABLE_SUBAGENTS", "true")
        .env_remove("AGENTWARDEN_STORE")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "deny: {}{}", text(&out.stdout), text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    assert_ne!(report["decision"], "allow", "{report}");
    let out = warden(Some(closed), &["audit", "note", "lost"]);
    assert_eq!(out.status.code(), Some(3));
    let err = text(&out.stderr);
    assert!(err.contains("PostgreSQL at `postgres@127.0.0.1:1/test`") && err.contains("connect"), "{err}");
}
