//! The `runs` table: one row per run — how it started (the [`RunRecord`], written
//! once) and where it stands (the [`RunSnapshot`], one small UPDATE per step).
//!
//! The row's `number` (SQLite's rowid) is the key of the run's rows in `steps`,
//! and orders runs created in the same millisecond. A step moves the snapshot
//! only if the run still stands where the step starts (`next_seq`,
//! `history_len`), in the same UPDATE ([`advance`]); `stored_steps` numbers the
//! next row in `steps`.

use crewgraph_engine::ids::{AgentId, RunId};
use crewgraph_engine::run::{ForkPoint, Lease, LeaseOutcome, RunRecord, RunSnapshot, RunStatus, RunSummary, Timestamp, Turn, Usage};
use rusqlite::{params, Connection, OptionalExtension, Row};

use crate::error::{from_sql_int, to_sql_int, Fault};

pub(crate) const V1: &str = "
CREATE TABLE runs (
    number           INTEGER PRIMARY KEY,
    id               TEXT NOT NULL UNIQUE,
    crew_name        TEXT NOT NULL,
    crew_path        TEXT,
    crew_fingerprint TEXT NOT NULL,
    input            TEXT NOT NULL,
    created_at       INTEGER NOT NULL,   -- ms since the epoch
    -- the snapshot, rewritten by each step
    status           TEXT NOT NULL,      -- snake_case RunStatus
    current_agent    TEXT NOT NULL,
    handoffs         INTEGER NOT NULL,
    steps            INTEGER NOT NULL,
    next_seq         INTEGER NOT NULL,
    strikes          INTEGER NOT NULL,
    recent           TEXT NOT NULL,      -- JSON array of turns
    history_len      INTEGER NOT NULL,
    error            TEXT,
    updated_at       INTEGER NOT NULL,
    -- how many rows the run has in `steps`: the number its next step gets
    stored_steps     INTEGER NOT NULL
);
CREATE INDEX runs_by_created_at ON runs (created_at);
";

/// The tokens a run's agents used (the providers' usage) and what they cost (when
/// the models' prices are known), kept with its snapshot.
pub(crate) const V2: &str = "
ALTER TABLE runs ADD COLUMN input_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN output_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN cost_usd REAL;
";

/// The revision of its crew each run ran: the crew's revision (`crew_revisions`)
/// whose fingerprint is the run's, found when the run is stored ([`insert`]) —
/// the host keeps the crew's version as a revision before it starts a run. Runs
/// stored before this column get theirs here when their crew had such a revision.
pub(crate) const V3: &str = "
ALTER TABLE runs ADD COLUMN crew_revision INTEGER;
UPDATE runs SET crew_revision = (
    SELECT r.revision FROM crew_revisions r JOIN crews c ON c.id = r.crew
    WHERE c.path = runs.crew_path AND r.fingerprint = runs.crew_fingerprint
);
";

/// The run a run was forked from, and the `seq` of the reply replaced there.
pub(crate) const V4: &str = "
ALTER TABLE runs ADD COLUMN forked_from TEXT;
ALTER TABLE runs ADD COLUMN forked_at INTEGER;
";

/// The run's lease: the executor running it (a worker's name) and when its lease
/// runs out (ms since the epoch, the system clock); both NULL when nobody holds it.
/// Runs stored before leases existed are held by nobody.
pub(crate) const V5: &str = "
ALTER TABLE runs ADD COLUMN lease_owner TEXT;
ALTER TABLE runs ADD COLUMN lease_expires_at INTEGER;
";

/// How a run's latest queued leg is to be executed (the host's run options, as the
/// step that opened the leg gave them; docs/scale-out.md). NULL when no step gave any.
pub(crate) const V6: &str = "
ALTER TABLE runs ADD COLUMN options TEXT;
";

/// Where a stored run stands: what its next step must continue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Position {
    /// The seq its next event gets.
    pub(crate) next_seq: u64,
    /// How many messages its history has.
    pub(crate) history_len: u32,
}

/// A snapshot's fields as SQLite stores them, encoded before they reach the writer.
#[derive(Clone, Debug)]
pub(crate) struct SnapshotRow {
    pub(crate) snapshot: RunSnapshot,
    recent: String,
    /// The step's options for the leg it opens; None keeps the stored ones.
    options: Option<String>,
}

impl SnapshotRow {
    pub(crate) fn new(snapshot: &RunSnapshot, options: Option<String>) -> Result<SnapshotRow, Fault> {
        let recent = serde_json::to_string(&snapshot.recent)
            .map_err(|err| Fault::Unwritable(format!("the recent turns do not encode as JSON: {err}")))?;
        Ok(SnapshotRow { snapshot: snapshot.clone(), recent, options })
    }
}

/// The run's row number, the key of its rows in the other tables; None if unknown.
pub(crate) fn number(conn: &Connection, id: &RunId) -> Result<Option<i64>, Fault> {
    Ok(conn.prepare_cached("SELECT number FROM runs WHERE id = ?1")?.query_row([id.as_str()], |row| row.get(0)).optional()?)
}

/// Where the run stands; None if unknown.
pub(crate) fn position(conn: &Connection, id: &RunId) -> Result<Option<Position>, Fault> {
    let row = conn
        .prepare_cached("SELECT next_seq, history_len FROM runs WHERE id = ?1")?
        .query_row([id.as_str()], |row| Ok((row.get::<_, i64>(0)?, row.get::<_, i64>(1)?)))
        .optional()?;
    let Some((next_seq, history_len)) = row else { return Ok(None) };
    Ok(Some(Position { next_seq: from_sql_int(next_seq, "the next seq")?, history_len: from_sql_int(history_len, "the history length")? }))
}

/// Adds a run with the snapshot of its first step (step 0) and returns its row
/// number; None, with nothing written, when a run with its id is already stored.
/// The run's crew revision is the one of its crew with the run's fingerprint ([`V3`]).
pub(crate) fn insert(conn: &Connection, record: &RunRecord, first: &SnapshotRow) -> Result<Option<i64>, Fault> {
    let s = &first.snapshot;
    let added = conn
        .prepare_cached(
            "INSERT INTO runs (id, crew_name, crew_path, crew_fingerprint, input, created_at,
                               status, current_agent, handoffs, steps, next_seq, strikes, recent, history_len, error, updated_at,
                               input_tokens, output_tokens, cost_usd, stored_steps, crew_revision, forked_from, forked_at, options)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, 1,
                     (SELECT r.revision FROM crew_revisions r JOIN crews c ON c.id = r.crew
                      WHERE c.path = ?3 AND r.fingerprint = ?4), ?20, ?21, ?22)
             ON CONFLICT (id) DO NOTHING",
        )?
        .execute(params![
            record.id.as_str(),
            record.crew_name,
            record.crew_path,
            record.crew_fingerprint,
            record.input,
            to_sql_int(record.created_at.0, "the creation time")?,
            s.status.as_str(),
            s.current_agent.as_str(),
            s.handoffs,
            s.steps,
            to_sql_int(s.next_seq, "the next seq")?,
            s.strikes,
            first.recent,
            s.history_len,
            s.error,
            to_sql_int(s.updated_at.0, "the update time")?,
            s.tokens.input_tokens,
            s.tokens.output_tokens,
            s.tokens.cost_usd,
            record.forked_from.as_ref().map(|f| f.run_id.as_str()),
            record.forked_from.as_ref().map(|f| to_sql_int(f.seq, "the fork's seq")).transpose()?,
            first.options,
        ])?;
    Ok((added > 0).then(|| conn.last_insert_rowid()))
}

/// Moves a run to the snapshot after its next step — only if the run stands where
/// the step starts (`from`), in the same statement, so a step cannot land on a run
/// that moved on. Returns the run's row number and the number the step gets; None,
/// with nothing written, when the run stands elsewhere or is unknown.
pub(crate) fn advance(conn: &Connection, id: &RunId, from: Position, row: &SnapshotRow) -> Result<Option<(i64, u32)>, Fault> {
    let s = &row.snapshot;
    let moved = conn
        .prepare_cached(
            "UPDATE runs SET status = ?4, current_agent = ?5, handoffs = ?6, steps = ?7, next_seq = ?8, strikes = ?9,
                             recent = ?10, history_len = ?11, error = ?12, updated_at = ?13,
                             input_tokens = ?14, output_tokens = ?15, cost_usd = ?16, stored_steps = stored_steps + 1
             WHERE id = ?1 AND next_seq = ?2 AND history_len = ?3
             RETURNING number, stored_steps - 1",
        )?
        .query_row(
            params![
                id.as_str(),
                to_sql_int(from.next_seq, "the next seq")?,
                from.history_len,
                s.status.as_str(),
                s.current_agent.as_str(),
                s.handoffs,
                s.steps,
                to_sql_int(s.next_seq, "the next seq")?,
                s.strikes,
                row.recent,
                s.history_len,
                s.error,
                to_sql_int(s.updated_at.0, "the update time")?,
                s.tokens.input_tokens,
                s.tokens.output_tokens,
                s.tokens.cost_usd,
            ],
            |row| Ok((row.get::<_, i64>(0)?, row.get::<_, i64>(1)?)),
        )
        .optional()?;
    let Some((number, step)) = moved else { return Ok(None) };
    if let Some(options) = &row.options {
        // Only a step that opens a queued leg has options: a statement of its own, in
        // the same transaction, so every other step's UPDATE stays as it was.
        conn.prepare_cached("UPDATE runs SET options = ?2 WHERE number = ?1")?.execute(params![number, options])?;
    }
    Ok(Some((number, from_sql_int(step, "the count of stored steps")?)))
}

/// Moves the run to `running` if its status is one of `from`, in one statement.
/// `None` when there is no such run.
pub(crate) fn claim(conn: &Connection, id: &RunId, from: &[RunStatus]) -> Result<Option<bool>, Fault> {
    let names: Vec<&str> = from.iter().map(|s| s.as_str()).collect();
    let from_json = serde_json::to_string(&names).map_err(|err| Fault::Unwritable(err.to_string()))?;
    let moved = conn
        .prepare_cached("UPDATE runs SET status = 'running' WHERE id = ?1 AND status IN (SELECT value FROM json_each(?2))")?
        .execute(params![id.as_str(), from_json])?;
    if moved > 0 {
        return Ok(Some(true));
    }
    Ok(number(conn, id)?.map(|_| false))
}

/// Leases the run to `owner` until `now + ttl_ms` if nobody holds it, `owner` does,
/// or the holder's lease ran out by `now` — one UPDATE, so two executors asking at
/// once cannot both be granted it. Otherwise the holder's lease, read in the same
/// transaction. `None` when there is no such run.
pub(crate) fn lease(conn: &Connection, id: &RunId, owner: &str, now: Timestamp, ttl_ms: u64) -> Result<Option<LeaseOutcome>, Fault> {
    let expires_at = Timestamp(now.0.saturating_add(ttl_ms));
    let granted = conn
        .prepare_cached(
            "UPDATE runs SET lease_owner = ?2, lease_expires_at = ?3
             WHERE id = ?1 AND (lease_owner IS NULL OR lease_owner = ?2 OR lease_expires_at <= ?4)",
        )?
        .execute(params![id.as_str(), owner, to_sql_int(expires_at.0, "the lease's expiry")?, to_sql_int(now.0, "the time")?])?;
    if granted > 0 {
        return Ok(Some(LeaseOutcome::Granted(Lease { owner: owner.to_owned(), expires_at })));
    }
    let held = conn
        .prepare_cached("SELECT lease_owner, lease_expires_at FROM runs WHERE id = ?1")?
        .query_row([id.as_str()], |row| Ok((row.get::<_, Option<String>>(0)?, row.get::<_, Option<i64>>(1)?)))
        .optional()?;
    match held {
        None => Ok(None),
        Some((Some(owner), Some(expires_at))) => {
            Ok(Some(LeaseOutcome::Held(Lease { owner, expires_at: Timestamp(from_sql_int(expires_at, "the lease's expiry")?) })))
        }
        // The UPDATE grants a run nobody holds, so a refused one has a holder.
        Some(_) => Err(Fault::Unreadable("the run's lease has a holder without an expiry, or an expiry without a holder".into())),
    }
}

/// Ends `owner`'s lease on the run: true when it held it, false when it did not
/// (nothing changes); `None` when there is no such run.
pub(crate) fn release(conn: &Connection, id: &RunId, owner: &str) -> Result<Option<bool>, Fault> {
    let released = conn
        .prepare_cached("UPDATE runs SET lease_owner = NULL, lease_expires_at = NULL WHERE id = ?1 AND lease_owner = ?2")?
        .execute(params![id.as_str(), owner])?;
    if released > 0 {
        return Ok(Some(true));
    }
    Ok(number(conn, id)?.map(|_| false))
}

/// A stored run as its row has it.
pub(crate) struct Loaded {
    /// Its row number, the key of its rows in the other tables.
    pub(crate) number: i64,
    pub(crate) record: RunRecord,
    pub(crate) snapshot: RunSnapshot,
    /// How its latest queued leg is to be executed.
    pub(crate) options: Option<String>,
}

/// A run's record, snapshot and options, with its row number; None if unknown.
pub(crate) fn load(conn: &Connection, id: &RunId) -> Result<Option<Loaded>, Fault> {
    let mut statement = conn.prepare_cached(
        "SELECT number, id, crew_name, crew_path, crew_fingerprint, input, created_at,
                status, current_agent, handoffs, steps, next_seq, strikes, recent, history_len, error, updated_at,
                input_tokens, output_tokens, cost_usd, forked_from, forked_at, options
         FROM runs WHERE id = ?1",
    )?;
    let mut rows = statement.query([id.as_str()])?;
    let Some(row) = rows.next()? else { return Ok(None) };
    let record = RunRecord {
        id: RunId::new(row.get::<_, String>(1)?),
        crew_name: row.get(2)?,
        crew_path: row.get(3)?,
        crew_fingerprint: row.get(4)?,
        input: row.get(5)?,
        created_at: timestamp(row, 6, "the creation time")?,
        forked_from: fork_point(row, 20)?,
    };
    Ok(Some(Loaded { number: row.get(0)?, record, snapshot: snapshot(row, 7)?, options: row.get(22)? }))
}

/// The running runs opened for another executor (with options) that nobody holds at
/// `now` (no lease, or one run out), oldest first.
pub(crate) fn runnable(conn: &Connection, now: Timestamp) -> Result<Vec<RunId>, Fault> {
    let mut statement = conn.prepare_cached(
        "SELECT id FROM runs WHERE status = 'running' AND options IS NOT NULL AND (lease_owner IS NULL OR lease_expires_at <= ?1)
         ORDER BY created_at, number",
    )?;
    let ids = statement.query_map([to_sql_int(now.0, "the time")?], |row| row.get::<_, String>(0))?;
    Ok(ids.map(|id| id.map(RunId::new)).collect::<Result<_, _>>()?)
}

/// Every run, newest first (by creation time, then by the order they were stored).
pub(crate) fn list(conn: &Connection) -> Result<Vec<RunSummary>, Fault> {
    let mut statement = conn.prepare_cached(
        "SELECT id, crew_name, input, status, created_at, updated_at, steps, handoffs, error, input_tokens, output_tokens, cost_usd,
                crew_path, crew_revision, forked_from, forked_at
         FROM runs ORDER BY created_at DESC, number DESC",
    )?;
    let mut rows = statement.query([])?;
    let mut runs = Vec::new();
    while let Some(row) = rows.next()? {
        runs.push(RunSummary {
            id: RunId::new(row.get::<_, String>(0)?),
            crew_name: row.get(1)?,
            crew_path: row.get(12)?,
            input: row.get(2)?,
            status: status(row, 3)?,
            created_at: timestamp(row, 4, "the creation time")?,
            updated_at: timestamp(row, 5, "the update time")?,
            steps: row.get(6)?,
            handoffs: row.get(7)?,
            error: row.get(8)?,
            tokens: Usage { input_tokens: row.get(9)?, output_tokens: row.get(10)?, cost_usd: row.get(11)? },
            crew_revision: row.get(13)?,
            forked_from: fork_point(row, 14)?,
        });
    }
    Ok(runs)
}

/// The fork point in columns `at` (the run) and `at + 1` (the seq), when there is one.
fn fork_point(row: &Row, at: usize) -> Result<Option<ForkPoint>, Fault> {
    let run: Option<String> = row.get(at)?;
    let seq: Option<i64> = row.get(at + 1)?;
    Ok(match (run, seq) {
        (Some(run), Some(seq)) => Some(ForkPoint { run_id: RunId::new(run), seq: from_sql_int(seq, "the fork's seq")? }),
        _ => None,
    })
}

/// The snapshot in columns `at..at + 13` (status … updated_at, then the tokens and cost).
fn snapshot(row: &Row, at: usize) -> Result<RunSnapshot, Fault> {
    let recent: String = row.get(at + 6)?;
    let recent: Vec<Turn> =
        serde_json::from_str(&recent).map_err(|err| Fault::Unreadable(format!("the run's recent turns are not valid JSON: {err}")))?;
    Ok(RunSnapshot {
        status: status(row, at)?,
        current_agent: AgentId::new(row.get::<_, String>(at + 1)?),
        handoffs: row.get(at + 2)?,
        steps: row.get(at + 3)?,
        next_seq: from_sql_int(row.get(at + 4)?, "the next seq")?,
        strikes: row.get(at + 5)?,
        recent,
        history_len: row.get(at + 7)?,
        error: row.get(at + 8)?,
        updated_at: timestamp(row, at + 9, "the update time")?,
        tokens: Usage { input_tokens: row.get(at + 10)?, output_tokens: row.get(at + 11)?, cost_usd: row.get(at + 12)? },
    })
}

fn status(row: &Row, at: usize) -> Result<RunStatus, Fault> {
    let text: String = row.get(at)?;
    RunStatus::parse(&text).ok_or_else(|| Fault::Unreadable(format!("the run's status '{text}' is not one Crewgraph knows")))
}

pub(crate) fn timestamp(row: &Row, at: usize, what: &str) -> Result<Timestamp, Fault> {
    Ok(Timestamp(from_sql_int(row.get(at)?, what)?))
}
