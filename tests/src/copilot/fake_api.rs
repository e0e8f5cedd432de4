//! A scripted fake of an OpenAI-compatible chat-completions API on 127.0.0.1, for the real
//! Copilot CLI (`COPILOT_PROVIDER_TYPE=openai`, `COPILOT_PROVIDER_BASE_URL=…/v1`).
//!
//! On the shared [`crate::fake_http`] server: `POST /v1/chat/completions` is answered from a
//! [`Script`] as server-sent OpenAI chunks (`chat.completion.chunk`, then `data: [DONE]`),
//! `GET /v1/models` with the one model; anything else a 404. The same address is Copilot's
//! proxy: a request for another host is refused with 403 and counted as foreign.
//!
//! An agent is known by a marker in the first user message of its request (the prompt of
//! `copilot -p`, a `task`'s `prompt`); the turn it gets is the count of the assistant messages its
//! request already holds, one [`Turn`] a request. Past its last turn an agent answers
//! `MARKER DONE`.

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use serde_json::{Value, json};

/// One model turn.
#[derive(Debug, Clone)]
pub enum Turn {
    /// A call of Copilot's tool `name` (`bash`, `create`, `task`, …) with `args`.
    Call {
        /// The tool, by Copilot's own name.
        name: String,
        /// Its arguments.
        args: Value,
    },
    /// A final text.
    Text(String),
}

impl Turn {
    /// A call of `name` with `args`.
    pub fn call(name: &str, args: Value) -> Turn {
        Turn::Call { name: name.into(), args }
    }

    /// The shell (`bash`) running `command`.
    pub fn shell(command: &str) -> Turn {
        Turn::call("bash", json!({"command": command, "description": "run"}))
    }

    /// `create` of `file_text` at `path`.
    pub fn create(path: &str, file_text: &str) -> Turn {
        Turn::call("create", json!({"path": path, "file_text": file_text}))
    }

    /// `task` spawning an agent of `agent_type` with `prompt`.
    pub fn task(agent_type: &str, prompt: &str) -> Turn {
        Turn::call(
            "task",
            json!({"name": agent_type, "description": "a subtask", "prompt": prompt, "agent_type": agent_type}),
        )
    }
}

/// What each agent says, by the marker in its first user message.
#[derive(Debug, Clone, Default)]
pub struct Script {
    agents: Vec<(String, Vec<Turn>)>,
}

impl Script {
    /// No agent.
    pub fn new() -> Script {
        Script::default()
    }

    /// The agent whose first user message holds `marker` says `turns`, one a request.
    #[must_use]
    pub fn agent(mut self, marker: &str, turns: Vec<Turn>) -> Script {
        self.agents.push((marker.into(), turns));
        self
    }
}

/// The fake server. Dropping it stops accepting connections.
#[derive(Debug)]
pub struct FakeCopilotApi {
    addr: SocketAddr,
    log: Arc<Mutex<Vec<Value>>>,
    foreign: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
}

struct Shared {
    script: Script,
    log: Arc<Mutex<Vec<Value>>>,
    foreign: Arc<Mutex<Vec<String>>>,
    addr: SocketAddr,
}

impl FakeCopilotApi {
    /// Starts the fake on 127.0.0.1 on a free port, answering from `script`.
    pub fn start(script: Script) -> std::io::Result<FakeCopilotApi> {
        let listener = TcpListener::bind(("127.0.0.1", 0))?;
        let addr = listener.local_addr()?;
        let log = Arc::new(Mutex::new(Vec::new()));
        let foreign = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let shared = Arc::new(Shared { script, log: Arc::clone(&log), foreign: Arc::clone(&foreign), addr });
        let stop_flag = Arc::clone(&stop);
        let accept = std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stop_flag.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let shared = Arc::clone(&shared);
                std::thread::spawn(move || {
                    let _ = serve(&shared, stream);
                });
            }
        });
        Ok(FakeCopilotApi { addr, log, foreign, stop, accept: Some(accept) })
    }

    /// `http://127.0.0.1:PORT` (the proxy).
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// `http://127.0.0.1:PORT/v1` (`COPILOT_PROVIDER_BASE_URL`).
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Every chat-completions request body so far, in arrival order.
    pub fn requests(&self) -> Vec<Value> {
        self.log.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Each refused request for another host: its method and target.
    pub fn foreign_targets(&self) -> Vec<String> {
        self.foreign.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// True if the agent whose first user message holds `marker` made a model call.
    pub fn ran(&self, marker: &str) -> bool {
        self.requests().iter().any(|r| first_user(r).contains(marker))
    }

    /// Every tool result any agent was shown (`role: tool` messages), each once, in order.
    pub fn tool_results(&self) -> Vec<String> {
        let mut seen: Vec<String> = Vec::new();
        for request in self.requests() {
            for message in messages(&request) {
                if message.get("role").and_then(Value::as_str) == Some("tool") {
                    let text = content_text(message);
                    if !seen.contains(&text) {
                        seen.push(text);
                    }
                }
            }
        }
        seen
    }
}

impl Drop for FakeCopilotApi {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        if let Some(accept) = self.accept.take() {
            let _ = accept.join();
        }
    }
}

fn messages(request: &Value) -> &[Value] {
    request.get("messages").and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

/// A message's content as text: a string, or the texts of its parts.
fn content_text(message: &Value) -> String {
    match message.get("content") {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => {
            parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("\n")
        }
        _ => String::new(),
    }
}

/// The first user message's text.
fn first_user(request: &Value) -> String {
    messages(request)
        .iter()
        .find(|m| m.get("role").and_then(Value::as_str) == Some("user"))
        .map(content_text)
        .unwrap_or_default()
}

/// One SSE chunk with `delta` and `finish`.
fn chunk(delta: &Value, finish: Option<&str>) -> String {
    let chunk = json!({
        "id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1, "model": super::MODEL,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    });
    format!("data: {chunk}\n\n")
}

/// The streamed answer the request gets.
fn answer(shared: &Shared, request: &Value) -> String {
    let first = first_user(request);
    let found = shared.script.agents.iter().find(|(marker, _)| first.contains(marker.as_str()));
    let marker = found.map(|(m, _)| m.clone()).unwrap_or_default();
    let turn = messages(request)
        .iter()
        .filter(|m| m.get("role").and_then(Value::as_str) == Some("assistant"))
        .count();
    let mut out = String::new();
    match found.and_then(|(_, turns)| turns.get(turn)) {
        Some(Turn::Call { name, args }) => {
            let call = json!({"index": 0, "id": format!("call_{turn}_{}", marker.len()), "type": "function",
                              "function": {"name": name, "arguments": args.to_string()}});
            out.push_str(&chunk(&json!({"role": "assistant", "content": null, "tool_calls": [call]}), None));
            out.push_str(&chunk(&json!({}), Some("tool_calls")));
        }
        Some(Turn::Text(text)) => {
            out.push_str(&chunk(&json!({"role": "assistant", "content": text}), None));
            out.push_str(&chunk(&json!({}), Some("stop")));
        }
        None => {
            out.push_str(&chunk(&json!({"role": "assistant", "content": format!("{marker} DONE")}), None));
            out.push_str(&chunk(&json!({}), Some("stop")));
        }
    }
    let usage = json!({"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1,
                       "model": super::MODEL, "choices": [],
                       "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}});
    out.push_str(&format!("data: {usage}\n\ndata: [DONE]\n\n"));
    out
}

/// Serves one keep-alive connection until the client closes it.
fn serve(shared: &Shared, stream: TcpStream) -> std::io::Result<()> {
    crate::fake_http::serve(stream, shared.addr, |request| {
        let (method, target) = (request.method.as_str(), request.target.as_str());
        let path = target.split('?').next().unwrap_or_default();
        if request.foreign {
            shared.foreign.lock().unwrap_or_else(PoisonError::into_inner).push(format!("{method} {target}"));
            ("403 Forbidden", "text/plain", b"only loopback is reachable in this test".to_vec())
        } else if method == "GET" && path == "/v1/models" {
            let models = json!({"object": "list", "data": [{"id": super::MODEL, "object": "model"}]});
            ("200 OK", "application/json", models.to_string().into_bytes())
        } else if method == "POST" && path == "/v1/chat/completions" {
            let parsed: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
            let reply = answer(shared, &parsed);
            shared.log.lock().unwrap_or_else(PoisonError::into_inner).push(parsed);
            ("200 OK", "text/event-stream", reply.into_bytes())
        } else {
            ("404 Not Found", "text/plain", b"not part of the fake".to_vec())
        }
    })
}
