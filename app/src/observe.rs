//! What an observer of the log reads (issue 49, item 5): a record's envelope ([`Envelope`],
//! parsed from the exact stored bytes, or [`seal`]ed from a draft and the head before it), its
//! event at today's version ([`decode`] into an [`AuditEvent`], each with its [`Decision`] and
//! [`Code`]s), its time ([`Timestamp`]), and how an endpoint or a failure that may carry
//! credentials is shown ([`credentials`], X-77). The server's OpenTelemetry export and its
//! witness task read the log through this module, not the domain's.

pub use agentwarden_domain::audit::{Envelope, EventPayload, Hash, Timestamp, seal};
pub use agentwarden_domain::code::Code;
pub use agentwarden_domain::events::{AuditEvent, OperatorNote, decode};
pub use agentwarden_domain::redact::credentials;
pub use agentwarden_domain::verdict::Decision;
