//! A scripted fake of the Anthropic Messages API on 127.0.0.1, for the real Claude Code CLI.
//!
//! One small HTTP/1.1 server on `std::net` (a thread per connection, keep-alive, bodies by
//! `Content-Length` or chunked): `POST /v1/messages` is answered from a [`Script`], streamed as
//! server-sent events when the request asks for `stream` (it always did in 2.1.330), as one JSON
//! message otherwise; `…/count_tokens` gets a small count; anything else a 404. Every request is
//! logged ([`FakeApi::requests`]) so that a test can assert what the model was shown: which agents
//! ran, which tool results (and denial reasons) reached them, which stop feedback they got.
//!
//! The same address is given to the client as `HTTPS_PROXY`/`HTTP_PROXY`: a request for any
//! other host (a `CONNECT`, an absolute-form target, a foreign `Host`) is refused with 403 and
//! logged as foreign ([`FakeApi::foreign_requests`]), so a test can check that the client talked
//! to loopback only (ruling H-42).

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use serde_json::{Value, json};

use super::request::{LoggedRequest, ToolResult, text_of};
use super::script::{Block, Script};

/// The fake server. Dropping it stops accepting connections.
#[derive(Debug)]
pub struct FakeApi {
    addr: SocketAddr,
    log: Arc<Mutex<Vec<LoggedRequest>>>,
    stop: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
}

impl FakeApi {
    /// Starts the fake on 127.0.0.1 on a free port, answering from `script`.
    pub fn start(script: Script) -> std::io::Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", 0))?;
        let addr = listener.local_addr()?;
        let log = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let shared = Arc::new(Shared { script, log: Arc::clone(&log), ids: AtomicU64::new(1), addr });
        let stop_flag = Arc::clone(&stop);
        let accept = std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stop_flag.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let shared = Arc::clone(&shared);
                std::thread::spawn(move || {
                    // A connection that fails mid-request is the client's problem to report.
                    let _ = serve(&shared, stream);
                });
            }
        });
        Ok(Self { addr, log, stop, accept: Some(accept) })
    }

    /// `http://127.0.0.1:PORT`, for `ANTHROPIC_BASE_URL` and the proxy variables.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<LoggedRequest> {
        self.log.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// The requests addressed to another host (each refused).
    pub fn foreign_requests(&self) -> Vec<LoggedRequest> {
        self.requests().into_iter().filter(|r| r.foreign).collect()
    }

    /// True if the agent whose first message holds `marker` made at least one model call.
    pub fn ran(&self, marker: &str) -> bool {
        self.requests().iter().any(|r| r.is_agent(marker))
    }

    /// How many model calls the agent whose first message holds `marker` made.
    pub fn calls_of(&self, marker: &str) -> usize {
        self.requests().iter().filter(|r| r.is_agent(marker)).count()
    }

    /// Every tool result any agent was shown, once each, in the order first seen.
    pub fn tool_results(&self) -> Vec<ToolResult> {
        let mut seen: Vec<ToolResult> = Vec::new();
        for request in self.requests() {
            for message in request.messages() {
                let Some(blocks) = message.get("content").and_then(Value::as_array) else { continue };
                for block in
                    blocks.iter().filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
                {
                    let id = block.get("tool_use_id").and_then(Value::as_str).unwrap_or_default().to_owned();
                    if seen.iter().any(|r| r.tool_use_id == id) {
                        continue;
                    }
                    let text = text_of(block.get("content"));
                    let is_error = block.get("is_error").and_then(Value::as_bool).unwrap_or(false);
                    seen.push(ToolResult { tool_use_id: id, text, is_error });
                }
            }
        }
        seen
    }

    /// The result of the tool call the script made with `id` (see [`Block::tool_with_id`]).
    pub fn tool_result(&self, id: &str) -> Option<ToolResult> {
        self.tool_results().into_iter().find(|r| r.tool_use_id == id)
    }

    /// Every user-side text the agent whose first message holds `marker` was shown, in its
    /// latest request (its prompt, hook feedback such as `Stop hook feedback: …`, reminders).
    pub fn texts_seen_by(&self, marker: &str) -> Vec<String> {
        let requests = self.requests();
        let Some(last) = requests.iter().rev().find(|r| r.is_agent(marker)) else { return Vec::new() };
        last.messages()
            .iter()
            .filter(|m| m.get("role").and_then(Value::as_str) == Some("user"))
            .map(|m| text_of(m.get("content")))
            .collect()
    }
}

impl Drop for FakeApi {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        if let Some(accept) = self.accept.take() {
            let _ = accept.join();
        }
    }
}

struct Shared {
    script: Script,
    log: Arc<Mutex<Vec<LoggedRequest>>>,
    ids: AtomicU64,
    addr: SocketAddr,
}

/// Serves one keep-alive connection until the client closes it.
fn serve(shared: &Shared, stream: TcpStream) -> std::io::Result<()> {
    crate::fake_http::serve(stream, shared.addr, |request| {
        let crate::fake_http::Request { method, target, host, body, foreign } = request;
        let body_json = serde_json::from_slice::<Value>(&body).ok();
        let logged =
            LoggedRequest { method: method.clone(), target: target.clone(), host, body: body_json, foreign };
        shared.log.lock().unwrap_or_else(PoisonError::into_inner).push(logged.clone());
        if foreign {
            ("403 Forbidden", "application/json", error_body("only loopback is reachable in this test"))
        } else if method == "POST" && target.starts_with("/v1/messages/count_tokens") {
            ("200 OK", "application/json", json!({"input_tokens": 10}).to_string().into_bytes())
        } else if method == "POST" && target.starts_with("/v1/messages") {
            let turn = shared.script.decide(&logged);
            let blocks = turn.blocks(&logged, &shared.ids);
            let streaming =
                logged.body.as_ref().and_then(|b| b.get("stream")).and_then(Value::as_bool) == Some(true);
            if streaming {
                ("200 OK", "text/event-stream", sse(&blocks, &shared.ids))
            } else {
                ("200 OK", "application/json", whole_message(&blocks, &shared.ids))
            }
        } else {
            ("404 Not Found", "application/json", error_body("not part of the fake"))
        }
    })
}

fn error_body(message: &str) -> Vec<u8> {
    json!({"type": "error", "error": {"type": "not_found_error", "message": message}})
        .to_string()
        .into_bytes()
}

fn stop_reason(blocks: &[Value]) -> &'static str {
    if blocks.iter().any(|b| b.get("type").and_then(Value::as_str) == Some("tool_use")) {
        "tool_use"
    } else {
        "end_turn"
    }
}

fn whole_message(blocks: &[Value], ids: &AtomicU64) -> Vec<u8> {
    json!({
        "id": format!("msg_fake_{}", ids.fetch_add(1, Ordering::SeqCst)),
        "type": "message", "role": "assistant", "model": "claude-fake",
        "content": blocks, "stop_reason": stop_reason(blocks), "stop_sequence": null,
        "usage": {"input_tokens": 10, "output_tokens": 5}
    })
    .to_string()
    .into_bytes()
}

/// The turn as the streaming protocol sends it: `message_start`, per block
/// `content_block_start` / one delta / `content_block_stop`, `message_delta`, `message_stop`.
fn sse(blocks: &[Value], ids: &AtomicU64) -> Vec<u8> {
    let mut out = String::new();
    let mut event = |name: &str, data: Value| out.push_str(&format!("event: {name}\ndata: {data}\n\n"));
    event(
        "message_start",
        json!({"type": "message_start", "message": {
            "id": format!("msg_fake_{}", ids.fetch_add(1, Ordering::SeqCst)),
            "type": "message", "role": "assistant", "model": "claude-fake", "content": [],
            "stop_reason": null, "stop_sequence": null, "usage": {"input_tokens": 10, "output_tokens": 1}}}),
    );
    for (index, block) in blocks.iter().enumerate() {
        if block.get("type").and_then(Value::as_str) == Some("tool_use") {
            let start =
                json!({"type": "tool_use", "id": block.get("id"), "name": block.get("name"), "input": {}});
            event(
                "content_block_start",
                json!({"type": "content_block_start", "index": index, "content_block": start}),
            );
            let partial = block.get("input").map(Value::to_string).unwrap_or_else(|| "{}".into());
            event(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": index,
                       "delta": {"type": "input_json_delta", "partial_json": partial}}),
            );
        } else {
            event(
                "content_block_start",
                json!({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}}),
            );
            event(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": index,
                       "delta": {"type": "text_delta", "text": block.get("text")}}),
            );
        }
        event("content_block_stop", json!({"type": "content_block_stop", "index": index}));
    }
    event(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": stop_reason(blocks), "stop_sequence": null},
               "usage": {"output_tokens": 5}}),
    );
    event("message_stop", json!({"type": "message_stop"}));
    out.into_bytes()
}

impl Block {
    fn to_json(&self, request: &LoggedRequest, ids: &AtomicU64) -> Value {
        match self {
            Self::Text(text) => json!({"type": "text", "text": text}),
            Self::ToolUse { id, name, input } => {
                let id = id
                    .clone()
                    .unwrap_or_else(|| format!("toolu_fake_{}", ids.fetch_add(1, Ordering::SeqCst)));
                json!({"type": "tool_use", "id": id, "name": name, "input": substitute(input, request)})
            }
        }
    }
}

impl super::script::Turn {
    fn blocks(&self, request: &LoggedRequest, ids: &AtomicU64) -> Vec<Value> {
        self.0.iter().map(|b| b.to_json(request, ids)).collect()
    }
}

/// Replaces `$AGENT_ID` in every string of `input` with the last agent id the conversation
/// names (`agentId: …` in a tool result), so a script can `SendMessage` to an agent it spawned.
fn substitute(input: &Value, request: &LoggedRequest) -> Value {
    match input {
        Value::String(s) if s.contains("$AGENT_ID") => {
            Value::String(s.replace("$AGENT_ID", &last_agent_id(request).unwrap_or_default()))
        }
        Value::Array(items) => Value::Array(items.iter().map(|v| substitute(v, request)).collect()),
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), substitute(v, request))).collect())
        }
        other => other.clone(),
    }
}

/// The last `agentId: <id>` in the request's messages.
pub fn last_agent_id(request: &LoggedRequest) -> Option<String> {
    let text = Value::Array(request.messages().to_vec()).to_string();
    text.rmatch_indices("agentId: ").next().map(|(at, needle)| {
        text.get(at + needle.len()..)
            .unwrap_or_default()
            .chars()
            .take_while(char::is_ascii_alphanumeric)
            .collect()
    })
}
