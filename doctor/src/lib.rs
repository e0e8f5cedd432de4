//! What `warden doctor` reports in, shared by every harness integration (N-13): one finding
//! ([`Check`]), one installed hook line whatever the harness ([`Line`]), a harness's own files
//! read by descriptor ([`read_text`], U-1), and the findings every harness's lines share (their
//! binaries, the configuration they name, their fail-closed tail and their time budget). Each
//! harness crate's `setup::installed` (feature `doctor`) reads its own files with these and
//! reports; the command line loops over the harnesses and prints. What `warden init` writes for
//! a harness that installs by path (Codex, Gemini CLI) is said in [`Installing`] (N-14).

mod check;
mod install;
mod lines;

pub use agentwarden_adapters::untrusted;
pub use check::Check;
pub use install::{FileWrite, Installing, Read};
pub use lines::{
    Line, check_binaries, check_lines_by_path, read_text, rewriting_check, server_named, tail_and_budget,
};
