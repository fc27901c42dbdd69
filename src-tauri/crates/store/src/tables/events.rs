//! The `events` table: every [`RunEvent`] of every run, one row each, kept in
//! `seq` order per run (the key is `(run, seq)`, so a run's events sit together
//! and replay reads them in one range).
//!
//! `body` is the event's kind as JSON with its `type` tag (the engine's serde
//! form); `run_id`, `seq` and `timestamp` are columns and are not repeated in it.

use crewgraph_engine::ids::RunId;
use crewgraph_engine::run::{EventKind, RunEvent};
use rusqlite::{params, Connection};

use super::runs::timestamp;
use crate::error::{from_sql_int, to_sql_int, Fault};

pub(crate) const V1: &str = "
CREATE TABLE events (
    run       INTEGER NOT NULL REFERENCES runs (number) ON DELETE CASCADE,
    seq       INTEGER NOT NULL,
    type      TEXT NOT NULL,      -- the snake_case type, as in the body
    timestamp INTEGER NOT NULL,   -- ms since the epoch
    body      TEXT NOT NULL,      -- the event's kind as JSON
    PRIMARY KEY (run, seq)
) WITHOUT ROWID;
";

/// An event as its row stores it, encoded before it reaches the writer.
#[derive(Clone, Debug)]
pub(crate) struct EventRow {
    seq: i64,
    kind: &'static str,
    timestamp: i64,
    body: String,
}

impl EventRow {
    pub(crate) fn new(event: &RunEvent) -> Result<EventRow, Fault> {
        let body = serde_json::to_string(&event.kind)
            .map_err(|err| Fault::Unwritable(format!("event {} does not encode as JSON: {err}", event.seq)))?;
        Ok(EventRow {
            seq: to_sql_int(event.seq, "the event seq")?,
            kind: event.kind.type_name(),
            timestamp: to_sql_int(event.timestamp.0, "the event time")?,
            body,
        })
    }
}

pub(crate) fn insert(conn: &Connection, run: i64, event: &EventRow) -> Result<(), Fault> {
    conn.prepare_cached("INSERT INTO events (run, seq, type, timestamp, body) VALUES (?1, ?2, ?3, ?4, ?5)")?
        .execute(params![run, event.seq, event.kind, event.timestamp, event.body])?;
    Ok(())
}

/// The run's events in `seq` order, only those after `after` when given.
pub(crate) fn load(conn: &Connection, run: i64, id: &RunId, after: Option<u64>) -> Result<Vec<RunEvent>, Fault> {
    // Every stored seq is at most i64::MAX, so a larger `after` leaves nothing.
    let after = match after {
        None => -1,
        Some(after) => i64::try_from(after).unwrap_or(i64::MAX),
    };
    let mut statement = conn.prepare_cached("SELECT seq, timestamp, body FROM events WHERE run = ?1 AND seq > ?2 ORDER BY seq")?;
    let mut rows = statement.query(params![run, after])?;
    let mut events = Vec::new();
    while let Some(row) = rows.next()? {
        let seq: u64 = from_sql_int(row.get(0)?, "an event seq")?;
        let body: String = row.get(2)?;
        let kind: EventKind = serde_json::from_str(&body)
            .map_err(|err| Fault::Unreadable(format!("event {seq} of run '{id}' cannot be read: {err}")))?;
        events.push(RunEvent { kind, run_id: id.clone(), seq, timestamp: timestamp(row, 1, "an event time")? });
    }
    Ok(events)
}
