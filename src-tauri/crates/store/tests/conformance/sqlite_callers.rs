//! SQLite only: the store from every kind of caller — a multi-thread runtime's
//! tasks (the rest of the suite), a current-thread runtime (the CLI's `runs` and
//! `replay`), and plain threads with no runtime at all. A caller that finds the
//! writer idle writes on its own thread, so each must still see every step stored.

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::Thread;

use crewgraph_engine::run::RunStore;
use crewgraph_store::SqliteStore;

use crate::support::{open_sqlite, reply, temp_dir, Run};

/// Writes a run of `turns` handoffs, then checks it reads back whole.
async fn write_and_check(store: &dyn RunStore, id: &str, created_at: u64, turns: usize) -> Run {
    let mut run = Run::new(id, created_at);
    run.create(store).await.unwrap();
    for turn in 0..turns {
        let step = run.handoff(&format!("turn {turn}: {}", reply(80)));
        run.append(store, step).await.unwrap();
    }
    run.assert_stored(store).await;
    run
}

#[test]
fn a_current_thread_runtime_writes_and_reads() {
    let dir = temp_dir();
    let store = Arc::new(open_sqlite(&dir.path().join("crewgraph.db")));
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        // Several runs at once on the one thread: some write alone, some queue.
        let tasks: Vec<_> = (0..8)
            .map(|i| {
                let store = store.clone();
                tokio::spawn(async move { write_and_check(&*store, &format!("run-{i}"), 1_795_000_000_000 + i, 20).await })
            })
            .collect();
        for task in tasks {
            task.await.unwrap();
        }
        assert_eq!(store.list_runs().await.unwrap().len(), 8);
    });
}

/// Drives a future to completion on this thread, parking it while the future waits.
fn block_on<F: Future>(future: F) -> F::Output {
    struct Unpark(Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut context = Context::from_waker(&waker);
    let mut future = pin!(future);
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut context) {
            return output;
        }
        std::thread::park();
    }
}

#[test]
fn plain_threads_without_a_runtime_write_and_read() {
    let dir = temp_dir();
    let path = dir.path().join("crewgraph.db");
    let store: Arc<SqliteStore> = Arc::new(open_sqlite(&path));
    let threads: Vec<_> = (0..4)
        .map(|i| {
            let store = store.clone();
            std::thread::spawn(move || block_on(write_and_check(&*store, &format!("run-{i}"), 1_795_000_000_000 + i, 50)))
        })
        .collect();
    let runs: Vec<Run> = threads.into_iter().map(|thread| thread.join().unwrap()).collect();
    drop(store);
    let store = open_sqlite(&path);
    for run in &runs {
        block_on(run.assert_stored(&store));
    }
}
