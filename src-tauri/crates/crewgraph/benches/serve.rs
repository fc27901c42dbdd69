//! Load figures for `crewgraph serve` (BENCHMARKS.md, "The HTTP server"): a Rust
//! load generator on loopback against the real binary (release build) over a SQLite
//! file — requests per second and latency percentiles for validating a crew and
//! for starting scripted runs, and the server's memory (VmRSS of its process) with
//! 1,000 clients watching one run's server-sent events. One-shot measurements
//! printed as tables, with the machine's load when they were taken:
//! `cargo bench -p crewgraph --bench serve`.
//! `SERVE_SECONDS` (default 5) sets each throughput scenario's length,
//! `SERVE_CLIENTS` (default 32) its concurrency, `SERVE_WATCHERS` (default 1000)
//! the SSE scenario's subscribers.

use std::path::Path;
use std::process::Child;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use eventsource_stream::Eventsource;
use futures_util::StreamExt;
use serde_json::{json, Value};

mod served;

const PING_PONG: &str = "version: \"1.0\"\nname: Ping pong\nentry_point: ping\nmax_handoffs: 1000\nagents:\n  - { id: ping, system_prompt: Say ping. }\n  - { id: pong, system_prompt: Say pong. }\nrouting:\n  signals:\n    ping:\n      - { signal: \"[NEXT]\", target: pong }\n      - { signal: \"[END]\", target: \"\" }\n    pong:\n      - { signal: \"[NEXT]\", target: ping }\n";

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg").map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" ")).unwrap_or_default()
}

/// `VmRSS` and `VmHWM` (peak) of a process, in KiB.
fn memory_of(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// A `crewgraph serve` process over its own folder.
struct ServerProcess {
    child: Child,
    base: String,
    _dir: tempfile::TempDir,
}

impl ServerProcess {
    fn start() -> ServerProcess {
        let dir = tempfile::tempdir().expect("temp dir");
        let crews = dir.path().join("crews");
        std::fs::create_dir(&crews).expect("crews folder");
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../crews");
        std::fs::copy(repo.join("exam.yaml"), crews.join("exam.yaml")).expect("exam.yaml");
        std::fs::write(crews.join("ping-pong.yaml"), PING_PONG).expect("ping-pong.yaml");
        // Every watcher is a connection of this one client address.
        let (child, base) = served::serve(&crews, &dir.path().join("bench.db"), &["--max-connections-per-client", "100000"]);
        ServerProcess { child, base, _dir: dir }
    }

    fn memory(&self) -> (u64, u64) {
        memory_of(self.child.id())
    }

    fn stop(mut self) {
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        let _ = self.child.wait();
    }
}

/// Latency percentiles of `samples`, in ms.
fn percentiles(samples: &mut [Duration]) -> (f64, f64, f64) {
    samples.sort();
    let at = |p: f64| samples[((samples.len() as f64 * p) as usize).min(samples.len() - 1)].as_secs_f64() * 1e3;
    (at(0.50), at(0.99), samples.last().map_or(0.0, |d| d.as_secs_f64() * 1e3))
}

/// Sends `request` from `clients` concurrent clients for `seconds`; the table row.
async fn throughput<F, Fut>(name: &str, clients: usize, seconds: u64, request: F)
where
    F: Fn(reqwest::Client) -> Fut + Clone + Send + 'static,
    Fut: std::future::Future<Output = reqwest::StatusCode> + Send,
{
    let http = reqwest::Client::builder().pool_max_idle_per_host(clients).build().expect("client");
    // Warm up: connections, the page cache, the database.
    for _ in 0..clients {
        request(http.clone()).await;
    }
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let started = Instant::now();
    let tasks: Vec<_> = (0..clients)
        .map(|_| {
            let (http, request) = (http.clone(), request.clone());
            tokio::spawn(async move {
                let mut samples = Vec::new();
                let mut failed = 0usize;
                while Instant::now() < deadline {
                    let sent = Instant::now();
                    let status = request(http.clone()).await;
                    samples.push(sent.elapsed());
                    if !status.is_success() {
                        failed += 1;
                    }
                }
                (samples, failed)
            })
        })
        .collect();
    let mut samples = Vec::new();
    let mut failed = 0;
    for task in tasks {
        let (mut s, f) = task.await.expect("client task");
        samples.append(&mut s);
        failed += f;
    }
    let elapsed = started.elapsed().as_secs_f64();
    let count = samples.len();
    let (p50, p99, max) = percentiles(&mut samples);
    println!("| {name} | {clients} | {count} | {:.0} | {p50:.2} | {p99:.2} | {max:.1} | {failed} |", count as f64 / elapsed);
}

async fn post_json(http: &reqwest::Client, url: &str, body: &Value) -> reqwest::Response {
    http.post(url).header("content-type", "application/json").body(body.to_string()).send().await.expect("request")
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    let seconds = env_number("SERVE_SECONDS", 5) as u64;
    let clients = env_number("SERVE_CLIENTS", 32);
    let watchers = env_number("SERVE_WATCHERS", 1000);
    println!("# crewgraph serve load figures (one run; release build; client and server share the machine)\n");
    println!("Load average before: {}\n", load_average());

    let server = ServerProcess::start();
    println!("## Throughput, {seconds} s per scenario, keep-alive connections\n");
    println!("| scenario | clients | requests | requests/s | p50 ms | p99 ms | max ms | failed |");
    println!("|---|---|---|---|---|---|---|---|");
    runtime.block_on(async {
        let url = format!("{}/crews/exam.yaml/validation", server.base);
        throughput("GET /crews/exam.yaml/validation", clients, seconds, move |http| {
            let url = url.clone();
            async move { http.get(&url).send().await.expect("request").status() }
        })
        .await;
        let script =
            std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../crews/scripts/exam.yaml")).expect("script");
        let body = json!({"crew": "exam.yaml", "input": "Start the exam", "script": script});
        let url = format!("{}/runs", server.base);
        throughput("POST /runs (exam.yaml, scripted)", clients, seconds, move |http| {
            let (url, body) = (url.clone(), body.clone());
            async move { post_json(&http, &url, &body).await.status() }
        })
        .await;
        let runs = reqwest::get(format!("{}/runs", server.base)).await.expect("runs").json_value().await;
        let runs = runs.as_array().cloned().unwrap_or_default();
        let finished = runs.iter().filter(|r| r["status"] != json!("running")).count();
        println!("\nRuns started: {}, of which {finished} had finished when the scenario ended.", runs.len());
    });
    let (rss, peak) = server.memory();
    println!("Server memory after both scenarios: VmRSS {} MiB, peak {} MiB.", rss / 1024, peak / 1024);
    println!("Load average after: {}\n", load_average());
    server.stop();

    println!("## {watchers} clients watching one run (server-sent events)\n");
    println!("Each row on a fresh server, so earlier scenarios' memory does not count. The run:");
    println!("2 × 30 turns of 100 ms, 414 events. Memory is the server process's VmRSS.\n");
    println!("| watchers join | idle | {watchers} connected | per watcher | after the run | peak (VmHWM) | all connected in | saw run_finished | events each (min/max) |");
    println!("|---|---|---|---|---|---|---|---|---|");
    runtime.block_on(idle_connections(watchers));
    runtime.block_on(watch_one_run(watchers, true));
    runtime.block_on(watch_one_run(watchers, false));
    println!("\nLoad average after: {}", load_average());
}

/// For comparison: what `count` idle keep-alive connections cost the server (each
/// has asked `/health` once and stays open).
async fn idle_connections(count: usize) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let server = ServerProcess::start();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (idle, _) = server.memory();
    let addr = server.base.trim_start_matches("http://").to_owned();
    let started = Instant::now();
    let mut sockets = Vec::with_capacity(count);
    for _ in 0..count {
        let mut socket = tokio::net::TcpStream::connect(&addr).await.expect("connect");
        socket.write_all(b"GET /health HTTP/1.1\r\nHost: bench\r\n\r\n").await.expect("request");
        let mut answer = [0u8; 1024];
        let _ = socket.read(&mut answer).await.expect("answer");
        sockets.push(socket);
    }
    let join_time = started.elapsed();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (connected, peak) = server.memory();
    let mib = |kib: u64| kib as f64 / 1024.0;
    println!(
        "| (for comparison: idle keep-alive connections, no run) | {:.1} MiB | {:.1} MiB | {:.1} KiB | — | {:.1} MiB | {:.0} ms | — | — |",
        mib(idle),
        mib(connected),
        connected.saturating_sub(idle) as f64 / count as f64,
        mib(peak),
        join_time.as_secs_f64() * 1e3
    );
    drop(sockets);
    server.stop();
}

/// `watchers` clients watch one run to its end; `early`: they all join while its
/// first turn waits (nothing to replay), else while it runs (each replays what is stored).
async fn watch_one_run(watchers: usize, early: bool) {
    let server = ServerProcess::start();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (idle, _) = server.memory();
    let http = reqwest::Client::builder().pool_max_idle_per_host(watchers).build().expect("client");
    let turn = |who: &str, i: usize, signal: &str| json!({"content": format!("{who} {i} says a few words {signal}"), "delay_ms": 100});
    let mut ping: Vec<Value> = (0..30).map(|i| turn("ping", i, if i == 29 { "[END]" } else { "[NEXT]" })).collect();
    if early {
        ping[0]["delay_ms"] = json!(5000);
    }
    let pong: Vec<Value> = (0..30).map(|i| turn("pong", i, "[NEXT]")).collect();
    let body = json!({"crew": "ping-pong.yaml", "input": "go", "script": {"replies": {"ping": ping, "pong": pong}}});
    let started = post_json(&http, &format!("{}/runs", server.base), &body).await;
    let id = started.json_value().await["run_id"].as_str().expect("run id").to_owned();
    if !early {
        tokio::time::sleep(Duration::from_millis(1500)).await;
    }
    let joined = Arc::new(AtomicUsize::new(0));
    let join_started = Instant::now();
    let tasks: Vec<_> = (0..watchers)
        .map(|_| {
            let (http, url, joined) = (http.clone(), format!("{}/runs/{id}/events", server.base), joined.clone());
            tokio::spawn(async move {
                let response = http.get(&url).send().await.expect("watch");
                joined.fetch_add(1, Ordering::Relaxed);
                let mut events = response.bytes_stream().eventsource();
                let mut count = 0usize;
                let mut finished = false;
                while let Some(Ok(event)) = events.next().await {
                    count += 1;
                    finished = event.data.contains("\"run_finished\"");
                }
                (count, finished)
            })
        })
        .collect();
    while joined.load(Ordering::Relaxed) < watchers {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let join_time = join_started.elapsed();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (connected, _) = server.memory();
    let mut counts = Vec::new();
    let mut finished = 0;
    for task in tasks {
        let (count, done) = task.await.expect("watcher");
        counts.push(count);
        finished += usize::from(done);
    }
    let (after, peak) = server.memory();
    counts.sort();
    let mib = |kib: u64| kib as f64 / 1024.0;
    println!(
        "| {} | {:.1} MiB | {:.1} MiB | {:.1} KiB | {:.1} MiB | {:.1} MiB | {:.0} ms | {finished} of {watchers} | {} / {} |",
        if early { "before its first event" } else { "mid-run (replaying ~100 stored events)" },
        mib(idle),
        mib(connected),
        connected.saturating_sub(idle) as f64 / watchers as f64,
        mib(after),
        mib(peak),
        join_time.as_secs_f64() * 1e3,
        counts.first().unwrap_or(&0),
        counts.last().unwrap_or(&0)
    );
    server.stop();
}

/// Reads a response body as JSON.
trait JsonValue {
    async fn json_value(self) -> Value;
}

impl JsonValue for reqwest::Response {
    async fn json_value(self) -> Value {
        serde_json::from_slice(&self.bytes().await.expect("body")).expect("JSON")
    }
}
