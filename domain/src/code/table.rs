//! The reason codes and where `docs/codes.md` lists them (X-1): one variant per code, with each
//! of its usages — the table, the table's middle column (what emits it, or the gate, layer or
//! stage), and its meaning. Rows of a table are rendered in the order of the variants.
//! A new code is a new entry here, in the same change that emits it.

super::codes! {
    StoreConflict = "store_conflict" {
        Store(
            "`StoreError::Conflict`",
            "an append expected the log's head at another seq (optimistic concurrency)",
        ),
    }
    StoreEmptyBatch = "store_empty_batch" {
        Store("`StoreError::EmptyBatch`", "an append carried no event"),
    }
    StoreAlreadyWritten = "store_already_written" {
        Store(
            "`StoreError::AlreadyWritten`",
            "a value written once per key (a fan-out's merged result, F-10) is already there; the first write \
             stands",
        ),
    }
    StoreLocked = "store_locked" {
        Store("`StoreError::Locked`", "another process held the embedded store past the configured wait"),
    }
    StoreMissing = "store_missing" {
        Store(
            "`StoreError::Missing`",
            "a reader found no store where one was expected (readers never create one)",
        ),
    }
    StoreNotAStore = "store_not_a_store" {
        Store(
            "`StoreError::NotAStore`",
            "the store's path is a file, or a directory that holds no Warden store: a usage error (N-4)",
        ),
    }
    StoreCorrupt = "store_corrupt" {
        Store(
            "`StoreError::Corrupt`",
            "the store is not an Agent Warden store, or its chain does not verify",
        ),
    }
    StoreUnavailable = "store_unavailable" {
        Store(
            "`StoreError::Unavailable`, `StoreError::Poisoned`",
            "an I/O failure, or a store that refuses writes after a failed flush",
        ),
        Server(
            "the server",
            "a `decide` request's events could not be made durable (a failed sync), or the server's log \
             refuses writes since one (X-75)",
        ),
        Decision("audit", "quarantine cause: the store could not be used at a stop (H-28)"),
    }
    InternalError = "internal_error" {
        Store("`WardenError::Event`", "an event could not be built; a decision that meets it is a deny"),
        Server(
            "the server",
            "the decider thread is gone, or an answer could not be encoded as a frame (X-75)",
        ),
    }
    ChainBroken = "chain_broken" {
        Store(
            "`WardenError::Broken`",
            "an investigation (`explain`, `replay`, `timeline`, `Warden::replay`) found the hash chain \
             broken at a seq before the events it needed, and refused to answer (A-11)",
        ),
    }
    EventUndecodable = "event_undecodable" {
        Store(
            "`WardenError::Undecodable`",
            "an investigation met an event it cannot read as today's type — unknown type, newer version, \
             wrong shape — and refused to answer without it (A-12)",
        ),
    }
    AdaptersIncomplete = "adapters_incomplete" {
        Store(
            "`WardenError::Incomplete`",
            "`WardenBuilder::build` was given an event store but not every state port, and not \
             `.without_state()`: the missing ports are named (X-21)",
        ),
    }
    InvalidInput = "invalid_input" {
        Store(
            "`WardenError::Invalid`, `WardenError::Config`",
            "an actor or correlation id that is empty, too long, or holds a control character; a \
             configuration file that cannot be used",
        ),
    }
    LogKeyUnusable = "log_key_unusable" {
        Store(
            "`warden audit checkpoint`, `warden audit keygen`",
            "the log's signing key is missing, not a regular file, readable or writable by group or others, \
             over 4 KiB, not `PRIVATE+KEY+NAME+ID+KEY` of an Ed25519 key, or its id is not its key's; \
             `keygen` refuses a file that exists; exit 2 (A-30)",
        ),
    }
    CheckpointInvalid = "checkpoint_invalid" {
        Store(
            "`warden audit verify`, `prove`, `verify-proof`, `witness`",
            "the checkpoint is not a signed note holding a checkpoint (A-26), or the verifier key is not \
             `NAME+ID+KEY` of an Ed25519 key; exit 2",
        ),
    }
    CheckpointSignatureInvalid = "checkpoint_signature_invalid" {
        Store(
            "`warden audit verify`, `prove`, `verify-proof`, `witness`",
            "no signature of the checkpoint is by the verifier key, one by that key does not verify, or the \
             checkpoint's origin is not the key's name; exit 1 (A-32)",
        ),
    }
    CheckpointInconsistent = "checkpoint_inconsistent" {
        Store(
            "`warden audit verify`, `prove`, `witness`",
            "the log does not extend the checkpoint: it holds fewer events (truncated, or an older copy), or \
             its first events are not those the checkpoint signed (rewritten, or a fork); exit 1 (A-33)",
        ),
    }
    ProofMalformed = "proof_malformed" {
        Store("`warden audit verify-proof`", "the inclusion proof is not well formed (A-31); exit 2"),
    }
    ProofInvalid = "proof_invalid" {
        Store(
            "`warden audit verify-proof`",
            "the event, its position and its proof do not lead to the checkpoint's root, or the proof is of \
             a tree of another size: the event is not in the log the checkpoint signed; exit 1",
        ),
    }
    WitnessRollback = "witness_rollback" {
        Store(
            "`warden witness add-checkpoint`",
            "the checkpoint has fewer events than the last one the witness cosigned for that log; exit 1 (A-34)",
        ),
    }
    WitnessFork = "witness_fork" {
        Store(
            "`warden witness add-checkpoint`",
            "the checkpoint has the size of the witness's last with another root, or the consistency proof from \
             the witness's last does not hold: two histories; exit 1 (A-34)",
        ),
    }
    WitnessConflict = "witness_conflict" {
        Store(
            "`warden witness add-checkpoint`",
            "the request's proof starts from another size than the witness's last checkpoint (the spec's 409; \
             the reason names the witness's size); exit 1 (A-34)",
        ),
    }
    WitnessQuorumUnmet = "witness_quorum_unmet" {
        Store(
            "`warden audit verify --witness`",
            "fewer distinct witness keys of those given than `--quorum` cosigned the checkpoint; a cosignature \
             by any other key does not count; exit 1 (A-38)",
        ),
    }
    WitnessPolicyInvalid = "witness_policy_invalid" {
        Store(
            "`warden audit verify --checkpoint`",
            "the configuration's `[audit] witnesses`/`quorum` cannot be used: a key that is not `NAME+ID+KEY` of \
             a cosignature key, a quorum of none or larger than its distinct keys, a quorum without witnesses; \
             exit 2 (A-41)",
        ),
    }
    WitnessPolicyUnsealed = "witness_policy_unsealed" {
        Store(
            "`warden audit verify --checkpoint`",
            "the configuration verify runs with is not the one the seal in force covers (changed, missing, not \
             sealed), or it names witnesses and no seal is recorded: its witness policy is not the human's; \
             exit 1 (A-41)",
        ),
    }
    EventWithheld = "event_withheld" {
        Store(
            "`warden audit prove` through a server",
            "the server gave the proof's path but not the event's body, which it gives only to a peer running as \
             its own user or root; exit 1 (V-66)",
        ),
    }
    EnvNotEnabled = "env_not_enabled" {
        Gate("environment", "the kill-switch variable is unset, not Unicode, or not exactly `true` (G-2)"),
    }
    RequestInvalid = "request_invalid" {
        Gate(
            "persona_allowlist, metadata_presence",
            "the request is not JSON, not an object, or a field has the wrong type",
        ),
        Server(
            "the server",
            "a frame that declares a key twice, at any depth (V-50); a `guard_check` question whose snapshot \
             cannot be read or is not one (V-54), or a peer whose uid cannot be read (V-18)",
        ),
    }
    RequestUnreadable = "request_unreadable" {
        Gate(
            "persona_allowlist, metadata_presence",
            "the request file is missing, too large, not UTF-8, or not a regular file",
        ),
    }
    DuplicateKey = "duplicate_key" {
        Gate(
            "persona_allowlist, metadata_presence",
            "the request holds a duplicated JSON key: it is ambiguous (G-5)",
        ),
        Parser("", "a key declared twice (YAML frontmatter, body header, or JSON)"),
    }
    NameNotIdentifier = "name_not_identifier" {
        Gate(
            "persona_allowlist; candidates",
            "a persona or subagent name that is not a plain identifier (`../x`, `a/b`, NUL…)",
        ),
    }
    PersonaMissing = "persona_missing" {
        Gate("persona_allowlist", "the persona has no instruction file"),
    }
    PersonaUnreadable = "persona_unreadable" {
        Gate("persona_allowlist", "the persona's file exists but cannot be read"),
    }
    PersonaInvalid = "persona_invalid" {
        Gate("persona_allowlist", "the persona's file does not parse (the parser's code is in the reason)"),
    }
    PersonaNoFrontmatter = "persona_no_frontmatter" {
        Gate("persona_allowlist", "the persona's file has no frontmatter, so it declares nothing"),
    }
    PersonaNoSubagents = "persona_no_subagents" {
        Gate("persona_allowlist", "`subagents` is absent or an empty list"),
    }
    SubagentsNotList = "subagents_not_list" {
        Gate("persona_allowlist", "`subagents` is a number, boolean or null, not names"),
    }
    SubagentsInvalid = "subagents_invalid" {
        Gate("persona_allowlist", "an entry of `subagents` is not a plain name"),
    }
    MetadataMissing = "metadata_missing" {
        Gate("metadata_presence (and the gates after it)", "the request has no `opts.subagentGovernance`"),
    }
    MetadataNotObject = "metadata_not_object" {
        Gate("metadata_presence", "`subagentGovernance` is an array, string, number, boolean or null"),
    }
    FieldMissing = "field_missing" {
        Gate("context_sealed, pipeline_run_approved", "the field is absent"),
    }
    NotBooleanTrue = "not_boolean_true" {
        Gate("context_sealed, pipeline_run_approved", "the field is not JSON `true` (G-4)"),
    }
    ApprovalRefMissing = "approval_ref_missing" {
        Gate("approval_ref", "`approvalRef` is absent"),
    }
    ApprovalRefNotString = "approval_ref_not_string" {
        Gate("approval_ref", "`approvalRef` is not a string"),
    }
    ApprovalRefEmpty = "approval_ref_empty" {
        Gate("approval_ref", "`approvalRef` is empty or only whitespace"),
    }
    ApprovalRefTooLong = "approval_ref_too_long" {
        Gate("approval_ref", "`approvalRef` is longer than 256 characters"),
    }
    ApprovalRefControlCharacter = "approval_ref_control_character" {
        Gate("approval_ref", "`approvalRef` holds a control character"),
    }
    SealNotRecorded = "seal_not_recorded" {
        Gate("context_sealed", "recorded approval is required and no seal is in force (G-20)"),
    }
    SealedFileChanged = "sealed_file_changed" {
        Gate(
            "context_sealed",
            "a file read for the decision differs from the seal in force: changed, missing, or not sealed — \
             each named (G-20)",
        ),
    }
    ApprovalNotRecorded = "approval_not_recorded" {
        Gate("approval_ref", "recorded approval is required and `approvalRef` was never granted (G-21)"),
    }
    ApprovalRevoked = "approval_revoked" {
        Gate("approval_ref", "the approval was revoked (G-21)"),
    }
    ApprovalExpired = "approval_expired" {
        Gate("approval_ref", "the approval's expiry has passed (G-21)"),
    }
    ApprovalOutOfScope = "approval_out_of_scope" {
        Gate("approval_ref", "the approval's scope does not cover this persona or these subagents (G-21)"),
    }
    SignatureMissing = "signature_missing" {
        Gate(
            "context_sealed, approval_ref",
            "`[approvals] allowed_signers` is configured and the seal or approval carries no signature \
             (K-3); also `warden seal`/`approve` without `--key` (exit 1)",
        ),
    }
    SignatureMalformed = "signature_malformed" {
        Gate("context_sealed, approval_ref", "the record's signature is not an armored SSHSIG (K-3)"),
    }
    SignatureWrongNamespace = "signature_wrong_namespace" {
        Gate(
            "context_sealed, approval_ref",
            "the signature was made for another namespace than `agentwarden` (K-3)",
        ),
    }
    SignatureWrongHead = "signature_wrong_head" {
        Gate(
            "context_sealed, approval_ref",
            "the signature names another head of the log than the record's predecessor: replayed, or copied \
             whole from another record (K-2)",
        ),
    }
    SignerNotAllowed = "signer_not_allowed" {
        Gate(
            "context_sealed, approval_ref",
            "the signing key is not listed in `allowed_signers` for the record's principal and namespace \
             `agentwarden` (K-3); also the CLI's refusal of such a key or `--by` (exit 1)",
        ),
    }
    SignatureInvalid = "signature_invalid" {
        Gate(
            "context_sealed, approval_ref",
            "the signature does not verify over the record's bytes: forged, or copied from a record with \
             other content (K-3)",
        ),
    }
    SignersUnavailable = "signers_unavailable" {
        Gate(
            "context_sealed, approval_ref",
            "`allowed_signers` cannot be read or parsed (K-4), so no record's signature can be checked: \
             none counts",
        ),
    }
    KeyRotationRefused = "key_rotation_refused" {
        Gate(
            "context_sealed",
            "a seal that changes the pinned `allowed_signers` is not signed by a key of the list pinned \
             before it, does not carry the list it sealed, or the pinned list is not in the log (K-14); \
             also `warden seal --key` refusing such a change (exit 1)",
        ),
    }
    NoCandidateDelegated = "no_candidate_delegated" {
        Gate("candidates", "every gate passed, but no candidate may be delegated"),
    }
    AuditUnavailable = "audit_unavailable" {
        Gate("audit", "the decision could not be recorded, so an allow became a deny (G-10)"),
    }
    NotDeclared = "not_declared" {
        Candidate("", "the persona does not declare this subagent"),
    }
    AgentNotRegistered = "agent_not_registered" {
        Candidate("", "the subagent has no instruction file"),
    }
    AgentUnreadable = "agent_unreadable" {
        Candidate("", "its file exists but cannot be read"),
    }
    AgentInvalid = "agent_invalid" {
        Candidate("", "its file does not parse (the parser's code is in the reason)"),
    }
    AgentTypeMissing = "agent_type_missing" {
        Candidate("", "no `AGENT_TYPE` in the frontmatter or the body header"),
    }
    AgentTypeNot2 = "agent_type_not_2" {
        Candidate("", r#"`AGENT_TYPE` is not the plain integer `2` (`"2"`, `2.0`, `02`, `3`…)"#),
    }
    AgentTypeConflict = "agent_type_conflict" {
        Candidate("", "the frontmatter and the body header declare different `AGENT_TYPE`s (G-3)"),
    }
    AgentClassConflict = "agent_class_conflict" {
        Candidate("", "the frontmatter and the body header declare different `AGENT_CLASS`es (G-3)"),
    }
    GatesFailed = "gates_failed" {
        Candidate("", "the subagent itself is eligible, but a global gate failed"),
    }
    FrontmatterUnterminated = "frontmatter_unterminated" {
        Parser("", "a frontmatter block without its closing `---`"),
    }
    TextBeforeFrontmatter = "text_before_frontmatter" {
        Parser("", "text before a `---` block that looks like frontmatter"),
    }
    SecondFrontmatter = "second_frontmatter" {
        Parser("", "a second frontmatter block right after the first"),
    }
    UnsupportedYaml = "unsupported_yaml" {
        Parser("", "YAML outside the accepted subset (nested mappings, anchors, tags, block scalars…)"),
    }
    UnterminatedQuote = "unterminated_quote" {
        Parser("", "a quoted scalar without its closing quote"),
    }
    InvalidLine = "invalid_line" {
        Parser("", "a line that is not `key: value`, a list item, a comment or blank"),
    }
    JsonSyntax = "json_syntax" {
        Parser("", "not JSON"),
    }
    JsonTooDeep = "json_too_deep" {
        Parser("", "JSON nested deeper than 64 levels"),
    }
    RootDepthNotZero = "root_depth_not_zero" {
        Lineage("", "the lineage's root claims a `spawn_depth` other than 0"),
    }
    AgentRepeated = "agent_repeated" {
        Lineage("", "an agent id appears twice: a cycle (L-3)"),
    }
    UnknownParent = "unknown_parent" {
        Lineage("", "a parent's type has no manifest"),
    }
    DepthNotConsecutive = "depth_not_consecutive" {
        Lineage("", "a child's depth is not its parent's plus one: a spoofed depth (L-2)"),
    }
    DepthExceeded = "depth_exceeded" {
        Lineage("", "a child is deeper than its parent's `max_spawn_depth`"),
    }
    SpawnNotAllowed = "spawn_not_allowed" {
        Lineage("", "the parent's `can_spawn` does not list the child's type"),
    }
    AgentNotLast = "agent_not_last" {
        Lineage("", "the lineage does not end with the acting agent (layer 3 of `authorize`)"),
    }
    UnknownAgent = "unknown_agent" {
        Layer("1 capability", "the acting agent's type has no manifest"),
    }
    ToolNotAllowed = "tool_not_allowed" {
        Layer("1 capability", "the acting agent's manifest does not list the tool"),
    }
    UnknownAncestor = "unknown_ancestor" {
        Layer("2 delegation", "an ancestor's type has no manifest"),
    }
    AncestorLacksTool = "ancestor_lacks_tool" {
        Layer("2 delegation", "an ancestor may not use the tool: a child cannot gain it by being spawned"),
    }
    ManifestsUnavailable = "manifests_unavailable" {
        Loading("", "the manifests could not be loaded (missing, unknown key, duplicate type…)"),
    }
    ResultUnreadable = "result_unreadable" {
        Result("", "the file is missing, larger than 1 MiB, not UTF-8, or not a regular file"),
    }
    NotObject = "not_object" {
        Result("", "the document is not a JSON object"),
    }
    WrongVersion = "wrong_version" {
        Result("", "`schema_version` is a string other than exactly `1.0`"),
    }
    WrongType = "wrong_type" {
        Result("", "a field or array member has the wrong JSON type"),
    }
    EmptyString = "empty_string" {
        Result("", "`summary`, `kr_impact_claim` or an array member is empty or only whitespace"),
    }
    UnknownField = "unknown_field" {
        Result("", "a field outside the five of the schema"),
    }
    MissingField = "missing_field" {
        Result("", "one of the five fields is absent"),
    }
    HookInputEmpty = "hook_input_empty" {
        HookInput("", "nothing, or only whitespace, on stdin"),
    }
    HookInputTooLarge = "hook_input_too_large" {
        HookInput("", "more than 1 MiB on stdin"),
    }
    HookInputInvalid = "hook_input_invalid" {
        HookInput("", "not JSON, a duplicated key, or not an object"),
    }
    HookInputMissingField = "hook_input_missing_field" {
        HookInput(
            "",
            "a field the kernel needs is missing: the session, the event's name, the tool's name, the tool \
             call's id or input, the subagent type, or (for an agent's start or stop) its id and type",
        ),
    }
    HookInputWrongType = "hook_input_wrong_type" {
        HookInput(
            "",
            "one of those fields of the wrong type, empty, or (`session_id`) not usable as a correlation id",
        ),
    }
    HookInputUnsafeId = "hook_input_unsafe_id" {
        HookInput(
            "",
            "`session_id`, `agent_id` or `tool_use_id` is not 1–128 of `A-Z a-z 0-9 _ - .` or starts with \
             `.` (H-25)",
        ),
    }
    ConfigInvalid = "config_invalid" {
        HookInput("", "the configuration file cannot be read or parsed"),
        Server(
            "the server, the thin client",
            "the configuration a `decide` request names cannot be read or parsed by the server; the \
             client's own cannot be found, read or parsed, or its `[server] uid` disagrees with \
             `--server-uid` (V-12, V-53, X-75)",
        ),
    }
    DeadlinePassed = "deadline_passed" {
        HookInput(
            "",
            "no answer within `--deadline-ms` (the store busy or locked, a slow file system): a failure \
             before the harness's timeout would let the call run (H-10)",
        ),
        Server(
            "the server",
            "a hook's event was not decided within the request's `deadline_ms` (or the server's own \
             limit): its `failed` answer carries the code (X-93)",
        ),
    }
    ServerUnavailable = "server_unavailable" {
        Server(
            "the thin client",
            "a server is configured but cannot be reached, closed the connection, or did not answer within \
             the hook's deadline (a served command's `--server-timeout-ms`) (V-6, V-14); a server not \
             running as the uid `--server-uid` names (V-12, V-49, V-67)",
        ),
    }
    ServerAnswerInvalid = "server_answer_invalid" {
        Server(
            "the thin client, `warden status`",
            "the server answered something that is not a hook answer of this protocol: not JSON, another \
             version or kind, an unknown decision or a key more, a reason beside `proceed`, a `deny`, \
             `block` or `failed` without a reason or with a blank one, a `failed` without its `code` or \
             a `code` beside another decision (V-6, V-52, X-93)",
        ),
    }
    TrustRootRefused = "trust_root_refused" {
        Server(
            "every command that asks a server, opens a store or signs",
            "`AGENTWARDEN_SERVER` or `AGENTWARDEN_STORE` is set, or the configuration names a server \
             (`[server] socket`, `uid`) or a store (`[store] url`) the command line does not (`--server`, \
             `--server-uid`, `--store`), or `warden serve` found them in a configuration it was not given \
             with `--config`: nothing the agent can write chooses the decider or the log; exit 2 (V-67)",
        ),
    }
    ServerConfigMismatch = "server_config_mismatch" {
        Server(
            "the server",
            "the hook or command names another configuration file than the server decides with, or a \
             command names none (V-3, V-16)",
        ),
    }
    FrameInvalid = "frame_invalid" {
        Server(
            "the server",
            "a frame that is not one JSON object of a known kind and version, or has an unknown field (V-2)",
        ),
    }
    FrameTooLarge = "frame_too_large" {
        Server("the server", "a frame longer than 1 MiB; the connection is closed after it (V-2)"),
    }
    RequestTimeout = "request_timeout" {
        Server(
            "the server",
            "no complete request within the server's read timeout (`--read-timeout-ms`); the connection is \
             closed (V-7, V-51)",
        ),
    }
    PathRefused = "path_refused" {
        Server(
            "the server",
            "a path of a `decide` request's question leads into the server's store or its socket's \
             directory (V-15)",
        ),
    }
    UsageInvalid = "usage_invalid" {
        Server(
            "`warden-hook`",
            "its command line is not `[--lock-timeout-ms MS] hook [--config FILE] [--server PATH \
             [--server-uid UID]] [--deadline-ms MS]`: an unknown argument, a value missing or not a number, \
             `--store` or `--fsync` (it opens no store); exit 2 (V-34, V-49)",
        ),
    }
    ServerHoldsStore = "server_holds_store" {
        Server(
            "`seal`, `approve`, `revoke`, `release`",
            "a server configured for this project answers: the human verbs are not served and the store is \
             the server's; stop the server, run the verb, start it again (V-17)",
        ),
    }
    AgentUnknown = "agent_unknown" {
        Decision(
            "lineage",
            "the calling subagent (or an ancestor) was never seen starting through a spawn Warden allowed",
        ),
        Decision(
            "identity",
            "the same as at `lineage`, for any other tool call of such a subagent (`hook_tool_evaluated`, \
             H-23)",
        ),
    }
    AgentUntracked = "agent_untracked" {
        Decision(
            "lineage",
            "the calling subagent started without a pending allowed spawn to match (H-2): it may spawn \
             nothing",
        ),
        Decision(
            "identity",
            "the same as at `lineage`, for any other tool call of such a subagent (`hook_tool_evaluated`, \
             H-23)",
        ),
    }
    AgentTypeMismatch = "agent_type_mismatch" {
        Decision("lineage", "the calling subagent claims a type other than the one it started as"),
        Decision(
            "identity",
            "the same as at `lineage`, for any other tool call of such a subagent (`hook_tool_evaluated`, \
             H-23)",
        ),
    }
    CallerAmbiguous = "caller_ambiguous" {
        Decision(
            "lineage",
            "a spawn from a harness that never names its subagents, made while the same spawn still runs \
             (the two would be one agent, M-4); once also a spawn among several running subagents (M-3, \
             superseded by M-22: every such spawn is the main session's)",
        ),
    }
    LineageCycle = "lineage_cycle" {
        Decision("lineage", "the session's spawn tree loops (a corrupt state): denied"),
    }
    InvalidName = "invalid_name" {
        Decision("lineage", "the main persona or the requested type is not a plain name"),
    }
    ProtectedPathChanged = "protected_path_changed" {
        Decision(
            "guardrails",
            "a protected path changed while the subagent ran, or since the main session started (H-46); \
             it was reverted (or the reason says what was not)",
        ),
    }
    SnapshotMissing = "snapshot_missing" {
        Decision(
            "guardrails",
            "no snapshot of the protected paths was taken when the subagent or the main session \
             started: the stop cannot be checked (for the main session, a quarantine cause, H-45)",
        ),
    }
    SessionRulesMissing = "session_rules_missing" {
        Decision(
            "session_rules",
            "no configuration was recorded at the main session's first start, or its copy is missing or \
             corrupt, and no seal holds the rules: the session's tool calls have nothing to be decided with \
             (H-59, H-60)",
        ),
    }
    ResultInvalid = "result_invalid" {
        Decision("result", "the `result.json` the spawn's prompt asked for is missing or invalid"),
    }
    BuiltinAgentDenied = "builtin_agent_denied" {
        Decision(
            "spawn",
            "a built-in agent type of the harness not listed in its `builtin_agents` (H-20)",
        ),
    }
    ProtectedPathWrite = "protected_path_write" {
        Layer(
            "1 capability",
            "a write onto a held name or through a final link, or a known command that writes onto a held name: \
             no rule grants it, the bare tool rule included (T-18, T-19, T-20)",
        ),
        Decision(
            "protected_path",
            "a tool call that writes a file into a protected path (H-26), or onto a held name or through a final \
             link whatever is configured (R-33), a shell line whose text does so included (T-31, T-32)",
        ),
    }
    PathUnresolvable = "path_unresolvable" {
        Layer(
            "1 capability",
            "a path the call names cannot be placed where it lands (a loop of links, a component that cannot be \
             read, a final link to nothing): no rule grants it (T-17)",
        ),
        Decision(
            "protected_path",
            "a tool call that writes a file Warden cannot place (a loop of links, a component that cannot be read, \
             a final link to nothing): it may land in a protected path (R-32)",
        ),
    }
    MessageTargetUnknown = "message_target_unknown" {
        Decision(
            "resume",
            "a message that names no agent, or one Warden did not allow in the session (H-21)",
        ),
    }
    ApprovalNotActive = "approval_not_active" {
        Decision(
            "resume",
            "the agent a message would resume runs under an approval revoked, expired, never \
             recorded, or whose signature does not verify (H-21, K-3)",
        ),
    }
    AgentToolNotAllowed = "agent_tool_not_allowed" {
        Decision(
            "agent_tool",
            "a tool that starts agents not listed in the harness's `agent_tools` (H-22)",
        ),
    }
    HumanVerbDenied = "human_verb_denied" {
        Decision(
            "human_verb",
            "a shell command that runs `warden seal`, `approve`, `revoke` or `release` (K-11): only \
             a human runs them",
        ),
    }
    RanUnapprovedInput = "ran_unapproved_input" {
        Decision(
            "approved_input",
            "a tool call ran with an input Warden did not approve: another hook rewrote it after Warden's \
             approval, or the call never reached Warden; recorded, and the session is quarantined (H-55)",
        ),
    }
    ConfinementUnavailable = "confinement_unavailable" {
        Decision(
            "confine",
            "an agent's shell call Warden allows cannot run confined (no launcher, a kernel without \
             Landlock or user namespaces, or the harness's own rules would not let it run as sent) \
             and `[confine] mode` is `required`: it is denied (E-13, H-61)",
        ),
    }
    ConfigChangeBlocked = "config_change_blocked" {
        Decision(
            "config_change",
            "a harness's settings or skills file changed during the session: the change is not applied \
             (H-43)",
        ),
    }
    SessionQuarantined = "session_quarantined" {
        Decision("quarantine", "the session is quarantined; `warden release --session ID` lifts it (H-28)"),
    }
    ViolationRecordLost = "violation_record_lost" {
        Decision(
            "quarantine",
            "quarantine cause: a violation kept while the log could not be written was removed or \
             edited before it was recorded (H-33)",
        ),
    }
    RevertFailed = "revert_failed" {
        Decision("guardrails", "quarantine cause: a changed protected path could not be reverted (H-28)"),
    }
    StopUnresolved = "stop_unresolved" {
        Decision(
            "guardrails, result",
            "quarantine cause: a repeated stop still failed for another reason than a reverted change \
             (H-28)",
        ),
    }
}
