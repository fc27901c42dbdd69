//! Reads, beside the writer: a few read-only connections, each read in its own
//! transaction (so a run's snapshot and history agree even while steps land) on
//! tokio's blocking pool, so an async caller never blocks a runtime thread
//! (outside a tokio runtime, on the caller's thread).
//!
//! At most [`MAX_READERS`] reads run at once; their connections are kept for the
//! next reads, and opened again only when one went away.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crewgraph_engine::run::StoreError;
use rusqlite::{Connection, Transaction};
use tokio::sync::Semaphore;

use crate::connection::{open_reader, StoreOptions};
use crate::error::Fault;

/// The most reads at once (and read connections kept).
pub(crate) const MAX_READERS: usize = 4;

/// What a read does inside its transaction.
pub(crate) type Read<T> = Box<dyn FnOnce(&Transaction) -> Result<T, Fault> + Send>;

/// The read connections of one database.
pub(crate) struct Readers {
    pool: Arc<Pool>,
    permits: Semaphore,
}

struct Pool {
    path: PathBuf,
    options: StoreOptions,
    idle: Mutex<Vec<Connection>>,
}

impl Readers {
    /// Readers of the database at `path` (opened on first use).
    pub(crate) fn new(path: &Path, options: &StoreOptions) -> Readers {
        Readers {
            pool: Arc::new(Pool { path: path.to_path_buf(), options: options.clone(), idle: Mutex::new(Vec::new()) }),
            permits: Semaphore::new(MAX_READERS),
        }
    }

    /// Runs `read` on a read connection; `doing` names it in error messages.
    pub(crate) async fn read<T: Send + 'static>(&self, doing: String, read: Read<T>) -> Result<T, StoreError> {
        let path = self.pool.path.clone();
        let stopped = |why: String| StoreError::Io(format!("cannot {doing} in {}: {why}", path.display()));
        // The semaphore is never closed, so acquiring fails only if that changes.
        let _permit = self.permits.acquire().await.map_err(|err| stopped(err.to_string()))?;
        if tokio::runtime::Handle::try_current().is_err() {
            // No runtime to lend a thread: the caller's thread is the one to block.
            return self.pool.read(&doing, read);
        }
        let pool = self.pool.clone();
        let task_doing = doing.clone();
        tokio::task::spawn_blocking(move || pool.read(&task_doing, read))
            .await
            .map_err(|err| stopped(format!("the read stopped ({err})")))?
    }
}

impl Pool {
    fn read<T>(&self, doing: &str, read: Read<T>) -> Result<T, StoreError> {
        let mut conn = match self.idle().pop() {
            Some(conn) => conn,
            None => open_reader(&self.path, &self.options)?,
        };
        let result = Self::in_transaction(&mut conn, read).map_err(|fault| fault.describe(doing, &self.path));
        let mut idle = self.idle();
        if idle.len() < MAX_READERS {
            idle.push(conn);
        }
        result
    }

    fn in_transaction<T>(conn: &mut Connection, read: Read<T>) -> Result<T, Fault> {
        let tx = conn.transaction()?;
        let value = read(&tx)?;
        tx.finish()?;
        Ok(value)
    }

    fn idle(&self) -> std::sync::MutexGuard<'_, Vec<Connection>> {
        // A panic while holding the lock leaves a list of connections, still usable.
        self.idle.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
