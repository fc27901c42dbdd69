//! Many runs writing at once, as the engine runs them: each from its own task,
//! each waiting for its step to be stored before the next. Every event must be
//! stored, in order, under the run it belongs to. And two writers that both
//! continue one run from the same seq (two workers that both think they own it):
//! exactly one step is stored, the other writer is told `OutOfOrder`.

use std::sync::Arc;

use crewgraph_engine::run::{RunStore, StoreError};

use crate::support::{reply, write_at_once, Run, Subject};

const RUNS: usize = 200;
const STEPS: usize = 20;

pub async fn many_runs_appending_at_once_keep_every_event_in_order(subject: Subject) {
    let store: Arc<dyn RunStore> = subject.store.clone();
    let runs =
        write_at_once(store.clone(), RUNS, STEPS, |i| format!("run-{i:03}"), |i, turn| format!("run {i} turn {turn}: {}", reply(60))).await;
    for run in &runs {
        assert_eq!(run.events.len(), 2 + 3 * STEPS);
        run.assert_stored(&*store).await;
    }
    let listed = store.list_runs().await.unwrap();
    assert_eq!(listed.len(), RUNS);
    assert_eq!(listed[0].id.as_str(), "run-199", "newest first");
    assert!(listed.iter().all(|r| r.handoffs == STEPS as u32));
}

pub async fn two_writers_continuing_one_run_at_the_same_seq_exactly_one_wins(subject: Subject) {
    let store: Arc<dyn RunStore> = subject.store.clone();
    for round in 0..20 {
        let mut run = Run::new(&format!("run-race-{round:02}"), 1_795_000_000_000 + round);
        run.create(&*store).await.unwrap();
        let warm_up = run.handoff("before the race");
        run.append(&*store, warm_up).await.unwrap();
        // Two different steps, both continuing the run from where it stands.
        let steps = [run.handoff(&format!("writer A, round {round}")), run.handoff(&format!("writer B, round {round}"))];
        let barrier = Arc::new(tokio::sync::Barrier::new(2));
        let tasks: Vec<_> = steps
            .iter()
            .cloned()
            .map(|step| {
                let (store, barrier) = (store.clone(), barrier.clone());
                tokio::spawn(async move {
                    barrier.wait().await;
                    store.append_step(&step).await
                })
            })
            .collect();
        let mut results = Vec::new();
        for task in tasks {
            results.push(task.await.unwrap());
        }
        let winners: Vec<usize> = (0..2).filter(|&i| results[i].is_ok()).collect();
        assert_eq!(winners.len(), 1, "round {round}: exactly one of two racing steps is stored: {results:?}");
        let loser = 1 - winners[0];
        match &results[loser] {
            Err(StoreError::OutOfOrder { run: id, .. }) => assert_eq!(id, run.id(), "the conflict names the run"),
            other => panic!("round {round}: the losing writer must get OutOfOrder, got {other:?}"),
        }
        // The run holds the winner's step whole, and nothing of the loser's.
        run.accept(&steps[winners[0]]);
        run.assert_stored(&*store).await;
        // The run goes on from the winner's step.
        let next = run.handoff("after the race");
        run.append(&*store, next).await.unwrap();
        run.assert_stored(&*store).await;
    }
}
