//! Credentials are never shown (issue 47, item 9; X-77), through the real binary: a server whose
//! OTLP endpoint, witness URLs and PostgreSQL store URL carry a user's password (and secrets in
//! query parameters) says where they are — host and port — in `warden status` (text and JSON),
//! in its log, in `warden doctor` (text and JSON) and in a command's failure, and never the
//! secret.

#![expect(clippy::unwrap_used, reason = "test code: a failed unwrap is a failed test")]

use std::os::unix::net::UnixStream;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_warden");

/// Every secret the test plants; none may come back anywhere.
const SECRETS: &[&str] = &[
    "otel-pw-0001",
    "witness-pw-0002",
    "witness-token-0003",
    "pg-pw-0004",
    "pg-query-pw-0005",
    "broken-pw-0006",
    "dsn-pw-0007",
];

fn warden(dir: &Path, envs: &[(&str, &str)], args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .env_remove("AGENTWARDEN_STORE")
        .env_remove("AGENTWARDEN_SERVER")
        .env_remove("CLAUDECODE")
        .env_remove("RUST_LOG")
        .env("XDG_CONFIG_HOME", "/nonexistent-config")
        .envs(envs.iter().copied())
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// stdout and stderr of `output`, for one assertion.
fn both(output: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
}

fn assert_no_secret(place: &str, text: &str) {
    for secret in SECRETS {
        assert!(!text.contains(secret), "{place} shows `{secret}`:\n{text}");
    }
}

#[test]
fn no_endpoint_url_or_dsn_shows_its_credentials() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let schema = format!("creds_{}", std::process::id());
    let store = format!(
        "postgres://postgres:pg-pw-0004@127.0.0.1:5432/test?options=-csearch_path%3D{schema}&password=pg-query-pw-0005"
    );
    let key = d.join("keys/log.key");
    let keygen = warden(
        d,
        &[],
        &["--store", &store, "audit", "keygen", "--origin", "t.example/log", "--out", key.to_str().unwrap()],
    );
    assert_eq!(keygen.status.code(), Some(0), "{}", both(&keygen));
    let witness_key = d.join("w.key");
    let vkey = warden(
        d,
        &[],
        &["witness", "keygen", "--name", "w.example/w", "--out", witness_key.to_str().unwrap()],
    );
    let vkey = String::from_utf8(vkey.stdout).unwrap().trim_end().to_owned();
    std::fs::create_dir_all(d.join("run")).unwrap();
    std::fs::write(
        d.join("agentwarden.toml"),
        format!(
            "[server]\nsocket = \"run/warden.sock\"\nlog_key = \"keys/log.key\"\nwitnesses = [\
             \"http://wuser:witness-pw-0002@127.0.0.1:9 {vkey}\", \
             \"http://127.0.0.1:9/w?token=witness-token-0003 {vkey}\"]\n"
        ),
    )
    .unwrap();

    // The server: its log at `info`, so that it says where it exports and what it serves.
    let mut server = Command::new(BIN)
        .args(["--store", &store, "serve", "--config", "agentwarden.toml"])
        .current_dir(d)
        .env_remove("AGENTWARDEN_SERVER")
        .env_remove("CLAUDECODE")
        .env("RUST_LOG", "info")
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", "http://ouser:otel-pw-0001@127.0.0.1:9")
        .env("OTEL_BSP_SCHEDULE_DELAY", "50")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(d.join("server.log")).unwrap())
        .spawn()
        .unwrap();
    let socket = d.join("run/warden.sock");
    let started = Instant::now();
    while UnixStream::connect(&socket).is_err() {
        assert!(started.elapsed() < Duration::from_secs(20), "the server never answered");
        std::thread::sleep(Duration::from_millis(20));
    }
    // Only the command line names the server and the store (V-67).
    let socket = socket.to_str().unwrap();
    // A note: the server signs it and submits it to both witnesses, which fail.
    let note = warden(d, &[], &["--server", socket, "--store", &store, "audit", "note", "a note"]);
    assert_eq!(note.status.code(), Some(0), "{}", both(&note));
    let status = |json: bool| {
        let args: &[&str] =
            if json { &["--server", socket, "status", "--json"] } else { &["--server", socket, "status"] };
        both(&warden(d, &[], args))
    };
    let started = Instant::now();
    let mut text = status(false);
    while text.matches("last submission failed").count() < 2 && started.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(100));
        text = status(false);
    }
    let json = status(true);
    assert!(text.contains("127.0.0.1:9"), "the status says where it exports: {text}");
    assert!(text.matches("last submission failed").count() >= 2, "both witnesses failed: {text}");
    assert!(json.contains("127.0.0.1:9/v1/traces"), "{json}");
    assert_no_secret("`warden status`", &text);
    assert_no_secret("`warden status --json`", &json);

    // `warden doctor`, through the server and on the store directly, text and JSON.
    for args in [
        &["--server", socket, "doctor"][..],
        &["--server", socket, "doctor", "--json"][..],
        &["--server", socket, "--store", &store, "doctor"][..],
        &["--server", socket, "--store", &store, "doctor", "--json"][..],
    ] {
        assert_no_secret(&format!("`warden {}`", args.join(" ")), &both(&warden(d, &[], args)));
    }

    // A store that cannot be reached, as a URL and as a connection string.
    for broken in [
        "postgres://u:broken-pw-0006@127.0.0.1:1/x?sslpassword=broken-pw-0006",
        "postgres://127.0.0.1:1/x?user=u&password=dsn-pw-0007",
    ] {
        for args in [
            &["--store", broken, "audit", "verify"][..],
            &["--store", broken, "audit", "verify", "--json"][..],
        ] {
            let output = warden(d, &[], args);
            assert_ne!(output.status.code(), Some(0), "{}", both(&output));
            assert_no_secret(&format!("`warden {}`", args.join(" ")), &both(&output));
        }
    }

    server.kill().unwrap();
    server.wait().unwrap();
    let log = std::fs::read_to_string(d.join("server.log")).unwrap();
    assert!(log.contains("127.0.0.1:9"), "the log says where it exports: {log}");
    assert_no_secret("the server's log", &log);

    // The schema the test made.
    let _ = Command::new("psql")
        .args([
            "-h",
            "127.0.0.1",
            "-U",
            "postgres",
            "-d",
            "test",
            "-c",
            &format!("DROP SCHEMA IF EXISTS {schema} CASCADE"),
        ])
        .output();
}
