//! A child process waited for with a deadline, for the tests that run servers and clients.

use std::process::{Child, Command, Output};
use std::time::{Duration, Instant};

/// Waits for `child` (reading its output) at most `bound`; kills it past that, so a hung
/// process fails its test instead of hanging the suite.
pub(crate) fn bounded(child: Child, bound: Duration) -> Output {
    let pid = child.id().to_string();
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watch = std::sync::Arc::clone(&done);
    std::thread::spawn(move || {
        let started = Instant::now();
        while started.elapsed() < bound {
            if watch.load(std::sync::atomic::Ordering::SeqCst) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        if !watch.load(std::sync::atomic::Ordering::SeqCst) {
            let _ = Command::new("kill").args(["-KILL", &pid]).status();
        }
    });
    let out = child.wait_with_output().unwrap();
    done.store(true, std::sync::atomic::Ordering::SeqCst);
    out
}
