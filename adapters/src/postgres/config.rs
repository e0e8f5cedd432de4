//! Where the PostgreSQL event store is: a `postgres://` URL and the schema its tables live in.
//!
//! The schema comes from [`PgConfig::schema`], else from the URL's
//! `options=-csearch_path%3D<schema>` (its first entry), else `public`. It must be a plain
//! lower-case identifier, so it is safe to quote into statements. Error messages name the
//! server as `user@host:port/db`, never with the password.

use std::time::Duration;

use agentwarden_ports::StoreError;

/// How long to wait for the server to accept a connection, unless the URL says otherwise.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// A parsed PostgreSQL location.
#[derive(Clone)]
pub struct PgConfig {
    pub(super) pg: tokio_postgres::Config,
    pub(super) schema: String,
    pub(super) timeout: Duration,
    pub(super) create_if_missing: bool,
}

impl std::fmt::Debug for PgConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgConfig").field("server", &self.server()).field("schema", &self.schema).finish()
    }
}

impl PgConfig {
    /// True when `location` names a PostgreSQL server rather than a directory.
    pub fn is_postgres_url(location: &str) -> bool {
        crate::is_postgres_url(location)
    }

    /// Parses a `postgres://` or `postgresql://` URL.
    pub fn parse(url: &str) -> Result<PgConfig, StoreError> {
        if !PgConfig::is_postgres_url(url) {
            return Err(invalid(format!("`{url}` is not a postgres:// URL")));
        }
        let mut pg: tokio_postgres::Config =
            url.parse().map_err(|e| invalid(format!("cannot parse the PostgreSQL URL: {e}")))?;
        if pg.get_connect_timeout().is_none() {
            pg.connect_timeout(CONNECT_TIMEOUT);
        }
        if pg.get_application_name().is_none() {
            pg.application_name("agentwarden");
        }
        let schema = pg.get_options().and_then(search_path).unwrap_or_else(|| "public".to_owned());
        check_schema(&schema)?;
        Ok(PgConfig { pg, schema, timeout: Duration::from_secs(30), create_if_missing: true })
    }

    /// Keeps the tables in `schema` (created if missing).
    pub fn schema(mut self, schema: &str) -> Result<PgConfig, StoreError> {
        check_schema(schema)?;
        self.schema = schema.to_owned();
        Ok(self)
    }

    /// Gives up on one commit, read or connection after `timeout` (default 30 s): the caller
    /// gets an error, never a hang.
    pub fn timeout(mut self, timeout: Duration) -> PgConfig {
        self.timeout = timeout;
        self
    }

    /// Whether a schema without the store's tables gets them (default) or is an error
    /// ([`StoreError::Missing`]): readers turn this off, so that a dropped log cannot verify as
    /// an empty, intact one.
    pub fn create_if_missing(mut self, create: bool) -> PgConfig {
        self.create_if_missing = create;
        self
    }

    /// The schema the tables live in.
    pub fn schema_name(&self) -> &str {
        &self.schema
    }

    /// The server, for messages: `user@host:port/db`, without the password.
    pub fn server(&self) -> String {
        let user = self.pg.get_user().unwrap_or("");
        let host = match self.pg.get_hosts().first() {
            Some(tokio_postgres::config::Host::Tcp(host)) => host.clone(),
            Some(tokio_postgres::config::Host::Unix(path)) => path.display().to_string(),
            None => "localhost".to_owned(),
        };
        let port = self.pg.get_ports().first().copied().unwrap_or(5432);
        let db = self.pg.get_dbname().unwrap_or(user);
        format!("{user}@{host}:{port}/{db}")
    }
}

fn invalid(why: String) -> StoreError {
    StoreError::Unavailable { reason: why }
}

/// The first schema of a `-c search_path=…` in the connection options.
fn search_path(options: &str) -> Option<String> {
    let mut words = options.split_whitespace();
    while let Some(word) = words.next() {
        let setting = match word {
            "-c" => words.next()?,
            other => other.strip_prefix("-c").unwrap_or(other),
        };
        if let Some(value) = setting.strip_prefix("search_path=") {
            let first = value.split(',').next()?.trim().trim_matches('"');
            return Some(first.to_owned());
        }
    }
    None
}

fn check_schema(schema: &str) -> Result<(), StoreError> {
    let mut bytes = schema.bytes();
    let first_ok = bytes.next().is_some_and(|b| b.is_ascii_lowercase() || b == b'_');
    let rest_ok = bytes.all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    if first_ok && rest_ok && schema.len() <= 63 {
        Ok(())
    } else {
        Err(invalid(format!(
            "`{schema}` is not a schema name Agent Warden accepts (lower-case letters, digits and `_`, \
             at most 63, not starting with a digit)"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_from_options_argument_or_default() {
        let url = "postgres://u:secret@db.example:6543/audit?options=-csearch_path%3Dfleet_a%2Cpublic";
        let config = PgConfig::parse(url).unwrap();
        assert_eq!(config.schema_name(), "fleet_a");
        assert_eq!(config.server(), "u@db.example:6543/audit", "no password in messages");
        assert_eq!(PgConfig::parse("postgresql://u@h/d").unwrap().schema_name(), "public");
        let other = PgConfig::parse("postgres://u@h/d?options=-c%20search_path%3Dx").unwrap();
        assert_eq!(other.schema_name(), "x");
        assert_eq!(other.schema("y").unwrap().schema_name(), "y");
    }

    #[test]
    fn bad_urls_and_schemas_are_refused() {
        for bad in ["/var/audit", "postgres://u@h/d?nonsense=1", "postgres://u@h/d?options=-csearch_path%3DA"]
        {
            assert!(PgConfig::parse(bad).is_err(), "{bad}");
        }
        let config = PgConfig::parse("postgres://u@h/d").unwrap();
        for bad in ["", "1a", "a-b", "a\"b", &"a".repeat(64)] {
            assert!(config.clone().schema(bad).is_err(), "{bad}");
        }
    }
}
