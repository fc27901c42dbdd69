//! What a queued run needs of its store (docs/scale-out.md): the options a step
//! gives for the leg it opens come back with the run until a later step gives
//! others, and `runnable` lists the runs an executor could take — running and held
//! by nobody, oldest first — which is what a sweeper enqueues again.

use std::time::{Duration, Instant};

use crewgraph_engine::ids::RunId;
use crewgraph_engine::run::{EventKind, RunStatus};

use crate::support::{Run, Subject};

pub async fn the_options_a_step_gives_are_kept_until_a_later_step_gives_others(subject: Subject) {
    let store = &*subject.store;
    let mut run = Run::new("run-options", 1_795_000_000_000);
    let mut first = run.start();
    first.options = Some(r#"{"model":"local","script":"replies: {}\n«✓»"}"#.into());
    store.create_run(&run.record, &first).await.unwrap();
    run.accept(&first);
    run.assert_stored(store).await;
    // A step without options keeps the stored ones.
    let step = run.handoff("over to you");
    run.append(store, step).await.unwrap();
    assert!(run.options.is_some());
    run.assert_stored(store).await;
    // A step that opens another leg replaces them.
    let mut resume = run.handoff("and back");
    resume.options = Some("{}".into());
    run.append(store, resume).await.unwrap();
    assert_eq!(run.options.as_deref(), Some("{}"));
    run.assert_stored(store).await;
    // A run stored without any has none.
    let mut plain = Run::new("run-plain", 1_795_000_000_001);
    plain.create(store).await.unwrap();
    assert_eq!(store.load_run(plain.id()).await.unwrap().unwrap().options, None);
}

pub async fn the_runnable_runs_are_the_queued_running_ones_nobody_holds_oldest_first(subject: Subject) {
    let store = &*subject.store;
    let mut ids = Vec::new();
    // Created newest first, so listing oldest first is not the order they were stored in.
    for (id, at) in [("run-held", 4), ("run-ended", 3), ("run-young", 2), ("run-old", 1), ("run-own", 0)] {
        let mut run = Run::new(id, 1_795_000_000_000 + at);
        let mut first = run.start();
        // Opened for another executor, but for one a process executes itself.
        first.options = (id != "run-own").then(|| "{}".to_owned());
        store.create_run(&run.record, &first).await.unwrap();
        run.accept(&first);
        if id == "run-ended" {
            let mut end = run.step(vec![EventKind::Warning { message: "done".into() }], Vec::new());
            end.snapshot.status = RunStatus::Completed;
            run.append(store, end).await.unwrap();
        }
        ids.push(run.id().clone());
    }
    let paused = {
        let mut run = Run::new("run-paused", 1_795_000_000_000);
        let mut first = run.start();
        first.options = Some("{}".into());
        store.create_run(&run.record, &first).await.unwrap();
        run.accept(&first);
        let mut pause = run.step(Vec::new(), Vec::new());
        pause.snapshot.status = RunStatus::Paused;
        run.append(store, pause).await.unwrap();
        run.id().clone()
    };
    store.lease(&RunId::from("run-held"), "worker-a", Duration::from_secs(60)).await.unwrap();
    let runnable = store.runnable().await.unwrap();
    assert_eq!(runnable, vec![RunId::from("run-old"), RunId::from("run-young")], "queued, running, held by nobody, oldest first");
    assert!(!runnable.contains(&RunId::from("run-own")), "a run its own process executes is not queued");
    assert!(!runnable.contains(&paused));
    // A lease that runs out makes its run runnable again; a released one at once.
    store.lease(&RunId::from("run-young"), "worker-b", Duration::from_millis(200)).await.unwrap();
    assert_eq!(store.runnable().await.unwrap(), vec![RunId::from("run-old")]);
    let deadline = Instant::now() + Duration::from_secs(20);
    while store.runnable().await.unwrap().len() < 2 {
        assert!(Instant::now() < deadline, "a 200-ms lease never ran out");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    store.release(&RunId::from("run-held"), "worker-a").await.unwrap();
    assert_eq!(store.runnable().await.unwrap().len(), 3);
}
