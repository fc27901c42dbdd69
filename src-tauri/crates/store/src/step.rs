//! Writing one step: the checks of the `RunStore` contract, then exactly the rows
//! the step adds — one per event, one per history message, one in `steps` — and
//! one UPDATE of the run's snapshot. Nothing already stored is written again, so
//! a step costs the same at turn 10 and at turn 10,000.
//!
//! A step is encoded ([`EncodedStep::new`]) by the caller, on its own task, so the
//! writer thread only checks and inserts. Both functions run inside the writer's
//! savepoint for the request: an error leaves nothing of the step behind.

use crewgraph_engine::run::memory::check_continues;
use crewgraph_engine::run::{RunRecord, StepRecord, StoreError, Timestamp};
use rusqlite::Connection;

use crate::error::Fault;
use crate::tables::events::{self, EventRow};
use crate::tables::runs::{self, SnapshotRow};
use crate::tables::{history, steps};

/// A step with its rows encoded, ready for the writer.
pub(crate) struct EncodedStep {
    step: StepRecord,
    events: Vec<EventRow>,
    history: Vec<String>,
    snapshot: SnapshotRow,
}

impl EncodedStep {
    pub(crate) fn new(step: &StepRecord) -> Result<EncodedStep, Fault> {
        Ok(EncodedStep {
            events: step.events.iter().map(EventRow::new).collect::<Result<_, _>>()?,
            history: step.history.iter().map(history::encode).collect::<Result<_, _>>()?,
            snapshot: SnapshotRow::new(&step.snapshot)?,
            step: step.clone(),
        })
    }
}

/// Stores a new run with its first step (step 0).
pub(crate) fn create(conn: &Connection, record: &RunRecord, first: &EncodedStep, now: Timestamp) -> Result<(), Fault> {
    check_continues(&record.id, 0, 0, &first.step)?;
    if runs::position(conn, &record.id)?.is_some() {
        return Err(StoreError::AlreadyExists(record.id.clone()).into());
    }
    let number = runs::insert(conn, record, &first.snapshot)?;
    insert_rows(conn, number, 0, 0, first, now)
}

/// Appends a step to a stored run, after checking it continues the run.
pub(crate) fn append(conn: &Connection, step: &EncodedStep, now: Timestamp) -> Result<(), Fault> {
    let id = &step.step.run_id;
    let at = runs::position(conn, id)?.ok_or_else(|| StoreError::NoSuchRun(id.clone()))?;
    check_continues(id, at.next_seq, at.history_len, &step.step)?;
    insert_rows(conn, at.number, at.stored_steps, at.history_len, step, now)?;
    runs::update_snapshot(conn, at.number, &step.snapshot, at.stored_steps + 1)
}

/// The step's own rows: its events, its history messages, its `steps` row.
fn insert_rows(conn: &Connection, run: i64, number: u32, history_len: u32, step: &EncodedStep, now: Timestamp) -> Result<(), Fault> {
    for event in &step.events {
        events::insert(conn, run, event)?;
    }
    for (offset, body) in step.history.iter().enumerate() {
        history::insert(conn, run, history_len + offset as u32, body)?;
    }
    let seqs = match (step.step.events.first(), step.step.events.last()) {
        (Some(first), Some(last)) => Some((first.seq, last.seq)),
        _ => None,
    };
    steps::insert(conn, run, number, seqs, now)
}
