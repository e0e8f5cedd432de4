//! The code every answer and every refusal carries, and its table as `docs/codes.md`
//! renders it ([`render_markdown`]), named without reaching the domain.

pub use agentwarden_domain::code::{Code, render_markdown};
