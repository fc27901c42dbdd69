//! Writing one step: the checks of the `RunStore` contract, then exactly one row
//! in `steps` (the step's events and history messages) and one UPDATE of the run's
//! snapshot. Nothing already stored is written again, so a step costs the same at
//! turn 10 and at turn 10,000.
//!
//! The caller's task does all it can before the writer is involved
//! ([`EncodedStep::new`]): it encodes the rows (JSON) and checks that the step
//! agrees with itself — its events' seqs follow each other from the first, they
//! belong to its run, its snapshot counts them and its messages. What is left for
//! the writer is whether the step continues the run *as stored*: the UPDATE of the
//! run's row only matches when the run's next seq and history length are where the
//! step starts ([`runs::advance`]). A step that does not continue its run is
//! refused before anything of it is written; one that does writes two statements.

use crewgraph_engine::ids::RunId;
use crewgraph_engine::run::memory::check_continues;
use crewgraph_engine::run::{RunRecord, StepRecord, StoreError, Timestamp};
use rusqlite::Connection;

use crate::error::Fault;
use crate::tables::runs::{self, Position, SnapshotRow};
use crate::tables::steps::{self, StepRow};

/// A step checked against itself and encoded, ready for the writer.
pub(crate) struct EncodedStep {
    run_id: RunId,
    /// Where the run must stand for this step to continue it.
    from: Position,
    /// How many events and messages the step adds (to explain a refusal).
    events: u64,
    messages: u32,
    row: StepRow,
    snapshot: SnapshotRow,
}

impl EncodedStep {
    /// Encodes `step` of run `id`, refusing it (`OutOfOrder`) when it does not
    /// agree with itself.
    pub(crate) fn new(id: &RunId, step: &StepRecord) -> Result<EncodedStep, Fault> {
        let messages = u32::try_from(step.history.len()).unwrap_or(u32::MAX);
        let events = step.events.len() as u64;
        let next_seq = step.events.first().map_or(step.snapshot.next_seq, |first| first.seq);
        let history_len = step.snapshot.history_len.checked_sub(messages).ok_or_else(|| StoreError::OutOfOrder {
            run: id.clone(),
            detail: format!("snapshot says {} history entries, the step alone adds {messages}", step.snapshot.history_len),
        })?;
        // The step against itself, as if the run stood where it starts.
        check_continues(id, next_seq, history_len, step)?;
        Ok(EncodedStep {
            run_id: id.clone(),
            from: Position { next_seq, history_len },
            events,
            messages,
            row: StepRow::new(step)?,
            snapshot: SnapshotRow::new(&step.snapshot, step.options.clone())?,
        })
    }

    /// Why the step does not continue a run standing at `stored`, in the words of
    /// the engine's own check.
    fn refusal(&self, stored: Position) -> StoreError {
        let detail = if stored.next_seq != self.from.next_seq {
            if self.events > 0 {
                format!("event seq {} of run '{}' where seq {} was due", self.from.next_seq, self.run_id, stored.next_seq)
            } else {
                format!("snapshot says next seq {}, the events end at {}", self.from.next_seq, stored.next_seq)
            }
        } else {
            format!(
                "snapshot says {} history entries, the store will have {}",
                self.from.history_len + self.messages,
                stored.history_len + self.messages
            )
        };
        StoreError::OutOfOrder { run: self.run_id.clone(), detail }
    }
}

/// Stores a new run with its first step (step 0). `AlreadyExists`, with nothing
/// written, for a known id.
pub(crate) fn create(conn: &Connection, record: &RunRecord, first: &EncodedStep, now: Timestamp) -> Result<(), Fault> {
    let nothing = Position { next_seq: 0, history_len: 0 };
    if first.from != nothing {
        return Err(first.refusal(nothing).into());
    }
    let number = runs::insert(conn, record, &first.snapshot)?.ok_or_else(|| StoreError::AlreadyExists(record.id.clone()))?;
    steps::insert(conn, number, 0, &first.row, now)
}

/// Appends a step to a stored run, if it continues the run as stored; otherwise
/// `OutOfOrder` (or `NoSuchRun`) with nothing written.
pub(crate) fn append(conn: &Connection, step: &EncodedStep, now: Timestamp) -> Result<(), Fault> {
    let Some((number, at)) = runs::advance(conn, &step.run_id, step.from, &step.snapshot)? else {
        // Nothing was written; say why.
        let stored = runs::position(conn, &step.run_id)?.ok_or_else(|| StoreError::NoSuchRun(step.run_id.clone()))?;
        return Err(step.refusal(stored).into());
    };
    steps::insert(conn, number, at, &step.row, now)
}
