//! `cargo xtask install [--root DIR] [--debug] [--check]`: `warden`, a statically linked `warden-hook`
//! (V-43) and the confinement launcher `warden-confine` beside them (H-63).
//!
//! `warden-hook` is the process Claude Code starts on every tool call when a resident service
//! is configured, so its start-up is the floor of every governed call. Dynamically linked, about
//! a third of its CPU goes to the loader (mapping glibc and resolving its symbols); linked
//! statically it does none of that. Cargo cannot set `crt-static` for one binary of a package
//! (`RUSTFLAGS` reach the proc-macros, which then cannot be built), so this relinks that one
//! binary with `cargo rustc … -- -C target-feature=+crt-static`: the libraries it links were
//! built by the `cargo build` just before, with the same features, and are reused.
//!
//! The static link is used only on a `linux-gnu` host, when the link succeeds and the result has
//! no program interpreter (read from its ELF program headers). Otherwise the dynamically linked
//! `warden-hook` is installed and the reason is printed: it answers the same, only slower. glibc
//! linked statically cannot load its NSS modules; the client looks up no user, group or host name
//! (it reads stdin and its configuration and talks to a Unix socket), so nothing it does needs
//! them.
//!
//! The launcher `warden-confine` starts on every confined shell call, before `/bin/sh`, so its
//! start-up is part of what confinement costs a call. It is linked statically against musl
//! where the `x86_64-unknown-linux-musl` target is installed (`.ci/run` adds it): glibc's start
//! asks the CPU its cache sizes (`cpuid`), which traps to the hypervisor in a virtual machine
//! and cost about 0.3 ms of each start on these machines; musl's start asks nothing. Where the
//! musl build fails, glibc linked statically, then dynamically, each with the reason printed
//! (E-36). The launcher looks up no user, group or host name either.
//!
//! The files are copied under a temporary name beside the destination and renamed over it, so
//! a hook that starts during an install runs the old binary or the new one, never half of one.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cargo;
use crate::measure::{exec, target_dir};

/// How the `warden-hook` that was built is linked.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Linked {
    /// Statically: no program interpreter.
    Static,
    /// Dynamically, and why the static link was not used.
    Dynamic(String),
}

/// The profile to build with.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Profile {
    Release,
    Debug,
}

impl Profile {
    fn args(self) -> &'static [&'static str] {
        match self {
            Profile::Release => &["--release"],
            Profile::Debug => &[],
        }
    }

    /// The name of its directory in a target directory.
    fn name(self) -> &'static str {
        match self {
            Profile::Release => "release",
            Profile::Debug => "debug",
        }
    }

    pub(crate) fn dir(self) -> PathBuf {
        target_dir().join(self.name())
    }
}

/// Relinks `warden-hook` of `profile` statically where that is possible and safe, and says how
/// the binary now in the target directory is linked. Run after a `cargo build` of
/// `agentwarden-hook-client` with the same profile, whose libraries it reuses.
pub(crate) fn static_hook(profile: Profile) -> Result<Linked, String> {
    if !cfg!(all(target_os = "linux", target_env = "gnu")) {
        return Ok(Linked::Dynamic(
            "the host is not linux-gnu: the dynamically linked client is used".into(),
        ));
    }
    let output = Command::new(cargo())
        .args(["rustc", "--locked", "--quiet"])
        .args(profile.args())
        .args([
            "-p",
            "agentwarden-hook-client",
            "--bin",
            "warden-hook",
            "--",
            "-C",
            "target-feature=+crt-static",
        ])
        .output()
        .map_err(|e| format!("cannot run cargo rustc: {e}"))?;
    let binary = profile.dir().join("warden-hook");
    if !output.status.success() {
        // The failed link may have left nothing: build the dynamic one again.
        build_bins(profile)?;
        let said = String::from_utf8_lossy(&output.stderr);
        return Ok(Linked::Dynamic(format!("the static link failed: {}", last_line(&said))));
    }
    match has_interpreter(&binary)? {
        false => Ok(Linked::Static),
        true => Ok(Linked::Dynamic(format!("{} still names a program interpreter", binary.display()))),
    }
}

/// The target whose C library starts without asking the CPU anything (E-36).
const MUSL: &str = "x86_64-unknown-linux-musl";

/// Builds the confinement launcher of `profile` as fast to start as this host allows (E-36):
/// for musl, statically, where that target is installed; else glibc linked statically; else as
/// [`build_bins`] built it. The binary, and how it is linked (with the reason where it is not
/// the first choice).
pub(crate) fn launcher(profile: Profile) -> Result<(PathBuf, String), String> {
    let musl = Command::new(cargo())
        .args(["build", "--locked", "--quiet", "--target", MUSL])
        .args(profile.args())
        .args(["-p", "agentwarden-confine", "--bin", "warden-confine"])
        .output()
        .map_err(|e| format!("cannot run cargo build: {e}"))?;
    let built = target_dir().join(MUSL).join(profile.name()).join("warden-confine");
    if musl.status.success() && !has_interpreter(&built)? {
        return Ok((built, MUSL_LINKED.to_owned()));
    }
    let why = last_line(&String::from_utf8_lossy(&musl.stderr)).to_owned();
    let glibc = Command::new(cargo())
        .args(["rustc", "--locked", "--quiet"])
        .args(profile.args())
        .args([
            "-p",
            "agentwarden-confine",
            "--bin",
            "warden-confine",
            "--",
            "-C",
            "target-feature=+crt-static",
        ])
        .output()
        .map_err(|e| format!("cannot run cargo rustc: {e}"))?;
    let built = profile.dir().join("warden-confine");
    if glibc.status.success() && !has_interpreter(&built)? {
        return Ok((built, format!("statically linked, glibc: the {MUSL} build failed: {why}")));
    }
    build_bins(profile)?;
    Ok((built, format!("dynamically linked: the {MUSL} build failed: {why}")))
}

/// Builds `warden`, `warden-hook` and the confinement launcher `warden-confine` of `profile` as
/// Cargo does by default (dynamically linked): what [`static_hook`] then relinks, and what it
/// falls back to. The launcher is installed beside `warden`, where the hook looks for it (H-63).
pub(crate) fn build_bins(profile: Profile) -> Result<(), String> {
    exec(Command::new(cargo()).args(["build", "--locked"]).args(profile.args()).args([
        "-p",
        "agentwarden-cli",
        "--bin",
        "warden",
        "-p",
        "agentwarden-confine",
        "--bin",
        "warden-confine",
    ]))?;
    // Alone, with its own features: built beside `warden`, cargo would give it the command
    // line's (the registry's installers, `doctor`, X-101), which it does not use.
    exec(Command::new(cargo()).args(["build", "--locked"]).args(profile.args()).args([
        "-p",
        "agentwarden-hook-client",
        "--bin",
        "warden-hook",
    ]))
}

fn last_line(text: &str) -> &str {
    text.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("(no message)").trim()
}

/// True when the ELF file at `path` has a `PT_INTERP` program header (it is loaded by a dynamic
/// linker). Only 64-bit little-endian ELF files are read; anything else is an error.
pub(crate) fn has_interpreter(path: &Path) -> Result<bool, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    interpreter_in(&bytes).map_err(|why| format!("{}: {why}", path.display()))
}

fn interpreter_in(bytes: &[u8]) -> Result<bool, String> {
    const PT_INTERP: u64 = 3;
    let field = |at: usize, len: usize| {
        at.checked_add(len).and_then(|end| bytes.get(at..end)).ok_or("truncated ELF file")
    };
    // A little-endian unsigned integer of `len` bytes at `at`.
    let number = |at: usize, len: usize| {
        field(at, len).map(|b| b.iter().rev().fold(0u64, |n, &x| (n << 8) | u64::from(x)))
    };
    if field(0, 4)? != b"\x7fELF" {
        return Err("not an ELF file".into());
    }
    if field(4, 2)? != [2, 1] {
        return Err("not a 64-bit little-endian ELF file".into());
    }
    let offset = usize::try_from(number(0x20, 8)?).map_err(|_| "program header offset out of range")?;
    let (entry_size, count) = (number(0x36, 2)?, number(0x38, 2)?);
    for n in 0..count {
        let at = usize::try_from(n * entry_size)
            .ok()
            .and_then(|rel| offset.checked_add(rel))
            .ok_or("program header offset out of range")?;
        if number(at, 4)? == PT_INTERP {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Copies `from` to `dir/name` through a temporary file in `dir` renamed over the destination.
/// The temporary file is created new (`O_EXCL`, mode 0755): a file or symbolic link already at
/// its name is refused, never followed or written through, so a link planted there cannot
/// redirect the copy.
fn install_file(from: &Path, dir: &Path, name: &str) -> Result<PathBuf, String> {
    use std::os::unix::fs::OpenOptionsExt;
    let to = dir.join(name);
    let temporary = dir.join(format!(".{name}.installing-{}", std::process::id()));
    let copied = std::fs::File::open(from)
        .map_err(|e| format!("cannot read {}: {e}", from.display()))
        .and_then(|mut source| {
            let mut target = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o755)
                .open(&temporary)
                .map_err(|e| format!("cannot create {} (it must not exist): {e}", temporary.display()))?;
            let written = std::io::copy(&mut source, &mut target).and_then(|_| target.sync_all());
            written.map_err(|e| {
                let _ = std::fs::remove_file(&temporary);
                format!("cannot copy {} to {}: {e}", from.display(), temporary.display())
            })
        });
    copied?;
    std::fs::rename(&temporary, &to).map_err(|e| {
        let _ = std::fs::remove_file(&temporary);
        format!("cannot rename {} to {}: {e}", temporary.display(), to.display())
    })?;
    Ok(to)
}

/// Where `cargo install` would put binaries: `$CARGO_INSTALL_ROOT/bin`, `$CARGO_HOME/bin`, else
/// `~/.cargo/bin`.
fn default_bin_dir() -> Result<PathBuf, String> {
    if let Some(root) = std::env::var_os("CARGO_INSTALL_ROOT") {
        return Ok(PathBuf::from(root).join("bin"));
    }
    if let Some(home) = std::env::var_os("CARGO_HOME") {
        return Ok(PathBuf::from(home).join("bin"));
    }
    std::env::var_os("HOME")
        .map(|home| PathBuf::from(home).join(".cargo").join("bin"))
        .ok_or_else(|| "neither CARGO_INSTALL_ROOT, CARGO_HOME nor HOME is set: pass --root DIR".into())
}

/// What was installed: the three paths, how the client is linked and how the launcher is.
pub(crate) struct Installed {
    pub(crate) warden: PathBuf,
    pub(crate) hook: PathBuf,
    pub(crate) launcher: PathBuf,
    pub(crate) linked: Linked,
    pub(crate) launcher_linked: String,
}

/// Builds and installs the three binaries into `bin` (or the default) with `profile`: the
/// launcher beside `warden`, as the hook finds it (H-63).
pub(crate) fn install(bin: Option<PathBuf>, profile: Profile) -> Result<Installed, String> {
    let bin = match bin {
        Some(bin) => bin,
        None => default_bin_dir()?,
    };
    build_bins(profile)?;
    let linked = static_hook(profile)?;
    std::fs::create_dir_all(&bin).map_err(|e| format!("cannot create {}: {e}", bin.display()))?;
    let built = profile.dir();
    let warden = install_file(&built.join("warden"), &bin, "warden")?;
    let hook = install_file(&built.join("warden-hook"), &bin, "warden-hook")?;
    let (launcher, launcher_linked) = launcher(profile)?;
    let launcher = install_file(&launcher, &bin, "warden-confine")?;
    Ok(Installed { warden, hook, launcher, linked, launcher_linked })
}

const USAGE: &str = "usage: cargo xtask install [--root DIR] [--debug] [--check]";

/// On a linux-gnu host the installed `warden-hook` must be statically linked, the launcher
/// linked against musl where that target is installed (E-36), and the installed pair must answer real hook events through a `warden serve` and exit 2 once the server is gone
/// (V-43's check: `--check`, and a step of `cargo xtask ci`).
pub(crate) fn check(installed: &Installed) -> Result<(), String> {
    if let Linked::Dynamic(why) = &installed.linked
        && cfg!(all(target_os = "linux", target_env = "gnu"))
    {
        return Err(format!("`warden-hook` is not statically linked: {why}"));
    }
    crate::bench_server::installed_answers(&installed.warden, &installed.hook)?;
    if musl_installed() && !installed.launcher_linked.starts_with(MUSL_LINKED) {
        return Err(format!(
            "the {MUSL} target is installed but `warden-confine` is {} (E-36)",
            installed.launcher_linked
        ));
    }
    launcher_confines(&installed.launcher)
}

/// How [`launcher`] says a musl build was linked.
const MUSL_LINKED: &str = "statically linked against musl";

/// Whether rustup lists the musl target as installed (E-36).
fn musl_installed() -> bool {
    Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).lines().any(|l| l.trim() == MUSL))
}

/// The narrowest confinement the launcher reads (E-8): nothing written, reads everywhere, no
/// network — what the hook's kernel probe runs (H-64).
const NARROWEST: &str = "v1 required r=* net=none";

/// The installed launcher confines `true` with [`NARROWEST`] and exits 0, or says why not: a
/// kernel without Landlock or user namespaces fails the check, as `[confine] mode = "required"`
/// would deny every shell call there.
fn launcher_confines(launcher: &Path) -> Result<(), String> {
    let out = Command::new(launcher)
        .args([NARROWEST, "true"])
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("`{}` cannot be run: {e}", launcher.display()))?;
    if out.status.success() {
        return Ok(());
    }
    Err(format!(
        "`{}` cannot confine here ({}): {}",
        launcher.display(),
        out.status,
        last_line(&String::from_utf8_lossy(&out.stderr))
    ))
}

/// `cargo xtask install`.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let (mut root, mut profile, mut checked) = (None, Profile::Release, false);
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--root" => {
                let dir = args.next().ok_or_else(|| format!("--root needs a directory\n{USAGE}"))?;
                root = Some(PathBuf::from(dir).join("bin"));
            }
            "--debug" => profile = Profile::Debug,
            "--check" => checked = true,
            other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
        }
    }
    let installed = install(root, profile)?;
    println!("installed {}", installed.warden.display());
    match &installed.linked {
        Linked::Static => println!("installed {} (statically linked)", installed.hook.display()),
        Linked::Dynamic(why) => {
            println!("installed {} (dynamically linked: {why})", installed.hook.display());
        }
    }
    println!("installed {} ({})", installed.launcher.display(), installed.launcher_linked);
    if checked {
        check(&installed)?;
        println!(
            "checked: the installed pair answers hook events through `warden serve`, and the launcher confines"
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An ELF64 little-endian header with `types` as its program headers (56 bytes each).
    fn elf(types: &[u32]) -> Vec<u8> {
        let mut bytes = vec![0u8; 64];
        bytes[..4].copy_from_slice(b"\x7fELF");
        bytes[4] = 2;
        bytes[5] = 1;
        bytes[0x20..0x28].copy_from_slice(&64u64.to_le_bytes());
        bytes[0x36..0x38].copy_from_slice(&56u16.to_le_bytes());
        bytes[0x38..0x3a].copy_from_slice(&u16::try_from(types.len()).unwrap().to_le_bytes());
        for kind in types {
            let mut header = vec![0u8; 56];
            header[..4].copy_from_slice(&kind.to_le_bytes());
            bytes.extend(header);
        }
        bytes
    }

    #[test]
    fn a_program_interpreter_is_found_among_the_program_headers() {
        assert_eq!(interpreter_in(&elf(&[6, 3, 1])), Ok(true), "PHDR, INTERP, LOAD: dynamic");
        assert_eq!(interpreter_in(&elf(&[6, 1, 1, 2])), Ok(false), "no INTERP: static");
        assert_eq!(interpreter_in(&elf(&[])), Ok(false));
    }

    #[test]
    fn what_is_not_a_whole_elf64_file_is_an_error_not_a_static_binary() {
        assert!(interpreter_in(b"#!/bin/sh\n").is_err());
        let mut big_endian = elf(&[1]);
        big_endian[5] = 2;
        assert!(interpreter_in(&big_endian).is_err());
        let whole = elf(&[1, 3]);
        assert!(interpreter_in(&whole[..whole.len() - 60]).is_err(), "the INTERP header cut off");
    }

    #[test]
    fn a_file_is_installed_whole_and_a_link_at_the_temporary_name_is_not_followed() {
        use std::os::unix::fs::PermissionsExt;
        let dir = scratch_dir("install");
        let source = dir.join("built");
        std::fs::write(&source, b"the binary").unwrap();
        let bin = dir.join("bin");
        std::fs::create_dir(&bin).unwrap();
        std::fs::write(bin.join("tool"), b"the old one").unwrap();
        let installed = install_file(&source, &bin, "tool").unwrap();
        assert_eq!(std::fs::read(&installed).unwrap(), b"the binary");
        assert_eq!(std::fs::metadata(&installed).unwrap().permissions().mode() & 0o777, 0o755);

        // A link planted at the temporary name, pointing at a file of the user's.
        let victim = dir.join("victim");
        std::fs::write(&victim, b"keep me").unwrap();
        let planted = bin.join(format!(".tool.installing-{}", std::process::id()));
        std::os::unix::fs::symlink(&victim, &planted).unwrap();
        let refused = install_file(&source, &bin, "tool").unwrap_err();
        assert!(refused.contains("must not exist"), "{refused}");
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep me", "the link was not written through");
        assert_eq!(std::fs::read(bin.join("tool")).unwrap(), b"the binary", "the installed file stays");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A fresh directory under the system's temporary directory (xtask has no dependencies: no
    /// tempfile).
    fn scratch_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("xtask-test-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    fn a_dynamically_linked_program_is_read_as_one() {
        // This test binary is a dynamically linked Rust program on a linux-gnu host.
        assert_eq!(has_interpreter(&std::env::current_exe().unwrap()), Ok(true));
    }
}
