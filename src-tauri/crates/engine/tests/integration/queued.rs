//! Runs opened by one process and executed by another ([`crewgraph_engine::run::queued`]):
//! a run whose start (or resume) was stored by an API node and continued by a worker
//! stores the same events, in the same order with the same seqs, and the same
//! history, as one process doing both; a breakpoint released by a queued resume
//! lets its agent's turn come; a stale entry (a paused run, a run another executor
//! holds) is refused without storing anything; a worker that died mid-leg is
//! followed by one that says so and goes on from the last stored step — the same
//! trace, snapshot-tested, as one process interrupted and resumed at that moment;
//! and a stopping worker starts no further step and lets the run go.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crewgraph_engine::run::{
    continue_run, open_resume, open_start, resume_run, start_run, Breaks, CollectingSink, EventKind, Executor, RunDeps, RunError, RunEvent,
    RunStatus, RunStore,
};
use crewgraph_engine::{AgentId, RunId};
use tokio_util::sync::CancellationToken;

use crate::bench::{source, Bench};
use crate::model::{Book, Say};

const DEADLINE: Duration = Duration::from_secs(20);

/// The conversation every test runs: a asks the person, then a and b finish it.
fn first_leg() -> Arc<Book> {
    Arc::new(Book::new(&[
        ("a", &[Say::Text("Draft one. [NEXT]"), Say::Text("Which colour? [WAIT]")]),
        ("b", &[Say::Text("Checked. [NEXT]")]),
    ]))
}

fn second_leg() -> Arc<Book> {
    Arc::new(Book::new(&[("a", &[Say::Text("Blue it is. [NEXT]"), Say::Text("Done. [DONE]")]), ("b", &[Say::Text("Agreed. [NEXT]")])]))
}

fn sink() -> Arc<CollectingSink> {
    Arc::new(CollectingSink::default())
}

/// The events as a person reads them: kind and seq (the clock is read once more
/// when an opening is stored on its own, so times may differ by a tick).
fn trace(events: &[RunEvent]) -> Vec<(u64, EventKind)> {
    events.iter().map(|e| (e.seq, e.kind.clone())).collect()
}

async fn stored(bench: &Bench, id: &RunId) -> (Vec<(u64, EventKind)>, usize) {
    let events = bench.store.events(id, None).await.unwrap();
    let run = bench.store.load_run(id).await.unwrap().unwrap();
    (trace(&events), run.history.len())
}

#[tokio::test]
async fn a_run_opened_here_and_continued_there_stores_what_one_process_stores() {
    let cancel = CancellationToken::new();
    let id = RunId::from("run-1");
    // One process: start, pause, resume, end.
    let alone = Bench::new();
    let paused = start_run(&alone.crew, &source(), "Paint the fence.", &alone.deps(first_leg(), sink()), &cancel).await.unwrap();
    assert_eq!(paused.status, RunStatus::Paused);
    let ended = resume_run(&alone.crew, &source(), &id, Some("Blue."), &alone.deps(second_leg(), sink()), &cancel).await.unwrap();
    assert_eq!(ended.status, RunStatus::Terminated);

    // An API node opens each leg; a worker goes on with it.
    let split = Bench::new();
    let opened =
        open_start(&split.crew, &source(), "Paint the fence.", None, &split.deps(first_leg(), sink()), "{\"leg\":1}".into()).await.unwrap();
    assert_eq!(opened, id);
    let waiting = split.store.load_run(&id).await.unwrap().unwrap();
    assert_eq!((waiting.snapshot.status, waiting.options.as_deref()), (RunStatus::Running, Some("{\"leg\":1}")));
    assert_eq!(split.store.runnable().await.unwrap(), vec![id.clone()], "opened, held by nobody: a sweeper would find it");
    let paused = continue_run(&split.crew, &source(), &id, None, &split.deps(first_leg(), sink()), &cancel).await.unwrap();
    assert_eq!(paused.status, RunStatus::Paused);
    open_resume(&split.crew, &source(), &id, Some("Blue."), &split.deps(Arc::new(Book::new(&[])), sink()), "{\"leg\":2}".into())
        .await
        .unwrap();
    assert_eq!(split.store.load_run(&id).await.unwrap().unwrap().options.as_deref(), Some("{\"leg\":2}"));
    let ended = continue_run(&split.crew, &source(), &id, None, &split.deps(second_leg(), sink()), &cancel).await.unwrap();
    assert_eq!(ended.status, RunStatus::Terminated);

    assert_eq!(stored(&split, &id).await, stored(&alone, &id).await, "the same events, seqs and history");
    assert!(split.store.runnable().await.unwrap().is_empty());
}

#[tokio::test]
async fn a_queued_resume_of_a_pause_before_a_turn_lets_that_turn_come() {
    let bench = Bench::new();
    let cancel = CancellationToken::new();
    let held = |book| RunDeps { breaks: Breaks { before: Some(vec![AgentId::from("b")]), step: false }, ..bench.deps(book, sink()) };
    let id = open_start(&bench.crew, &source(), "Go.", None, &held(first_leg()), "{}".into()).await.unwrap();
    let paused = continue_run(&bench.crew, &source(), &id, None, &bench.deps(first_leg(), sink()), &cancel).await.unwrap();
    assert_eq!((paused.status, paused.final_agent.as_ref().map(AgentId::as_str)), (RunStatus::Paused, Some("b")), "held before b");
    open_resume(&bench.crew, &source(), &id, None, &bench.deps(Arc::new(Book::new(&[])), sink()), "{}".into()).await.unwrap();
    let book = first_leg();
    let went_on = continue_run(&bench.crew, &source(), &id, None, &bench.deps(book.clone(), sink()), &cancel).await.unwrap();
    assert_eq!(book.asked().first().map(|(agent, _)| agent.as_str()), Some("b"), "b's turn came, not another pause before it");
    assert_eq!(went_on.status, RunStatus::Paused, "a asks the person next");
}

#[tokio::test]
async fn a_stale_entry_is_refused_and_stores_nothing() {
    let bench = Bench::new();
    let cancel = CancellationToken::new();
    let id = open_start(&bench.crew, &source(), "Go.", None, &bench.deps(first_leg(), sink()), "{}".into()).await.unwrap();
    let paused = continue_run(&bench.crew, &source(), &id, None, &bench.deps(first_leg(), sink()), &cancel).await.unwrap();
    assert_eq!(paused.status, RunStatus::Paused);
    let before = stored(&bench, &id).await;
    // The entry came again (a sweeper, a redelivery): the run waits for the person.
    let book = second_leg();
    let again = continue_run(&bench.crew, &source(), &id, None, &bench.deps(book.clone(), sink()), &cancel).await;
    assert!(matches!(again, Err(RunError::NotResumable(_, "paused"))), "{again:?}");
    assert!(book.asked().is_empty());
    assert_eq!(stored(&bench, &id).await, before);
    assert_eq!(bench.store.load_run(&id).await.unwrap().unwrap().snapshot.status, RunStatus::Paused, "still waiting");

    // An entry for a run another executor holds is refused too.
    open_resume(&bench.crew, &source(), &id, Some("Blue."), &bench.deps(Arc::new(Book::new(&[])), sink()), "{}".into()).await.unwrap();
    bench.store.lease(&id, "worker-a", Duration::from_secs(60)).await.unwrap();
    let executor = Some(Executor::new("worker-b", Duration::from_secs(60)));
    let refused = continue_run(&bench.crew, &source(), &id, None, &RunDeps { executor, ..bench.deps(book.clone(), sink()) }, &cancel).await;
    assert!(matches!(&refused, Err(RunError::Leased { holder, .. }) if holder == "worker-a"), "{refused:?}");
    assert!(book.asked().is_empty());
}

#[tokio::test]
async fn a_worker_after_one_that_died_mid_leg_says_so_and_goes_on() {
    let bench = Bench::new();
    let cancel = CancellationToken::new();
    let id = open_start(&bench.crew, &source(), "Go.", None, &bench.deps(first_leg(), sink()), "{}".into()).await.unwrap();
    let dying = Arc::new(Book::new(&[("a", &[Say::Text("Draft one. [NEXT]")]), ("b", &[Say::Hang])]));
    let executor = |owner: &str, ttl| Some(Executor::new(owner, ttl));
    {
        let deps = RunDeps { executor: executor("worker-a", Duration::from_millis(300)), ..bench.deps(dying.clone(), sink()) };
        let from = source();
        let leg = continue_run(&bench.crew, &from, &id, None, &deps, &cancel);
        tokio::pin!(leg);
        tokio::select! {
            ended = &mut leg => panic!("the leg ended instead of hanging: {ended:?}"),
            _ = tokio::time::timeout(DEADLINE, dying.hung()) => {}
        }
        // worker-a dies here, holding the lease.
    }
    let book = Arc::new(Book::new(&[("b", &[Say::Text("Checked. [NEXT]")]), ("a", &[Say::Text("Done. [DONE]")])]));
    let deps = RunDeps { executor: executor("worker-b", Duration::from_secs(60)), ..bench.deps(book, sink()) };
    let started = Instant::now();
    let ended = loop {
        match continue_run(&bench.crew, &source(), &id, None, &deps, &cancel).await {
            Err(RunError::Leased { .. }) => assert!(started.elapsed() < DEADLINE, "worker-a's lease never ran out"),
            other => break other.expect("worker-b goes on"),
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(ended.status, RunStatus::Terminated);
    let events = bench.store.events(&id, None).await.unwrap();
    let interrupted = events.iter().position(|e| matches!(&e.kind, EventKind::Warning { message } if message.contains("interrupted")));
    let resumed = events.iter().position(|e| matches!(&e.kind, EventKind::Resumed { .. }));
    assert!(interrupted.is_some() && resumed == interrupted.map(|at| at + 1), "worker-b says the run was interrupted, then goes on");
    let seqs: Vec<u64> = events.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, (0..events.len() as u64).collect::<Vec<_>>());
}

#[tokio::test]
async fn a_stopping_executors_leg_starts_no_step_and_lets_the_run_go() {
    let bench = Bench::new();
    let cancel = CancellationToken::new();
    let id = open_start(&bench.crew, &source(), "Go.", None, &bench.deps(first_leg(), sink()), "{}".into()).await.unwrap();
    let slow = Arc::new(Book::new(&[("a", &[Say::Text("Draft one. [NEXT]")]), ("b", &[Say::Hang])]));
    let stopping = Executor::new("worker-a", Duration::from_secs(60));
    let deps = RunDeps { executor: Some(stopping.clone()), ..bench.deps(slow.clone(), sink()) };
    {
        let from = source();
        let leg = continue_run(&bench.crew, &from, &id, None, &deps, &cancel);
        tokio::pin!(leg);
        tokio::select! {
            ended = &mut leg => panic!("the leg ended instead of hanging in b's turn: {ended:?}"),
            _ = tokio::time::timeout(DEADLINE, slow.hung()) => {}
        }
        // worker-a is told to stop; its leg in b's turn is dropped here (the step it is
        // in is its own business: the driver checks between steps), and its next leg
        // of the run starts no step at all.
        stopping.stop.cancel();
    }
    let fresh = Arc::new(Book::new(&[("b", &[Say::Text("Checked. [NEXT]")])]));
    let deps = RunDeps { executor: Some(stopping.clone()), ..bench.deps(fresh.clone(), sink()) };
    // The lease of the dropped leg is still worker-a's own: granted again at once.
    let stopped = continue_run(&bench.crew, &source(), &id, None, &deps, &cancel).await.unwrap();
    assert_eq!(stopped.status, RunStatus::Running, "stopped between steps, not ended");
    assert!(fresh.asked().is_empty(), "a stopping executor starts no step");
    assert_eq!(bench.store.load_run(&id).await.unwrap().unwrap().snapshot.status, RunStatus::Running);
    assert!(bench.store.lease(&id, "worker-b", Duration::from_secs(1)).await.unwrap().is_granted(), "its lease was let go");
}

#[tokio::test]
async fn a_run_taken_over_from_a_dead_worker_stores_what_one_process_stores_when_interrupted_and_resumed() {
    let (cancel, id) = (CancellationToken::new(), RunId::from("run-1"));
    let dying = || Arc::new(Book::new(&[("a", &[Say::Text("Draft done; your turn. [NEXT]")]), ("b", &[Say::Hang])]));
    let finishing = || Arc::new(Book::new(&[("b", &[Say::Text("Note written. [NEXT]")]), ("a", &[Say::Text("Thanks. [DONE]")])]));

    // One process: the run stops while b's model answers, and is resumed.
    let alone = Bench::new();
    let book = dying();
    {
        let (deps, from) = (alone.deps(book.clone(), sink()), source());
        tokio::select! {
            ended = start_run(&alone.crew, &from, "Write a note.", &deps, &cancel) => panic!("ended: {ended:?}"),
            _ = tokio::time::timeout(DEADLINE, book.hung()) => {}
        }
    }
    resume_run(&alone.crew, &source(), &id, None, &alone.deps(finishing(), sink()), &cancel).await.unwrap();

    // A cluster: an API node opens it, worker A dies at the same moment, worker B goes on.
    let split = Bench::new();
    open_start(&split.crew, &source(), "Write a note.", None, &split.deps(Arc::new(Book::new(&[])), sink()), "{}".into()).await.unwrap();
    let book = dying();
    {
        let (deps, from) = (split.deps(book.clone(), sink()), source());
        tokio::select! {
            ended = continue_run(&split.crew, &from, &id, None, &deps, &cancel) => panic!("ended: {ended:?}"),
            _ = tokio::time::timeout(DEADLINE, book.hung()) => {}
        }
    }
    continue_run(&split.crew, &source(), &id, None, &split.deps(finishing(), sink()), &cancel).await.unwrap();

    assert_eq!(stored(&split, &id).await, stored(&alone, &id).await, "the same events, seqs and history");
    let events = split.store.events(&id, None).await.unwrap();
    let text: Vec<String> = events.iter().map(|e| serde_json::to_string(e).expect("events serialize")).collect();
    insta::assert_snapshot!("taken_over_from_a_dead_worker", text.join("\n"));
}
