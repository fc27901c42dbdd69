//! Run leases (docs/scale-out.md, "Run leases"): a run being executed is owned by
//! one executor — a worker's name, say — until its lease expires. The store grants
//! and renews leases atomically ([`super::RunStore::lease`]).
//!
//! A lease is what lets a dead worker's run be taken over: its lease runs out, and
//! the next executor to ask is granted it.
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

use std::time::Duration;

use super::time::Timestamp;

/// Who holds a run, and until when.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lease {
    /// The executor holding it (a worker's name).
    pub owner: String,
    /// When it runs out unless renewed, in the store's clock (PostgreSQL's server
    /// clock; the system clock for SQLite and memory).
    pub expires_at: Timestamp,
}

/// What [`super::RunStore::lease`] answered.
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
