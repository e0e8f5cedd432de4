//! What Warden approved is what ran (H-55): the input of each tool call a hook let proceed is
//! kept, by digest, until the harness says the call ran; the input that ran is then checked
//! against it ([`agentwarden_domain::sessions::check_ran`]), and a call that ran with an input
//! Warden never approved quarantines its session, the marker first (H-28), recorded with the
//! store.
//!
//! The approvals are files of the hook's storage, `approved/<session>/<key>.<unique>`, `<key>` the
//! first 32 hex digits of the BLAKE3 of the call's key (its id, or its input's digest when the
//! harness gives no id), each holding the approved digest. A run takes (removes) one file under
//! its key: a removal succeeds for one taker only, so two runs of the same input in parallel take
//! two approvals, never one twice. They are written on both paths, the fast one (no store, H-24)
//! and the store's, so the check costs no store on an approved run.
//!
//! Known weakness of direct mode, as for the index (H-24): the agent's shell can write an
//! approval file. The resident service as another OS user closes it (docs/threat-model.md).

use std::sync::atomic::{AtomicU64, Ordering};

use agentwarden_adapters::{paths, untrusted};
use agentwarden_domain::code::Code;
use agentwarden_domain::sessions::{CallInput, HookFailure, check_ran, is_safe_id, quarantine_reason};
use serde::{Deserialize, Serialize};

use super::storage::{HookStorage, Marker};

/// The largest approval file read.
const MAX_APPROVAL_BYTES: u64 = 4 * 1024;

/// One approval as kept.
#[derive(Debug, Serialize, Deserialize)]
struct Approval {
    tool_name: String,
    call_id: Option<String>,
    digest: String,
}

fn key_prefix(call: &CallInput) -> String {
    let hex = blake3::hash(call.key().as_bytes()).to_hex();
    hex.get(..32).unwrap_or(hex.as_str()).to_owned()
}

/// A name no other writer picks: the process, the time and a counter.
fn unique() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    format!("{:x}-{nanos:x}-{:x}", std::process::id(), COUNTER.fetch_add(1, Ordering::Relaxed))
}

impl HookStorage {
    fn approved_dir(&self, session: &str) -> Result<std::path::PathBuf, String> {
        if !is_safe_id(session) {
            return Err(format!("session id `{}` is not safe as a file name", session.escape_debug()));
        }
        Ok(self.dir().join("approved").join(session))
    }

    /// Keeps `call`'s input as approved in `session` (H-55).
    pub(crate) fn keep_approved(&self, session: &str, call: &CallInput) -> Result<(), String> {
        let name = format!("{}.{}", key_prefix(call), unique());
        if !is_safe_id(&name) {
            return Err(format!("`{name}` is not safe as a file name"));
        }
        let path = self.approved_dir(session)?.join(name);
        let approval = Approval {
            tool_name: call.tool_name.clone(),
            call_id: call.call_id.clone(),
            digest: call.digest.clone(),
        };
        let bytes = serde_json::to_vec(&approval).map_err(|e| e.to_string())?;
        untrusted::write_cache(None, &path, &bytes, 0o600).map_err(|e| e.to_string())
    }

    /// Takes the approvals kept under `ran`'s key in `session`: with a call id, every one (one is
    /// expected); without, the first whose digest is the input that ran, else none taken. Returns
    /// the digests of those taken. `Err` when the directory cannot be read.
    pub(crate) fn take_approved(&self, session: &str, ran: &CallInput) -> Result<Vec<String>, String> {
        let dir = self.approved_dir(session)?;
        let exists =
            paths::entry_exists(&dir).map_err(|e| format!("`{}` cannot be checked: {e}", dir.display()))?;
        if !exists {
            return Ok(Vec::new());
        }
        let prefix = format!("{}.", key_prefix(ran));
        let listed = untrusted::list_dir(None, &dir).map_err(|e| e.to_string())?;
        let mut taken = Vec::new();
        for (name, _) in listed {
            let name = name.to_string_lossy().into_owned();
            if !name.starts_with(&prefix) {
                continue;
            }
            let path = dir.join(&name);
            let approval = untrusted::read_bytes(None, &path, MAX_APPROVAL_BYTES)
                .ok()
                .and_then(|bytes| serde_json::from_slice::<Approval>(&bytes).ok());
            let Some(approval) = approval else { continue };
            if approval.tool_name != ran.tool_name || approval.call_id != ran.call_id {
                continue;
            }
            let matches = approval.digest == ran.digest;
            if ran.call_id.is_none() && !matches {
                continue;
            }
            // Removed by this taker alone: a parallel run of the same input takes another.
            if paths::remove_entry(&path).unwrap_or(false) {
                taken.push(approval.digest);
                if ran.call_id.is_none() {
                    break;
                }
            }
        }
        Ok(taken)
    }

    /// Forgets every approval of `session` not yet used (its end, H-55; best effort).
    pub(crate) fn forget_approved(&self, session: &str) {
        if let Ok(dir) = self.approved_dir(session) {
            let _ = paths::remove_tree(&dir);
        }
    }
}

/// Checks the call that ran against the approvals kept for it, taking them (H-55): `None` when it
/// is one Warden approved; otherwise the violation, for which the session's quarantine marker is
/// written (the store records it when it reconciles the marker, H-28). An approval store that
/// cannot be read is a violation too: what ran cannot be told approved.
pub(crate) fn settle_ran(storage: &HookStorage, session: &str, ran: &CallInput) -> Option<HookFailure> {
    let failure = match storage.take_approved(session, ran) {
        Ok(approved) => check_ran(ran, &approved)?,
        Err(why) => HookFailure::new(
            agentwarden_domain::sessions::APPROVED_INPUT_STAGE,
            Code::RanUnapprovedInput,
            format!("the approvals of this session cannot be read ({why}): what ran cannot be told approved"),
        ),
    };
    let marker = Marker {
        code: failure.code.to_string(),
        reason: failure.reason.clone(),
        agent_id: None,
        pending: Vec::new(),
    };
    if storage.marker(session).ok().flatten().is_none()
        && let Err(e) = storage.quarantine(session, &marker)
    {
        tracing::error!(error = %e, "the quarantine marker could not be written");
    }
    Some(failure)
}

/// The answer to a run that was not approved: a block naming the quarantine (the call already
/// ran; the harness shows the reason in place of its result).
pub(crate) fn ran_unapproved_answer(
    session: &str,
    failure: &HookFailure,
) -> agentwarden_domain::sessions::HookAnswer {
    agentwarden_domain::sessions::HookAnswer::block(quarantine_reason(
        session,
        failure.code.as_str(),
        &failure.reason,
    ))
}
