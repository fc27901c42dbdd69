//! Where the database is: a `postgres://` URL read into the driver's settings,
//! and the words error messages use for it (“the PostgreSQL database 'crewgraph'
//! at 127.0.0.1:5432”), never showing a password.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use crewgraph_engine::run::StoreError;
use tokio_postgres::config::Host;

/// The default PostgreSQL port, when a URL names none.
const DEFAULT_PORT: u16 = 5432;

/// A database address, read and checked.
#[derive(Clone)]
pub(crate) struct Address {
    pub(crate) config: tokio_postgres::Config,
    /// How messages name it.
    pub(crate) place: Place,
}

/// How error messages name the database: its name, host and port.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Place {
    pub(crate) database: String,
    pub(crate) host: String,
    pub(crate) port: u16,
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the PostgreSQL database '{}' at {}", self.database, self.server())
    }
}

impl Place {
    /// `host:port`, as a person would type it.
    pub(crate) fn server(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }
}

impl Address {
    /// Reads `url` (`postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`); a URL of
    /// another scheme, or one the driver cannot read, is refused in words that
    /// show the URL without its password.
    pub(crate) fn parse(url: &str, connect_timeout: Duration) -> Result<Address, StoreError> {
        let shown = without_password(url);
        let example = "postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE, for example postgres://crew@127.0.0.1:5432/crewgraph";
        if !(url.starts_with("postgres://") || url.starts_with("postgresql://")) {
            return Err(StoreError::Io(format!("'{shown}' is not a PostgreSQL address: it should read {example}")));
        }
        let mut config = tokio_postgres::Config::from_str(url)
            .map_err(|_| StoreError::Io(format!("'{shown}' is not a PostgreSQL address Crewgraph can read: it should read {example}")))?;
        let host = match config.get_hosts().first() {
            Some(Host::Tcp(host)) => host.clone(),
            Some(Host::Unix(folder)) => folder.display().to_string(),
            None => return Err(StoreError::Io(format!("'{shown}' names no host: it should read {example}"))),
        };
        let port = config.get_ports().first().copied().unwrap_or(DEFAULT_PORT);
        let user = config.get_user().unwrap_or_default().to_owned();
        let database = config.get_dbname().map(str::to_owned).unwrap_or(user);
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(connect_timeout);
        }
        config.application_name("crewgraph");
        Ok(Address { config, place: Place { database, host, port } })
    }
}

/// `url` with its password, if any, replaced by `***`.
pub(crate) fn without_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else { return url.to_owned() };
    let Some((credentials, after)) = rest.split_once('@') else { return url.to_owned() };
    match credentials.split_once(':') {
        Some((user, _password)) => format!("{scheme}://{user}:***@{after}"),
        None => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(url: &str) -> Result<Address, StoreError> {
        Address::parse(url, Duration::from_secs(5))
    }

    #[test]
    fn a_url_names_its_database_host_and_port() {
        let address = parse("postgres://crew:secret@db.example:6543/runs").unwrap();
        assert_eq!(address.place, Place { database: "runs".into(), host: "db.example".into(), port: 6543 });
        assert_eq!(address.place.to_string(), "the PostgreSQL database 'runs' at db.example:6543");
        let defaulted = parse("postgresql://crew@localhost").unwrap();
        assert_eq!(defaulted.place.port, 5432, "PostgreSQL's own port when none is given");
        assert_eq!(defaulted.place.database, "crew", "PostgreSQL's own default: the user's name");
    }

    #[test]
    fn another_scheme_is_refused_in_words_without_the_password() {
        let err = parse("mysql://crew:secret@db.example/runs").err().unwrap();
        let text = err.to_string();
        assert!(text.contains("is not a PostgreSQL address"), "{text}");
        assert!(text.contains("mysql://crew:***@db.example/runs"), "{text}");
        assert!(!text.contains("secret"), "a password is never shown: {text}");
        assert!(parse("crewgraph.db").is_err());
    }

    #[test]
    fn an_unreadable_url_is_refused_in_words() {
        let text = parse("postgres://crew:secret@db.example:notaport/runs").err().unwrap().to_string();
        assert!(text.contains("Crewgraph can read"), "{text}");
        assert!(!text.contains("secret"), "{text}");
    }

    #[test]
    fn passwords_are_masked_and_other_urls_kept() {
        assert_eq!(without_password("postgres://a:b@h/d"), "postgres://a:***@h/d");
        assert_eq!(without_password("postgres://a@h/d"), "postgres://a@h/d");
        assert_eq!(without_password("postgres://h/d"), "postgres://h/d");
    }
}
