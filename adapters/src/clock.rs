//! Clocks: the system's, and two for tests and replays.

use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use agentwarden_domain::audit::Timestamp;
use agentwarden_ports::Clock;

/// The operating system's wall clock, at millisecond precision.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        let millis = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
            .unwrap_or(0);
        // A clock before 1970 or after 9999 is broken; pin it to the nearest bound rather
        // than refuse to record.
        Timestamp::saturating_from_unix_millis(millis)
    }
}

/// A clock that always says the same time.
#[derive(Debug, Clone, Copy)]
pub struct FixedClock(pub Timestamp);

impl Clock for FixedClock {
    fn now(&self) -> Timestamp {
        self.0
    }
}

/// A clock that starts at a given time and advances by a fixed step on every reading, so that
/// every event of a test has its own, predictable time.
#[derive(Debug)]
pub struct SteppingClock {
    next: AtomicI64,
    step_ms: i64,
}

impl SteppingClock {
    /// Starts at `start`, then `start + step_ms`, …
    pub fn new(start: Timestamp, step_ms: i64) -> Self {
        SteppingClock { next: AtomicI64::new(start.unix_millis()), step_ms }
    }
}

impl Clock for SteppingClock {
    fn now(&self) -> Timestamp {
        let millis = self.next.fetch_add(self.step_ms, Ordering::Relaxed);
        Timestamp::saturating_from_unix_millis(millis)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stepping_clock_steps() {
        let start = Timestamp::from_unix_millis(1_000).unwrap();
        let clock = SteppingClock::new(start, 5);
        let readings: Vec<_> = (0..3).map(|_| clock.now().unix_millis()).collect();
        assert_eq!(readings, [1_000, 1_005, 1_010]);
    }

    #[test]
    fn system_clock_is_after_2020() {
        assert!(SystemClock.now().unix_millis() > 1_577_836_800_000);
    }
}
