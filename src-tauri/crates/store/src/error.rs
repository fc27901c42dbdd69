//! How the store's failures become the engine's [`StoreError`], each message
//! saying what was being done and to which file.
//!
//! Code inside the store works with [`Fault`]: SQLite's own error, a stored value
//! that cannot be read back, or an answer for the caller (`NoSuchRun`, `OutOfOrder`
//! …). The writer and the readers, which know the database's path and what a
//! request was for, turn it into a [`StoreError`] with [`Fault::describe`]:
//!
//! - `SQLITE_BUSY` / `SQLITE_LOCKED` → [`StoreError::Busy`];
//! - `SQLITE_CORRUPT` / `SQLITE_NOTADB`, a schema that is not Crewgraph's, a value
//!   that does not decode → [`StoreError::Corrupt`];
//! - cannot open, read-only, disk full, I/O errors, permissions → [`StoreError::Io`].

use std::path::Path;

use crewgraph_engine::run::StoreError;
use rusqlite::ErrorCode;

/// Why a piece of store code failed, before it is put in words for the caller.
#[derive(Debug)]
pub(crate) enum Fault {
    /// SQLite refused or failed.
    Sqlite(rusqlite::Error),
    /// A stored value cannot be read back (bad JSON, an unknown status, a number out of range).
    Unreadable(String),
    /// A value cannot be written (it does not encode as JSON, or is too large for SQLite).
    Unwritable(String),
    /// An answer for the caller, passed through as it is.
    Refused(StoreError),
}

impl From<rusqlite::Error> for Fault {
    fn from(err: rusqlite::Error) -> Self {
        Fault::Sqlite(err)
    }
}

impl From<StoreError> for Fault {
    fn from(err: StoreError) -> Self {
        Fault::Refused(err)
    }
}

impl Fault {
    /// The error for the caller: `doing` says what failed (“append a step to run
    /// 'run-1'”), `path` where.
    pub(crate) fn describe(self, doing: &str, path: &Path) -> StoreError {
        let place = path.display();
        match self {
            Fault::Refused(err) => err,
            Fault::Unreadable(detail) => StoreError::Corrupt(format!("cannot {doing} in {place}: {detail}")),
            Fault::Unwritable(detail) => StoreError::Io(format!("cannot {doing} in {place}: {detail}")),
            Fault::Sqlite(err) => sqlite_error(err, doing, path),
        }
    }
}

/// Puts one of SQLite's errors in words, in the [`StoreError`] variant it belongs to.
pub(crate) fn sqlite_error(err: rusqlite::Error, doing: &str, path: &Path) -> StoreError {
    let place = path.display();
    let Some(code) = err.sqlite_error_code() else {
        // Not SQLite's error but rusqlite's reading of a value: a column of the wrong
        // type or out of range, which Crewgraph never writes.
        return StoreError::Corrupt(format!("cannot {doing} in {place}: a stored value is not what Crewgraph writes ({err})"));
    };
    match code {
        ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked => {
            StoreError::Busy(format!("cannot {doing} in {place}: another program holds the database and did not let go in time ({err})"))
        }
        ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase => {
            StoreError::Corrupt(format!("cannot {doing} in {place}: the file is damaged or is not a SQLite database ({err})"))
        }
        ErrorCode::CannotOpen => StoreError::Io(format!(
            "cannot {doing} in {place}: the file cannot be opened — does its folder exist, and may it be written? ({err})"
        )),
        ErrorCode::ReadOnly | ErrorCode::PermissionDenied | ErrorCode::AuthorizationForStatementDenied => {
            StoreError::Io(format!("cannot {doing} in {place}: the file or its folder may not be written ({err})"))
        }
        ErrorCode::DiskFull => StoreError::Io(format!("cannot {doing} in {place}: the disk is full ({err})")),
        ErrorCode::SystemIoFailure
        | ErrorCode::NoLargeFileSupport
        | ErrorCode::FileLockingProtocolFailed
        | ErrorCode::OutOfMemory
        | ErrorCode::TooBig => StoreError::Io(format!("cannot {doing} in {place}: {err}")),
        // A missing table or column, a constraint the data breaks, a schema that
        // changed underneath: the file does not hold what Crewgraph wrote.
        _ => StoreError::Corrupt(format!("cannot {doing} in {place}: the database does not have the shape Crewgraph expects ({err})")),
    }
}

/// A number for SQLite's 64-bit signed integers.
pub(crate) fn to_sql_int(value: u64, what: &str) -> Result<i64, Fault> {
    i64::try_from(value).map_err(|_| Fault::Unwritable(format!("{what} {value} is larger than SQLite can store")))
}

/// A number read back from SQLite, as the type the engine uses.
pub(crate) fn from_sql_int<T: TryFrom<i64>>(value: i64, what: &str) -> Result<T, Fault> {
    T::try_from(value).map_err(|_| Fault::Unreadable(format!("{what} is {value}, which is out of range")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(code: std::os::raw::c_int) -> rusqlite::Error {
        rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(code), None)
    }

    #[test]
    fn sqlite_codes_land_in_the_variant_the_user_can_act_on() {
        let path = Path::new("/data/crewgraph.db");
        let kind = |code| match sqlite_error(failure(code), "store a step", path) {
            StoreError::Busy(_) => "busy",
            StoreError::Corrupt(_) => "corrupt",
            StoreError::Io(_) => "io",
            _ => "other",
        };
        assert_eq!(kind(rusqlite::ffi::SQLITE_BUSY), "busy");
        assert_eq!(kind(rusqlite::ffi::SQLITE_LOCKED), "busy");
        assert_eq!(kind(rusqlite::ffi::SQLITE_CORRUPT), "corrupt");
        assert_eq!(kind(rusqlite::ffi::SQLITE_NOTADB), "corrupt");
        assert_eq!(kind(rusqlite::ffi::SQLITE_FULL), "io");
        assert_eq!(kind(rusqlite::ffi::SQLITE_CANTOPEN), "io");
        assert_eq!(kind(rusqlite::ffi::SQLITE_READONLY), "io");
        assert_eq!(kind(rusqlite::ffi::SQLITE_IOERR), "io");
    }

    #[test]
    fn messages_say_what_failed_and_where() {
        let err = sqlite_error(failure(rusqlite::ffi::SQLITE_FULL), "append a step to run 'run-1'", Path::new("/data/crewgraph.db"));
        let text = err.to_string();
        assert!(text.contains("append a step to run 'run-1'"), "{text}");
        assert!(text.contains("/data/crewgraph.db"), "{text}");
        assert!(text.contains("disk is full"), "{text}");
    }

    #[test]
    fn answers_for_the_caller_pass_through_unchanged() {
        let answer = StoreError::NoSuchRun("run-9".into());
        assert_eq!(Fault::Refused(answer.clone()).describe("load a run", Path::new("x.db")), answer);
    }

    #[test]
    fn numbers_beyond_sqlite_integers_are_refused_not_wrapped() {
        assert!(matches!(to_sql_int(u64::MAX, "seq"), Err(Fault::Unwritable(_))));
        assert_eq!(to_sql_int(7, "seq").ok(), Some(7));
        assert!(matches!(from_sql_int::<u32>(-1, "handoffs"), Err(Fault::Unreadable(_))));
    }
}
