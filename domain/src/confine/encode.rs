//! The confinement as the launcher reads it: one command-line argument (E-8), so that it
//! travels inside the rewritten command the harness runs, where the agent cannot swap it as it
//! could a file.
//!
//! The argument is words separated by one space: `v1`, the mode (`required` or `recorded`),
//! then `w=PATH` for each write grant, `r=PATH` for each read grant or `r=*` for all, `ro=PATH`
//! for each read-only hole, `held=NAME` for each held name (relative) and `heldfile=NAME` for
//! each held only where it is not a directory, `at=PATH` for each further place the launcher
//! looks for them (E-31), `net=none`, `net=any`, `net=all` (E-35) or `host=HOST` for each
//! granted host, and
//! `tmp=PATH`, the session's temporary directory, at most once. A path or
//! host has every byte but ASCII letters, digits and `/._-` written `%XX` (upper-case hex),
//! so no path can end a word or start another. The launcher refuses any other argument.

use super::{Confinement, Network, Reads};

/// The encoding's first word.
pub const ENCODING_VERSION: &str = "v1";

/// What the launcher does when the kernel cannot confine (E-9).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// Refuse to run the command (the default).
    #[default]
    Required,
    /// Run it unconfined, and say so on standard error: for a deployment that records rather
    /// than denies.
    Recorded,
}

impl Confinement {
    /// The launcher's argument for this confinement under `mode` (E-8).
    pub fn encode(&self, mode: Mode) -> String {
        let mut words = vec![
            ENCODING_VERSION.to_owned(),
            match mode {
                Mode::Required => "required".to_owned(),
                Mode::Recorded => "recorded".to_owned(),
            },
        ];
        words.extend(self.write.iter().map(|p| format!("w={}", escape(p))));
        match &self.read {
            Reads::All => words.push("r=*".to_owned()),
            Reads::Beneath(dirs) => words.extend(dirs.iter().map(|p| format!("r={}", escape(p)))),
        }
        words.extend(self.read_only.iter().map(|p| format!("ro={}", escape(p))));
        words.extend(self.held.iter().map(|p| format!("held={}", escape(p))));
        words.extend(self.held_files.iter().map(|p| format!("heldfile={}", escape(p))));
        words.extend(self.held_at.iter().map(|p| format!("at={}", escape(p))));
        match &self.network {
            Network::None => words.push("net=none".to_owned()),
            Network::Any => words.push("net=any".to_owned()),
            Network::All => words.push("net=all".to_owned()),
            Network::Hosts(hosts) => words.extend(hosts.iter().map(|h| format!("host={}", escape(h)))),
        }
        words.extend(self.temp.iter().map(|p| format!("tmp={}", escape(p))));
        words.join(" ")
    }
}

/// `text` as one word of a POSIX shell's command line: in single quotes, each `'` in it closed,
/// escaped and reopened (`'\''`), so that no byte of it is read by the shell (E-8).
pub fn shell_word(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

impl Confinement {
    /// The command line a harness runs in place of `command`: `launcher` with this confinement
    /// and the command, each one shell word (E-8). Run by the harness's shell, it hands the
    /// launcher `command` byte for byte, whatever it holds.
    pub fn launch_line(&self, mode: Mode, launcher: &str, command: &str) -> String {
        format!("{} {} {}", shell_word(launcher), shell_word(&self.encode(mode)), shell_word(command))
    }
}

/// Every byte but `[A-Za-z0-9/._-]` as `%XX`.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"/._-".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}
