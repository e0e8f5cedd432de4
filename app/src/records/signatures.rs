//! Which signed records count (issue 21): every seal, approval and release checked against
//! the key list in force, and that list walked from the seals that pinned it.
//!
//! K-3: with `[approvals] allowed_signers`, a record whose signature does not verify is marked
//! refused on every catch-up (never taken from a saved projection). K-10: the first signed
//! seal pins the key list. K-14: a later seal of another list moves the pin only when a key of
//! the list pinned before it signed it; otherwise it is `key_rotation_refused`.

use std::collections::BTreeMap;
use std::path::Path;

use agentwarden_domain::audit::Head;
use agentwarden_domain::governance::{
    FileRead, RecordSignature, SignatureCode, SignatureRefusal, SignedContent, SignersPin, signed_bytes,
};
use agentwarden_domain::sessions::SessionRecords;

use crate::MAX_INPUT_BYTES;
use crate::files::{digest, key};
use crate::signing::{self, AllowedSigners};
use crate::warden::{Warden, WardenError};

/// The key list in force, walked from the seals that may pin one (K-14).
#[derive(Debug)]
pub(crate) struct KeyListInForce<'a> {
    /// The seal whose list is pinned.
    pub(crate) pin: Option<&'a SignersPin>,
    /// The pinned list's text, when known.
    pub(crate) text: Option<std::borrow::Cow<'a, str>>,
    /// Each later seal that changed the list: accepted, or why not.
    pub(crate) changes: BTreeMap<u64, Result<(), SignatureRefusal>>,
}

/// The configured key list as a record about to be signed meets it (K-14).
#[derive(Debug)]
pub(crate) struct KeyListNow {
    /// The file as read now.
    pub(crate) read: FileRead,
    /// It is the pinned list (or nothing is pinned yet).
    pub(crate) is_pinned: bool,
    /// The pinning seal's seq and the pinned list's text, when known.
    pub(crate) pinned: Option<(u64, Option<String>)>,
    /// The file's key among a seal's files.
    pub(crate) sealed_as: String,
}

/// BLAKE3 (hex) of a key list's text, as a seal's digest starts.
fn hash_hex(text: &str) -> String {
    blake3::hash(text.as_bytes()).to_hex().to_string()
}

/// The content hash a seal recorded for `file` (its digest without the mode).
fn sealed_hash<'f>(files: &'f BTreeMap<String, String>, file: &str) -> Option<&'f str> {
    files.get(file).and_then(|digest| digest.split(' ').next())
}

/// Whether a seal's `files` hold the key list `file` whose digest is `now`, by content: the
/// pin is the list's text, so a `chmod` of the file breaks the seal (U-15, `context_sealed`)
/// but not the pin (a seal of the same list would not move it).
fn pins_content(files: &BTreeMap<String, String>, file: &str, now: Option<&str>) -> bool {
    let now = now.and_then(|digest| digest.split(' ').next());
    now.is_some() && sealed_hash(files, file) == now
}

impl Warden {
    /// With `allowed_signers` configured, marks every seal and approval whose signature
    /// does not verify as refused (it is then no seal or approval to any decision); without it,
    /// clears every mark. Run on every catch-up: a mark is never taken from a saved state (K-3).
    ///
    /// K-10: once a signed seal has pinned the key list, a configuration without
    /// `allowed_signers`, or one whose file is not the one pinned, refuses every record
    /// (`signers_unavailable`): an agent that points the configuration at a key list of its own
    /// (or removes it) and then signs, or records unsigned, makes no seal or approval.
    ///
    /// K-14: the pin moves only through a seal of a new list signed by a key of the list pinned
    /// before it ([`Warden::walk_key_lists`]); such a seal signed otherwise is refused
    /// (`key_rotation_refused`) and the pin stays.
    ///
    /// K-9: a release whose signature does not verify lifted nothing: its quarantine is put back
    /// (unless the session is quarantined again already).
    pub(crate) async fn check_signatures(&self, state: &mut SessionRecords) {
        let governance = &mut state.governance;
        let pinned_by = governance.key_lists.first().map(|pin| pin.seq);
        let Some(path) = &self.config.allowed_signers else {
            let refusal = pinned_by.map(|seq| SignatureRefusal {
                code: SignatureCode::SignersUnavailable,
                reason: format!(
                    "the signed seal at seq {seq} pinned a key list, and `[approvals] allowed_signers` is not configured"
                ),
            });
            if let Some(seal) = governance.seal.as_mut() {
                seal.refused.clone_from(&refusal);
            }
            for record in governance.approvals.values_mut() {
                record.refused.clone_from(&refusal);
            }
            if refusal.is_some() {
                for release in &state.last_releases() {
                    if !state.quarantined.contains_key(&release.session) {
                        state.quarantined.insert(release.session.clone(), release.lifted.clone());
                    }
                }
            }
            return;
        };
        // One read: the bytes compared with the pin are the bytes parsed (no swap in between).
        let (read, mode) = self.files.read_text_mode(path, MAX_INPUT_BYTES).await;
        let now = digest(&read, mode);
        let walk = self.walk_key_lists(&governance.key_lists, path, &read, now.as_deref());
        let pin_matches = match walk.pin {
            None => Ok(()),
            Some(SignersPin { seq, files, .. }) => {
                if pins_content(files, &key(&self.config.root, path), now.as_deref()) {
                    Ok(())
                } else {
                    Err(format!(
                        "it is not the key list the signed seal at seq {seq} pinned (a new list counts once a human \
                         seals it with a key of the old one: `warden seal --key OLD_KEY`)"
                    ))
                }
            }
        };
        let text = pin_matches
            .and_then(|()| match &read {
                FileRead::Text(text) => Ok(text.as_str()),
                FileRead::Missing => Err(crate::records::SIGNERS_MISSING.to_owned()),
                FileRead::Unreadable(why) => Err(why.clone()),
            })
            .and_then(|text| {
                AllowedSigners::parse(text).map(|signers| (text, signers)).map_err(|e| e.to_string())
            });
        let check = |seq: u64,
                     signature: Option<&RecordSignature>,
                     bytes: &dyn Fn(&str, u64, &str) -> Vec<u8>,
                     after: Option<Head>| {
            let (text, signers) = match &text {
                Ok(found) => found,
                Err(why) => {
                    return Err(SignatureRefusal {
                        code: SignatureCode::SignersUnavailable,
                        reason: format!("`{}` cannot be used: {why}", path.display()),
                    });
                }
            };
            let mut hasher = blake3::Hasher::new();
            hasher.update(text.as_bytes());
            hasher.update(&seq.to_le_bytes());
            if let Some(after) = after {
                hasher.update(after.hash.to_string().as_bytes());
            }
            if let Some(signature) = signature {
                hasher.update(signature.sshsig.as_bytes());
                hasher.update(&bytes(&signature.principal, signature.head_seq, &signature.head_hash));
            }
            self.verified.get_or(*hasher.finalize().as_bytes(), || {
                signing::verify_record(signers, seq, after, signature, |p, s, h| bytes(p, s, h))
            })
        };
        if let Some(seal) = governance.seal.as_mut() {
            let record = seal.clone();
            seal.refused = match walk.changes.get(&seal.seq) {
                // A change of the key list is verified against the list before it (K-14).
                Some(Err(refusal)) => Some(refusal.clone()),
                Some(Ok(())) => text.as_ref().err().map(|why| SignatureRefusal {
                    code: SignatureCode::SignersUnavailable,
                    reason: format!("`{}` cannot be used: {why}", path.display()),
                }),
                None => check(
                    seal.seq,
                    seal.signature.as_ref(),
                    &|p, s, h| record.signed_bytes(p, s, h),
                    seal.after,
                )
                .err(),
            };
        }
        for approval in governance.approvals.values_mut() {
            let record = approval.clone();
            approval.refused = check(
                approval.seq,
                approval.signature.as_ref(),
                &|p, s, h| record.signed_bytes(p, s, h),
                approval.after,
            )
            .err();
        }
        // Only each session's last release can stand between it and its quarantine.
        for release in &state.last_releases() {
            let content = SignedContent::Release { session: &release.session };
            let verdict = check(
                release.seq,
                release.signature.as_ref(),
                &|p, s, h| signed_bytes(content, p, s, h),
                Some(release.after),
            );
            if verdict.is_err() && !state.quarantined.contains_key(&release.session) {
                state.quarantined.insert(release.session.clone(), release.lifted.clone());
            }
        }
    }

    /// The key list in force, from the signed seals (`pins`, in log order). The first
    /// pins its list (K-10). A later one that seals the same list (by digest) changes nothing
    /// (it is checked as any seal), but records the list's text when the pin has none. One that
    /// seals another list is a change: it counts only when it carries the list it sealed and
    /// its signature verifies against the list pinned before it; then the pin moves to it, else
    /// it is refused (`key_rotation_refused`) and the pin stays. The first pin's text is the
    /// list it carries, or (a seal of an earlier version, which carries none) the current file
    /// when it is the one that seal sealed; without it no change can be verified (K-14).
    pub(crate) fn walk_key_lists<'a>(
        &self,
        pins: &'a [SignersPin],
        path: &Path,
        read: &'a FileRead,
        now: Option<&str>,
    ) -> KeyListInForce<'a> {
        use std::borrow::Cow;
        let sealed_as = key(&self.config.root, path);
        let mut walk = KeyListInForce { pin: None, text: None, changes: BTreeMap::new() };
        let Some((first, later)) = pins.split_first() else { return walk };
        let current = match read {
            FileRead::Text(text) if pins_content(&first.files, &sealed_as, now) => {
                Some(Cow::Borrowed(text.as_str()))
            }
            _ => None,
        };
        walk.pin = Some(first);
        walk.text = first.key_list.as_deref().map(Cow::Borrowed).or(current);
        for seal in later {
            let pinned = walk.pin.and_then(|pin| sealed_hash(&pin.files, &sealed_as));
            if pinned.is_some() && sealed_hash(&seal.files, &sealed_as) == pinned {
                if walk.text.is_none() {
                    let carried = seal.key_list.as_deref();
                    walk.text = carried
                        .filter(|list| hash_hex(list) == pinned.unwrap_or_default())
                        .map(Cow::Borrowed);
                }
                continue;
            }
            let verdict = self.verify_key_change(&walk, seal, &sealed_as);
            if verdict.is_ok() {
                walk.pin = Some(seal);
                walk.text = seal.key_list.as_deref().map(Cow::Borrowed);
            }
            walk.changes.insert(seal.seq, verdict);
        }
        walk
    }

    fn verify_key_change(
        &self,
        walk: &KeyListInForce<'_>,
        change: &SignersPin,
        sealed_as: &str,
    ) -> Result<(), SignatureRefusal> {
        let pinned = walk.pin.map_or(0, |pin| pin.seq);
        let refused = |why: String| SignatureRefusal {
            code: SignatureCode::KeyRotationRefused,
            reason: format!(
                "the seal at seq {} changes the key list pinned at seq {pinned}, and {why}",
                change.seq
            ),
        };
        let Some(old) = walk.text.as_deref() else {
            return Err(refused(
                "that list is not in the log (sealed by an earlier version): no change of it can be verified; \
                 put the old list back and seal it once (`warden seal --key KEY`), then change it"
                    .to_owned(),
            ));
        };
        let Some(new) = &change.key_list else {
            return Err(refused("it does not carry the key list it sealed".to_owned()));
        };
        let sealed = sealed_hash(&change.files, sealed_as);
        if sealed != Some(hash_hex(new).as_str()) {
            return Err(refused(format!("the key list it carries is not the `{sealed_as}` it sealed")));
        }
        let signers = AllowedSigners::parse(old)
            .map_err(|why| refused(format!("the pinned list cannot be read: {why}")))?;
        let content = SignedContent::Seal { files: &change.files };
        let mut hasher = blake3::Hasher::new();
        hasher.update(b"key-list-change");
        hasher.update(old.as_bytes());
        hasher.update(&change.seq.to_le_bytes());
        hasher.update(change.after.hash.to_string().as_bytes());
        if let Some(signature) = &change.signature {
            hasher.update(signature.sshsig.as_bytes());
            hasher.update(&signed_bytes(
                content,
                &signature.principal,
                signature.head_seq,
                &signature.head_hash,
            ));
        }
        self.verified
            .get_or(*hasher.finalize().as_bytes(), || {
                signing::verify_record(
                    &signers,
                    change.seq,
                    Some(change.after),
                    change.signature.as_ref(),
                    |p, s, h| signed_bytes(content, p, s, h),
                )
            })
            .map_err(|r| refused(format!("it is not signed by a key of that list: {r}")))
    }

    /// The configured key list as read now, whether it
    /// is the pinned one, and the pinned list's seal and text (K-14, for a record about to be signed).
    pub(crate) async fn key_list_now(&self, path: &Path) -> Result<KeyListNow, WardenError> {
        let state = self.records().await?;
        let (read, mode) = self.files.read_text_mode(path, MAX_INPUT_BYTES).await;
        let now = digest(&read, mode);
        let walk = self.walk_key_lists(&state.governance.key_lists, path, &read, now.as_deref());
        let sealed_as = key(&self.config.root, path);
        let is_pinned = walk.pin.is_none_or(|pin| pins_content(&pin.files, &sealed_as, now.as_deref()));
        let pinned = walk.pin.map(|pin| (pin.seq, walk.text.map(std::borrow::Cow::into_owned)));
        Ok(KeyListNow { read, is_pinned, pinned, sealed_as })
    }
}
