//! The run loop where it lives (DESIGN.md §4): a run that pauses for the person and
//! is resumed with their answer, one whose process stops mid-reply and is resumed
//! from its last stored step, and one cancelled mid-reply — driven through
//! [`start_run`] and [`resume_run`] with the deterministic [`Book`] model, the
//! engine's [`MemoryStore`], a stepping clock and sequential ids, so each stored
//! trace is the same bytes on every run and is snapshot-tested (insta), as the
//! example crews' traces are in crewgraph's tests.

use std::sync::Arc;
use std::time::Duration;

use crewgraph_engine::run::{resume_run, start_run, CollectingSink, EventKind, RunError, RunEvent, RunStatus, RunStore};
use crewgraph_engine::{AgentId, RunId};
use tokio_util::sync::CancellationToken;

use crate::bench::{source, Bench};
use crate::model::{Book, Say};

/// The longest a run may take before the test calls it hung (a busy machine included).
const LIMIT: Duration = Duration::from_secs(30);

impl Bench {
    async fn stored(&self, id: &RunId) -> Vec<RunEvent> {
        self.store.events(id, None).await.expect("the run is stored")
    }

    async fn status(&self, id: &RunId) -> (RunStatus, String) {
        let run = self.store.load_run(id).await.expect("the store answers").expect("the run is stored");
        (run.snapshot.status, run.snapshot.current_agent.to_string())
    }

    async fn history(&self, id: &RunId) -> Vec<String> {
        let run = self.store.load_run(id).await.expect("the store answers").expect("the run is stored");
        run.history.into_iter().map(|m| m.content).collect()
    }
}

/// A trace as text: one JSON event per line.
fn trace(events: &[RunEvent]) -> String {
    events.iter().map(|e| serde_json::to_string(e).expect("events serialize")).collect::<Vec<_>>().join("\n")
}

/// The seqs of `events`: 0, 1, 2 … with no gap and no repeat, whatever the legs.
fn assert_contiguous(events: &[RunEvent]) {
    let seqs: Vec<u64> = events.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, (0..events.len() as u64).collect::<Vec<_>>(), "seqs without a gap: {}", trace(events));
}

async fn bounded<F: std::future::Future>(leg: F) -> F::Output {
    tokio::time::timeout(LIMIT, leg).await.expect("the run did not end in time")
}

#[tokio::test]
async fn a_paused_run_is_resumed_with_the_persons_answer_and_its_trace_is_stable() {
    let bench = Bench::new();
    let first = Arc::new(Book::new(&[("a", &[Say::Text("Which colour should the fence be? [WAIT]")])]));
    let sink = Arc::new(CollectingSink::default());
    let paused =
        bounded(start_run(&bench.crew, &source(), "Paint the fence.", &bench.deps(first, sink.clone()), &CancellationToken::new()))
            .await
            .expect("the run starts");
    assert_eq!(paused.status, RunStatus::Paused, "[WAIT] pauses the run: {}", trace(&sink.events()));
    let id = paused.run_id.clone();
    assert_eq!(bench.status(&id).await, (RunStatus::Paused, "a".to_owned()), "stored paused, at the agent that asked");
    assert_eq!(bench.stored(&id).await, sink.events(), "a pause is stored whole before the run returns");
    insta::assert_snapshot!("paused", trace(&sink.events()));

    let second = Arc::new(Book::new(&[
        ("a", &[Say::Text("Blue it is; over to you. [NEXT]"), Say::Text("The fence is blue. [DONE]")]),
        ("b", &[Say::Text("Painted it blue. [NEXT]")]),
    ]));
    let sink = Arc::new(CollectingSink::default());
    let resumed = bounded(resume_run(
        &bench.crew,
        &source(),
        &id,
        Some("Blue, please."),
        &bench.deps(second.clone(), sink.clone()),
        &CancellationToken::new(),
    ))
    .await
    .expect("a paused run resumes");
    assert_eq!((resumed.status, resumed.handoffs), (RunStatus::Terminated, 2), "{}", trace(&sink.events()));
    assert_eq!(second.asked()[0], (AgentId::from("a"), "Blue, please.".to_owned()), "the agent that asked is shown the answer");
    assert_eq!(
        bench.history(&id).await,
        [
            "Paint the fence.",
            "Which colour should the fence be? [WAIT]",
            "Blue, please.",
            "Blue it is; over to you. [NEXT]",
            "Painted it blue. [NEXT]",
            "The fence is blue. [DONE]"
        ]
    );
    let stored = bench.stored(&id).await;
    assert_contiguous(&stored);
    assert!(stored.ends_with(&sink.events()), "the resumed leg's events are stored after the paused leg's");
    insta::assert_snapshot!("paused_then_resumed", trace(&stored));

    // An ended run is not resumed again, and says why.
    let again = resume_run(&bench.crew, &source(), &id, Some("Red."), &bench.deps(second, sink), &CancellationToken::new()).await;
    assert!(matches!(&again, Err(RunError::NotResumable(_, "terminated"))), "{again:?}");
}

#[tokio::test]
async fn a_run_stopped_mid_reply_resumes_from_its_last_stored_step_and_its_trace_is_stable() {
    let bench = Bench::new();
    let first = Arc::new(Book::new(&[("a", &[Say::Text("Draft done; your turn. [NEXT]")]), ("b", &[Say::Hang])]));
    let sink = Arc::new(CollectingSink::default());
    let deps = bench.deps(first.clone(), sink.clone());
    let (cancel, source) = (CancellationToken::new(), source());
    // The process dies while b's model is answering: the run's future is dropped there.
    tokio::select! {
        ended = start_run(&bench.crew, &source, "Write a note.", &deps, &cancel) => panic!("the run ended instead of stopping: {ended:?}"),
        agent = bounded(first.hung()) => assert_eq!(agent, "b"),
    }
    let id = RunId::from("run-1");
    assert_eq!(bench.status(&id).await, (RunStatus::Running, "b".to_owned()), "stored as running, at the agent that was working");
    let stored = bench.stored(&id).await;
    let seen = sink.events();
    assert!(seen.len() > stored.len() && seen.starts_with(&stored), "b's unfinished step was shown, not stored: {}", trace(&seen));
    assert_eq!(stored.last().map(|e| e.kind.type_name()), Some("handoff"), "the stored events end where a step ends");
    insta::assert_snapshot!("interrupted", trace(&stored));

    let second = Arc::new(Book::new(&[("b", &[Say::Text("Note written. [NEXT]")]), ("a", &[Say::Text("Thanks. [DONE]")])]));
    let sink = Arc::new(CollectingSink::default());
    let resumed =
        bounded(resume_run(&bench.crew, &source, &id, None, &bench.deps(second.clone(), sink.clone()), &CancellationToken::new()))
            .await
            .expect("an interrupted run resumes");
    assert_eq!(resumed.status, RunStatus::Terminated, "{}", trace(&sink.events()));
    assert_eq!(second.asked()[0], (AgentId::from("b"), "Draft done; your turn. [NEXT]".to_owned()), "b starts its turn again");
    let said: Vec<EventKind> = sink.events().iter().take(2).map(|e| e.kind.clone()).collect();
    assert!(
        matches!(&said[..], [EventKind::Warning { message }, EventKind::Resumed { agent, input }]
            if message.contains("this run was interrupted") && agent == "b" && input.is_empty()),
        "the resume says the run was interrupted and goes on with no new input: {said:?}"
    );
    let stored = bench.stored(&id).await;
    assert_contiguous(&stored);
    assert_eq!(bench.history(&id).await, ["Write a note.", "Draft done; your turn. [NEXT]", "Note written. [NEXT]", "Thanks. [DONE]"]);
    insta::assert_snapshot!("interrupted_then_resumed", trace(&stored));
}

#[tokio::test]
async fn a_run_cancelled_mid_reply_ends_cancelled_with_its_events_kept_and_is_not_resumed() {
    let bench = Bench::new();
    let book = Arc::new(Book::new(&[("a", &[Say::Text("Over to you. [NEXT]")]), ("b", &[Say::Hang])]));
    let sink = Arc::new(CollectingSink::default());
    let deps = bench.deps(book.clone(), sink.clone());
    let cancel = CancellationToken::new();
    let stop = cancel.clone();
    let watcher = book.clone();
    tokio::spawn(async move {
        watcher.hung().await;
        stop.cancel();
    });
    let outcome = bounded(start_run(&bench.crew, &source(), "Go.", &deps, &cancel)).await.expect("the run starts");
    assert_eq!(outcome.status, RunStatus::Cancelled);
    let stored = bench.stored(&outcome.run_id).await;
    assert_eq!(stored, sink.events(), "every event up to the cancellation is stored");
    assert!(matches!(stored.last().map(|e| &e.kind), Some(EventKind::RunFinished { status: RunStatus::Cancelled, .. })));
    insta::assert_snapshot!("cancelled", trace(&stored));
    let again = resume_run(&bench.crew, &source(), &outcome.run_id, Some("go on"), &deps, &CancellationToken::new()).await;
    assert!(matches!(&again, Err(RunError::NotResumable(_, "cancelled"))), "{again:?}");
}
