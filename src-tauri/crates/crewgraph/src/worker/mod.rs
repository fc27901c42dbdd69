//! `crewgraph worker`: executes the runs a queue hands it (docs/scale-out.md).
//!
//! A [`Worker`] reads the runs stream as one consumer of the workers' group, at most
//! `concurrency` runs at once, and executes each through the one function every
//! executor uses ([`Api::execute_queued`], the engine's `continue_run`), holding the
//! run's lease throughout. Its entry is acknowledged when the leg is over — the run
//! final or paused — or found to be nothing to do (already final or paused, held by
//! another executor, unknown, not a job): the store is the truth, the entry only a
//! wake-up.
//!
//! - **Taking over**: every third of a lease it claims entries other workers read
//!   and did not acknowledge for a whole lease (`XAUTOCLAIM`) — a dead worker's
//!   runs, which the engine resumes from their last stored step once their lease ran
//!   out.
//! - **Faults**: a queue or store out of reach is tried again with backoff (up to
//!   two seconds between tries), and an entry whose run could not be read is left
//!   pending, to be claimed again after a lease.
//! - **Stopping** ([`Worker::run`]'s `stop`): it reads no more entries; each leg
//!   stops after the step it is in (the run left running, its lease let go), and its
//!   entry is handed back to the queue at once, so another worker goes on with it.
//!   Legs that have not stopped within `drain` are dropped where they stand: their
//!   runs are taken over once their leases run out.
//! - **Health** ([`health`]): `GET /health` says whether the queue and the store
//!   answer, and how many runs it executes.
//! - **The control channel** ([`Api::follow_control`]): a person's cancel reaches
//!   the worker executing the run, and a watcher that starts listening mid-step gets
//!   the step's unstored events published again.

pub mod health;

use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crewgraph_engine::run::RunStatus;
use crewgraph_engine::RunId;
use crewgraph_queue::{Delivery, EntryId, Job, JobKind};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use crate::api::{Api, ApiErrorCode, Cluster};

/// How a worker works.
#[derive(Clone, Debug)]
pub struct WorkerConfig {
    /// Its name in the workers' group and as the executor of its runs (unique).
    pub id: String,
    /// How many runs it executes at once.
    pub concurrency: usize,
    /// How long its leases last unless renewed; entries other workers left that
    /// long are taken over.
    pub lease: Duration,
    /// How long a stop waits for legs to end.
    pub drain: Duration,
}

impl WorkerConfig {
    /// `id`, 64 runs at once, 30-s leases, 30 s to drain.
    pub fn new(id: impl Into<String>) -> WorkerConfig {
        WorkerConfig { id: id.into(), concurrency: 64, lease: Duration::from_secs(30), drain: Duration::from_secs(30) }
    }
}

/// What a worker did before it stopped.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WorkerStopped {
    /// Legs executed to their end or pause.
    pub executed: usize,
    /// Legs stopped between steps and handed back to the queue.
    pub handed_back: usize,
    /// Legs dropped where they stood when the drain ran out.
    pub dropped: usize,
}

/// How long to wait for new entries in one read.
const READ_WAIT: Duration = Duration::from_secs(2);
/// The longest pause between tries of a queue or store out of reach.
const BACKOFF_AT_MOST: Duration = Duration::from_secs(2);

/// A worker of a cluster (see the module's overview).
pub struct Worker {
    api: Api,
    cluster: Arc<Cluster>,
    config: WorkerConfig,
    executor: crewgraph_engine::run::Executor,
    /// Runs it executes now.
    running: Arc<AtomicUsize>,
    /// Legs it executed to their end or pause so far.
    executed: Arc<AtomicUsize>,
}

impl Worker {
    /// A worker executing runs through `api` (its store, crews and settings) for
    /// `cluster`'s queue.
    pub fn new(api: Api, cluster: Arc<Cluster>, config: WorkerConfig) -> Worker {
        let executor = crewgraph_engine::run::Executor::new(config.id.clone(), config.lease);
        // Nobody watches a worker's legs where it runs (watchers are on the API nodes,
        // fed through Redis): each leg's live ring holds one event, not a watcher's
        // thousand — thousands of runs in flight, each with its own ring.
        let api = api.with_live_capacity(1).with_executor(executor.clone()).as_worker(cluster.clone());
        Worker { api, cluster, config, executor, running: Arc::default(), executed: Arc::default() }
    }

    /// How many runs it executes now (shared with its health check).
    pub fn running(&self) -> Arc<AtomicUsize> {
        self.running.clone()
    }

    /// How many legs it executed to their end or pause so far (shared with its health check).
    pub fn executed(&self) -> Arc<AtomicUsize> {
        self.executed.clone()
    }

    /// Works until `stop` completes, then stops as the module's overview says.
    pub async fn run(self, stop: impl Future<Output = ()>) -> WorkerStopped {
        let slots = Arc::new(Semaphore::new(self.config.concurrency.max(1)));
        let stats = Arc::new(Mutex::new(WorkerStopped::default()));
        let mut legs = JoinSet::new();
        let control = self.api.follow_control().await;
        let mut consumer = None;
        let mut backoff = Duration::from_millis(50);
        let mut reclaim_at = tokio::time::Instant::now();
        tokio::pin!(stop);
        loop {
            while legs.try_join_next().is_some() {}
            let free = slots.available_permits();
            if free == 0 {
                tokio::select! {
                    () = &mut stop => break,
                    _ = legs.join_next() => continue,
                }
            }
            let deliveries = tokio::select! {
                () = &mut stop => break,
                read = self.read(&mut consumer, free, &mut reclaim_at) => read,
            };
            match deliveries {
                Ok(deliveries) => {
                    backoff = Duration::from_millis(50);
                    for delivery in deliveries {
                        let permit = slots.clone().acquire_owned().await.expect("the semaphore is never closed");
                        let leg = Leg {
                            api: self.api.clone(),
                            cluster: self.cluster.clone(),
                            running: self.running.clone(),
                            executed: self.executed.clone(),
                            stats: stats.clone(),
                        };
                        legs.spawn(async move {
                            leg.handle(delivery).await;
                            drop(permit);
                        });
                    }
                }
                Err(error) => {
                    tracing::warn!("{error}; trying again in {} ms", backoff.as_millis());
                    consumer = None;
                    tokio::select! {
                        () = &mut stop => break,
                        () = tokio::time::sleep(backoff) => {}
                    }
                    backoff = (backoff * 2).min(BACKOFF_AT_MOST);
                }
            }
        }
        if let Some(control) = control {
            control.abort();
        }
        // Stopping: each leg stops after the step it is in and hands its run back.
        self.executor.stop.cancel();
        let drained = tokio::time::timeout(self.config.drain, async { while legs.join_next().await.is_some() {} }).await;
        if drained.is_err() {
            let left = legs.len();
            legs.shutdown().await;
            lock(&stats).dropped += left;
        }
        let stats = lock(&stats).clone();
        stats
    }

    /// The next entries: those other workers left for a whole lease, every third of
    /// one, then new ones.
    async fn read(
        &self,
        consumer: &mut Option<crewgraph_queue::Consumer>,
        free: usize,
        reclaim_at: &mut tokio::time::Instant,
    ) -> Result<Vec<Delivery>, crewgraph_queue::QueueError> {
        if tokio::time::Instant::now() >= *reclaim_at {
            *reclaim_at = tokio::time::Instant::now() + self.config.lease / 3;
            let claimed = self.cluster.queue().reclaim(&self.config.id, self.config.lease, free).await?;
            if !claimed.is_empty() {
                return Ok(claimed);
            }
        }
        if consumer.is_none() {
            *consumer = Some(self.cluster.queue().consumer(&self.config.id).await?);
        }
        let reading = consumer.as_mut().expect("opened just above");
        let wait = READ_WAIT.min(reclaim_at.saturating_duration_since(tokio::time::Instant::now()).max(Duration::from_millis(10)));
        reading.next(free.min(256), wait).await
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// One entry being handled.
struct Leg {
    api: Api,
    cluster: Arc<Cluster>,
    running: Arc<AtomicUsize>,
    executed: Arc<AtomicUsize>,
    stats: Arc<Mutex<WorkerStopped>>,
}

impl Leg {
    async fn handle(self, delivery: Delivery) {
        let job = match delivery.job {
            Ok(job) => job,
            Err(bad) => {
                tracing::warn!(entry = %delivery.id.0, "{bad}; dropped");
                self.ack(&delivery.id).await;
                return;
            }
        };
        let id = RunId::from(job.run_id.as_str());
        self.running.fetch_add(1, Ordering::Relaxed);
        let outcome = self.api.execute_queued(&id).await;
        self.running.fetch_sub(1, Ordering::Relaxed);
        match outcome {
            Ok(outcome) if outcome.status == RunStatus::Running => {
                // Stopped between steps (the worker is stopping): another worker goes on at once.
                let again = Job { run_id: job.run_id.clone(), kind: JobKind::Start };
                if self.cluster.queue().enqueue(&again).await.is_ok() {
                    self.ack(&delivery.id).await;
                }
                lock(&self.stats).handed_back += 1;
            }
            Ok(_) => {
                self.ack(&delivery.id).await;
                self.executed.fetch_add(1, Ordering::Relaxed);
                lock(&self.stats).executed += 1;
            }
            // The store could not be read: left pending, claimed again after a lease.
            Err(error) if error.code == ApiErrorCode::Store => {
                tracing::warn!(run = %id, "{}; left in the queue", error.message);
            }
            // Nothing to do: another executor holds it, it is final or paused, unknown.
            Err(error) => {
                tracing::info!(run = %id, "{}; its queue entry is dropped", error.message);
                self.ack(&delivery.id).await;
            }
        }
    }

    async fn ack(&self, entry: &EntryId) {
        if let Err(error) = self.cluster.queue().ack(entry).await {
            // Left pending: claimed again after a lease, and found to be done.
            tracing::warn!(entry = %entry.0, "{error}");
        }
    }
}

/// A worker's default name: its host and process (`node-b:4121`).
pub fn default_id() -> String {
    let host = host_name().unwrap_or_else(|| "worker".to_owned());
    format!("{host}:{}", std::process::id())
}

/// This machine's name (what executors sharing a store are named after), when it
/// can be read.
pub fn host_name() -> Option<String> {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
}
