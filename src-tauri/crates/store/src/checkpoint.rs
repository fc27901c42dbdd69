//! WAL checkpoints, off the writers' path.
//!
//! In WAL mode a commit appends pages to the `-wal` file; a checkpoint copies
//! them back into the database file (syncing both to disk) so the WAL can start
//! over. SQLite's automatic checkpoint runs on the connection that just committed
//! — on the critical path of whichever write crossed the limit, megabytes of
//! copying and two fsyncs later. Here instead:
//!
//! 1. After each commit the write connection says how many pages its WAL holds
//!    (SQLite's WAL hook, which replaces the automatic checkpoint).
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
use std::ffi::{c_char, c_int, c_void};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use crewgraph_engine::run::StoreError;
use rusqlite::{ffi, Connection};

/// WAL pages (4 KiB each) after which the checkpointer is woken (SQLite's own
/// automatic checkpoint uses the same figure).
pub(crate) const THRESHOLD: u32 = 1_000;

/// WAL pages after which the connection that commits checkpoints itself (16 MiB),
/// so the WAL starts over.
pub(crate) const LIMIT: u32 = 4 * THRESHOLD;

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
}

/// The checkpointer thread of one database, and the hook that wakes it.
pub(crate) struct Checkpointer {
    signal: Arc<Signal>,
    thread: Option<JoinHandle<()>>,
}

impl Checkpointer {
    /// Starts the thread on `own` (a connection of its own to the database at
    /// `path`) and hooks it to `writer`, the connection that commits.
    pub(crate) fn start(own: Connection, writer: &Connection, path: &Path) -> Result<Checkpointer, StoreError> {
        let signal = Arc::new(Signal::default());
        let thread_signal = signal.clone();
        let thread = std::thread::Builder::new()
            .name("crewgraph-store-checkpointer".into())
            .spawn(move || run(&own, &thread_signal))
            .map_err(|err| StoreError::Io(format!("cannot start the checkpointer for the database {}: {err}", path.display())))?;
        // The hook owns a reference to the signal, given back by `unhook`: should
        // the hook outlive this Checkpointer, it still points at a live signal.
        let hook_signal = Arc::into_raw(signal.clone()) as *mut c_void;
        // SAFETY: a valid connection handle, used on the thread that holds the
        // connection; the pointer stays valid while the hook is installed (above).
        unsafe {
            ffi::sqlite3_wal_hook(writer.handle(), Some(on_commit), hook_signal);
        }
        Ok(Checkpointer { signal, thread: Some(thread) })
    }

    /// Removes the hook from `writer`, the connection it was started with.
    pub(crate) fn unhook(&self, writer: &Connection) {
        // SAFETY: a valid connection handle; sqlite3_wal_hook returns the pointer
        // the hook had, which `start` made with Arc::into_raw, and only `start`
        // installs this hook.
        unsafe {
            let hooked = ffi::sqlite3_wal_hook(writer.handle(), None, std::ptr::null_mut());
            if !hooked.is_null() {
                drop(Arc::from_raw(hooked as *const Signal));
            }
        }
    }

    pub(crate) fn stats(&self) -> CheckpointStats {
        CheckpointStats {
            background: self.signal.background.load(Ordering::Relaxed),
            inline: self.signal.inline.load(Ordering::Relaxed),
            wal_pages: self.signal.frames.load(Ordering::Relaxed),
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

/// The WAL hook: SQLite calls it after each commit of the write connection, with
/// the connection and the number of pages in the WAL.
unsafe extern "C" fn on_commit(signal: *mut c_void, db: *mut ffi::sqlite3, name: *const c_char, frames: c_int) -> c_int {
    // SAFETY: `signal` is the pointer `Checkpointer::start` registered, which the
    // hook keeps alive until `unhook` removes it.
    let signal = unsafe { &*(signal as *const Signal) };
    let frames = u32::try_from(frames).unwrap_or(0);
    if frames >= LIMIT {
        // SAFETY: the arguments SQLite passed to the hook, as its own automatic
        // checkpoint uses them. Busy (the checkpointer is at it) or failed, it
        // leaves the WAL as it is and the next commit tries again.
        let done =
            unsafe { ffi::sqlite3_wal_checkpoint_v2(db, name, ffi::SQLITE_CHECKPOINT_PASSIVE, std::ptr::null_mut(), std::ptr::null_mut()) };
        if done == ffi::SQLITE_OK {
            signal.inline.fetch_add(1, Ordering::Relaxed);
            signal.checked.store(frames, Ordering::Relaxed);
        }
    } else {
        signal.committed(frames);
    }
    // The commit itself happened: an error here would only make it look failed.
    ffi::SQLITE_OK
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
