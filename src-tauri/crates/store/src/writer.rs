//! The one writer: the write connection, and who writes with it when.
//!
//! SQLite lets one connection write at a time, and a commit costs more than the
//! couple of rows of a step. Two ways in ([`Writer::write`]):
//!
//! - **Alone, on the caller's thread.** When nothing is queued and the connection
//!   is free, the caller takes it and writes its request in a transaction of its
//!   own, right there: a lone step costs its statements and a commit, with no
//!   thread to wake and no answer to wait for. It never waits for a lock there:
//!   if another program holds the database, it queues instead.
//! - **Queued, for the writer thread.** Otherwise the request joins a queue, and
//!   the writer thread commits what has queued in groups (group commit): it opens
//!   a transaction (`BEGIN IMMEDIATE`, waiting up to the busy timeout for another
//!   program's lock), takes every request waiting meanwhile (up to [`MAX_BATCH`]),
//!   runs them and commits once ([`crate::batch`] says what happens when one fails),
//!   then answers each (a tokio oneshot). Under load, hundreds of steps share a
//!   commit.
//!
//! Either way a request is carried out once it was queued, even if its caller
//! stops waiting for the answer. Writing alone blocks the caller's thread for one
//! small transaction (tens of µs), which also works on a current-thread runtime
//! and outside tokio; waiting in the queue never blocks a thread. The writer also
//! owns the [`Checkpointer`], hooked to its connection, which keeps WAL
//! checkpoints off both ways ([`crate::checkpoint`]).

use std::collections::VecDeque;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, TryLockError};
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crewgraph_engine::run::{StoreError, Timestamp};
use rusqlite::{Connection, ErrorCode};
use tokio::sync::oneshot;

use crate::batch::{self, Answer, Applied, Pending, Request, Work};
use crate::checkpoint::{CheckpointStats, Checkpointer, Held, Hook};
use crate::error::sqlite_error;

/// The most requests one transaction takes; more wait for the next.
pub(crate) const MAX_BATCH: usize = 1024;

/// How much group commit has grouped so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WriteStats {
    /// Transactions written (committed or not), alone or in groups.
    pub batches: u64,
    /// Requests answered.
    pub requests: u64,
    /// The most requests one transaction took.
    pub largest_batch: u64,
    /// Requests their caller wrote alone, finding the writer idle.
    pub alone: u64,
    /// Requests that ran again in a transaction of their own, after a request of
    /// their group failed and the group's transaction was rolled back.
    pub retried: u64,
}

#[derive(Debug, Default)]
struct Counters {
    batches: AtomicU64,
    requests: AtomicU64,
    largest_batch: AtomicU64,
    alone: AtomicU64,
    retried: AtomicU64,
}

impl Counters {
    fn count(&self, transactions: u64, requests: u64, retried: bool) {
        self.batches.fetch_add(transactions, Ordering::Relaxed);
        self.requests.fetch_add(requests, Ordering::Relaxed);
        self.largest_batch.fetch_max(requests, Ordering::Relaxed);
        if retried {
            self.retried.fetch_add(requests, Ordering::Relaxed);
        }
    }
}

/// Requests waiting for the writer thread.
#[derive(Default)]
struct Queue {
    requests: VecDeque<Box<dyn Request>>,
    /// The writer thread sleeps until a request comes (only then is it woken).
    sleeping: bool,
    /// The store is closing: the thread finishes the queue and stops.
    closed: bool,
}

/// What the callers and the writer thread share.
struct Shared {
    /// The write connection: whoever holds it writes (taken through `hook`).
    conn: Mutex<Connection>,
    /// Marks the thread that holds `conn`, for the checkpointer's WAL hook.
    hook: Hook,
    queue: Mutex<Queue>,
    /// Wakes the writer thread.
    work_to_do: Condvar,
    counters: Counters,
    path: Arc<Path>,
    busy_timeout: Duration,
}

impl Shared {
    fn queue(&self) -> MutexGuard<'_, Queue> {
        // The queue is left consistent by every holder, even one that panicked.
        self.queue.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn conn(&self) -> Held<'_> {
        // A panic inside a request is caught before it can poison the lock; if one
        // did, the connection is still usable (its transaction is rolled back next).
        self.hook.hold(self.conn.lock().unwrap_or_else(|poisoned| poisoned.into_inner()))
    }
}

/// The handle to the writer. Dropping it lets the thread finish what is queued,
/// close the connection and stop; the drop waits for that.
pub(crate) struct Writer {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
    /// Checkpoints the WAL beside the writes; stopped before the connection closes.
    checkpointer: Option<Checkpointer>,
}

impl Writer {
    /// Starts the writer on `conn`, whose busy timeout is `busy_timeout`, with the
    /// checkpointer on `checkpoints` (another connection to the same file).
    pub(crate) fn start(conn: Connection, checkpoints: Connection, path: &Path, busy_timeout: Duration) -> Result<Writer, StoreError> {
        let checkpointer = Checkpointer::start(checkpoints, &conn, path)?;
        let shared = Arc::new(Shared {
            conn: Mutex::new(conn),
            hook: checkpointer.hook(),
            queue: Mutex::new(Queue::default()),
            work_to_do: Condvar::new(),
            counters: Counters::default(),
            path: Arc::from(path),
            busy_timeout,
        });
        let thread_shared = shared.clone();
        let thread =
            std::thread::Builder::new().name("crewgraph-store-writer".into()).spawn(move || run(&thread_shared)).map_err(|err| {
                checkpointer.unhook(&shared.conn());
                StoreError::Io(format!("cannot start the writer for the database {}: {err}", path.display()))
            })?;
        Ok(Writer { shared, thread: Some(thread), checkpointer: Some(checkpointer) })
    }

    /// Writes `work` — alone if the writer is idle, else through the queue — and
    /// returns its answer; `doing` names it in error messages (“store a step of run
    /// 'run-1'”).
    pub(crate) async fn write<T: Send + 'static>(&self, doing: String, work: Work<T>) -> Result<T, StoreError> {
        let work = match self.write_alone(&doing, work) {
            Ok(answer) => return answer,
            Err(work) => work,
        };
        let (reply, answer) = oneshot::channel();
        let path = self.shared.path.clone();
        let stopped = || StoreError::Io(format!("cannot {doing} in {}: the database's writer has stopped", path.display()));
        {
            let mut queue = self.shared.queue();
            if queue.closed {
                return Err(stopped());
            }
            queue.requests.push_back(Box::new(Pending::new(doing.clone(), path.clone(), work, reply)));
            if std::mem::take(&mut queue.sleeping) {
                self.shared.work_to_do.notify_one();
            }
        }
        let Answer { result, work } = answer.await.map_err(|_| stopped())?;
        // Freed here, by the thread that made it.
        drop(work);
        result
    }

    /// Writes `work` in a transaction of its own on this thread, if nothing is
    /// queued, the connection is free and the database's lock can be had at once;
    /// gives `work` back otherwise.
    fn write_alone<T>(&self, doing: &str, work: Work<T>) -> Result<Result<T, StoreError>, Work<T>> {
        if !self.shared.queue().requests.is_empty() {
            return Err(work);
        }
        let conn = match self.shared.conn.try_lock() {
            Ok(conn) => conn,
            Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
            Err(TryLockError::WouldBlock) => return Err(work),
        };
        let conn = self.shared.hook.hold(conn);
        let path = &self.shared.path;
        // Another program's lock is waited for in the queue, not here.
        let began = conn.busy_timeout(Duration::ZERO).and_then(|()| batch::execute(&conn, "BEGIN IMMEDIATE"));
        let restored = conn.busy_timeout(self.shared.busy_timeout);
        match began.and(restored) {
            Ok(()) => {}
            Err(err) if err.sqlite_error_code() == Some(ErrorCode::DatabaseBusy) => {
                batch::rollback(&conn);
                return Err(work);
            }
            Err(err) => {
                batch::rollback(&conn);
                return Ok(Err(sqlite_error(err, "start writing", path)));
            }
        }
        let (applied, own) = batch::run(&conn, now(), &work, doing, path);
        let transaction = if applied == Applied::Done && !conn.is_autocommit() {
            batch::commit(&conn, path)
        } else {
            batch::rollback(&conn);
            Err(batch::abandoned(path))
        };
        drop(conn);
        self.shared.counters.count(1, 1, false);
        self.shared.counters.alone.fetch_add(1, Ordering::Relaxed);
        Ok(batch::settle(Some(own), transaction, doing, path))
    }

    /// How much group commit has grouped so far.
    pub(crate) fn stats(&self) -> WriteStats {
        let c = &self.shared.counters;
        WriteStats {
            batches: c.batches.load(Ordering::Relaxed),
            requests: c.requests.load(Ordering::Relaxed),
            largest_batch: c.largest_batch.load(Ordering::Relaxed),
            alone: c.alone.load(Ordering::Relaxed),
            retried: c.retried.load(Ordering::Relaxed),
        }
    }

    /// How many checkpoints have run, and how large the WAL is.
    pub(crate) fn checkpoint_stats(&self) -> CheckpointStats {
        self.checkpointer.as_ref().map(Checkpointer::stats).unwrap_or_default()
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        self.shared.queue().closed = true;
        self.shared.work_to_do.notify_one();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        // Every write is done: unhook the checkpointer and stop it, so that the
        // write connection closes last (SQLite then checkpoints the WAL away).
        if let Some(checkpointer) = self.checkpointer.take() {
            checkpointer.unhook(&self.shared.conn());
        }
    }
}

/// The writer thread: one group after another until the store closes.
fn run(shared: &Shared) {
    while let Some(first) = next(shared) {
        let conn = shared.conn();
        // Begin before gathering, so that the requests that queue up while the
        // transaction waits for a lock join this group.
        let began = batch::execute(&conn, "BEGIN IMMEDIATE");
        let mut group = vec![first];
        {
            let mut queue = shared.queue();
            let more = queue.requests.len().min(MAX_BATCH - 1);
            group.extend(queue.requests.drain(..more));
        }
        let size = group.len() as u64;
        match began {
            Ok(()) => {
                let (transactions, answers) = batch::write(&conn, group, now(), &shared.path);
                // Counted first: a caller that has its answer sees its write in the stats.
                shared.counters.count(transactions, size, transactions > 1);
                for (request, answer) in answers {
                    request.answer(answer);
                }
            }
            Err(err) => {
                batch::rollback(&conn);
                shared.counters.count(1, size, false);
                let failed = sqlite_error(err, "start writing", &shared.path);
                for request in group {
                    request.answer(Err(failed.clone()));
                }
            }
        }
    }
}

/// Waits for the first request of the next group; None once the store closed and
/// nothing is left.
fn next(shared: &Shared) -> Option<Box<dyn Request>> {
    let mut queue = shared.queue();
    loop {
        if let Some(first) = queue.requests.pop_front() {
            return Some(first);
        }
        if queue.closed {
            return None;
        }
        queue.sleeping = true;
        queue = shared.work_to_do.wait(queue).unwrap_or_else(|poisoned| poisoned.into_inner());
    }
}

/// The time a transaction is written at (the steps table's `written_at`).
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
        Writer::start(conn, Connection::open_in_memory().unwrap(), Path::new("test.db"), Duration::from_secs(1)).unwrap()
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
