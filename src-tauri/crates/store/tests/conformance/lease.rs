//! `lease` and `release`: a run being executed is owned by one executor until its
//! lease runs out. Granted when free, renewed by its holder, taken over once run
//! out, refused (naming the holder and its expiry) otherwise; of many executors
//! asking at once for a free run, exactly one is granted it.
//!
//! Expiries are in the store's clock — the system clock here, and for PostgreSQL
//! the server's, which runs on this machine in the tests — so they are checked
//! against the time around the call, with a little slack for rounding.

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crewgraph_engine::ids::RunId;
use crewgraph_engine::run::{Lease, LeaseOutcome, RunStore, StoreError, Timestamp};

use crate::support::{Run, Subject};

/// A lease long enough never to run out during a test.
const LONG: Duration = Duration::from_secs(60);

/// How long a test waits for a short lease to run out before calling it stuck.
const DEADLINE: Duration = Duration::from_secs(20);

fn now() -> Timestamp {
    Timestamp(SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default().as_millis() as u64)
}

/// A stored run with one step after its first.
async fn stored_run(store: &dyn RunStore, id: &str) -> Run {
    let mut run = Run::new(id, 1_795_000_000_000);
    run.create(store).await.unwrap();
    let step = run.handoff("over to you");
    run.append(store, step).await.unwrap();
    run
}

/// Leases `id` to `owner` for `ttl`, checking the expiry is `ttl` after the call's
/// time (the store's clock, give or take rounding).
async fn granted(store: &dyn RunStore, id: &RunId, owner: &str, ttl: Duration) -> Lease {
    let before = now();
    let outcome = store.lease(id, owner, ttl).await.unwrap();
    let after = now();
    let LeaseOutcome::Granted(lease) = outcome else { panic!("{owner} must be granted run '{id}': {outcome:?}") };
    assert_eq!(lease.owner, owner);
    let ttl = ttl.as_millis() as u64;
    assert!(
        lease.expires_at.0 + 5 >= before.0 + ttl && lease.expires_at.0 <= after.0 + ttl + 5,
        "the lease runs {ttl} ms from the call ({before:?}..{after:?}): {lease:?}"
    );
    lease
}

pub async fn a_free_run_is_leased_to_its_first_asker_and_nothing_else_changes(subject: Subject) {
    let store = &*subject.store;
    let mut run = stored_run(store, "run-free").await;
    granted(store, run.id(), "worker-a", LONG).await;
    // A lease is not part of the run: its record, snapshot and events are as before,
    // and its holder goes on storing steps.
    run.assert_stored(store).await;
    let step = run.handoff("still mine");
    run.append(store, step).await.unwrap();
    run.assert_stored(store).await;
}

pub async fn while_a_lease_runs_another_owner_is_refused_and_told_who_holds_it_until_when(subject: Subject) {
    let store = &*subject.store;
    let run = stored_run(store, "run-held").await;
    let held = granted(store, run.id(), "worker-a", LONG).await;
    assert_eq!(store.lease(run.id(), "worker-b", LONG).await, Ok(LeaseOutcome::Held(held.clone())));
    // Asking again changes nothing either.
    assert_eq!(store.lease(run.id(), "worker-b", Duration::from_millis(1)).await, Ok(LeaseOutcome::Held(held)));
    run.assert_stored(store).await;
}

pub async fn a_lease_renewed_by_its_holder_moves_its_expiry(subject: Subject) {
    let store = &*subject.store;
    let run = stored_run(store, "run-renewed").await;
    let first = granted(store, run.id(), "worker-a", Duration::from_secs(1)).await;
    let renewed = granted(store, run.id(), "worker-a", LONG).await;
    assert!(renewed.expires_at.0 >= first.expires_at.0 + 58_000, "renewed for a minute from now: {first:?} → {renewed:?}");
    assert_eq!(store.lease(run.id(), "worker-b", LONG).await, Ok(LeaseOutcome::Held(renewed)), "the renewed lease is the one others see");
}

pub async fn an_expired_lease_is_taken_over_and_its_old_holder_refused(subject: Subject) {
    let store = &*subject.store;
    let run = stored_run(store, "run-taken").await;
    let short = granted(store, run.id(), "worker-a", Duration::from_millis(200)).await;
    // worker-b asks until the lease has run out; the deadline only guards a hang.
    let started = Instant::now();
    let taken = loop {
        let asked = now();
        match store.lease(run.id(), "worker-b", LONG).await.unwrap() {
            LeaseOutcome::Granted(lease) => break lease,
            LeaseOutcome::Held(lease) => {
                assert_eq!(lease, short, "until it runs out, worker-a holds the run");
                assert!(asked.0 < short.expires_at.0 + 1_000, "refused long after worker-a's lease ran out: {asked:?}, {short:?}");
            }
        }
        assert!(started.elapsed() < DEADLINE, "worker-a's 200-ms lease was not taken over within {DEADLINE:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(taken.owner, "worker-b");
    assert!(taken.expires_at.0 >= short.expires_at.0 + 59_000, "taken over only once run out: {short:?} → {taken:?}");
    // worker-a comes back: the run is worker-b's now, and worker-a's release is no release.
    assert_eq!(store.lease(run.id(), "worker-a", LONG).await, Ok(LeaseOutcome::Held(taken.clone())));
    assert_eq!(store.release(run.id(), "worker-a").await, Ok(false));
    assert_eq!(store.lease(run.id(), "worker-c", LONG).await, Ok(LeaseOutcome::Held(taken)));
}

pub async fn a_release_lets_another_take_the_lease_at_once(subject: Subject) {
    let store = &*subject.store;
    let run = stored_run(store, "run-released").await;
    granted(store, run.id(), "worker-a", LONG).await;
    assert_eq!(store.release(run.id(), "worker-a").await, Ok(true));
    granted(store, run.id(), "worker-b", LONG).await;
    assert_eq!(store.release(run.id(), "worker-a").await, Ok(false), "released once; worker-b holds it now");
    run.assert_stored(store).await;
}

pub async fn a_release_by_anyone_but_the_lease_holder_changes_nothing(subject: Subject) {
    let store = &*subject.store;
    let run = stored_run(store, "run-kept").await;
    assert_eq!(store.release(run.id(), "worker-a").await, Ok(false), "nobody holds it");
    let held = granted(store, run.id(), "worker-a", LONG).await;
    assert_eq!(store.release(run.id(), "worker-b").await, Ok(false));
    assert_eq!(store.release(run.id(), "").await, Ok(false));
    assert_eq!(store.lease(run.id(), "worker-c", LONG).await, Ok(LeaseOutcome::Held(held)), "worker-a still holds it, until the same time");
}

pub async fn of_many_owners_racing_for_a_free_runs_lease_exactly_one_wins(subject: Subject) {
    const OWNERS: usize = 16;
    let store: Arc<dyn RunStore> = subject.store.clone();
    for round in 0..5 {
        let run = stored_run(&*store, &format!("run-race-{round}")).await;
        let barrier = Arc::new(tokio::sync::Barrier::new(OWNERS));
        let tasks: Vec<_> = (0..OWNERS)
            .map(|i| {
                let (store, barrier, id) = (store.clone(), barrier.clone(), run.id().clone());
                tokio::spawn(async move {
                    barrier.wait().await;
                    store.lease(&id, &format!("worker-{i:02}"), LONG).await
                })
            })
            .collect();
        let mut outcomes = Vec::new();
        for task in tasks {
            outcomes.push(task.await.unwrap().unwrap());
        }
        let winners: Vec<&Lease> = outcomes.iter().filter(|o| o.is_granted()).map(LeaseOutcome::lease).collect();
        assert_eq!(winners.len(), 1, "round {round}: exactly one of {OWNERS} is granted the run: {outcomes:?}");
        let winner = winners[0].clone();
        for outcome in &outcomes {
            assert_eq!(outcome.lease(), &winner, "round {round}: every loser is told the winner and its expiry");
        }
        assert_eq!(store.lease(run.id(), "worker-late", LONG).await, Ok(LeaseOutcome::Held(winner)));
    }
}

pub async fn leases_on_two_runs_are_independent(subject: Subject) {
    let store = &*subject.store;
    let (one, two) = (stored_run(store, "run-one").await, stored_run(store, "run-two").await);
    let a = granted(store, one.id(), "worker-a", LONG).await;
    let b = granted(store, two.id(), "worker-b", LONG).await;
    assert_eq!(store.lease(one.id(), "worker-b", LONG).await, Ok(LeaseOutcome::Held(a)));
    assert_eq!(store.lease(two.id(), "worker-a", LONG).await, Ok(LeaseOutcome::Held(b.clone())));
    assert_eq!(store.release(one.id(), "worker-a").await, Ok(true));
    granted(store, one.id(), "worker-b", LONG).await;
    assert_eq!(store.lease(two.id(), "worker-c", LONG).await, Ok(LeaseOutcome::Held(b)), "releasing one run left the other alone");
}

pub async fn a_lease_or_release_of_an_unknown_run_is_no_such_run(subject: Subject) {
    let store = &*subject.store;
    stored_run(store, "run-known").await;
    let ghost = RunId::from("run-ghost");
    assert_eq!(store.lease(&ghost, "worker-a", LONG).await, Err(StoreError::NoSuchRun(ghost.clone())));
    assert_eq!(store.release(&ghost, "worker-a").await, Err(StoreError::NoSuchRun(ghost)));
}
