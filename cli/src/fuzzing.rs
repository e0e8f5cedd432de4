//! Entry points for the fuzz targets in `fuzz/` (feature `fuzzing`): the frames' oracle lives
//! with the protocol.

pub use agentwarden_protocol::fuzzing::server_frame;
