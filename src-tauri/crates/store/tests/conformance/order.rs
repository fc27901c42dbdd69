//! Every way a step can fail to continue its run is refused with `OutOfOrder`, and
//! nothing of the refused step is stored: a writer that lost track (or a second
//! writer) cannot leave a gap or a duplicate in a run.

use crewgraph_engine::ids::RunId;
use crewgraph_engine::run::{RunStore, StepRecord, StoreError};

use crate::support::{Run, Subject};

/// A stored run with a few steps, and another run beside it.
async fn two_runs(store: &dyn RunStore) -> (Run, Run) {
    let mut run = Run::new("run-main", 1_795_000_000_000);
    run.create(store).await.unwrap();
    for turn in 0..2 {
        let step = run.handoff(&format!("turn {turn}"));
        run.append(store, step).await.unwrap();
    }
    let mut other = Run::new("run-other", 1_795_000_000_500);
    other.create(store).await.unwrap();
    (run, other)
}

/// Asserts `step` is refused as out of order and neither run changed.
async fn assert_refused(store: &dyn RunStore, step: StepRecord, runs: &[&Run]) {
    match store.append_step(&step).await {
        Err(StoreError::OutOfOrder { run, detail }) => {
            assert_eq!(run, step.run_id, "the error names the run");
            assert!(!detail.is_empty());
        }
        other => panic!("expected OutOfOrder, got {other:?}"),
    }
    for run in runs {
        run.assert_stored(store).await;
    }
}

fn shift(step: &mut StepRecord, by: i64) {
    for event in &mut step.events {
        event.seq = event.seq.wrapping_add_signed(by);
    }
    step.snapshot.next_seq = step.snapshot.next_seq.wrapping_add_signed(by);
}

pub async fn a_step_skipping_a_seq_is_refused(subject: Subject) {
    let store = &*subject.store;
    let (run, other) = two_runs(store).await;
    let mut step = run.handoff("skips");
    shift(&mut step, 1);
    assert_refused(store, step, &[&run, &other]).await;
}

pub async fn a_step_repeating_stored_seqs_is_refused(subject: Subject) {
    let store = &*subject.store;
    let (run, other) = two_runs(store).await;
    let mut step = run.handoff("repeats");
    shift(&mut step, -1);
    assert_refused(store, step, &[&run, &other]).await;
    // The same step sent twice: the second is a repeat.
    let mut run = run;
    let step = run.handoff("once");
    run.append(store, step.clone()).await.unwrap();
    assert_refused(store, step, &[&run, &other]).await;
}

pub async fn a_step_with_a_gap_inside_is_refused(subject: Subject) {
    let store = &*subject.store;
    let (run, other) = two_runs(store).await;
    let mut step = run.handoff("gap");
    // The first event is where it belongs; the later ones jump.
    for event in step.events.iter_mut().skip(1) {
        event.seq += 1;
    }
    step.snapshot.next_seq += 1;
    assert_refused(store, step, &[&run, &other]).await;
}

pub async fn a_step_with_another_runs_event_is_refused(subject: Subject) {
    let store = &*subject.store;
    let (run, other) = two_runs(store).await;
    let mut step = run.handoff("mixed");
    step.events[1].run_id = other.id().clone();
    assert_refused(store, step, &[&run, &other]).await;
    // Every event of the other run, sent as this run's step.
    let mut step = run.handoff("foreign");
    for event in &mut step.events {
        event.run_id = RunId::from("run-other");
    }
    assert_refused(store, step, &[&run, &other]).await;
}

pub async fn a_snapshot_next_seq_that_disagrees_with_the_events_is_refused(subject: Subject) {
    let store = &*subject.store;
    let (run, other) = two_runs(store).await;
    for wrong in [-1, 1, 100] {
        let mut step = run.handoff("miscounted");
        step.snapshot.next_seq = step.snapshot.next_seq.wrapping_add_signed(wrong);
        assert_refused(store, step, &[&run, &other]).await;
    }
}

pub async fn a_snapshot_history_len_that_disagrees_with_the_history_is_refused(subject: Subject) {
    let store = &*subject.store;
    let (run, other) = two_runs(store).await;
    for wrong in [-1i64, 1] {
        let mut step = run.handoff("miscounted history");
        step.snapshot.history_len = (step.snapshot.history_len as i64 + wrong) as u32;
        assert_refused(store, step, &[&run, &other]).await;
    }
    // A snapshot that counts the messages but whose step forgot to carry them.
    let mut step = run.handoff("lost message");
    step.history.clear();
    assert_refused(store, step, &[&run, &other]).await;
}

pub async fn a_first_step_not_starting_at_seq_zero_is_refused(subject: Subject) {
    let store = &*subject.store;
    let run = Run::new("run-late", 1_795_000_000_000);
    let mut first = run.start();
    shift(&mut first, 1);
    assert!(matches!(store.create_run(&run.record, &first).await, Err(StoreError::OutOfOrder { .. })));
    let mut first = run.start();
    first.snapshot.history_len = 0;
    assert!(matches!(store.create_run(&run.record, &first).await, Err(StoreError::OutOfOrder { .. })));
    assert_eq!(store.load_run(run.id()).await.unwrap(), None, "a refused create stores no run");
    assert!(store.list_runs().await.unwrap().is_empty());
}

pub async fn a_refused_step_leaves_the_run_writable(subject: Subject) {
    let store = &*subject.store;
    let (mut run, other) = two_runs(store).await;
    let mut bad = run.handoff("bad");
    shift(&mut bad, 3);
    assert_refused(store, bad, &[&run, &other]).await;
    // The right step after a refused one is taken: the refusal left no half-state.
    let good = run.handoff("good");
    run.append(store, good).await.unwrap();
    run.assert_stored(store).await;
    other.assert_stored(store).await;
}
