//! Run leases in the run loop ([`crewgraph_engine::run::lease`]): with an executor
//! in its `RunDeps`, each leg of a run holds the run's lease. A second executor is
//! refused while the first runs it, told who and until when (of two resumes of one
//! paused run, exactly one proceeds); a dead executor's run
//! is taken over once its lease runs out; and a leg whose lease was taken over while
//! it stalled stops without storing another step. Driven with the deterministic
//! [`Book`] model on the engine's [`MemoryStore`], as the run-loop tests are.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crewgraph_engine::run::lease::clock_time;
use crewgraph_engine::run::{
    resume_run, start_run, CollectingSink, EventKind, Executor, LeaseOutcome, RunDeps, RunError, RunStatus, RunStore,
};
use crewgraph_engine::RunId;
use tokio_util::sync::CancellationToken;

use crate::bench::{source, Bench};
use crate::model::{Book, Say};

/// How long a test waits for something that takes a lease's length before calling it hung.
const DEADLINE: Duration = Duration::from_secs(20);

impl Bench {
    /// Wiring for a leg executed by `owner` with leases of `ttl`.
    fn leased(&self, book: Arc<Book>, owner: &str, ttl: Duration) -> RunDeps {
        RunDeps { executor: Some(Executor::new(owner, ttl)), ..self.deps(book, Arc::new(CollectingSink::default())) }
    }

    async fn stored_seqs(&self, id: &RunId) -> usize {
        self.store.events(id, None).await.expect("the run is stored").len()
    }
}

/// Polls `leg` until `book`'s model hangs in it (the leg holds its lease there).
async fn until_hung<F: Future + Unpin>(leg: &mut F, book: &Book)
where
    F::Output: std::fmt::Debug,
{
    tokio::select! {
        ended = leg => panic!("the leg ended instead of waiting on its model: {ended:?}"),
        _ = tokio::time::timeout(DEADLINE, book.hung()) => {}
    }
}

#[tokio::test]
async fn a_second_executor_is_refused_while_the_first_runs_the_run_and_told_who_and_until_when() {
    let bench = Bench::new();
    let book_a = Arc::new(Book::new(&[("a", &[Say::Text("Over to you. [NEXT]")]), ("b", &[Say::Hang])]));
    let deps_a = bench.leased(book_a.clone(), "worker-a", Duration::from_secs(60));
    let cancel = CancellationToken::new();
    let from = source();
    let leg_a = start_run(&bench.crew, &from, "Go.", &deps_a, &cancel);
    tokio::pin!(leg_a);
    until_hung(&mut leg_a, &book_a).await;
    let id = RunId::from("run-1");
    let stored = bench.stored_seqs(&id).await;

    let book_b = Arc::new(Book::new(&[("b", &[Say::Text("Mine now. [NEXT]")])]));
    let refused =
        resume_run(&bench.crew, &source(), &id, None, &bench.leased(book_b.clone(), "worker-b", Duration::from_secs(60)), &cancel).await;
    let Err(RunError::Leased { run, holder, until }) = &refused else { panic!("worker-b must be refused: {refused:?}") };
    assert_eq!((run, holder.as_str()), (&id, "worker-a"));
    let LeaseOutcome::Held(lease) = bench.store.lease(&id, "someone", Duration::from_secs(1)).await.unwrap() else { panic!("still held") };
    assert_eq!(until, &lease.expires_at, "the refusal says until when the lease runs");
    let message = refused.as_ref().unwrap_err().to_string();
    assert_eq!(
        message,
        format!("run 'run-1' is being executed by worker-a until {}; it can be taken over if that worker stops", clock_time(*until))
    );
    assert!(book_b.asked().is_empty(), "the refused leg called no model");
    assert_eq!(bench.stored_seqs(&id).await, stored, "the refused leg stored nothing");

    // worker-a's leg ends (cancelled here) and lets the lease go at once.
    cancel.cancel();
    let ended = tokio::time::timeout(DEADLINE, leg_a).await.expect("the leg ends").expect("cancelled, not failed");
    assert_eq!(ended.status, RunStatus::Cancelled);
    assert!(bench.store.lease(&id, "worker-b", Duration::from_secs(1)).await.unwrap().is_granted(), "released when the leg ended");
}

#[tokio::test]
async fn a_dead_executors_run_is_taken_over_once_its_lease_runs_out() {
    let bench = Bench::new();
    let book_a = Arc::new(Book::new(&[("a", &[Say::Text("Draft done; your turn. [NEXT]")]), ("b", &[Say::Hang])]));
    let deps_a = bench.leased(book_a.clone(), "worker-a", Duration::from_secs(2));
    let cancel = CancellationToken::new();
    {
        let from = source();
        let leg_a = start_run(&bench.crew, &from, "Write a note.", &deps_a, &cancel);
        tokio::pin!(leg_a);
        until_hung(&mut leg_a, &book_a).await;
        // worker-a dies here: its leg is dropped holding the lease, which it never releases.
    }
    let id = RunId::from("run-1");
    let book_b = Arc::new(Book::new(&[("b", &[Say::Text("Note written. [NEXT]")]), ("a", &[Say::Text("Thanks. [DONE]")])]));
    let deps_b = bench.leased(book_b.clone(), "worker-b", Duration::from_secs(60));
    let started = Instant::now();
    let mut refusals = 0;
    let resumed = loop {
        match resume_run(&bench.crew, &source(), &id, None, &deps_b, &cancel).await {
            Err(RunError::Leased { holder, .. }) => {
                assert_eq!(holder, "worker-a");
                refusals += 1;
            }
            other => break other.expect("taken over once the lease ran out"),
        }
        assert!(started.elapsed() < DEADLINE, "worker-a's 2-s lease was not taken over within {DEADLINE:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(refusals > 0, "refused while worker-a's lease still ran");
    assert_eq!(resumed.status, RunStatus::Terminated);
    let events = bench.store.events(&id, None).await.unwrap();
    assert!(
        events.iter().any(|e| matches!(&e.kind, EventKind::Warning { message } if message.contains("this run was interrupted"))),
        "worker-b went on from the last stored step"
    );
    let seqs: Vec<u64> = events.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, (0..events.len() as u64).collect::<Vec<_>>(), "one run, its seqs without a gap");
    assert!(bench.store.lease(&id, "worker-c", Duration::from_secs(1)).await.unwrap().is_granted(), "worker-b released it at the end");
}

#[tokio::test]
async fn a_leg_whose_lease_was_taken_over_while_it_stalled_stops_without_storing_another_step() {
    let bench = Bench::new();
    let book_a = Arc::new(Book::new(&[("a", &[Say::Text("Over to you. [NEXT]")]), ("b", &[Say::Hang])]));
    let ttl = Duration::from_millis(300);
    let deps_a = bench.leased(book_a.clone(), "worker-a", ttl);
    let cancel = CancellationToken::new();
    let from = source();
    let leg_a = start_run(&bench.crew, &from, "Go.", &deps_a, &cancel);
    tokio::pin!(leg_a);
    until_hung(&mut leg_a, &book_a).await;
    let id = RunId::from("run-1");
    let stored = bench.stored_seqs(&id).await;

    // worker-a stalls (its leg is not polled, so it renews nothing) until worker-b
    // takes the run over.
    let started = Instant::now();
    let taken = loop {
        if let LeaseOutcome::Granted(lease) = bench.store.lease(&id, "worker-b", Duration::from_secs(60)).await.unwrap() {
            break lease;
        }
        assert!(started.elapsed() < DEADLINE, "worker-a's lease did not run out within {DEADLINE:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };

    // worker-a wakes: its next renewal finds the run taken, and the leg stops.
    let ended = tokio::time::timeout(DEADLINE, leg_a).await.expect("the leg stops");
    let Err(RunError::LeaseLost { run, executor, holder, until }) = &ended else { panic!("the leg must stop: {ended:?}") };
    assert_eq!((run, executor.as_str(), holder.as_str(), until), (&id, "worker-a", "worker-b", &taken.expires_at));
    assert!(ended.as_ref().unwrap_err().to_string().contains("worker-a stopped without storing another step"));
    assert_eq!(bench.stored_seqs(&id).await, stored, "nothing of the stalled step was stored");
    assert!(!cancel.is_cancelled());
    assert_eq!(
        bench.store.lease(&id, "worker-c", Duration::from_secs(1)).await.unwrap(),
        LeaseOutcome::Held(taken),
        "worker-a did not release worker-b's lease"
    );
}

#[tokio::test]
async fn of_two_resumes_of_one_paused_run_under_two_executors_exactly_one_proceeds() {
    let bench = Bench::new();
    let first = Arc::new(Book::new(&[("a", &[Say::Text("Which colour? [WAIT]")])]));
    let paused = start_run(
        &bench.crew,
        &source(),
        "Paint the fence.",
        &bench.leased(first, "worker-a", Duration::from_secs(60)),
        &CancellationToken::new(),
    )
    .await
    .expect("the run starts");
    assert_eq!(paused.status, RunStatus::Paused);
    let id = paused.run_id;
    assert!(bench.store.lease(&id, "worker-z", Duration::from_secs(1)).await.unwrap().is_granted(), "a paused run is held by nobody");
    bench.store.release(&id, "worker-z").await.unwrap();

    // worker-a's resume goes ahead and waits on its model, holding the run; the
    // run's status is `running` now, as an interrupted run's is, so only the lease
    // tells worker-b's resume that someone is executing it.
    let book_a = Arc::new(Book::new(&[("a", &[Say::Hang])]));
    let deps_a = bench.leased(book_a.clone(), "worker-a", Duration::from_secs(60));
    let cancel = CancellationToken::new();
    let from = source();
    let leg_a = resume_run(&bench.crew, &from, &id, Some("Blue."), &deps_a, &cancel);
    tokio::pin!(leg_a);
    until_hung(&mut leg_a, &book_a).await;
    let book_b = Arc::new(Book::new(&[("a", &[Say::Text("Red it is. [DONE]")])]));
    let refused =
        resume_run(&bench.crew, &source(), &id, Some("Red."), &bench.leased(book_b.clone(), "worker-b", Duration::from_secs(60)), &cancel)
            .await;
    assert!(matches!(&refused, Err(RunError::Leased { holder, .. }) if holder == "worker-a"), "{refused:?}");
    assert!(book_b.asked().is_empty(), "the refused resume called no model");
    cancel.cancel();
    let ended = tokio::time::timeout(DEADLINE, leg_a).await.expect("the leg ends").expect("cancelled, not failed");
    assert_eq!(ended.status, RunStatus::Cancelled);
}
