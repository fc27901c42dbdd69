//! Load figures for BENCHMARKS.md: what a step stores, how wide a parallel group
//! fans out, how many runs at once the engine and the SQLite store carry, and what
//! a run costs in memory. One-shot measurements printed as a table, so run it on a
//! quiet machine: `cargo bench -p crewgraph --bench load` (or `make bench`).
//! `LOAD_RUNS=1000` limits the concurrency scenarios to the 1,000-run case.

mod common;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crewgraph_engine::load::load_str;
use crewgraph_engine::run::{
    start_run, CrewSource, EventSink, MemoryStore, NullSink, RunEvent, RunRecord, RunStatus, RunStore, RunSummary, StepRecord, StoreError,
    StoredRun,
};
use crewgraph_engine::RunId;
use crewgraph_llm::{Script, ScriptedLlm};
use crewgraph_store::SqliteStore;
use tokio_util::sync::CancellationToken;

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    // Memory is measured in fresh child processes of this bench: freed memory left by
    // other scenarios would hide the growth.
    match std::env::var("LOAD_PART").as_deref() {
        Ok("in_flight") => return println!("{}", in_flight_run(&runtime)),
        Ok("history") => return println!("{}", history_entries(&runtime)),
        _ => {}
    }
    println!("# Crewgraph load figures (one run; compare them as ratios)\n");
    memory();
    bytes_per_step(&runtime);
    parallel_groups(&runtime);
    let counts: Vec<usize> = match std::env::var("LOAD_RUNS") {
        Ok(n) => vec![n.parse().expect("LOAD_RUNS is a number")],
        Err(_) => vec![1_000, 10_000],
    };
    for runs in counts {
        concurrent_runs(&runtime, runs);
    }
}

/// The database's size after checkpointing its WAL into it.
fn checkpointed_size(path: &std::path::Path) -> u64 {
    let conn = rusqlite::Connection::open(path).expect("open for measuring");
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())).expect("checkpoint");
    drop(conn);
    std::fs::metadata(path).expect("the database file").len()
}

/// Bytes stored per step for short and long runs of 240-byte replies: the growth of
/// the database (after checkpoint) divided by the steps written.
fn bytes_per_step(runtime: &tokio::runtime::Runtime) {
    println!("## Bytes stored per step (240-byte replies)\n");
    println!("| runs × handoffs | steps | bytes per step |");
    println!("|---|---|---|");
    for (runs, handoffs) in [(100usize, 10usize), (1, 1_000), (1, 10_000)] {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("bytes.db");
        let store = Arc::new(SqliteStore::open(&path).expect("open"));
        drop(store);
        let empty = checkpointed_size(&path);
        let store: Arc<dyn RunStore> = Arc::new(SqliteStore::open(&path).expect("open"));
        let crew = common::ping_pong(handoffs as u32 + 2);
        let script = common::script(handoffs, 240, 0);
        let mut steps = 0u64;
        runtime.block_on(async {
            for _ in 0..runs {
                let deps = common::deps(&script, store.clone());
                let outcome = start_run(&crew, &CrewSource::default(), "go", &deps, &CancellationToken::new()).await.expect("runs");
                assert_eq!(outcome.status, RunStatus::Terminated);
                steps += outcome.steps as u64 + 1; // + the run's first step (run_started)
            }
        });
        drop(store);
        let grown = checkpointed_size(&path) - empty;
        println!("| {runs} × {handoffs} | {steps} | {} |", grown / steps);
    }
    println!();
}

/// Records when chosen events happen, by run (a hash of its id), into space
/// reserved beforehand, so the recording weighs little on what it measures; counts
/// every event emitted, so the stored count can be checked against it.
struct Timing(Mutex<Vec<(u64, &'static str, Instant)>>, AtomicUsize);

impl Timing {
    fn with_capacity(events: usize) -> Self {
        Timing(Mutex::new(Vec::with_capacity(events)), AtomicUsize::new(0))
    }
}

impl Default for Timing {
    fn default() -> Self {
        Timing::with_capacity(64)
    }
}

fn key(run: &RunId) -> u64 {
    use std::hash::{BuildHasher, BuildHasherDefault};
    BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default().hash_one(run.as_str())
}

impl EventSink for Timing {
    fn emit(&self, event: &RunEvent) {
        self.1.fetch_add(1, Ordering::Relaxed);
        let kind = event.kind.type_name();
        if matches!(kind, "agent_response" | "agent_started" | "parallel_started" | "parallel_finished") {
            let at = Instant::now();
            if let Ok(mut seen) = self.0.lock() {
                seen.push((key(&event.run_id), kind, at));
            }
        }
    }
}

/// A parallel group of K members each replying in 50 ms: the group's wall time.
fn parallel_groups(runtime: &tokio::runtime::Runtime) {
    println!("## Parallel group, K members × 50 ms each\n");
    println!("| K | group wall time | ratio to 50 ms |");
    println!("|---|---|---|");
    for (k, timed) in [(8usize, false), (32, true), (256, true)] {
        let members: Vec<String> = (0..k).map(|i| format!("m{i}")).collect();
        let agents: String = members.iter().map(|m| format!("  - {{ id: {m} }}\n")).collect();
        let yaml = format!(
            "name: Fan out\nentry_point: lead\nsignals:\n  - {{ name: \"[GO]\", behavior: parallel }}\nagents:\n  - {{ id: lead }}\n{agents}\
             routing:\n  signals:\n    lead:\n      - {{ signal: \"[GO]\", target: all }}\n      - {{ signal: \"[DONE]\", target: \"\" }}\n\
             \x20 parallel_groups:\n    all:\n      agents: [{}]\n      timeout: 10s\n      wait_for_all: true\n",
            members.join(", ")
        );
        let crew = load_str("fan-out.yaml", &yaml).crew.expect("valid");
        let replies: String = members.iter().map(|m| format!("  {m}: [{{ content: \"done\", delay_ms: 50 }}]\n")).collect();
        let script =
            Script::parse("fan.yaml", &format!("replies:\n  lead: [\"go [GO]\", \"all done [DONE]\"]\n{replies}")).expect("script");
        let timing = Arc::new(Timing::default());
        let mut deps = common::deps_with_sink(&script, Arc::new(MemoryStore::new()), timing.clone());
        deps.llm = Arc::new(ScriptedLlm::new(&script));
        let outcome = runtime.block_on(start_run(&crew, &CrewSource::default(), "go", &deps, &CancellationToken::new())).expect("runs");
        assert_eq!(outcome.status, RunStatus::Terminated);
        let seen = timing.0.lock().expect("timing");
        let at = |kind: &str| seen.iter().find(|(_, k, _)| *k == kind).map(|(_, _, t)| *t).expect("event seen");
        let wall = at("parallel_finished") - at("parallel_started");
        if timed {
            println!("| {k} | {:.1} ms | {:.2} |", wall.as_secs_f64() * 1000.0, wall.as_secs_f64() / 0.050);
        }
    }
    println!();
}

/// N runs at once, each 10 handoffs of 50 ms replies, every step persisted to one
/// SQLite file: wall time against the ideal (11 turns × 50 ms), handoffs per second,
/// and the delay between a reply and the next agent's start (the step's commit).
fn concurrent_runs(runtime: &tokio::runtime::Runtime, runs: usize) {
    const HANDOFFS: usize = 10;
    let dir = tempfile::tempdir().expect("temp dir");
    let sqlite = Arc::new(SqliteStore::open(dir.path().join("load.db")).expect("open"));
    let store: Arc<dyn RunStore> = sqlite.clone();
    let crew = Arc::new(common::ping_pong(HANDOFFS as u32 + 2));
    let script = common::script(HANDOFFS, 240, 50);
    let timing = Arc::new(Timing::with_capacity(runs * 2 * (HANDOFFS + 1)));
    let started = Instant::now();
    let outcomes = runtime.block_on(async {
        let tasks: Vec<_> = (0..runs)
            .map(|_| {
                let deps = common::deps_with_sink(&script, store.clone(), timing.clone());
                let crew = crew.clone();
                tokio::spawn(async move { start_run(&crew, &CrewSource::default(), "go", &deps, &CancellationToken::new()).await })
            })
            .collect();
        let mut outcomes = Vec::with_capacity(runs);
        for task in tasks {
            outcomes.push(task.await.expect("task").expect("run"));
        }
        outcomes
    });
    let wall = started.elapsed();
    assert!(outcomes.iter().all(|o| o.status == RunStatus::Terminated && o.handoffs as usize == HANDOFFS));
    // Every event is stored.
    let stored: usize = runtime.block_on(async {
        let mut total = 0;
        for o in &outcomes {
            total += store.events(&o.run_id, None).await.expect("events").len();
        }
        total
    });
    assert_eq!(stored, timing.1.load(Ordering::Relaxed), "every emitted event is stored");
    let ideal = Duration::from_millis(50 * (HANDOFFS as u64 + 1));
    let mut delays = reply_to_next_step(&timing);
    delays.sort();
    let p = |q: f64| delays[((delays.len() as f64 - 1.0) * q) as usize].as_secs_f64() * 1000.0;
    let stats = sqlite.write_stats();
    println!("## {runs} concurrent runs × {HANDOFFS} handoffs × 50 ms replies, persisted to SQLite\n");
    println!("| wall | ideal | ratio | handoffs/s | reply → next step p50 / p99 | events stored | commits (largest batch) |");
    println!("|---|---|---|---|---|---|---|");
    println!(
        "| {:.2} s | {:.2} s | {:.2} | {:.0} | {:.2} / {:.2} ms | {stored} | {} ({}) |\n",
        wall.as_secs_f64(),
        ideal.as_secs_f64(),
        wall.as_secs_f64() / ideal.as_secs_f64(),
        (runs * HANDOFFS) as f64 / wall.as_secs_f64(),
        p(0.5),
        p(0.99),
        stats.batches,
        stats.largest_batch
    );
}

/// For each reply, the time until the same run's next agent started.
fn reply_to_next_step(timing: &Timing) -> Vec<Duration> {
    let seen = timing.0.lock().expect("timing");
    let mut last_reply: std::collections::HashMap<u64, Instant> = std::collections::HashMap::new();
    let mut delays = Vec::new();
    for (run, kind, at) in seen.iter() {
        match *kind {
            "agent_response" => {
                last_reply.insert(*run, *at);
            }
            "agent_started" => {
                if let Some(reply) = last_reply.remove(run) {
                    delays.push(*at - reply);
                }
            }
            _ => {}
        }
    }
    delays
}

/// Resident memory of this process, in bytes (Linux).
fn rss() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    statm.split_whitespace().nth(1).and_then(|p| p.parse::<u64>().ok()).unwrap_or(0) * 4096
}

/// A store that keeps nothing, so the memory measured is the runs' own.
struct Discard;

#[async_trait::async_trait]
impl RunStore for Discard {
    async fn create_run(&self, _: &RunRecord, _: &StepRecord) -> Result<(), StoreError> {
        Ok(())
    }
    async fn append_step(&self, _: &StepRecord) -> Result<(), StoreError> {
        Ok(())
    }
    async fn load_run(&self, _: &RunId) -> Result<Option<StoredRun>, StoreError> {
        Ok(None)
    }
    async fn list_runs(&self) -> Result<Vec<RunSummary>, StoreError> {
        Ok(Vec::new())
    }
    async fn events(&self, _: &RunId, _: Option<u64>) -> Result<Vec<RunEvent>, StoreError> {
        Ok(Vec::new())
    }
    async fn claim(&self, _: &RunId, _: &[RunStatus]) -> Result<bool, StoreError> {
        Ok(false)
    }
    async fn lease(&self, _: &RunId, owner: &str, _: std::time::Duration) -> Result<crewgraph_engine::run::LeaseOutcome, StoreError> {
        let lease = crewgraph_engine::run::Lease { owner: owner.to_owned(), expires_at: Default::default() };
        Ok(crewgraph_engine::run::LeaseOutcome::Granted(lease))
    }
    async fn release(&self, _: &RunId, _: &str) -> Result<bool, StoreError> {
        Ok(false)
    }
    async fn contexts(&self, _: &RunId) -> Result<Option<Vec<crewgraph_engine::run::seen::AgentContext>>, StoreError> {
        Ok(None)
    }
    async fn runnable(&self) -> Result<Vec<RunId>, StoreError> {
        Ok(Vec::new())
    }
}

/// Runs this bench again with `LOAD_PART=part` and reads the number it prints.
fn measured(part: &str) -> f64 {
    let exe = std::env::current_exe().expect("this bench");
    let out = std::process::Command::new(exe).env("LOAD_PART", part).output().expect("the child bench runs");
    String::from_utf8_lossy(&out.stdout).trim().parse().expect("the child prints a number")
}

/// Memory per in-flight run and per 1,000 history entries, each in its own process.
fn memory() {
    println!("## Memory\n");
    println!("| what | measured |");
    println!("|---|---|");
    println!("| per in-flight run (1,000 waiting on a reply; a store that keeps nothing) | {:.1} KiB |", measured("in_flight"));
    println!(
        "| per 1,000 history entries of 240 bytes (the run's history and the in-memory store's copy) | {:.0} KiB |\n",
        measured("history")
    );
}

/// KiB of resident memory per run, with 1,000 runs waiting on a slow reply.
fn in_flight_run(runtime: &tokio::runtime::Runtime) -> f64 {
    const RUNS: usize = 1_000;
    let crew = Arc::new(common::ping_pong(10));
    let store: Arc<dyn RunStore> = Arc::new(Discard);
    let slow = Script::parse("slow.yaml", "replies:\n  a: [{ content: 'slow', delay_ms: 3000 }]\n").expect("script");
    let before = rss();
    let cancel = CancellationToken::new();
    let tasks: Vec<_> = (0..RUNS)
        .map(|_| {
            let deps = common::deps_with_sink(&slow, store.clone(), Arc::new(NullSink));
            let (crew, cancel) = (crew.clone(), cancel.clone());
            runtime.spawn(async move { start_run(&crew, &CrewSource::default(), "go", &deps, &cancel).await })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(1_000));
    let in_flight = rss();
    cancel.cancel();
    runtime.block_on(async {
        for task in tasks {
            let _ = task.await;
        }
    });
    in_flight.saturating_sub(before) as f64 / RUNS as f64 / 1024.0
}

/// KiB of resident memory per 1,000 history entries of a 1,000-handoff run.
fn history_entries(runtime: &tokio::runtime::Runtime) -> f64 {
    let long = common::script(1_000, 240, 0);
    let crew = common::ping_pong(1_003);
    let before = rss();
    let deps = common::deps(&long, Arc::new(MemoryStore::new()));
    let outcome = runtime.block_on(start_run(&crew, &CrewSource::default(), "go", &deps, &CancellationToken::new())).expect("runs");
    let after = rss();
    (after.saturating_sub(before)) as f64 / 1024.0 * 1_000.0 / (outcome.steps as f64 + 1.0)
}
