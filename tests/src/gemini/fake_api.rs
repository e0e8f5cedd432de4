//! A scripted fake of the Gemini API (`generativelanguage`, v1beta) on 127.0.0.1, for the real
//! Gemini CLI.
//!
//! One small HTTP/1.1 server on `std::net` (a thread per connection, keep-alive, bodies by
//! `Content-Length`), as the Codex fake: `POST …/models/MODEL:streamGenerateContent?alt=sse` is
//! answered from a [`Script`] as one server-sent event holding the whole candidate,
//! `:generateContent` with the same candidate as plain JSON, `:countTokens` with a count;
//! anything else a 404. The same address is Gemini's `HTTPS_PROXY`/`HTTP_PROXY`: a request for
//! another host is refused with 403 and counted as foreign.
//!
//! An agent is known by a marker in a user text of its request (the prompt of `gemini -p`, an
//! `invoke_agent`'s `prompt`); the turn it gets is the count of the model turns its request
//! already holds, one [`Part`] a turn. Past its last turn a subagent (a request offering
//! `complete_task`) calls `complete_task` with `MARKER DONE`, any other agent answers
//! `MARKER DONE`.

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use serde_json::{Value, json};

/// One model turn.
#[derive(Debug, Clone)]
pub enum Part {
    /// A function call of `name` with `args`.
    Call {
        /// The tool (`run_shell_command`, `write_file`, `invoke_agent`, …).
        name: String,
        /// Its arguments.
        args: Value,
    },
    /// A final text.
    Text(String),
    /// Several calls in one turn (Gemini may run them at once).
    Together(Vec<Part>),
}

impl Part {
    /// A call of `name` with `args`.
    pub fn call(name: &str, args: Value) -> Part {
        Part::Call { name: name.into(), args }
    }

    /// The shell (`run_shell_command`) running `command`.
    pub fn shell(command: &str) -> Part {
        Part::call("run_shell_command", json!({"command": command}))
    }

    /// `write_file` of `content` to `file_path`.
    pub fn write(file_path: &str, content: &str) -> Part {
        Part::call("write_file", json!({"file_path": file_path, "content": content}))
    }

    /// `invoke_agent` of the user agent `agent_name` with `prompt`.
    pub fn invoke(agent_name: &str, prompt: &str) -> Part {
        Part::call("invoke_agent", json!({"agent_name": agent_name, "prompt": prompt}))
    }

    /// A subagent's end: `complete_task` with `result`.
    pub fn complete(result: &str) -> Part {
        Part::call("complete_task", json!({"result": result}))
    }
}

/// What each agent says, by the marker in its request's user texts.
#[derive(Debug, Clone, Default)]
pub struct Script {
    agents: Vec<(String, Vec<Part>)>,
}

impl Script {
    /// No agent.
    pub fn new() -> Script {
        Script::default()
    }

    /// The agent whose user texts hold `marker` says `turns`, one a request.
    #[must_use]
    pub fn agent(mut self, marker: &str, turns: Vec<Part>) -> Script {
        self.agents.push((marker.into(), turns));
        self
    }
}

/// The fake server. Dropping it stops accepting connections.
#[derive(Debug)]
pub struct FakeGemini {
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

impl FakeGemini {
    /// Starts the fake on 127.0.0.1 on a free port, answering from `script`.
    pub fn start(script: Script) -> std::io::Result<FakeGemini> {
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
        Ok(FakeGemini { addr, log, foreign, stop, accept: Some(accept) })
    }

    /// `http://127.0.0.1:PORT` (`GOOGLE_GEMINI_BASE_URL`).
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every content request body (`generateContent`, streamed or not) so far, in arrival order.
    pub fn requests(&self) -> Vec<Value> {
        self.log.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// How many requests for another host were refused.
    pub fn foreign_requests(&self) -> usize {
        self.foreign_targets().len()
    }

    /// Each refused request for another host: its method and target (`CONNECT host:443`).
    pub fn foreign_targets(&self) -> Vec<String> {
        self.foreign.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// True if the agent whose user texts hold `marker` made a model call.
    pub fn ran(&self, marker: &str) -> bool {
        self.requests().iter().any(|r| agent_of(r, &[marker.to_owned()]).is_some())
    }

    /// Every `functionResponse.response` any agent was shown for a call of `tool`, each once, in
    /// the order they were first sent.
    pub fn responses_to(&self, tool: &str) -> Vec<Value> {
        let mut seen: Vec<Value> = Vec::new();
        for request in self.requests() {
            let shown = parts(&request)
                .filter_map(|p| p.get("functionResponse"))
                .filter(|r| r.get("name").and_then(Value::as_str) == Some(tool))
                .filter_map(|r| r.get("response").cloned());
            for response in shown {
                if !seen.contains(&response) {
                    seen.push(response);
                }
            }
        }
        seen
    }

    /// Every user text of every request, in order (the prompts, and what a hook made Gemini
    /// say next).
    pub fn user_texts(&self) -> Vec<String> {
        let mut seen: Vec<String> = Vec::new();
        for request in self.requests() {
            for text in user_texts(&request) {
                if !seen.contains(&text) {
                    seen.push(text);
                }
            }
        }
        seen
    }
}

impl Drop for FakeGemini {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        if let Some(accept) = self.accept.take() {
            let _ = accept.join();
        }
    }
}

fn contents(request: &Value) -> &[Value] {
    request.get("contents").and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

fn parts(request: &Value) -> impl Iterator<Item = &Value> {
    contents(request)
        .iter()
        .flat_map(|c| c.get("parts").and_then(Value::as_array).map_or(&[][..], Vec::as_slice))
}

fn user_texts(request: &Value) -> Vec<String> {
    contents(request)
        .iter()
        .filter(|c| c.get("role").and_then(Value::as_str) == Some("user"))
        .flat_map(|c| c.get("parts").and_then(Value::as_array).map_or(&[][..], Vec::as_slice))
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .map(str::to_owned)
        .collect()
}

/// The marker of the first user text that holds one.
fn agent_of(request: &Value, markers: &[String]) -> Option<String> {
    user_texts(request).iter().find_map(|text| markers.iter().find(|m| text.contains(m.as_str())).cloned())
}

/// True when the request offers `complete_task`: a subagent's.
fn is_subagent(request: &Value) -> bool {
    request
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|t| t.get("functionDeclarations").and_then(Value::as_array))
        .flatten()
        .any(|f| f.get("name").and_then(Value::as_str) == Some("complete_task"))
}

/// The candidate's parts the request gets.
fn answer(shared: &Shared, request: &Value) -> Value {
    let markers: Vec<String> = shared.script.agents.iter().map(|(m, _)| m.clone()).collect();
    let marker = agent_of(request, &markers);
    let turn =
        contents(request).iter().filter(|c| c.get("role").and_then(Value::as_str) == Some("model")).count();
    let turns = shared.script.agents.iter().find(|(m, _)| Some(m) == marker.as_ref()).map(|(_, t)| t);
    let done = format!("{} DONE", marker.unwrap_or_default());
    match turns.and_then(|t| t.get(turn)) {
        Some(Part::Together(parts)) => Value::Array(parts.iter().map(part_json).collect()),
        Some(part) => json!([part_json(part)]),
        None if is_subagent(request) => {
            json!([{"functionCall": {"name": "complete_task", "args": {"result": done}}}])
        }
        None => json!([{"text": done}]),
    }
}

/// One part of a model turn as the API sends it.
fn part_json(part: &Part) -> Value {
    match part {
        Part::Call { name, args } => json!({"functionCall": {"name": name, "args": args}}),
        Part::Text(text) => json!({"text": text}),
        Part::Together(parts) => Value::Array(parts.iter().map(part_json).collect()),
    }
}

fn candidate(parts: &Value) -> Value {
    json!({
        "candidates": [{"content": {"parts": parts, "role": "model"}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}
    })
}

/// Serves one keep-alive connection until the client closes it.
fn serve(shared: &Shared, stream: TcpStream) -> std::io::Result<()> {
    crate::fake_http::serve(stream, shared.addr, |request| {
        let (method, target) = (request.method.as_str(), request.target.as_str());
        let path = target.split('?').next().unwrap_or_default();
        if request.foreign {
            shared.foreign.lock().unwrap_or_else(PoisonError::into_inner).push(format!("{method} {target}"));
            ("403 Forbidden", "text/plain", b"only loopback is reachable in this test".to_vec())
        } else if method == "POST" && path.ends_with(":countTokens") {
            ("200 OK", "application/json", json!({"totalTokens": 10}).to_string().into_bytes())
        } else if method == "POST"
            && (path.ends_with(":streamGenerateContent") || path.ends_with(":generateContent"))
        {
            let parsed: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
            let reply = candidate(&answer(shared, &parsed));
            shared.log.lock().unwrap_or_else(PoisonError::into_inner).push(parsed);
            if path.ends_with(":streamGenerateContent") {
                ("200 OK", "text/event-stream", format!("data: {reply}\r\n\r\n").into_bytes())
            } else {
                ("200 OK", "application/json", reply.to_string().into_bytes())
            }
        } else {
            ("404 Not Found", "text/plain", b"not part of the fake".to_vec())
        }
    })
}
