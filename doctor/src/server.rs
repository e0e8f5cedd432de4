//! Which server doctor asks, and runs the installed lines through (V-48, V-49, V-67, V-69): the
//! hooks ask the server their installed lines name (`--server`), and only that one; doctor asks
//! only the server its own command line names (`--server`, with `--server-uid`), never one named
//! by the lines or the configuration alone: lines that ask another one, or none while it names
//! one, go around it and fail without being run (V-19). Moved from the command line as it was.

use std::path::PathBuf;

use crate::lines::{Line, server_named};

/// The server doctor asks for the installed `entries`, given the server its command line names
/// (`configured`, as the user `configured_uid`): `Ok(None)` for none, or the finding and its fix
/// (`again` words the `warden init` that fixes the lines for a socket).
pub fn server_to_ask(
    entries: &[Line],
    configured: Option<PathBuf>,
    configured_uid: Option<u32>,
    again: &dyn Fn(&str) -> String,
) -> Result<Option<PathBuf>, (String, String)> {
    match server_named(entries) {
        Err(why) => Err((why.to_string(), again("PATH"))),
        Ok(Some((socket, uid))) => match &configured {
            Some(trusted) if *trusted != socket => Err((
                format!(
                    "the installed lines ask the server at `{}`, but --server names `{}`",
                    socket.display(),
                    trusted.display()
                ),
                again(&trusted.display().to_string()),
            )),
            None => Err((
                format!(
                    "the installed lines ask the server at `{}`, and doctor asks only a server its own command \
                     line names (V-67)",
                    socket.display()
                ),
                format!(
                    "run `warden doctor --server {}` (with --server-uid UID) to check it",
                    socket.display()
                ),
            )),
            _ if configured_uid.is_some() && uid != configured_uid => Err((
                format!(
                    "the installed lines believe a server running as {}, but --server-uid is {}",
                    uid.map_or_else(|| "any user".to_owned(), |uid| format!("uid {uid}")),
                    configured_uid.unwrap_or_default()
                ),
                again(&socket.display().to_string()),
            )),
            _ => Ok(Some(socket)),
        },
        Ok(None) if !entries.is_empty() && configured.is_some() => Err((
            "--server names a server, but the installed lines ask none: the hooks decide directly and never \
             ask it (V-49)"
                .to_owned(),
            again(&configured.as_ref().map(|c| c.display().to_string()).unwrap_or_default()),
        )),
        Ok(None) => Ok(configured),
    }
}
