//! [`PostgresStore`]: the engine's [`RunStore`] on a PostgreSQL database, through
//! a pool of connections ([`deadpool_postgres`]).
//!
//! Every method takes a connection from the pool and runs one statement on it —
//! a step, a claim, a lease, a load are each one round trip and one transaction (`step.rs`
//! for the writes). Statements are prepared once per connection and kept. The
//! typed methods of the other tables (crew revisions, runtime agents, settings)
//! are in their tables' files.

use std::time::Duration;

use async_trait::async_trait;
use crewgraph_engine::ids::RunId;
use crewgraph_engine::run::lease::ttl_millis;
use crewgraph_engine::run::seen::AgentContext;
use crewgraph_engine::run::{LeaseOutcome, RunEvent, RunRecord, RunStatus, RunStore, RunSummary, StepRecord, StoreError, StoredRun};
use deadpool_postgres::{Manager, ManagerConfig, Object, Pool, RecyclingMethod, Runtime};
use tokio_postgres::NoTls;

use crate::address::{Address, Place};
use crate::error::Fault;
use crate::schema;
use crate::step::{self, EncodedStep, RecordRow};
use crate::tables::{events, runs, steps};

/// How often [`RunStore::lease`] asks again when its refusal was read from a run
/// whose lease changed hands while the statement waited.
const LEASE_ATTEMPTS: usize = 5;

/// How the store connects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PostgresOptions {
    /// The most connections the store keeps open at once.
    pub pool_size: usize,
    /// How long connecting to the server may take before `StoreError::Io`.
    pub connect_timeout: Duration,
    /// How long a call waits for a free connection before `StoreError::Busy`.
    pub wait_timeout: Duration,
}

impl Default for PostgresOptions {
    fn default() -> Self {
        PostgresOptions { pool_size: 16, connect_timeout: Duration::from_secs(10), wait_timeout: Duration::from_secs(30) }
    }
}

/// Runs kept in a PostgreSQL database, shared by every process that opens it.
///
/// Its methods need a tokio runtime (the pool's connections run on it).
pub struct PostgresStore {
    pool: Pool,
    place: Place,
}

impl std::fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresStore").field("place", &self.place.to_string()).finish_non_exhaustive()
    }
}

impl PostgresStore {
    /// Connects to the database at `url` (`postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`)
    /// and brings its tables up to date.
    pub async fn connect(url: &str) -> Result<PostgresStore, StoreError> {
        Self::connect_with(url, &PostgresOptions::default()).await
    }

    /// [`PostgresStore::connect`] with options (pool size, timeouts).
    pub async fn connect_with(url: &str, options: &PostgresOptions) -> Result<PostgresStore, StoreError> {
        let address = Address::parse(url, options.connect_timeout)?;
        let place = address.place.clone();
        let manager = Manager::from_config(address.config, NoTls, ManagerConfig { recycling_method: RecyclingMethod::Fast });
        let pool = Pool::builder(manager)
            .max_size(options.pool_size.max(1))
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(options.wait_timeout))
            .create_timeout(Some(options.connect_timeout))
            .recycle_timeout(Some(options.connect_timeout))
            .build()
            .map_err(|_| StoreError::Io(format!("cannot open {place}: the connection pool cannot be set up")))?;
        let store = PostgresStore { pool, place };
        let mut client = store.client().await.map_err(|fault| fault.describe("open Crewgraph's tables", &store.place))?;
        schema::migrate(&mut client).await.map_err(|fault| fault.describe("bring Crewgraph's tables up to date", &store.place))?;
        Ok(store)
    }

    /// How messages name the database: “the PostgreSQL database 'crewgraph' at 127.0.0.1:5432”.
    pub fn describe(&self) -> String {
        self.place.to_string()
    }

    /// Whether the database answers (for health checks): one round trip.
    pub async fn ping(&self) -> Result<(), StoreError> {
        let asked = async {
            self.client().await?.simple_query("SELECT 1").await?;
            Ok::<_, Fault>(())
        };
        asked.await.map_err(|fault| fault.describe("answer a ping", &self.place))
    }

    /// How messages name the database.
    pub(crate) fn place(&self) -> &Place {
        &self.place
    }

    /// A connection from the pool.
    pub(crate) async fn client(&self) -> Result<Object, Fault> {
        Ok(self.pool.get().await?)
    }

    /// Runs `sql` with `params` on a pooled connection (prepared once per
    /// connection) and returns its rows.
    pub(crate) async fn query(
        &self,
        sql: &str,
        params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
    ) -> Result<Vec<tokio_postgres::Row>, Fault> {
        let client = self.client().await?;
        let statement = client.prepare_cached(sql).await?;
        Ok(client.query(&statement, params).await?)
    }
}

#[async_trait]
impl RunStore for PostgresStore {
    async fn create_run(&self, record: &RunRecord, first: &StepRecord) -> Result<(), StoreError> {
        let doing = format!("store the new run '{}'", record.id);
        let written = async {
            let step = EncodedStep::new(&record.id, first)?;
            step.check_first()?;
            let row = RecordRow::new(record)?;
            let rows = self.query(step::CREATE, &step.create_params(&row)).await?;
            if rows.is_empty() {
                return Err(Fault::Refused(StoreError::AlreadyExists(record.id.clone())));
            }
            Ok(())
        };
        written.await.map_err(|fault| fault.describe(&doing, &self.place))
    }

    async fn append_step(&self, step: &StepRecord) -> Result<(), StoreError> {
        let doing = format!("store a step of run '{}'", step.run_id);
        let written = async {
            let encoded = EncodedStep::new(&step.run_id, step)?;
            if !self.query(step::APPEND, &encoded.append_params()).await?.is_empty() {
                return Ok(());
            }
            // Nothing was written; say why.
            let stored = self.query(runs::POSITION, &[&step.run_id.as_str()]).await?;
            Err(step::refused(&encoded, stored.first()))
        };
        written.await.map_err(|fault| fault.describe(&doing, &self.place))
    }

    async fn load_run(&self, id: &RunId) -> Result<Option<StoredRun>, StoreError> {
        let read = async {
            let rows = self.query(runs::LOAD, &[&id.as_str()]).await?;
            let Some(row) = rows.first() else { return Ok(None) };
            let (record, snapshot) = runs::load(row)?;
            let history = steps::history(&runs::get::<Vec<String>>(row, runs::LOAD_HISTORY)?)?;
            if history.len() != snapshot.history_len as usize {
                return Err(Fault::Unreadable(format!(
                    "its snapshot counts {} history messages, {} are stored",
                    snapshot.history_len,
                    history.len()
                )));
            }
            let options = runs::get(row, runs::LOAD_OPTIONS)?;
            Ok(Some(StoredRun { record, snapshot, history, options }))
        };
        read.await.map_err(|fault| fault.describe(&format!("read run '{id}'"), &self.place))
    }

    async fn list_runs(&self) -> Result<Vec<RunSummary>, StoreError> {
        let read = async { self.query(runs::LIST, &[]).await?.iter().map(runs::summary).collect::<Result<Vec<_>, Fault>>() };
        read.await.map_err(|fault| fault.describe("list the runs", &self.place))
    }

    async fn events(&self, id: &RunId, after: Option<u64>) -> Result<Vec<RunEvent>, StoreError> {
        // Every stored seq is at most i64::MAX, so a larger `after` leaves nothing.
        let after_sql: i64 = after.map_or(-1, |after| i64::try_from(after).unwrap_or(i64::MAX));
        let read = async {
            let rows = self.query(events::AFTER, &[&id.as_str(), &after_sql]).await?;
            events::read(&rows, id)?.ok_or_else(|| Fault::Refused(StoreError::NoSuchRun(id.clone())))
        };
        read.await.map_err(|fault| fault.describe(&format!("read the events of run '{id}'"), &self.place))
    }

    async fn lease(&self, id: &RunId, owner: &str, ttl: Duration) -> Result<LeaseOutcome, StoreError> {
        let ttl_ms = i64::try_from(ttl_millis(ttl)).unwrap_or(i64::MAX / 2);
        let leased = async {
            // A refusal read from the run as it stood before a lease granted meanwhile
            // is asked again: the next statement sees that lease.
            for _ in 0..LEASE_ATTEMPTS {
                let rows = self.query(runs::LEASE, &[&id.as_str(), &owner, &ttl_ms]).await?;
                let row = rows.first().ok_or_else(|| Fault::Refused(StoreError::NoSuchRun(id.clone())))?;
                if let Some(outcome) = runs::lease_read(row, owner)? {
                    return Ok(outcome);
                }
            }
            Err(Fault::Refused(StoreError::Busy(format!(
                "the lease of run '{id}' changed hands {LEASE_ATTEMPTS} times while {owner} asked for it"
            ))))
        };
        leased.await.map_err(|fault| fault.describe(&format!("lease run '{id}' to {owner}"), &self.place))
    }

    async fn release(&self, id: &RunId, owner: &str) -> Result<bool, StoreError> {
        let released = async {
            let rows = self.query(runs::RELEASE, &[&id.as_str(), &owner]).await?;
            let row = rows.first().ok_or_else(|| Fault::Unreadable("the release returned no answer".into()))?;
            let (released, known): (bool, bool) = (runs::get(row, 0)?, runs::get(row, 1)?);
            if !known {
                return Err(Fault::Refused(StoreError::NoSuchRun(id.clone())));
            }
            Ok(released)
        };
        released.await.map_err(|fault| fault.describe(&format!("release {owner}'s lease on run '{id}'"), &self.place))
    }

    async fn claim(&self, id: &RunId, from: &[RunStatus]) -> Result<bool, StoreError> {
        let names: Vec<&str> = from.iter().map(|status| status.as_str()).collect();
        let claimed = async {
            let rows = self.query(runs::CLAIM, &[&id.as_str(), &names]).await?;
            let row = rows.first().ok_or_else(|| Fault::Unreadable("the claim returned no answer".into()))?;
            let (moved, known): (bool, bool) = (runs::get(row, 0)?, runs::get(row, 1)?);
            if !known {
                return Err(Fault::Refused(StoreError::NoSuchRun(id.clone())));
            }
            Ok(moved)
        };
        claimed.await.map_err(|fault| fault.describe(&format!("claim run '{id}'"), &self.place))
    }

    async fn runnable(&self) -> Result<Vec<RunId>, StoreError> {
        let read = async {
            let rows = self.query(runs::RUNNABLE, &[]).await?;
            rows.iter().map(|row| runs::get::<String>(row, 0).map(RunId::new)).collect::<Result<Vec<_>, Fault>>()
        };
        read.await.map_err(|fault| fault.describe("list the runs nobody executes", &self.place))
    }

    async fn contexts(&self, id: &RunId) -> Result<Option<Vec<AgentContext>>, StoreError> {
        let read = async {
            let rows = self.query(steps::CONTEXTS, &[&id.as_str()]).await?;
            let row = rows.first().ok_or_else(|| Fault::Refused(StoreError::NoSuchRun(id.clone())))?;
            let arrays: Vec<String> = runs::get(row, 0)?;
            // Every step this store writes keeps them, the first step included.
            Ok::<_, Fault>(Some(steps::contexts(&arrays)?))
        };
        read.await.map_err(|fault| fault.describe(&format!("read what the agents of run '{id}' were given"), &self.place))
    }
}
