//! Cluster figures for BENCHMARKS.md ("Beyond one machine (issue 20)"): Crewgraph on
//! a real PostgreSQL and a real Redis started by the bench (`crewgraph_store_postgres::testing`,
//! `crewgraph_queue::testing`), with the release `crewgraph` binary as an API node
//! (`crewgraph serve --queue … --store …`) and as worker processes
//! (`crewgraph worker --queue … --store …`), driven over HTTP on loopback. One-shot
//! measurements printed as tables, with the machine's load and where its CPU went:
//!
//! 1. **throughput** — runs per second through 1, 2 and 3 workers (each
//!    `--concurrency 500`) on scripted ping-pong runs whose replies take 50 ms, and
//!    the ratio to one worker. The runs are started through the API node first, then
//!    the workers are started, and the clock runs from their start until the queue
//!    is empty (so the API node's `POST /runs` is not in the figure);
//! 2. **latency** — from `POST /runs` on the API node to the run's first
//!    `agent_started` on the API node's stream (`GET /runs/{id}/events`), one run
//!    after another through one worker: p50, p90, p99;
//! 3. **handoff** — what a handoff costs on PostgreSQL against SQLite: long runs of
//!    instant replies through `crewgraph serve --db FILE`, `crewgraph serve --store
//!    postgres://…`, and a worker (`serve --queue` + `worker`), timed by the runs'
//!    own event timestamps (first `agent_started` to `run_finished`);
//! 4. **concurrent** — 10,000 runs at once across 3 workers against the ideal time
//!    (the script's total delay);
//! 5. **soak** (only when asked: `-- soak`, as `make soak` does) — a worker's memory
//!    (VmRSS) over 100,000 scripted instant runs fed through the API node: flat
//!    within 10 % after a warm-up, or not.
//!
//! ```text
//! cargo bench -p crewgraph --bench cluster                       # 1–4, full sizes
//! cargo bench -p crewgraph --bench cluster -- latency handoff    # some of them
//! cargo bench -p crewgraph --bench cluster -- soak               # the memory soak
//! CLUSTER_BENCH_RUNS=500 CLUSTER_BENCH_LATENCY_RUNS=50 CLUSTER_BENCH_HANDOFFS=200 \
//!   CLUSTER_BENCH_CONCURRENT_RUNS=1000 cargo bench -p crewgraph --bench cluster   # a short pass
//! CLUSTER_BENCH_SOAK_RUNS=5000 cargo bench -p crewgraph --bench cluster -- soak  # a short soak
//! ```
//!
//! Sizes (environment, defaults in brackets): `CLUSTER_BENCH_RUNS` runs per
//! throughput row [5000], `CLUSTER_BENCH_LATENCY_RUNS` [300], `CLUSTER_BENCH_HANDOFFS`
//! per handoff run [1000] and `CLUSTER_BENCH_HANDOFF_RUNS` runs per store [5],
//! `CLUSTER_BENCH_CONCURRENT_RUNS` [10000], `CLUSTER_BENCH_SOAK_RUNS` [100000].
//!
//! Every process shares the machine with the bench (and PostgreSQL runs with
//! `fsync=off`, as in the tests), so read the figures as ratios, and the CPU split
//! as where the time goes. The parts are started by `clustered` (benches/clustered/)
//! and what they cost is read from `/proc` by `clustered::machine`; this file holds
//! the figures.

mod clustered;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crewgraph_engine::run::{EventKind, RunEvent};
use eventsource_stream::Eventsource;
use futures_util::StreamExt;
use serde_json::{json, Value};

use clustered::machine::{cores, memory_of, with_children, CpuMeter, CpuSpent, Groups};
use clustered::{database_activity, get_json, start_run, Backing, Cluster, POSTING_CLIENTS, STUCK};

/// Each throughput worker's `--concurrency`.
const CONCURRENCY: usize = 500;
/// The throughput runs' replies: ping and pong, 3 turns each (ping's third ends):
/// 5 replies of 50 ms, 4 handoffs.
const THROUGHPUT_TURNS: usize = 3;
/// The 10,000 runs' script: 10 handoffs, 11 replies of 50 ms (issue 3's load, so the
/// figure compares with one process on SQLite).
const CONCURRENT_TURNS: usize = 6;
const REPLY_MS: u64 = 50;
/// The latency runs' one reply: long enough that `agent_started` comes long before
/// the step that stores it.
const LATENCY_REPLY_MS: u64 = 200;

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.replace('_', "").parse().ok()).unwrap_or(default)
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg").map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" ")).unwrap_or_default()
}

/// A ping-pong script (the shape of tests/integration/serve/mod.rs's `ping_pong`):
/// `turns` replies of ping, the last one ends, and pong's between, each taking
/// `delay_ms` and `words` words long.
fn ping_pong(turns: usize, delay_ms: u64, words: usize) -> Value {
    let text = |who: &str, i: usize| (0..words).map(|w| format!("{who}{i}w{w}")).collect::<Vec<_>>().join(" ");
    let ping: Vec<Value> = (0..turns)
        .map(|i| {
            let signal = if i + 1 == turns { "[END]" } else { "[NEXT]" };
            json!({"content": format!("{} {signal}", text("ping", i)), "delay_ms": delay_ms})
        })
        .collect();
    let pong: Vec<Value> = (0..turns).map(|i| json!({"content": format!("{} [NEXT]", text("pong", i)), "delay_ms": delay_ms})).collect();
    json!({"replies": {"ping": ping, "pong": pong}})
}

/// The handoffs of a ping-pong run of `turns` turns: every reply but the last hands over.
fn handoffs_of(turns: usize) -> usize {
    2 * turns - 2
}

/// `21.0 / 30.0`: PostgreSQL transactions and rows written per run, or `—`.
fn per_run(activity: Option<(u64, u64)>, runs: usize) -> String {
    activity.map_or("—".to_owned(), |(transactions, rows)| {
        format!("{:.1} / {:.1}", transactions as f64 / runs as f64, rows as f64 / runs as f64)
    })
}

fn statuses_text(statuses: &BTreeMap<String, usize>) -> String {
    statuses.iter().map(|(status, n)| format!("{n} {status}")).collect::<Vec<_>>().join(", ")
}

// ---------------------------------------------------------------------------
// The phases

/// What draining a queue of runs through workers took.
struct Drained {
    runs: usize,
    posting: Duration,
    wall: Duration,
    cpu: CpuSpent,
    legs: Vec<usize>,
    statuses: BTreeMap<String, usize>,
    /// Transactions and rows written in PostgreSQL over the runs' whole lives (their
    /// start on the API node included), when `psql` could say.
    activity: Option<(u64, u64)>,
    /// Each worker's peak VmRSS, KiB.
    peaks: Vec<u64>,
}

/// `runs` runs of `script` started through the API node of a fresh cluster, then
/// `workers` workers of `concurrency` started on them, timed until the queue is empty.
async fn drain(backing: &Backing, name: &str, runs: usize, script: &Value, workers: usize, concurrency: usize) -> Drained {
    let mut cluster = Cluster::start(backing, name).await;
    let posting = cluster.start_runs(runs, script).await;
    let queue = cluster.queue().await;
    let queued = queue.queued().await.expect("XLEN");
    assert!(queued >= runs, "{runs} runs started, {queued} in the queue");
    let meter = CpuMeter::start(&cluster.groups());
    let began = Instant::now();
    cluster.spawn_workers(workers, concurrency);
    cluster.until_queue_empty(&queue).await;
    let wall = began.elapsed();
    let cpu = meter.finish(&cluster.groups());
    let peaks = cluster.workers.iter().map(|w| memory_of(w.pid()).1).collect();
    let legs = cluster.stop_workers();
    cluster.api.stop();
    // Counters reach pg_stat_database when a backend ends; the pools' just ended.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let activity = database_activity(&cluster.store);
    let statuses = cluster.statuses().await;
    Drained { runs, posting, wall, cpu, legs, statuses, peaks, activity }
}

/// Runs per second through 1, 2 and 3 workers.
async fn throughput(backing: &Backing) {
    let runs = env_number("CLUSTER_BENCH_RUNS", 5000);
    let run_ms = (2 * THROUGHPUT_TURNS - 1) as u64 * REPLY_MS;
    println!("## Throughput: 1, 2 and 3 workers, `--concurrency {CONCURRENCY}` each\n");
    println!(
        "{runs} ping-pong runs per row ({} replies of {REPLY_MS} ms, {} handoffs: {run_ms} ms of replies each), started \
         through the API node first ({POSTING_CLIENTS} clients); then the workers are started, and the clock runs until \
         the queue is empty. A fresh database and Redis per row. \"Delay-bound\" is what the replies' delays alone \
         would allow ({CONCURRENCY} runs per worker every {run_ms} ms). CPU is seconds of user + system time per \
         process group over the timed part (\"others\": the rest of the machine); busy is the whole machine's ({} cores).\n",
        2 * THROUGHPUT_TURNS - 1,
        handoffs_of(THROUGHPUT_TURNS),
        cores()
    );
    println!("| workers | wall | runs/s | × one worker | delay-bound runs/s | legs per worker | CPU s: workers / API node / PostgreSQL / Redis / bench / others | cluster CPU ms per run | PostgreSQL per run: transactions / rows written | machine busy | runs ended | before: runs started through the API node |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    let script = ping_pong(THROUGHPUT_TURNS, REPLY_MS, 2);
    let mut one = None;
    for workers in 1..=3 {
        let d = drain(backing, &format!("throughput_{workers}"), runs, &script, workers, CONCURRENCY).await;
        let rate = d.runs as f64 / d.wall.as_secs_f64();
        let base = *one.get_or_insert(rate);
        println!(
            "| {workers} | {:.2} s | {rate:.0} | ×{:.2} | {:.0} | {} | {} | {:.2} | {} | {:.0} % | {} | in {:.1} s ({:.0}/s) |",
            d.wall.as_secs_f64(),
            rate / base,
            (CONCURRENCY * workers) as f64 * 1000.0 / run_ms as f64,
            d.legs.iter().map(|l| l.to_string()).collect::<Vec<_>>().join(" / "),
            d.cpu.split(),
            d.cpu.total() * 1e3 / d.runs as f64,
            per_run(d.activity, d.runs),
            d.cpu.busy * 100.0,
            statuses_text(&d.statuses),
            d.posting.as_secs_f64(),
            d.runs as f64 / d.posting.as_secs_f64()
        );
    }
    println!("\nGoal: ×1.9 with 2 workers, ×2.7 with 3. Load average after: {}\n", load_average());
}

/// Latency percentiles of `samples`, in ms: p50, p90, p99, max.
fn percentiles(samples: &mut [Duration]) -> [f64; 4] {
    samples.sort();
    let at = |p: f64| samples[((samples.len() as f64 * p) as usize).min(samples.len() - 1)].as_secs_f64() * 1e3;
    [at(0.50), at(0.90), at(0.99), samples.last().map_or(0.0, |d| d.as_secs_f64() * 1e3)]
}

/// From `POST /runs` to the first `agent_started` on the API node's stream.
async fn latency(backing: &Backing) {
    let count = env_number("CLUSTER_BENCH_LATENCY_RUNS", 300);
    let warm_up = 20;
    let mut cluster = Cluster::start(backing, "latency").await;
    cluster.spawn_workers(1, CONCURRENCY);
    let script = ping_pong(1, LATENCY_REPLY_MS, 2);
    let url = format!("{}/runs", cluster.base);
    let (mut answered, mut opened, mut started) = (Vec::new(), Vec::new(), Vec::new());
    let mut late = 0;
    let (mut meter, mut began) = (CpuMeter::start(&cluster.groups()), Instant::now());
    for n in 0..warm_up + count {
        if n == warm_up {
            (meter, began) = (CpuMeter::start(&cluster.groups()), Instant::now());
        }
        let sent = Instant::now();
        let id = start_run(&cluster.http, &url, n, &script).await;
        let accepted = sent.elapsed();
        let response = cluster
            .http
            .get(format!("{}/runs/{id}/events", cluster.base))
            .header("accept", "text/event-stream")
            .send()
            .await
            .expect("the stream opens");
        let open = sent.elapsed();
        let mut events = response.bytes_stream().eventsource();
        let seen = loop {
            match tokio::time::timeout(Duration::from_secs(30), events.next()).await {
                Ok(Some(Ok(event))) if event.data.contains("\"type\":\"agent_started\"") => break sent.elapsed(),
                Ok(Some(Ok(_))) => {}
                other => panic!("run {id}: the stream ended before agent_started: {other:?}"),
            }
        };
        if n >= warm_up {
            answered.push(accepted);
            opened.push(open);
            started.push(seen);
            late += usize::from(seen > Duration::from_millis(LATENCY_REPLY_MS));
        }
    }
    let others = meter.finish(&cluster.groups()).others_share(began.elapsed());
    let [a50, _, a99, _] = percentiles(&mut answered);
    let [o50, _, o99, _] = percentiles(&mut opened);
    let [s50, s90, s99, smax] = percentiles(&mut started);
    println!("## Latency: `POST /runs` → first `agent_started` on the API node's stream\n");
    println!(
        "One worker (`--concurrency {CONCURRENCY}`), {count} runs one after another (after {warm_up} not counted): \
         `POST /runs` on the API node, then `GET /runs/{{id}}/events` there, read until the run's first `agent_started`. \
         Each run's one reply takes {LATENCY_REPLY_MS} ms, so an `agent_started` seen later than that came from the \
         store (after the step was stored), not live over Redis.\n"
    );
    println!("| runs | 202 answered p50 / p99 | stream open p50 / p99 | `agent_started` p50 | p90 | p99 | max | seen after {LATENCY_REPLY_MS} ms | other programs' share of the machine |");
    println!("|---|---|---|---|---|---|---|---|---|");
    println!(
        "| {count} | {a50:.2} / {a99:.2} ms | {o50:.2} / {o99:.2} ms | {s50:.2} ms | {s90:.2} ms | {s99:.2} ms | {smax:.1} ms | {late} | {:.0} % |",
        others * 100.0
    );
    println!("\nGoal: p50 ≤ 5 ms, p99 ≤ 50 ms. Load average after: {}\n", load_average());
    cluster.stop_workers();
}

/// Milliseconds from a run's first `agent_started` to its `run_finished`, by the
/// events' own timestamps, and its handoffs.
fn run_time(events: &[RunEvent]) -> (u64, usize) {
    let first = events.iter().find(|e| matches!(e.kind, EventKind::AgentStarted { .. })).expect("agent_started").timestamp.millis();
    let last = events.iter().find(|e| matches!(e.kind, EventKind::RunFinished { .. })).expect("run_finished").timestamp.millis();
    let handoffs = events.iter().filter(|e| matches!(e.kind, EventKind::Handoff { .. })).count();
    (last - first, handoffs)
}

/// Runs `count` runs of `script` one after another on the server at `base`; each
/// run's time per handoff, µs.
async fn per_handoff_on(base: &str, count: usize, script: &Value) -> Vec<f64> {
    let http = reqwest::Client::new();
    let mut figures = Vec::new();
    for n in 0..count {
        let id = start_run(&http, &format!("{base}/runs"), n, script).await;
        let deadline = Instant::now() + STUCK;
        loop {
            let detail = get_json(&http, &format!("{base}/runs/{id}")).await;
            match detail["run"]["status"].as_str() {
                Some("running") => {}
                Some("terminated") => break,
                other => panic!("run {id} ended {other:?}: {detail}"),
            }
            assert!(Instant::now() < deadline, "run {id} never ended");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let events: Vec<RunEvent> = serde_json::from_value(get_json(&http, &format!("{base}/runs/{id}/events")).await).expect("events");
        let (ms, handoffs) = run_time(&events);
        figures.push(ms as f64 * 1e3 / handoffs.max(1) as f64);
    }
    figures
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Per-handoff time on SQLite, on PostgreSQL, and through a worker.
async fn handoff(backing: &Backing) {
    let handoffs = env_number("CLUSTER_BENCH_HANDOFFS", 1000).max(2);
    let count = env_number("CLUSTER_BENCH_HANDOFF_RUNS", 5).max(1);
    let turns = handoffs / 2 + 1;
    let script = ping_pong(turns, 0, 2);
    println!("## Per handoff: PostgreSQL against SQLite\n");
    println!(
        "Runs of {} handoffs of instant replies (ping-pong, 2 words each), {count} one after another per row, each on a \
         server of its own; a run's time is its first `agent_started` to its `run_finished` by the events' own \
         timestamps (ms), divided by its handoffs. Every step is stored before the next begins.\n",
        handoffs_of(turns)
    );
    println!("| executed by | store | per handoff, median | fastest | slowest | other programs' share of the machine |");
    println!("|---|---|---|---|---|---|");
    // Each row's runs, with what the rest of the machine took meanwhile.
    let measured = |base: String, groups: Groups| {
        let script = script.clone();
        async move {
            let (meter, began) = (CpuMeter::start(&groups), Instant::now());
            let figures = per_handoff_on(&base, count, &script).await;
            (figures, meter.finish(&groups).others_share(began.elapsed()))
        }
    };
    let row = |by: &str, store: &str, (mut figures, others): (Vec<f64>, f64)| {
        let middle = median(&mut figures);
        println!(
            "| {by} | {store} | {middle:.0} µs | {:.0} µs | {:.0} µs | {:.0} % |",
            figures[0],
            figures[figures.len() - 1],
            others * 100.0
        );
    };
    let postgres = || ("PostgreSQL", backing.postmaster.map(with_children).unwrap_or_default());
    let bench = || ("bench", vec![std::process::id()]);

    let db = backing.dir.path().join("handoff.db");
    let (mut server, base) = backing.serve("crewgraph serve --db", &["--db", db.to_str().expect("a UTF-8 path")]);
    let groups = vec![("crewgraph serve", vec![server.pid()]), postgres(), bench()];
    row("`crewgraph serve --db FILE`", "SQLite (WAL, synchronous=NORMAL)", measured(base, groups).await);
    server.stop();

    let store = backing.postgres.database("handoff").await.expect("a database");
    let (mut server, base) = backing.serve("crewgraph serve --store", &["--store", &store]);
    let groups = vec![("crewgraph serve", vec![server.pid()]), postgres(), bench()];
    row("`crewgraph serve --store postgres://…`", "PostgreSQL (fsync=off)", measured(base, groups).await);
    server.stop();

    let mut cluster = Cluster::start(backing, "handoff_worker").await;
    cluster.spawn_workers(1, CONCURRENCY);
    let figures = measured(cluster.base.clone(), cluster.groups()).await;
    row("`crewgraph worker` (runs from `serve --queue`)", "PostgreSQL, events published on Redis", figures);
    cluster.stop_workers();
    println!("\nLoad average after: {}\n", load_average());
}

/// 10,000 runs at once across 3 workers against the ideal time.
async fn concurrent(backing: &Backing) {
    let runs = env_number("CLUSTER_BENCH_CONCURRENT_RUNS", 10_000);
    let workers = 3;
    let concurrency = runs.div_ceil(workers);
    let ideal = Duration::from_millis((2 * CONCURRENT_TURNS - 1) as u64 * REPLY_MS);
    let script = ping_pong(CONCURRENT_TURNS, REPLY_MS, 2);
    let d = drain(backing, "concurrent", runs, &script, workers, concurrency).await;
    println!("## {runs} runs at once across {workers} workers\n");
    println!(
        "Each run: {} handoffs, {} replies of {REPLY_MS} ms (ideal: {} ms, the script's total delay). The runs are \
         started through the API node first (in {:.1} s), then {workers} workers of `--concurrency {concurrency}` are \
         started, and the clock runs until the queue is empty.\n",
        handoffs_of(CONCURRENT_TURNS),
        2 * CONCURRENT_TURNS - 1,
        ideal.as_millis(),
        d.posting.as_secs_f64()
    );
    println!("| runs | wall | ideal | ratio | handoffs/s | legs per worker | peak VmRSS per worker | CPU s: workers / API node / PostgreSQL / Redis / bench / others | PostgreSQL per run: transactions / rows written | machine busy | runs ended |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    println!(
        "| {runs} | {:.2} s | {:.2} s | {:.1} × | {:.0} | {} | {} | {} | {} | {:.0} % | {} |",
        d.wall.as_secs_f64(),
        ideal.as_secs_f64(),
        d.wall.as_secs_f64() / ideal.as_secs_f64(),
        (runs * handoffs_of(CONCURRENT_TURNS)) as f64 / d.wall.as_secs_f64(),
        d.legs.iter().map(|l| l.to_string()).collect::<Vec<_>>().join(" / "),
        d.peaks.iter().map(|kib| format!("{} MiB", kib / 1024)).collect::<Vec<_>>().join(" / "),
        d.cpu.split(),
        per_run(d.activity, d.runs),
        d.cpu.busy * 100.0,
        statuses_text(&d.statuses)
    );
    println!("\nGoal: ≤ 2 × the ideal. Load average after: {}\n", load_average());
}

/// The slope of the least-squares line through `points` (y per x); 0 for fewer than two.
fn least_squares_slope(points: &[(f64, f64)]) -> f64 {
    let n = points.len() as f64;
    if n < 2.0 {
        return 0.0;
    }
    let (mean_x, mean_y) = (points.iter().map(|p| p.0).sum::<f64>() / n, points.iter().map(|p| p.1).sum::<f64>() / n);
    let covariance: f64 = points.iter().map(|(x, y)| (x - mean_x) * (y - mean_y)).sum();
    let variance: f64 = points.iter().map(|(x, _)| (x - mean_x).powi(2)).sum();
    if variance == 0.0 {
        0.0
    } else {
        covariance / variance
    }
}

/// Rounds of the soak: the first is the warm-up.
const SOAK_ROUNDS: usize = 10;
/// Runs waiting in the queue at most while the soak feeds a worker.
const SOAK_MOST_WAITING: usize = 1000;

/// A worker's VmRSS over many instant runs fed through the API node: in rounds,
/// each ended by letting the worker go idle and reading its memory then.
async fn soak(backing: &Backing) {
    let runs = env_number("CLUSTER_BENCH_SOAK_RUNS", 100_000).max(SOAK_ROUNDS);
    let per_round = runs / SOAK_ROUNDS;
    let runs = per_round * SOAK_ROUNDS;
    let mut cluster = Cluster::start(backing, "soak").await;
    cluster.spawn_workers(1, CONCURRENCY);
    let worker = cluster.workers[0].pid();
    let queue = cluster.queue().await;
    let script = ping_pong(2, 0, 2);
    println!("## Soak: a worker's memory over {runs} instant runs\n");
    println!(
        "One worker (`--concurrency {CONCURRENCY}`); runs of 3 instant replies (2 handoffs) started through the API node \
         by {POSTING_CLIENTS} clients, at most {SOAK_MOST_WAITING} waiting in the queue, in {SOAK_ROUNDS} rounds of \
         {per_round}. The worker's VmRSS (/proc/PID/status) is read every 100 ms under load; each round's median \
         is compared with the first round's after the warm-up (round 1). After each round the queue is let run \
         empty and the worker idle for a second, and its VmRSS read again (\"idle\": the allocator may keep freed \
         pages until it next runs, so this one is noisier).\n"
    );
    println!("| round | runs done | elapsed | runs/s in the round | worker VmRSS under load: median | max | samples | worker VmRSS idle after it | API node VmRSS idle |");
    println!("|---|---|---|---|---|---|---|---|---|");
    let mib = |kib: u64| kib as f64 / 1024.0;
    let began = Instant::now();
    let (mut medians, mut idle, mut most_under_load) = (Vec::new(), Vec::new(), 0);
    // (runs done, VmRSS KiB) under load after the warm-up, for the trend.
    let mut trend = Vec::new();
    for round in 1..=SOAK_ROUNDS {
        let round_began = Instant::now();
        let (next, accepted, waiting) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let feeders: Vec<_> = (0..POSTING_CLIENTS)
            .map(|_| {
                let (http, url, script) = (cluster.http.clone(), format!("{}/runs", cluster.base), script.clone());
                let (next, accepted, waiting) = (next.clone(), accepted.clone(), waiting.clone());
                tokio::spawn(async move {
                    loop {
                        while waiting.load(Ordering::Relaxed) > SOAK_MOST_WAITING {
                            tokio::time::sleep(Duration::from_millis(5)).await;
                        }
                        let n = next.fetch_add(1, Ordering::Relaxed);
                        if n >= per_round {
                            break;
                        }
                        start_run(&http, &url, n, &script).await;
                        accepted.fetch_add(1, Ordering::Relaxed);
                    }
                })
            })
            .collect();
        let deadline = Instant::now() + STUCK;
        let mut samples = Vec::new();
        loop {
            let queued = queue.queued().await.expect("XLEN");
            waiting.store(queued, Ordering::Relaxed);
            let rss = memory_of(worker).0;
            samples.push(rss);
            if round > 1 {
                let done = (round - 1) * per_round + accepted.load(Ordering::Relaxed).saturating_sub(queued);
                trend.push((done as f64, rss as f64));
            }
            if accepted.load(Ordering::Relaxed) == per_round && queued == 0 {
                break;
            }
            assert!(Instant::now() < deadline, "the soak is stuck in round {round}; the worker said:\n{}", cluster.workers_said());
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        for feeder in feeders {
            feeder.await.expect("a feeder");
        }
        let took = round_began.elapsed();
        samples.sort();
        let (middle, round_most) = (samples[samples.len() / 2], samples[samples.len() - 1]);
        tokio::time::sleep(Duration::from_secs(1)).await;
        let rss = memory_of(worker).0;
        if round > 1 {
            medians.push(middle);
            idle.push(rss);
            most_under_load = most_under_load.max(round_most);
        }
        println!(
            "| {round}{} | {} | {:.0} s | {:.0} | {:.1} MiB | {:.1} MiB | {} | {:.1} MiB | {:.1} MiB |",
            if round == 1 { " (warm-up)" } else { "" },
            round * per_round,
            began.elapsed().as_secs_f64(),
            per_round as f64 / took.as_secs_f64(),
            mib(middle),
            mib(round_most),
            samples.len(),
            mib(rss),
            mib(memory_of(cluster.api.pid()).0)
        );
    }
    let (first, last) = (medians[0], medians[medians.len() - 1]);
    let most = *medians.iter().max().expect("a round after the warm-up");
    let growth = |kib: u64| (kib as f64 - first as f64) / first as f64 * 100.0;
    let (idle_low, idle_high) = (*idle.iter().min().expect("a round"), *idle.iter().max().expect("a round"));
    let slope = least_squares_slope(&trend);
    let after_warm_up = (runs - per_round) as f64;
    let peak = memory_of(worker).1;
    let legs = cluster.stop_workers();
    let statuses = cluster.statuses().await;
    println!(
        "\nWorker VmRSS under load after the warm-up, round medians: first {:.1} MiB, last {:.1} MiB ({:+.1} %), \
         max {:.1} MiB ({:+.1} %): {}. Trend of all {} samples after the warm-up (least squares): {:+.2} MiB per \
         10,000 runs, {:+.1} % of the first median over the {} runs. Highest sample under load {:.1} MiB; peak \
         (VmHWM) {:.1} MiB; idle between rounds {:.1}–{:.1} MiB. The worker executed {} legs; runs: {}. {:.0} s in \
         all. Load average after: {}\n",
        mib(first),
        mib(last),
        growth(last),
        mib(most),
        growth(most),
        if growth(most) <= 10.0 { "flat within 10 %, the goal" } else { "**not flat within 10 %**, the goal" },
        trend.len(),
        slope * 10_000.0 / 1024.0,
        slope * after_warm_up / first as f64 * 100.0,
        runs - per_round,
        mib(most_under_load),
        mib(peak),
        mib(idle_low),
        mib(idle_high),
        legs[0],
        statuses_text(&statuses),
        began.elapsed().as_secs_f64(),
        load_average()
    );
}

fn main() {
    let asked: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let wants = |part: &str| if asked.is_empty() { part != "soak" } else { asked.iter().any(|a| a == part) };
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    let backing = Backing::start();
    println!("# Crewgraph cluster figures (issue 20; one run; release build; everything on this machine)\n");
    println!("{} cores. Load average before: {}\n", cores(), load_average());
    let binary = Path::new(env!("CARGO_BIN_EXE_crewgraph"));
    eprintln!("(the crewgraph binary: {})", binary.display());
    runtime.block_on(async {
        if wants("throughput") {
            throughput(&backing).await;
        }
        if wants("latency") {
            latency(&backing).await;
        }
        if wants("handoff") {
            handoff(&backing).await;
        }
        if wants("concurrent") {
            concurrent(&backing).await;
        }
        if wants("soak") {
            soak(&backing).await;
        }
    });
}
