//! Which store a command records into or reads: `--store` (or `AGENTWARDEN_STORE`), else the
//! configuration's `[store] url`, else the default embedded store (see [`agentwarden::store`]).

use agentwarden::{Archiving, Config, SledConfig, StoreLocation, Warden, WardenBuilder, WardenError};

/// The global store options, resolved per command.
#[derive(Clone, Debug)]
pub(super) struct Stores {
    /// `--store` or `AGENTWARDEN_STORE`.
    pub(super) explicit: Option<String>,
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
        let location = config.store.clone().unwrap_or_else(|| default_store(&config.root));
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
