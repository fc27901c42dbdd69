//! How the store's failures become the engine's [`StoreError`], each message
//! saying what was being done and to which database, on which host and port.
//!
//! Code inside the store works with [`Fault`]: the driver's or the pool's error, a
//! stored value that cannot be read back, or an answer for the caller
//! (`NoSuchRun`, `OutOfOrder` …). [`Fault::describe`] puts it in words:
//!
//! - nothing listening, a refused login, a missing database, a server shutting
//!   down, a full disk → [`StoreError::Io`], naming `host:port` and what to check;
//! - too many connections, a lock or serialization conflict, a pool with no free
//!   connection → [`StoreError::Busy`];
//! - a missing table or column, a value that does not decode → [`StoreError::Corrupt`].
//!
//! The server's own sentence (`password authentication failed for user "crew"`)
//! is quoted where it helps; the driver's type names and debug output never are.

use std::io;

use crewgraph_engine::run::StoreError;
use deadpool_postgres::{PoolError, TimeoutType};
use tokio_postgres::error::SqlState;

use crate::address::Place;

/// Why a piece of store code failed, before it is put in words for the caller.
#[derive(Debug)]
pub(crate) enum Fault {
    /// The server refused, or could not be reached.
    Postgres(tokio_postgres::Error),
    /// No connection could be had from the pool.
    Pool(PoolError),
    /// A stored value cannot be read back (bad JSON, an unknown status, a number out of range).
    Unreadable(String),
    /// A value cannot be written (it does not encode as JSON, or is out of range).
    Unwritable(String),
    /// An answer for the caller, passed through as it is.
    Refused(StoreError),
}

impl From<tokio_postgres::Error> for Fault {
    fn from(err: tokio_postgres::Error) -> Self {
        Fault::Postgres(err)
    }
}

impl From<PoolError> for Fault {
    fn from(err: PoolError) -> Self {
        match err {
            PoolError::Backend(err) => Fault::Postgres(err),
            other => Fault::Pool(other),
        }
    }
}

impl From<StoreError> for Fault {
    fn from(err: StoreError) -> Self {
        Fault::Refused(err)
    }
}

impl Fault {
    /// The error for the caller: `doing` says what failed (“store a step of run
    /// 'run-1'”), `place` where.
    pub(crate) fn describe(self, doing: &str, place: &Place) -> StoreError {
        match self {
            Fault::Refused(err) => err,
            Fault::Unreadable(detail) => StoreError::Corrupt(format!("cannot {doing} in {place}: {detail}")),
            Fault::Unwritable(detail) => StoreError::Io(format!("cannot {doing} in {place}: {detail}")),
            Fault::Pool(err) => pool_error(&err, doing, place),
            Fault::Postgres(err) => postgres_error(&err, doing, place),
        }
    }
}

/// Puts a failure to get a connection from the pool in words.
fn pool_error(err: &PoolError, doing: &str, place: &Place) -> StoreError {
    let server = place.server();
    match err {
        PoolError::Backend(err) => postgres_error(err, doing, place),
        PoolError::Timeout(TimeoutType::Wait) => StoreError::Busy(format!(
            "cannot {doing} in {place}: every connection to it is in use and none came free in time (too many runs at once for the pool?)"
        )),
        PoolError::Timeout(TimeoutType::Create) => StoreError::Io(format!(
            "cannot {doing} in {place}: the server at {server} did not answer in time — is it running, and reachable from here?"
        )),
        PoolError::Timeout(TimeoutType::Recycle) => {
            StoreError::Io(format!("cannot {doing} in {place}: a connection to {server} stopped answering"))
        }
        PoolError::Closed => StoreError::Io(format!("cannot {doing} in {place}: the store was closed")),
        PoolError::NoRuntimeSpecified | PoolError::PostCreateHook(_) => {
            StoreError::Io(format!("cannot {doing} in {place}: no connection to {server} could be made"))
        }
    }
}

/// Puts one of the driver's errors in words, in the [`StoreError`] variant it belongs to.
pub(crate) fn postgres_error(err: &tokio_postgres::Error, doing: &str, place: &Place) -> StoreError {
    let server = place.server();
    let Some(db) = err.as_db_error() else {
        return unreachable_error(err, doing, place);
    };
    let said = db.message();
    let code = db.code();
    let class = &code.code()[..2];
    if *code == SqlState::INVALID_PASSWORD || *code == SqlState::INVALID_AUTHORIZATION_SPECIFICATION {
        return StoreError::Io(format!(
            "cannot {doing} in {place}: the server refused the login ({said}); check the user and password in the address"
        ));
    }
    if *code == SqlState::INVALID_CATALOG_NAME {
        return StoreError::Io(format!(
            "cannot {doing} in {place}: the server at {server} has no such database ({said}); create it first (createdb {})",
            place.database
        ));
    }
    if *code == SqlState::TOO_MANY_CONNECTIONS || *code == SqlState::CANNOT_CONNECT_NOW {
        return StoreError::Busy(format!("cannot {doing} in {place}: the server takes no more connections right now ({said})"));
    }
    if *code == SqlState::T_R_SERIALIZATION_FAILURE
        || *code == SqlState::T_R_DEADLOCK_DETECTED
        || *code == SqlState::LOCK_NOT_AVAILABLE
        || *code == SqlState::QUERY_CANCELED
    {
        return StoreError::Busy(format!("cannot {doing} in {place}: another writer held what this needed ({said})"));
    }
    if *code == SqlState::DISK_FULL || *code == SqlState::OUT_OF_MEMORY || class == "53" || class == "58" {
        return StoreError::Io(format!("cannot {doing} in {place}: the server ran out of room or failed ({said})"));
    }
    if *code == SqlState::INSUFFICIENT_PRIVILEGE || *code == SqlState::READ_ONLY_SQL_TRANSACTION {
        return StoreError::Io(format!("cannot {doing} in {place}: the server does not let this user write there ({said})"));
    }
    if class == "57" {
        return StoreError::Io(format!("cannot {doing} in {place}: the server at {server} is shutting down or restarting ({said})"));
    }
    // A missing table or column, a constraint the data breaks, a value of the wrong
    // type: the database does not hold what Crewgraph wrote.
    StoreError::Corrupt(format!("cannot {doing} in {place}: the database does not have the shape Crewgraph expects ({said})"))
}

/// Puts a failure to reach the server, or a connection lost on the way, in words.
fn unreachable_error(err: &tokio_postgres::Error, doing: &str, place: &Place) -> StoreError {
    let server = place.server();
    if err.is_closed() {
        return StoreError::Io(format!(
            "cannot {doing} in {place}: the connection to {server} was closed (did the server stop or restart?)"
        ));
    }
    let mut source = std::error::Error::source(err);
    while let Some(cause) = source {
        if let Some(io) = cause.downcast_ref::<io::Error>() {
            let why = match io.kind() {
                io::ErrorKind::ConnectionRefused => {
                    format!("nothing answers at {server} — is PostgreSQL running there, and listening on that port?")
                }
                io::ErrorKind::TimedOut => format!("the server at {server} did not answer in time — is it reachable from here?"),
                io::ErrorKind::NotFound => format!("there is no server socket at {server} — is PostgreSQL running there?"),
                io::ErrorKind::ConnectionReset | io::ErrorKind::ConnectionAborted | io::ErrorKind::UnexpectedEof => {
                    format!("the server at {server} closed the connection (did it stop or restart?)")
                }
                io::ErrorKind::PermissionDenied => format!("this program may not connect to {server}"),
                _ => format!("the server at {server} cannot be reached ({io})"),
            };
            return StoreError::Io(format!("cannot {doing} in {place}: {why}"));
        }
        source = cause.source();
    }
    // The driver's own sentence (a timeout, a message it could not read): said as
    // it is, after what failed and where.
    StoreError::Io(format!("cannot {doing} in {place}: the server at {server} could not be talked to ({err})"))
}

/// A number for PostgreSQL's 64-bit signed integers.
pub(crate) fn to_sql_int(value: u64, what: &str) -> Result<i64, Fault> {
    i64::try_from(value).map_err(|_| Fault::Unwritable(format!("{what} {value} is larger than PostgreSQL can store")))
}

/// A number read back from PostgreSQL, as the type the engine uses.
pub(crate) fn from_sql_int<T: TryFrom<i64>>(value: i64, what: &str) -> Result<T, Fault> {
    T::try_from(value).map_err(|_| Fault::Unreadable(format!("{what} is {value}, which is out of range")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place() -> Place {
        Place { database: "crewgraph".into(), host: "10.0.0.7".into(), port: 5433 }
    }

    #[test]
    fn answers_for_the_caller_pass_through_unchanged() {
        let answer = StoreError::NoSuchRun("run-9".into());
        assert_eq!(Fault::Refused(answer.clone()).describe("load a run", &place()), answer);
    }

    #[test]
    fn a_pool_with_no_free_connection_is_busy_and_a_silent_server_is_io() {
        match Fault::Pool(PoolError::Timeout(TimeoutType::Wait)).describe("store a step", &place()) {
            StoreError::Busy(text) => assert!(text.contains("in use"), "{text}"),
            other => panic!("expected Busy, got {other:?}"),
        }
        match Fault::Pool(PoolError::Timeout(TimeoutType::Create)).describe("store a step", &place()) {
            StoreError::Io(text) => assert!(text.contains("10.0.0.7:5433"), "names host and port: {text}"),
            other => panic!("expected Io, got {other:?}"),
        }
    }

    #[test]
    fn numbers_beyond_postgres_integers_are_refused_not_wrapped() {
        assert!(matches!(to_sql_int(u64::MAX, "seq"), Err(Fault::Unwritable(_))));
        assert_eq!(to_sql_int(7, "seq").ok(), Some(7));
        assert!(matches!(from_sql_int::<u32>(-1, "handoffs"), Err(Fault::Unreadable(_))));
    }
}
