//! The hook use case: one hook event of a harness, decoded by its integration into a
//! [`HookInput`], decided and recorded here, and answered as the domain's [`HookAnswer`], which
//! the integration renders in its harness's protocol. It runs for every tool call (the hook is
//! installed for all tools), so most of them are decided before the store is opened ([`fast`],
//! H-24). Each harness is governed by its own section of the configuration, checked against
//! the names its integration gives ([`crate::Config::harness`], U-17, U-18).
//!
//! - A spawn (`HookEvent::Spawn`): the subagent gate (persona: the calling subagent's type, or
//!   the section's `main_persona`; metadata: the human approval state that only `warden
//!   seal`/`approve`/`revoke` set) and the lineage walk of parent → requested type. A built-in
//!   agent type of the harness is denied unless the section's `builtin_agents` lists it (H-20).
//!   Allowed: the harness's own permission flow goes on. Denied: the first failure's reason.
//! - Any other tool call: denied in a quarantined session (H-28) and from an agent no allowed
//!   spawn accounts for (H-23); a write into a protected path is denied (H-26); a message that
//!   resumes an agent re-checks the approval its target runs under (H-21); a tool that starts
//!   agents is denied unless the section's `agent_tools` lists it (H-22). Each of those is
//!   recorded (`hook_tool_evaluated`); anything else is allowed unrecorded.
//! - A subagent's start: the agent is matched to a pending allowed spawn (H-2) and the protected
//!   paths are snapshotted for its stop check, in its own worktree when it has one (H-27); a
//!   start of an agent already running replaces nothing, and a first snapshot is never replaced
//!   (H-54).
//! - A subagent's stop: protected paths compared with that snapshot (reverted on a change), and
//!   the `result.json` the prompt asked for validated; any failure blocks the stop with its
//!   reasons. A stop that cannot be made safe quarantines the session (H-28, H-29).
//! - The session's start and the main session's stop ([`session`]): the protected paths
//!   snapshotted once a session, then compared and put back at every stop of the main session,
//!   which blocks once on a change (H-45, H-46), and at every later start and at the end (H-52,
//!   H-53); no event replaces or removes that first snapshot, since any can be forged by the
//!   agent.
//!
//! Every decision is one event, recorded before the answer, with the session as correlation
//! and the tool-use and agent ids in its payload. Whatever goes wrong inside — bad input (then
//! recorded as `hook_input_refused` when the store can be used), a store that cannot be opened
//! or read, a log that does not verify — is a failure, which every integration renders as what
//! its harness treats as a deny of the call or a block of the stop, never an allow.
//!
//! the rules above are the domain's (`agentwarden_domain::sessions`: `check_tool`,
//! `judge_tool_rules`, `evaluate_spawn`, `evaluate_stop`, the answers they become); this module
//! reads what they need, records the event, acts on the hook's files, then answers with the
//! domain's typed `HookAnswer`.

mod approved;
mod confine;
mod entry;
mod fast;
#[cfg(test)]
mod forged;
mod in_flight;
mod pending;
mod session;
mod session_end;
mod session_rules;
mod storage;
mod tools;

use std::path::{Path, PathBuf};

use agentwarden_adapters::paths;
use agentwarden_domain::audit::{Correlation, CorrelationId};
use agentwarden_domain::events::AuditEvent;
use agentwarden_domain::fact::FactError;
use agentwarden_domain::governance::{ReadDigests, Request};
use agentwarden_domain::guardrails::ContentSnapshot;
use agentwarden_domain::sessions::{
    Attribution, CallStage, CallingAgent, HookEvent, HookFailure, HookInput, HookInputRefused, InputError,
    ROOT_ID, SessionQuarantined, SessionRecords, SpawnFacts, SpawnRequest, StopFacts, SubagentStarted,
    config_change_answer, config_change_blocked, evaluate_spawn, evaluate_stop, quarantine_reason,
    quarantined_without_store, spawn_answer,
};
pub use agentwarden_domain::sessions::{HookAnswer, with_fix};
use agentwarden_domain::verdict::Code;

pub use confine::{ConfineReport, confine_report};
pub use entry::{StoreDecides, answer_hook};
pub use fast::HARNESS_HELD_NAMES;
#[cfg(any(test, feature = "conformance"))]
pub(crate) use fast::{Pre, before_store_parsed};
pub use storage::{HookStorage, Marker, SessionIndex, StorageError};

use session_rules::SessionRules;

use crate::config::HarnessSettings;
use crate::gate::GateRecords;
use crate::guard::GuardTarget;
use crate::warden::{Warden, WardenError};

/// Rewrites the session's index from `state`, the records caught up (H-24; best effort).
/// V-32: only when what it says (its head aside) is not what is there already: a decision
/// that changed nothing about the session costs a read, not a create and a rename.
/// H-49: it names the digest of the configuration the store decided with (the sealed one while
/// a seal is in force), and the fast path answers only with that same configuration.
fn write_index(state: &SessionRecords, session: &str, storage: &HookStorage, config: Option<&str>) {
    let quarantined = state.quarantined.contains_key(session) || !matches!(storage.marker(session), Ok(None));
    let index = SessionIndex {
        config: config.map(str::to_owned),
        ..SessionIndex::of(session, state.head.seq, quarantined, state.session_ref(session))
    };
    if storage.read_index(session).is_some_and(|there| SessionIndex { head: index.head, ..there } == index) {
        return;
    }
    if let Err(e) = storage.write_index(&index) {
        tracing::debug!(error = %e, "the session index could not be written");
    }
}

fn session_correlation(session: &str) -> Correlation {
    Correlation { session: CorrelationId::new(session).ok(), ..Correlation::default() }
}

/// Where a subagent's protected paths are snapshotted and checked. Its `cwd` when that is
/// the root of a git working tree other than the workspace root (a worktree subagent's own
/// worktree: it holds a `.git` entry); otherwise the workspace root — a session started in a
/// subdirectory of the project is still checked at the project's root (H-27).
pub(crate) fn agent_root(workspace: &Path, cwd: Option<&str>) -> Option<PathBuf> {
    let cwd = PathBuf::from(cwd?);
    if !cwd.is_absolute() || !paths::entry_exists(&cwd.join(".git")).unwrap_or(false) {
        return None;
    }
    let real = paths::canonical(&cwd).ok()?;
    let project = paths::canonical(workspace).ok();
    (project.as_ref() != Some(&real)).then_some(real)
}

impl Warden {
    /// Answers one hook event as a harness integration parsed it from `text` (`parsed`), with
    /// the hook's files in `storage`, on the store. An input the integration refused is
    /// recorded, by digest and length (H-30), and answered as a failure. Reached through
    /// [`answer_hook`], which asks [`before_store_parsed`] first on the same parse.
    pub(crate) async fn hook_parsed(
        &self,
        text: &str,
        parsed: Result<HookInput, InputError>,
        storage: &HookStorage,
    ) -> HookAnswer {
        match parsed {
            Ok(input) => self.hook_input(input, storage).await,
            Err(e) => {
                self.record_refused(&e, text).await;
                HookAnswer::failed(e.code(), e.to_string())
            }
        }
    }

    /// Answers one hook event given typed (issue 22), on the store.
    async fn hook_input(&self, input: HookInput, storage: &HookStorage) -> HookAnswer {
        // Held for the whole decision, not copied; back in memory when it ends (V-38).
        let mut state = match self.hold().await {
            Ok(state) => state,
            Err(e) => return self.without_records(input, storage, e.code(), &e.to_string()).await,
        };
        // While a seal is in force the sealed rules decide, whatever the file reads now (H-49);
        // without one, the configuration the session's first start found (H-58).
        let sealed;
        let mut changed = None;
        let mut indexed = true;
        let warden = match self.sealed_rules(&state) {
            Ok(None) if crate::records::sealed::holding_rules(&state.governance).is_some() => self,
            Ok(None) => match self.session_rules(&input.session_id, &input.event).await {
                SessionRules::Live => self,
                SessionRules::Uncopied => {
                    indexed = false;
                    self
                }
                SessionRules::Copied(rules, name) => {
                    sealed = *rules;
                    changed = Some(name);
                    &sealed
                }
                SessionRules::Missing(why) => {
                    tracing::warn!(reason = %why, "no session rules to decide with");
                    // No index: the fast path never answers for rules nobody recorded (H-59).
                    storage.forget_index(&input.session_id);
                    return HookAnswer::failed(Code::SessionRulesMissing, why);
                }
            },
            Ok(Some(rules)) => {
                sealed = rules;
                &sealed
            }
            Err(why) => {
                tracing::warn!(reason = %why, "no sealed rules to decide with");
                return HookAnswer::failed(Code::SealedFileChanged, why);
            }
        };
        let (mut answer, session) = warden.hook_held(input, storage, &mut state).await;
        // The index says what the log says now: caught up first (another writer may have
        // appended since), and left unwritten when the log cannot be read.
        if !indexed {
            // No index from rules nobody recorded: the fast path never answers from them (H-59).
            storage.forget_index(&session);
        } else if state.catch_up_again().await.is_ok() {
            write_index(&state, &session, storage, warden.config.source_digest.as_deref());
        }
        // The live file that did not decide is named (H-58).
        if let (Some(name), HookAnswer::Deny { reason }) = (&changed, &answer) {
            answer = HookAnswer::deny(format!(
                "{}; `{name}` changed since the session started and does not decide: the configuration \
                 recorded at its start does, until a new session or a seal (H-58)",
                reason.as_str()
            ));
        }
        answer
    }

    /// The decision when the records cannot be read (`code`, `why`): a stop is checked without
    /// them (H-28), anything else fails.
    async fn without_records(
        &self,
        input: HookInput,
        storage: &HookStorage,
        code: Code,
        why: &str,
    ) -> HookAnswer {
        let session = input.session_id.as_str();
        // The stops' reasons are the text a quarantine marker keeps, code first.
        let why_text = || failure_text(&code, why);
        match &input.event {
            HookEvent::SubagentStop { agent, .. } => {
                self.stop_without_store(session, &agent.agent_id, storage, &why_text()).await
            }
            HookEvent::SessionStop { stop_hook_active } => {
                self.session_stop_without_store(session, *stop_hook_active, storage, &why_text()).await
            }
            HookEvent::SessionEnd { .. } => {
                self.session_end_without_store(session, storage, &why_text()).await
            }
            _ => HookAnswer::failed(code, why),
        }
    }

    /// [`Warden::hook_input`] on the records it holds, with this Warden's rules: the answer,
    /// and the session it is about.
    async fn hook_held(
        &self,
        input: HookInput,
        storage: &HookStorage,
        state: &mut SessionRecords,
    ) -> (HookAnswer, String) {
        let session = input.session_id.as_str();
        let is_stop = matches!(
            input.event,
            HookEvent::SubagentStop { .. } | HookEvent::SessionStop { .. } | HookEvent::SessionEnd { .. }
        );
        let session_id = session.to_owned();
        let quarantined = self.quarantine_in_force(state, session, storage).await;
        if let Err(e) = self.record_pending(state, session, storage).await {
            tracing::warn!(error = %e, "the pending violations could not all be recorded yet");
        }
        // Each harness is governed by its own section of the configuration (U-17, U-18).
        let harness = match self.config.harness(&input.harness) {
            Ok(harness) => harness,
            Err(why) => return (HookAnswer::failed(Code::ConfigInvalid, why.to_string()), session_id),
        };
        let harness = &harness;
        let root = self.config.root.clone();
        let in_flight = input.attribution == Attribution::InFlight;
        let call = input.call.clone();
        let answer = match input.event {
            HookEvent::Other { .. } => Ok(HookAnswer::silent()),
            HookEvent::ConfigChange { source, file_path } => {
                Ok(self.hook_config_change(state, session, &source, file_path.as_deref()).await)
            }
            HookEvent::Spawn(request) => match &quarantined {
                Some(marker) => Ok(self.deny_in_quarantine(state, session, &request, marker).await),
                None if in_flight => {
                    self.hook_spawn_in_flight(state, session, harness, request, &root, storage).await
                }
                None => self.hook_spawn(state, session, harness, request).await,
            },
            HookEvent::Tool(call) if in_flight => Ok(self
                .hook_tool_in_flight(
                    state,
                    session,
                    harness,
                    input.cwd.as_deref(),
                    call,
                    quarantined.as_ref(),
                )
                .await),
            HookEvent::Tool(call) => Ok(self
                .hook_tool(state, session, harness, input.cwd.as_deref(), call, quarantined.as_ref())
                .await),
            // The end of a spawn that never started, or stopped already, has nothing to check (M-2).
            HookEvent::SubagentStop { agent, .. }
                if in_flight && !in_flight::is_running(state, session, &agent.agent_id) =>
            {
                Ok(HookAnswer::silent())
            }
            HookEvent::SubagentStart(agent) => {
                let own = agent_root(&root, input.cwd.as_deref());
                let at = own.as_deref().unwrap_or(&root);
                self.hook_start(state, session, agent, at, own.is_some(), storage).await
            }
            HookEvent::SessionStart => self.hook_session_start(state, session, storage).await,
            HookEvent::SessionStop { stop_hook_active } => {
                self.hook_session_stop(state, session, stop_hook_active, storage).await
            }
            HookEvent::SessionEnd { reason } => {
                // The approvals no run used are forgotten with the session (H-55).
                storage.forget_approved(session);
                self.hook_session_end(state, session, reason, storage).await
            }
            HookEvent::SubagentStop { agent, stop_hook_active } => {
                let own = state.session_ref(session).agents.get(&agent.agent_id).and_then(|a| a.root.clone());
                let root = own.map_or(root, PathBuf::from);
                self.hook_stop(
                    state,
                    session,
                    harness,
                    agent,
                    stop_hook_active,
                    &root,
                    storage,
                    quarantined.is_some(),
                    // A harness that names no subagent cannot make it go on: its stop is its end (M-6).
                    in_flight,
                )
                .await
            }
        };
        let mut answer = answer.unwrap_or_else(|e| {
            if is_stop {
                quarantine_unrecorded(storage, session, None, &Code::StoreUnavailable, &e.to_string());
            }
            HookAnswer::failed(e.code(), e.to_string())
        });
        // A run in a quarantined session (one not approved quarantined it before the store, H-55):
        // the harness shows the quarantine in place of its result.
        if let (HookAnswer::Proceed, Some(CallStage::Ran(_)), Some(marker)) = (&answer, &call, &quarantined) {
            answer = HookAnswer::block(quarantine_reason(session, &marker.code, &marker.reason));
        }
        // A call let through is kept as approved, to be checked when it has run; one that cannot
        // be kept is not let through (H-55).
        // A rewritten call is kept under its id with the input it runs with (H-55, H-62).
        let kept = match (&answer, &call) {
            (HookAnswer::Rewrite { input, .. }, Some(CallStage::Asked(asked))) => {
                Some(agentwarden_domain::sessions::CallInput {
                    digest: agentwarden_domain::sessions::input_digest(
                        &asked.tool_name,
                        &serde_json::Value::Object(input.clone()),
                    ),
                    ..asked.clone()
                })
            }
            (HookAnswer::Proceed, Some(CallStage::Asked(asked))) => Some(asked.clone()),
            _ => None,
        };
        if let Some(asked) = &kept
            && let Err(e) = storage.keep_approved(session, asked)
        {
            answer = HookAnswer::failed(
                Code::InternalError,
                format!("the approved input could not be kept ({e}): not let through"),
            );
        }
        (answer, session_id)
    }

    /// A settings change during the session is blocked, and recorded under the session;
    /// a change that cannot be recorded is blocked all the same (H-43).
    async fn hook_config_change(
        &self,
        state: &mut SessionRecords,
        session: &str,
        source: &str,
        file_path: Option<&str>,
    ) -> HookAnswer {
        let blocked = config_change_blocked(source, file_path);
        let answer = config_change_answer(&blocked);
        let event = AuditEvent::ConfigChangeBlocked(Box::new(blocked));
        if let Err(e) = self.record_and_apply(state, session_correlation(session), &event).await {
            tracing::warn!(error = %e, "the blocked settings change could not be recorded");
        }
        answer
    }

    /// An input the hook refuses is recorded when the store can be used — by digest and
    /// length, without a session (its ids are not trusted) (H-30).
    async fn record_refused(&self, error: &InputError, text: &str) {
        let event = AuditEvent::HookInputRefused(Box::new(HookInputRefused {
            code: error.code(),
            reason: error.to_string(),
            digest: blake3::hash(text.as_bytes()).to_hex().to_string(),
            bytes: u64::try_from(text.len()).unwrap_or(u64::MAX),
        }));
        if let Err(e) = self.record_event(Correlation::default(), &event).await {
            tracing::warn!(error = %e, "the refused hook input could not be recorded");
        }
    }

    /// The quarantine of `session`, reconciling the marker with the log (H-28): a marker the
    /// log does not know yet (written while the store could not be used) is recorded now; a
    /// quarantine the log knows whose marker is gone is marked again.
    pub(crate) async fn quarantine_in_force(
        &self,
        state: &mut SessionRecords,
        session: &str,
        storage: &HookStorage,
    ) -> Option<Marker> {
        let recorded = state.quarantined.get(session).cloned();
        match (storage.marker(session), recorded) {
            (Err(why), _) => Some(Marker {
                code: "session_quarantined".into(),
                reason: why.to_string(),
                ..Marker::default()
            }),
            (Ok(Some(marker)), Some(_)) => Some(marker),
            (Ok(Some(marker)), None) => {
                let event = AuditEvent::SessionQuarantined(Box::new(SessionQuarantined {
                    agent_id: marker.agent_id.clone(),
                    code: Code::from(marker.code.clone()),
                    reason: marker.reason.clone(),
                }));
                if let Err(e) = self.record_and_apply(state, session_correlation(session), &event).await {
                    tracing::warn!(error = %e, "the quarantine could not be recorded yet");
                }
                Some(marker)
            }
            (Ok(None), Some(q)) => {
                let marker = Marker { code: q.code.to_string(), reason: q.reason, ..Marker::default() };
                if let Err(e) = storage.quarantine(session, &marker) {
                    tracing::warn!(error = %e, "the quarantine marker could not be written again");
                }
                Some(marker)
            }
            (Ok(None), None) => None,
        }
    }

    /// Quarantines `session` (H-28): marker first (it holds without the store), then the event.
    async fn quarantine(
        &self,
        state: &mut SessionRecords,
        session: &str,
        storage: &HookStorage,
        agent_id: Option<&str>,
        cause: &HookFailure,
    ) {
        quarantine_unrecorded(storage, session, agent_id, &cause.code, &cause.reason);
        if state.quarantined.contains_key(session) {
            return;
        }
        let event = AuditEvent::SessionQuarantined(Box::new(SessionQuarantined {
            agent_id: agent_id.map(str::to_owned),
            code: cause.code.clone(),
            reason: cause.reason.clone(),
        }));
        if let Err(e) = self.record_and_apply(state, session_correlation(session), &event).await {
            tracing::warn!(error = %e, "the quarantine could not be recorded; the marker holds it");
        }
    }

    /// A spawn, decided on `state`: the records [`Warden::hook_input`] caught up for this call
    /// (V-37: not caught up, and copied, a second time).
    async fn hook_spawn(
        &self,
        state: &mut SessionRecords,
        session: &str,
        harness: &HarnessSettings,
        request: SpawnRequest,
    ) -> Result<HookAnswer, WardenError> {
        let own = &harness.config;
        let persona = request.persona(&own.main_persona);
        let now = self.now();
        let subagents = [request.subagent_type.as_str()];
        let metadata = state.governance.metadata_for(persona, &subagents, now);
        // Issue 22: the gate's request is built typed, not written as JSON and read back.
        let gate_request = Request::from_parts(persona, &subagents, metadata, Some(session));
        // The hook always checks the records (G-20, G-21), the manifests among the sealed files.
        let mut read = ReadDigests::new();
        self.read_context_digests(&mut read).await;
        // The manifests the walk uses are the bytes compared with the seal (T-11).
        let manifests = self.sealed_manifests(&mut read).await;
        let records = GateRecords { require: true, approvals: state.governance.clone(), read };
        let (evaluation, _) = self.assess_delegation(gate_request, Some(records)).await;
        let facts = SpawnFacts {
            main_persona: &own.main_persona,
            builtin_agents: &own.builtin_agents,
            terms: harness.terms,
            tree: state.session_ref(session),
            gate: evaluation.report,
            manifests: manifests.as_deref().map_err(|e| FactError::new(e.to_string())),
        };
        let event = evaluate_spawn(&request, facts);
        let first_failure = event.first_failure.clone();
        let recorded = self
            .record_and_apply(
                state,
                session_correlation(session),
                &AuditEvent::SpawnEvaluated(Box::new(event)),
            )
            .await;
        Ok(spawn_answer(
            first_failure.as_ref(),
            recorded.map(drop).map_err(|e| FactError::new(e.to_string())),
        ))
    }

    /// A subagent's start: matched to a pending allowed spawn (H-2), its protected paths
    /// snapshotted for its stop. A start of an agent already running in the session is recorded
    /// and replaces nothing (H-54): it matches no pending spawn and takes no snapshot. An agent's
    /// first snapshot is never replaced — a start after its stop (resumed, H-21) keeps it.
    async fn hook_start(
        &self,
        state: &mut SessionRecords,
        session: &str,
        agent: CallingAgent,
        root: &Path,
        own_root: bool,
        storage: &HookStorage,
    ) -> Result<HookAnswer, WardenError> {
        let tree = state.session_ref(session);
        let running = tree.agents.get(&agent.agent_id).filter(|a| !a.stopped).cloned();
        let matched = match &running {
            Some(_) => None,
            None => tree.match_start(&agent.agent_type).cloned(),
        };
        let kept = match &self.snapshots {
            Some(store) => store.read_snapshot(session, &agent.agent_id).await.map(|found| found.is_some()),
            None => Ok(false),
        };
        let snapshot = match kept {
            // Kept, read or not: a stop finds out a snapshot that does not decode (H-54).
            Ok(true) => true,
            Err(e) => {
                tracing::warn!(error = %e, "the agent's snapshot could not be looked up");
                false
            }
            // The content, not only the digests, kept in Warden's own storage (U-12, U-14).
            Ok(false) => match self.guard_capture(root).await {
                Ok(content) => self.save_snapshot(session, &agent.agent_id, root, &content, storage).await,
                Err(why) => {
                    tracing::warn!(why = %why, "the protected paths could not be snapshotted");
                    false
                }
            },
        };
        let event = match running {
            Some(known) => SubagentStarted {
                agent_id: agent.agent_id,
                agent_type: agent.agent_type,
                tool_use_id: None,
                parent: known.parent,
                depth: known.depth,
                snapshot,
                root: known.root,
                repeated: true,
            },
            None => SubagentStarted {
                agent_id: agent.agent_id,
                agent_type: agent.agent_type,
                tool_use_id: matched.as_ref().map(|p| p.tool_use_id.clone()),
                parent: matched.as_ref().and_then(|p| p.parent.clone()),
                depth: matched.as_ref().map(|p| p.depth),
                snapshot,
                root: own_root.then(|| root.display().to_string()),
                repeated: false,
            },
        };
        self.record_and_apply(
            state,
            session_correlation(session),
            &AuditEvent::SubagentStarted(Box::new(event)),
        )
        .await?;
        Ok(HookAnswer::silent())
    }

    /// Keeps the start's snapshot in the store, and a copy beside it for a stop the store
    /// cannot serve (H-33; best effort: without the copy such a stop reverts nothing).
    async fn save_snapshot(
        &self,
        session: &str,
        agent_id: &str,
        root: &Path,
        content: &ContentSnapshot,
        storage: &HookStorage,
    ) -> bool {
        let (Some(store), Ok(bytes)) = (&self.snapshots, content.encode()) else { return false };
        if let Err(e) = storage.write_snapshot(session, agent_id, root, &bytes) {
            tracing::warn!(error = %e, "the snapshot copy could not be written");
        }
        store.write_snapshot(session, agent_id, bytes).await.is_ok()
    }

    async fn load_snapshot(&self, session: &str, agent_id: &str) -> Result<ContentSnapshot, String> {
        let Some(store) = &self.snapshots else { return Err("no snapshot store is configured".into()) };
        match store.read_snapshot(session, agent_id).await {
            // Decoding checks every entry's bytes against its digest (U-13).
            Ok(Some(bytes)) => ContentSnapshot::decode(&bytes).map_err(|e| e.to_string()),
            Ok(None) => Err("no snapshot of the protected paths was taken when it started".into()),
            Err(e) => Err(e.to_string()),
        }
    }

    /// What a stop of `agent_id` at `root` puts the protected paths back to. A subagent checked
    /// at the workspace root is held to the session's snapshot when there is one, never to its
    /// own: taken later, its own may hold a change the session's stop has put back since, which
    /// its stop would otherwise bring back (H-47). A subagent in a worktree of its own, and a
    /// session Warden did not see start, keep the agent's own. With the session's comes the
    /// agent's own, when there is one, to tell what it changed from what it found changed.
    async fn baseline(
        &self,
        session: &str,
        agent_id: &str,
        root: &Path,
    ) -> Result<(ContentSnapshot, Option<ContentSnapshot>), String> {
        if agent_id != ROOT_ID
            && root == self.config.root
            && let Ok(session_snapshot) = self.load_snapshot(session, ROOT_ID).await
        {
            return Ok((session_snapshot, self.load_snapshot(session, agent_id).await.ok()));
        }
        Ok((self.load_snapshot(session, agent_id).await?, None))
    }

    /// The protected paths under `root` compared with what its stop holds `agent_id` to (the
    /// snapshot kept at its start, or the session's, H-47), and put back: the violation found
    /// (reverted or not), none, or why there is no snapshot to check against. A violation
    /// reverted but not recorded is kept pending until the log can be written (H-33).
    async fn guard_against_snapshot(
        &self,
        session: &str,
        agent_id: &str,
        root: &Path,
        storage: &HookStorage,
    ) -> Result<Option<agentwarden_domain::guardrails::Violation>, FactError> {
        let (before, own) = self.baseline(session, agent_id, root).await.map_err(FactError::from)?;
        let artifacts = pending::artifacts(root, session, agent_id);
        let target =
            GuardTarget { root, item: agent_id, run: session, session: Some(session), artifacts: &artifacts };
        // Restored from the content kept at the start: a commit inside the agent launders
        // nothing, and no git is needed (U-14).
        let outcome = match &own {
            // What the agent changed told from what it found changed (H-47).
            Some(own) => self.check_guardrails_restoring_attributed(&target, &before, &own.manifest).await,
            None => self.check_guardrails_restoring(&target, &before).await,
        };
        if let (Some(violation), None) = (&outcome.violation, outcome.audit) {
            // Reverted, not recorded: kept until the log can be written (H-33).
            let marker = Marker {
                code: Code::StoreUnavailable.to_string(),
                reason: "the guardrail violation could not be recorded".into(),
                agent_id: Some(agent_id.to_owned()),
                pending: Vec::new(),
            };
            if let Err(e) = self.keep_pending(session, agent_id, storage, &marker, violation.clone()) {
                tracing::error!(error = %e, "the unrecorded violation could not be kept");
            }
        }
        Ok(outcome.violation)
    }

    #[expect(clippy::too_many_arguments, reason = "the stop's facts, each from its own source")]
    async fn hook_stop(
        &self,
        state: &mut SessionRecords,
        session: &str,
        harness: &HarnessSettings,
        agent: CallingAgent,
        stop_hook_active: bool,
        root: &Path,
        storage: &HookStorage,
        in_quarantine: bool,
        ended: bool,
    ) -> Result<HookAnswer, WardenError> {
        let tracked = state.session_ref(session).agents.get(&agent.agent_id).cloned();
        let guard = self.guard_against_snapshot(session, &agent.agent_id, root, storage).await;
        let result_path = tracked.as_ref().and_then(|t| t.result_path.clone());
        let mut result = None;
        if let Some(path) = &result_path {
            let correlation = Correlation {
                session: CorrelationId::new(session).ok(),
                item: CorrelationId::new(agent.agent_id.clone()).ok(),
                ..Correlation::default()
            };
            result = Some(self.validate_result_file(&root.join(path), correlation).await.validation);
        }
        let agent_id = agent.agent_id.clone();
        let decided = evaluate_stop(StopFacts {
            agent,
            stop_hook_active,
            ended,
            guard,
            result_path,
            result,
            terms: harness.terms,
        });
        let recorded = self
            .record_and_apply(
                state,
                session_correlation(session),
                &AuditEvent::SubagentStopped(Box::new(decided.event.clone())),
            )
            .await
            .map(drop)
            .map_err(|e| FactError::new(e.to_string()));
        // The agent's snapshot is kept after its stop, allowed or not: a stop cannot be told
        // from one the agent sent itself, and the agent may go on; its next stop is checked
        // against the same snapshot (H-54).
        if let Err(e) = &recorded {
            // The store cannot be used at a stop: the session is quarantined (marker only) (H-28).
            let why = HookFailure::unrecorded(e);
            quarantine_unrecorded(storage, session, Some(&agent_id), &why.code, &why.reason);
        } else if let Some(cause) = &decided.cause {
            self.quarantine(state, session, storage, Some(&agent_id), cause).await;
        }
        Ok(decided.answer(recorded, in_quarantine))
    }
}

/// The answer when the store cannot be opened (H-28): at a `SubagentStop` the session is
/// quarantined (the marker holds without the store) and the stop blocked with exit 2, and so at
/// the main session's `Stop`, which a repeated stop lets through (H-46); otherwise the deny
/// already known before the store (`fallback`), or exit 2.
///
/// H-33: the stop does not wait for the log to put the protected paths back: they are restored
/// from the snapshot copy beside the store, by a Warden of `config` over a store that refuses
/// everything, and the violation is kept pending until the log can be written.
pub(crate) async fn hook_store_unavailable(
    config: crate::Config,
    storage: &HookStorage,
    input: Option<&HookInput>,
    fallback: Option<HookAnswer>,
    code: Code,
    reason: String,
) -> HookAnswer {
    // The stops' reasons are the text a quarantine marker keeps, code first, composed by the
    // failure's one renderer.
    let why = failure_text(&code, &reason);
    if let Some(input) = input
        && let HookEvent::SessionStop { .. } | HookEvent::SessionEnd { .. } = &input.event
    {
        let store = std::sync::Arc::new(crate::store::UnavailableEventStore::new(why.clone()));
        return match Warden::builder().event_store(store).without_state().config(config).build() {
            Ok(warden) => match &input.event {
                HookEvent::SessionStop { stop_hook_active } => {
                    warden
                        .session_stop_without_store(&input.session_id, *stop_hook_active, storage, &why)
                        .await
                }
                _ => warden.session_end_without_store(&input.session_id, storage, &why).await,
            },
            Err(e) => {
                quarantine_unrecorded(storage, &input.session_id, None, &Code::StoreUnavailable, &why);
                let why = format!("{why}; nothing was put back: {e}");
                failed_text(quarantined_without_store(&why, &input.session_id))
            }
        };
    }
    if let Some(input) = input
        && let HookEvent::SubagentStop { agent, .. } = &input.event
    {
        let store = std::sync::Arc::new(crate::store::UnavailableEventStore::new(why.clone()));
        return match Warden::builder().event_store(store).without_state().config(config).build() {
            Ok(warden) => warden.stop_without_store(&input.session_id, &agent.agent_id, storage, &why).await,
            Err(e) => {
                quarantine_unrecorded(
                    storage,
                    &input.session_id,
                    Some(&agent.agent_id),
                    &Code::StoreUnavailable,
                    &why,
                );
                let why = format!("{why}; nothing was put back: {e}");
                failed_text(quarantined_without_store(&why, &input.session_id))
            }
        };
    }
    fallback.unwrap_or_else(|| HookAnswer::failed(code, reason))
}

/// `code: reason`, the text a stop's reason and a quarantine marker keep of a failure:
/// composed by the one renderer of a failure, [`HookAnswer::failure`], so that a caller passes
/// the code as a value.
pub(crate) fn failure_text(code: &Code, reason: &str) -> String {
    HookAnswer::failed(code.clone(), reason).failure().unwrap_or_else(|| reason.to_owned())
}

/// A failure from a reason composed before its answer, `code: reason` (a store's or a
/// quarantine's, kept as text in a marker): its code read back as a field, or
/// `internal_error` when it names none.
pub(crate) fn failed_text(text: String) -> HookAnswer {
    HookAnswer::failed_from_text(&text).unwrap_or_else(|| HookAnswer::failed(Code::InternalError, text))
}

/// Writes the quarantine marker without the store (H-28); a failure is logged — the caller
/// answers exit 2 or a block anyway.
fn quarantine_unrecorded(
    storage: &HookStorage,
    session: &str,
    agent_id: Option<&str>,
    code: &Code,
    reason: &str,
) {
    let marker = Marker {
        code: code.to_string(),
        reason: reason.to_owned(),
        agent_id: agent_id.map(str::to_owned),
        pending: Vec::new(),
    };
    if let Err(e) = storage.quarantine(session, &marker) {
        tracing::error!(error = %e, "the quarantine marker could not be written");
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use agentwarden_domain::audit::Head;
    use agentwarden_domain::governance::{ApprovalRecord, Approvals, Scope};
    use agentwarden_domain::sessions::SessionRecords;
    use agentwarden_ports::{EventStore, ProjectionStore};

    use super::*;
    use crate::store::MemoryEventStore;
    use crate::testing::FixedLog;

    /// A spawn of a `planner` from the main session of `s`, by the tool call `id`.
    fn spawn(id: &str) -> HookInput {
        HookInput {
            session_id: "s".into(),
            cwd: None,
            event: HookEvent::Spawn(SpawnRequest {
                tool_name: "Task".into(),
                tool_use_id: id.into(),
                subagent_type: "planner".into(),
                builtin: false,
                prompt: String::new(),
                caller: None,
            }),
            attribution: Attribution::Named,
            call: None,
            harness: agentwarden_domain::sessions::HarnessProfile::NEUTRAL,
        }
    }

    /// A tool call of `session` that nothing governs (from `caller`, when given).
    fn tool(session: &str, id: &str, tool_name: &str, caller: Option<(&str, &str)>) -> HookInput {
        HookInput {
            session_id: session.into(),
            cwd: None,
            event: HookEvent::Tool(agentwarden_domain::sessions::ToolCall {
                tool_name: tool_name.into(),
                tool_use_id: Some(id.into()),
                caller: caller.map(|(id, t)| CallingAgent { agent_id: id.into(), agent_type: t.into() }),
                kind: agentwarden_domain::sessions::ToolKind::Other,
                rules_as: agentwarden_domain::lineage::RulesAs::named(tool_name),
                shell: None,
            }),
            attribution: Attribution::Named,
            call: None,
            harness: agentwarden_domain::sessions::HarnessProfile::NEUTRAL,
        }
    }

    /// Not a failure: a harness goes on (an allow, a deny, a block).
    fn decided(answer: &HookAnswer) -> bool {
        !matches!(answer, HookAnswer::Failed { .. })
    }

    fn warden(store: Arc<MemoryEventStore>) -> Warden {
        Warden::builder().store(store).build().unwrap()
    }

    /// A memory store that counts the reads of its log.
    #[derive(Default)]
    struct ReadCounting {
        inner: MemoryEventStore,
        reads: std::sync::atomic::AtomicUsize,
    }

    #[async_trait::async_trait]
    impl EventStore for ReadCounting {
        async fn append(
            &self,
            expected: agentwarden_ports::Expected,
            batch: Vec<agentwarden_domain::audit::EventDraft>,
        ) -> Result<agentwarden_ports::Appended, agentwarden_ports::StoreError> {
            self.inner.append(expected, batch).await
        }
        async fn read(
            &self,
            from: u64,
            limit: usize,
        ) -> Result<Vec<agentwarden_domain::audit::StoredRecord>, agentwarden_ports::StoreError> {
            self.reads.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            self.inner.read(from, limit).await
        }
        async fn head(&self) -> Result<Head, agentwarden_ports::StoreError> {
            self.inner.head().await
        }
    }

    /// A decision holds the records without copying them and puts them back into memory
    /// at the log's head, however it went: the next decisions read nothing of the log, and
    /// memory says what a fold of the whole log says (V-38).
    #[tokio::test]
    async fn each_decision_puts_the_records_back_at_the_head() {
        let dir = tempfile::tempdir().unwrap();
        let storage = HookStorage::new(dir.path().join("hook"));
        let store = Arc::new(ReadCounting::default());
        // The sessions' copies of the configuration are kept apart from the log (H-58).
        let warden = Warden::builder()
            .event_store(store.clone())
            .without_state()
            .snapshot_store(Arc::new(MemoryEventStore::new()))
            .build()
            .unwrap();
        assert!(decided(&warden.hook_input(spawn("t1"), &storage).await));
        let folded = store.reads.load(std::sync::atomic::Ordering::SeqCst);
        let started = HookInput {
            session_id: "s".into(),
            cwd: None,
            event: HookEvent::SubagentStart(CallingAgent {
                agent_id: "a1".into(),
                agent_type: "planner".into(),
            }),
            attribution: Attribution::Named,
            call: None,
            harness: agentwarden_domain::sessions::HarnessProfile::NEUTRAL,
        };
        let session_start = |session: &str| HookInput {
            session_id: session.into(),
            event: HookEvent::SessionStart,
            ..started.clone()
        };
        let events = [
            session_start("s"),
            session_start("s2"),
            spawn("t2"),
            started,
            tool("s", "t3", "Read", Some(("a1", "planner"))),
            tool("s2", "t4", "Bash", None),
            spawn("t5"),
        ];
        for event in events {
            let answer = warden.hook_input(event.clone(), &storage).await;
            assert!(decided(&answer), "{event:?}: {answer:?}");
        }
        assert_eq!(
            store.reads.load(std::sync::atomic::Ordering::SeqCst),
            folded,
            "no decision after the first read the log: each found the records at the head"
        );
        let head = store.head().await.unwrap();
        assert!(head.seq >= 5, "the decisions were recorded: {head:?}");
        let memory = warden.records().await.unwrap();
        let from_log = Warden::builder().event_store(store.clone()).without_state().build().unwrap();
        assert_eq!(memory, from_log.records_from_log().await.unwrap(), "memory is the log's fold");
        assert_eq!(memory.head, head);
    }

    /// A deferring Warden's answer is released by a sync begun after it was decided,
    /// never by an earlier one.
    #[tokio::test]
    async fn a_deferring_answer_is_released_only_by_a_sync_after_it() {
        let dir = tempfile::tempdir().unwrap();
        let storage = HookStorage::new(dir.path().join("hook"));
        let store = Arc::new(MemoryEventStore::new());
        let deferring = warden(store.clone()).deferring();
        let on_store = |answered| match answered {
            crate::Answered::Pending(pending) => pending,
            crate::Answered::Plain(answer) => panic!("decided without the store: {answer:?}"),
        };
        let early = deferring.sync().await.unwrap();
        let pending = on_store(deferring.decide("", Ok(spawn("t1")), &storage).await);
        assert!(store.head().await.unwrap().seq >= 1, "the decision was appended");
        assert!(pending.release(early).is_err(), "a sync taken before the decision releases nothing");
        let pending = on_store(deferring.decide("", Ok(spawn("t2")), &storage).await);
        let later = deferring.sync().await.unwrap();
        assert!(decided(&pending.release(later).unwrap()));
    }

    #[tokio::test]
    async fn a_saved_state_that_is_not_on_the_log_is_rebuilt_from_the_log() {
        let store = Arc::new(MemoryEventStore::new());
        let warden = warden(store.clone());
        let note = AuditEvent::OperatorNote(agentwarden_domain::events::OperatorNote { message: "n".into() });
        warden.record_event(Correlation::default(), &note).await.unwrap();
        // A forged state: an approval nobody granted, at seq 1 with a hash that is not the log's.
        let forged = SessionRecords {
            head: Head { seq: 1, hash: agentwarden_domain::audit::Hash::from_bytes([7; 32]) },
            governance: Approvals {
                seal: None,
                withdrawn: None,
                approvals: [("FORGED".to_owned(), forged_approval())].into(),
                key_lists: Vec::new(),
            },
            sessions: Default::default(),
            quarantined: Default::default(),
            releases: Default::default(),
        };
        store
            .write_projection(crate::RECORDS_PROJECTION, serde_json::to_vec(&forged).unwrap())
            .await
            .unwrap();
        let state = warden.records().await.unwrap();
        assert_eq!(state.governance, Approvals::default());
        assert_eq!(state.head.seq, 1);
        // An unreadable saved state is rebuilt too.
        store.write_projection(crate::RECORDS_PROJECTION, b"not json".to_vec()).await.unwrap();
        let fresh = self::warden(store.clone());
        assert_eq!(fresh.records().await.unwrap().head, state.head);
    }

    /// An approval the log never granted, as a forged saved state would hold it.
    fn forged_approval() -> ApprovalRecord {
        ApprovalRecord {
            seq: 1,
            approval_ref: "FORGED".into(),
            approved_by: None,
            expires_at: None,
            scope: Scope::default(),
            revoked: None,
            signature: None,
            after: None,
            refused: None,
        }
    }

    /// A saved state on the log's head is a one-shot process's starting point (H-3), and
    /// never the resident Warden's: `folding_from_log` folds from the first event (K-15).
    #[tokio::test]
    async fn a_warden_folding_from_the_log_ignores_a_saved_state_written_outside_it() {
        let store = Arc::new(MemoryEventStore::new());
        let note = AuditEvent::OperatorNote(agentwarden_domain::events::OperatorNote { message: "n".into() });
        warden(store.clone()).record_event(Correlation::default(), &note).await.unwrap();
        let mut forged = warden(store.clone()).records().await.unwrap();
        forged.governance.approvals.insert("FORGED".to_owned(), forged_approval());
        store
            .write_projection(crate::RECORDS_PROJECTION, serde_json::to_vec(&forged).unwrap())
            .await
            .unwrap();
        let trusting = warden(store.clone()).records().await.unwrap();
        assert!(trusting.governance.approvals.contains_key("FORGED"), "the one-shot path starts from it");
        let resident = warden(store.clone()).folding_from_log();
        assert_eq!(resident.records().await.unwrap().governance, Approvals::default());
        // And what it folded replaced the forged state.
        assert!(!warden(store.clone()).records().await.unwrap().governance.approvals.contains_key("FORGED"));
    }

    #[tokio::test]
    async fn records_caught_up_are_saved_so_that_the_next_process_does_not_fold_them_again() {
        let store = Arc::new(MemoryEventStore::new());
        let writer = warden(store.clone());
        let note = AuditEvent::OperatorNote(agentwarden_domain::events::OperatorNote { message: "n".into() });
        for _ in 0..3 {
            writer.record_event(Correlation::default(), &note).await.unwrap();
        }
        warden(store.clone()).records().await.unwrap();
        let saved = store.read_projection(crate::RECORDS_PROJECTION).await.unwrap().unwrap();
        let saved: SessionRecords = serde_json::from_slice(&saved).unwrap();
        assert_eq!(saved.head.seq, 3, "a hook call that records nothing still saves what it folded");
    }

    #[tokio::test]
    async fn an_event_another_writer_appended_in_between_is_never_skipped() {
        use agentwarden_domain::governance::{ApprovalGranted, ApprovalRevoked};
        let store = Arc::new(MemoryEventStore::new());
        let grant = AuditEvent::ApprovalGranted(ApprovalGranted {
            approval_ref: "G".into(),
            approved_by: None,
            expires_at: None,
            scope: Scope::default(),
            signature: None,
        });
        let ours = warden(store.clone());
        ours.record_event(Correlation::default(), &grant).await.unwrap();
        let mut state = ours.records().await.unwrap();
        assert!(state.governance.approvals["G"].revoked.is_none());
        // Another process revokes G between our read and our write.
        let revoke = AuditEvent::ApprovalRevoked(ApprovalRevoked {
            approval_ref: Some("G".into()),
            by: None,
            signature: None,
        });
        warden(store.clone()).record_event(Correlation::default(), &revoke).await.unwrap();
        let note = AuditEvent::OperatorNote(agentwarden_domain::events::OperatorNote { message: "n".into() });
        let head = ours.record_and_apply(&mut state, Correlation::default(), &note).await.unwrap();
        assert_eq!(head.seq, 3);
        let caught_up = ours.records().await.unwrap();
        assert_eq!(caught_up.head, head);
        assert!(caught_up.governance.approvals["G"].revoked.is_some(), "the revoke in between is folded");
    }

    #[tokio::test]
    async fn a_log_that_does_not_verify_is_exit_2_never_a_decision() {
        let store = Arc::new(MemoryEventStore::new());
        let honest = warden(store.clone());
        for _ in 0..2 {
            let seal = AuditEvent::ContextSealed(agentwarden_domain::governance::ContextSealed {
                by: None,
                files: Default::default(),
                signature: None,
                key_list: None,
                texts: Default::default(),
            });
            honest.record_event(Correlation::default(), &seal).await.unwrap();
        }
        let mut records = store.read(1, 10).await.unwrap();
        let body = String::from_utf8(records[1].body.clone()).unwrap().replace("\"by\":null", "\"by\":\"x\"");
        records[1].body = body.into_bytes();
        let warden =
            Warden::builder().event_store(Arc::new(FixedLog(records))).without_state().build().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let answer = warden.hook_input(spawn("t1"), &HookStorage::new(dir.path())).await;
        assert!(answer.failure().is_some_and(|why| why.starts_with("store_corrupt")), "{answer:?}");
    }

    #[test]
    fn a_worktree_is_its_agents_root_and_a_subdirectory_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("p");
        let tree = dir.path().join("wt");
        for d in [root.join(".git"), root.join("sub"), tree.clone()] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(tree.join(".git"), "gitdir: ../p/.git/worktrees/wt\n").unwrap();
        let text = |p: &Path| p.display().to_string();
        assert_eq!(agent_root(&root, Some(&text(&tree))), Some(std::fs::canonicalize(&tree).unwrap()));
        assert_eq!(agent_root(&root, Some(&text(&root))), None, "the project itself");
        assert_eq!(agent_root(&root, Some(&text(&root.join("sub")))), None, "a subdirectory");
        assert_eq!(agent_root(&root, Some("wt")), None, "relative");
        assert_eq!(agent_root(&root, None), None);
    }

    /// An index that says what the records say is left as it is (the same file); one
    /// that says anything else (here: an agent listed as tracked) is rewritten (V-32).
    #[tokio::test]
    async fn the_index_is_rewritten_only_when_what_it_says_changed() {
        use std::os::unix::fs::MetadataExt;
        let store = Arc::new(MemoryEventStore::new());
        let warden = warden(store.clone());
        let dir = tempfile::tempdir().unwrap();
        let storage = HookStorage::new(dir.path());
        let bash = || tool("s", "t2", "Bash", None);
        // The session's start keeps its configuration, which decides its calls (H-58).
        let start = HookInput { event: HookEvent::SessionStart, ..bash() };
        assert!(decided(&warden.hook_input(start, &storage).await));
        assert!(decided(&warden.hook_input(bash(), &storage).await));
        let written = storage.read_index("s").unwrap();
        let path = dir.path().join("sessions/s.json");
        let inode = std::fs::metadata(&path).unwrap().ino();
        let note = AuditEvent::OperatorNote(agentwarden_domain::events::OperatorNote { message: "n".into() });
        warden.record_event(Correlation::default(), &note).await.unwrap();
        assert!(decided(&warden.hook_input(bash(), &storage).await));
        assert_eq!(std::fs::metadata(&path).unwrap().ino(), inode, "nothing changed: not rewritten");
        assert_eq!(storage.read_index("s"), Some(written.clone()));
        let mut forged = written.clone();
        forged.tracked.insert("agent-x".into(), "coder".into());
        storage.write_index(&forged).unwrap();
        assert!(decided(&warden.hook_input(bash(), &storage).await));
        let now = storage.read_index("s").unwrap();
        assert!(now.tracked.is_empty(), "the forged entry is gone: {now:?}");
        assert!(now.head > written.head);
    }

    #[tokio::test]
    async fn a_decision_that_cannot_be_recorded_is_a_deny() {
        let store = Arc::new(MemoryEventStore::new());
        let records = store.read(1, 10).await.unwrap();
        let warden =
            Warden::builder().event_store(Arc::new(FixedLog(records))).without_state().build().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let answer = warden.hook_input(spawn("t1"), &HookStorage::new(dir.path())).await;
        let HookAnswer::Deny { reason } = answer else { panic!("a deny: {answer:?}") };
        assert!(reason.as_str().contains("audit (audit_unavailable)"), "{reason}");
    }
}
