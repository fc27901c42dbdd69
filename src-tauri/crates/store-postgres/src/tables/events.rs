//! The `events` table: one row per event of a run, in `seq` order, the event's
//! kind in the engine's serde form (its `type` tag included) — the same form the
//! SQLite store keeps inside its steps' rows. The run id is the row's `run`, and
//! neither it nor the seq is repeated inside the JSON.

use crewgraph_engine::ids::RunId;
use crewgraph_engine::run::{EventKind, RunEvent, Timestamp};
use tokio_postgres::Row;

use crate::error::{from_sql_int, Fault};

pub(crate) const V1: &str = "
CREATE TABLE events (
    run  bigint NOT NULL REFERENCES runs (number) ON DELETE CASCADE,
    seq  bigint NOT NULL,
    at   bigint NOT NULL,   -- the event's timestamp, ms since the epoch
    kind json NOT NULL,     -- the engine's EventKind, with its type tag
    PRIMARY KEY (run, seq)
);
";

/// A run's events after a seq: one row per event, or a single row of nulls for a
/// run with none; no row for an unknown run. `$2` is -1 for every event.
pub(crate) const AFTER: &str = "
SELECT e.seq, e.at, e.kind::text
FROM runs r LEFT JOIN events e ON e.run = r.number AND e.seq > $2
WHERE r.id = $1
ORDER BY e.seq";

/// The events in the rows of [`AFTER`]; None when there was no row (no such run).
pub(crate) fn read(rows: &[Row], id: &RunId) -> Result<Option<Vec<RunEvent>>, Fault> {
    if rows.is_empty() {
        return Ok(None);
    }
    let mut events = Vec::with_capacity(rows.len());
    for row in rows {
        let Some(seq) = row.try_get::<_, Option<i64>>(0).map_err(unreadable)? else { continue };
        let seq: u64 = from_sql_int(seq, "an event's seq")?;
        let at: u64 = from_sql_int(row.try_get(1).map_err(unreadable)?, "an event's time")?;
        let text: String = row.try_get(2).map_err(unreadable)?;
        let kind: EventKind =
            serde_json::from_str(&text).map_err(|err| Fault::Unreadable(format!("event {seq} of run '{id}' cannot be read: {err}")))?;
        events.push(RunEvent { kind, run_id: id.clone(), seq, timestamp: Timestamp(at) });
    }
    Ok(Some(events))
}

/// A column that is not of the type the store wrote (the driver's own message
/// names Rust types, so it is not passed on).
pub(crate) fn unreadable(_err: tokio_postgres::Error) -> Fault {
    Fault::Unreadable("a stored value is not of the type Crewgraph writes there (was a column changed by another program?)".into())
}
