//! `warden witness serve` against slow clients (issue 47, item 7; A-46), through the real binary
//! and real sockets: a crowd that trickles one byte every 3 s, from one address or from many,
//! never keeps a genuine `add-checkpoint` from its answer for longer than a request's deadline,
//! and every connection that has not sent its whole request by its deadline is closed.

#![expect(clippy::unwrap_used, reason = "test code: a failed unwrap is a failed test")]

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

const ORIGIN: &str = "test.example/warden/audit";
/// The whole request must arrive within this long of the connection.
const DEADLINE: Duration = Duration::from_secs(10);
/// Slack for a loaded machine past the deadline.
const SLACK: Duration = Duration::from_secs(3);
/// How often the crowd sends its next byte.
const TRICKLE: Duration = Duration::from_secs(3);

fn warden(store: &Path, args: &[&str]) -> String {
    let output: Output = Command::new(env!("CARGO_BIN_EXE_warden"))
        .arg("--store")
        .arg(store)
        .args(args)
        .env_remove("AGENTWARDEN_STORE")
        .env_remove("RUST_LOG")
        .env("XDG_CONFIG_HOME", "/nonexistent-config")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

/// A log of a few events, a witness serving it, and a genuine `add-checkpoint` body.
struct Setup {
    _dir: tempfile::TempDir,
    witness: std::process::Child,
    addr: SocketAddr,
    request: String,
}

impl Drop for Setup {
    fn drop(&mut self) {
        let _ = self.witness.kill();
        let _ = self.witness.wait();
    }
}

fn setup() -> Setup {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| -> PathBuf { dir.path().join(name) };
    let store = path("audit");
    let log_key = path("log.key");
    let log = warden(&store, &["audit", "keygen", "--origin", ORIGIN, "--out", log_key.to_str().unwrap()]);
    for i in 0..3 {
        warden(&store, &["audit", "note", &format!("note {i}")]);
    }
    let checkpoint = path("3.txt");
    std::fs::write(&checkpoint, warden(&store, &["audit", "checkpoint", "--key", log_key.to_str().unwrap()]))
        .unwrap();
    let request = warden(
        &store,
        &["audit", "witness-request", "--old", "0", "--checkpoint", checkpoint.to_str().unwrap()],
    );
    let witness_key = path("w.key");
    warden(
        &store,
        &["witness", "keygen", "--name", "witness.example/slow", "--out", witness_key.to_str().unwrap()],
    );
    let mut witness = Command::new(env!("CARGO_BIN_EXE_warden"))
        .args(["witness", "serve", "--listen", "127.0.0.1:0", "--key"])
        .arg(&witness_key)
        .arg("--state")
        .arg(path("state"))
        .args(["--log", log.trim_end()])
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(witness.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let addr = line.trim().trim_start_matches("witnessing on http://").trim_end_matches("/add-checkpoint");
    Setup { addr: addr.parse().unwrap(), witness, request, _dir: dir }
}

/// One slow client from `from`: sends `prefix` at once, then one byte of `trickle` every 3 s,
/// until the witness closes the connection or `within` has passed. When it was closed, counted
/// from the start of the connection (`None`: still open at `within`).
async fn slow_client(from: &str, to: SocketAddr, prefix: String, within: Duration) -> Option<Duration> {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind(format!("{from}:0").parse().unwrap()).unwrap();
    let start = Instant::now();
    let Ok(stream) = socket.connect(to).await else { return Some(start.elapsed()) };
    let (mut read, mut write) = stream.into_split();
    if write.write_all(prefix.as_bytes()).await.is_err() {
        return Some(start.elapsed());
    }
    let trickle = b"X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    let mut next = 0;
    let end = tokio::time::Instant::now() + within;
    let mut buffer = [0u8; 1024];
    loop {
        tokio::select! {
            // Closed (EOF or reset) or answered: either way, the witness is done with it.
            _ = read.read(&mut buffer) => return Some(start.elapsed()),
            () = tokio::time::sleep(TRICKLE) => {
                let byte = trickle.get(next % trickle.len()..next % trickle.len() + 1).unwrap();
                next += 1;
                if write.write_all(byte).await.is_err() {
                    return Some(start.elapsed());
                }
            }
            () = tokio::time::sleep_until(end) => return None,
        }
    }
}

/// A genuine `add-checkpoint` from `127.0.0.1`: the status line, or why there was none.
async fn genuine(to: SocketAddr, body: &str) -> Result<String, String> {
    let attempt = async {
        let mut stream = TcpStream::connect(to).await.map_err(|e| e.to_string())?;
        let request = format!(
            "POST /add-checkpoint HTTP/1.1\r\nHost: w\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(request.as_bytes()).await.map_err(|e| e.to_string())?;
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).await.map_err(|e| e.to_string())?;
        Ok::<_, String>(String::from_utf8_lossy(&answer).into_owned())
    };
    tokio::time::timeout(Duration::from_secs(5), attempt)
        .await
        .map_err(|_| "no answer within 5 s".to_owned())?
}

/// 64 connections from one address, trickling their headers: the one address holds only a few
/// of the witness's connections, a genuine `add-checkpoint` from another is answered at once
/// while they trickle, and every slow connection is closed by its deadline.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_crowd_from_one_address_keeps_no_one_from_an_answer() {
    let s = setup();
    let prefix = "POST /add-checkpoint HTTP/1.1\r\nHost: w\r\n".to_owned();
    let crowd: Vec<_> = (0..64)
        .map(|_| tokio::spawn(slow_client("127.0.0.2", s.addr, prefix.clone(), DEADLINE + SLACK + TRICKLE)))
        .collect();
    tokio::time::sleep(Duration::from_secs(1)).await;
    let answer = genuine(s.addr, &s.request).await;
    let answer = answer.unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("— witness.example/slow "), "{answer}");

    let mut closed = Vec::new();
    for client in crowd {
        closed.push(client.await.unwrap());
    }
    let held = closed.iter().filter(|c| c.is_none_or(|at| at > Duration::from_secs(2))).count();
    assert!(held <= 8, "one address held {held} connections past its first 2 s: {closed:?}");
    for at in &closed {
        let at = at.unwrap_or_else(|| panic!("a slow connection outlived its deadline: {closed:?}"));
        assert!(at <= DEADLINE + SLACK, "a slow connection closed only after {at:?}: {closed:?}");
    }
}

/// 160 connections from 20 addresses, each sending its headers at once and trickling its body:
/// however full the witness is, each is closed by its deadline, and a genuine `add-checkpoint`
/// is answered once they are.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_crowd_from_many_addresses_is_closed_at_its_deadline() {
    let s = setup();
    let prefix = "POST /add-checkpoint HTTP/1.1\r\nHost: w\r\nContent-Length: 4000\r\n\r\nold 0\n".to_owned();
    let crowd: Vec<_> = (0..160)
        .map(|i| {
            let from = format!("127.0.1.{}", 2 + i / 8);
            tokio::spawn(slow_client_owned(from, s.addr, prefix.clone()))
        })
        .collect();
    let mut closed = Vec::new();
    for client in crowd {
        closed.push(client.await.unwrap());
    }
    for at in &closed {
        let at = at.unwrap_or_else(|| panic!("a slow connection outlived its deadline: {closed:?}"));
        assert!(at <= DEADLINE + SLACK, "a slow connection closed only after {at:?}: {closed:?}");
    }
    let answer = genuine(s.addr, &s.request).await.unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
}

async fn slow_client_owned(from: String, to: SocketAddr, prefix: String) -> Option<Duration> {
    slow_client(&from, to, prefix, DEADLINE + SLACK + TRICKLE).await
}
