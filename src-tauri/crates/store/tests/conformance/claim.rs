//! `claim`: the compare-and-set that moves a run to `running`, so that of two
//! resumes of one paused run exactly one goes ahead.

use crewgraph_engine::ids::RunId;
use crewgraph_engine::run::{RunStatus, RunStore, StoreError};

use crate::support::{Run, Subject};

/// A stored run whose latest step left it `status`.
async fn run_in(store: &dyn RunStore, id: &str, status: RunStatus) -> Run {
    let mut run = Run::new(id, 1_795_000_000_000);
    run.create(store).await.unwrap();
    let mut step = run.handoff("over to you");
    step.snapshot.status = status;
    run.append(store, step).await.unwrap();
    run
}

pub async fn claiming_a_paused_run_moves_it_to_running_once(subject: Subject) {
    let store = &*subject.store;
    let mut run = run_in(store, "run-paused", RunStatus::Paused).await;
    assert_eq!(store.claim(run.id(), &[RunStatus::Paused]).await, Ok(true));
    // Only the status moved: the rest of the snapshot is as the last step left it.
    run.snapshot.status = RunStatus::Running;
    run.assert_stored(store).await;
    assert_eq!(store.list_runs().await.unwrap()[0].status, RunStatus::Running);
    assert_eq!(store.claim(run.id(), &[RunStatus::Paused]).await, Ok(false), "it is running now, not paused");
    run.assert_stored(store).await;
}

pub async fn claim_from_a_status_the_run_is_not_in_changes_nothing(subject: Subject) {
    let store = &*subject.store;
    let run = run_in(store, "run-done", RunStatus::Completed).await;
    assert_eq!(store.claim(run.id(), &[RunStatus::Paused, RunStatus::Failed]).await, Ok(false));
    assert_eq!(store.claim(run.id(), &[]).await, Ok(false), "no status to move from");
    run.assert_stored(store).await;
    // Any of several statuses: a crashed `running` run or a paused one.
    let crashed = run_in(store, "run-crashed", RunStatus::Running).await;
    assert_eq!(store.claim(crashed.id(), &[RunStatus::Paused, RunStatus::Running]).await, Ok(true));
}

pub async fn of_two_concurrent_claims_exactly_one_wins(subject: Subject) {
    let store = subject.store.clone();
    for round in 0..20 {
        let run = run_in(&*store, &format!("run-race-{round}"), RunStatus::Paused).await;
        let claims: Vec<_> = (0..2)
            .map(|_| {
                let (store, id) = (store.clone(), run.id().clone());
                tokio::spawn(async move { store.claim(&id, &[RunStatus::Paused]).await })
            })
            .collect();
        let mut won = 0;
        for claim in claims {
            if claim.await.unwrap().unwrap() {
                won += 1;
            }
        }
        assert_eq!(won, 1, "round {round}: exactly one of two claims moves the run");
    }
}

pub async fn claiming_an_unknown_run_is_no_such_run(subject: Subject) {
    let store = &*subject.store;
    run_in(store, "run-known", RunStatus::Paused).await;
    let ghost = RunId::from("run-ghost");
    assert_eq!(store.claim(&ghost, &[RunStatus::Paused]).await, Err(StoreError::NoSuchRun(ghost.clone())));
    assert_eq!(store.claim(&ghost, &[]).await, Err(StoreError::NoSuchRun(ghost)));
}
