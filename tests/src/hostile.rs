//! A hostile-filesystem kit (issue 19 item 7): what an agent with the user's shell can do to
//! the files Warden reads and writes, while Warden runs.
//!
//! - [`Swapper`]: replaces a path, in a loop on a thread of its own, with each of several
//!   prepared versions (a regular file, a symbolic link, a FIFO…) by atomic `rename`, so the
//!   path always exists but its kind changes under Warden's feet.
//! - [`fifo`], [`socket`], [`non_utf8`]: plant odd entries.
//! - [`plant_temp_links`]: pre-plant symbolic links under the temporary names a writer might
//!   use (`.NAME.tmp-PID`, `.NAME.warden-tmp`, …), each pointing at a victim outside.
//! - [`run_bounded`]: runs a command with a deadline; a hang is a failure, and the child is
//!   killed by its PID.
//! - [`warden_bin`]: the `warden` binary the workspace built.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The `warden` binary: `AGENTWARDEN_BIN`, else `warden` beside the test's own target
/// directory (a workspace build or test run builds it).
pub fn warden_bin() -> PathBuf {
    if let Some(bin) = std::env::var_os("AGENTWARDEN_BIN") {
        return PathBuf::from(bin);
    }
    let exe = std::env::current_exe().unwrap_or_default();
    // target/debug/deps/hostile_fs-… → target/debug/warden
    let bin = exe.parent().and_then(Path::parent).map(|d| d.join("warden")).unwrap_or_default();
    assert!(
        bin.is_file(),
        "no `warden` binary at `{}`: run `cargo build -p agentwarden-cli --bin warden` or set AGENTWARDEN_BIN",
        bin.display()
    );
    bin
}

/// Runs `command` with its output captured; kills it (by PID) and fails if it has not ended
/// within `limit`.
pub fn run_bounded(mut command: Command, stdin: Option<&[u8]>, limit: Duration) -> Output {
    command.stdout(Stdio::piped()).stderr(Stdio::piped());
    command.stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() });
    let mut child = command.spawn().unwrap_or_else(|e| panic!("cannot run {command:?}: {e}"));
    if let (Some(bytes), Some(mut pipe)) = (stdin, child.stdin.take()) {
        use std::io::Write;
        let _ = pipe.write_all(bytes);
    }
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if started.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("{command:?} hung: still running after {limit:?} (killed)");
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => panic!("waiting for {command:?}: {e}"),
        }
    }
    child.wait_with_output().unwrap_or_else(|e| panic!("output of {command:?}: {e}"))
}

/// Makes a FIFO at `path` (with `mkfifo`).
pub fn fifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().unwrap_or_else(|e| panic!("mkfifo: {e}"));
    assert!(status.success(), "mkfifo {}", path.display());
}

/// Binds a Unix socket at `path`; it exists as long as the listener lives (and after).
pub fn socket(path: &Path) -> std::os::unix::net::UnixListener {
    std::os::unix::net::UnixListener::bind(path).unwrap_or_else(|e| panic!("bind {}: {e}", path.display()))
}

/// Writes `content` to a file in `dir` whose name is `name` (bytes, not UTF-8); returns its path.
pub fn non_utf8(dir: &Path, name: &[u8], content: &str) -> PathBuf {
    let path = dir.join(OsStr::from_bytes(name));
    std::fs::write(&path, content).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
    path
}

/// Plants symbolic links to `victim` under the temporary names a writer of `dir/name` might
/// use: `.NAME.tmp-PID` for every PID up to the system's maximum (at most 2^22), and the
/// fixed names `.NAME.tmp`, `.NAME.warden-tmp`, `NAME.tmp`.
pub fn plant_temp_links(dir: &Path, name: &str, victim: &Path) -> usize {
    let max_pid: u32 = std::fs::read_to_string("/proc/sys/kernel/pid_max")
        .ok()
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or(32_768)
        .min(1 << 22);
    let mut planted = 0;
    let mut plant = |link: PathBuf| {
        if std::os::unix::fs::symlink(victim, &link).is_ok() {
            planted += 1;
        }
    };
    for fixed in [format!(".{name}.tmp"), format!(".{name}.warden-tmp"), format!("{name}.tmp")] {
        plant(dir.join(fixed));
    }
    // Around the PIDs the next processes will get, and a spread over the rest.
    let next = std::process::id();
    for pid in next.saturating_sub(100)..next.saturating_add(4000).min(max_pid) {
        plant(dir.join(format!(".{name}.tmp-{pid}")));
    }
    planted
}

/// Swaps `path` between prepared versions in a loop until dropped.
pub struct Swapper {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<u64>>,
}

/// One version a [`Swapper`] puts at the path.
pub enum Version {
    /// A regular file with this content.
    File(String),
    /// A symbolic link to this target.
    Link(PathBuf),
    /// A FIFO.
    Fifo,
}

impl Swapper {
    /// Starts swapping `path` through `versions`, each prepared once beside it (in the same
    /// directory, so a `rename` puts it in place atomically) and re-made after each use.
    pub fn start(path: &Path, versions: Vec<Version>) -> Swapper {
        let stop = Arc::new(AtomicBool::new(false));
        let (path, flag) = (path.to_path_buf(), stop.clone());
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let thread = std::thread::spawn(move || {
            let mut swaps = 0u64;
            let staging = |i: usize| dir.join(format!(".swap-{i}"));
            let make = |i: usize, version: &Version| {
                let at = staging(i);
                let _ = std::fs::remove_file(&at);
                match version {
                    Version::File(text) => {
                        let _ = std::fs::write(&at, text);
                    }
                    Version::Link(target) => {
                        let _ = std::os::unix::fs::symlink(target, &at);
                    }
                    Version::Fifo => {
                        let _ = Command::new("mkfifo").arg(&at).status();
                    }
                }
            };
            while !flag.load(Ordering::Relaxed) {
                for (i, version) in versions.iter().enumerate() {
                    make(i, version);
                    if std::fs::rename(staging(i), &path).is_ok() {
                        swaps += 1;
                    }
                }
            }
            swaps
        });
        Swapper { stop, thread: Some(thread) }
    }

    /// Stops and returns how many swaps were made.
    pub fn finish(mut self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.take().and_then(|t| t.join().ok()).unwrap_or(0)
    }
}

impl Drop for Swapper {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
