//! OpenTelemetry export from `warden serve` (issue 39, V-60 … V-63): the real binary, its OTLP
//! variables pointing at a receiver in this test (HTTP/1.1 on 127.0.0.1) that decodes every
//! request with the official protobuf definitions (`opentelemetry-proto`); and at an endpoint
//! nobody listens on. Every child process is bounded in time and killed at the end.

#![expect(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "test code: a failed unwrap or index is a failed test"
)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;
use serde_json::Value;

mod bounded;
mod support;

use support::{EXAMPLE, committed_example};

const BIN: &str = env!("CARGO_BIN_EXE_warden");
const BOUND: Duration = Duration::from_secs(60);

/// What the receiver was sent: every request's spans, in arrival order.
#[derive(Clone, Default)]
struct Received(Arc<Mutex<Vec<Span>>>);

impl Received {
    fn spans(&self) -> Vec<Span> {
        self.0.lock().unwrap().clone()
    }

    /// Waits (at most 20 s) until `n` spans arrived.
    fn wait_for(&self, n: usize) -> Vec<Span> {
        let started = Instant::now();
        loop {
            let spans = self.spans();
            if spans.len() >= n {
                return spans;
            }
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "only {} spans arrived: {spans:#?}",
                spans.len()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// An OTLP/HTTP receiver on 127.0.0.1: each `POST /v1/traces` is decoded as an
/// `ExportTraceServiceRequest` and answered 200 with an empty `ExportTraceServiceResponse`.
fn receiver() -> (String, Received) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let received = Received::default();
    let keep = received.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            let keep = keep.clone();
            std::thread::spawn(move || serve(stream, &keep));
        }
    });
    (url, received)
}

/// Answers the requests of one connection (HTTP/1.1, kept alive) until the client closes it.
fn serve(stream: TcpStream, received: &Received) {
    stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut writer = stream;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        assert_eq!(line.split_whitespace().take(2).collect::<Vec<_>>(), ["POST", "/v1/traces"], "{line}");
        let mut headers = HashMap::new();
        loop {
            let mut header = String::new();
            reader.read_line(&mut header).unwrap();
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            let (name, value) = header.split_once(':').unwrap();
            headers.insert(name.trim().to_ascii_lowercase(), value.trim().to_owned());
        }
        assert_eq!(headers["content-type"], "application/x-protobuf", "{headers:?}");
        let length: usize = headers["content-length"].parse().unwrap();
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        let request = ExportTraceServiceRequest::decode(body.as_slice()).unwrap();
        let spans = request.resource_spans.iter().flat_map(|r| &r.scope_spans).flat_map(|s| s.spans.clone());
        received.0.lock().unwrap().extend(spans);
        let resource = &request.resource_spans[0].resource.as_ref().unwrap().attributes;
        assert!(
            resource
                .iter()
                .any(|a| a.key == "service.name" && text(a.value.as_ref().unwrap()) == "agent-warden"),
            "{resource:?}"
        );
        let answer = "HTTP/1.1 200 OK\r\ncontent-type: application/x-protobuf\r\ncontent-length: 0\r\n\r\n";
        if writer.write_all(answer.as_bytes()).is_err() {
            return;
        }
    }
}

fn text(value: &opentelemetry_proto::tonic::common::v1::AnyValue) -> String {
    match &value.value {
        Some(Any::StringValue(s)) => s.clone(),
        Some(Any::IntValue(n)) => n.to_string(),
        Some(Any::BoolValue(b)) => b.to_string(),
        other => format!("{other:?}"),
    }
}

/// A span's attributes as text, by key.
fn attributes(span: &Span) -> HashMap<String, String> {
    span.attributes.iter().map(|a| (a.key.clone(), text(a.value.as_ref().unwrap()))).collect()
}

struct Project {
    dir: tempfile::TempDir,
    root: PathBuf,
    store: PathBuf,
}

impl Project {
    fn new() -> Project {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("project");
        committed_example(&root);
        let p = Project { store: dir.path().join("audit"), root, dir };
        p.approve(&p.store);
        p
    }

    fn socket(&self) -> PathBuf {
        self.dir.path().join("run/warden.sock")
    }

    /// `warden ARGS` in the project with `stdin`, the kill switch on, no OTLP variable.
    fn warden(&self, args: &[&str], stdin: &str) -> Output {
        let mut command = Command::new(BIN);
        command
            .args(args)
            .current_dir(&self.root)
            .env_remove("CLAUDECODE")
            .env_remove("AGENTWARDEN_SERVER")
            .env("AGENTWARDEN_ENABLE_SUBAGENTS", "true");
        for (name, _) in std::env::vars().filter(|(name, _)| name.starts_with("OTEL_")) {
            command.env_remove(name);
        }
        let mut child =
            command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
        bounded::bounded(child, BOUND)
    }

    /// Seals and approves on `store`.
    fn approve(&self, store: &Path) {
        let store = store.display().to_string();
        for args in [
            &["--store", &store, "seal", "--by", "alice"][..],
            &["--store", &store, "approve", "--ref", "GATE-2026-11-22-001", "--by", "alice"],
        ] {
            let out = self.warden(args, "");
            assert_eq!(out.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        }
    }

    /// `warden serve` on the project's store with the variables `otel`.
    fn serve(&self, otel: &[(&str, &str)]) -> Child {
        let mut command = Command::new(BIN);
        command
            .args([
                "--store",
                &self.store.display().to_string(),
                "--lock-timeout-ms",
                "300",
                "serve",
                "--socket",
            ])
            .arg(self.socket())
            .args(["--config", "agentwarden.toml"])
            .current_dir(&self.root)
            .env_remove("CLAUDECODE")
            .env("AGENTWARDEN_ENABLE_SUBAGENTS", "true");
        for (name, _) in std::env::vars().filter(|(name, _)| name.starts_with("OTEL_")) {
            command.env_remove(name);
        }
        command.envs(otel.iter().copied());
        command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap()
    }

    /// A server with `otel`, once it answers.
    fn server(&self, otel: &[(&str, &str)]) -> Server {
        let server = Server(Some(self.serve(otel)));
        let started = Instant::now();
        while UnixStream::connect(self.socket()).is_err() {
            assert!(started.elapsed() < Duration::from_secs(20), "the server never answered");
            std::thread::sleep(Duration::from_millis(10));
        }
        server
    }

    /// `warden hook` through the server: (exit code, stdout).
    fn via(&self, input: &str) -> (i32, String) {
        let socket = self.socket().display().to_string();
        let out = self.warden(&["hook", "--config", "agentwarden.toml", "--server", &socket], input);
        (out.status.code().unwrap(), String::from_utf8(out.stdout).unwrap())
    }

    /// `warden hook` directly on `store`: (exit code, stdout).
    fn direct(&self, store: &Path, input: &str) -> (i32, String) {
        let store = store.display().to_string();
        let out = self.warden(&["--store", &store, "hook", "--config", "agentwarden.toml"], input);
        (out.status.code().unwrap(), String::from_utf8(out.stdout).unwrap())
    }

    fn status(&self) -> Value {
        let socket = self.socket().display().to_string();
        let out = self.warden(&["status", "--server", &socket, "--json"], "");
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    }

    /// The store's events, once no server holds it.
    fn events(&self) -> Vec<Value> {
        let store = self.store.display().to_string();
        let out = self.warden(&["--store", &store, "audit", "export", "--format", "jsonl"], "");
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
    }
}

/// A running `warden serve`, killed when dropped.
struct Server(Option<Child>);

impl Server {
    /// SIGTERM, then its exit (bounded), and how long it took.
    fn terminate(mut self) -> (Output, Duration) {
        let child = self.0.take().unwrap();
        let started = Instant::now();
        assert!(Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap().success());
        let out = bounded::bounded(child, BOUND);
        (out, started.elapsed())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(mut child) = self.0.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn event(name: &str) -> String {
    std::fs::read_to_string(Path::new(EXAMPLE).join("events").join(format!("{name}.json"))).unwrap()
}

/// A `Read` by the planner: a subagent's tool call, recorded as `tool_call_authorized`. Its
/// working directory is the project's, absolute as the harness sends it (T-17).
fn read(root: &Path) -> String {
    serde_json::json!({
        "session_id": "demo-session", "hook_event_name": "PreToolUse", "cwd": root,
        "tool_name": "Read", "tool_use_id": "toolu_read", "agent_id": "agent-planner-1",
        "agent_type": "planner", "tool_input": {"file_path": "README.md"}
    })
    .to_string()
}

/// The session: the main session spawns the planner, which reads and spawns the coder, which
/// is refused a researcher (past the depth).
fn session(root: &Path) -> Vec<String> {
    let mut inputs: Vec<String> = ["pre-task-main-planner", "start-planner"].into_iter().map(event).collect();
    inputs.push(read(root));
    inputs.extend(
        ["pre-agent-planner-coder", "start-coder", "pre-task-coder-researcher"].into_iter().map(event),
    );
    inputs
}

/// Each decision is one span with the GenAI conventions' name and attributes and
/// Warden's, its seq that of its event, and the subagents' decisions children of the spawn that
/// started them, all in the session's trace; `warden status` counts them exported (V-62).
#[test]
fn each_decision_is_a_span_parented_along_the_lineage() {
    let (url, received) = receiver();
    let p = Project::new();
    let server = p.server(&[("OTEL_EXPORTER_OTLP_ENDPOINT", &url)]);
    let answers: Vec<_> = session(&p.root).iter().map(|input| p.via(input)).collect();
    assert!(answers[5].1.contains("deny"), "the researcher is refused: {answers:?}");
    let spans = received.wait_for(4);
    let status = p.status();
    let (out, _) = server.terminate();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));

    let by_name = |name: &str| -> Span {
        let found: Vec<_> = spans.iter().filter(|s| s.name == name).collect();
        assert_eq!(found.len(), 1, "one `{name}` span: {spans:#?}");
        found[0].clone()
    };
    let planner = by_name("invoke_agent planner");
    let read = by_name("execute_tool Read");
    let coder = by_name("invoke_agent coder");
    let researcher = by_name("invoke_agent researcher");
    assert_eq!(spans.len(), 4, "the starts are no spans: {spans:#?}");

    let (a, r, c, x) = (attributes(&planner), attributes(&read), attributes(&coder), attributes(&researcher));
    let rows = [
        (&a, "gen_ai.operation.name", "invoke_agent"),
        (&a, "gen_ai.agent.name", "planner"),
        (&a, "gen_ai.tool.call.id", "toolu_01"),
        (&a, "gen_ai.conversation.id", "demo-session"),
        (&a, "warden.decision", "allow"),
        (&a, "warden.event_type", "subagent_spawn_evaluated"),
        (&r, "gen_ai.operation.name", "execute_tool"),
        (&r, "gen_ai.tool.name", "Read"),
        (&r, "gen_ai.agent.id", "agent-planner-1"),
        (&r, "gen_ai.agent.name", "planner"),
        (&r, "warden.decision", "allow"),
        (&r, "warden.event_type", "tool_call_authorized"),
        (&c, "gen_ai.agent.name", "coder"),
        (&c, "warden.caller.agent.id", "agent-planner-1"),
        (&x, "gen_ai.agent.name", "researcher"),
        (&x, "gen_ai.tool.call.id", "toolu_04"),
        (&x, "warden.decision", "deny"),
    ];
    for (attributes, key, want) in rows {
        assert_eq!(attributes.get(key).map(String::as_str), Some(want), "{key}: {attributes:?}");
    }
    let code = x.get("warden.code").expect("a deny names its code");
    assert!(!code.is_empty() && x.contains_key("warden.reason"), "{x:?}");
    let status_code = |s: &Span| s.status.as_ref().map_or(0, |s| s.code);
    assert_eq!(status_code(&researcher), 2, "a deny's span is an error");
    assert_eq!(status_code(&planner), 0, "an allow's is unset");
    assert_eq!(researcher.status.as_ref().unwrap().message, *code);

    // Parented along the lineage, in one trace.
    assert!(planner.parent_span_id.is_empty(), "the main session's spawn is a root");
    assert_eq!(read.parent_span_id, planner.span_id, "the planner's Read under its spawn");
    assert_eq!(coder.parent_span_id, planner.span_id, "the coder's spawn under the planner's");
    assert_eq!(researcher.parent_span_id, coder.span_id, "the researcher's under the coder's");
    for span in [&read, &coder, &researcher] {
        assert_eq!(span.trace_id, planner.trace_id, "one trace per session");
        assert_eq!(span.start_time_unix_nano, span.end_time_unix_nano, "a decision is an instant");
    }

    // The seq is the event's.
    let events = p.events();
    let seq_of = |event_type: &str, key: &str, value: &str| -> String {
        let found: Vec<_> =
            events.iter().filter(|e| e["event_type"] == event_type && e["payload"][key] == value).collect();
        assert_eq!(found.len(), 1, "{event_type} {key}={value}");
        found[0]["seq"].to_string()
    };
    assert_eq!(a["warden.audit.seq"], seq_of("subagent_spawn_evaluated", "tool_use_id", "toolu_01"));
    assert_eq!(x["warden.audit.seq"], seq_of("subagent_spawn_evaluated", "tool_use_id", "toolu_04"));
    assert_eq!(r["warden.audit.seq"], seq_of("tool_call_authorized", "tool", "Read(README.md)"));

    let export = &status["export"];
    assert_eq!(export["endpoint"], format!("{url}/v1/traces"), "{status}");
    assert_eq!(export["exported"], 4, "{status}");
    assert_eq!(export["dropped"], 0, "{status}");
}

/// With the endpoint down, every decision is what direct mode decides, the spans are
/// dropped and counted, and the server stops at once (V-61).
#[test]
fn with_the_endpoint_down_decisions_are_unchanged_and_the_drops_counted() {
    let closed = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1/traces", closed.local_addr().unwrap());
    drop(closed);
    let p = Project::new();
    let direct = p.dir.path().join("direct");
    p.approve(&direct);
    let server = p.server(&[("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", &url)]);
    for input in session(&p.root) {
        let started = Instant::now();
        let served = p.via(&input);
        assert!(started.elapsed() < Duration::from_secs(5), "no decision waits on the export");
        assert_eq!(served, p.direct(&direct, &input), "the same answer as direct mode");
    }
    let started = Instant::now();
    let status = loop {
        let status = p.status();
        if status["export"]["dropped"].as_u64().unwrap() >= 4 {
            break status;
        }
        assert!(started.elapsed() < Duration::from_secs(20), "the drops were never counted: {status}");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status["export"]["exported"], 0, "{status}");
    assert_eq!(status["export"]["dropped"], 4, "{status}");
    assert!(status["export"]["last_error"].is_string(), "{status}");
    let (out, took) = server.terminate();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(took < Duration::from_secs(8), "the stop waited {took:?}");
}

/// A setting this build cannot honour refuses to start the server, naming it; without
/// any endpoint there is no export, and the status says none (V-60).
#[test]
fn an_export_setting_that_cannot_be_honoured_refuses_the_start() {
    let p = Project::new();
    for (name, value) in [
        ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
        ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/json"),
        ("OTEL_TRACES_EXPORTER", "zipkin"),
        ("OTEL_EXPORTER_OTLP_COMPRESSION", "gzip"),
    ] {
        let child = p.serve(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318"), (name, value)]);
        let out = bounded::bounded(child, BOUND);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}={value}: {stderr}");
        assert!(stderr.contains(name), "{name}={value}: {stderr}");
    }
    let server = p.server(&[]);
    let status = p.status();
    assert!(status["export"].is_null(), "{status}");
    drop(server);
}
