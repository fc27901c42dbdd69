//! The `crews` table: every crew the store has heard of, by the path of its file
//! or folder. A crew's content lives in its revisions (`crew_revisions`); its
//! runtime agents in `runtime_agents`. The row only gives the crew a number the
//! other tables refer to.

use rusqlite::{Connection, OptionalExtension};

use crate::error::Fault;

pub(crate) const V1: &str = "
CREATE TABLE crews (
    id   INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE   -- the crew file or folder
);
";

/// The crew's number, adding the crew when it is new.
pub(crate) fn ensure(conn: &Connection, path: &str) -> Result<i64, Fault> {
    conn.prepare_cached("INSERT INTO crews (path) VALUES (?1) ON CONFLICT (path) DO NOTHING")?.execute([path])?;
    find(conn, path)?.ok_or_else(|| Fault::Unreadable(format!("the crew {path} was added but cannot be found")))
}

/// The crew's number; None if the store never heard of it.
pub(crate) fn find(conn: &Connection, path: &str) -> Result<Option<i64>, Fault> {
    Ok(conn.prepare_cached("SELECT id FROM crews WHERE path = ?1")?.query_row([path], |row| row.get(0)).optional()?)
}
