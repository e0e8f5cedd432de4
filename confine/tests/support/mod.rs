//! A workspace, a session's temporary directory and a place outside both, and the launcher
//! run on them with a confinement the domain's policy computes from a manifest's rules.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use agentwarden_domain::confine::{Baseline, Mode, Place, confinement};
use agentwarden_domain::lineage::ToolRule;

/// The launcher under test.
pub(crate) const LAUNCHER: &str = env!("CARGO_BIN_EXE_warden-confine");

/// The user the agent side runs as where a test says so: `nobody`.
pub(crate) const AGENT_UID: u32 = 65534;

/// `ws/` (the workspace), `tmp/` (the session's temporary directory) and `out/` (neither).
pub(crate) struct Tree {
    dir: tempfile::TempDir,
}

impl Tree {
    pub(crate) fn new() -> Tree {
        let dir = tempfile::tempdir().unwrap();
        for sub in ["ws", "tmp", "out"] {
            std::fs::create_dir(dir.path().join(sub)).unwrap();
        }
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        Tree { dir }
    }

    /// The tree's own directory, above `ws/`, `tmp/` and `out/`.
    pub(crate) fn dir_path(&self) -> PathBuf {
        self.dir.path().to_path_buf()
    }

    pub(crate) fn ws(&self) -> PathBuf {
        self.dir.path().join("ws")
    }

    pub(crate) fn tmp(&self) -> PathBuf {
        self.dir.path().join("tmp")
    }

    pub(crate) fn out(&self) -> PathBuf {
        self.dir.path().join("out")
    }

    /// Writes `text` to `ws/relative`, making its directories.
    pub(crate) fn file(&self, relative: &str, text: &str) -> PathBuf {
        let path = self.ws().join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    /// Gives the whole tree to `uid` (the agent's user, for a test that runs as it).
    pub(crate) fn give_to(&self, uid: u32) {
        let status = Command::new("chown")
            .arg("-R")
            .arg(format!("{uid}:{uid}"))
            .arg(self.dir.path())
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// The launcher's argument for a manifest of `rules`, `protected` relative to the
    /// workspace, the call made in the workspace.
    pub(crate) fn confinement(&self, rules: &[&str], protected: &[&str]) -> String {
        self.confinement_in(rules, protected, Mode::Required)
    }

    pub(crate) fn confinement_in(&self, rules: &[&str], protected: &[&str], mode: Mode) -> String {
        let rules: Vec<ToolRule> = rules.iter().map(|r| ToolRule::parse(r).unwrap()).collect();
        let (ws, tmp) = (text(&self.ws()), text(&self.tmp()));
        let place = Place { root: &ws, cwd: &ws, session_tmp: &tmp };
        let protected: Vec<String> = protected.iter().map(|p| (*p).to_owned()).collect();
        let home = std::env::var("HOME").unwrap_or_else(|_| "/root".to_owned());
        confinement(&rules, &place, &protected, &Baseline::unix(&home)).encode(mode)
    }

    /// Runs `command` confined, in the workspace, as this process's user.
    pub(crate) fn run(&self, confinement: &str, command: &str) -> Output {
        launch(None, &self.ws(), confinement, command)
    }

    /// Runs `command` confined, in the workspace, as `uid`.
    pub(crate) fn run_as(&self, uid: u32, confinement: &str, command: &str) -> Output {
        launch(Some(uid), &self.ws(), confinement, command)
    }
}

pub(crate) fn text(path: &Path) -> String {
    path.to_str().unwrap().to_owned()
}

/// The launcher, directly or through `setpriv` as `uid` with no groups.
pub(crate) fn launch(uid: Option<u32>, cwd: &Path, confinement: &str, command: &str) -> Output {
    let mut launcher = match uid {
        None => Command::new(LAUNCHER),
        Some(uid) => {
            let mut setpriv = Command::new("setpriv");
            setpriv
                .arg(format!("--reuid={uid}"))
                .arg(format!("--regid={uid}"))
                .arg("--clear-groups")
                .arg(LAUNCHER);
            setpriv
        }
    };
    launcher.current_dir(cwd).arg(confinement).arg(command).output().unwrap()
}

/// Standard output and error, for a failure's message.
pub(crate) fn said(output: &Output) -> String {
    format!(
        "status {:?}\nstdout: {}\nstderr: {}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Whether the current process is root (a test of a second user needs it).
pub(crate) fn is_root() -> bool {
    euid() == 0
}

fn euid() -> u32 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|ids| ids.split_whitespace().nth(1))
        .and_then(|id| id.parse().ok())
        .unwrap()
}
