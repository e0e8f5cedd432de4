//! The small HTTP/1.1 server the fakes of the harnesses' model APIs share (Claude Code's
//! Messages API, Codex's Responses API, Gemini's API, the chat-completions API Copilot CLI is
//! pointed at): one keep-alive connection read request
//! by request (bodies by `Content-Length` or chunked), each answered by the fake. A request for
//! any host but the fake's own address — a `CONNECT`, an absolute target, another `Host` — is
//! marked foreign: the fake is also the harness's proxy, and every other host is refused.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// One request as the fake reads it.
#[derive(Debug)]
pub struct Request {
    /// `POST`, `CONNECT`, …
    pub method: String,
    /// The request target as sent.
    pub target: String,
    /// The `Host` header (empty when absent).
    pub host: String,
    /// The body, de-chunked.
    pub body: Vec<u8>,
    /// Addressed to another host than the fake's own.
    pub foreign: bool,
}

/// A reply: its status line's code and reason, its content type, its body.
pub type Reply = (&'static str, &'static str, Vec<u8>);

/// Serves one keep-alive connection to the fake at `own` until the client closes it, each
/// request answered by `answer`.
pub fn serve(
    stream: TcpStream,
    own: SocketAddr,
    mut answer: impl FnMut(Request) -> Reply,
) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(120)))?;
    let mut writer = stream.try_clone()?;
    let mut reader = BufReader::new(stream);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let line = line.trim_end();
        if line.is_empty() {
            continue;
        }
        let mut parts = line.split(' ');
        let method = parts.next().unwrap_or_default().to_owned();
        let target = parts.next().unwrap_or_default().to_owned();
        let mut headers = Vec::new();
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header)? == 0 {
                return Ok(());
            }
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':') {
                headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
            }
        }
        let header = |name: &str| headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
        let body = if header("transfer-encoding").is_some_and(|v| v.to_ascii_lowercase().contains("chunked"))
        {
            read_chunked(&mut reader)?
        } else {
            let length = header("content-length").and_then(|v| v.parse::<usize>().ok()).unwrap_or(0);
            let mut body = vec![0; length];
            reader.read_exact(&mut body)?;
            body
        };
        let host = header("host").unwrap_or_default();
        let foreign = method == "CONNECT" || !target.starts_with('/') || host != own.to_string();
        let (status, content_type, payload) = answer(Request { method, target, host, body, foreign });
        write!(
            writer,
            "HTTP/1.1 {status}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: keep-alive\r\n\r\n",
            payload.len()
        )?;
        writer.write_all(&payload)?;
        writer.flush()?;
    }
}

fn read_chunked(reader: &mut impl BufRead) -> std::io::Result<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let mut size = String::new();
        reader.read_line(&mut size)?;
        let size = usize::from_str_radix(size.trim().split(';').next().unwrap_or("0"), 16)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
        if size == 0 {
            // Trailers, up to the blank line.
            loop {
                let mut trailer = String::new();
                if reader.read_line(&mut trailer)? == 0 || trailer.trim().is_empty() {
                    return Ok(body);
                }
            }
        }
        let start = body.len();
        body.resize(start + size, 0);
        reader.read_exact(body.get_mut(start..).unwrap_or_default())?;
        let mut crlf = String::new();
        reader.read_line(&mut crlf)?;
    }
}
