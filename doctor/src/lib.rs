//! What `warden doctor` reports in, shared by every harness integration (N-13): one finding
//! ([`Check`]), one installed hook line whatever the harness ([`Line`]), a harness's own files
//! read by descriptor ([`read_text`], U-1), and the findings every harness's lines share (their
//! binaries, the configuration they name, their fail-closed tail and their time budget). Each
//! harness crate's `setup::installed` (feature `doctor`) reads its own files with these and
//! reports; the command line loops over the harnesses and prints. What `warden init` writes for
//! a harness is said in [`Installing`] (N-14, N-17), and what every harness's `init` shares —
//! the line prepared, the guard's files protected, the files written — is [`init`]'s.
//! Each harness crate says what the doctor knows of it as an [`Integration`], and the doctor's
//! harness-wide steps run over that: the canary ([`canary()`], H-15, C-11) and the files that may
//! set the kill switch ([`kill_switch_files`], G-25), one path for every harness (N-15).

mod canary;
mod check;
mod checkup;
mod environment;
mod error;
mod guarded;
pub mod init;
mod install;
mod integration;
mod lines;
mod project;
mod server;
mod tools;

pub use agentwarden::files as untrusted;
pub use canary::{CANARY_SESSION, CANARY_TYPE, Probe, canary};
pub use check::Check;
pub use checkup::{Checkup, checkup};
pub use environment::{dotenv_sets, kill_switch_files};
pub use error::OutsideProject;
pub use guarded::{
    check_protection, covered, in_git_work_tree, inside, kill_switch, own_files_of, permission_rules,
    store_ignored,
};
pub use install::{FileWrite, InstallError, Installing, Protecting, Read};
pub use integration::{CanaryAnswer, EnvFile, HookLineFn, Integration, Signs};
pub use lines::{
    Line, MixedServers, Unreadable, check_binaries, check_lines_by_path, read_text, rewriting_check,
    server_named, tail_and_budget,
};
pub use project::{approval_keys, check_files, check_server, check_store, confinement, harness_section};
pub use server::server_to_ask;
pub use tools::check_tool_rules;
