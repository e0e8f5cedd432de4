//! What the real-client suites' projects share: git with a fixed identity, `warden` run in the
//! project as a human would (outside any agent session, with no store or kill switch from the
//! environment), the audit log read back. Each harness's project type calls these with its root.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// Runs git in `root` with a fixed identity; panics if it fails; returns stdout.
pub fn git(root: &Path, args: &[&str]) -> String {
    let out = output_within(
        Command::new("git")
            .arg("-C")
            .arg(root)
            .args(["-c", "user.name=warden-test", "-c", "user.email=test@agentwarden.invalid"])
            .args(args),
        HELPER_TIMEOUT,
    );
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Runs `warden ARGS` (the binary `warden`) in `root` as a human would: none of the variables
/// that mark an agent's session, no store or kill switch from the environment.
pub fn warden(warden: &Path, root: &Path, args: &[&str]) -> Output {
    output_within(
        Command::new(warden)
            .args(args)
            .current_dir(root)
            .env_remove("CLAUDECODE")
            .env_remove("CODEX_THREAD_ID")
            .env_remove("GEMINI_CLI")
            .env_remove("COPILOT_CLI")
            .env_remove("AGENTWARDEN_STORE")
            .env_remove("AGENTWARDEN_ENABLE_SUBAGENTS"),
        HELPER_TIMEOUT,
    )
}

/// [`warden`], which must succeed; returns stdout.
pub fn warden_ok(binary: &Path, root: &Path, args: &[&str]) -> String {
    let out = warden(binary, root, args);
    assert!(
        out.status.success(),
        "warden {args:?} failed ({}): {}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The audit events of one type in `root`'s log (`warden audit log --json`).
pub fn audit_of(binary: &Path, root: &Path, event_type: &str) -> Vec<Value> {
    warden_ok(binary, root, &["audit", "log", "--json"])
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e.get("event_type").and_then(Value::as_str) == Some(event_type))
        .collect()
}

/// The deadline of a helper command (`git`, `warden`, a client's `--version`).
pub const HELPER_TIMEOUT: Duration = Duration::from_secs(60);

/// Runs `command` (stdin empty) in a process group of its own and returns its output; at
/// `timeout` the whole group is killed, and the output is what it wrote by then with no exit
/// code. The group is killed after a normal exit too.
pub fn output_within(command: &mut Command, timeout: Duration) -> Output {
    let dir = tempfile::tempdir().expect("temp dir for a helper's output");
    let (out_path, err_path) = (dir.path().join("stdout"), dir.path().join("stderr"));
    command
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).expect("create stdout file"))
        .stderr(std::fs::File::create(&err_path).expect("create stderr file"));
    std::os::unix::process::CommandExt::process_group(command, 0);
    let mut child =
        command.spawn().unwrap_or_else(|e| panic!("cannot start {:?}: {e}", command.get_program()));
    let group = rustix::process::Pid::from_child(&child);
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for a helper") {
            break status;
        }
        if started.elapsed() >= timeout {
            kill_group(group);
            break child.wait().expect("reap a killed helper");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    kill_group(group);
    Output {
        status,
        stdout: std::fs::read(&out_path).unwrap_or_default(),
        stderr: std::fs::read(&err_path).unwrap_or_default(),
    }
}

/// SIGKILL to the whole process group `group` leads (it is gone already: fine).
pub(crate) fn kill_group(group: rustix::process::Pid) {
    if group != rustix::process::Pid::INIT {
        let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
    }
}

/// Copies the directory `from` to `to`, recursively (an example project into a test's own).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create dir");
    for entry in std::fs::read_dir(from).expect("read example dir") {
        let entry = entry.expect("read example entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).expect("copy example file");
        }
    }
}

/// A command that `unshare`s into a private mount namespace, overlays `/etc` with an upper
/// layer (under `scratch`) holding `/etc/ETC_NAME` = a copy of `managed`, then `exec`s
/// `program` (same PID throughout, so the process group is still the run's): a harness's
/// managed settings for one run, the machine's `/etc` never written. Root only.
pub fn in_managed_namespace(scratch: &Path, etc_name: &str, managed: &Path, program: &Path) -> Command {
    assert!(rustix::process::geteuid().is_root(), "managed settings need root (a mount namespace)");
    let layer = scratch.join("etc-overlay");
    let (upper, work) = (layer.join("upper"), layer.join("work"));
    let _ = std::fs::remove_dir_all(&layer);
    copy_dir(managed, &upper.join(etc_name));
    std::fs::create_dir_all(&work).expect("create overlay workdir");
    let mount = format!(
        "mount -t overlay overlay -o lowerdir=/etc,upperdir={},workdir={} /etc && exec \"$0\" \"$@\"",
        upper.display(),
        work.display()
    );
    let mut command = Command::new("unshare");
    command.args(["--mount", "--propagation", "private", "sh", "-c", &mount]).arg(program);
    command
}
