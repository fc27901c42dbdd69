//! The `history` table: a run's history, one row per [`Message`] (JSON) at its
//! position 0, 1, 2 … A step appends the messages it added; loading a run reads
//! them back in order.

use crewgraph_engine::run::Message;
use rusqlite::{params, Connection};

use crate::error::Fault;

pub(crate) const V1: &str = "
CREATE TABLE history (
    run      INTEGER NOT NULL REFERENCES runs (number) ON DELETE CASCADE,
    position INTEGER NOT NULL,   -- 0, 1, 2 … within the run
    body     TEXT NOT NULL,      -- the message as JSON
    PRIMARY KEY (run, position)
) WITHOUT ROWID;
";

/// A message encoded as its row stores it.
pub(crate) fn encode(message: &Message) -> Result<String, Fault> {
    serde_json::to_string(message).map_err(|err| Fault::Unwritable(format!("a history message does not encode as JSON: {err}")))
}

pub(crate) fn insert(conn: &Connection, run: i64, position: u32, body: &str) -> Result<(), Fault> {
    conn.prepare_cached("INSERT INTO history (run, position, body) VALUES (?1, ?2, ?3)")?.execute(params![run, position, body])?;
    Ok(())
}

/// The run's whole history, in order.
pub(crate) fn load(conn: &Connection, run: i64) -> Result<Vec<Message>, Fault> {
    let mut statement = conn.prepare_cached("SELECT position, body FROM history WHERE run = ?1 ORDER BY position")?;
    let mut rows = statement.query([run])?;
    let mut history = Vec::new();
    while let Some(row) = rows.next()? {
        let position: i64 = row.get(0)?;
        if position != history.len() as i64 {
            return Err(Fault::Unreadable(format!("history message {} is missing", history.len())));
        }
        let body: String = row.get(1)?;
        let message = serde_json::from_str(&body)
            .map_err(|err| Fault::Unreadable(format!("history message {position} cannot be read: {err}")))?;
        history.push(message);
    }
    Ok(history)
}
