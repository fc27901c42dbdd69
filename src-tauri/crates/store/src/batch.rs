//! One transaction of the writer: the requests it holds, run one after another,
//! then one commit — and what happens when one of them fails.
//!
//! There is no savepoint per request. Instead a request either
//!
//! - succeeds;
//! - is *refused* (`NoSuchRun`, `OutOfOrder`, `AlreadyExists` …) before it wrote
//!   anything — the store's requests check first and write after, and the batch
//!   makes sure by counting the rows SQLite changed meanwhile — and the batch goes on;
//! - or *fails* after it may have written (SQLite refused a row, the disk failed,
//!   a bug panicked). Then the whole transaction is rolled back and every request
//!   of the batch runs again alone, in a transaction of its own, so only the
//!   failing one fails and the others are stored as if nothing happened.
//!
//! A request's work can run twice that way, which is why it is an `Fn`: it reads
//! what it writes from its captured, already encoded data.

use std::path::Path;
use std::sync::Arc;

use crewgraph_engine::run::{StoreError, Timestamp};
use rusqlite::Connection;
use tokio::sync::oneshot;

use crate::error::{sqlite_error, Fault};

/// What one request does inside a transaction: given the connection and the
/// transaction's time, write, or fail. A work that fails with `Fault::Refused`
/// must not have written anything; it may run more than once.
pub(crate) type Work<T> = Box<dyn Fn(&Connection, Timestamp) -> Result<T, Fault> + Send>;

/// How a request went inside its transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Applied {
    /// It wrote what it had to.
    Done,
    /// It was refused and wrote nothing: the transaction goes on.
    Refused,
    /// It failed and may have written part of itself: the transaction must be rolled back.
    Failed,
}

/// A write request with its answer, type-erased so requests of every result type
/// share one queue.
pub(crate) trait Request: Send {
    /// Runs the work inside the open transaction, keeping its result.
    fn apply(&mut self, conn: &Connection, now: Timestamp) -> Applied;
    /// Answers the caller once the transaction's fate is known: `Ok` when it committed.
    fn answer(self: Box<Self>, transaction: Result<(), StoreError>);
}

/// A request and the fate of the transaction that decides its answer.
pub(crate) type Owed = (Box<dyn Request>, Result<(), StoreError>);

/// What a queued request's caller gets back: the answer, and the work itself, so
/// that the caller's thread, which made its data, also frees it (the writer
/// thread then never frees memory other threads allocated).
pub(crate) struct Answer<T> {
    pub(crate) result: Result<T, StoreError>,
    pub(crate) work: Work<T>,
}

/// A request whose caller awaits its answer on a oneshot channel.
pub(crate) struct Pending<T> {
    doing: String,
    path: Arc<Path>,
    work: Work<T>,
    result: Option<Result<T, StoreError>>,
    reply: oneshot::Sender<Answer<T>>,
}

impl<T> Pending<T> {
    pub(crate) fn new(doing: String, path: Arc<Path>, work: Work<T>, reply: oneshot::Sender<Answer<T>>) -> Self {
        Pending { doing, path, work, result: None, reply }
    }
}

impl<T: Send> Request for Pending<T> {
    fn apply(&mut self, conn: &Connection, now: Timestamp) -> Applied {
        let (applied, result) = run(conn, now, &self.work, &self.doing, &self.path);
        self.result = Some(result);
        applied
    }

    fn answer(self: Box<Self>, transaction: Result<(), StoreError>) {
        let result = settle(self.result, transaction, &self.doing, &self.path);
        // The caller may have stopped waiting (its task was dropped); nothing to do then.
        let _ = self.reply.send(Answer { result, work: self.work });
    }
}

/// A request's answer, from its own result and its transaction's fate.
pub(crate) fn settle<T>(
    own: Option<Result<T, StoreError>>,
    transaction: Result<(), StoreError>,
    doing: &str,
    path: &Path,
) -> Result<T, StoreError> {
    match (own, transaction) {
        // Its own failure: nothing of it was kept, whatever became of the rest.
        (Some(Err(own)), _) => Err(own),
        (Some(Ok(value)), Ok(())) => Ok(value),
        // It worked, but the transaction it was in did not commit.
        (Some(Ok(_)), Err(failed)) | (None, Err(failed)) => Err(failed),
        (None, Ok(())) => Err(StoreError::Io(format!("cannot {doing} in {}: the writer skipped it", path.display()))),
    }
}

/// Runs one work in the open transaction: its result, and how it went.
pub(crate) fn run<T>(conn: &Connection, now: Timestamp, work: &Work<T>, doing: &str, path: &Path) -> (Applied, Result<T, StoreError>) {
    let changes = conn.total_changes();
    // A bug in one request must not take the writer (and every later write) down:
    // its writes are rolled back like any failure's.
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(conn, now)))
        .unwrap_or_else(|_| Err(Fault::Unwritable("the store's code failed (a bug: please report it)".into())));
    let applied = match &result {
        Ok(_) => Applied::Done,
        Err(Fault::Refused(_)) if conn.total_changes() == changes => Applied::Refused,
        Err(_) => Applied::Failed,
    };
    (applied, result.map_err(|fault| fault.describe(doing, path)))
}

/// Runs the requests of a transaction opened with `BEGIN IMMEDIATE` and commits
/// it. Returns how many transactions it took (more than one when a failure sent the
/// requests to run alone) and each request with the answer it is owed, not yet
/// given, so the writer can count the work before any caller hears of it.
pub(crate) fn write(conn: &Connection, mut batch: Vec<Box<dyn Request>>, now: Timestamp, path: &Path) -> (u64, Vec<Owed>) {
    // SQLite may also end the transaction itself after an error (a full disk).
    let whole = batch.iter_mut().all(|request| request.apply(conn, now) != Applied::Failed && !conn.is_autocommit());
    if whole {
        let committed = commit(conn, path);
        return (1, batch.into_iter().map(|request| (request, committed.clone())).collect());
    }
    rollback(conn);
    if batch.len() == 1 {
        // It failed alone already: that is its answer.
        return (1, batch.into_iter().map(|request| (request, Err(abandoned(path)))).collect());
    }
    let transactions = 1 + batch.len() as u64;
    let answers = batch
        .into_iter()
        .map(|mut request| {
            let outcome = alone(conn, request.as_mut(), now, path);
            (request, outcome)
        })
        .collect();
    (transactions, answers)
}

/// Runs one request in a transaction of its own.
fn alone(conn: &Connection, request: &mut dyn Request, now: Timestamp, path: &Path) -> Result<(), StoreError> {
    execute(conn, "BEGIN IMMEDIATE").map_err(|err| sqlite_error(err, "start writing", path))?;
    if request.apply(conn, now) == Applied::Done && !conn.is_autocommit() {
        return commit(conn, path);
    }
    rollback(conn);
    Err(abandoned(path))
}

/// Commits the open transaction; rolls it back if that fails.
pub(crate) fn commit(conn: &Connection, path: &Path) -> Result<(), StoreError> {
    execute(conn, "COMMIT").map_err(|err| {
        rollback(conn);
        sqlite_error(err, "commit", path)
    })
}

/// The answer of a request whose transaction was rolled back (its own error, if
/// it had one, is said instead).
pub(crate) fn abandoned(path: &Path) -> StoreError {
    StoreError::Io(format!("cannot write to {}: the transaction was abandoned after an error, nothing of it was stored", path.display()))
}

pub(crate) fn execute(conn: &Connection, sql: &str) -> rusqlite::Result<()> {
    conn.prepare_cached(sql)?.execute([]).map(|_| ())
}

pub(crate) fn rollback(conn: &Connection) {
    if !conn.is_autocommit() {
        // Nothing more can be done if even this fails; the next BEGIN will say so.
        let _ = conn.execute_batch("ROLLBACK");
    }
}
