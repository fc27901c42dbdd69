//! Writing one step: the checks of the `RunStore` contract, then one statement
//! that moves the run's snapshot, inserts the step's row and inserts all its
//! events with one multi-row INSERT (`unnest` of two arrays) — one round trip and
//! one transaction per step, whatever the step holds.
//!
//! The caller's task does all it can before the server is involved
//! ([`EncodedStep::new`]): it encodes the JSON and checks that the step agrees
//! with itself — its events' seqs follow each other from the first, they belong to
//! its run, its snapshot counts them and its messages. What is left for the server
//! is whether the step continues the run *as stored*.
//!
//! # Two writers on one run
//!
//! The statement's UPDATE only matches the run's row when the run stands where the
//! step starts (`WHERE id = $1 AND next_seq = $2 AND history_len = $3`), and the
//! inserts take their run number from the UPDATE's result: no match, nothing
//! inserted. Of two writers continuing one run at the same seq, the UPDATE of the
//! first locks the row; the second waits on that row lock, and once the first
//! commits PostgreSQL evaluates the second's WHERE again on the row as the first
//! left it (READ COMMITTED's re-check of a locked row), which no longer matches. So
//! exactly one wins, and the other gets `OutOfOrder` with nothing written. This is
//! row locking without a separate `SELECT … FOR UPDATE` round trip, and needs no
//! retry loop, which a SERIALIZABLE transaction would.

use crewgraph_engine::ids::RunId;
use crewgraph_engine::run::memory::check_continues;
use crewgraph_engine::run::{EventKind, RunRecord, RunSnapshot, StepRecord, StoreError};
use tokio_postgres::types::ToSql;

use crate::error::{to_sql_int, Fault};
use crate::tables::runs::{self, Position};

/// Stores a new run and its first step (step 0); no row when the id is taken.
/// The run's crew revision is the one of its crew with the run's fingerprint.
/// A step's `written_at` is the server's time (ms since the epoch).
pub(crate) const CREATE: &str = "WITH run AS (
    INSERT INTO runs (id, crew_name, crew_path, crew_fingerprint, input, created_at, forked_from, forked_at,
                      status, current_agent, handoffs, steps, next_seq, strikes, recent, history_len, error, updated_at,
                      input_tokens, output_tokens, cost_usd, stored_steps, crew_revision, options)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8,
            $9, $10, $11, $12, $13, $14, $15::text::json, $16, $17, $18, $19, $20, $21, 1,
            (SELECT r.revision FROM crew_revisions r JOIN crews c ON c.id = r.crew
             WHERE c.path = $3 AND r.fingerprint = $4), $27)
    ON CONFLICT (id) DO NOTHING
    RETURNING number
), step AS (
    INSERT INTO steps (run, step, written_at, history, contexts)
    SELECT number, 0, (extract(epoch FROM statement_timestamp()) * 1000)::bigint, $22::text::json, $23::text::json FROM run
), events AS (
    INSERT INTO events (run, seq, at, kind)
    SELECT run.number, $24::bigint + e.n - 1, e.at, e.kind::json
    FROM run, unnest($25::bigint[], $26::text[]) WITH ORDINALITY AS e(at, kind, n)
)
SELECT number FROM run";

/// Appends a step if the run stands where it starts; no row otherwise.
pub(crate) const APPEND: &str = "WITH run AS (
    UPDATE runs SET status = $4, current_agent = $5, handoffs = $6, steps = $7, next_seq = $8, strikes = $9,
                    recent = $10::text::json, history_len = $11, error = $12, updated_at = $13,
                    input_tokens = $14, output_tokens = $15, cost_usd = $16, stored_steps = stored_steps + 1,
                    options = COALESCE($21, options)
    WHERE id = $1 AND next_seq = $2::bigint AND history_len = $3::bigint
    RETURNING number, stored_steps - 1 AS step
), step AS (
    INSERT INTO steps (run, step, written_at, history, contexts)
    SELECT number, step, (extract(epoch FROM statement_timestamp()) * 1000)::bigint, $17::text::json, $18::text::json FROM run
), events AS (
    INSERT INTO events (run, seq, at, kind)
    SELECT run.number, $2::bigint + e.n - 1, e.at, e.kind::json
    FROM run, unnest($19::bigint[], $20::text[]) WITH ORDINALITY AS e(at, kind, n)
)
SELECT number FROM run";

/// A snapshot's fields as the `runs` table keeps them.
#[derive(Debug)]
struct SnapshotRow {
    status: &'static str,
    current_agent: String,
    handoffs: i64,
    steps: i64,
    next_seq: i64,
    strikes: i64,
    recent: String,
    history_len: i64,
    error: Option<String>,
    updated_at: i64,
    input_tokens: i64,
    output_tokens: i64,
    cost_usd: Option<f64>,
}

impl SnapshotRow {
    fn new(s: &RunSnapshot) -> Result<SnapshotRow, Fault> {
        let recent =
            serde_json::to_string(&s.recent).map_err(|err| Fault::Unwritable(format!("the recent turns do not encode as JSON: {err}")))?;
        Ok(SnapshotRow {
            status: s.status.as_str(),
            current_agent: s.current_agent.to_string(),
            handoffs: s.handoffs.into(),
            steps: s.steps.into(),
            next_seq: to_sql_int(s.next_seq, "the next seq")?,
            strikes: s.strikes.into(),
            recent,
            history_len: s.history_len.into(),
            error: s.error.clone(),
            updated_at: to_sql_int(s.updated_at.0, "the update time")?,
            input_tokens: s.tokens.input_tokens.into(),
            output_tokens: s.tokens.output_tokens.into(),
            cost_usd: s.tokens.cost_usd,
        })
    }

    /// Its fields in the order of the statements' parameters.
    fn params(&self) -> [&(dyn ToSql + Sync); 13] {
        [
            &self.status,
            &self.current_agent,
            &self.handoffs,
            &self.steps,
            &self.next_seq,
            &self.strikes,
            &self.recent,
            &self.history_len,
            &self.error,
            &self.updated_at,
            &self.input_tokens,
            &self.output_tokens,
            &self.cost_usd,
        ]
    }
}

/// A step checked against itself and encoded, ready for the server.
#[derive(Debug)]
pub(crate) struct EncodedStep {
    run_id: String,
    /// Where the run must stand for this step to continue it.
    from: Position,
    from_seq: i64,
    from_history: i64,
    /// How many events and messages the step adds (to explain a refusal).
    events: u64,
    messages: u32,
    snapshot: SnapshotRow,
    history: String,
    contexts: String,
    /// Each event's time and kind (JSON), in seq order.
    ats: Vec<i64>,
    kinds: Vec<String>,
    /// How the leg the step opens is to be executed; None keeps the stored options.
    options: Option<String>,
}

impl EncodedStep {
    /// Encodes `step` of run `id`, refusing it (`OutOfOrder`) when it does not
    /// agree with itself.
    pub(crate) fn new(id: &RunId, step: &StepRecord) -> Result<EncodedStep, Fault> {
        let messages = u32::try_from(step.history.len()).unwrap_or(u32::MAX);
        let next_seq = step.events.first().map_or(step.snapshot.next_seq, |first| first.seq);
        let history_len = step.snapshot.history_len.checked_sub(messages).ok_or_else(|| StoreError::OutOfOrder {
            run: id.clone(),
            detail: format!("snapshot says {} history entries, the step alone adds {messages}", step.snapshot.history_len),
        })?;
        // The step against itself, as if the run stood where it starts.
        check_continues(id, next_seq, history_len, step)?;
        let unwritable = |what: &str, err: serde_json::Error| Fault::Unwritable(format!("{what} do not encode as JSON: {err}"));
        let mut ats = Vec::with_capacity(step.events.len());
        let mut kinds = Vec::with_capacity(step.events.len());
        for event in &step.events {
            ats.push(to_sql_int(event.timestamp.0, "an event's time")?);
            kinds.push(serde_json::to_string::<EventKind>(&event.kind).map_err(|err| unwritable("the step's events", err))?);
        }
        Ok(EncodedStep {
            run_id: id.to_string(),
            from: Position { next_seq, history_len },
            from_seq: to_sql_int(next_seq, "the first seq")?,
            from_history: history_len.into(),
            events: step.events.len() as u64,
            messages,
            snapshot: SnapshotRow::new(&step.snapshot)?,
            history: serde_json::to_string(&step.history).map_err(|err| unwritable("the step's history messages", err))?,
            contexts: serde_json::to_string(&step.contexts).map_err(|err| unwritable("what the step's agents were given", err))?,
            ats,
            kinds,
            options: step.options.clone(),
        })
    }

    /// Whether the step is a first step: it starts at seq 0 with no history.
    pub(crate) fn check_first(&self) -> Result<(), StoreError> {
        let nothing = Position { next_seq: 0, history_len: 0 };
        if self.from != nothing {
            return Err(self.refusal(nothing));
        }
        Ok(())
    }

    /// The parameters of [`CREATE`], with the run's `record` (its fork point
    /// among them) encoded beside.
    pub(crate) fn create_params<'a>(&'a self, record: &'a RecordRow) -> Vec<&'a (dyn ToSql + Sync)> {
        let mut params: Vec<&(dyn ToSql + Sync)> = vec![
            &self.run_id,
            &record.crew_name,
            &record.crew_path,
            &record.crew_fingerprint,
            &record.input,
            &record.created_at,
            &record.forked_from,
            &record.forked_at,
        ];
        params.extend(self.snapshot.params());
        params.extend([&self.history as &(dyn ToSql + Sync), &self.contexts, &self.from_seq, &self.ats, &self.kinds, &self.options]);
        params
    }

    /// The parameters of [`APPEND`].
    pub(crate) fn append_params(&self) -> Vec<&(dyn ToSql + Sync)> {
        let mut params: Vec<&(dyn ToSql + Sync)> = vec![&self.run_id, &self.from_seq, &self.from_history];
        params.extend(self.snapshot.params());
        params.extend([&self.history as &(dyn ToSql + Sync), &self.contexts, &self.ats, &self.kinds, &self.options]);
        params
    }

    /// Why the step does not continue a run standing at `stored`, in the words of
    /// the engine's own check.
    pub(crate) fn refusal(&self, stored: Position) -> StoreError {
        let detail = if stored.next_seq != self.from.next_seq {
            if self.events > 0 {
                format!("event seq {} of run '{}' where seq {} was due", self.from.next_seq, self.run_id, stored.next_seq)
            } else {
                format!("snapshot says next seq {}, the events end at {}", self.from.next_seq, stored.next_seq)
            }
        } else if stored.history_len != self.from.history_len {
            format!(
                "snapshot says {} history entries, the store will have {}",
                self.from.history_len + self.messages,
                stored.history_len + self.messages
            )
        } else {
            // It stood right when this step was checked, and another writer moved it first.
            format!("another writer stored a step at seq {} first", self.from.next_seq)
        };
        StoreError::OutOfOrder { run: RunId::new(self.run_id.clone()), detail }
    }
}

/// A run's record as the `runs` table keeps it.
#[derive(Debug)]
pub(crate) struct RecordRow {
    crew_name: String,
    crew_path: Option<String>,
    crew_fingerprint: String,
    input: String,
    created_at: i64,
    forked_from: Option<String>,
    forked_at: Option<i64>,
}

impl RecordRow {
    pub(crate) fn new(record: &RunRecord) -> Result<RecordRow, Fault> {
        Ok(RecordRow {
            crew_name: record.crew_name.clone(),
            crew_path: record.crew_path.clone(),
            crew_fingerprint: record.crew_fingerprint.clone(),
            input: record.input.clone(),
            created_at: to_sql_int(record.created_at.0, "the creation time")?,
            forked_from: record.forked_from.as_ref().map(|f| f.run_id.to_string()),
            forked_at: record.forked_from.as_ref().map(|f| to_sql_int(f.seq, "the fork's seq")).transpose()?,
        })
    }
}

/// Reads where a run stands after its step was not taken: `NoSuchRun` when it is
/// unknown, else why the step does not continue it.
pub(crate) fn refused(step: &EncodedStep, position: Option<&tokio_postgres::Row>) -> Fault {
    match position {
        None => Fault::Refused(StoreError::NoSuchRun(RunId::new(step.run_id.clone()))),
        Some(row) => match runs::position(row) {
            Ok(stored) => Fault::Refused(step.refusal(stored)),
            Err(fault) => fault,
        },
    }
}
