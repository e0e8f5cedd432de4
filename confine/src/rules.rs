//! The Landlock rules a confined call runs under (E-10): filesystem access beneath the grants
//! only, TCP bind and connect denied but to the web ports a network grant opens, abstract Unix
//! sockets and signals scoped to the confined tree, and no new privileges. Landlock stacks: a
//! launcher run again inside only narrows (E-7).

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, LandlockStatus, NetPort, PathBeneath, Ruleset,
    RulesetAttr, RulesetCreatedAttr, RulesetStatus, Scope,
};

use crate::open::Grants;
use crate::policy::{Network, Policy};

/// The least the kernel must enforce, or the call is refused (E-10): ABI 4, filesystem and TCP.
const REQUIRED: ABI = ABI::V4;

/// The most this launcher asks for where the kernel has it: ABI 6 adds the scopes.
const WANTED: ABI = ABI::V6;

/// The web ports a network grant opens to TCP connect (E-6).
const WEB_PORTS: [u16; 2] = [80, 443];

/// The rights that make an entry in a directory: every kind of file, and a link or rename
/// from another directory (E-34).
fn creation() -> landlock::BitFlags<AccessFs> {
    AccessFs::MakeChar
        | AccessFs::MakeDir
        | AccessFs::MakeReg
        | AccessFs::MakeSock
        | AccessFs::MakeFifo
        | AccessFs::MakeBlock
        | AccessFs::MakeSym
        | AccessFs::Refer
}

/// Confines this process: read beneath the read grants; everything but device ioctls beneath
/// the write grants (a terminal's `TIOCSTI` would type commands into the user's own shell,
/// E-10). What the kernel enforced: its Landlock ABI.
pub(crate) fn restrict(policy: &Policy, grants: &Grants) -> Result<String, String> {
    let failed = |e: landlock::RulesetError| format!("Landlock: {e}");
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessFs::from_all(REQUIRED))
        .map_err(failed)?;
    // The main session's whole network: no network right is handled, so none is refused (E-35).
    if policy.network != Network::All {
        ruleset = ruleset.handle_access(AccessNet::from_all(REQUIRED)).map_err(failed)?;
    }
    let ruleset = ruleset
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(WANTED))
        .map_err(failed)?
        .scope(Scope::from_all(WANTED))
        .map_err(failed)?;
    let mut created = ruleset.create().map_err(failed)?.set_compatibility(CompatLevel::HardRequirement);
    // Each rule on the descriptor the launcher opened without following a link (E-29).
    for grant in &grants.read {
        created =
            created.add_rule(PathBeneath::new(&grant.fd, AccessFs::from_read(REQUIRED))).map_err(failed)?;
    }
    created = created.set_compatibility(CompatLevel::BestEffort);
    // A rule's rights hold beneath it, and the rights on a file are the union of its
    // ancestors' rules: no full rule may sit at or above a directory that refuses creation
    // (E-34). Such a write grant takes the narrowed rights, and the directories beside the
    // narrowed ones take the full rights each by its own rule.
    let all = AccessFs::from_all(WANTED) & !AccessFs::IoctlDev;
    let narrow = all & !creation();
    let above_narrowed = |path: &std::path::Path| grants.narrowed.iter().any(|n| n.path.starts_with(path));
    for grant in &grants.write {
        let rights = if above_narrowed(&grant.path) { narrow } else { all };
        created = created.add_rule(PathBeneath::new(&grant.fd, rights)).map_err(failed)?;
    }
    for dir in &grants.narrowed {
        created = created.add_rule(PathBeneath::new(&dir.fd, narrow)).map_err(failed)?;
    }
    for dir in grants.beside.iter().filter(|d| !above_narrowed(&d.path)) {
        created = created.add_rule(PathBeneath::new(&dir.fd, all)).map_err(failed)?;
    }
    if let Network::Web(_) = policy.network {
        for port in WEB_PORTS {
            created = created.add_rule(NetPort::new(port, AccessNet::ConnectTcp)).map_err(failed)?;
        }
    }
    let status = created.restrict_self().map_err(failed)?;
    if status.ruleset == RulesetStatus::NotEnforced || !status.no_new_privs {
        return Err("Landlock did not enforce the rules".into());
    }
    Ok(match status.landlock {
        LandlockStatus::Available { effective_abi, .. } => format!("Landlock {effective_abi}"),
        _ => "Landlock".to_owned(),
    })
}
