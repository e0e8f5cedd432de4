//! The delegation gate's rules and records, as a caller names them (issue 49, item 5; A-48): a
//! delegation's [`Request`] and what the gate decides of it ([`evaluate`] over [`GateInputs`]
//! into a [`Delegation`], its [`GateReport`] and [`Decision`]), the files it reads
//! ([`FileRead`], [`read_persona`], [`read_agent`], [`PersonaReading`], [`Name`]), the seal
//! ([`ContextSealed`], [`SealRecord`], [`ReadDigests`], [`seal_changes`]), the approvals
//! ([`ApprovalGranted`], [`ApprovalRecord`], [`ApprovalState`]) and a human record's signature
//! ([`RecordSignature`], [`SignedContent`], [`signed_bytes`], [`Scope`], [`SignatureCode`],
//! [`SignatureRefusal`], [`SIGNATURE_NAMESPACE`]). An instruction file's front matter is read by
//! [`frontmatter`].

pub use agentwarden_domain::governance::{
    ApprovalGranted, ApprovalRecord, ApprovalState, ContextSealed, Decision, Delegation, FileRead,
    GateInputs, GateReport, Name, PersonaReading, ReadDigests, RecordSignature, Request, SIGNATURE_NAMESPACE,
    Scope, SealRecord, SignatureCode, SignatureRefusal, SignedContent, evaluate, read_agent, read_persona,
    seal_changes, signed_bytes,
};

pub mod frontmatter {
    //! An instruction file's front matter: its fields ([`Value`]) as [`parse_instruction_file`]
    //! reads them.

    pub use agentwarden_domain::governance::frontmatter::{Value, parse_instruction_file};
}
