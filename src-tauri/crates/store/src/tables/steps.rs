//! The `steps` table: one row per stored step — which events it wrote and when —
//! so a run's history of writes can be audited (what did the last step before a
//! crash hold?) without reading the events.

use crewgraph_engine::ids::RunId;
use crewgraph_engine::run::Timestamp;
use rusqlite::{params, Connection};

use super::runs::{self, timestamp};
use crate::error::{from_sql_int, to_sql_int, Fault};
use crate::store::SqliteStore;

pub(crate) const V1: &str = "
CREATE TABLE steps (
    run        INTEGER NOT NULL REFERENCES runs (number) ON DELETE CASCADE,
    step       INTEGER NOT NULL,   -- 0 for the step the run was created with, then 1, 2 …
    first_seq  INTEGER,            -- its events' seqs; null for a step without events
    last_seq   INTEGER,
    written_at INTEGER NOT NULL,   -- ms since the epoch, when the store committed it
    PRIMARY KEY (run, step)
) WITHOUT ROWID;
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

pub(crate) fn insert(conn: &Connection, run: i64, step: u32, seqs: Option<(u64, u64)>, written_at: Timestamp) -> Result<(), Fault> {
    let (first, last) = match seqs {
        Some((first, last)) => (Some(to_sql_int(first, "the first seq")?), Some(to_sql_int(last, "the last seq")?)),
        None => (None, None),
    };
    conn.prepare_cached("INSERT INTO steps (run, step, first_seq, last_seq, written_at) VALUES (?1, ?2, ?3, ?4, ?5)")?
        .execute(params![run, step, first, last, to_sql_int(written_at.0, "the write time")?])?;
    Ok(())
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
    pub async fn steps(&self, id: &RunId) -> Result<Vec<StoredStep>, crewgraph_engine::run::StoreError> {
        let id = id.clone();
        self.read(format!("read the steps of run '{id}'"), move |conn| {
            let at = runs::position(conn, &id)?.ok_or(crewgraph_engine::run::StoreError::NoSuchRun(id.clone()))?;
            load(conn, at.number)
        })
        .await
    }
}
