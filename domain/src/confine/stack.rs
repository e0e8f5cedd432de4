//! Questions a [`Confinement`] answers, and two confinements stacked: the kernel stacks a
//! launcher run inside another's process tree, so what both allow is what is allowed (E-7).

use super::paths::{beneath, meet, outermost};
use super::{Confinement, Network, Reads};

impl Confinement {
    /// Whether a confined process may write `path` (absolute, lexically normal): beneath a
    /// write grant and beneath no read-only hole.
    pub fn may_write(&self, path: &str) -> bool {
        self.write.iter().any(|dir| beneath(path, dir))
            && !self.read_only.iter().any(|hole| beneath(path, hole))
    }

    /// Whether a confined process may read `path` (absolute, lexically normal).
    pub fn may_read(&self, path: &str) -> bool {
        match &self.read {
            Reads::All => true,
            Reads::Beneath(dirs) => dirs.iter().any(|dir| beneath(path, dir)),
        }
    }

    /// Whether a confined process may reach `host` (lower case) over the network at all.
    pub fn may_reach(&self, host: &str) -> bool {
        match &self.network {
            Network::None => false,
            Network::Any | Network::All => true,
            Network::Hosts(hosts) => hosts.iter().any(|h| h == host),
        }
    }

    /// This confinement with `inner` stacked under it (E-7): what both allow, never more
    /// than either: writes where both grant, every hole of either, reads where both grant,
    /// the hosts both name, and the whole network only where both have it (E-35).
    pub fn stack(&self, inner: &Confinement) -> Confinement {
        let mut write = meet(&self.write, &inner.write);
        let mut holes: Vec<String> = self.read_only.iter().chain(&inner.read_only).cloned().collect();
        // A grant beneath either side's read-only hole grants nothing: all below the hole stays
        // read-only (E-7).
        write.retain(|dir| !holes.iter().any(|hole| beneath(dir, hole)));
        holes.retain(|hole| write.iter().any(|dir| beneath(hole, dir)));
        let read = match (&self.read, &inner.read) {
            (Reads::All, other) | (other, Reads::All) => other.clone(),
            (Reads::Beneath(a), Reads::Beneath(b)) => Reads::Beneath(meet(a, b)),
        };
        let network = match (&self.network, &inner.network) {
            (Network::None, _) | (_, Network::None) => Network::None,
            // The main session's network yields to the other's, whatever it is (E-35).
            (Network::All, other) | (other, Network::All) => other.clone(),
            (Network::Any, other) | (other, Network::Any) => other.clone(),
            (Network::Hosts(a), Network::Hosts(b)) => {
                let both: Vec<String> = a.iter().filter(|h| b.contains(h)).cloned().collect();
                if both.is_empty() { Network::None } else { Network::Hosts(both) }
            }
        };
        let mut unenforced: Vec<String> = self.unenforced.iter().chain(&inner.unenforced).cloned().collect();
        unenforced.sort();
        unenforced.dedup();
        // The temporary directory is where the inner call's tools write; a right only where the
        // write grants say.
        let temp = inner.temp.clone().or_else(|| self.temp.clone());
        // Held names: those of either, looked for where either looks (E-31).
        let union = |a: &[String], b: &[String]| {
            let mut all: Vec<String> = a.iter().chain(b).cloned().collect();
            all.sort();
            all.dedup();
            all
        };
        Confinement {
            write,
            read,
            read_only: outermost(holes),
            network,
            temp,
            unenforced,
            held: union(&self.held, &inner.held),
            held_files: union(&self.held_files, &inner.held_files),
            held_at: union(&self.held_at, &inner.held_at),
        }
    }
}
