//! A run's events for the window, in batches (`forward_batches`): every event once,
//! in `seq` order, with the end of the watch on the last batch — for a run watched
//! from its start, and for a watcher that comes back after some events.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use crewgraph::api::{forward_batches, options, Api, RunBatch, WatchEnd};
use crewgraph_store::SqliteStore;

use crate::support::repo_root;

fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap().block_on(future)
}

async fn collect(api: &Api, id: &crewgraph_engine::RunId, after: Option<u64>) -> Vec<RunBatch> {
    let batches = Arc::new(Mutex::new(Vec::new()));
    let sink = batches.clone();
    let watch = api.watch_run(id, after).await.unwrap();
    forward_batches(watch, Duration::from_millis(50), move |batch| {
        sink.lock().unwrap().push(batch);
        true
    })
    .await;
    Arc::try_unwrap(batches).unwrap().into_inner().unwrap()
}

#[test]
fn a_run_arrives_in_batches_holding_every_event_once_in_order() {
    let sandbox = tempfile::tempdir().unwrap();
    let store = Arc::new(SqliteStore::open(sandbox.path().join("crewgraph.db")).unwrap());
    let api = Api::new(repo_root().join("crews")).with_sqlite(store);
    let crews = repo_root().join("crews");
    block_on(async {
        let script = crews.join("scripts/exam.yaml").display().to_string();
        let id = api.spawn_run(&crews.join("exam.yaml"), "Start the exam", options(Some(&script), None)).await.unwrap();
        let batches = collect(&api, &id, None).await;
        let last = batches.last().expect("a batch");
        assert_eq!(last.end, Some(WatchEnd::Finished));
        assert!(batches[..batches.len() - 1].iter().all(|b| b.end.is_none() && !b.events.is_empty()));
        let seqs: Vec<u64> = batches.iter().flat_map(|b| b.events.iter().map(|e| e.seq)).collect();
        let stored = api.run_events(&id, None).await.unwrap();
        assert_eq!(seqs, (0..stored.len() as u64).collect::<Vec<_>>());
        assert!(batches.len() < stored.len(), "events are gathered, not sent one by one");

        // Coming back after event 5: exactly the rest, then the end.
        let rest = collect(&api, &id, Some(5)).await;
        let seqs: Vec<u64> = rest.iter().flat_map(|b| b.events.iter().map(|e| e.seq)).collect();
        assert_eq!(seqs, (6..stored.len() as u64).collect::<Vec<_>>());
        assert_eq!(rest.last().unwrap().end, Some(WatchEnd::Finished));
    });
}
