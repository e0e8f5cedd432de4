//! A progress line on stderr for the long walks (`replay`, `timeline`, `explain`, a filtered
//! `log`), shown only when stderr is a terminal so that scripts and tests see nothing.
//!
//! A single `\r`-rewritten line rather than `indicatif`: indicatif and its dependencies
//! (`console`, `unicode-width`, `portable-atomic`, `unit-prefix`) are not yet in the lockfile,
//! and a bar adds nothing here that "seq N of M (P%)" does not say.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// Prints "seq N of M" at most every 200 ms, and clears the line when dropped.
#[derive(Debug)]
pub struct Progress {
    what: &'static str,
    total: u64,
    shown: bool,
    enabled: bool,
    last: Instant,
}

impl Progress {
    /// A progress line for `what`, a walk to seq `total`; shown only on a terminal.
    pub fn new(what: &'static str, total: u64) -> Self {
        Progress { what, total, shown: false, enabled: std::io::stderr().is_terminal(), last: Instant::now() }
    }

    /// The walk reached `seq`.
    pub fn update(&mut self, seq: u64) {
        if !self.enabled || self.last.elapsed() < Duration::from_millis(200) {
            return;
        }
        self.last = Instant::now();
        self.shown = true;
        let percent = seq.saturating_mul(100).checked_div(self.total).unwrap_or(100);
        let _ = write!(std::io::stderr(), "\r{}: seq {seq} of {} ({percent}%)\x1b[K", self.what, self.total);
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if self.shown {
            let _ = write!(std::io::stderr(), "\r\x1b[K");
        }
    }
}
