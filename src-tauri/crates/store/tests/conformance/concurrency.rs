//! Many runs writing at once, as the engine runs them: each from its own task,
//! each waiting for its step to be stored before the next. Every event must be
//! stored, in order, under the run it belongs to.

use std::sync::Arc;

use crewgraph_engine::run::RunStore;

use crate::support::{reply, Run, Subject};

const RUNS: usize = 200;
const STEPS: usize = 20;

pub async fn many_runs_appending_at_once_keep_every_event_in_order(subject: Subject) {
    let store: Arc<dyn RunStore> = subject.store.clone();
    let tasks: Vec<_> = (0..RUNS)
        .map(|i| {
            let store = store.clone();
            tokio::spawn(async move {
                let mut run = Run::new(&format!("run-{i:03}"), 1_795_000_000_000 + i as u64);
                run.create(&*store).await.unwrap();
                for turn in 0..STEPS {
                    let step = run.handoff(&format!("run {i} turn {turn}: {}", reply(60)));
                    run.append(&*store, step).await.unwrap();
                }
                run
            })
        })
        .collect();
    let mut runs = Vec::new();
    for task in tasks {
        runs.push(task.await.unwrap());
    }
    for run in &runs {
        assert_eq!(run.events.len(), 2 + 3 * STEPS);
        run.assert_stored(&*store).await;
    }
    let listed = store.list_runs().await.unwrap();
    assert_eq!(listed.len(), RUNS);
    assert_eq!(listed[0].id.as_str(), "run-199", "newest first");
    assert!(listed.iter().all(|r| r.handoffs == STEPS as u32));
}
