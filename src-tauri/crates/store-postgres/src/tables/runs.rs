//! The `runs` table: one row per run — how it started (the [`RunRecord`], written
//! once) and where it stands (the [`RunSnapshot`], one small UPDATE per step).
//!
//! The row's `number` (an identity column) is the key of the run's rows in
//! `steps` and `events`, and orders runs created in the same millisecond. A step
//! moves the snapshot only if the run still stands where the step starts
//! (`next_seq`, `history_len`), in the same UPDATE (`step.rs`); `stored_steps`
//! numbers the next row in `steps`. Who executes the run and until when (its lease,
//! [`V3`]) is kept here too, granted and renewed by one conditional UPDATE
//! ([`LEASE`]) in the server's clock.

use crewgraph_engine::ids::{AgentId, RunId};
use crewgraph_engine::run::{ForkPoint, Lease, LeaseOutcome, RunRecord, RunSnapshot, RunStatus, RunSummary, Timestamp, Turn, Usage};
use tokio_postgres::Row;

use super::events::unreadable;
use crate::error::{from_sql_int, Fault};

pub(crate) const V1: &str = "
CREATE TABLE runs (
    number           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id               text NOT NULL UNIQUE,
    crew_name        text NOT NULL,
    crew_path        text,
    crew_fingerprint text NOT NULL,
    input            text NOT NULL,
    created_at       bigint NOT NULL,   -- ms since the epoch
    forked_from      text,              -- the run it was forked from
    forked_at        bigint,            -- the seq of the reply replaced there
    -- the snapshot, rewritten by each step
    status           text NOT NULL,     -- snake_case RunStatus
    current_agent    text NOT NULL,
    handoffs         bigint NOT NULL,
    steps            bigint NOT NULL,
    next_seq         bigint NOT NULL,
    strikes          bigint NOT NULL,
    recent           json NOT NULL,     -- the recent turns
    history_len      bigint NOT NULL,
    error            text,
    updated_at       bigint NOT NULL,
    input_tokens     bigint NOT NULL,
    output_tokens    bigint NOT NULL,
    cost_usd         double precision,
    -- how many rows the run has in `steps`: the number its next step gets
    stored_steps     bigint NOT NULL
);
CREATE INDEX runs_newest_first ON runs (created_at DESC, number DESC);
";

/// The revision of its crew each run ran: the crew's revision (`crew_revisions`)
/// whose fingerprint is the run's, found when the run is stored (`step.rs`) — the
/// host keeps the crew's version as a revision before it starts a run. Runs stored
/// before this column get theirs here when their crew had such a revision.
pub(crate) const V2: &str = "
ALTER TABLE runs ADD COLUMN crew_revision bigint;
UPDATE runs SET crew_revision = (
    SELECT r.revision FROM crew_revisions r JOIN crews c ON c.id = r.crew
    WHERE c.path = runs.crew_path AND r.fingerprint = runs.crew_fingerprint
);
";

/// The run's lease: the executor running it (a worker's name) and when its lease
/// runs out (ms since the epoch, in the server's clock); both NULL when nobody holds
/// it. Runs stored before leases existed are held by nobody.
pub(crate) const V3: &str = "
ALTER TABLE runs ADD COLUMN lease_owner text;
ALTER TABLE runs ADD COLUMN lease_expires_at bigint;
";

/// How a run's latest queued leg is to be executed (the host's run options, as the
/// step that opened the leg gave them; docs/scale-out.md), NULL when no step gave
/// any; and the running runs found fast, for the sweeper ([`RUNNABLE`]).
pub(crate) const V4: &str = "
ALTER TABLE runs ADD COLUMN options text;
CREATE INDEX runs_running ON runs (created_at, number) WHERE status = 'running';
";

/// The running runs opened for another executor (with options) that nobody holds by
/// the server's clock (no lease, or one run out), oldest first.
pub(crate) const RUNNABLE: &str = "
SELECT id FROM runs
WHERE status = 'running' AND options IS NOT NULL
  AND (lease_owner IS NULL OR lease_expires_at <= floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint)
ORDER BY created_at, number";

/// Leases run `$1` to `$2` for `$3` ms if nobody holds it, `$2` does, or the
/// holder's lease has run out — by the server's clock (`clock_timestamp()`, read
/// once for the statement), so executors on machines whose clocks disagree agree
/// on when a lease runs out. One conditional UPDATE: of two executors asking at
/// once, the second waits for the first's row lock and then finds the run held.
/// Answers one row — granted?, the holder, its expiry, the server's time — or none
/// for an unknown run. A refused row is read as the statement began: it may show
/// a lease granted meanwhile as still free (the caller asks again, [`lease_read`]).
pub(crate) const LEASE: &str = "
WITH now AS (SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint AS ms),
granted AS (
    UPDATE runs SET lease_owner = $2, lease_expires_at = (SELECT ms FROM now) + $3
    WHERE id = $1 AND (lease_owner IS NULL OR lease_owner = $2 OR lease_expires_at <= (SELECT ms FROM now))
    RETURNING lease_owner, lease_expires_at
)
SELECT true, lease_owner, lease_expires_at, (SELECT ms FROM now) FROM granted
UNION ALL
SELECT false, lease_owner, lease_expires_at, (SELECT ms FROM now) FROM runs
WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM granted)";

/// Ends `$2`'s lease on run `$1`: whether it held it, and whether the run exists.
pub(crate) const RELEASE: &str = "
WITH released AS (
    UPDATE runs SET lease_owner = NULL, lease_expires_at = NULL WHERE id = $1 AND lease_owner = $2 RETURNING 1
)
SELECT EXISTS (SELECT 1 FROM released), EXISTS (SELECT 1 FROM runs WHERE id = $1)";

/// What a row of [`LEASE`] says: the outcome, or None when the refusal was read
/// from a row that had changed since the statement began (nobody holding it, the
/// caller holding it, or its lease run out), so the caller must ask again.
pub(crate) fn lease_read(row: &Row, owner: &str) -> Result<Option<LeaseOutcome>, Fault> {
    let granted: bool = get(row, 0)?;
    let holder: Option<String> = get(row, 1)?;
    let expires_at: Option<i64> = get(row, 2)?;
    let now: i64 = get(row, 3)?;
    let (Some(holder), Some(expires_at)) = (holder, expires_at) else { return Ok(None) };
    if !granted && (holder == owner || expires_at <= now) {
        return Ok(None);
    }
    let lease = Lease { owner: holder, expires_at: Timestamp(from_sql_int(expires_at, "the lease's expiry")?) };
    Ok(Some(if granted { LeaseOutcome::Granted(lease) } else { LeaseOutcome::Held(lease) }))
}

/// Where a stored run stands: what its next step must continue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Position {
    /// The seq its next event gets.
    pub(crate) next_seq: u64,
    /// How many messages its history has.
    pub(crate) history_len: u32,
}

/// Where the run stands; no row for an unknown run.
pub(crate) const POSITION: &str = "SELECT next_seq, history_len FROM runs WHERE id = $1";

/// A run's record, snapshot and history (its steps' arrays, in order), read in one
/// statement so the snapshot and the history agree while steps land.
pub(crate) const LOAD: &str = "
SELECT r.id, r.crew_name, r.crew_path, r.crew_fingerprint, r.input, r.created_at, r.forked_from, r.forked_at,
       r.status, r.current_agent, r.handoffs, r.steps, r.next_seq, r.strikes, r.recent::text, r.history_len, r.error,
       r.updated_at, r.input_tokens, r.output_tokens, r.cost_usd,
       ARRAY(SELECT s.history::text FROM steps s WHERE s.run = r.number ORDER BY s.step), r.options
FROM runs r WHERE r.id = $1";

/// The column of [`LOAD`] holding the steps' history arrays.
pub(crate) const LOAD_HISTORY: usize = 21;

/// The column of [`LOAD`] holding how the run's latest queued leg is to be executed.
pub(crate) const LOAD_OPTIONS: usize = 22;

/// Every run, newest first (by creation time, then by the order they were stored).
pub(crate) const LIST: &str = "
SELECT id, crew_name, crew_path, input, status, created_at, updated_at, steps, handoffs, error,
       input_tokens, output_tokens, cost_usd, forked_from, forked_at, crew_revision
FROM runs ORDER BY created_at DESC, number DESC";

/// Moves the run to `running` if its status is one of `$2`: whether it moved, and
/// whether the run exists (the second scan sees the run as the statement began).
pub(crate) const CLAIM: &str = "
WITH moved AS (
    UPDATE runs SET status = 'running' WHERE id = $1 AND status = ANY($2::text[]) RETURNING 1
)
SELECT EXISTS (SELECT 1 FROM moved), EXISTS (SELECT 1 FROM runs WHERE id = $1)";

/// The position in a row of [`POSITION`].
pub(crate) fn position(row: &Row) -> Result<Position, Fault> {
    Ok(Position { next_seq: from_sql_int(get(row, 0)?, "the next seq")?, history_len: from_sql_int(get(row, 1)?, "the history length")? })
}

/// The record and snapshot in a row of [`LOAD`].
pub(crate) fn load(row: &Row) -> Result<(RunRecord, RunSnapshot), Fault> {
    let record = RunRecord {
        id: RunId::new(get::<String>(row, 0)?),
        crew_name: get(row, 1)?,
        crew_path: get(row, 2)?,
        crew_fingerprint: get(row, 3)?,
        input: get(row, 4)?,
        created_at: timestamp(row, 5, "the creation time")?,
        forked_from: fork_point(row, 6)?,
    };
    let recent: String = get(row, 14)?;
    let recent: Vec<Turn> =
        serde_json::from_str(&recent).map_err(|err| Fault::Unreadable(format!("the run's recent turns cannot be read: {err}")))?;
    let snapshot = RunSnapshot {
        status: status(row, 8)?,
        current_agent: AgentId::new(get::<String>(row, 9)?),
        handoffs: number(row, 10, "the handoffs")?,
        steps: number(row, 11, "the steps")?,
        next_seq: number(row, 12, "the next seq")?,
        strikes: number(row, 13, "the strikes")?,
        recent,
        history_len: number(row, 15, "the history length")?,
        error: get(row, 16)?,
        updated_at: timestamp(row, 17, "the update time")?,
        tokens: usage(row, 18)?,
    };
    Ok((record, snapshot))
}

/// A run's summary from a row of [`LIST`].
pub(crate) fn summary(row: &Row) -> Result<RunSummary, Fault> {
    Ok(RunSummary {
        id: RunId::new(get::<String>(row, 0)?),
        crew_name: get(row, 1)?,
        crew_path: get(row, 2)?,
        input: get(row, 3)?,
        status: status(row, 4)?,
        created_at: timestamp(row, 5, "the creation time")?,
        updated_at: timestamp(row, 6, "the update time")?,
        steps: number(row, 7, "the steps")?,
        handoffs: number(row, 8, "the handoffs")?,
        error: get(row, 9)?,
        tokens: usage(row, 10)?,
        crew_revision: get::<Option<i64>>(row, 15)?.map(|revision| from_sql_int(revision, "the crew revision")).transpose()?,
        forked_from: fork_point(row, 13)?,
    })
}

/// Column `at` of `row`, as the type the store wrote there.
pub(crate) fn get<'a, T: tokio_postgres::types::FromSql<'a>>(row: &'a Row, at: usize) -> Result<T, Fault> {
    row.try_get(at).map_err(unreadable)
}

/// A bigint column as the engine's number type.
fn number<T: TryFrom<i64>>(row: &Row, at: usize, what: &str) -> Result<T, Fault> {
    from_sql_int(get(row, at)?, what)
}

fn timestamp(row: &Row, at: usize, what: &str) -> Result<Timestamp, Fault> {
    Ok(Timestamp(number(row, at, what)?))
}

/// The tokens and cost in columns `at`, `at + 1`, `at + 2`.
fn usage(row: &Row, at: usize) -> Result<Usage, Fault> {
    Ok(Usage {
        input_tokens: number(row, at, "the input tokens")?,
        output_tokens: number(row, at + 1, "the output tokens")?,
        cost_usd: get(row, at + 2)?,
    })
}

/// The fork point in columns `at` (the run) and `at + 1` (the seq), when there is one.
fn fork_point(row: &Row, at: usize) -> Result<Option<ForkPoint>, Fault> {
    let run: Option<String> = get(row, at)?;
    let seq: Option<i64> = get(row, at + 1)?;
    Ok(match (run, seq) {
        (Some(run), Some(seq)) => Some(ForkPoint { run_id: RunId::new(run), seq: from_sql_int(seq, "the fork's seq")? }),
        _ => None,
    })
}

fn status(row: &Row, at: usize) -> Result<RunStatus, Fault> {
    let text: String = get(row, at)?;
    RunStatus::parse(&text).ok_or_else(|| Fault::Unreadable(format!("the run's status '{text}' is not one Crewgraph knows")))
}
