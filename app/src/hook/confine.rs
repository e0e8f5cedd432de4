//! An allowed shell call of an agent held to a manifest runs under the confinement launcher
//! (issue 50): the harness is answered with the call's input, the command replaced by
//! `warden-confine CONFINEMENT 'ORIGINAL'` ([`Confinement::launch_line`]), where the confinement
//! is what the agent's and its ancestors' manifests grant ([`lineage_confinement`]), the
//! protected paths read-only, the session's own temporary directory writable.
//!
//! What decides is what the human installed: the launcher beside the running `warden` (or the
//! one the embedding code names), never a path the agent can name (H-63). Whether the kernel can
//! confine is probed once per process by running the launcher itself (H-64). A call is rewritten
//! only where the harness's own permission rules would have let it run as sent: a harness that
//! judges its rules against the input a hook hands back, and whose asking a hook's allow skips,
//! would have them widened by a rewrite of a call they deny, ask about or do not allow (H-61).
//! Where the harness reads those rules is named by its integration ([`ClientRules`], X-86); the
//! files are reached through the adapters, each read once by descriptor (X-84), and the session's
//! temporary directory is made and checked by descriptor (X-85). [`outcome`] turns these
//! findings and `[confine] mode` into what runs and what is recorded (E-13, E-14).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use agentwarden_adapters::paths::LocalPaths;
use agentwarden_adapters::untrusted::{self, UntrustedError};
use agentwarden_domain::code::Code;
use agentwarden_domain::confine::{
    Applied, Baseline, ConfineMode, Confinement, Findings, Place, lineage_confinement,
    main_session_confinement, outcome,
};
use agentwarden_domain::fact::FactError;
use agentwarden_domain::lineage::{CallArgument, Manifests, ToolRule, ToolRuleSet, ToolUse};
use agentwarden_domain::sessions::{ClientRules, HookAnswer, RuleSource, ShellInput};
use serde_json::Value;

use super::fast::HARNESS_HELD_NAMES;
use crate::warden::Warden;

/// The launcher's file name, installed beside `warden` and `warden-hook`.
pub(crate) const LAUNCHER: &str = "warden-confine";

/// The longest a rule file of the harness may be to be read (larger: unreadable, so not
/// rewritten; X-84).
const MAX_SETTINGS: u64 = 1024 * 1024;

/// How long the kernel probe may take before it counts as a failure.
const PROBE_DEADLINE: Duration = Duration::from_secs(5);

/// What a shell call's confinement came to: the record for its event, and the answer when it is
/// not [`HookAnswer::Proceed`].
#[derive(Debug)]
pub(crate) struct Confined {
    /// What the allow event records (E-14).
    pub(crate) applied: Applied,
    /// A rewrite, a deny (`required`), or `None`: the call runs as sent.
    pub(crate) answer: Option<HookAnswer>,
}

impl Warden {
    /// The launcher the human installed: the one the builder named, else `warden-confine`
    /// beside the running executable; it must be a regular, executable file (H-63).
    pub(crate) fn confine_launcher(&self) -> Result<PathBuf, String> {
        let path = match &self.launcher {
            Some(path) => path.as_ref().clone(),
            None => {
                let exe =
                    std::env::current_exe().map_err(|e| format!("the running executable is unknown: {e}"))?;
                exe.parent().map(|dir| dir.join(LAUNCHER)).ok_or("the running executable has no directory")?
            }
        };
        installed(&path).map(|()| path)
    }

    /// The confinement of a call of the agent whose lineage (root first) is `types`, at `root`
    /// and `cwd` in `session` (E-1 … E-6 over the lineage, E-7); `None` for the main session's
    /// call without `[confine] main_session` (E-15).
    pub(crate) fn confine_call(
        &self,
        session: &str,
        shell: Option<&ShellInput>,
        lineage: Option<(&[String], &Manifests)>,
        root: &str,
        cwd: &str,
    ) -> Option<Confined> {
        let mode = self.config.confine.mode;
        if mode == ConfineMode::Off || (lineage.is_none() && !self.config.confine.main_session) {
            return None;
        }
        let protected: Vec<String> = self.config.guardrails.protected.clone();
        let tmp = session_tmp(root, session);
        let place_tmp = tmp.as_deref().unwrap_or("/nonexistent-session-tmp").to_owned();
        let place = Place { root, cwd, session_tmp: &place_tmp };
        let home = user_home();
        let baseline = Baseline::unix(&home).holding(super::fast::HARNESS_HELD_NAMES);
        let confinement = match lineage {
            Some((types, manifests)) => {
                let rules: Vec<&[ToolRule]> = types
                    .iter()
                    .map(|t| {
                        manifests
                            .iter()
                            .find(|(name, _)| name.as_str() == t)
                            .map_or(&[][..], |(_, m)| m.tools.rules())
                    })
                    .collect();
                lineage_confinement(&rules, &place, &protected, &baseline)
            }
            None => {
                let absolute: Vec<String> = protected
                    .iter()
                    .map(|p| if p.starts_with('/') { p.clone() } else { format!("{root}/{p}") })
                    .collect();
                main_session_confinement(&absolute, &place, &baseline)
            }
        };
        let launcher = self.confine_launcher();
        let findings = Findings {
            client: match shell {
                Some(shell) => client_allows(shell, root, cwd, &home).map_err(FactError::from),
                None => Err(FactError::new(
                    "this harness's integration does not hand Warden the call's input to replace",
                )),
            },
            kernel: match (&launcher, &tmp) {
                (Ok(path), Ok(_)) => probe(path).map_err(FactError::from),
                (Err(_), _) => Err(FactError::new("the launcher was not probed")),
                (_, Err(why)) => Err(FactError::new(why.clone())),
            },
            launcher: launcher.as_ref().map(drop).map_err(|why| FactError::new(why.clone())),
        };
        let (applied, launch) = outcome(mode, &findings, &confinement)?;
        let answer = match (&applied, launch, &launcher, shell) {
            (Applied::Refused { why }, _, _, _) => {
                Some(HookAnswer::deny_for(&Code::ConfinementUnavailable, why))
            }
            (_, Some(launch), Ok(path), Some(shell)) => {
                let line = confinement.launch_line(launch, &path.to_string_lossy(), shell.command());
                Some(HookAnswer::rewrite(shell.with_command(line), reason(&applied)))
            }
            _ => None,
        };
        Some(Confined { applied, answer })
    }
}

/// The reason shown with a rewrite.
fn reason(applied: &Applied) -> String {
    format!("Agent Warden runs this command {}", applied.summary())
}

/// Whether `path` is a regular file someone may execute.
fn installed(path: &Path) -> Result<(), String> {
    match agentwarden_adapters::paths::executable_file(path) {
        Ok(true) => Ok(()),
        Ok(false) => Err(format!("`{}` is not an executable file", path.display())),
        Err(e) => Err(format!("`{}`: {e}", path.display())),
    }
}

/// The kernel probe (H-64): the launcher run once around `true` with the narrowest
/// confinement; it confines (user and mount namespaces, no network, Landlock) or says why not
/// on standard error. Cached for the process, by launcher.
pub(crate) fn probe(launcher: &Path) -> Result<(), String> {
    static CACHE: Mutex<Option<(PathBuf, Result<(), String>)>> = Mutex::new(None);
    if let Ok(cache) = CACHE.lock()
        && let Some((path, result)) = cache.as_ref()
        && path == launcher
    {
        return result.clone();
    }
    let result = run_probe(launcher);
    if let Ok(mut cache) = CACHE.lock() {
        *cache = Some((launcher.to_path_buf(), result.clone()));
    }
    result
}

fn run_probe(launcher: &Path) -> Result<(), String> {
    let narrowest = Confinement::default().encode(agentwarden_domain::confine::Mode::Required);
    let mut child = std::process::Command::new(launcher)
        .arg(narrowest)
        .arg("true")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("`{}` cannot be run: {e}", launcher.display()))?;
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => return Ok(()),
            Ok(Some(status)) => {
                let mut stderr = String::new();
                if let Some(mut pipe) = child.stderr.take() {
                    let _ = std::io::Read::read_to_string(&mut pipe, &mut stderr);
                }
                let line = stderr.lines().next().unwrap_or_default().trim().to_owned();
                return Err(format!("the launcher's probe failed ({status}): {line}"));
            }
            Ok(None) if started.elapsed() < PROBE_DEADLINE => std::thread::sleep(Duration::from_millis(2)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("the launcher's probe did not finish within {PROBE_DEADLINE:?}"));
            }
            Err(e) => return Err(format!("the launcher's probe cannot be waited for: {e}")),
        }
    }
}

/// The session's own temporary directory (E-12, E-16): `.agentwarden/tmp/SESSION` beneath the
/// workspace root, made by this process with mode 0700 when missing; it must be a directory of
/// this process's user that no one else may write, reached from the root without a symbolic link.
/// Not a shared name (`/tmp/…`) another user could make first. Each name is opened beneath the
/// one before by descriptor, and the owner and mode are read from the last one's descriptor, so
/// nothing is swapped between the check and what is checked (X-85).
pub(crate) fn session_tmp(root: &str, session: &str) -> Result<String, String> {
    if !agentwarden_domain::sessions::is_safe_id(session) {
        return Err(format!("session id `{}` is not safe as a file name", session.escape_debug()));
    }
    let names = [".agentwarden", "tmp", session].map(OsString::from);
    untrusted::private_dir(Path::new(root), &names)
        .map(|dir| dir.to_string_lossy().into_owned())
        .map_err(|e| format!("the session's temporary directory cannot be used: {e}"))
}

/// The user's home, where the harness's user-level rules are read and the toolchains' read
/// grants are placed: `$HOME` of the deciding process, the variable the harness itself resolves
/// `~` with, since the hook inherits the harness's environment; empty when unset, and then the
/// user's rules cannot be told and no rewrite is made. The one reading of it the hook and
/// `doctor` share (X-92).
fn user_home() -> String {
    std::env::var("HOME").unwrap_or_default()
}

/// Whether the harness's own rules would let `shell` run as sent (H-61); `Err` says why not, or
/// why Warden cannot tell.
pub(crate) fn client_allows(shell: &ShellInput, root: &str, cwd: &str, home: &str) -> Result<(), String> {
    let (permission_mode, sources) = match &shell.client {
        ClientRules::Unmodeled => {
            return Err("Warden does not model this harness's own rules for a replaced input".into());
        }
        ClientRules::Settings { permission_mode, sources } => (permission_mode.as_deref(), sources),
        ClientRules::Files { sources } => return files_allow(sources, root, cwd, home),
    };
    let rules = settings_rules(sources, root, cwd, home)?;
    judge(&rules, shell.command(), permission_mode, root, cwd)
}

/// Whether a harness whose command rules are text files lets a rewrite be made (C-22, M-30): no
/// file of `sources` mentions one of its refusing words, and each one there can be read; `Err`
/// names the file and why. The files are the agent's to write, so they may only ever stop a
/// rewrite: a file the agent adds denies its own calls, none turns confinement off.
fn files_allow(sources: &[RuleSource], root: &str, cwd: &str, home: &str) -> Result<(), String> {
    for source in sources {
        for (file, bytes) in rule_files(source, root, cwd, home)? {
            let text = String::from_utf8_lossy(&bytes);
            if let Some(word) = source.refusing.iter().find(|word| text.contains(word.as_str())) {
                return Err(format!(
                    "`{}` holds `{word}`: a rule of the harness's own that would not see the command behind Warden's launcher",
                    file.display()
                ));
            }
        }
    }
    Ok(())
}

/// The files `source` names, each with what it holds, in order: each place ([`rule_places`]);
/// a folder's files whose names end in its ending (and are longer), by name. A file or folder
/// that is missing holds nothing; one that cannot be read or listed, is not a regular file, or
/// is larger than [`MAX_SETTINGS`] is an `Err` naming it. Each file is opened once, links
/// followed as the harness follows them, and read through that descriptor with the bound
/// enforced on the read (X-84).
fn rule_files(
    source: &RuleSource,
    root: &str,
    cwd: &str,
    home: &str,
) -> Result<Vec<(PathBuf, Vec<u8>)>, String> {
    let mut read = Vec::new();
    for place in rule_places(&source.place, root, cwd, home)? {
        let files = match &source.ending {
            None => vec![place],
            Some(ending) => match untrusted::list_dir_followed(&place) {
                Err(UntrustedError::Missing { .. }) => continue,
                Err(e) => return Err(format!("`{}` cannot be listed: {}", place.display(), e.reason())),
                Ok(entries) => entries
                    .into_iter()
                    .filter(|(name, _)| {
                        let name = name.to_string_lossy();
                        name.len() > ending.len() && name.ends_with(ending.as_str())
                    })
                    .map(|(name, _)| place.join(name))
                    .collect(),
            },
        };
        for file in files {
            match untrusted::read_followed(&file, MAX_SETTINGS) {
                Err(UntrustedError::Missing { .. }) => {}
                Err(e) => return Err(format!("`{}` cannot be read: {}", file.display(), e.reason())),
                Ok(bytes) => read.push((file, bytes)),
            }
        }
    }
    Ok(read)
}

/// The paths a [`RuleSource`]'s place names (see its doc): `Err` when it is beneath the user's
/// home and no home is known (the user's rules cannot be told).
fn rule_places(place: &str, root: &str, cwd: &str, home: &str) -> Result<Vec<PathBuf>, String> {
    if let Some(rest) = place.strip_prefix("~/") {
        if home.is_empty() {
            return Err(format!("no home to find `{place}` in"));
        }
        return Ok(vec![Path::new(home).join(rest)]);
    }
    if let Some(rest) = place.strip_prefix('$') {
        let (var, rest) = rest.split_once('/').unwrap_or((rest, ""));
        return Ok(std::env::var_os(var).map(|value| Path::new(&value).join(rest)).into_iter().collect());
    }
    if let Some(rest) = place.strip_prefix("^/") {
        return Ok(vec![Path::new(root).join(rest)]);
    }
    if let Some(rest) = place.strip_prefix("./") {
        let root = Path::new(root);
        let mut layers = vec![root.to_path_buf()];
        if let Ok(below) = Path::new(cwd).strip_prefix(root) {
            let mut at = root.to_path_buf();
            for part in below.components() {
                at.push(part);
                layers.push(at.clone());
            }
        }
        return Ok(layers.into_iter().map(|layer| layer.join(rest)).collect());
    }
    Ok(vec![PathBuf::from(place)])
}

/// A permission rule of the harness's settings: its list (`deny`, `ask`, `allow`), the rule,
/// the file.
type SettingsRule = (&'static str, String, String);

/// The permission rules (`permissions.deny`, `.ask`, `.allow`) of every settings file of
/// `sources` (named by the harness's integration, X-86), read as [`rule_files`] reads them: a
/// file that is missing has none; one that cannot be read, is not JSON, or holds a list that is
/// not a list of strings is an `Err`.
fn settings_rules(
    sources: &[RuleSource],
    root: &str,
    cwd: &str,
    home: &str,
) -> Result<Vec<SettingsRule>, String> {
    let mut rules = Vec::new();
    for source in sources {
        for (file, bytes) in rule_files(source, root, cwd, home)? {
            let value: Value = serde_json::from_slice(&bytes)
                .map_err(|e| format!("`{}` is not JSON: {e}", file.display()))?;
            for list in ["deny", "ask", "allow"] {
                let Some(found) = value.pointer(&format!("/permissions/{list}")) else { continue };
                let Value::Array(items) = found else {
                    return Err(format!("`{}`: `permissions.{list}` is not a list", file.display()));
                };
                for item in items {
                    let Value::String(rule) = item else {
                        return Err(format!("`{}`: `permissions.{list}` holds a non-string", file.display()));
                    };
                    rules.push((list, rule.clone(), file.display().to_string()));
                }
            }
        }
    }
    Ok(rules)
}

/// The judgement of `command` against the harness's rules (H-61): no `deny` or `ask` rule may
/// match it (read widely: [`may_match`]), and either the mode is `bypassPermissions` or an
/// `allow` rule grants it as Warden reads the rule (the same or less than the harness).
fn judge(
    rules: &[SettingsRule],
    command: &str,
    permission_mode: Option<&str>,
    root: &str,
    cwd: &str,
) -> Result<(), String> {
    for (list, rule, file) in rules.iter().filter(|(list, _, _)| *list != "allow") {
        if may_match(rule, command) {
            return Err(format!(
                "its own `{list}` rule `{rule}` ({file}) may match the command as sent, and the harness would \
                 judge only the launcher's command line"
            ));
        }
    }
    if permission_mode == Some("bypassPermissions") {
        return Ok(());
    }
    let call = ToolUse::resolve_holding(
        agentwarden_domain::lineage::syntax::SHELL,
        &CallArgument::Command(command.to_owned()),
        cwd,
        root,
        &LocalPaths,
        HARNESS_HELD_NAMES,
    );
    let granted = rules.iter().filter(|(list, _, _)| *list == "allow").any(|(_, rule, _)| {
        ToolRule::parse(rule).is_ok_and(|rule| ToolRuleSet::new(vec![rule]).grants(&call))
    });
    if granted {
        return Ok(());
    }
    Err(format!(
        "no `allow` rule of its settings grants the command as sent (mode `{}`): it would ask or refuse, and \
         an allow from the hook would skip that",
        permission_mode.unwrap_or("default")
    ))
}

/// Whether the harness's `deny` or `ask` rule `rule` may match the shell command `command`,
/// read widely so that Warden never misses one the harness would apply (H-61): a rule of
/// another tool never; the bare shell rule, or one Warden cannot read, always; a rule with a
/// specifier whenever the first word of each literal piece between its wildcards appears
/// anywhere in the command (so always when it has none).
pub(crate) fn may_match(rule: &str, command: &str) -> bool {
    let shell = agentwarden_domain::lineage::syntax::SHELL;
    let Some(rest) = rule.trim().strip_prefix(shell) else { return false };
    let rest = rest.trim();
    if rest.is_empty() {
        return true;
    }
    // Another tool whose name starts with the shell's (`BashOutput`): not this rule.
    if rest.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
        return false;
    }
    let Some(spec) = rest.strip_prefix('(').and_then(|r| r.strip_suffix(')')) else { return true };
    // Every literal piece between its wildcards must be in a command the rule matches; the
    // first word of each is looked for anywhere, which is wider.
    spec.trim_end_matches(":*")
        .split('*')
        .filter_map(|piece| piece.split_whitespace().next())
        .all(|word| command.contains(word.trim_end_matches(':')))
}

/// What `warden doctor` says of confinement (E-13, H-63, H-64): the mode, the launcher, what the
/// kernel offers, and what each agent type's shell is confined to.
#[derive(Debug)]
pub struct ConfineReport {
    /// `[confine] mode`.
    pub mode: ConfineMode,
    /// `[confine] main_session`.
    pub main_session: bool,
    /// The launcher beside the running executable, or why there is none usable (H-63).
    pub launcher: Result<PathBuf, FactError>,
    /// The launcher's probe of the kernel (H-64).
    pub kernel: Result<(), FactError>,
    /// `/proc/sys/user/max_user_namespaces`, or why it cannot be read.
    pub user_namespaces: Result<u64, FactError>,
    /// Each agent type of the manifests with what its shell is confined to under the main
    /// session's (its own rules stacked on the root's; a deeper lineage only narrows it), or why
    /// the manifests cannot be read.
    pub agents: Result<Vec<(String, String)>, FactError>,
}

/// [`ConfineReport`] for `config`, `main` the main session's type, the manifests as `manifests`
/// reads them, the workspace `root` (absolute).
pub fn confine_report(
    config: &crate::Config,
    manifests: Result<&Manifests, FactError>,
    main: &str,
    root: &str,
) -> ConfineReport {
    let launcher = std::env::current_exe()
        .map_err(|e| format!("the running executable is unknown: {e}"))
        .and_then(|exe| exe.parent().map(|d| d.join(LAUNCHER)).ok_or_else(|| "no directory".to_owned()))
        .and_then(|path| installed(&path).map(|()| path))
        .map_err(FactError::from);
    let kernel = match &launcher {
        Ok(path) => probe(path).map_err(FactError::from),
        Err(why) => Err(FactError::new(format!("not probed: {why}"))),
    };
    let user_namespaces = untrusted::read_followed(Path::new("/proc/sys/user/max_user_namespaces"), 64)
        .map_err(|e| e.to_string())
        .and_then(|t| String::from_utf8_lossy(&t).trim().parse::<u64>().map_err(|e| e.to_string()))
        .map_err(FactError::from);
    let home = user_home();
    let tmp = format!("{root}/.agentwarden/tmp/SESSION");
    let place = Place { root, cwd: root, session_tmp: &tmp };
    let protected = &config.guardrails.protected;
    let agents = manifests.map(|manifests| {
        let rules_of = |name: &str| {
            manifests.iter().find(|(n, _)| n.as_str() == name).map_or(&[][..], |(_, m)| m.tools.rules())
        };
        // The main session's own shell is confined by `main_session`, not by its manifest.
        let mut names: Vec<&str> = manifests.keys().map(|n| n.as_str()).filter(|n| *n != main).collect();
        names.sort_unstable();
        names
            .into_iter()
            .map(|name| {
                let lineage: Vec<&[ToolRule]> = vec![rules_of(main), rules_of(name)];
                let confinement = lineage_confinement(
                    &lineage,
                    &place,
                    protected,
                    &Baseline::unix(&home).holding(super::fast::HARNESS_HELD_NAMES),
                );
                let Applied::Confined { grants, unenforced, .. } =
                    confinement.applied(agentwarden_domain::confine::Mode::Required)
                else {
                    return (name.to_owned(), String::new());
                };
                let unenforced = if unenforced.is_empty() {
                    String::new()
                } else {
                    format!("; not enforced by the kernel: {}", unenforced.join("; "))
                };
                (name.to_owned(), format!("{grants}{unenforced}"))
            })
            .collect()
    });
    ConfineReport {
        mode: config.confine.mode,
        main_session: config.confine.main_session,
        launcher,
        kernel,
        user_namespaces,
        agents,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Table (C-22, M-30): a harness whose rules are text files lets a rewrite be made only
    /// where no file mentions a refusing word and each one there can be read; `~/`, `$VAR/` and
    /// `./` places are found where the source says.
    #[test]
    fn rule_files_that_refuse_or_cannot_be_read_stop_the_rewrite() {
        let dir = tempfile::tempdir().unwrap();
        let (root, home) = (dir.path().join("p"), dir.path().join("h"));
        let cwd = root.join("sub");
        std::fs::create_dir_all(cwd.join(".x/rules")).unwrap();
        std::fs::create_dir_all(home.join(".x/rules")).unwrap();
        let source = |place: &str, ending: Option<&str>| RuleSource {
            place: place.to_owned(),
            ending: ending.map(str::to_owned),
            refusing: vec!["forbidden".to_owned(), "prompt".to_owned()],
        };
        let (root_s, cwd_s, home_s) =
            (root.display().to_string(), cwd.display().to_string(), home.display().to_string());
        let allows = |sources: &[RuleSource]| files_allow(sources, &root_s, &cwd_s, &home_s);
        let folders = [source("~/.x/rules", Some(".rules")), source("./.x/rules", Some(".rules"))];
        assert_eq!(allows(&folders), Ok(()), "no files");
        std::fs::write(home.join(".x/rules/a.rules"), "prefix_rule(pattern = [\"ls\"])").unwrap();
        std::fs::write(cwd.join(".x/rules/b.txt"), "forbidden").unwrap();
        std::fs::write(cwd.join(".x/rules/.rules"), "forbidden").unwrap();
        assert_eq!(
            allows(&folders),
            Ok(()),
            "allow rules alone; other endings and a bare ending are not read"
        );
        std::fs::write(cwd.join(".x/rules/c.rules"), "# decision = \"prompt\"").unwrap();
        let refused = allows(&folders).unwrap_err();
        assert!(
            refused.contains("c.rules") && refused.contains("prompt"),
            "a layer below the root: {refused}"
        );
        std::fs::remove_file(cwd.join(".x/rules/c.rules")).unwrap();
        std::fs::create_dir(home.join(".x/rules/d.rules")).unwrap();
        assert!(allows(&folders).is_err_and(|e| e.contains("cannot be read")), "an unreadable file refuses");
        std::fs::remove_dir(home.join(".x/rules/d.rules")).unwrap();
        let file = [source(&home.join("settings.json").display().to_string(), None)];
        assert_eq!(allows(&file), Ok(()), "a missing file");
        std::fs::write(home.join("settings.json"), "{\"forbidden\": 1}").unwrap();
        assert!(allows(&file).is_err(), "one file, read whole");
        assert!(
            files_allow(&folders[..1], &root_s, &cwd_s, "").is_err(),
            "no home: the user's rules cannot be told"
        );
        let unset = [source("$AGENTWARDEN_TEST_UNSET_VARIABLE/rules", Some(".rules"))];
        assert_eq!(allows(&unset), Ok(()), "a variable that is not set names nothing");
    }

    /// The settings places the integration names are what is read, each as its form says (`^/`
    /// the root alone, not the layers below; a folder's files by their ending; a linked file
    /// through its link); a deny rule in any stops the rewrite, and so does a file that is not
    /// JSON, larger than the bound, or a FIFO (at once, never waited on) (X-86, X-84).
    #[test]
    fn the_settings_places_the_integration_names_are_read_and_judged() {
        let dir = tempfile::tempdir().unwrap();
        let (root, home) = (dir.path().join("p"), dir.path().join("h"));
        let cwd = root.join("sub");
        std::fs::create_dir_all(cwd.join(".s")).unwrap();
        std::fs::create_dir_all(home.join("managed.d")).unwrap();
        let place = |place: &str, ending: Option<&str>| RuleSource {
            place: place.to_owned(),
            ending: ending.map(str::to_owned),
            refusing: Vec::new(),
        };
        let sources = vec![place("~/managed.d", Some(".json")), place("^/.s/settings.json", None)];
        let shell = ShellInput::new(
            &serde_json::json!({"command": "touch x"}),
            "command",
            ClientRules::Settings { permission_mode: Some("bypassPermissions".to_owned()), sources },
        )
        .unwrap();
        let (root_s, cwd_s, home_s) =
            (root.display().to_string(), cwd.display().to_string(), home.display().to_string());
        let (tx, rx) = std::sync::mpsc::channel();
        let allows = move || {
            let (shell, root_s, cwd_s, home_s, tx) =
                (shell.clone(), root_s.clone(), cwd_s.clone(), home_s.clone(), tx.clone());
            std::thread::spawn(move || tx.send(client_allows(&shell, &root_s, &cwd_s, &home_s)));
            rx.recv_timeout(Duration::from_secs(5)).expect("the read finished")
        };
        let deny = r#"{"permissions": {"deny": ["Bash(touch:*)"]}}"#;
        assert_eq!(allows(), Ok(()), "no files");
        std::fs::write(cwd.join(".s/settings.json"), deny).unwrap();
        assert_eq!(allows(), Ok(()), "`^/` is the root alone, not the working directory");
        std::fs::write(home.join("managed.d/a.txt"), deny).unwrap();
        std::fs::write(home.join("managed.d/.json"), deny).unwrap();
        assert_eq!(allows(), Ok(()), "other endings and a bare ending are not read");
        std::fs::write(home.join("managed.d/b.json"), deny).unwrap();
        assert!(allows().is_err_and(|e| e.contains("b.json")), "a folder's file");
        std::fs::remove_file(home.join("managed.d/b.json")).unwrap();
        std::fs::create_dir_all(root.join(".s")).unwrap();
        std::fs::write(dir.path().join("kept.json"), deny).unwrap();
        std::os::unix::fs::symlink(dir.path().join("kept.json"), root.join(".s/settings.json")).unwrap();
        assert!(allows().is_err_and(|e| e.contains("touch")), "a linked file is read through its link");
        std::fs::remove_file(root.join(".s/settings.json")).unwrap();
        std::fs::write(root.join(".s/settings.json"), "{").unwrap();
        assert!(allows().is_err_and(|e| e.contains("not JSON")), "not JSON");
        let large = format!("{{\"x\": \"{}\"}}", "a".repeat(usize::try_from(MAX_SETTINGS).unwrap()));
        std::fs::write(root.join(".s/settings.json"), large).unwrap();
        assert!(allows().is_err_and(|e| e.contains("cannot be read")), "over the bound");
        std::fs::remove_file(root.join(".s/settings.json")).unwrap();
        let fifo = std::process::Command::new("mkfifo").arg(root.join(".s/settings.json")).status().unwrap();
        assert!(fifo.success());
        assert!(allows().is_err_and(|e| e.contains("FIFO")), "a FIFO refuses at once");
    }

    /// (rule, command, may match, why), H-61.
    #[test]
    fn a_deny_or_ask_rule_is_read_widely() {
        let table: [(&str, &str, bool, &str); 15] = [
            ("Bash(*warden seal*)", "python3 -c 1", false, "a piece between wildcards not in it"),
            ("Bash(*warden seal*)", "cd a; warden  seal", true, "each piece's first word in it"),
            ("Bash(**)", "ls", true, "only wildcards"),
            ("Bash", "ls", true, "the bare rule"),
            ("Bash(*)", "ls", true, "no literal prefix"),
            ("Bash(touch:*)", "touch x", true, "the prefix"),
            ("Bash(touch:*)", "cd a && touch x", true, "inside a compound command"),
            ("Bash(touch:*)", "python3 -c 'import os; os.system(\"touch x\")'", true, "anywhere at all"),
            ("Bash(git push:*)", "git status", true, "the first word alone: wider than the harness"),
            ("Bash(rm -rf /)", "echo hi", false, "another command"),
            ("Read(.env)", "cat .env", false, "another tool"),
            ("BashOutput", "ls", false, "another tool with the shell's name as a prefix"),
            ("Bash(unclosed", "ls", true, "unreadable: matches"),
            ("  Bash  ", "ls", true, "spaces around"),
            ("Bash(warden seal:*)", "echo warden", true, "the word inside another"),
        ];
        for (rule, command, expected, why) in table {
            assert_eq!(may_match(rule, command), expected, "{rule} / {command}: {why}");
        }
    }

    fn rules(list: &[(&'static str, &str)]) -> Vec<SettingsRule> {
        list.iter().map(|(l, r)| (*l, (*r).to_owned(), "f".to_owned())).collect()
    }

    /// What the harness itself would do with the call as sent, as measured on the harness
    /// (docs/decisions/H-61.md): a rewrite only where it would run it without asking.
    #[test]
    fn a_call_is_rewritten_only_where_the_harness_would_run_it_as_sent() {
        let ok = |r: &[(&'static str, &str)], command: &str, mode: Option<&str>| {
            judge(&rules(r), command, mode, "/p", "/p").is_ok()
        };
        assert!(ok(&[("allow", "Bash(python3:*)")], "python3 -c 1", Some("default")));
        assert!(ok(&[("allow", "Bash")], "ls", None));
        assert!(!ok(&[("allow", "Bash(python3:*)")], "ls", Some("default")), "no allow rule: it would ask");
        assert!(!ok(&[], "ls", Some("dontAsk")), "no allow rule: it would refuse");
        assert!(ok(&[], "ls", Some("bypassPermissions")), "it runs everything not denied");
        assert!(!ok(&[("deny", "Bash(touch:*)")], "touch x", Some("bypassPermissions")), "a deny rule");
        assert!(!ok(&[("allow", "Bash"), ("ask", "Bash(touch:*)")], "touch x", None), "an ask rule");
        assert!(
            !ok(&[("allow", "Bash(ls:*)"), ("allow", "Bash(python3:*)")], "ls && rm x", None),
            "a compound"
        );
    }

    #[test]
    fn the_session_directory_is_private_and_reached_without_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let root = root.to_str().unwrap();
        let made = session_tmp(root, "s1").unwrap();
        assert_eq!(made, format!("{root}/.agentwarden/tmp/s1"));
        assert_eq!(session_tmp(root, "s1").unwrap(), made, "the same one again");
        std::fs::create_dir_all(format!("{root}/elsewhere")).unwrap();
        std::os::unix::fs::symlink(format!("{root}/elsewhere"), format!("{root}/.agentwarden/tmp/s2"))
            .unwrap();
        assert!(session_tmp(root, "s2").is_err(), "a planted link");
        assert!(session_tmp(root, "../x").is_err(), "an unsafe id");
    }
}
