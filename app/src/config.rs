//! `agentwarden.toml`: where the instruction files are and which variable is the kill switch.
//!
//! A missing file means the documented defaults. A file that exists must parse, and unknown
//! keys are an error with the file and line — a misspelt key silently ignored could turn a
//! control off (fail closed). Relative directories are relative to the file's own directory.
//!
//! ```toml
//! [subagents]
//! enable_env = "AGENTWARDEN_ENABLE_SUBAGENTS"   # the kill switch (G-2)
//! personas_dir = "personas"
//! agents_dir = "agents"
//! persona_file_pattern = "AGENT_{name}.md"
//! agent_file_pattern = "AGENT_{name}.md"
//! require_recorded_approval = false             # G-21: approvals and the seal must be records
//!
//! [lineage]
//! manifests = "manifests"   # a file, or a directory of *.toml manifests
//!
//! [guardrails]
//! protected = ["okrs"]      # relative to the workspace root (R-1)
//! actor = "daemon"          # who records guardrail_violation events
//!
//! [harness_key]             # one section per harness, keyed as its integration says (U-17)
//! main_persona = "main"     # the main session's persona, the root of every spawn tree
//! builtin_agents = []       # the harness's built-in agent types that may be spawned (H-20)
//! agent_tools = []          # its tools that start agents (`Workflow`, …) that may be used (H-22)
//! tools = "enforce"         # subagents' tool calls against the manifests' rules, or "shadow" (T-10)
//!
//! [confine]
//! mode = "on"               # an agent's shell under the launcher: "off", "on" or "required" (E-13)
//! main_session = false      # the main session's shell too: protected paths read-only (E-15)
//!
//! [approvals]
//! allowed_signers = "allowed_signers"   # K-1: seals and approvals must be SSH-signed by these
//!
//! [store]
//! url = "postgres://warden@db.internal/audit"   # or a directory; read by `serve --config` only:
//!                                                # any other command needs --store too (V-67)
//!
//! [server]
//! socket = "/run/agentwarden/warden.sock"  # where `warden serve --config` listens; a client
//! uid = 998                                 # names both with --server/--server-uid (V-67, V-12)
//! log_key = "/etc/agentwarden/log.key"      # the server signs its checkpoints (A-37)
//! witnesses = ["http://w.example:7380 witness.example/w1+1234abcd+AQ…"]  # and submits them (A-40)
//!
//! [audit]
//! witnesses = ["witness.example/w1+1234abcd+AQ…"]  # `audit verify --checkpoint` needs their
//! quorum = 1                                        # cosignatures, when sealed (A-41)
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use agentwarden_domain::governance::Name;
use agentwarden_domain::sessions::{HarnessProfile, HarnessTerms};
use serde::Deserialize;

/// Whether an agent's shell call runs confined: [`ConfineConfig::mode`] (E-13), named by a
/// caller above the facade without reaching the domain (A-48).
pub use agentwarden_domain::confine::ConfineMode;

/// The default kill-switch variable (G-2).
pub const DEFAULT_ENABLE_ENV: &str = "AGENTWARDEN_ENABLE_SUBAGENTS";
/// The file looked for, from the working directory upward, when no `--config` is given (N-1).
pub const CONFIG_FILE: &str = "agentwarden.toml";

/// A file pattern refused: not exactly one `{name}`, or a path separator or `..` in it (X-95).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{pattern}` is not a file pattern: it needs exactly one {{name}}, an extension or prefix, and no `/`, \
     `\\` or `..`"
)]
pub struct PatternError {
    /// The pattern as given.
    pub pattern: String,
}

/// A file-name pattern with exactly one `{name}` and no path separator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FilePattern {
    pattern: String,
    /// What comes before `{name}` and what after it, split once when the pattern is made: the
    /// gate builds a path from them for every instruction file it reads.
    prefix: String,
    suffix: String,
}

impl FilePattern {
    /// Validates a pattern.
    pub fn new(pattern: &str) -> Result<FilePattern, PatternError> {
        let ok = pattern.matches("{name}").count() == 1
            && !pattern.contains(['/', '\\', '\0'])
            && !pattern.contains("..")
            && pattern != "{name}";
        if ok { Ok(FilePattern::split(pattern)) } else { Err(PatternError { pattern: pattern.to_owned() }) }
    }

    /// A pattern known to hold one `{name}`.
    fn split(pattern: &str) -> FilePattern {
        let (prefix, suffix) = pattern.split_once("{name}").unwrap_or((pattern, ""));
        FilePattern { pattern: pattern.to_owned(), prefix: prefix.to_owned(), suffix: suffix.to_owned() }
    }

    /// True when `file_name` is this pattern around a valid name.
    pub fn matches(&self, file_name: &str) -> bool {
        self.name_of(file_name).is_some()
    }

    /// The pattern, e.g. `AGENT_{name}.md`.
    pub fn as_str(&self) -> &str {
        &self.pattern
    }

    /// The name in `file_name`, when it is this pattern around a valid name.
    pub fn name_of<'a>(&self, file_name: &'a str) -> Option<&'a str> {
        file_name
            .strip_prefix(self.prefix.as_str())
            .and_then(|rest| rest.strip_suffix(self.suffix.as_str()))
            .filter(|n| Name::is_valid(n))
    }

    /// The file name for `name`.
    pub fn file_name(&self, name: &Name) -> String {
        let name = name.as_str();
        let mut file = String::with_capacity(self.prefix.len() + name.len() + self.suffix.len());
        file.push_str(&self.prefix);
        file.push_str(name);
        file.push_str(&self.suffix);
        file
    }

    /// `dir.join(self.file_name(name))`, written once into a path of the right size.
    fn path_in(&self, dir: &Path, name: &Name) -> PathBuf {
        let name = name.as_str();
        let dir = dir.as_os_str();
        let mut path =
            PathBuf::with_capacity(dir.len() + 1 + self.prefix.len() + name.len() + self.suffix.len());
        let path_text = path.as_mut_os_string();
        path_text.push(dir);
        // As `Path::join` does: a separator unless the directory is empty or ends with one.
        if dir.as_encoded_bytes().last().is_some_and(|last| !std::path::is_separator(char::from(*last))) {
            path_text.push(std::path::MAIN_SEPARATOR_STR);
        }
        path_text.push(&self.prefix);
        path_text.push(name);
        path_text.push(&self.suffix);
        path
    }
}

/// Where the subagent gate finds its inputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubagentConfig {
    /// The kill-switch variable's name.
    pub enable_env: String,
    /// The personas' instruction files.
    pub personas_dir: PathBuf,
    /// The subagents' instruction files.
    pub agents_dir: PathBuf,
    /// A persona's file name.
    pub persona_file_pattern: FilePattern,
    /// A subagent's file name.
    pub agent_file_pattern: FilePattern,
    /// `approvalRef` must name a recorded approval in force and in scope, and a seal must be
    /// recorded (the hook always requires this; library consumers opt in) (G-21).
    pub require_recorded_approval: bool,
}

impl Default for SubagentConfig {
    fn default() -> Self {
        SubagentConfig::relative_to(Path::new("."))
    }
}

impl SubagentConfig {
    fn relative_to(base: &Path) -> Self {
        SubagentConfig {
            enable_env: DEFAULT_ENABLE_ENV.to_owned(),
            personas_dir: base.join("personas"),
            agents_dir: base.join("agents"),
            persona_file_pattern: FilePattern::split("AGENT_{name}.md"),
            agent_file_pattern: FilePattern::split("AGENT_{name}.md"),
            require_recorded_approval: false,
        }
    }

    /// The persona's instruction file.
    pub fn persona_path(&self, name: &Name) -> PathBuf {
        self.persona_file_pattern.path_in(&self.personas_dir, name)
    }

    /// A subagent's instruction file.
    pub fn agent_path(&self, name: &Name) -> PathBuf {
        self.agent_file_pattern.path_in(&self.agents_dir, name)
    }
}

/// Where the lineage manifests are (spec 003).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineageConfig {
    /// A manifest file, or a directory of `*.toml` manifests.
    pub manifests: PathBuf,
}

impl Default for LineageConfig {
    fn default() -> Self {
        LineageConfig { manifests: Path::new(".").join("manifests") }
    }
}

/// What the guardrails protect (R-1) and who records violations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GuardrailsConfig {
    /// Paths relative to the workspace root.
    pub protected: Vec<String>,
    /// The actor of `guardrail_violation` events.
    pub actor: String,
}

impl Default for GuardrailsConfig {
    fn default() -> Self {
        GuardrailsConfig { protected: vec!["okrs".into()], actor: "daemon".into() }
    }
}

/// `[confine]`: whether an agent's shell call runs under the confinement launcher (issue 50).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConfineConfig {
    /// `off`, `on` (the default) or `required` (E-13).
    pub mode: ConfineMode,
    /// The main session's shell too, with every protected path read-only (E-15).
    pub main_session: bool,
}

/// How `warden hook` governs one harness's sessions: its section of the file, under the key its
/// integration names. The loader checks each section's
/// keys and values; the names its lists may hold are the harness's own, checked by
/// [`Config::harness`] against its integration's [`HarnessProfile`] (U-17).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HarnessConfig {
    /// The persona of the main session (the root of every spawn tree): its instruction file
    /// says which subagents it may spawn, and the manifests what its type may do.
    /// A plain name, checked when the file is read (and again where it is used).
    pub main_persona: String,
    /// Built-in agent types of the harness a spawn may ask for; the rest are denied before the
    /// gate (H-20). Default: none.
    pub builtin_agents: Vec<String>,
    /// Tools of the harness other than its spawn tool that start agents and may be used; the
    /// rest are denied (H-22). Default: none.
    pub agent_tools: Vec<String>,
    /// `tools`: what a subagent's tool call the manifests' rules do not grant gets (T-10).
    pub tools: ToolRules,
}

/// A harness section's `tools`. Enforced unless the file says `"shadow"`: a new rule set is
/// rolled out by recording what it would deny first, never by default (T-10).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ToolRules {
    /// Denied, and recorded.
    #[default]
    Enforce,
    /// Recorded as what enforcing would deny (`tool_call_authorized` with `shadow: true`), and
    /// let run.
    Shadow,
}

impl Default for HarnessConfig {
    fn default() -> Self {
        HarnessConfig {
            main_persona: "main".to_owned(),
            builtin_agents: Vec::new(),
            agent_tools: Vec::new(),
            tools: ToolRules::Enforce,
        }
    }
}

/// One harness's settings as a decision reads them: its section (the defaults when the file has
/// none), checked against its profile, and the words its reasons use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HarnessSettings {
    /// Its section.
    pub config: HarnessConfig,
    /// Its name and its section's key, in reasons.
    pub terms: HarnessTerms<'static>,
}

/// The whole configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// The workspace root: the configuration file's directory (`.` for the defaults). Protected
    /// paths, the hook's `result.json` paths and sealed files' names are relative to it.
    pub root: PathBuf,
    /// The file this configuration was read from (`None`: the defaults).
    pub source: Option<PathBuf>,
    /// The seal digest of the bytes [`Config::load`] parsed (with their permission bits, U-15);
    /// `None` when not loaded from a file by `load`. A decision compares it with the seal
    /// (U-16).
    pub source_digest: Option<String>,
    /// Each harness's section, by the key its integration names: any table the
    /// loader does not know otherwise. Read through [`Config::harness`] (U-17).
    pub harnesses: BTreeMap<String, HarnessConfig>,
    /// `[subagents]`.
    pub subagents: SubagentConfig,
    /// `[lineage]`.
    pub lineage: LineageConfig,
    /// `[guardrails]`.
    pub guardrails: GuardrailsConfig,
    /// `[confine]`.
    pub confine: ConfineConfig,
    /// `[store] url`: a `postgres://` URL or the embedded store's directory (relative to the
    /// file); followed only by `warden serve` reading a configuration `--config` names, and
    /// any other command refuses it unless `--store` names the store too (V-67).
    pub store: Option<String>,
    /// `[fan_out]`, raw: validated (clamped, with warnings) by the fan-out rules (spec 002).
    pub fan_out: Option<serde_json::Value>,
    /// `[server] socket`: the resident service's socket (relative to the file), where `warden
    /// serve --config` listens; no client follows it, and one refuses it unless `--server`
    /// names the server too (V-67).
    pub server: Option<PathBuf>,
    /// `[server] uid`: the user the server must run as; a client refuses it unless
    /// `--server-uid` names the same (V-12, V-67).
    pub server_uid: Option<u32>,
    /// `[server] log_key` (relative to the file): the key the server signs its checkpoints
    /// with (A-30, A-37); never named by a variable.
    pub server_log_key: Option<PathBuf>,
    /// `[server] witnesses`: each `URL VKEY`, a `tlog-witness` the server submits its signed
    /// checkpoints to (A-40): the URL (`http://HOST:PORT`, the witness's prefix) and its verifier
    /// key.
    pub server_witnesses: Vec<(String, String)>,
    /// `[approvals] allowed_signers` (relative to the file): when set, seals and approvals
    /// count only when signed by a key it lists (K-1).
    pub allowed_signers: Option<PathBuf>,
    /// `[audit] witnesses`: the witnesses' verifier keys whose cosignatures `audit verify
    /// --checkpoint` requires, as written: checked, and held to the seal, by
    /// [`crate::tlog::WitnessPolicy`] (A-41).
    pub audit_witnesses: Vec<String>,
    /// `[audit] quorum`: how many of them must have cosigned (`None`: all).
    pub audit_quorum: Option<usize>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            root: PathBuf::from("."),
            source: None,
            source_digest: None,
            harnesses: BTreeMap::new(),
            subagents: SubagentConfig::default(),
            lineage: LineageConfig::default(),
            guardrails: GuardrailsConfig::default(),
            confine: ConfineConfig::default(),
            store: None,
            fan_out: None,
            server: None,
            server_uid: None,
            server_log_key: None,
            server_witnesses: Vec::new(),
            allowed_signers: None,
            audit_witnesses: Vec::new(),
            audit_quorum: None,
        }
    }
}

/// A configuration file that cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("{path}{}: {message}", line.map(|l| format!(":{l}")).unwrap_or_default())]
pub struct ConfigError {
    /// The file.
    pub path: String,
    /// The line, when known.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

/// The file's sections other than the harnesses' (U-17): any other top-level key is a harness's
/// section, read by [`harness_sections`].
#[derive(Deserialize)]
struct File {
    subagents: Option<SubagentsSection>,
    lineage: Option<LineageSection>,
    guardrails: Option<GuardrailsSection>,
    confine: Option<ConfineSection>,
    fan_out: Option<toml::Value>,
    store: Option<StoreSection>,
    server: Option<ServerSection>,
    approvals: Option<ApprovalsSection>,
    audit: Option<AuditSection>,
}

/// The keys of [`File`]'s sections: every other top-level key is a harness's section.
const SECTIONS: [&str; 9] =
    ["subagents", "lineage", "guardrails", "confine", "fan_out", "store", "server", "approvals", "audit"];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AuditSection {
    #[serde(default)]
    witnesses: Vec<String>,
    quorum: Option<usize>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ServerSection {
    socket: PathBuf,
    uid: Option<u32>,
    log_key: Option<PathBuf>,
    #[serde(default)]
    witnesses: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ApprovalsSection {
    allowed_signers: PathBuf,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StoreSection {
    url: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HarnessSection {
    main_persona: Option<String>,
    builtin_agents: Option<Vec<String>>,
    agent_tools: Option<Vec<String>>,
    tools: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfineSection {
    mode: Option<agentwarden_domain::confine::ConfineMode>,
    main_session: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GuardrailsSection {
    protected: Option<Vec<String>>,
    actor: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LineageSection {
    manifests: Option<PathBuf>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SubagentsSection {
    enable_env: Option<String>,
    personas_dir: Option<PathBuf>,
    agents_dir: Option<PathBuf>,
    persona_file_pattern: Option<String>,
    agent_file_pattern: Option<String>,
    require_recorded_approval: Option<bool>,
}

impl Config {
    /// Parses `text`, the contents of the file at `path`.
    pub fn parse(path: &Path, text: &str) -> Result<Config, ConfigError> {
        let error = |line: Option<usize>, message: String| ConfigError {
            path: path.display().to_string(),
            line,
            message,
        };
        let file: File = toml::from_str(text).map_err(|e| {
            let line = e.span().map(|span| text.get(..span.start).unwrap_or("").matches('\n').count() + 1);
            error(line, e.message().to_owned())
        })?;
        let base = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let mut subagents = SubagentConfig::relative_to(base);
        if let Some(section) = file.subagents {
            if let Some(var) = section.enable_env {
                let valid = !var.is_empty() && var.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
                if !valid {
                    return Err(error(None, format!("subagents.enable_env `{var}` is not a variable name")));
                }
                subagents.enable_env = var;
            }
            if let Some(dir) = section.personas_dir {
                subagents.personas_dir = base.join(dir);
            }
            if let Some(dir) = section.agents_dir {
                subagents.agents_dir = base.join(dir);
            }
            if let Some(p) = section.persona_file_pattern {
                subagents.persona_file_pattern =
                    FilePattern::new(&p).map_err(|m| error(None, m.to_string()))?;
            }
            if let Some(p) = section.agent_file_pattern {
                subagents.agent_file_pattern =
                    FilePattern::new(&p).map_err(|m| error(None, m.to_string()))?;
            }
            if let Some(require) = section.require_recorded_approval {
                subagents.require_recorded_approval = require;
            }
        }
        let lineage = LineageConfig {
            manifests: base
                .join(file.lineage.and_then(|l| l.manifests).unwrap_or_else(|| PathBuf::from("manifests"))),
        };
        let mut guardrails = GuardrailsConfig::default();
        if let Some(section) = file.guardrails {
            if let Some(protected) = section.protected {
                guardrails.protected = protected;
            }
            if let Some(actor) = section.actor {
                guardrails.actor = actor;
            }
        }
        let confine = ConfineConfig {
            mode: file.confine.as_ref().and_then(|c| c.mode).unwrap_or_default(),
            main_session: file.confine.as_ref().and_then(|c| c.main_session).unwrap_or(false),
        };
        let fan_out = match file.fan_out {
            Some(table) => {
                Some(serde_json::to_value(table).map_err(|e| error(None, format!("fan_out: {e}")))?)
            }
            None => None,
        };
        let harnesses = harness_sections(text).map_err(|m| error(None, m))?;
        let store = match file.store.map(|s| s.url) {
            Some(url) if agentwarden_adapters::is_postgres_url(&url) => {
                crate::StoreLocation::parse(&url).map_err(|e| error(None, format!("store.url: {e}")))?;
                Some(url)
            }
            Some(dir) if dir.trim().is_empty() => return Err(error(None, "store.url is empty".into())),
            Some(dir) => Some(base.join(dir).display().to_string()),
            None => None,
        };
        let server_uid = file.server.as_ref().and_then(|s| s.uid);
        let server_witnesses = file
            .server
            .as_ref()
            .map_or(&[][..], |s| s.witnesses.as_slice())
            .iter()
            .map(|w| match w.split_once(' ') {
                Some((url, key)) if url.starts_with("http://") && !key.trim().is_empty() => {
                    Ok((url.trim_end_matches('/').to_owned(), key.trim().to_owned()))
                }
                _ => Err(error(None, format!("server.witnesses: `{w}` is not `http://HOST:PORT VKEY`"))),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let server_log_key = match file.server.as_ref().and_then(|s| s.log_key.as_ref()) {
            Some(key) if key.as_os_str().is_empty() => {
                return Err(error(None, "server.log_key is empty".into()));
            }
            Some(key) => Some(base.join(key)),
            None => None,
        };
        let server = match file.server.map(|s| s.socket) {
            Some(socket) if socket.as_os_str().is_empty() => {
                return Err(error(None, "server.socket is empty".into()));
            }
            Some(socket) => Some(base.join(socket)),
            None => None,
        };
        Ok(Config {
            root: base.to_path_buf(),
            store,
            source: Some(path.to_path_buf()),
            source_digest: None,
            harnesses,
            subagents,
            lineage,
            guardrails,
            confine,
            fan_out,
            server,
            server_uid,
            server_log_key,
            server_witnesses,
            allowed_signers: file.approvals.map(|a| base.join(a.allowed_signers)),
            audit_witnesses: file.audit.as_ref().map(|a| a.witnesses.clone()).unwrap_or_default(),
            audit_quorum: file.audit.and_then(|a| a.quorum),
        })
    }

    /// Loads `path` if given (it must exist), else the project's configuration: the nearest
    /// `agentwarden.toml` from the working directory upward ([`discover`], N-1), else the
    /// defaults (the working directory is then the root).
    pub fn load(path: Option<&Path>) -> Result<Config, ConfigError> {
        Config::load_with(path, None)
    }

    /// [`Config::load`], the parse taken from `cache` when the file holds the bytes it was
    /// last parsed from (V-36).
    pub fn load_with(path: Option<&Path>, cache: Option<&ConfigCache>) -> Result<Config, ConfigError> {
        let discovered;
        let path = match path {
            Some(path) => path,
            None => match discover()? {
                Some(found) => {
                    discovered = found;
                    &discovered
                }
                None => return Ok(Config::default()),
            },
        };
        // Read like every other file an agent can touch (a link refused). A file that was
        // found and cannot be read is an error, never the defaults (N-1, U-1).
        let unreadable = |message| ConfigError { path: path.display().to_string(), line: None, message };
        let (bytes, mode) =
            agentwarden_adapters::untrusted::read_bytes_mode(None, path, crate::MAX_INPUT_BYTES)
                .map_err(|e| unreadable(e.reason()))?;
        let text = String::from_utf8(bytes).map_err(|_| unreadable("is not valid UTF-8".to_owned()))?;
        let digest = crate::files::text_digest(&text, Some(mode));
        if let Some(config) = cache.and_then(|cache| cache.get(path, &digest)) {
            return Ok(config);
        }
        let mut config = Config::parse(path, &text)?;
        config.source_digest = Some(digest);
        if let Some(cache) = cache {
            cache.put(path, &config);
        }
        Ok(config)
    }
}

/// The harnesses' sections of `text` (a file [`File`] has parsed): every top-level key that is
/// not one of [`SECTIONS`], each a table of a harness section's keys with valid values (U-17).
/// Which names its lists may hold is the harness's to say ([`Config::harness`]).
fn harness_sections(text: &str) -> Result<BTreeMap<String, HarnessConfig>, String> {
    let table: toml::Table = toml::from_str(text).map_err(|e| e.message().to_owned())?;
    let mut harnesses = BTreeMap::new();
    for (key, value) in table {
        if SECTIONS.contains(&key.as_str()) {
            continue;
        }
        let shown = key.escape_debug();
        let not_a_section = || {
            format!(
                "`{shown}` is not a section Warden reads ({}) nor a harness's section (a table of \
                 main_persona, builtin_agents, agent_tools, tools)",
                SECTIONS.join(", ")
            )
        };
        if !key.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
            || !value.is_table()
        {
            return Err(not_a_section());
        }
        let section: HarnessSection =
            value.try_into().map_err(|e: toml::de::Error| format!("{}: {}", not_a_section(), e.message()))?;
        let mut config = HarnessConfig::default();
        if let Some(persona) = section.main_persona {
            Name::new(&persona).map_err(|e| format!("{shown}.main_persona: {e}"))?;
            config.main_persona = persona;
        }
        if let Some(builtin) = section.builtin_agents {
            config.builtin_agents = builtin;
        }
        if let Some(tools) = section.agent_tools {
            config.agent_tools = tools;
        }
        config.tools = match section.tools.as_deref() {
            None | Some("enforce") => ToolRules::Enforce,
            Some("shadow") => ToolRules::Shadow,
            Some(other) => {
                return Err(format!(
                    "{shown}.tools: `{}` is not `enforce` or `shadow`",
                    other.escape_debug()
                ));
            }
        };
        harnesses.insert(key, config);
    }
    Ok(harnesses)
}

impl Config {
    /// The settings of the harness `profile` describes, as a decision of its events reads them:
    /// its own section (`[KEY]`, the key its integration names), else the defaults. Each harness
    /// reads its own section and no other (U-17), and its section's lists may hold only the
    /// harness's own names: another harness's built-in agent there is an error that says where
    /// it goes. A file that has the section this harness's settings were read from before each
    /// harness had its own (one harness's section read for every harness, once) and not this
    /// harness's own section was written for the old reading, and is refused with the key to
    /// add, never read silently with other settings (U-18).
    pub fn harness(&self, profile: &HarnessProfile) -> Result<HarnessSettings, ConfigError> {
        let terms = profile.terms;
        let key = terms.section;
        let error = |message: String| ConfigError {
            path: self.source.as_deref().map_or_else(|| CONFIG_FILE.to_owned(), |p| p.display().to_string()),
            line: None,
            message,
        };
        let Some(section) = self.harnesses.get(key) else {
            if let Some(former) = profile.formerly.filter(|former| self.harnesses.contains_key(*former)) {
                return Err(error(format!(
                    "`[{former}]` no longer governs {harness}: each harness reads its own section, and \
                     {harness} reads `[{key}]`, which this file does not have; add a `[{key}]` section \
                     (empty for the defaults) with what of `[{former}]` was meant for {harness} (U-18)",
                    harness = terms.harness,
                )));
            }
            return Ok(HarnessSettings { config: HarnessConfig::default(), terms });
        };
        let lists = [
            ("builtin_agents", &section.builtin_agents, profile.builtin_agents, "built-in agent type"),
            ("agent_tools", &section.agent_tools, profile.agent_tools, "tool that starts agents"),
        ];
        for (field, listed, known, what) in lists {
            if let Some(unknown) = listed.iter().find(|name| !known.contains(&name.as_str())) {
                let own = if known.is_empty() { "it has none".to_owned() } else { known.join(", ") };
                return Err(error(format!(
                    "`[{key}] {field}`: `{}` is not a {what} of {harness} ({own}); each harness's names go \
                     in its own section, the section of the harness they belong to (U-17)",
                    unknown.escape_debug(),
                    harness = terms.harness,
                )));
            }
        }
        Ok(HarnessSettings { config: section.clone(), terms })
    }

    /// The sections of this file no harness of `known` reads (a misspelt key, a harness not
    /// installed): the command line, which knows every harness, refuses them (U-19).
    pub fn sections_no_harness_reads(&self, known: &[HarnessProfile]) -> Vec<&str> {
        self.harnesses
            .keys()
            .map(String::as_str)
            .filter(|key| !known.iter().any(|profile| profile.terms.section == *key))
            .collect()
    }
}

/// The configuration last parsed, keyed by its file and the seal digest of the bytes it
/// was parsed from (their BLAKE3 and permission bits, U-15). The resident service reads its
/// configuration file for every request, by descriptor, as before, and parses it only when
/// those bytes differ from the last ones parsed: the configuration it decides with, and the
/// digest it compares with the seal (U-16), are always of the bytes just read (V-36).
#[derive(Debug, Default)]
pub struct ConfigCache {
    last: std::sync::Mutex<Option<(PathBuf, Config)>>,
}

impl ConfigCache {
    /// The configuration parsed from `path` when its bytes had `digest`, if it is the last one.
    fn get(&self, path: &Path, digest: &str) -> Option<Config> {
        let guard = self.last.lock().ok()?;
        let (last, config) = guard.as_ref()?;
        (last == path && config.source_digest.as_deref() == Some(digest)).then(|| config.clone())
    }

    fn put(&self, path: &Path, config: &Config) {
        if let Ok(mut guard) = self.last.lock() {
            *guard = Some((path.to_path_buf(), config.clone()));
        }
    }
}

/// The project's configuration file (N-1): `agentwarden.toml` in the working directory (as that
/// relative name), else in the nearest parent that has one (as an absolute path). The search
/// stops after the first directory that holds `.git` (a project does not reach past its
/// repository) and at the filesystem root; `None` when there is none. Anything by that name,
/// even a directory or a link, is the configuration (reading it then fails: never skipped for
/// one further up), and a directory that cannot be looked into is an error, not "none".
pub fn discover() -> Result<Option<PathBuf>, ConfigError> {
    let here = std::env::current_dir().map_err(|e| ConfigError {
        path: CONFIG_FILE.to_owned(),
        line: None,
        message: format!("cannot read the working directory to look for it: {e}"),
    })?;
    discover_from(&here)
}

/// The project's root (N-1): the directory of the configuration [`discover`] finds, else the
/// working directory (`.`).
pub fn project_root() -> Result<PathBuf, ConfigError> {
    Ok(match discover()? {
        Some(file) => file
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf),
        None => PathBuf::from("."),
    })
}

/// [`discover`] from `start`, an absolute directory.
pub fn discover_from(start: &Path) -> Result<Option<PathBuf>, ConfigError> {
    let exists = |path: &Path| {
        agentwarden_adapters::paths::entry_exists(path).map_err(|e| ConfigError {
            path: path.display().to_string(),
            line: None,
            message: format!("cannot look for the project's configuration here: {e}"),
        })
    };
    for (depth, dir) in start.ancestors().enumerate() {
        let candidate = dir.join(CONFIG_FILE);
        if exists(&candidate)? {
            return Ok(Some(if depth == 0 { PathBuf::from(CONFIG_FILE) } else { candidate }));
        }
        if exists(&dir.join(".git"))? {
            return Ok(None);
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A harness with built-in agents and a tool that starts agents, for the sections' tests.
    const SOME: HarnessProfile = HarnessProfile {
        terms: HarnessTerms { harness: "Some Harness", section: "some_harness" },
        builtin_agents: &["Explore", "Plan"],
        agent_tools: &["Workflow"],
        formerly: None,
    };

    /// Another, whose settings were once read from `[some_harness]`.
    const OTHER: HarnessProfile = HarnessProfile {
        terms: HarnessTerms { harness: "Other Harness", section: "other" },
        builtin_agents: &["helper"],
        agent_tools: &[],
        formerly: Some("some_harness"),
    };

    /// Each harness reads its own section, whose lists hold only its own names; another
    /// harness's name there says where it goes, and a section only another harness reads is
    /// left to it (U-17).
    #[test]
    fn each_harness_reads_its_own_section_checked_against_its_own_names() {
        let parse = |text: &str| Config::parse(Path::new("w.toml"), text).unwrap();
        let both = parse(
            "[some_harness]\nbuiltin_agents = [\"Plan\"]\nmain_persona = \"lead\"\n\n\
             [other]\nbuiltin_agents = [\"helper\"]\ntools = \"shadow\"\n",
        );
        let some = both.harness(&SOME).unwrap().config;
        assert_eq!(
            (some.builtin_agents.as_slice(), some.main_persona.as_str()),
            (&["Plan".to_owned()][..], "lead")
        );
        assert_eq!(some.tools, ToolRules::Enforce, "the other section's `tools` is not this one's");
        let other = both.harness(&OTHER).unwrap().config;
        assert_eq!(
            (other.builtin_agents.as_slice(), other.tools),
            (&["helper".to_owned()][..], ToolRules::Shadow)
        );
        assert_eq!(other.main_persona, "main", "the other section's persona is not this one's");
        // (section text, harness asked, what the error names, why)
        let rows: [(&str, HarnessProfile, &[&str], &str); 4] = [
            (
                "[some_harness]\nbuiltin_agents = [\"helper\"]\n",
                SOME,
                &[
                    "`[some_harness] builtin_agents`",
                    "`helper` is not a built-in agent type of Some Harness (Explore, Plan)",
                    "its own section",
                ],
                "another harness's built-in agent in this one's section",
            ),
            (
                "[other]\nbuiltin_agents = [\"Explore\"]\n[some_harness]\n",
                OTHER,
                &[
                    "`[other] builtin_agents`",
                    "`Explore` is not a built-in agent type of Other Harness (helper)",
                ],
                "this harness's section lists another's",
            ),
            (
                "[other]\nagent_tools = [\"Workflow\"]\n[some_harness]\n",
                OTHER,
                &[
                    "`[other] agent_tools`",
                    "`Workflow` is not a tool that starts agents of Other Harness (it has none)",
                ],
                "a harness with no such tools lists one",
            ),
            (
                "[some_harness]\nagent_tools = [\"workflow\"]\n",
                SOME,
                &["`workflow` is not a tool that starts agents of Some Harness (Workflow)"],
                "names are exact: no case folding",
            ),
        ];
        for (text, profile, named, why) in rows {
            let refused = parse(text).harness(&profile).unwrap_err().to_string();
            for part in named {
                assert!(refused.contains(part), "{why}: {refused}");
            }
            assert!(refused.contains("U-17"), "{why}: {refused}");
        }
    }

    /// A file with the section a harness's settings were read from before each had its own,
    /// and not the harness's own, was written for the old reading: refused, naming the key to
    /// add, for every event of that harness; with its own section (even empty), read (U-18).
    #[test]
    fn a_former_shared_section_without_the_harness_own_is_refused_naming_the_new_key() {
        let parse = |text: &str| Config::parse(Path::new("w.toml"), text).unwrap();
        let old = parse("[some_harness]\nbuiltin_agents = [\"helper\"]\nmain_persona = \"main\"\n");
        let refused = old.harness(&OTHER).unwrap_err().to_string();
        for part in ["`[some_harness]` no longer governs Other Harness", "add a `[other]` section", "U-18"] {
            assert!(refused.contains(part), "{refused}");
        }
        // The same file read for the harness it now belongs to: its names are not that harness's.
        assert!(
            old.harness(&SOME)
                .unwrap_err()
                .message
                .contains("`helper` is not a built-in agent type of Some Harness")
        );
        let only_persona = parse("[some_harness]\nmain_persona = \"main\"\n");
        assert!(
            only_persona.harness(&OTHER).unwrap_err().message.contains("add a `[other]` section"),
            "even a harmless one"
        );
        assert_eq!(only_persona.harness(&SOME).unwrap().config, HarnessConfig::default());
        let moved = parse("[some_harness]\nmain_persona = \"main\"\n[other]\n");
        assert_eq!(
            moved.harness(&OTHER).unwrap().config,
            HarnessConfig::default(),
            "its own, empty: the defaults"
        );
        assert_eq!(parse("").harness(&OTHER).unwrap().config, HarnessConfig::default(), "no file's sections");
    }

    /// `SECTIONS` names exactly `File`'s sections: a section added to `File` and not to
    /// `SECTIONS` would be read as a harness's section too (U-19). The destructuring below
    /// names every field, so a new one fails to compile here until it is added to both.
    #[test]
    fn the_known_sections_are_the_files_fields() {
        let text = SECTIONS.iter().map(|s| format!("[{s}]\n")).collect::<String>();
        // Each known section, empty, parses as Warden's own where it may be empty.
        let file: File = toml::from_str(
            &text.replace("[store]\n", "").replace("[server]\n", "").replace("[approvals]\n", ""),
        )
        .unwrap();
        let File { subagents, lineage, guardrails, confine, fan_out, store, server, approvals, audit } = file;
        let fields = [
            ("subagents", subagents.is_some()),
            ("lineage", lineage.is_some()),
            ("guardrails", guardrails.is_some()),
            ("confine", confine.is_some()),
            ("fan_out", fan_out.is_some()),
            ("store", store.is_none()),
            ("server", server.is_none()),
            ("approvals", approvals.is_none()),
            ("audit", audit.is_some()),
        ];
        assert_eq!(fields.map(|(name, _)| name), SECTIONS, "`SECTIONS` and `File` name the same sections");
        assert!(fields.iter().all(|(_, read)| *read), "each was read as Warden's own: {fields:?}");
        assert!(harness_sections(&text).unwrap().is_empty(), "none is a harness's section");
    }

    /// A section no harness of the known ones reads is named, for the command line to refuse
    /// (U-19).
    #[test]
    fn a_section_no_known_harness_reads_is_named() {
        let config =
            Config::parse(Path::new("w.toml"), "[some_harness]\n[othr]\nmain_persona = \"m\"\n").unwrap();
        assert_eq!(config.sections_no_harness_reads(&[SOME, OTHER]), ["othr"]);
        assert_eq!(config.sections_no_harness_reads(&[SOME]), ["othr"]);
        assert_eq!(config.sections_no_harness_reads(&[]), ["othr", "some_harness"]);
        let clean = Config::parse(Path::new("w.toml"), "[other]\n[guardrails]\nprotected = []\n").unwrap();
        assert!(clean.sections_no_harness_reads(&[SOME, OTHER]).is_empty());
    }

    /// The path a pattern builds in a directory is `dir.join(file_name)`, whatever the
    /// directory looks like.
    #[test]
    fn a_pattern_builds_the_path_join_builds() {
        let name = Name::new("REVIEW").unwrap();
        for pattern in ["AGENT_{name}.md", "{name}.md", "agent-{name}", "{name}.persona.md"] {
            let pattern = FilePattern::new(pattern).unwrap();
            for dir in ["", ".", "./agents", "agents/", "/abs/dir", "/", "a//b", ".hidden/agents/"] {
                let dir = Path::new(dir);
                assert_eq!(pattern.path_in(dir, &name), dir.join(pattern.file_name(&name)), "{dir:?}");
            }
            assert!(pattern.matches(&pattern.file_name(&name)));
            assert_eq!(pattern.name_of(&pattern.file_name(&name)), Some("REVIEW"));
        }
        assert_eq!(FilePattern::new("AGENT_{name}.md").unwrap().file_name(&name), "AGENT_REVIEW.md");
    }

    /// The cached parse answers only for the same file holding the same bytes (and mode);
    /// a rewrite or a `chmod` is read and parsed anew, with its own digest (V-36).
    #[test]
    fn the_cached_configuration_follows_the_bytes_read() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("agentwarden.toml");
        std::fs::write(&path, "[some_harness]\nmain_persona = \"main\"\n").unwrap();
        let cache = ConfigCache::default();
        let first = Config::load_with(Some(&path), Some(&cache)).unwrap();
        assert_eq!(Config::load_with(Some(&path), Some(&cache)).unwrap(), first);
        std::fs::write(&path, "[some_harness]\nmain_persona = \"lead\"\n").unwrap();
        let rewritten = Config::load_with(Some(&path), Some(&cache)).unwrap();
        assert_eq!(rewritten.harnesses["some_harness"].main_persona, "lead");
        assert_eq!(rewritten, Config::load(Some(&path)).unwrap(), "as an uncached load reads it");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        let chmodded = Config::load_with(Some(&path), Some(&cache)).unwrap();
        assert_ne!(chmodded.source_digest, rewritten.source_digest, "U-15: the mode is in the digest");
        std::fs::write(&path, "[some_harness\n").unwrap();
        assert!(Config::load_with(Some(&path), Some(&cache)).is_err(), "never the last good parse");
    }

    #[test]
    fn defaults_and_overrides_relative_to_the_file() {
        let config = Config::parse(
            Path::new("proj/agentwarden.toml"),
            "[subagents]\nenable_env = \"CHIRALITY_ENABLE_SUBAGENTS\"\nagents_dir = \"a\"\nagent_file_pattern = \"{name}.md\"\n",
        )
        .unwrap();
        let s = &config.subagents;
        assert_eq!(s.enable_env, "CHIRALITY_ENABLE_SUBAGENTS");
        assert_eq!(s.agents_dir, Path::new("proj/a"));
        assert_eq!(s.personas_dir, Path::new("proj/personas"));
        let name = Name::new("PREP").unwrap();
        assert_eq!(s.agent_path(&name), Path::new("proj/a/PREP.md"));
        assert_eq!(s.persona_path(&name), Path::new("proj/personas/AGENT_PREP.md"));
        let empty = Config::parse(Path::new("agentwarden.toml"), "").unwrap();
        assert_eq!(Config { source: None, ..empty }, Config::default());
        assert_eq!(config.root, Path::new("proj"), "the workspace root is the file's directory");
        let defaults = config.harness(&SOME).unwrap().config;
        assert_eq!(defaults, HarnessConfig::default(), "no section: the defaults");
        assert_eq!(defaults.main_persona, "main");
        assert!(defaults.builtin_agents.is_empty() && defaults.agent_tools.is_empty());
        let listed = Config::parse(
            Path::new("agentwarden.toml"),
            "[some_harness]\nbuiltin_agents = [\"Explore\"]\nagent_tools = [\"Workflow\"]\n",
        )
        .unwrap();
        let listed = listed.harness(&SOME).unwrap();
        assert_eq!(listed.config.builtin_agents, ["Explore"]);
        assert_eq!(listed.config.agent_tools, ["Workflow"]);
        assert_eq!(listed.terms, SOME.terms);
        assert_eq!(defaults.tools, ToolRules::Enforce, "enforced unless the file says shadow");
        let shadow = Config::parse(Path::new("w.toml"), "[some_harness]\ntools = \"shadow\"\n").unwrap();
        assert_eq!(shadow.harness(&SOME).unwrap().config.tools, ToolRules::Shadow);
        for bad in ["\"Shadow\"", "\"off\"", "\"\"", "false"] {
            let text = format!("[some_harness]\ntools = {bad}\n");
            assert!(Config::parse(Path::new("w.toml"), &text).is_err(), "{bad}");
        }
    }

    #[test]
    fn unknown_keys_and_bad_values_are_errors_with_file_and_line() {
        let err =
            Config::parse(Path::new("w.toml"), "[subagents]\nenable_env = \"X\"\nagent_dir = \"typo\"\n")
                .unwrap_err();
        assert_eq!(err.line, Some(3), "{err}");
        assert!(err.to_string().starts_with("w.toml:3: "), "{err}");
        assert!(err.message.contains("agent_dir"), "{err}");
        for bad in [
            "[subagents]\nagent_file_pattern = \"../{name}.md\"\n",
            "[subagents]\nagent_file_pattern = \"{name}\"\n",
            "[subagents]\nagent_file_pattern = \"{name}{name}.md\"\n",
            "[subagents]\nenable_env = \"A B\"\n",
            "[some_harness]\nmain_persona = \"../main\"\n",
            "[some_harness]\nmain_personas = \"main\"\n",
            "[some_harness]\nbuiltin_agents = \"Explore\"\n",
            "[some_harness]\nagent_tools = [7]\n",
            "[guardrail]\nprotected = [\"okrs\"]\n",
            "[Some-Harness]\n",
            "nope = 1\n",
            "[subagents\n",
            "[store]\nurl = \"postgres://u@h/d?bogus=1\"\n",
            "[store]\nurl = \"\"\n",
            "[store]\nuri = \"postgres://u@h/d\"\n",
        ] {
            assert!(Config::parse(Path::new("w.toml"), bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_store_is_a_postgres_url_or_a_directory_relative_to_the_file() {
        let pg = Config::parse(Path::new("p/w.toml"), "[store]\nurl = \"postgres://u@h/d\"\n");
        // A build without PostgreSQL refuses the URL when it loads the file (X-23).
        #[cfg(feature = "postgres")]
        assert_eq!(pg.unwrap().store.as_deref(), Some("postgres://u@h/d"));
        #[cfg(not(feature = "postgres"))]
        assert!(pg.unwrap_err().to_string().contains("no PostgreSQL support"));
        let dir = Config::parse(Path::new("p/w.toml"), "[store]\nurl = \"audit\"\n").unwrap();
        assert_eq!(dir.store.map(PathBuf::from), Some(Path::new("p").join("audit")));
    }

    #[test]
    fn the_server_socket_is_relative_to_the_file_and_never_empty() {
        let config = Config::parse(Path::new("p/w.toml"), "[server]\nsocket = \"run/w.sock\"\n").unwrap();
        assert_eq!(config.server, Some(Path::new("p").join("run/w.sock")));
        assert!(Config::parse(Path::new("w.toml"), "[server]\nsocket = \"\"\n").is_err());
        assert!(Config::parse(Path::new("w.toml"), "[server]\npath = \"s\"\n").is_err());
        assert_eq!(Config::parse(Path::new("w.toml"), "").unwrap().server, None);
        let pinned = Config::parse(Path::new("w.toml"), "[server]\nsocket = \"s\"\nuid = 998\n").unwrap();
        assert_eq!(pinned.server_uid, Some(998));
        assert_eq!(pinned.server_log_key, None);
        let keyed =
            Config::parse(Path::new("p/w.toml"), "[server]\nsocket = \"s\"\nlog_key = \"k/log.key\"\n")
                .unwrap();
        assert_eq!(keyed.server_log_key, Some(PathBuf::from("p/k/log.key")));
        assert!(Config::parse(Path::new("w.toml"), "[server]\nsocket = \"s\"\nlog_key = \"\"\n").is_err());
        let witnessed = Config::parse(
            Path::new("w.toml"),
            "[server]\nsocket = \"s\"\nwitnesses = [\"http://w:1/ k+1+a\"]\n",
        )
        .unwrap();
        assert_eq!(witnessed.server_witnesses, vec![("http://w:1".to_owned(), "k+1+a".to_owned())]);
        for bad in ["https://w k", "http://w", "w k"] {
            let text = format!("[server]\nsocket = \"s\"\nwitnesses = [\"{bad}\"]\n");
            assert!(Config::parse(Path::new("w.toml"), &text).is_err(), "{bad}");
        }
        assert!(Config::parse(Path::new("w.toml"), "[server]\nsocket = \"s\"\nuid = -1\n").is_err());
    }

    #[test]
    fn a_named_config_must_exist_an_implicit_one_may_not() {
        assert!(Config::load(Some(Path::new("/nonexistent/agentwarden.toml"))).is_err());
    }
}
