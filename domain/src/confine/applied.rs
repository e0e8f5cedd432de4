//! Whether a shell call runs under the launcher, and what the record says was enforced (issue
//! 50): the configuration's mode, what the application found of the launcher, the kernel and
//! the harness's own rules, to the one outcome (H-63, H-64, E-13, E-14).

use serde::{Deserialize, Serialize};

use super::{Confinement, Mode, Network, Reads};
use crate::fact::FactError;
use crate::lineage::Applied;

/// `[confine] mode` (E-13): what Warden does with an agent's shell call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConfineMode {
    /// No shell call is confined or recorded as unconfined.
    Off,
    /// Confined where it can be; where it cannot, it runs and the record says why (the
    /// default).
    #[default]
    On,
    /// Confined, or denied with `confinement_unavailable`.
    Required,
}

/// What the application found, each `Err` saying why not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Findings {
    /// The launcher the human installed, found and executable.
    pub launcher: Result<(), FactError>,
    /// The kernel confines (the probe of Landlock and user namespaces).
    pub kernel: Result<(), FactError>,
    /// The harness's own rules would let the call run as sent (H-61).
    pub client: Result<(), FactError>,
}

/// A shell call's outcome under `mode` with `findings`: `None` when the mode is off; else the
/// record and, when it runs under the launcher, the launcher's mode. Under `on`, a call that
/// cannot be rewritten (the harness's own rules, a missing launcher) runs as sent and one whose
/// kernel cannot confine runs under the launcher in `recorded` mode; under `required` each is
/// refused (E-13, H-61, H-63).
pub fn outcome(
    mode: ConfineMode,
    findings: &Findings,
    confinement: &Confinement,
) -> Option<(Applied, Option<Mode>)> {
    let launcher_mode = match mode {
        ConfineMode::Off => return None,
        ConfineMode::On => Mode::Recorded,
        ConfineMode::Required => Mode::Required,
    };
    let refuse_or = |why: String, launched: bool| match mode {
        ConfineMode::Required => (Applied::Refused { why }, None),
        _ => (Applied::Unconfined { why, launched }, launched.then_some(Mode::Recorded)),
    };
    if let Err(why) = &findings.client {
        return Some(refuse_or(format!("not rewritten: {why}"), false));
    }
    if let Err(why) = &findings.launcher {
        return Some(refuse_or(format!("no launcher: {why}"), false));
    }
    if let Err(why) = &findings.kernel {
        return Some(refuse_or(format!("the kernel cannot confine: {why}"), true));
    }
    Some((confinement.applied(launcher_mode), Some(launcher_mode)))
}

/// The mechanisms the launcher uses, in words (docs/confinement.md).
pub const MECHANISM: &str = "landlock (filesystem, tcp, scopes) + user and mount namespaces (read-only holes) \
                             + seccomp socket filter + no_new_privs";

impl Confinement {
    /// The record of this confinement run under the launcher in `mode` (E-14).
    pub fn applied(&self, mode: Mode) -> Applied {
        let encoded = self.encode(mode);
        let reads = match &self.read {
            Reads::All => "everywhere".to_owned(),
            Reads::Beneath(dirs) => dirs.join(" "),
        };
        let network = match &self.network {
            Network::None => "none".to_owned(),
            Network::Any => "tcp 80,443 any host".to_owned(),
            Network::All => "all (unconfined)".to_owned(),
            Network::Hosts(hosts) => format!("tcp 80,443 for {}", hosts.join(" ")),
        };
        Applied::Confined {
            digest: blake3::hash(encoded.as_bytes()).to_hex().to_string(),
            mechanism: MECHANISM.to_owned(),
            grants: format!(
                "write: {}; read: {reads}; read-only: {}; network: {network}",
                self.write.join(" "),
                if self.read_only.is_empty() { "none".to_owned() } else { self.read_only.join(" ") }
            ),
            launcher_mode: match mode {
                Mode::Required => "required".to_owned(),
                Mode::Recorded => "recorded".to_owned(),
            },
            unenforced: self.unenforced.clone(),
        }
    }
}

/// The confinement of the main session's shell with `[confine] main_session` (E-15): it may
/// write everywhere its user may but beneath the protected paths (`protected` absolute) and the
/// held names the `baseline` holds wherever the launcher finds them (E-31: the workspace root of
/// `place` and the way up from the working directory), read everywhere, reach every network
/// its user may (its calls were unconfined before; only the protected paths and held names
/// hold it, E-35), and writes its temporary files in the session's temporary directory.
pub fn main_session_confinement(
    protected: &[String],
    place: &super::Place<'_>,
    baseline: &super::Baseline,
) -> Confinement {
    let mut read_only: Vec<String> = protected.iter().map(|p| crate::lineage::lexical(p)).collect();
    read_only.sort();
    read_only.dedup();
    let all = read_only.clone();
    read_only.retain(|p| !all.iter().any(|q| q != p && super::beneath(p, q)));
    Confinement {
        write: vec!["/".to_owned()],
        read: Reads::All,
        read_only,
        network: Network::All,
        temp: Some(crate::lineage::lexical(place.session_tmp)),
        unenforced: Vec::new(),
        held: baseline.held.clone(),
        held_files: baseline.held_files.clone(),
        held_at: vec![crate::lineage::lexical(place.root)],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn findings(launcher: bool, kernel: bool, client: bool) -> Findings {
        let r = |ok: bool, why: &str| if ok { Ok(()) } else { Err(FactError::new(why)) };
        Findings { launcher: r(launcher, "l"), kernel: r(kernel, "k"), client: r(client, "c") }
    }

    /// (mode, launcher, kernel, client) → (the record's outcome, the launcher's mode), E-13.
    #[test]
    fn each_mode_and_finding_has_one_outcome() {
        use ConfineMode::{Off, On, Required};
        let c = Confinement::default();
        let table: [(ConfineMode, [bool; 3], &str, Option<Mode>); 10] = [
            (Off, [false, false, false], "none", None),
            (On, [true, true, true], "confined", Some(Mode::Recorded)),
            (Required, [true, true, true], "confined", Some(Mode::Required)),
            (On, [true, false, true], "unconfined", Some(Mode::Recorded)),
            (Required, [true, false, true], "refused", None),
            (On, [false, true, true], "unconfined", None),
            (Required, [false, true, true], "refused", None),
            (On, [true, true, false], "unconfined", None),
            (Required, [true, true, false], "refused", None),
            (Required, [false, false, false], "refused", None),
        ];
        for (mode, [l, k, cl], expected, launcher) in table {
            let got = outcome(mode, &findings(l, k, cl), &c);
            let name = match &got {
                None => "none",
                Some((Applied::Confined { .. }, _)) => "confined",
                Some((Applied::Unconfined { .. }, _)) => "unconfined",
                Some((Applied::Refused { .. }, _)) => "refused",
            };
            assert_eq!((name, got.and_then(|g| g.1)), (expected, launcher), "{mode:?} {l} {k} {cl}");
        }
    }

    #[test]
    fn the_main_session_writes_everywhere_but_the_protected_paths() {
        let place = crate::confine::Place { root: "/ws", cwd: "/ws/src", session_tmp: "/t" };
        let baseline = crate::confine::Baseline::unix("/home/u");
        let c = main_session_confinement(
            &["/ws/okrs".into(), "/ws/okrs/q4".into(), "/ws/.env".into()],
            &place,
            &baseline,
        );
        assert!(c.may_write("/ws/src/a") && c.may_write("/home/u/x") && c.may_write("/t/f"));
        // The held names hold for the main session's shell too, the workspace root looked in (E-31).
        assert!(c.held.iter().any(|h| h == ".git/hooks") && c.held_at == ["/ws"], "{c:?}");
        assert!(!c.may_write("/ws/okrs/q4.md") && !c.may_write("/ws/.env"));
        assert_eq!(c.read_only, ["/ws/.env", "/ws/okrs"]);
        assert!(c.may_read("/etc/passwd"));
        // Its network is all its user's: SSH, databases, an SSH agent (E-35).
        assert_eq!(c.network, Network::All);
        assert!(c.encode(Mode::Required).contains(" net=all"), "{}", c.encode(Mode::Required));
    }

    #[test]
    fn the_record_names_the_digest_of_what_the_launcher_reads() {
        let place = crate::confine::Place { root: "/ws", cwd: "/ws", session_tmp: "/t" };
        let c = main_session_confinement(&["/ws/okrs".into()], &place, &crate::confine::Baseline::unix("/h"));
        let Applied::Confined { digest, .. } = c.applied(Mode::Required) else { panic!("confined") };
        assert_eq!(digest, blake3::hash(c.encode(Mode::Required).as_bytes()).to_hex().to_string());
        let json = serde_json::to_value(c.applied(Mode::Required)).unwrap();
        assert_eq!(json["outcome"], "confined");
    }
}
