//! The one writer: a thread that owns the write connection and commits in groups.
//!
//! SQLite lets one connection write at a time, and a commit costs far more than the
//! few rows of a step. So every write ([`Writer::write`]) is a request in one queue,
//! and the writer thread:
//!
//! 1. waits for a request, then opens a transaction (`BEGIN IMMEDIATE`, waiting up
//!    to the busy timeout for another program's lock);
//! 2. takes every request that has queued meanwhile (up to [`MAX_BATCH`]);
//! 3. runs each inside its own `SAVEPOINT`: a request that fails — a step out of
//!    order, a row SQLite refuses — is rolled back to its savepoint and keeps its
//!    error, and the others are not touched;
//! 4. commits once, then answers every request (a tokio oneshot): its own result if
//!    the commit held, the commit's error if not.
//!
//! A lone request costs one small transaction; under load, hundreds of steps share
//! one commit. Callers never block a tokio thread: they queue and await. A request,
//! once queued, is carried out even if its caller stops waiting for the answer.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::{SystemTime, UNIX_EPOCH};

use crewgraph_engine::run::{StoreError, Timestamp};
use rusqlite::Connection;
use tokio::sync::oneshot;

use crate::error::{sqlite_error, Fault};

/// The most requests one transaction takes; more wait for the next.
pub(crate) const MAX_BATCH: usize = 1024;

/// What one request does inside the writer's transaction: given the connection and
/// the batch's time, write, or fail with nothing of its own kept.
pub(crate) type Work<T> = Box<dyn FnOnce(&Connection, Timestamp) -> Result<T, Fault> + Send>;

/// How much group commit has grouped so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WriteStats {
    /// Transactions the writer has run (committed or not).
    pub batches: u64,
    /// Requests it has answered.
    pub requests: u64,
    /// The most requests one transaction took.
    pub largest_batch: u64,
}

#[derive(Debug, Default)]
struct Counters {
    batches: AtomicU64,
    requests: AtomicU64,
    largest_batch: AtomicU64,
}

/// A queued write, type-erased so requests of every result type share the queue.
trait Request: Send {
    /// Runs the work (inside its savepoint); true when it succeeded.
    fn apply(&mut self, conn: &Connection, now: Timestamp) -> bool;
    /// Answers the caller once the batch's fate is known: `Ok` when it committed.
    fn answer(self: Box<Self>, batch: Result<(), StoreError>);
}

struct Pending<T> {
    doing: String,
    path: Arc<Path>,
    work: Option<Work<T>>,
    result: Option<Result<T, StoreError>>,
    reply: oneshot::Sender<Result<T, StoreError>>,
}

impl<T: Send> Request for Pending<T> {
    fn apply(&mut self, conn: &Connection, now: Timestamp) -> bool {
        let Some(work) = self.work.take() else { return false };
        // A bug in one request must not take the writer (and every later write) down:
        // its savepoint is rolled back like any failure's.
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(conn, now)))
            .unwrap_or_else(|_| Err(Fault::Unwritable("the store's code failed (a bug: please report it)".into())))
            .map_err(|fault| fault.describe(&self.doing, &self.path));
        let ok = result.is_ok();
        self.result = Some(result);
        ok
    }

    fn answer(self: Box<Self>, batch: Result<(), StoreError>) {
        let answer = match (self.result, batch) {
            // Its own failure: rolled back to its savepoint, whatever became of the rest.
            (Some(Err(own)), _) => Err(own),
            (Some(Ok(value)), Ok(())) => Ok(value),
            // It worked, but the transaction it was in did not commit.
            (Some(Ok(_)), Err(batch)) | (None, Err(batch)) => Err(batch),
            (None, Ok(())) => Err(StoreError::Io(format!("cannot {} in {}: the writer skipped it", self.doing, self.path.display()))),
        };
        // The caller may have stopped waiting (its task was dropped); nothing to do then.
        let _ = self.reply.send(answer);
    }
}

/// The handle to the writer thread. Dropping it lets the thread finish what is
/// queued, close the connection and stop; the drop waits for that.
pub(crate) struct Writer {
    queue: Option<mpsc::Sender<Box<dyn Request>>>,
    thread: Option<JoinHandle<()>>,
    counters: Arc<Counters>,
    path: Arc<Path>,
}

impl Writer {
    /// Starts the writer thread on `conn`.
    pub(crate) fn start(conn: Connection, path: &Path) -> Result<Writer, StoreError> {
        let (queue, requests) = mpsc::channel::<Box<dyn Request>>();
        let counters = Arc::new(Counters::default());
        let thread_counters = counters.clone();
        let thread_path: PathBuf = path.to_path_buf();
        let thread = std::thread::Builder::new()
            .name("crewgraph-store-writer".into())
            .spawn(move || run(conn, requests, &thread_counters, &thread_path))
            .map_err(|err| StoreError::Io(format!("cannot start the writer for the database {}: {err}", path.display())))?;
        Ok(Writer { queue: Some(queue), thread: Some(thread), counters, path: Arc::from(path) })
    }

    /// Queues `work` and waits for its answer; `doing` names it in error messages
    /// (“append a step to run 'run-1'”).
    pub(crate) async fn write<T: Send + 'static>(&self, doing: String, work: Work<T>) -> Result<T, StoreError> {
        let (reply, answer) = oneshot::channel();
        let stopped = || StoreError::Io(format!("cannot {doing} in {}: the database's writer has stopped", self.path.display()));
        let request = Pending { doing: doing.clone(), path: self.path.clone(), work: Some(work), result: None, reply };
        let queue = self.queue.as_ref().ok_or_else(stopped)?;
        queue.send(Box::new(request)).map_err(|_| stopped())?;
        answer.await.map_err(|_| stopped())?
    }

    /// How much group commit has grouped so far.
    pub(crate) fn stats(&self) -> WriteStats {
        WriteStats {
            batches: self.counters.batches.load(Ordering::Relaxed),
            requests: self.counters.requests.load(Ordering::Relaxed),
            largest_batch: self.counters.largest_batch.load(Ordering::Relaxed),
        }
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        // Closing the queue ends the thread's loop once the queue is empty.
        self.queue = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The writer thread: one batch after another until the queue closes.
fn run(conn: Connection, requests: mpsc::Receiver<Box<dyn Request>>, counters: &Counters, path: &Path) {
    while let Ok(first) = requests.recv() {
        // Begin before gathering, so that the requests that queue up while the
        // transaction waits for a lock join this batch.
        let began = execute(&conn, "BEGIN IMMEDIATE");
        let mut batch = vec![first];
        batch.extend(requests.try_iter().take(MAX_BATCH - 1));
        let outcome = match began {
            Ok(()) => commit_batch(&conn, &mut batch, now(), path),
            Err(err) => Err(sqlite_error(err, "start writing", path)),
        };
        counters.batches.fetch_add(1, Ordering::Relaxed);
        counters.requests.fetch_add(batch.len() as u64, Ordering::Relaxed);
        counters.largest_batch.fetch_max(batch.len() as u64, Ordering::Relaxed);
        for request in batch {
            request.answer(outcome.clone());
        }
    }
}

/// Runs every request of the open transaction in its savepoint, then commits.
/// On an error that ends the transaction, rolls back what is left and returns it.
fn commit_batch(conn: &Connection, batch: &mut [Box<dyn Request>], now: Timestamp, path: &Path) -> Result<(), StoreError> {
    let fail = |err: rusqlite::Error, doing: &str| {
        rollback(conn);
        Err(sqlite_error(err, doing, path))
    };
    for request in batch.iter_mut() {
        if let Err(err) = execute(conn, "SAVEPOINT request") {
            return fail(err, "start a write");
        }
        let undo = if request.apply(conn, now) { Ok(()) } else { execute(conn, "ROLLBACK TO request") };
        if conn.is_autocommit() {
            // SQLite ended the whole transaction (a full disk, an I/O error): every
            // request of the batch is lost, and says why.
            return Err(StoreError::Io(format!(
                "cannot write to {}: SQLite abandoned the transaction after an error, nothing of it was stored",
                path.display()
            )));
        }
        if let Err(err) = undo.and_then(|()| execute(conn, "RELEASE request")) {
            return fail(err, "undo a failed write");
        }
    }
    match execute(conn, "COMMIT") {
        Ok(()) => Ok(()),
        Err(err) => fail(err, "commit"),
    }
}

fn execute(conn: &Connection, sql: &str) -> rusqlite::Result<()> {
    conn.prepare_cached(sql)?.execute([]).map(|_| ())
}

fn rollback(conn: &Connection) {
    if !conn.is_autocommit() {
        // Nothing more can be done if even this fails; the next BEGIN will say so.
        let _ = conn.execute_batch("ROLLBACK");
    }
}

/// The time a batch is written at (the steps table's `written_at`).
fn now() -> Timestamp {
    let since = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    Timestamp(since.as_millis() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn writer() -> Writer {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE t (x INTEGER)").unwrap();
        Writer::start(conn, Path::new("test.db")).unwrap()
    }

    fn count() -> Work<i64> {
        Box::new(|conn, _| Ok(conn.query_row("SELECT count(*) FROM t", [], |row| row.get(0))?))
    }

    #[tokio::test]
    async fn a_request_that_panics_fails_alone_and_the_writer_goes_on() {
        let writer = writer();
        let panics: Work<()> = Box::new(|conn, _| {
            conn.execute("INSERT INTO t VALUES (1)", [])?;
            panic!("a bug in a request");
        });
        match writer.write("insert".into(), panics).await {
            Err(StoreError::Io(message)) => assert!(message.contains("a bug"), "{message}"),
            other => panic!("expected Io, got {other:?}"),
        }
        assert_eq!(writer.write("count".into(), count()).await, Ok(0), "its insert was rolled back");
        let inserts: Work<()> = Box::new(|conn, _| Ok(conn.execute("INSERT INTO t VALUES (2)", []).map(|_| ())?));
        assert_eq!(writer.write("insert".into(), inserts).await, Ok(()));
        assert_eq!(writer.write("count".into(), count()).await, Ok(1));
    }

    #[tokio::test]
    async fn the_batch_time_is_the_wall_clock() {
        let writer = writer();
        let before = now();
        let seen = writer.write("read the time".into(), Box::new(|_, now| Ok(now))).await.unwrap();
        assert!(seen >= before && seen <= Timestamp(now().0 + 1), "{seen:?}");
    }
}
