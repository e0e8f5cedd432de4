//! `warden audit copy --from STORE --to STORE`: the same log in another backend, byte for byte,
//! by the application's `copy_log`; here its answer is printed.

use std::io::Write;

use serde_json::json;

use super::super::{EXIT_OK, Failure};
use agentwarden::copy::{CopyError, copy_log};
use agentwarden::store::SledConfig;

pub(crate) async fn run(
    from: &str,
    to: &str,
    batch: usize,
    sled: &SledConfig,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    let copied = copy_log(from, to, batch, sled).await.map_err(|e| match e {
        CopyError::Usage(reason) => Failure::usage(reason),
        CopyError::Refused(reason) => Failure::no(reason),
        CopyError::Warden(e) => Failure::from(e),
    })?;
    writeln!(
        out,
        "{}",
        json!({
            "copied": copied.copied,
            "already_there": copied.already_there,
            "head": {"seq": copied.head.seq, "hash": copied.head.hash},
            "from": copied.from,
            "to": copied.to,
        })
    )?;
    Ok(EXIT_OK)
}
