//! The system calls a confined call may not make (E-32, E-33), as a seccomp-bpf filter no
//! process of the tree can lift:
//!
//! - a socket of any family but IPv4, IPv6 and netlink's routing one: a Unix socket would reach
//!   any listener whose socket file the user may open (a container daemon, an SSH agent,
//!   Warden's own server), and Landlock has no right for that connect on this kernel;
//! - an IPv4 or IPv6 socket that is not TCP: Landlock's port rules hold TCP alone, and MPTCP
//!   (a stream of protocol 262) reached any port past them; datagrams are allowed only with a
//!   network grant, where name resolution needs them;
//! - io_uring, which makes and connects sockets without the `socket` system call.
//!
//! `socketpair` stays: it reaches nothing but itself. Each is refused with `EACCES`, as Landlock
//! refuses, so the command and the agent read "Permission denied".
//!
//! Built with rust-vmm's `seccompiler` (Firecracker's filter compiler): pure Rust, no C
//! library, a safe `apply_filter`. The filter checks the architecture first (another one's
//! system calls kill the process) and, on x86-64, refuses every x32 system call, whose numbers
//! a filter by number would not see.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule,
    TargetArch, sock_filter,
};

/// The socket families a confined call may make: the network's (held by Landlock and the rules
/// below) and netlink (its routing protocol alone: the C library asks it for the machine's
/// addresses; reading them is all an unprivileged process may do).
const FAMILIES: [i32; 3] = [libc::AF_INET, libc::AF_INET6, libc::AF_NETLINK];

/// The IP families.
const INET: [i32; 2] = [libc::AF_INET, libc::AF_INET6];

/// The protocols a stream socket may name: the default (TCP) and TCP.
const STREAM_PROTOCOLS: [i32; 2] = [0, libc::IPPROTO_TCP];

/// The bits of `socket`'s type argument that are the type (the rest are `SOCK_NONBLOCK` and
/// `SOCK_CLOEXEC`).
const TYPE_MASK: u64 = 0xf;

/// x32 system calls are numbered from here (`__X32_SYSCALL_BIT`).
const X32_BIT: u32 = 0x4000_0000;

/// Installs the filter on this process, which every child inherits; datagram sockets allowed
/// when `datagrams` (a network grant). `Err` says why not.
pub(crate) fn restrict(datagrams: bool) -> Result<(), String> {
    let program = program(datagrams)?;
    seccompiler::apply_filter(&program).map_err(|e| format!("seccomp: {e}"))
}

/// The filter, compiled.
fn program(datagrams: bool) -> Result<BpfProgram, String> {
    let failed = |e: seccompiler::BackendError| format!("seccomp: {e}");
    let arg = |index: u8, op: SeccompCmpOp, value: u64| {
        SeccompCondition::new(index, SeccompCmpArgLen::Dword, op, value).map_err(failed)
    };
    let family = |value: i32| u64::from(value.unsigned_abs());
    let mut other_family = Vec::new();
    for allowed in FAMILIES {
        other_family.push(arg(0, SeccompCmpOp::Ne, family(allowed))?);
    }
    let mut socket = vec![SeccompRule::new(other_family).map_err(failed)?];
    let rule = |conditions: Vec<SeccompCondition>| SeccompRule::new(conditions).map_err(failed);
    // The type argument as the kernel accepts it: the type with `SOCK_NONBLOCK` and
    // `SOCK_CLOEXEC` or neither (any other bit is refused by the kernel itself).
    let flagged = |kind: i32| {
        [0, libc::SOCK_NONBLOCK, libc::SOCK_CLOEXEC, libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC]
            .map(|flags| family(kind | flags))
    };
    let mut allowed_types: Vec<u64> = flagged(libc::SOCK_STREAM).to_vec();
    if datagrams {
        allowed_types.extend(flagged(libc::SOCK_DGRAM));
    }
    for inet in INET {
        // Every type but a stream (and a datagram with a network grant).
        let mut other_type = vec![arg(0, SeccompCmpOp::Eq, family(inet))?];
        for allowed in &allowed_types {
            other_type.push(arg(1, SeccompCmpOp::Ne, *allowed)?);
        }
        socket.push(rule(other_type)?);
        // A stream of another protocol than TCP (MPTCP, SCTP).
        let mut other_protocol = vec![
            arg(0, SeccompCmpOp::Eq, family(inet))?,
            arg(1, SeccompCmpOp::MaskedEq(TYPE_MASK), family(libc::SOCK_STREAM))?,
        ];
        for protocol in STREAM_PROTOCOLS {
            other_protocol.push(arg(2, SeccompCmpOp::Ne, family(protocol))?);
        }
        socket.push(rule(other_protocol)?);
    }
    // Netlink but its routing protocol.
    socket.push(rule(vec![
        arg(0, SeccompCmpOp::Eq, family(libc::AF_NETLINK))?,
        arg(2, SeccompCmpOp::Ne, family(libc::NETLINK_ROUTE))?,
    ])?);
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    rules.insert(libc::SYS_socket, socket);
    // An empty list: refused whatever the arguments.
    for call in [libc::SYS_io_uring_setup, libc::SYS_io_uring_enter, libc::SYS_io_uring_register] {
        rules.insert(call, Vec::new());
    }
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(|e| format!("seccomp: {e}"))?;
    let filter = SeccompFilter::new(rules, SeccompAction::Allow, SeccompAction::Errno(denied()), arch)
        .map_err(failed)?;
    let mut program: BpfProgram = filter.try_into().map_err(failed)?;
    if arch == TargetArch::x86_64 {
        refuse_x32(&mut program)?;
    }
    Ok(program)
}

/// `EACCES`, as the filter returns it.
fn denied() -> u32 {
    libc::EACCES.unsigned_abs()
}

/// Refuses every x32 system call: after the architecture check (x32 shares x86-64's), before
/// the first load of the system call's number, which the compiled filter begins with.
fn refuse_x32(program: &mut BpfProgram) -> Result<(), String> {
    const LOAD_NR: u16 = 0x20; // BPF_LD | BPF_W | BPF_ABS
    const JGE: u16 = 0x35; // BPF_JMP | BPF_JGE | BPF_K
    const RET: u16 = 0x06; // BPF_RET | BPF_K
    const RET_ERRNO: u32 = 0x0005_0000; // SECCOMP_RET_ERRNO
    let load_nr = sock_filter { code: LOAD_NR, jt: 0, jf: 0, k: 0 };
    let at = program
        .iter()
        .position(|instruction| *instruction == load_nr)
        .ok_or("seccomp: the compiled filter never loads the system call's number")?;
    let guard = [
        load_nr.clone(),
        sock_filter { code: JGE, jt: 0, jf: 1, k: X32_BIT },
        sock_filter { code: RET, jt: 0, jf: 0, k: RET_ERRNO | denied() },
    ];
    program.splice(at..at, guard);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_filter_compiles_and_guards_x32_right_after_the_architecture_check() {
        let program = program(false).unwrap_or_else(|e| panic!("{e}"));
        if std::env::consts::ARCH == "x86_64" {
            let jge = program.iter().position(|i| i.code == 0x35 && i.k == X32_BIT);
            let first_load = program.iter().position(|i| i.code == 0x20 && i.k == 0);
            assert_eq!(jge.map(|j| j - 1), first_load, "the guard follows the first load of the number");
        }
    }
}
