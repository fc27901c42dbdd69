//! Many runs writing at once, as the engine runs them: each from its own task,
//! each waiting for its step to be stored before the next. Every event must be
//! stored, in order, under the run it belongs to.

use std::sync::Arc;

use crewgraph_engine::run::RunStore;

use crate::support::{reply, write_at_once, Subject};

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
