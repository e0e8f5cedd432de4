//! The policy: a manifest's rules, and where the call runs, to the [`Confinement`] the kernel
//! enforces (E-1 … E-6).

use super::paths::{beneath, meet, outermost, under};
use super::{Confinement, Network, Reads};
use crate::lineage::held_names::{HELD_DIRECTORIES, HELD_DIRECTORY_RUNS, HELD_FILES};
use crate::lineage::syntax::{EDIT_FAMILY, READ_FAMILY, WEB_FETCH};
use crate::lineage::{HeldNames, Reach, ReadFrom, ToolRule, lexical};

/// Where a shell call runs: every path absolute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place<'a> {
    /// The workspace (project) root: where `/…` rules are read from.
    pub root: &'a str,
    /// The call's working directory: where `x/…` rules are read from, with the root (T-5).
    pub cwd: &'a str,
    /// The session's own temporary directory: always writable (E-3).
    pub session_tmp: &'a str,
}

/// What every confined call may touch whatever its manifest says, so that a shell can run at
/// all (E-3): the caller's list, for its system.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Baseline {
    /// Read and execute: the system's programs and libraries, the toolchains.
    pub read_exec: Vec<String>,
    /// Write: the devices a shell writes to (`/dev/null`), and any cache a deployment lists.
    pub write: Vec<String>,
    /// Held names (relative) read-only wherever the launcher finds them (E-31).
    pub held: Vec<String>,
    /// Held names read-only where the launcher finds them and they are not a directory (E-31).
    pub held_files: Vec<String>,
}

impl Baseline {
    /// A Unix system's: its programs, libraries and configuration read and executed, the
    /// user's toolchains (`~/.cargo`, `~/.rustup`, `~/.npm`, `~/.nvm`, `~/.local`) read, and
    /// the harmless devices written. No cache is written: a write there would persist into every
    /// later build outside the confinement (E-3); a deployment that wants it grants it in the
    /// manifest with an `Edit(//…)` rule.
    pub fn unix(home: &str) -> Baseline {
        let system = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc", "/opt", "/proc", "/dev"];
        let tools = [".cargo", ".rustup", ".npm", ".nvm", ".local"];
        let devices = ["/dev/null", "/dev/zero", "/dev/full", "/dev/tty"];
        Baseline {
            read_exec: system
                .iter()
                .map(|p| (*p).to_owned())
                .chain(tools.iter().map(|t| lexical(&format!("{home}/{t}"))))
                .collect(),
            write: devices.iter().map(|p| (*p).to_owned()).collect(),
            held: Vec::new(),
            held_files: Vec::new(),
        }
        .holding(HeldNames::NONE)
    }

    /// This baseline with the held names (T-19) for the shell (E-31): the domain's list and
    /// `more` (a harness's own). A confined shell may write inside `.git` (a commit does) but
    /// never its configuration or hooks: `.git` is held as `.git/config` and `.git/hooks` when
    /// it is a directory, whole when it is a file. Every other held directory is held whole,
    /// a worktree home too (its worktrees are granted by their own write grants, narrower
    /// still beneath it), and a run of directories as its path.
    pub fn holding(mut self, more: HeldNames<'_>) -> Baseline {
        let mut held: Vec<String> = Vec::new();
        for dir in HELD_DIRECTORIES.iter().chain(more.directories).chain(more.worktree_homes) {
            if *dir == GIT {
                held.extend(GIT_HELD.iter().map(|p| format!("{GIT}/{p}")));
            } else {
                held.push((*dir).to_owned());
            }
        }
        held.extend(HELD_DIRECTORY_RUNS.iter().map(|run| run.join("/")));
        held.extend(HELD_FILES.iter().chain(more.files).map(|f| (*f).to_owned()));
        self.held.extend(held);
        self.held.sort();
        self.held.dedup();
        if !self.held_files.iter().any(|f| f == GIT) {
            self.held_files.push(GIT.to_owned());
        }
        self
    }
}

/// Git's directory, which a commit writes.
const GIT: &str = ".git";

/// What of `.git` is read as configuration or run as code, and never written by a confined
/// shell (E-31).
const GIT_HELD: [&str; 2] = ["config", "hooks"];

/// The confinement `rules` grant a shell call at `place`, `protected` (absolute, or relative
/// to the root: R-1) never writable, `baseline` added (E-1 … E-6).
pub fn confinement(
    rules: &[ToolRule],
    place: &Place<'_>,
    protected: &[String],
    baseline: &Baseline,
) -> Confinement {
    let root = lexical(place.root);
    let cwd = lexical(place.cwd);
    let protected: Vec<String> = protected
        .iter()
        .map(|p| if p.starts_with('/') { lexical(p) } else { lexical(&format!("{root}/{p}")) })
        .collect();
    let mut write = vec![lexical(place.session_tmp)];
    write.extend(baseline.write.iter().map(|p| lexical(p)));
    let mut read = Vec::new();
    let mut reads_all = !rules.iter().any(|rule| READ_FAMILY.iter().any(|tool| rule.names_tool(tool)));
    let mut hosts = Vec::new();
    let mut any_host = false;
    let mut unenforced = Vec::new();
    for rule in rules {
        match rule.reach() {
            Reach::Path { writes, from, segments } => match directory(from, segments, &root, &cwd) {
                Ok(dirs) if writes => write.extend(dirs),
                Ok(dirs) => read.extend(dirs),
                Err(why) => unenforced.push(format!("{rule}: {why}")),
            },
            // A tool granted whole writes, for the shell, beneath the workspace only (E-3).
            Reach::Whole(tool) if EDIT_FAMILY.contains(&tool) => write.push(root.clone()),
            Reach::Whole(tool) if READ_FAMILY.contains(&tool) => reads_all = true,
            Reach::Whole(tool) if tool == WEB_FETCH => any_host = true,
            Reach::Host(host) => hosts.push(host.to_owned()),
            Reach::Whole(_) | Reach::Other => {}
        }
    }
    // A grant at or beneath a protected path is no grant (E-4), nor one in the workspace at
    // or beneath a held name (E-31).
    let mut granted = Vec::new();
    for dir in outermost(write) {
        if let Some(p) = protected.iter().find(|p| beneath(&dir, p)) {
            unenforced.push(format!("write `{dir}`: at or beneath the protected path `{p}`"));
        } else if let Some(name) = held_grant(&dir, &root, baseline) {
            unenforced.push(format!("write `{dir}`: at or beneath the held name `{name}` (E-31)"));
        } else {
            granted.push(dir);
        }
    }
    let read_only =
        outermost(protected.into_iter().filter(|p| granted.iter().any(|dir| beneath(p, dir))).collect());
    let read = if reads_all {
        Reads::All
    } else {
        let mut all = read;
        all.extend(granted.iter().cloned());
        all.extend(baseline.read_exec.iter().map(|p| lexical(p)));
        Reads::Beneath(outermost(all))
    };
    let network = if any_host {
        Network::Any
    } else if hosts.is_empty() {
        Network::None
    } else {
        hosts.sort();
        hosts.dedup();
        Network::Hosts(hosts)
    };
    unenforced.sort();
    unenforced.dedup();
    Confinement {
        write: granted,
        read,
        read_only,
        network,
        temp: Some(lexical(place.session_tmp)),
        unenforced,
        held: baseline.held.clone(),
        held_files: baseline.held_files.clone(),
        // The workspace root is looked in whatever the working directory: the human's tools
        // read its held names at the next commit or shell (E-31).
        held_at: if baseline.held.is_empty() && baseline.held_files.is_empty() {
            Vec::new()
        } else {
            vec![root]
        },
    }
}

/// The confinement of a call of the last agent of a lineage, `manifests` the rules of each
/// agent from the root: a call must be granted by its own manifest and every ancestor's (T-9),
/// so its shell gets what every one of them grants, each confinement stacked on the others
/// (E-7). No manifest at all grants nothing but the baseline.
pub fn lineage_confinement(
    manifests: &[&[ToolRule]],
    place: &Place<'_>,
    protected: &[String],
    baseline: &Baseline,
) -> Confinement {
    let mut each = manifests.iter().map(|rules| confinement(rules, place, protected, baseline));
    let first = each.next().unwrap_or_else(|| confinement(&[], place, protected, baseline));
    each.fold(first, |outer, inner| outer.stack(&inner))
}

/// The held name a write grant in the workspace (beneath the root, not the root) is at or
/// beneath, if any (E-31): one of its segments below the root is a held name's first segment,
/// compared in ASCII lower case. The launcher holds a held name found beneath a grant; one the
/// grant is itself, or is inside, it cannot see, so the grant is dropped instead. A grant outside
/// the workspace (a cache a deployment grants) is the deployment's.
fn held_grant(dir: &str, root: &str, baseline: &Baseline) -> Option<String> {
    if dir == root || !beneath(dir, root) {
        return None;
    }
    let rest = dir.get(root.len()..)?;
    let segments: Vec<String> =
        rest.split('/').filter(|s| !s.is_empty()).map(str::to_ascii_lowercase).collect();
    baseline.held.iter().chain(&baseline.held_files).find_map(|held| {
        let first = held.split('/').next()?.to_ascii_lowercase();
        segments.contains(&first).then(|| held.clone())
    })
}

/// The directory a path rule grants everything beneath (E-2): its segments must be literal,
/// then at most a final `**`; a rule read from both the working directory and the root grants
/// where both readings meet. Anything else (a glob before the end, a name at any depth) the
/// kernel cannot express: `Err` says why, and the rule grants the shell nothing.
fn directory(from: ReadFrom, segments: &[String], root: &str, cwd: &str) -> Result<Vec<String>, String> {
    let literal: Vec<String> = segments.iter().take_while(|s| !s.contains(['*', '?'])).cloned().collect();
    match segments.get(literal.len()..) {
        Some([]) => {}
        Some([last]) if last == "**" => {}
        _ => return Err("a wildcard before the last segment: the kernel grants whole directories".into()),
    }
    match from {
        ReadFrom::Filesystem => Ok(vec![under("/", &literal)]),
        ReadFrom::Project => Ok(vec![under(root, &literal)]),
        ReadFrom::ProjectAndCwd => {
            let both = meet(&[under(root, &literal)], &[under(cwd, &literal)]);
            if both.is_empty() {
                return Err("read from the working directory and the root, the two never meet".into());
            }
            Ok(both)
        }
        ReadFrom::AnyDepth => Err("a name at any depth: the kernel grants whole directories".into()),
    }
}
