//! Entry points for the fuzz targets in `fuzz/` (feature `fuzzing`).

use crate::{Answer, Request, decode, encode, read_frame_blocking};

/// The `server_frame` target: bytes a process of the agent's user writes to the server's socket
/// (or a server writes to a client): read as a frame and as a frame's body, decoded as a request
/// and as an answer. Panics when the reader does, or when a request it accepts does not come
/// back the same through its own encoding (V-2: the reader is strict, the writer exact).
#[expect(clippy::panic, reason = "a fuzz target's oracle: a panic is the finding")]
pub fn server_frame(data: &[u8]) {
    let body = |body: &[u8]| {
        let _ = decode::<Answer>(body);
        let Ok(request) = decode::<Request>(body) else { return };
        let frame = encode(&request).unwrap_or_else(|e| panic!("an accepted request does not encode: {e}"));
        let again = read_frame_blocking(&mut frame.as_slice())
            .map_err(|e| format!("{e:?}"))
            .and_then(|body| decode::<Request>(&body).map_err(|e| e.to_string()));
        if again.as_ref() != Ok(&request) {
            panic!("{request:?} came back as {again:?}");
        }
    };
    body(data);
    if let Ok(frame) = read_frame_blocking(&mut &data[..]) {
        body(&frame);
    }
}
