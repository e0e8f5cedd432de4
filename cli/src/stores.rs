//! Which store a command records into or reads: `--store`, else the project's default embedded
//! store (see [`agentwarden::store`]). A configuration's `[store] url` is followed only by
//! `warden serve` reading a configuration named by `--config`; anywhere else it is refused, never
//! followed (V-67; [`super::trust`] refuses it first, this refuses it again where the store is
//! opened).

use agentwarden::{
    Config, StoreLocation, Warden, WardenBuilder, WardenError,
    store::{Archiving, SledConfig},
};

/// The global store options, resolved per command.
#[derive(Clone, Debug)]
pub(super) struct Stores {
    /// `--store`.
    pub(super) explicit: Option<String>,
    /// Whether a configuration's `[store] url` is followed: only `warden serve`'s configuration
    /// named by `--config` (V-67).
    pub(super) follow_config: bool,
    /// The embedded store's settings (its path is the location's).
    pub(super) sled: SledConfig,
}

impl Stores {
    /// The location: explicit, else `config`'s (or, for a command that reads no configuration,
    /// the project's: [`Config::load`] searches upward), else the project's default store,
    /// `.agentwarden/audit` in the configuration's directory (N-2).
    pub(super) fn location(&self, config: Option<&Config>) -> Result<StoreLocation, WardenError> {
        if let Some(explicit) = &self.explicit {
            return Ok(StoreLocation::parse(explicit)?);
        }
        let loaded;
        let config = match config {
            Some(config) => config,
            None => {
                loaded = Config::load(None)?;
                &loaded
            }
        };
        let location = match &config.store {
            Some(url) if self.follow_config => url.clone(),
            Some(_) => {
                return Err(WardenError::Config(format!(
                    "`[store] url` in `{}` names a store, and the command line names none: give --store DIR|URL \
                     (a configuration never chooses the log, V-67)",
                    config.source.as_deref().unwrap_or(std::path::Path::new("agentwarden.toml")).display()
                )));
            }
            None => default_store(&config.root),
        };
        Ok(StoreLocation::parse(&location)?)
    }

    /// A builder on the store; `create` lets a command that writes create an embedded store.
    pub(super) fn builder(
        &self,
        config: Option<&Config>,
        create: bool,
    ) -> Result<WardenBuilder, WardenError> {
        let location = match self.location(config)? {
            StoreLocation::Postgres(pg) => StoreLocation::Postgres(Box::new(pg.create_if_missing(create))),
            embedded => embedded,
        };
        // A command that may not create the store reads it: it never moves its events (S-13).
        let mut sled = self.sled.clone().create_if_missing(create);
        if !create {
            sled = sled.archiving(Archiving::Off);
        }
        Ok(Warden::builder().location(&location, sled))
    }

    /// Opens a Warden with `config`.
    pub(super) fn open(&self, config: Config, create: bool) -> Result<Warden, WardenError> {
        self.builder(Some(&config), create)?.config(config).build()
    }

    /// Opens a Warden for a command that reads no configuration.
    pub(super) fn open_plain(&self, create: bool) -> Result<Warden, WardenError> {
        self.builder(None, create)?.build()
    }
}

/// The project's default store (N-2): `.agentwarden/audit` in the project's root, the
/// configuration's directory (the working directory when there is none).
pub(super) fn default_store(root: &std::path::Path) -> String {
    if root.as_os_str().is_empty() || root == std::path::Path::new(".") {
        agentwarden::DEFAULT_STORE.to_owned()
    } else {
        root.join(agentwarden::DEFAULT_STORE).to_string_lossy().into_owned()
    }
}
