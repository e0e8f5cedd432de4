//! Which store a command records into or reads: `--store`, else the project's default embedded
//! store (see [`crate::store`]). A configuration's `[store] url` is followed only by `warden
//! serve` reading a configuration named by `--config`; anywhere else it is refused, never
//! followed (V-67; [`crate::trust`] refuses it first, this refuses it again where the store is
//! opened).

use crate::store::{Archiving, SledConfig, StoreLocation};

/// The global store options, resolved per command.
#[derive(Clone, Debug)]
pub struct Stores {
    /// `--store`.
    pub explicit: Option<String>,
    /// Whether a configuration's `[store] url` is followed: only `warden serve`'s configuration
    /// named by `--config` (V-67).
    pub follow_config: bool,
    /// The embedded store's settings (its path is the location's).
    pub sled: SledConfig,
}

impl Stores {
    /// The location: explicit, else `config`'s (or, for a command that reads no configuration,
    /// the project's: [`crate::Config::load`] searches upward), else the project's default store,
    /// `.agentwarden/audit` in the configuration's directory (N-2).
    pub fn location(&self, config: Option<&crate::Config>) -> Result<StoreLocation, crate::WardenError> {
        if let Some(explicit) = &self.explicit {
            return Ok(StoreLocation::parse(explicit)?);
        }
        let loaded;
        let config = match config {
            Some(config) => config,
            None => {
                loaded = crate::Config::load(None)?;
                &loaded
            }
        };
        let location = match &config.store {
            Some(url) if self.follow_config => url.clone(),
            Some(_) => {
                return Err(crate::WardenError::Config(format!(
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
    pub fn builder(
        &self,
        config: Option<&crate::Config>,
        create: bool,
    ) -> Result<crate::WardenBuilder, crate::WardenError> {
        let location = match self.location(config)? {
            #[cfg(feature = "postgres")]
            StoreLocation::Postgres(pg) => StoreLocation::Postgres(Box::new(pg.create_if_missing(create))),
            embedded => embedded,
        };
        // A command that may not create the store reads it: it never moves its events (S-13).
        let mut sled = self.sled.clone().create_if_missing(create);
        if !create {
            sled = sled.archiving(Archiving::Off);
        }
        Ok(crate::Warden::builder().location(&location, sled))
    }

    /// Opens a Warden with `config`.
    pub fn open(&self, config: crate::Config, create: bool) -> Result<crate::Warden, crate::WardenError> {
        self.builder(Some(&config), create)?.config(config).build()
    }

    /// Opens a Warden for a command that reads no configuration.
    pub fn open_plain(&self, create: bool) -> Result<crate::Warden, crate::WardenError> {
        self.builder(None, create)?.build()
    }
}

/// The project's default store (N-2): `.agentwarden/audit` in the project's root, the
/// configuration's directory (the working directory when there is none).
pub fn default_store(root: &std::path::Path) -> String {
    if root.as_os_str().is_empty() || root == std::path::Path::new(".") {
        crate::DEFAULT_STORE.to_owned()
    } else {
        root.join(crate::DEFAULT_STORE).to_string_lossy().into_owned()
    }
}
