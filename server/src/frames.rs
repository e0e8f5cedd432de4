//! Frames on the server's side of the socket, asynchronously: the protocol's frames
//! (`agentwarden_protocol`), read and written by the connections' tasks.

use agentwarden_protocol::{FrameError, length};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Reads the rest of a frame whose first byte was `first`.
pub(crate) async fn read_after<R: AsyncReadExt + Unpin>(
    first: u8,
    reader: &mut R,
) -> Result<Vec<u8>, FrameError> {
    let mut header = [first, 0, 0, 0];
    let rest = header.get_mut(1..).unwrap_or_default();
    reader.read_exact(rest).await.map_err(FrameError::Io)?;
    let mut body = vec![0_u8; length(header)?];
    reader.read_exact(&mut body).await.map_err(FrameError::Io)?;
    Ok(body)
}

/// Writes one frame.
pub(crate) async fn write<W: AsyncWriteExt + Unpin>(writer: &mut W, frame: &[u8]) -> std::io::Result<()> {
    writer.write_all(frame).await?;
    writer.flush().await
}
