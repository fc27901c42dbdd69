//! The SQLite store's speed (issue 3, "Speed"): `cargo bench -p crewgraph-store`.
//!
//! - `append_step/one_run`: one run appending handoff steps with a 240-byte reply,
//!   one after another (each waits for its commit, as the run loop does);
//! - `group_commit/1000_runs_x_10_steps`: 1,000 runs created and stepped 10 times
//!   each from concurrent tokio tasks, on a fresh file per sample.
//!
//! Before criterion's figures it prints its own: the median and p99 of single
//! appends, the throughput and batch sizes of group commit, and the bytes a step
//! adds to the file and writes to the WAL.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crewgraph_engine::ids::{AgentId, RunId};
use crewgraph_engine::run::{EventKind, Message, RunEvent, RunRecord, RunSnapshot, RunStore, StepRecord, Timestamp};
use crewgraph_store::SqliteStore;
use criterion::{criterion_group, criterion_main, Criterion};
use tokio::runtime::Runtime;

const REPLY: usize = 240;

/// A run as the loop writes it: where it stands, and its next handoff step.
struct Run {
    id: RunId,
    snapshot: RunSnapshot,
}

impl Run {
    fn record(id: &RunId) -> RunRecord {
        RunRecord {
            id: id.clone(),
            crew_name: "bench".into(),
            crew_path: Some("crews/bench.yaml".into()),
            crew_fingerprint: "fp".into(),
            input: "Go.".into(),
            created_at: Timestamp(1_795_000_000_000),
            forked_from: None,
        }
    }

    async fn create(store: &dyn RunStore, id: &str) -> Run {
        let id = RunId::from(id);
        let snapshot = RunSnapshot::starting(AgentId::from("a"), Timestamp(1_795_000_000_000));
        let mut run = Run { id: id.clone(), snapshot };
        let first = run.step(vec![EventKind::RunStarted { crew: "bench".into(), input: "Go.".into() }], Message::user("Go."));
        store.create_run(&Self::record(&id), &first).await.expect("create");
        run.snapshot = first.snapshot;
        run
    }

    fn step(&self, kinds: Vec<EventKind>, message: Message) -> StepRecord {
        let start = self.snapshot.next_seq;
        let events: Vec<RunEvent> = kinds
            .into_iter()
            .enumerate()
            .map(|(i, kind)| RunEvent { kind, run_id: self.id.clone(), seq: start + i as u64, timestamp: Timestamp(1_795_000_000_000) })
            .collect();
        let mut snapshot = self.snapshot.clone();
        snapshot.next_seq += events.len() as u64;
        snapshot.history_len += 1;
        snapshot.steps += 1;
        StepRecord { run_id: self.id.clone(), events, history: vec![message], snapshot, contexts: Vec::new(), options: None }
    }

    /// One handoff: the agent starts, replies 240 bytes, hands over.
    async fn handoff(&mut self, store: &dyn RunStore) {
        let from = self.snapshot.current_agent.clone();
        let to = AgentId::from(if from == "a" { "b" } else { "a" });
        let reply: String = "All work and no play. ".chars().cycle().take(REPLY).collect();
        let kinds = vec![
            EventKind::AgentStarted { agent: from.clone(), step: self.snapshot.steps + 1 },
            EventKind::AgentResponse { agent: from.clone(), content: reply.clone(), usage: None },
            EventKind::Handoff {
                from: from.clone(),
                to: to.to_string(),
                reason: "signal [NEXT] (exact)".into(),
                handoff_count: self.snapshot.handoffs + 1,
            },
        ];
        let mut step = self.step(kinds, Message::agent(&from, reply));
        step.snapshot.current_agent = to;
        step.snapshot.handoffs += 1;
        store.append_step(&step).await.expect("append");
        self.snapshot = step.snapshot;
    }
}

fn runtime() -> Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("a tokio runtime")
}

fn fresh(dir: &Path, name: &str) -> (SqliteStore, PathBuf) {
    let path = dir.join(name);
    (SqliteStore::open(&path).expect("open"), path)
}

fn file_size(path: &Path) -> u64 {
    std::fs::metadata(path).map(|m| m.len()).unwrap_or(0)
}

fn wal(path: &Path) -> PathBuf {
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    wal.into()
}

/// Data pages in use, from a second connection (what the file keeps once checkpointed).
fn used_bytes(path: &Path) -> i64 {
    let conn = rusqlite::Connection::open(path).expect("a side connection");
    let pages: i64 = conn.pragma_query_value(None, "page_count", |r| r.get(0)).expect("page_count");
    let free: i64 = conn.pragma_query_value(None, "freelist_count", |r| r.get(0)).expect("freelist_count");
    let size: i64 = conn.pragma_query_value(None, "page_size", |r| r.get(0)).expect("page_size");
    (pages - free) * size
}

fn checkpoint(path: &Path) {
    let conn = rusqlite::Connection::open(path).expect("a side connection");
    conn.busy_timeout(Duration::from_secs(5)).expect("busy timeout");
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())).expect("checkpoint");
}

/// 1,000 runs × 10 handoffs from concurrent tasks; returns the wall time.
async fn thousand_runs(store: Arc<SqliteStore>) -> Duration {
    let started = Instant::now();
    let tasks: Vec<_> = (0..1_000)
        .map(|i| {
            let store = store.clone();
            tokio::spawn(async move {
                let mut run = Run::create(&*store, &format!("run-{i}")).await;
                for _ in 0..10 {
                    run.handoff(&*store).await;
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.expect("a run task");
    }
    started.elapsed()
}

/// The figures criterion does not print: percentiles, batch sizes, bytes per step.
fn report(rt: &Runtime, dir: &Path) {
    rt.block_on(async {
        let (store, path) = fresh(dir, "latency.db");
        let mut run = Run::create(&store, "run-latency").await;
        for _ in 0..200 {
            run.handoff(&store).await;
        }
        let mut times = Vec::with_capacity(5_000);
        for _ in 0..5_000 {
            let started = Instant::now();
            run.handoff(&store).await;
            times.push(started.elapsed());
        }
        times.sort();
        let micros = |d: Duration| d.as_secs_f64() * 1e6;
        println!(
            "append_step, one run, {REPLY}-byte reply (5,000 appends): median {:.1} µs, mean {:.1} µs, p99 {:.1} µs, p99.9 {:.1} µs, max {:.1} µs",
            micros(times[times.len() / 2]),
            micros(times.iter().sum::<Duration>()) / times.len() as f64,
            micros(times[times.len() * 99 / 100]),
            micros(times[times.len() * 999 / 1000]),
            micros(times[times.len() - 1]),
        );

        for at in [10u32, 1_000] {
            while run.snapshot.handoffs < at {
                run.handoff(&store).await;
            }
            checkpoint(&path);
            let used = used_bytes(&path);
            for _ in 0..100 {
                run.handoff(&store).await;
            }
            let wal_bytes = file_size(&wal(&path));
            println!(
                "bytes per step near step {at} (single-step commits): {:.0} B kept in the file, {:.0} B written to the WAL",
                (used_bytes(&path) - used) as f64 / 100.0,
                wal_bytes as f64 / 100.0
            );
        }
        drop(store);

        let (store, path) = fresh(dir, "throughput.db");
        let store = Arc::new(store);
        let wall = thousand_runs(store.clone()).await;
        let stats = store.write_stats();
        println!(
            "group commit, 1,000 runs x 10 steps (11,000 writes): {:.0} ms wall, {:.0} steps/s, {} transactions, {:.1} writes per transaction on average, {} at most",
            wall.as_secs_f64() * 1e3,
            10_000.0 / wall.as_secs_f64(),
            stats.batches,
            stats.requests as f64 / stats.batches as f64,
            stats.largest_batch
        );
        drop(store);
        println!("  file after it: {:.0} B per step kept", used_bytes(&path) as f64 / 11_000.0);
    });
}

fn benches(c: &mut Criterion) {
    let rt = runtime();
    let dir = tempfile::tempdir().expect("a temporary folder");
    report(&rt, dir.path());

    let (store, _) = fresh(dir.path(), "criterion-one-run.db");
    let mut run = rt.block_on(Run::create(&store, "run-one"));
    c.bench_function("append_step/one_run", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let started = Instant::now();
                for _ in 0..iters {
                    run.handoff(&store).await;
                }
                started.elapsed()
            })
        })
    });

    let mut group = c.benchmark_group("group_commit");
    group.sample_size(10).measurement_time(Duration::from_secs(20));
    let mut round = 0;
    group.bench_function("1000_runs_x_10_steps", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                round += 1;
                let (store, _) = fresh(dir.path(), &format!("group-{round}.db"));
                total += rt.block_on(thousand_runs(Arc::new(store)));
            }
            total
        })
    });
    group.finish();
}

criterion_group!(store, benches);
criterion_main!(store);
