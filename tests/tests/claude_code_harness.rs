//! The real-client suite's own parts, without the CLI (these run in every test run): the fake
//! Messages API speaks the streaming protocol and refuses other hosts (H-42), and a run is killed
//! as a whole process group at its deadline (H-42).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use agentwarden_tests::claude_code::{Block, FakeApi, Project, RunOptions, Script, Tools, Turn};
use serde_json::{Value, json};

/// Sends raw HTTP/1.1 to the fake and returns the whole response (the fake closes nothing, so
/// read until the announced length).
fn exchange(api: &FakeApi, request: &str) -> String {
    let addr = api.url().trim_start_matches("http://").to_owned();
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut response = Vec::new();
    let mut buf = [0; 4096];
    loop {
        let n = stream.read(&mut buf).unwrap();
        response.extend_from_slice(&buf[..n]);
        let text = String::from_utf8_lossy(&response).into_owned();
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let length: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length: "))
                .map(|v| v.trim().parse().unwrap())
                .unwrap();
            if body.len() >= length {
                return text;
            }
        }
        assert!(n > 0, "the fake closed the connection mid-response: {text}");
    }
}

fn post(api: &FakeApi, body: &Value, chunked: bool) -> String {
    let host = api.url().trim_start_matches("http://").to_owned();
    let body = body.to_string();
    let request = if chunked {
        let (a, b) = body.split_at(body.len() / 2);
        format!(
            "POST /v1/messages?beta=true HTTP/1.1\r\nhost: {host}\r\ntransfer-encoding: chunked\r\n\r\n{:x}\r\n{a}\r\n{:x}\r\n{b}\r\n0\r\n\r\n",
            a.len(),
            b.len()
        )
    } else {
        format!(
            "POST /v1/messages?beta=true HTTP/1.1\r\nhost: {host}\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        )
    };
    exchange(api, &request)
}

#[test]
fn the_fake_streams_the_scripted_turn_to_the_agent_its_first_message_names() {
    let api = FakeApi::start(
        Script::new()
            .agent(
                "MAINTASK",
                vec![Turn::one(Block::tool_with_id("toolu_1", "Agent", json!({"prompt": "PLANTASK x"})))],
            )
            .agent("PLANTASK", vec![]),
    )
    .unwrap();
    let main = json!({"stream": true, "messages": [{"role": "user", "content": [{"type": "text", "text": "MAINTASK go"}]}]});
    let response = post(&api, &main, false);
    let events: Vec<&str> = response.lines().filter_map(|l| l.strip_prefix("event: ")).collect();
    assert_eq!(
        events,
        [
            "message_start",
            "content_block_start",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop"
        ]
    );
    assert!(response.contains(r#""stop_reason":"tool_use""#), "{response}");
    assert!(response.contains(r#"\"prompt\":\"PLANTASK x\""#), "{response}");

    // Chunked bodies are read too; past its turns an agent ends with `MARKER DONE`.
    let planner = json!({"stream": true, "messages": [{"role": "user", "content": "PLANTASK x"}]});
    let response = post(&api, &planner, true);
    assert!(
        response.contains("PLANTASK DONE") && response.contains(r#""stop_reason":"end_turn""#),
        "{response}"
    );

    assert!(api.ran("PLANTASK") && api.calls_of("MAINTASK") == 1);
    assert!(api.foreign_requests().is_empty());
}

#[test]
fn the_fake_refuses_and_logs_every_other_host() {
    let api = FakeApi::start(Script::new()).unwrap();
    let connect =
        exchange(&api, "CONNECT api.anthropic.com:443 HTTP/1.1\r\nhost: api.anthropic.com:443\r\n\r\n");
    assert!(connect.starts_with("HTTP/1.1 403"), "{connect}");
    let absolute =
        exchange(&api, "GET http://example.com/ HTTP/1.1\r\nhost: example.com\r\ncontent-length: 0\r\n\r\n");
    assert!(absolute.starts_with("HTTP/1.1 403"), "{absolute}");
    let foreign: Vec<String> = api.foreign_requests().into_iter().map(|r| r.target).collect();
    assert_eq!(foreign, ["api.anthropic.com:443", "http://example.com/"]);
}

#[test]
fn a_run_past_its_deadline_is_killed_with_everything_it_started() {
    // A stand-in for `claude` that starts a background child and hangs.
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("child.pid");
    let fake_claude = dir.path().join("claude");
    std::fs::write(
        &fake_claude,
        format!("#!/bin/sh\nsleep 300 &\necho $! > '{}'\nsleep 300\n", pid_file.display()),
    )
    .unwrap();
    std::fs::set_permissions(&fake_claude, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    // `warden` is only needed to exist here: the project is not set up.
    let tools = Tools { claude: fake_claude, warden: std::path::PathBuf::from("/bin/true") };
    let project = Project::example(&tools);
    let api = FakeApi::start(Script::new()).unwrap();
    let options = RunOptions { timeout: Duration::from_secs(2), ..RunOptions::default() };
    let run = project.run(&api, "MAINTASK", &options);
    assert!(run.timed_out && run.exit.is_none(), "{run:?}");
    assert!(run.elapsed < Duration::from_secs(10), "{run:?}");
    let child = std::fs::read_to_string(&pid_file).unwrap();
    let child = child.trim();
    // Killed (and reaped by init) or a zombie for a moment: either way not running `sleep`.
    let alive = (0..50).all(|_| {
        let state = std::fs::read_to_string(format!("/proc/{child}/stat")).unwrap_or_default();
        let running = !state.is_empty() && !state.contains(") Z ");
        if running {
            std::thread::sleep(Duration::from_millis(20));
        }
        running
    });
    assert!(!alive, "the background child {child} outlived the run");
}
