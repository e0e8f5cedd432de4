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

/// Confines this process: read beneath the read grants; everything but device ioctls beneath
/// the write grants (a terminal's `TIOCSTI` would type commands into the user's own shell,
/// E-10). What the kernel enforced: its Landlock ABI.
pub(crate) fn restrict(policy: &Policy, grants: &Grants) -> Result<String, String> {
    let failed = |e: landlock::RulesetError| format!("Landlock: {e}");
    let ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessFs::from_all(REQUIRED))
        .map_err(failed)?
        .handle_access(AccessNet::from_all(REQUIRED))
        .map_err(failed)?
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
    for grant in &grants.write {
        let all = AccessFs::from_all(WANTED) & !AccessFs::IoctlDev;
        created = created.add_rule(PathBeneath::new(&grant.fd, all)).map_err(failed)?;
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
