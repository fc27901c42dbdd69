//! What is written comes back exactly: a run's record, snapshot, history and
//! events; listings newest first; unknown ids; a second create of one id.

use std::collections::BTreeSet;

use crewgraph_engine::ids::{AgentId, RunId};
use crewgraph_engine::run::{EventKind, Message, RunStatus, RunSummary, StoreError};

use crate::support::{every_event_kind, every_message_shape, reply, variant, Run, Subject, VARIANTS};

pub async fn a_created_run_loads_back_exactly(subject: Subject) {
    let store = &*subject.store;
    let mut run = Run::new("run-1", 1_795_000_000_000);
    run.record.forked_from = Some(crewgraph_engine::run::ForkPoint { run_id: RunId::from("run-0"), seq: 12 });
    run.create(store).await.unwrap();
    // Guards against a store that loses the record's optional path or reorders fields.
    run.assert_stored(store).await;
    let listed = store.list_runs().await.unwrap();
    assert_eq!(listed[0].forked_from, run.record.forked_from, "a fork is listed with where it came from");
    let loaded = store.load_run(run.id()).await.unwrap().unwrap();
    assert_eq!(loaded.record.crew_path.as_deref(), Some("crews/run-1.yaml"));
    assert_eq!(loaded.snapshot.next_seq, 2, "the first step held two events");
    assert_eq!(loaded.history, vec![Message::user("Ask me about run-1 ✓")]);
}

pub async fn every_event_variant_round_trips(subject: Subject) {
    let store = &*subject.store;
    let kinds = every_event_kind();
    let covered: BTreeSet<usize> = kinds.iter().map(variant).collect();
    assert_eq!(covered.len(), VARIANTS, "the fixture has an event of every variant");

    let mut run = Run::new("run-kinds", 1_795_000_000_000);
    run.record.crew_path = None;
    run.create(store).await.unwrap();
    // Half in one step, the rest one event per step: both paths of the writer.
    let (together, alone) = kinds.split_at(kinds.len() / 2);
    let step = run.step(together.to_vec(), Vec::new());
    run.append(store, step).await.unwrap();
    for kind in alone {
        let step = run.step(vec![kind.clone()], Vec::new());
        run.append(store, step).await.unwrap();
    }
    let events = store.events(run.id(), None).await.unwrap();
    let stored_kinds: Vec<&EventKind> = events.iter().skip(2).map(|e| &e.kind).collect();
    assert_eq!(stored_kinds, kinds.iter().collect::<Vec<_>>(), "every kind comes back field for field");
    run.assert_stored(store).await;
}

pub async fn every_message_shape_round_trips(subject: Subject) {
    let store = &*subject.store;
    let mut run = Run::new("run-messages", 1_795_000_000_000);
    run.create(store).await.unwrap();
    let step = run.step(vec![EventKind::Warning { message: "tools ran".into() }], every_message_shape());
    run.append(store, step).await.unwrap();
    let loaded = store.load_run(run.id()).await.unwrap().unwrap();
    assert_eq!(loaded.history.len(), 5);
    assert_eq!(loaded.history[1..], every_message_shape()[..], "tool calls, tool call ids and empty content survive");
}

pub async fn appended_steps_extend_the_run_in_order(subject: Subject) {
    let store = &*subject.store;
    let mut run = Run::new("run-long", 1_795_000_000_000);
    run.create(store).await.unwrap();
    for turn in 0..30 {
        let step = run.handoff(&format!("reply {turn}: {}", reply(40)));
        run.append(store, step).await.unwrap();
    }
    run.assert_stored(store).await;
    let loaded = store.load_run(run.id()).await.unwrap().unwrap();
    assert_eq!(loaded.snapshot.handoffs, 30);
    assert_eq!(loaded.snapshot.current_agent, AgentId::from("teacher"), "30 handoffs end where they began");
    assert_eq!(loaded.snapshot.recent.len(), 4, "the snapshot is replaced, not accumulated");
    let seqs: Vec<u64> = store.events(run.id(), None).await.unwrap().iter().map(|e| e.seq).collect();
    assert_eq!(seqs, (0..92).collect::<Vec<_>>());
}

pub async fn a_step_without_events_still_moves_the_snapshot(subject: Subject) {
    let store = &*subject.store;
    let mut run = Run::new("run-quiet", 1_795_000_000_000);
    run.create(store).await.unwrap();
    let mut step = run.step(Vec::new(), vec![Message::user("an answer after a pause")]);
    step.snapshot.status = RunStatus::Paused;
    step.snapshot.error = Some("nothing went wrong".into());
    run.append(store, step).await.unwrap();
    run.assert_stored(store).await;
    assert_eq!(store.load_run(run.id()).await.unwrap().unwrap().snapshot.status, RunStatus::Paused);
}

pub async fn events_after_a_seq_are_only_the_later_ones(subject: Subject) {
    let store = &*subject.store;
    let mut run = Run::new("run-after", 1_795_000_000_000);
    run.create(store).await.unwrap();
    for turn in 0..3 {
        let step = run.handoff(&format!("turn {turn}"));
        run.append(store, step).await.unwrap();
    }
    let all = store.events(run.id(), None).await.unwrap();
    assert_eq!(all.len(), 11);
    let seqs = |events: Vec<crewgraph_engine::run::RunEvent>| events.iter().map(|e| e.seq).collect::<Vec<_>>();
    assert_eq!(seqs(store.events(run.id(), Some(0)).await.unwrap()), (1..11).collect::<Vec<_>>(), "after is exclusive");
    assert_eq!(seqs(store.events(run.id(), Some(7)).await.unwrap()), vec![8, 9, 10]);
    assert_eq!(store.events(run.id(), Some(7)).await.unwrap(), all[8..].to_vec());
    assert!(store.events(run.id(), Some(10)).await.unwrap().is_empty(), "nothing after the last event");
    assert!(store.events(run.id(), Some(u64::MAX)).await.unwrap().is_empty(), "a huge seq is not an error");
}

pub async fn unknown_run_ids_are_none_or_no_such_run(subject: Subject) {
    let store = &*subject.store;
    let mut known = Run::new("run-known", 1_795_000_000_000);
    known.create(store).await.unwrap();
    let ghost = RunId::from("run-ghost");
    assert_eq!(store.load_run(&ghost).await.unwrap(), None);
    assert_eq!(store.events(&ghost, None).await, Err(StoreError::NoSuchRun(ghost.clone())));
    assert_eq!(store.claim(&ghost, &[RunStatus::Paused]).await, Err(StoreError::NoSuchRun(ghost.clone())));
    let mut stranger = Run::new("run-ghost", 1_795_000_000_000);
    stranger.accept(&stranger.start());
    let step = stranger.handoff("hello?");
    assert_eq!(store.append_step(&step).await, Err(StoreError::NoSuchRun(ghost.clone())));
    assert_eq!(store.load_run(&ghost).await.unwrap(), None, "a refused append creates nothing");
    assert_eq!(store.list_runs().await.unwrap().len(), 1);
}

pub async fn creating_a_run_twice_is_already_exists_and_keeps_the_first(subject: Subject) {
    let store = &*subject.store;
    let mut first = Run::new("run-twice", 1_795_000_000_000);
    first.create(store).await.unwrap();
    let mut second = Run::new("run-twice", 1_795_000_999_000);
    second.record.input = "another input".into();
    let step = second.start();
    assert_eq!(store.create_run(&second.record, &step).await, Err(StoreError::AlreadyExists(first.id().clone())));
    first.assert_stored(store).await;
    assert_eq!(store.list_runs().await.unwrap().len(), 1);
}

pub async fn runs_are_listed_newest_first_with_their_latest_snapshot(subject: Subject) {
    let store = &*subject.store;
    assert!(store.list_runs().await.unwrap().is_empty());
    // Created in time order; two share a millisecond and list in reverse order of storing.
    let mut runs = vec![Run::new("run-a", 1_000), Run::new("run-b", 2_000), Run::new("run-c", 2_000), Run::new("run-d", 3_000)];
    for run in &mut runs {
        run.create(store).await.unwrap();
    }
    let step = runs[1].handoff("b moves on");
    runs[1].append(store, step).await.unwrap();
    let mut failed = runs[0].step(Vec::new(), Vec::new());
    failed.snapshot.status = RunStatus::Failed;
    failed.snapshot.error = Some("the model said no".into());
    runs[0].append(store, failed).await.unwrap();

    let listed = store.list_runs().await.unwrap();
    let ids: Vec<&str> = listed.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["run-d", "run-c", "run-b", "run-a"]);
    let summary = |run: &Run| RunSummary {
        id: run.record.id.clone(),
        crew_name: run.record.crew_name.clone(),
        crew_path: run.record.crew_path.clone(),
        input: run.record.input.clone(),
        status: run.snapshot.status,
        created_at: run.record.created_at,
        updated_at: run.snapshot.updated_at,
        steps: run.snapshot.steps,
        handoffs: run.snapshot.handoffs,
        error: run.snapshot.error.clone(),
        tokens: run.snapshot.tokens,
        crew_revision: None,
        forked_from: run.record.forked_from.clone(),
    };
    assert_eq!(listed[2], summary(&runs[1]), "b's summary shows its handoff");
    assert_eq!(listed[3], summary(&runs[0]), "a's summary shows its failure");
    assert_eq!(listed[3].error.as_deref(), Some("the model said no"));
}

pub async fn runs_are_listed_by_creation_time_not_by_the_order_they_were_stored(subject: Subject) {
    let store = &*subject.store;
    // Stored late but created early (a run imported from a recording, or a slow task).
    for (id, created_at) in [("run-late", 3_000), ("run-early", 1_000), ("run-middle", 2_000)] {
        Run::new(id, created_at).create(store).await.unwrap();
    }
    let listed = store.list_runs().await.unwrap();
    let ids: Vec<&str> = listed.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["run-late", "run-middle", "run-early"]);
}

pub async fn what_each_call_was_given_comes_back_step_by_step(subject: Subject) {
    use crewgraph_engine::run::seen::AgentContext;
    let store = &*subject.store;
    let mut run = Run::new("run-contexts", 1_795_000_000_000);
    run.create(store).await.unwrap();
    assert_eq!(store.contexts(run.id()).await.unwrap(), Some(Vec::new()), "kept, and nothing yet");
    let seen = |call: u32| AgentContext {
        agent: AgentId::from("teacher"),
        step: 1,
        call,
        system_prompt: "You teach «fractions».\nEnd with [QUESTION].".into(),
        from: 0,
        first: call == 1,
        tail: 1,
        until: 1 + call,
        dropped: 0,
        tokens: 120 + call,
        window: (call == 0).then_some(8192),
    };
    let mut step = run.handoff("Question 1? [QUESTION]");
    step.contexts = vec![seen(0), seen(1)];
    run.append(store, step).await.unwrap();
    let mut step = run.handoff("3/4 [ANSWER]");
    step.contexts = vec![seen(2)];
    run.append(store, step).await.unwrap();
    assert_eq!(store.contexts(run.id()).await.unwrap(), Some(vec![seen(0), seen(1), seen(2)]));
    assert!(matches!(store.contexts(&RunId::from("run-none")).await, Err(StoreError::NoSuchRun(_))));
}
