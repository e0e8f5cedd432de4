//! A scripted fake of the OpenAI Responses API on 127.0.0.1, for the real Codex CLI.
//!
//! One small HTTP/1.1 server on `std::net` (a thread per connection, keep-alive, bodies by
//! `Content-Length`): `POST …/responses` is answered from a [`Script`] as server-sent events
//! (`response.created`, `response.output_item.added`/`.done`, `response.completed`); anything
//! else a 404. The same address is Codex's `HTTPS_PROXY`/`HTTP_PROXY`: a request for another
//! host (Codex 0.169.0 tries a few at start) is refused with 403 and counted as foreign.
//!
//! An agent is known by a marker in its first user message (the prompt of `codex exec`, a
//! spawn's `message`); the turn it gets is the count of the calls and assistant messages its
//! request already holds, one [`Item`] a turn. Past its last turn it answers `MARKER DONE`.
//! `$AGENT_ID` in a call's arguments is the last `agent_id` a tool output named (a spawn's).

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use serde_json::{Value, json};

/// One model turn.
#[derive(Debug, Clone)]
pub enum Item {
    /// A function call: `namespace` for Codex's namespaced tools (`multi_agent_v1` for
    /// `spawn_agent`, `wait_agent`, …).
    Call {
        /// Its `call_id` (`None`: a fresh one).
        id: Option<String>,
        /// The tool's namespace.
        namespace: Option<String>,
        /// The tool.
        name: String,
        /// Its arguments.
        arguments: Value,
    },
    /// A call of the freeform `apply_patch` tool with this patch.
    Patch {
        /// Its `call_id`.
        id: Option<String>,
        /// The patch text.
        patch: String,
    },
    /// A final message.
    Text(String),
}

impl Item {
    /// The shell (`exec_command`) running `cmd`.
    pub fn shell(id: &str, cmd: &str) -> Item {
        Item::Call {
            id: Some(id.into()),
            namespace: None,
            name: "exec_command".into(),
            arguments: json!({"cmd": cmd}),
        }
    }

    /// A multi-agent v1 tool (`spawn_agent`, `wait_agent`, `send_input`, `close_agent`).
    pub fn agents(id: &str, name: &str, arguments: Value) -> Item {
        Item::Call {
            id: Some(id.into()),
            namespace: Some("multi_agent_v1".into()),
            name: name.into(),
            arguments,
        }
    }

    /// A spawn of `agent_type` with `message`.
    pub fn spawn(id: &str, agent_type: &str, message: &str) -> Item {
        Item::agents(
            id,
            "spawn_agent",
            json!({"message": message, "agent_type": agent_type, "fork_context": false}),
        )
    }

    /// A wait for the agent last spawned.
    pub fn wait(id: &str) -> Item {
        Item::agents(id, "wait_agent", json!({"targets": ["$AGENT_ID"], "timeout_ms": 30000}))
    }

    /// `apply_patch` with `patch`.
    pub fn patch(id: &str, patch: &str) -> Item {
        Item::Patch { id: Some(id.into()), patch: patch.into() }
    }
}

/// What each agent says, by the marker in its first message.
#[derive(Debug, Clone, Default)]
pub struct Script {
    agents: Vec<(String, Vec<Item>)>,
}

impl Script {
    /// No agent.
    pub fn new() -> Script {
        Script::default()
    }

    /// The agent whose first message holds `marker` says `turns`, one a request.
    #[must_use]
    pub fn agent(mut self, marker: &str, turns: Vec<Item>) -> Script {
        self.agents.push((marker.into(), turns));
        self
    }
}

/// The fake server. Dropping it stops accepting connections.
#[derive(Debug)]
pub struct FakeResponses {
    addr: SocketAddr,
    log: Arc<Mutex<Vec<Value>>>,
    foreign: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
}

struct Shared {
    script: Script,
    log: Arc<Mutex<Vec<Value>>>,
    foreign: Arc<AtomicU64>,
    ids: AtomicU64,
    addr: SocketAddr,
}

impl FakeResponses {
    /// Starts the fake on 127.0.0.1 on a free port, answering from `script`.
    pub fn start(script: Script) -> std::io::Result<FakeResponses> {
        let listener = TcpListener::bind(("127.0.0.1", 0))?;
        let addr = listener.local_addr()?;
        let log = Arc::new(Mutex::new(Vec::new()));
        let foreign = Arc::new(AtomicU64::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let shared = Arc::new(Shared {
            script,
            log: Arc::clone(&log),
            foreign: Arc::clone(&foreign),
            ids: AtomicU64::new(1),
            addr,
        });
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
        Ok(FakeResponses { addr, log, foreign, stop, accept: Some(accept) })
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every `responses` request body so far, in arrival order.
    pub fn requests(&self) -> Vec<Value> {
        self.log.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// How many requests for another host were refused.
    pub fn foreign_requests(&self) -> u64 {
        self.foreign.load(Ordering::SeqCst)
    }

    /// True if the agent whose first message holds `marker` made a model call.
    pub fn ran(&self, marker: &str) -> bool {
        self.requests().iter().any(|r| agent_of(r, &[marker.to_owned()]).is_some())
    }

    /// The output the model was shown for the call `call_id`, if it was.
    pub fn output_of(&self, call_id: &str) -> Option<String> {
        self.requests().iter().find_map(|request| {
            items(request).iter().find_map(|item| {
                let kind = item.get("type").and_then(Value::as_str).unwrap_or_default();
                let matches = item.get("call_id").and_then(Value::as_str) == Some(call_id);
                (matches && kind.ends_with("_output")).then(|| match item.get("output") {
                    Some(Value::String(s)) => s.clone(),
                    Some(other) => other.to_string(),
                    None => String::new(),
                })
            })
        })
    }

    /// Every user message the agent whose first message holds `marker` was shown in its
    /// latest request.
    pub fn user_texts_of(&self, marker: &str) -> Vec<String> {
        let requests = self.requests();
        let Some(last) = requests.iter().rev().find(|r| agent_of(r, &[marker.to_owned()]).is_some()) else {
            return Vec::new();
        };
        items(last).iter().filter(|i| is_user(i)).flat_map(texts).collect()
    }
}

impl Drop for FakeResponses {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        if let Some(accept) = self.accept.take() {
            let _ = accept.join();
        }
    }
}

fn items(request: &Value) -> &[Value] {
    request.get("input").and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

fn is_user(item: &Value) -> bool {
    item.get("type").and_then(Value::as_str) == Some("message")
        && item.get("role").and_then(Value::as_str) == Some("user")
}

fn texts(item: &Value) -> Vec<String> {
    match item.get("content") {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(parts)) => {
            parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).map(str::to_owned).collect()
        }
        _ => Vec::new(),
    }
}

/// The marker of the first user message that holds one.
fn agent_of(request: &Value, markers: &[String]) -> Option<String> {
    items(request)
        .iter()
        .filter(|i| is_user(i))
        .flat_map(texts)
        .find_map(|text| markers.iter().find(|m| text.contains(m.as_str())).cloned())
}

/// The last `agent_id` a tool output of the request names.
fn last_agent_id(request: &Value) -> Option<String> {
    let outputs: Vec<String> = items(request)
        .iter()
        .filter(|i| i.get("type").and_then(Value::as_str).is_some_and(|t| t.ends_with("_output")))
        .map(|i| {
            i.get("output")
                .map(|o| o.as_str().map_or_else(|| o.to_string(), str::to_owned))
                .unwrap_or_default()
        })
        .collect();
    outputs.iter().rev().find_map(|output| {
        let parsed: Value = serde_json::from_str(output).ok()?;
        parsed.get("agent_id").and_then(Value::as_str).map(str::to_owned)
    })
}

fn substitute(value: &Value, agent_id: &str) -> Value {
    match value {
        Value::String(s) => Value::String(s.replace("$AGENT_ID", agent_id)),
        Value::Array(items) => Value::Array(items.iter().map(|v| substitute(v, agent_id)).collect()),
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), substitute(v, agent_id))).collect())
        }
        other => other.clone(),
    }
}

/// The output item the request gets.
fn answer(shared: &Shared, request: &Value) -> Value {
    let markers: Vec<String> = shared.script.agents.iter().map(|(m, _)| m.clone()).collect();
    let marker = agent_of(request, &markers);
    let turn = items(request)
        .iter()
        .filter(|i| {
            let kind = i.get("type").and_then(Value::as_str).unwrap_or_default();
            kind == "function_call"
                || kind == "custom_tool_call"
                || (kind == "message" && i.get("role").and_then(Value::as_str) == Some("assistant"))
        })
        .count();
    let turns = shared.script.agents.iter().find(|(m, _)| Some(m) == marker.as_ref()).map(|(_, t)| t);
    let n = shared.ids.fetch_add(1, Ordering::SeqCst);
    let agent_id = last_agent_id(request).unwrap_or_else(|| "none".into());
    match turns.and_then(|t| t.get(turn)) {
        Some(Item::Call { id, namespace, name, arguments }) => {
            let call_id = id.clone().unwrap_or_else(|| format!("call_fake_{n}"));
            let mut item = json!({"type": "function_call", "id": format!("fc_{n}"), "name": name,
                "arguments": substitute(arguments, &agent_id).to_string(), "call_id": call_id});
            if let (Some(ns), Some(object)) = (namespace, item.as_object_mut()) {
                object.insert("namespace".into(), ns.clone().into());
            }
            item
        }
        Some(Item::Patch { id, patch }) => {
            let call_id = id.clone().unwrap_or_else(|| format!("call_fake_{n}"));
            json!({"type": "custom_tool_call", "id": format!("ct_{n}"), "name": "apply_patch",
                   "input": patch, "call_id": call_id})
        }
        Some(Item::Text(text)) => message(n, text),
        None => message(n, &format!("{} DONE", marker.unwrap_or_default())),
    }
}

fn message(n: u64, text: &str) -> Value {
    json!({"type": "message", "role": "assistant", "id": format!("msg_{n}"),
           "content": [{"type": "output_text", "text": text, "annotations": []}]})
}

fn sse(item: &Value, n: u64) -> Vec<u8> {
    let id = format!("resp_{n}");
    let events = [
        ("response.created", json!({"type": "response.created", "response": {"id": id}})),
        (
            "response.output_item.added",
            json!({"type": "response.output_item.added", "output_index": 0, "item": item}),
        ),
        (
            "response.output_item.done",
            json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
        ),
        (
            "response.completed",
            json!({"type": "response.completed", "response": {"id": id, "usage": {
                "input_tokens": 10, "input_tokens_details": null, "output_tokens": 5,
                "output_tokens_details": null, "total_tokens": 15}}}),
        ),
    ];
    events
        .iter()
        .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
        .collect::<String>()
        .into_bytes()
}

/// Serves one keep-alive connection until the client closes it.
fn serve(shared: &Shared, stream: TcpStream) -> std::io::Result<()> {
    crate::fake_http::serve(stream, shared.addr, |request| {
        if request.foreign {
            shared.foreign.fetch_add(1, Ordering::SeqCst);
            ("403 Forbidden", "text/plain", b"only loopback is reachable in this test".to_vec())
        } else if request.method == "POST" && request.target.ends_with("/responses") {
            let parsed: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
            let item = answer(shared, &parsed);
            shared.log.lock().unwrap_or_else(PoisonError::into_inner).push(parsed);
            ("200 OK", "text/event-stream", sse(&item, shared.ids.fetch_add(1, Ordering::SeqCst)))
        } else {
            ("404 Not Found", "text/plain", b"not part of the fake".to_vec())
        }
    })
}
