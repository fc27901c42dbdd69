//! Opening the database file: its folder, the settings every connection gets
//! (WAL, `synchronous=NORMAL`, foreign keys, a busy timeout), the check that the
//! file is Crewgraph's, and the migrations.
//!
//! The writer's connection is opened first ([`open_writer`]): it creates the file
//! and its folder when missing, turns WAL on (a setting kept in the file) and
//! brings the schema up to date. Readers ([`open_reader`]) open the same file
//! afterwards and only read; the checkpointer ([`open_checkpointer`]) only copies
//! the WAL back into the file.

use std::path::Path;
use std::time::Duration;

use crewgraph_engine::run::StoreError;
use rusqlite::{Connection, OpenFlags, TransactionBehavior};

use crate::error::{sqlite_error, Fault};
use crate::schema;

/// How the store opens its database.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreOptions {
    /// How long a write waits for another program's lock before failing with
    /// `StoreError::Busy`.
    pub busy_timeout: Duration,
}

impl Default for StoreOptions {
    fn default() -> Self {
        StoreOptions { busy_timeout: Duration::from_secs(5) }
    }
}

/// Statements kept prepared per connection: every statement the store runs fits.
const STATEMENT_CACHE: usize = 64;

/// The connection that writes: creates the file (and its folder) when missing,
/// checks it is Crewgraph's, and migrates it to the current schema.
pub(crate) fn open_writer(path: &Path, options: &StoreOptions) -> Result<Connection, StoreError> {
    if let Some(folder) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(folder).map_err(|err| match folder.ancestors().find(|a| a.is_file()) {
            Some(file) => {
                StoreError::Io(format!("cannot keep the database {} there: {} is a file, not a folder", path.display(), file.display()))
            }
            None => StoreError::Io(format!("cannot create the folder {} for the database {}: {err}", folder.display(), path.display())),
        })?;
    }
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let mut conn = Connection::open_with_flags(path, flags).map_err(|err| sqlite_error(err, "open the database", path))?;
    configure(&conn, options).map_err(|fault| fault.describe("open the database", path))?;
    // Before anything is written: turning on WAL would already change another
    // program's database, which must be refused untouched.
    check_is_crewgraphs(&conn).map_err(|fault| fault.describe("open the database", path))?;
    // WAL lives in the file: set once here, every later connection reads in WAL.
    let mode: String = conn
        .pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get(0))
        .map_err(|err| sqlite_error(err, "turn on write-ahead logging for the database", path))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(StoreError::Io(format!(
            "cannot turn on write-ahead logging for the database {}: SQLite kept journal mode '{mode}'",
            path.display()
        )));
    }
    conn.pragma_update(None, "synchronous", "NORMAL").map_err(|err| sqlite_error(err, "configure the database", path))?;
    // Many runs at once touch a page or three each per table: a larger page cache
    // keeps their pages at hand (32 MiB at most, only once that many are in use).
    conn.pragma_update(None, "cache_size", -32 * 1024).map_err(|err| sqlite_error(err, "configure the database", path))?;
    // After a burst the write-ahead log shrinks back to this size at its next checkpoint.
    conn.pragma_update(None, "journal_size_limit", 16 * 1024 * 1024).map_err(|err| sqlite_error(err, "configure the database", path))?;
    // Migrations take the write lock at once, so two programs opening a new file
    // wait for each other instead of both creating the tables.
    conn.set_transaction_behavior(TransactionBehavior::Immediate);
    schema::migrate(&mut conn).map_err(|fault| fault.describe("update the database's tables", path))?;
    Ok(conn)
}

/// A connection that only reads (WAL lets it read beside the writer).
pub(crate) fn open_reader(path: &Path, options: &StoreOptions) -> Result<Connection, StoreError> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags).map_err(|err| sqlite_error(err, "open the database for reading", path))?;
    configure(&conn, options).map_err(|fault| fault.describe("open the database for reading", path))?;
    conn.pragma_update(None, "query_only", true).map_err(|err| sqlite_error(err, "open the database for reading", path))?;
    Ok(conn)
}

/// The checkpointer's connection: it copies the WAL's pages back into the file
/// ([`crate::checkpoint`]), and never reads or writes a row.
pub(crate) fn open_checkpointer(path: &Path, options: &StoreOptions) -> Result<Connection, StoreError> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags).map_err(|err| sqlite_error(err, "open the database for checkpoints", path))?;
    configure(&conn, options).map_err(|fault| fault.describe("open the database for checkpoints", path))?;
    Ok(conn)
}

/// What every connection gets.
fn configure(conn: &Connection, options: &StoreOptions) -> Result<(), Fault> {
    conn.busy_timeout(options.busy_timeout)?;
    conn.pragma_update(None, "foreign_keys", true)?;
    conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
    Ok(())
}

/// Refuses a SQLite database that another program made: Crewgraph marks its files
/// with an application id, and a file without the mark must be empty.
fn check_is_crewgraphs(conn: &Connection) -> Result<(), Fault> {
    let id: i64 = conn.pragma_query_value(None, "application_id", |row| row.get(0))?;
    if id == schema::APPLICATION_ID {
        return Ok(());
    }
    if id != 0 {
        return Err(Fault::Unreadable(format!(
            "this is not a Crewgraph database: it is marked as another program's (application id {id:#x})"
        )));
    }
    let tables: i64 = conn.query_row("SELECT count(*) FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%'", [], |row| row.get(0))?;
    if tables > 0 {
        return Err(Fault::Unreadable(format!(
            "this is not a Crewgraph database: it is a SQLite database with {tables} tables or indexes of another program"
        )));
    }
    Ok(())
}
