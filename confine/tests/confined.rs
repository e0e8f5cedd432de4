//! `warden-confine` with real processes (issue 50): what a confined shell call can and cannot
//! do, each test the way an agent would try to get around the confinement. As root and, where
//! a test says so, as a second user (`nobody` through `setpriv`): root ignores permission bits,
//! and a user namespace makes root inside root of nothing outside (E-11).

#![expect(clippy::unwrap_used, clippy::panic, reason = "test code: a failure is a failed test")]

mod support;

#[path = "confined/files.rs"]
mod files;
#[path = "confined/held.rs"]
mod held;
#[path = "confined/holes.rs"]
mod holes;
#[path = "confined/missing.rs"]
mod missing;
#[path = "confined/processes.rs"]
mod processes;
#[path = "confined/races.rs"]
mod races;
#[path = "confined/sockets.rs"]
mod sockets;
#[path = "confined/tools.rs"]
mod tools;
