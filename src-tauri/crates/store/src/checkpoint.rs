//! WAL checkpoints, off the writers' path.
//!
//! In WAL mode a commit appends pages to the `-wal` file; a checkpoint copies
//! them back into the database file (syncing both to disk) so the WAL can start
//! over. SQLite's automatic checkpoint runs on the connection that just committed
//! — on the critical path of whichever write crossed the limit, megabytes of
//! copying and two fsyncs later. Here instead:
//!
//! 1. After each commit the write connection says how many pages its WAL holds
//!    (SQLite's WAL hook, through rusqlite's [`Connection::wal_hook`], which
//!    replaces the automatic checkpoint).
//! 2. Every [`THRESHOLD`] pages it wakes the [`Checkpointer`]: a thread with a
//!    connection of its own that runs a `PASSIVE` checkpoint — copying what it can
//!    without waiting for, or blocking, anyone — while writes go on.
//! 3. The WAL starts over only once a checkpoint has caught up with the last
//!    commit, which the checkpointer, racing the writes, rarely does. So at
//!    [`LIMIT`] pages the connection that committed checkpoints itself, as SQLite
//!    would have: no write can land meanwhile, so it catches up, and the next
//!    write starts the WAL over (SQLite trims the file to `journal_size_limit`).
//!    The checkpointer has copied nearly everything by then, so this costs the
//!    last pages and two fsyncs, once per [`LIMIT`] pages.
//!
//! rusqlite's hook is a plain function, with no state of its own, so it finds the
//! checkpointer to wake through the thread that commits: whoever takes the write
//! connection takes it through [`Hook::hold`], which marks the thread as writing
//! for this database until it lets go ([`Held`]). That keeps the store free of
//! `unsafe`: rusqlite owns the C callback.
use std::cell::RefCell;
use std::ffi::c_int;
use std::ops::Deref;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use crewgraph_engine::run::StoreError;
use rusqlite::hooks::{CheckpointMode, Wal};
use rusqlite::Connection;

/// WAL pages (4 KiB each) after which the checkpointer is woken (SQLite's own
/// automatic checkpoint uses the same figure).
pub(crate) const THRESHOLD: u32 = 1_000;

/// WAL pages after which the connection that commits checkpoints itself (16 MiB),
/// so the WAL starts over.
pub(crate) const LIMIT: u32 = 4 * THRESHOLD;

thread_local! {
    /// The signal of the write connection this thread holds ([`Hook::hold`]), for
    /// the WAL hook that runs on this thread after each of its commits.
    static WRITING: RefCell<Option<Arc<Signal>>> = const { RefCell::new(None) };
}

/// What the write connection's hook and the checkpointer thread share.
#[derive(Default)]
struct Signal {
    /// Pages in the WAL after the last commit.
    frames: AtomicU32,
    /// Pages the WAL held when the last checkpoint ran.
    checked: AtomicU32,
    /// A checkpoint is wanted (set by the hook, taken by the thread).
    wanted: AtomicBool,
    state: Mutex<State>,
    wake: Condvar,
    /// Checkpoints run by the thread, and by a committing connection at the limit.
    background: AtomicU64,
    inline: AtomicU64,
}

#[derive(Default)]
struct State {
    waiting: bool,
    closed: bool,
}

impl Signal {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// After a commit that left `frames` pages in the WAL.
    fn committed(&self, frames: u32) {
        self.frames.store(frames, Ordering::Relaxed);
        let checked = self.checked.load(Ordering::Relaxed);
        // Due every THRESHOLD pages past the last checkpoint, or once the WAL that
        // started over has THRESHOLD pages again.
        let due = frames >= THRESHOLD && (frames < checked || frames - checked >= THRESHOLD);
        if due && !self.wanted.swap(true, Ordering::AcqRel) {
            let state = self.state();
            if state.waiting {
                self.wake.notify_one();
            }
        }
    }
}

/// How many checkpoints have run, and how large the WAL was after the last commit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CheckpointStats {
    /// Checkpoints the checkpointer thread ran, beside the writes.
    pub background: u64,
    /// Checkpoints a committing connection ran itself, the WAL having reached its limit.
    pub inline: u64,
    /// Pages in the WAL after the last commit.
    pub wal_pages: u32,
    /// A checkpoint was asked of the checkpointer and has not finished yet.
    pub pending: bool,
}

/// The checkpointer thread of one database, and the hook that wakes it.
pub(crate) struct Checkpointer {
    signal: Arc<Signal>,
    thread: Option<JoinHandle<()>>,
}

impl Checkpointer {
    /// Starts the thread on `own` (a connection of its own to the database at
    /// `path`) and hooks it to `writer`, the connection that commits: from then
    /// on `writer` is taken through [`Checkpointer::hook`]'s [`Hook::hold`].
    pub(crate) fn start(own: Connection, writer: &Connection, path: &Path) -> Result<Checkpointer, StoreError> {
        let signal = Arc::new(Signal::default());
        let thread_signal = signal.clone();
        let thread = std::thread::Builder::new()
            .name("crewgraph-store-checkpointer".into())
            .spawn(move || run(&own, &thread_signal))
            .map_err(|err| StoreError::Io(format!("cannot start the checkpointer for the database {}: {err}", path.display())))?;
        writer.wal_hook(Some(on_commit));
        Ok(Checkpointer { signal, thread: Some(thread) })
    }

    /// What the holders of the write connection take it through.
    pub(crate) fn hook(&self) -> Hook {
        Hook { signal: self.signal.clone() }
    }

    /// Removes the hook from `writer`, the connection it was started with
    /// (SQLite's automatic checkpoint does not come back: the store is closing).
    pub(crate) fn unhook(&self, writer: &Connection) {
        writer.wal_hook(None);
    }

    pub(crate) fn stats(&self) -> CheckpointStats {
        CheckpointStats {
            background: self.signal.background.load(Ordering::Relaxed),
            inline: self.signal.inline.load(Ordering::Relaxed),
            wal_pages: self.signal.frames.load(Ordering::Relaxed),
            pending: self.signal.wanted.load(Ordering::Acquire),
        }
    }
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        self.signal.state().closed = true;
        self.signal.wake.notify_one();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// How the write connection is taken, so that its commits reach the checkpointer.
#[derive(Clone)]
pub(crate) struct Hook {
    signal: Arc<Signal>,
}

impl Hook {
    /// The write connection, `conn`, held by this thread: until the answer is
    /// dropped, the WAL hook of a commit on this thread wakes this checkpointer.
    pub(crate) fn hold<'a>(&self, conn: MutexGuard<'a, Connection>) -> Held<'a> {
        let previous = WRITING.replace(Some(self.signal.clone()));
        Held { conn, previous }
    }
}

/// The write connection, held by this thread ([`Hook::hold`]).
pub(crate) struct Held<'a> {
    /// Not `Send`: dropped on the thread that marked itself writing.
    conn: MutexGuard<'a, Connection>,
    /// What this thread held before (another database's connection), put back on drop.
    previous: Option<Arc<Signal>>,
}

impl Deref for Held<'_> {
    type Target = Connection;

    fn deref(&self) -> &Connection {
        &self.conn
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        WRITING.set(self.previous.take());
    }
}

/// The WAL hook: SQLite calls it on the committing thread after each commit of
/// the write connection, with the number of pages in the WAL.
fn on_commit(wal: &Wal, frames: c_int) -> rusqlite::Result<()> {
    let frames = u32::try_from(frames).unwrap_or(0);
    WRITING.with_borrow(|signal| {
        if frames >= LIMIT {
            // As SQLite's own automatic checkpoint does. Busy (the checkpointer is
            // at it) or failed, it leaves the WAL as it is and the next commit
            // tries again.
            let done = wal.checkpoint_v2(CheckpointMode::PASSIVE).is_ok();
            if let (true, Some(signal)) = (done, signal) {
                signal.inline.fetch_add(1, Ordering::Relaxed);
                signal.checked.store(frames, Ordering::Relaxed);
            }
        } else if let Some(signal) = signal {
            signal.committed(frames);
        }
    });
    // The commit itself happened: an error here would only make it look failed.
    Ok(())
}

/// The checkpointer thread: a PASSIVE checkpoint each time one is wanted.
fn run(conn: &Connection, signal: &Signal) {
    loop {
        {
            let mut state = signal.state();
            while !state.closed && !signal.wanted.load(Ordering::Acquire) {
                state.waiting = true;
                state = signal.wake.wait(state).unwrap_or_else(|poisoned| poisoned.into_inner());
                state.waiting = false;
            }
            if state.closed {
                return;
            }
        }
        let pages = signal.frames.load(Ordering::Relaxed);
        // A checkpoint that fails (a reader in the way, a busy file) is tried
        // again after the next THRESHOLD pages; the limit bounds the WAL meanwhile.
        let log: Option<i64> = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |row| row.get(1)).ok();
        signal.background.fetch_add(1, Ordering::Relaxed);
        let log = log.and_then(|log| u32::try_from(log).ok()).unwrap_or(pages);
        signal.checked.store(log, Ordering::Relaxed);
        signal.wanted.store(false, Ordering::Release);
    }
}
