//! The system calls a confined call may not make (E-32), as a seccomp-bpf filter no process of
//! the tree can lift: a socket of any family but IPv4, IPv6 and netlink (a Unix socket would
//! reach any listener whose socket file the user may open: a container daemon, an SSH agent,
//! Warden's own server; Landlock has no right for that connect on this kernel), a raw IPv4 or
//! IPv6 socket, and io_uring (which makes and connects sockets without the `socket` system
//! call). `socketpair` stays: it reaches nothing but itself. Each is refused with `EACCES`, as
//! Landlock refuses, so the command and the agent read "Permission denied".
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

/// The socket families a confined call may make: the network's (held by the network namespace
/// and Landlock, E-6) and netlink (per network namespace; the C library asks it for the
/// machine's addresses).
const FAMILIES: [i32; 3] = [libc::AF_INET, libc::AF_INET6, libc::AF_NETLINK];

/// The bits of `socket`'s type argument that are the type (the rest are `SOCK_NONBLOCK` and
/// `SOCK_CLOEXEC`).
const TYPE_MASK: u64 = 0xf;

/// x32 system calls are numbered from here (`__X32_SYSCALL_BIT`).
const X32_BIT: u32 = 0x4000_0000;

/// Installs the filter on this process, which every child inherits. `Err` says why not.
pub(crate) fn restrict() -> Result<(), String> {
    let program = program()?;
    seccompiler::apply_filter(&program).map_err(|e| format!("seccomp: {e}"))
}

/// The filter, compiled.
fn program() -> Result<BpfProgram, String> {
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
    for inet in [libc::AF_INET, libc::AF_INET6] {
        socket.push(
            SeccompRule::new(vec![
                arg(0, SeccompCmpOp::Eq, family(inet))?,
                arg(1, SeccompCmpOp::MaskedEq(TYPE_MASK), family(libc::SOCK_RAW))?,
            ])
            .map_err(failed)?,
        );
    }
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
        let program = program().unwrap_or_else(|e| panic!("{e}"));
        if std::env::consts::ARCH == "x86_64" {
            let jge = program.iter().position(|i| i.code == 0x35 && i.k == X32_BIT);
            let first_load = program.iter().position(|i| i.code == 0x20 && i.k == 0);
            assert_eq!(jge.map(|j| j - 1), first_load, "the guard follows the first load of the number");
        }
    }
}
