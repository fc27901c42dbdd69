//! Run leases (docs/scale-out.md, "Run leases"): a run being executed is owned by
//! one executor — a worker's name, say — until its lease expires. The store grants
//! and renews leases atomically ([`super::RunStore::lease`]); the engine takes one
//! for every leg of a run when its [`super::RunDeps`] name an [`Executor`], renews
//! it while the leg runs (`LegLease`), and lets it go when the leg ends.
//!
//! A lease is what lets a dead worker's run be taken over: its lease runs out, and
//! the next executor to ask is granted it. A live executor whose lease was taken
//! over anyway (it stalled past its expiry) learns it at its next renewal and stops
//! without storing another step, so no run is executed twice.
//!
//! ```
//! use std::time::Duration;
//! use crewgraph_engine::run::lease::{decide, Lease, LeaseOutcome};
//! use crewgraph_engine::run::Timestamp;
//!
//! let held = Lease { owner: "worker-b".into(), expires_at: Timestamp(10_000) };
//! let ttl = Duration::from_secs(30);
//! // worker-a asks while worker-b's lease runs: refused, told who and until when.
//! assert_eq!(decide(Some(&held), "worker-a", Timestamp(5_000), ttl), LeaseOutcome::Held(held.clone()));
//! // Once it has run out, worker-a takes the run over.
//! let taken = Lease { owner: "worker-a".into(), expires_at: Timestamp(40_000) };
//! assert_eq!(decide(Some(&held), "worker-a", Timestamp(10_000), ttl), LeaseOutcome::Granted(taken));
//! ```

use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use super::driver::RunDeps;
use super::error::RunError;
use super::store::{RunStore, StoreError};
use super::time::Timestamp;
use crate::ids::RunId;

/// Who holds a run, and until when.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lease {
    /// The executor holding it (a worker's name).
    pub owner: String,
    /// When it runs out unless renewed, in the store's clock (PostgreSQL's server
    /// clock; the system clock for SQLite and memory).
    pub expires_at: Timestamp,
}

/// What [`RunStore::lease`] answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LeaseOutcome {
    /// The run is the caller's until the lease's expiry: it was free, already the
    /// caller's (renewed), or its holder's lease had run out (taken over).
    Granted(Lease),
    /// Someone else holds the run: nothing changed.
    Held(Lease),
}

impl LeaseOutcome {
    /// The lease as it stands after the call, whoever holds it.
    pub fn lease(&self) -> &Lease {
        match self {
            LeaseOutcome::Granted(lease) | LeaseOutcome::Held(lease) => lease,
        }
    }

    /// Whether the caller holds the run now.
    pub fn is_granted(&self) -> bool {
        matches!(self, LeaseOutcome::Granted(_))
    }
}

/// The one rule every store keeps, written once for those that decide in Rust (the
/// in-memory store): `owner` is granted the run until `now + ttl` when nobody holds
/// it, when it holds it already, or when the holder's lease has run out (expiring at
/// `now` counts as run out); otherwise the holder's lease is the answer.
pub fn decide(current: Option<&Lease>, owner: &str, now: Timestamp, ttl: Duration) -> LeaseOutcome {
    match current {
        Some(held) if held.owner != owner && held.expires_at > now => LeaseOutcome::Held(held.clone()),
        _ => LeaseOutcome::Granted(Lease { owner: owner.to_owned(), expires_at: Timestamp(now.0.saturating_add(ttl_millis(ttl))) }),
    }
}

/// A lease's length in whole milliseconds, as stores keep it.
pub fn ttl_millis(ttl: Duration) -> u64 {
    u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX)
}

/// Who executes a run's legs, for [`super::RunDeps::executor`].
#[derive(Clone, Debug)]
pub struct Executor {
    /// Its name, unique among the executors sharing a store (a worker's id).
    pub owner: String,
    /// How long a lease lasts unless renewed. A leg renews it once a third of it has
    /// passed, so two renewals may fail before it runs out.
    pub ttl: Duration,
    /// Fires when the executor is stopping (a worker told to stop): each of its legs
    /// stops after the step it is in, the run left `running` and its lease let go,
    /// so another executor goes on with it at once.
    pub stop: tokio_util::sync::CancellationToken,
}

impl Executor {
    /// `owner`, with leases of `ttl`, not stopping.
    pub fn new(owner: impl Into<String>, ttl: Duration) -> Executor {
        Executor { owner: owner.into(), ttl, stop: tokio_util::sync::CancellationToken::new() }
    }
}

/// Why a leg's lease could not be kept.
#[derive(Debug)]
pub(crate) enum Lost {
    /// Another executor holds the run now.
    To(Lease),
    /// The store could not be asked.
    Store(StoreError),
}

/// A leg's lease on its run: taken before the leg's first step, renewed as it runs,
/// released when it ends.
///
/// Renewal is a timer, not only a check between steps: one step may outlast the
/// lease (a 60-s model reply under a 30-s lease), and a lease renewed only between
/// steps would run out under it, inviting a second executor to take the run over
/// and call the model again. So while a step runs, [`LegLease::during`] renews the
/// lease every third of its length — on the leg's own task, between polls of the
/// step, so no task is spawned and nothing outlives the leg — and before each step
/// is stored, [`LegLease::keep`] renews it again if a third has passed. A renewal
/// that finds the run taken over stops the leg at once, before it stores anything.
pub(crate) struct LegLease {
    store: Arc<dyn RunStore>,
    run: RunId,
    executor: Executor,
    /// When the lease was last granted, in this process's monotonic time.
    renewed: std::sync::Mutex<Instant>,
}

impl LegLease {
    /// Takes the run's lease for `executor`; the holder's lease when another holds it.
    pub(crate) async fn take(store: Arc<dyn RunStore>, run: &RunId, executor: &Executor) -> Result<Result<LegLease, Lease>, StoreError> {
        let asked = Instant::now();
        Ok(match store.lease(run, &executor.owner, executor.ttl).await? {
            LeaseOutcome::Granted(_) => {
                Ok(LegLease { store, run: run.clone(), executor: executor.clone(), renewed: std::sync::Mutex::new(asked) })
            }
            LeaseOutcome::Held(lease) => Err(lease),
        })
    }

    fn renewed(&self) -> Instant {
        *self.renewed.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// When the lease is next due for renewal: a third of its length after the last.
    fn due(&self) -> Instant {
        self.renewed() + self.executor.ttl / 3
    }

    /// Renews the lease now.
    async fn renew(&self) -> Result<(), Lost> {
        let asked = Instant::now();
        match self.store.lease(&self.run, &self.executor.owner, self.executor.ttl).await {
            Ok(LeaseOutcome::Granted(_)) => {
                *self.renewed.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = asked;
                Ok(())
            }
            Ok(LeaseOutcome::Held(lease)) => Err(Lost::To(lease)),
            Err(error) => Err(Lost::Store(error)),
        }
    }

    /// Before a step is stored: renews the lease if a third of it has passed.
    pub(crate) async fn keep(&self) -> Result<(), Lost> {
        if Instant::now() >= self.due() {
            self.renew().await?;
        }
        Ok(())
    }

    /// Runs `work` (a step), renewing the lease each time a third of it passes. A
    /// renewal that finds the run taken over drops `work` and answers `Lost`; one
    /// the store could not answer is tried again at the next third, the step going on
    /// meanwhile (the lease is still ours until it runs out, and [`LegLease::keep`]
    /// asks again before the step is stored).
    pub(crate) async fn during<F: std::future::Future>(&self, work: F) -> Result<F::Output, Lease> {
        tokio::pin!(work);
        let mut retry_at: Option<Instant> = None;
        loop {
            let wake = retry_at.unwrap_or_else(|| self.due());
            tokio::select! {
                biased;
                out = &mut work => return Ok(out),
                () = tokio::time::sleep_until(wake) => match self.renew().await {
                    Ok(()) => retry_at = None,
                    Err(Lost::To(lease)) => return Err(lease),
                    Err(Lost::Store(_)) => retry_at = Some(Instant::now() + self.executor.ttl / 10),
                },
            }
        }
    }

    /// Lets the run go, so another executor may take it at once. A release the store
    /// could not make is left to the lease's expiry.
    pub(crate) async fn release(&self) {
        // Nothing to do about a failure here: the lease runs out by itself.
        let _ = self.store.release(&self.run, &self.executor.owner).await;
    }
}

/// The run's lease for the leg about to run, when `deps` name an executor:
/// `Leased` when another executor holds it.
pub(crate) async fn take_lease(id: &RunId, deps: &RunDeps) -> Result<Option<Arc<LegLease>>, RunError> {
    let Some(executor) = &deps.executor else { return Ok(None) };
    match LegLease::take(deps.store.clone(), id, executor).await? {
        Ok(lease) => Ok(Some(Arc::new(lease))),
        Err(held) => Err(RunError::Leased { run: id.clone(), holder: held.owner, until: held.expires_at }),
    }
}

/// A moment as a person reads it in a message: `21:04:05 UTC`.
pub fn clock_time(at: Timestamp) -> String {
    let seconds = (at.0 / 1000) % 86_400;
    format!("{:02}:{:02}:{:02} UTC", seconds / 3600, seconds / 60 % 60, seconds % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lease_is_granted_free_renewed_by_its_holder_and_taken_over_once_run_out() {
        let ttl = Duration::from_millis(1_000);
        let mine = |at| Lease { owner: "a".into(), expires_at: Timestamp(at) };
        assert_eq!(decide(None, "a", Timestamp(100), ttl), LeaseOutcome::Granted(mine(1_100)), "free");
        assert_eq!(decide(Some(&mine(1_100)), "a", Timestamp(500), ttl), LeaseOutcome::Granted(mine(1_500)), "renewed");
        let theirs = Lease { owner: "b".into(), expires_at: Timestamp(1_100) };
        assert_eq!(decide(Some(&theirs), "a", Timestamp(1_099), ttl), LeaseOutcome::Held(theirs.clone()), "still theirs");
        assert_eq!(decide(Some(&theirs), "a", Timestamp(1_100), ttl), LeaseOutcome::Granted(mine(2_100)), "run out at its expiry");
    }

    #[test]
    fn clock_times_are_hours_minutes_seconds_in_utc() {
        // 2026-11-27T21:04:05.678Z
        assert_eq!(clock_time(Timestamp(1_795_813_445_678)), "21:04:05 UTC");
    }
}
