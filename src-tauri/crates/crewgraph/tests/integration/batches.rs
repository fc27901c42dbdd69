//! A run's events in batches: every event once, in `seq` order, with the end of the
//! watch on the last batch — for a run watched from its start, and for a watcher
//! that comes back after some events — as the server sends them (`forward_batches`,
//! a batch a frame) and as the window asks for them (`PulledWatches`).

use std::sync::{Arc, Mutex};

use crewgraph::api::{forward_batches, Api, PulledWatches, RunBatch, WatchEnd, FRAME};
use crewgraph_store::SqliteStore;

use crate::support::{block_on, repo_root, scripted};

/// As the server sends them: a batch a frame at most.
async fn collect(api: &Api, id: &crewgraph_engine::RunId, after: Option<u64>) -> Vec<RunBatch> {
    let batches = Arc::new(Mutex::new(Vec::new()));
    let sink = batches.clone();
    let watch = api.watch_run(id, after).await.unwrap();
    forward_batches(watch, FRAME, move |batch| {
        sink.lock().unwrap().push(batch);
        true
    })
    .await;
    Arc::try_unwrap(batches).unwrap().into_inner().unwrap()
}

/// As the window asks for them: each batch once the last is taken, to the end.
async fn pull(api: &Api, id: &crewgraph_engine::RunId, after: Option<u64>) -> Vec<RunBatch> {
    let watches = PulledWatches::default();
    let (watch, reading) = watches.start(api.watch_run(id, after).await.unwrap());
    tokio::spawn(reading);
    let mut batches = Vec::new();
    loop {
        let batch = watches.next(watch).await;
        let end = batch.end.is_some();
        batches.push(batch);
        if end {
            return batches;
        }
    }
}

fn seqs(batches: &[RunBatch]) -> Vec<u64> {
    batches.iter().flat_map(|b| b.events.iter().map(|e| e.seq)).collect()
}

#[test]
fn a_run_arrives_in_batches_holding_every_event_once_in_order() {
    let sandbox = tempfile::tempdir().unwrap();
    let store = Arc::new(SqliteStore::open(sandbox.path().join("crewgraph.db")).unwrap());
    let api = Api::new(repo_root().join("crews")).with_sqlite(store);
    let crews = repo_root().join("crews");
    block_on(async {
        let script = crews.join("scripts/exam.yaml").display().to_string();
        let id = api.spawn_run(&crews.join("exam.yaml"), "Start the exam", scripted(&script)).await.unwrap();
        let batches = collect(&api, &id, None).await;
        let last = batches.last().expect("a batch");
        assert_eq!(last.end, Some(WatchEnd::Finished));
        assert!(batches[..batches.len() - 1].iter().all(|b| b.end.is_none() && !b.events.is_empty()));
        let stored = api.run_events(&id, None).await.unwrap();
        assert_eq!(seqs(&batches), (0..stored.len() as u64).collect::<Vec<_>>());
        assert_eq!(batches[0].events.len(), 1, "the first event goes at once, not after a frame");
        assert!(batches.len() < stored.len(), "events that come while a batch is in flight are gathered, not sent one by one");

        // Asked for by the window: the same events, once each, in order.
        let asked = pull(&api, &id, None).await;
        assert_eq!(seqs(&asked), (0..stored.len() as u64).collect::<Vec<_>>());
        assert_eq!(asked.last().unwrap().end, Some(WatchEnd::Finished));
        assert!(asked[..asked.len() - 1].iter().all(|b| b.end.is_none() && !b.events.is_empty()), "no batch is empty but the end");

        // Coming back after event 5: exactly the rest, then the end, both ways.
        for rest in [collect(&api, &id, Some(5)).await, pull(&api, &id, Some(5)).await] {
            assert_eq!(seqs(&rest), (6..stored.len() as u64).collect::<Vec<_>>());
            assert_eq!(rest.last().unwrap().end, Some(WatchEnd::Finished));
        }
    });
}

#[test]
fn simulate_mode_finds_the_script_that_comes_with_a_crew() {
    let crews = repo_root().join("crews");
    let api = Api::new(&crews);
    assert_eq!(api.crew_scripts(&crews.join("exam.yaml")), [crews.join("scripts/exam.yaml")]);
    assert_eq!(api.crew_scripts(&crews.join("go-quiz")), [crews.join("scripts/go-quiz.yaml")]);
    assert!(api.crew_scripts(&crews.join("scripts/exam.yaml")).is_empty(), "a script has no script of its own");
}

#[test]
fn resuming_in_the_window_goes_on_with_the_replies_the_run_has_not_used() {
    let sandbox = tempfile::tempdir().unwrap();
    let store = Arc::new(SqliteStore::open(sandbox.path().join("crewgraph.db")).unwrap());
    let fixtures = repo_root().join("tests/e2e/fixtures");
    let api = Api::new(&fixtures).with_sqlite(store);
    block_on(async {
        let script = fixtures.join("interview-script.yaml").display().to_string();
        let id = api.spawn_run(&fixtures.join("interview.yaml"), "Interview me", scripted(&script)).await.unwrap();
        let first = collect(&api, &id, None).await;
        assert!(
            first.iter().flat_map(|b| &b.events).any(|e| matches!(e.kind, crewgraph_engine::run::EventKind::Paused { .. })),
            "the host asks first"
        );
        let seen = first.iter().flat_map(|b| &b.events).count() as u64;

        // The same script again: the host's first reply is not replayed.
        api.spawn_resume(&id, Some("Blue"), scripted(&script)).await.unwrap();
        let rest = collect(&api, &id, Some(seen - 1)).await;
        let replies: Vec<String> = rest
            .iter()
            .flat_map(|b| &b.events)
            .filter_map(|e| match &e.kind {
                crewgraph_engine::run::EventKind::AgentResponse { content, .. } => Some(content.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(replies, ["Thank you, passing it on. [SUMMARY]", "They like blue, the colour of the sea. [DONE]"]);
        assert_eq!(api.run_summary(&id).await.unwrap().status, crewgraph_engine::run::RunStatus::Terminated);
    });
}
