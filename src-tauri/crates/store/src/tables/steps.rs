//! The `steps` table: one row per stored step, holding everything the step added
//! to its run — its events and the messages it appended to the history — so a
//! step costs one INSERT, whatever it holds.
//!
//! - `events` is a JSON array with one `[timestamp, kind]` pair per event: the
//!   time in ms since the epoch, the kind in the engine's serde form (with its
//!   `type` tag). The events' seqs are
//!   `first_seq`, `first_seq + 1` … `last_seq` (a step's events continue each
//!   other without gaps; the store checks that before writing), so neither the
//!   seq nor the run id is repeated per event.
//! - `history` is a JSON array of the appended [`Message`]s, in order; a run's
//!   history is the concatenation of its steps' arrays, step by step.
//!
//! Rows are numbered in the order they were stored (`number`, SQLite's rowid), so
//! new rows fill the table's last page instead of landing among older runs' rows;
//! the index on `(run, last_seq)` finds a run's steps, and the steps holding the
//! events after a given seq.

use crewgraph_engine::ids::RunId;
use crewgraph_engine::run::seen::AgentContext;
use crewgraph_engine::run::{EventKind, Message, RunEvent, StepRecord, StoreError, Timestamp};
use rusqlite::{params, Connection, Row};
use serde_json::value::RawValue;

use super::runs::{self, timestamp};
use crate::error::{from_sql_int, to_sql_int, Fault};
use crate::store::SqliteStore;

pub(crate) const V1: &str = "
CREATE TABLE steps (
    number     INTEGER PRIMARY KEY,   -- in the order the steps were stored
    run        INTEGER NOT NULL REFERENCES runs (number) ON DELETE CASCADE,
    step       INTEGER NOT NULL,      -- 0 for the step the run was created with, then 1, 2 …
    first_seq  INTEGER,               -- its events' seqs; null for a step without events
    last_seq   INTEGER,
    written_at INTEGER NOT NULL,      -- ms since the epoch, when the store committed it
    events     TEXT NOT NULL,         -- JSON: [[timestamp, kind], …], seqs first_seq … last_seq
    history    TEXT NOT NULL          -- JSON: the messages it appended to the history, in order
);
CREATE INDEX steps_of_run ON steps (run, last_seq);
";

/// What the step's model calls were given (issue 18): a JSON array of the engine's
/// `AgentContext`s; null for steps stored before it was kept.
pub(crate) const V2: &str = "
ALTER TABLE steps ADD COLUMN contexts TEXT;
";

/// One stored step of a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredStep {
    /// 0 for the step the run was created with, then 1, 2 …
    pub step: u32,
    /// The `seq`s of its events, first and last; None for a step without events.
    pub seqs: Option<(u64, u64)>,
    /// When the store committed it.
    pub written_at: Timestamp,
}

/// A step's row as SQLite stores it, encoded by the caller before it reaches the writer.
#[derive(Clone, Debug)]
pub(crate) struct StepRow {
    /// The first and last seq, as SQLite integers; None without events.
    seqs: Option<(i64, i64)>,
    events: String,
    history: String,
    contexts: String,
}

impl StepRow {
    pub(crate) fn new(step: &StepRecord) -> Result<StepRow, Fault> {
        let seqs = match (step.events.first(), step.events.last()) {
            (Some(first), Some(last)) => Some((to_sql_int(first.seq, "the first seq")?, to_sql_int(last.seq, "the last seq")?)),
            _ => None,
        };
        let pairs: Vec<(u64, &EventKind)> = step.events.iter().map(|e| (e.timestamp.0, &e.kind)).collect();
        let events =
            serde_json::to_string(&pairs).map_err(|err| Fault::Unwritable(format!("the step's events do not encode as JSON: {err}")))?;
        let history = serde_json::to_string(&step.history)
            .map_err(|err| Fault::Unwritable(format!("the step's history messages do not encode as JSON: {err}")))?;
        let contexts = serde_json::to_string(&step.contexts)
            .map_err(|err| Fault::Unwritable(format!("what the step's agents were given does not encode as JSON: {err}")))?;
        Ok(StepRow { seqs, events, history, contexts })
    }
}

pub(crate) fn insert(conn: &Connection, run: i64, step: u32, row: &StepRow, written_at: Timestamp) -> Result<(), Fault> {
    let (first, last) = row.seqs.unzip();
    conn.prepare_cached(
        "INSERT INTO steps (run, step, first_seq, last_seq, written_at, events, history, contexts) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?
    .execute(params![run, step, first, last, to_sql_int(written_at.0, "the write time")?, row.events, row.history, row.contexts])?;
    Ok(())
}

/// The run's whole history: its steps' messages, step by step.
pub(crate) fn history(conn: &Connection, run: i64) -> Result<Vec<Message>, Fault> {
    let mut statement = conn.prepare_cached("SELECT step, history FROM steps WHERE run = ?1 ORDER BY step")?;
    let mut rows = statement.query([run])?;
    let mut history = Vec::new();
    let mut expected = 0u32;
    while let Some(row) = rows.next()? {
        let step: u32 = row.get(0)?;
        if step != expected {
            return Err(Fault::Unreadable(format!("step {expected} is missing")));
        }
        expected += 1;
        let text = text(row, 1, "history messages")?;
        let messages: Vec<Message> = serde_json::from_str(text)
            .map_err(|err| Fault::Unreadable(format!("the history messages of step {step} cannot be read: {err}")))?;
        history.extend(messages);
    }
    Ok(history)
}

/// What the run's model calls were given, step by step; None when no step kept it
/// (a run stored by a Crewgraph from before it was kept).
pub(crate) fn contexts(conn: &Connection, run: i64) -> Result<Option<Vec<AgentContext>>, Fault> {
    let mut statement = conn.prepare_cached("SELECT step, contexts FROM steps WHERE run = ?1 ORDER BY step")?;
    let mut rows = statement.query([run])?;
    let mut contexts = Vec::new();
    let mut kept = false;
    while let Some(row) = rows.next()? {
        let step: u32 = row.get(0)?;
        let Some(text) =
            row.get_ref(1)?.as_str_or_null().map_err(|err| Fault::Unreadable(format!("step {step}'s contexts are not text: {err}")))?
        else {
            continue;
        };
        kept = true;
        let read: Vec<AgentContext> = serde_json::from_str(text)
            .map_err(|err| Fault::Unreadable(format!("what the agents of step {step} were given cannot be read: {err}")))?;
        contexts.extend(read);
    }
    Ok(kept.then_some(contexts))
}

/// The run's events in `seq` order, only those after `after` when given: the steps
/// whose last seq is past it, the first of them cut at `after`.
pub(crate) fn events(conn: &Connection, run: i64, id: &RunId, after: Option<u64>) -> Result<Vec<RunEvent>, Fault> {
    // Every stored seq is at most i64::MAX, so a larger `after` leaves nothing.
    let after_sql = match after {
        None => -1,
        Some(after) => i64::try_from(after).unwrap_or(i64::MAX),
    };
    let mut statement = conn.prepare_cached("SELECT first_seq, events FROM steps WHERE run = ?1 AND last_seq > ?2 ORDER BY last_seq")?;
    let mut rows = statement.query(params![run, after_sql])?;
    let mut events = Vec::new();
    while let Some(row) = rows.next()? {
        let first: u64 = from_sql_int(row.get(0)?, "a first seq")?;
        let text = text(row, 1, "events")?;
        let pairs: Vec<(u64, &RawValue)> = serde_json::from_str(text)
            .map_err(|err| Fault::Unreadable(format!("the events from seq {first} of run '{id}' cannot be read: {err}")))?;
        for (offset, (timestamp, kind)) in pairs.into_iter().enumerate() {
            let seq = first + offset as u64;
            if after.is_some_and(|after| seq <= after) {
                continue;
            }
            let kind: EventKind = serde_json::from_str(kind.get())
                .map_err(|err| Fault::Unreadable(format!("event {seq} of run '{id}' cannot be read: {err}")))?;
            events.push(RunEvent { kind, run_id: id.clone(), seq, timestamp: Timestamp(timestamp) });
        }
    }
    Ok(events)
}

/// A JSON column, borrowed from its row.
fn text<'row>(row: &'row Row, at: usize, what: &str) -> Result<&'row str, Fault> {
    row.get_ref(at)?.as_str().map_err(|err| Fault::Unreadable(format!("a step's {what} are not text: {err}")))
}

fn load(conn: &Connection, run: i64) -> Result<Vec<StoredStep>, Fault> {
    let mut statement = conn.prepare_cached("SELECT step, first_seq, last_seq, written_at FROM steps WHERE run = ?1 ORDER BY step")?;
    let mut rows = statement.query([run])?;
    let mut steps = Vec::new();
    while let Some(row) = rows.next()? {
        let first: Option<i64> = row.get(1)?;
        let last: Option<i64> = row.get(2)?;
        let seqs = match (first, last) {
            (Some(first), Some(last)) => Some((from_sql_int(first, "a first seq")?, from_sql_int(last, "a last seq")?)),
            _ => None,
        };
        steps.push(StoredStep { step: row.get(0)?, seqs, written_at: timestamp(row, 3, "a write time")? });
    }
    Ok(steps)
}

impl SqliteStore {
    /// The stored steps of a run, in order. `NoSuchRun` for an unknown run.
    pub async fn steps(&self, id: &RunId) -> Result<Vec<StoredStep>, StoreError> {
        let id = id.clone();
        self.read(format!("read the steps of run '{id}'"), move |conn| {
            let number = runs::number(conn, &id)?.ok_or_else(|| StoreError::NoSuchRun(id.clone()))?;
            load(conn, number)
        })
        .await
    }
}
