//! Who decides, which log, which key: the one resolution of a command's trust root (V-67).
//!
//! The agent under guard has the user's shell: it can write the project's `agentwarden.toml`,
//! every file in the working directory and in the user's home, and the variables of the
//! processes it starts. So what a command asks (the server that decides), what it opens (the
//! store that records) and what it signs with come from its command line only: `--server`,
//! `--server-uid`, `--store`, `--key`, `--config`. Nothing else chooses them (V-67):
//!
//! - `AGENTWARDEN_SERVER` and `AGENTWARDEN_STORE` choose nothing. Set, they refuse the command
//!   (exit 2, `trust_root_refused`) with one line saying what to give instead, so a user who
//!   relied on them learns it at once. The hook keeps V-49: its installed line names all it
//!   trusts, and a variable in its environment (which settings the agent can write may set) is
//!   ignored there, not refused.
//! - `[server] socket`, `[server] uid` and `[store] url` in a configuration are followed by no
//!   client command. A configuration that names one while the command line names none refuses
//!   the command (exit 2, `trust_root_refused`), naming the option to give: it is never
//!   followed and never silently ignored. This is stricter than "the sealed configuration":
//!   the seal itself is read from a store the configuration would choose, so a configuration
//!   cannot vouch for its own decider.
//! - A `--server-uid` and a `[server] uid` that disagree refuse (V-12).
//!
//! `warden serve` is the human starting the server: it reads where it listens, its key and its
//! store from its own configuration, but only from a configuration named by `--config`; an
//! implicit one (found from the working directory upward) that names any of them refuses
//! ([`refuse_implicit_server_config`]). `warden init` writes the lines the hook runs with: a
//! direct line records into the project's own store, so `init` refuses a store named elsewhere
//! (a configuration's `[store] url`, or `--store`) and says to install the client form.

use std::ffi::OsString;
use std::path::PathBuf;

use crate::{Code, Config};

/// The variable that once named the server's socket (V-5); now refused (V-67).
pub const SERVER_ENV: &str = "AGENTWARDEN_SERVER";
/// The variable that once named the store; now refused (V-67).
pub const STORE_ENV: &str = "AGENTWARDEN_STORE";

/// What the command line names: the only inputs of the resolution (V-67).
#[derive(Clone, Debug, Default)]
pub struct Given {
    /// `--server PATH`.
    pub server: Option<PathBuf>,
    /// `--server-uid UID`.
    pub server_uid: Option<u32>,
    /// `--store DIR|URL`.
    pub store: Option<String>,
}

/// The server a command asks: its socket, and the user it must run as (V-12).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Server {
    /// `--server PATH`.
    pub socket: PathBuf,
    /// `--server-uid UID`.
    pub uid: Option<u32>,
}

/// A command's trust root: the server it asks and the store it names, both from its command
/// line, once the configuration it reads was held to them (V-67).
#[derive(Clone, Debug, Default)]
pub struct Trusted {
    /// `--server` (and `--server-uid`): the only server a command asks.
    pub server: Option<Server>,
    /// `--store`: the store named; `None`, the project's default store.
    pub store: Option<String>,
}

/// Why an input the agent can write was refused (`trust_root_refused`, the command line's exit
/// 2), by cause; each says what to give instead.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TrustRootRefused {
    /// A variable that once chose the server or the store is set.
    #[error(
        "`{name}` is set, and no variable chooses the server or the store any more: unset it and give \
         {option} on the command line (V-67)"
    )]
    Variable {
        /// The variable.
        name: &'static str,
        /// The option to give instead.
        option: &'static str,
    },
    /// A configuration names a server, its user or a store that the command line does not.
    #[error(
        "`{key}` in {file} names {what}, and the command line names none: give {option} on the command line \
         (a configuration never chooses whom a command asks or what it opens, V-67)"
    )]
    Unnamed {
        /// The configuration's key.
        key: &'static str,
        /// The configuration's file, shown.
        file: String,
        /// What the key names.
        what: &'static str,
        /// The option to give.
        option: &'static str,
    },
    /// `--server-uid` and the configuration's `[server] uid` disagree (V-12).
    #[error(
        "--server-uid {line} and `[server] uid = {configured}` in {file} disagree: make them the same (V-12)"
    )]
    UidsDisagree {
        /// `--server-uid`.
        line: u32,
        /// `[server] uid`.
        configured: u32,
        /// The configuration's file, shown.
        file: String,
    },
    /// `warden serve` found a configuration naming its socket, key, witnesses or store without
    /// `--config`.
    #[error(
        "`{key}` in {file}, a configuration found from the working directory, is read by `warden serve` only \
         from a file named on its command line: give --config FILE (V-67)"
    )]
    ImplicitServerConfig {
        /// The configuration's key.
        key: &'static str,
        /// The configuration's file, shown.
        file: String,
    },
}

impl TrustRootRefused {
    /// The stable code: always `trust_root_refused`.
    pub fn code(&self) -> Code {
        Code::TrustRootRefused
    }
}

/// `AGENTWARDEN_SERVER` or `AGENTWARDEN_STORE` set (to anything, empty included) refuses the
/// command: they choose nothing (V-67). `var` reads the environment.
pub fn refuse_variables(var: impl Fn(&str) -> Option<OsString>) -> Result<(), TrustRootRefused> {
    for (name, option) in [(SERVER_ENV, "--server PATH"), (STORE_ENV, "--store DIR|URL")] {
        if var(name).is_some() {
            return Err(TrustRootRefused::Variable { name, option });
        }
    }
    Ok(())
}

/// The trust root of a command that reads `config` (when it reads one): the command line's
/// server and store, once `config` names none the command line does not (V-67). `served`: the
/// command asks the server `--server` names instead of opening a store (a decision command,
/// `status`, a checkpoint or proof), so a configured store is the server's to hold, not one
/// the command line must name (it opens none, and `--store` beside a server is refused).
pub fn resolve(given: &Given, config: Option<&Config>, served: bool) -> Result<Trusted, TrustRootRefused> {
    if let Some(config) = config {
        refuse_configured(given, config, !(served && given.server.is_some()))?;
    }
    Ok(trusted(given))
}

/// The command line's server and store, unchecked: for the commands that read no
/// configuration.
pub fn trusted(given: &Given) -> Trusted {
    Trusted {
        server: given.server.clone().map(|socket| Server { socket, uid: given.server_uid }),
        store: given.store.clone(),
    }
}

/// The configuration's file, for messages.
fn shown(config: &Config) -> String {
    config.source.as_deref().map_or_else(|| "the configuration".to_owned(), |p| format!("`{}`", p.display()))
}

/// Refuses `config` when it names a server, its user or (with `store`) a store that the
/// command line does not, or a server user the command line contradicts (V-67, V-12).
pub fn refuse_configured(given: &Given, config: &Config, store: bool) -> Result<(), TrustRootRefused> {
    let unnamed: [(bool, &'static str, &'static str, &'static str); 3] = [
        (config.server.is_some() && given.server.is_none(), "[server] socket", "a server", "--server PATH"),
        (
            config.server_uid.is_some() && given.server_uid.is_none(),
            "[server] uid",
            "a server's user",
            "--server-uid UID",
        ),
        (
            store && config.store.is_some() && given.store.is_none(),
            "[store] url",
            "a store",
            "--store DIR|URL",
        ),
    ];
    if let Some((_, key, what, option)) = unnamed.into_iter().find(|(named, ..)| *named) {
        return Err(TrustRootRefused::Unnamed { key, file: shown(config), what, option });
    }
    if let (Some(line), Some(configured)) = (given.server_uid, config.server_uid)
        && line != configured
    {
        return Err(TrustRootRefused::UidsDisagree { line, configured, file: shown(config) });
    }
    Ok(())
}

/// `warden serve` reads where it listens, its key, its witnesses and its store from a
/// configuration named by `--config` only: an implicit one that names any of them refuses
/// (V-67).
pub fn refuse_implicit_server_config(config: &Config, explicit: bool) -> Result<(), TrustRootRefused> {
    if explicit {
        return Ok(());
    }
    let named = [
        (config.server.is_some(), "[server] socket"),
        (config.server_uid.is_some(), "[server] uid"),
        (config.server_log_key.is_some(), "[server] log_key"),
        (!config.server_witnesses.is_empty(), "[server] witnesses"),
        (config.store.is_some(), "[store] url"),
    ];
    match named.into_iter().find(|(named, _)| *named) {
        Some((_, key)) => Err(TrustRootRefused::ImplicitServerConfig { key, file: shown(config) }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn config(text: &str) -> Config {
        Config::parse(Path::new("/p/agentwarden.toml"), text).unwrap()
    }

    fn given(server: bool, uid: Option<u32>, store: bool) -> Given {
        Given {
            server: server.then(|| PathBuf::from("/run/w.sock")),
            server_uid: uid,
            store: store.then(|| "/var/lib/w".to_owned()),
        }
    }

    /// (configuration, command line, refused, why)
    #[test]
    fn a_configuration_names_nothing_the_command_line_does_not() {
        let cases: &[(&str, Given, Option<&str>, &str)] = &[
            ("", given(false, None, false), None, "nothing named anywhere: the default store, no server"),
            ("", given(true, Some(7), true), None, "the command line alone names them"),
            (
                "[server]\nsocket = \"s\"\n",
                given(false, None, false),
                Some("--server PATH"),
                "a configured socket",
            ),
            ("[server]\nsocket = \"s\"\n", given(true, None, false), None, "named on the line too"),
            ("[server]\nsocket = \"s\"\nuid = 7\n", given(true, None, false), Some("--server-uid"), "a uid"),
            ("[server]\nsocket = \"s\"\nuid = 7\n", given(true, Some(7), false), None, "the same uid"),
            (
                "[server]\nsocket = \"s\"\nuid = 7\n",
                given(true, Some(8), false),
                Some("disagree"),
                "another uid",
            ),
            (
                "[store]\nurl = \"elsewhere\"\n",
                given(false, None, false),
                Some("--store"),
                "a configured store",
            ),
            ("[store]\nurl = \"elsewhere\"\n", given(false, None, true), None, "the line names the store"),
        ];
        for (text, given, refusal, why) in cases {
            let resolved = resolve(given, Some(&config(text)), false);
            match (refusal, resolved) {
                (None, Ok(trusted)) => {
                    assert_eq!(trusted.store, given.store, "{why}");
                    assert_eq!(trusted.server.map(|s| s.socket), given.server, "{why}");
                }
                (Some(words), Err(refused)) => {
                    assert_eq!(refused.code(), Code::TrustRootRefused, "{why}");
                    assert!(refused.to_string().contains(words), "{why}: {refused}");
                }
                (expected, got) => panic!("{why}: expected {expected:?}, got {got:?}"),
            }
        }
    }

    #[test]
    fn the_variables_refuse_set_even_empty() {
        for (name, value) in [(SERVER_ENV, "/tmp/a.sock"), (STORE_ENV, "/tmp/s"), (SERVER_ENV, "")] {
            let refusal = refuse_variables(|v| (v == name).then(|| OsString::from(value))).unwrap_err();
            assert_eq!(refusal.code(), Code::TrustRootRefused, "{name}");
            assert!(refusal.to_string().contains(name), "{refusal}");
        }
        assert!(refuse_variables(|_| None).is_ok());
    }

    /// A command the server answers opens no store: with `--server`, a configured store is the
    /// server's; without it, or for a command that opens the store, the line must name it.
    #[test]
    fn a_served_command_needs_no_store_on_its_line_when_it_names_the_server() {
        let fleet = config("[store]\nurl = \"elsewhere\"\n");
        assert!(resolve(&given(true, None, false), Some(&fleet), true).is_ok(), "served");
        assert!(resolve(&given(false, None, false), Some(&fleet), true).is_err(), "no server named");
        assert!(resolve(&given(true, None, false), Some(&fleet), false).is_err(), "opens the store");
    }

    #[test]
    fn serve_reads_its_own_keys_only_from_a_named_configuration() {
        for text in [
            "[server]\nsocket = \"s\"\n",
            "[server]\nsocket = \"s\"\nlog_key = \"k\"\n",
            "[store]\nurl = \"elsewhere\"\n",
        ] {
            assert!(refuse_implicit_server_config(&config(text), false).is_err(), "{text}");
            assert!(refuse_implicit_server_config(&config(text), true).is_ok(), "{text}");
        }
        assert!(refuse_implicit_server_config(&config(""), false).is_ok());
    }
}
