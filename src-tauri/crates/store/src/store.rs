//! [`SqliteStore`]: the engine's [`RunStore`] on one SQLite file.
//!
//! Writes (creating a run, appending a step, claiming or leasing a run, and the typed
//! methods of the other tables) go through the one writer ([`crate::writer`]):
//! written at once on the caller's thread when the writer is idle (one small
//! transaction, never a wait for another program's lock), queued for its thread
//! otherwise. Reads go to a few read connections ([`crate::reader`]) on tokio's
//! blocking pool.

use std::path::{Path, PathBuf};
use std::time::Duration;

use async_trait::async_trait;
use crewgraph_engine::ids::RunId;
use crewgraph_engine::run::lease::ttl_millis;
use crewgraph_engine::run::seen::AgentContext;
use crewgraph_engine::run::{
    Clock, LeaseOutcome, RunEvent, RunRecord, RunStatus, RunStore, RunSummary, StepRecord, StoreError, StoredRun, SystemClock, Timestamp,
};
use rusqlite::Connection;

use crate::checkpoint::CheckpointStats;
use crate::connection::{open_checkpointer, open_writer, StoreOptions};
use crate::error::Fault;
use crate::reader::Readers;
use crate::step::{self, EncodedStep};
use crate::tables::{runs, steps};
use crate::writer::{WriteStats, Writer};

/// Runs (and crews, runtime agents, settings) kept in one SQLite file.
///
/// Its async methods run on any tokio runtime, and outside one (reads then block
/// the caller's thread instead of tokio's blocking pool). Several programs
/// may open one file: SQLite serializes their writes, each waiting up to the busy
/// timeout ([`StoreOptions`]) before `StoreError::Busy`.
pub struct SqliteStore {
    path: PathBuf,
    // Declared before `writer`: reads are dropped first, then the writer closes last.
    readers: Readers,
    writer: Writer,
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore").field("path", &self.path).finish_non_exhaustive()
    }
}

impl SqliteStore {
    /// Opens the database at `path`, creating the file and its folder when missing
    /// and bringing its tables up to date. Blocks while it opens.
    pub fn open(path: impl AsRef<Path>) -> Result<SqliteStore, StoreError> {
        Self::open_with(path, &StoreOptions::default())
    }

    /// [`SqliteStore::open`] with options (the busy timeout).
    pub fn open_with(path: impl AsRef<Path>, options: &StoreOptions) -> Result<SqliteStore, StoreError> {
        let path = path.as_ref().to_path_buf();
        let conn = open_writer(&path, options)?;
        let writer = Writer::start(conn, open_checkpointer(&path, options)?, &path, options.busy_timeout)?;
        Ok(SqliteStore { readers: Readers::new(&path, options), writer, path })
    }

    /// Where Crewgraph keeps its database unless told otherwise: `crewgraph.db` in
    /// a `crewgraph` folder of the system's data directory
    /// (`~/.local/share/crewgraph/crewgraph.db` on Linux).
    pub fn default_path() -> Result<PathBuf, StoreError> {
        dirs::data_dir()
            .map(|dir| dir.join("crewgraph").join("crewgraph.db"))
            .ok_or_else(|| StoreError::Io("this system names no data directory for Crewgraph's database; give a path (--db)".into()))
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// How much the writer has grouped its commits so far.
    pub fn write_stats(&self) -> WriteStats {
        self.writer.stats()
    }

    /// How many WAL checkpoints have run, and how large the WAL is.
    pub fn checkpoint_stats(&self) -> CheckpointStats {
        self.writer.checkpoint_stats()
    }

    /// Runs `work` in a write transaction (see [`crate::writer`]); it may run more
    /// than once, and must write nothing when it fails with `Fault::Refused`.
    pub(crate) async fn write<T: Send + 'static>(
        &self,
        doing: String,
        work: impl Fn(&Connection, Timestamp) -> Result<T, Fault> + Send + 'static,
    ) -> Result<T, StoreError> {
        self.writer.write(doing, Box::new(work)).await
    }

    /// Runs `read` on a read connection, inside one read transaction.
    pub(crate) async fn read<T: Send + 'static>(
        &self,
        doing: String,
        read: impl FnOnce(&Connection) -> Result<T, Fault> + Send + 'static,
    ) -> Result<T, StoreError> {
        self.readers.read(doing, Box::new(move |tx| read(tx))).await
    }
}

#[async_trait]
impl RunStore for SqliteStore {
    async fn create_run(&self, record: &RunRecord, first: &StepRecord) -> Result<(), StoreError> {
        let doing = format!("store the new run '{}'", record.id);
        let first = EncodedStep::new(&record.id, first).map_err(|fault| fault.describe(&doing, &self.path))?;
        let record = record.clone();
        self.write(doing, move |conn, now| step::create(conn, &record, &first, now)).await
    }

    async fn append_step(&self, step: &StepRecord) -> Result<(), StoreError> {
        let doing = format!("store a step of run '{}'", step.run_id);
        let step = EncodedStep::new(&step.run_id, step).map_err(|fault| fault.describe(&doing, &self.path))?;
        self.write(doing, move |conn, now| step::append(conn, &step, now)).await
    }

    async fn load_run(&self, id: &RunId) -> Result<Option<StoredRun>, StoreError> {
        let id = id.clone();
        self.read(format!("read run '{id}'"), move |conn| {
            let Some(runs::Loaded { number, record, snapshot, options }) = runs::load(conn, &id)? else { return Ok(None) };
            let history = steps::history(conn, number)?;
            if history.len() != snapshot.history_len as usize {
                return Err(Fault::Unreadable(format!(
                    "its snapshot counts {} history messages, {} are stored",
                    snapshot.history_len,
                    history.len()
                )));
            }
            Ok(Some(StoredRun { record, snapshot, history, options }))
        })
        .await
    }

    async fn contexts(&self, id: &RunId) -> Result<Option<Vec<AgentContext>>, StoreError> {
        let id = id.clone();
        self.read(format!("read what the agents of run '{id}' were given"), move |conn| {
            let number = runs::number(conn, &id)?.ok_or_else(|| StoreError::NoSuchRun(id.clone()))?;
            steps::contexts(conn, number)
        })
        .await
    }

    async fn list_runs(&self) -> Result<Vec<RunSummary>, StoreError> {
        self.read("list the runs".into(), runs::list).await
    }

    async fn events(&self, id: &RunId, after: Option<u64>) -> Result<Vec<RunEvent>, StoreError> {
        let id = id.clone();
        self.read(format!("read the events of run '{id}'"), move |conn| {
            let number = runs::number(conn, &id)?.ok_or_else(|| StoreError::NoSuchRun(id.clone()))?;
            steps::events(conn, number, &id, after)
        })
        .await
    }

    async fn lease(&self, id: &RunId, owner: &str, ttl: Duration) -> Result<LeaseOutcome, StoreError> {
        let (id, owner, ttl_ms) = (id.clone(), owner.to_owned(), ttl_millis(ttl));
        // `now` is the writer's reading of the system clock for this transaction.
        self.write(format!("lease run '{id}' to {owner}"), move |conn, now| {
            runs::lease(conn, &id, &owner, now, ttl_ms)?.ok_or_else(|| StoreError::NoSuchRun(id.clone()).into())
        })
        .await
    }

    async fn release(&self, id: &RunId, owner: &str) -> Result<bool, StoreError> {
        let (id, owner) = (id.clone(), owner.to_owned());
        self.write(format!("release {owner}'s lease on run '{id}'"), move |conn, _| {
            runs::release(conn, &id, &owner)?.ok_or_else(|| StoreError::NoSuchRun(id.clone()).into())
        })
        .await
    }

    async fn runnable(&self) -> Result<Vec<RunId>, StoreError> {
        // Leases are kept in the system clock's time (see `lease`).
        let now = SystemClock.now();
        self.read("list the runs nobody executes".to_owned(), move |conn| runs::runnable(conn, now)).await
    }

    async fn claim(&self, id: &RunId, from: &[RunStatus]) -> Result<bool, StoreError> {
        let (id, from) = (id.clone(), from.to_vec());
        self.write(format!("claim run '{id}'"), move |conn, _| {
            runs::claim(conn, &id, &from)?.ok_or_else(|| StoreError::NoSuchRun(id.clone()).into())
        })
        .await
    }
}
