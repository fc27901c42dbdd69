//! The cluster the bench drives: [`Backing`] (one PostgreSQL server for the whole
//! bench, a database per figure, and a crews folder with the ping-pong crew), a
//! [`Cluster`] on it (a Redis of its own, `crewgraph serve --queue … --store …` as its
//! API node, and `crewgraph worker` processes), and [`Spawned`], a `crewgraph` child
//! whose output is read as it comes and which is killed if the bench ends without
//! stopping it. The binary is the one cargo builds for the bench (the release build,
//! `CARGO_BIN_EXE_crewgraph`, as benches/served does).
//!
//! ```ignore
//! let backing = Backing::start();
//! let mut cluster = Cluster::start(&backing, "throughput_1").await;
//! cluster.start_runs(5000, &script).await;          // POST /runs on the API node
//! cluster.spawn_workers(1, 500);
//! cluster.until_queue_empty(&cluster.queue().await).await;
//! ```

pub mod machine;

use std::collections::{BTreeMap, VecDeque};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use crewgraph_engine::run::RunStore;
use crewgraph_queue::testing::RedisServer;
use crewgraph_queue::RedisQueue;
use crewgraph_store_postgres::testing::PostgresServer;
use crewgraph_store_postgres::PostgresStore;
use serde_json::{json, Value};

use machine::{postmaster_on, redis_server_on, with_children, Groups};

/// Two agents passing the turn until `ping` says `[END]`; room for long runs.
pub const PING_PONG: &str = "version: \"1.0\"\nname: Ping pong\nentry_point: ping\nmax_handoffs: 1000000\nagents:\n  - { id: ping, system_prompt: Say ping. }\n  - { id: pong, system_prompt: Say pong. }\nrouting:\n  signals:\n    ping:\n      - { signal: \"[NEXT]\", target: pong }\n      - { signal: \"[END]\", target: \"\" }\n    pong:\n      - { signal: \"[NEXT]\", target: ping }\n";

/// Clients starting runs at once.
pub const POSTING_CLIENTS: usize = 16;
/// The longest any phase may take before the bench calls it stuck.
pub const STUCK: Duration = Duration::from_secs(3600);

/// What the database at `url` did since it was made (`pg_stat_database`, through
/// `psql`): transactions, and rows inserted, updated or deleted. Read after the
/// programs that used it stopped, so their counters are flushed.
pub fn database_activity(url: &str) -> Option<(u64, u64)> {
    let output = Command::new("psql")
        .args(["-X", "-A", "-t", "-d", url, "-c"])
        .arg(
            "SELECT xact_commit + xact_rollback, tup_inserted + tup_updated + tup_deleted \
             FROM pg_stat_database WHERE datname = current_database()",
        )
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&output.stdout);
    let (transactions, rows) = text.trim().split_once('|')?;
    Some((transactions.parse().ok()?, rows.parse().ok()?))
}

/// A `crewgraph` child of the bench (an API node, a worker, a single server): its
/// standard output and error read as they come; killed if the bench ends without
/// stopping it.
pub struct Spawned {
    name: String,
    child: Child,
    stdout: mpsc::Receiver<String>,
    /// The last lines it wrote on standard error.
    stderr: Arc<Mutex<VecDeque<String>>>,
}

/// How many of a child's stderr lines are kept.
const KEPT_LINES: usize = 200;

impl Spawned {
    pub fn start(name: &str, command: &mut Command) -> Spawned {
        let mut child = command
            .env_remove("CREWGRAPH_STORE")
            .env_remove("CREWGRAPH_QUEUE")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{name} starts: {e}"));
        let (lines, stdout) = mpsc::channel();
        let out = child.stdout.take().expect("stdout");
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                let _ = lines.send(line);
            }
        });
        let stderr = Arc::new(Mutex::new(VecDeque::new()));
        let (err, kept) = (child.stderr.take().expect("stderr"), stderr.clone());
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                let mut kept = kept.lock().unwrap_or_else(|p| p.into_inner());
                if kept.len() == KEPT_LINES {
                    kept.pop_front();
                }
                kept.push_back(line);
            }
        });
        Spawned { name: name.to_owned(), child, stdout, stderr }
    }

    /// The first line it prints (where it listens), or a panic saying what it said.
    pub fn first_line(&self) -> String {
        self.stdout.recv_timeout(Duration::from_secs(60)).unwrap_or_else(|_| panic!("{} did not start: {}", self.name, self.said()))
    }

    /// What it said on stderr (the last lines).
    pub fn said(&self) -> String {
        std::thread::sleep(Duration::from_millis(50));
        self.stderr.lock().unwrap_or_else(|p| p.into_inner()).iter().cloned().collect::<Vec<_>>().join("\n")
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Stops it with SIGTERM and waits for it; what it said on stderr.
    pub fn stop(&mut self) -> String {
        // SAFETY: kill(2) with the child's own pid and a plain signal.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        let deadline = Instant::now() + Duration::from_secs(120);
        while self.child.try_wait().ok().flatten().is_none() {
            assert!(Instant::now() < deadline, "{} did not stop: {}", self.name, self.said());
            std::thread::sleep(Duration::from_millis(20));
        }
        self.said()
    }
}

impl Drop for Spawned {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

// ---------------------------------------------------------------------------
// The cluster

/// What lives for the whole bench: one PostgreSQL server (a database per phase) and
/// a folder with the crews.
pub struct Backing {
    pub postgres: PostgresServer,
    /// The server's main process, when it could be found (for its CPU time).
    pub postmaster: Option<u32>,
    pub dir: tempfile::TempDir,
}

impl Backing {
    pub fn start() -> Backing {
        let postgres = PostgresServer::start().expect("a PostgreSQL server for the bench (make test-deps installs it)");
        let postmaster = postmaster_on(postgres.port());
        if postmaster.is_none() {
            eprintln!("(the PostgreSQL server's process was not found: its CPU time is not counted)");
        }
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir(dir.path().join("crews")).expect("crews folder");
        std::fs::write(dir.path().join("crews/ping-pong.yaml"), PING_PONG).expect("ping-pong.yaml");
        Backing { postgres, postmaster, dir }
    }

    pub fn crews(&self) -> std::path::PathBuf {
        self.dir.path().join("crews")
    }

    /// `crewgraph ARGS` in the bench's folder.
    pub fn crewgraph(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_crewgraph"));
        command.args(args).arg("--crews").arg(self.crews()).current_dir(self.dir.path());
        command
    }

    /// `crewgraph serve ARGS`, and its address once it listens.
    pub fn serve(&self, name: &str, args: &[&str]) -> (Spawned, String) {
        let mut command = self.crewgraph(&["serve", "--addr", "127.0.0.1:0", "--max-connections-per-client", "100000"]);
        let server = Spawned::start(name, command.args(args));
        let line = server.first_line();
        let addr = line.strip_prefix("crewgraph serve: listening on ").unwrap_or_else(|| panic!("{name} said {line}")).to_owned();
        (server, addr)
    }
}

/// One cluster: a database of its own on the bench's PostgreSQL, a Redis of its own,
/// an API node, and the workers started on it.
pub struct Cluster<'a> {
    backing: &'a Backing,
    pub store: String,
    redis: RedisServer,
    /// The `redis-server` process, when it could be found (for its CPU time).
    redis_pid: Option<u32>,
    pub api: Spawned,
    /// The API node's base URL (`http://127.0.0.1:PORT`).
    pub base: String,
    pub workers: Vec<Spawned>,
    pub http: reqwest::Client,
}

impl<'a> Cluster<'a> {
    pub async fn start(backing: &'a Backing, name: &str) -> Cluster<'a> {
        let store = backing.postgres.database(name).await.expect("a database for the phase");
        let redis = RedisServer::start().expect("a redis-server for the bench (make test-deps installs it)");
        let redis_pid = redis_server_on(redis.port());
        if redis_pid.is_none() {
            eprintln!("(the redis-server process was not found: its CPU time is not counted)");
        }
        let (api, base) = backing.serve("the API node", &["--store", &store, "--queue", &redis.url()]);
        let http = reqwest::Client::builder().pool_max_idle_per_host(POSTING_CLIENTS * 2).build().expect("client");
        Cluster { backing, store, redis, redis_pid, api, base, workers: Vec::new(), http }
    }

    /// Starts `count` workers at once, each executing up to `concurrency` runs, and
    /// waits until each is working.
    pub fn spawn_workers(&mut self, count: usize, concurrency: usize) {
        let first = self.workers.len();
        for n in first..first + count {
            let id = format!("worker-{}", n + 1);
            let mut command = self.backing.crewgraph(&["worker", "--queue", &self.redis.url(), "--store", &self.store]);
            command.args(["--id", &id, "--concurrency", &concurrency.to_string(), "--health", "127.0.0.1:0"]);
            self.workers.push(Spawned::start(&id, &mut command));
        }
        for worker in &self.workers[first..] {
            let line = worker.first_line();
            assert!(line.starts_with("crewgraph worker: health at"), "{} said {line}", worker.name);
        }
    }

    /// Starts `count` runs of `script` on the API node from [`POSTING_CLIENTS`]
    /// clients; how long it took.
    pub async fn start_runs(&self, count: usize, script: &Value) -> Duration {
        let began = Instant::now();
        let next = Arc::new(AtomicUsize::new(0));
        let tasks: Vec<_> = (0..POSTING_CLIENTS)
            .map(|_| {
                let (http, url, next, script) = (self.http.clone(), format!("{}/runs", self.base), next.clone(), script.clone());
                tokio::spawn(async move {
                    loop {
                        let n = next.fetch_add(1, Ordering::Relaxed);
                        if n >= count {
                            break;
                        }
                        start_run(&http, &url, n, &script).await;
                    }
                })
            })
            .collect();
        for task in tasks {
            task.await.expect("a posting client");
        }
        began.elapsed()
    }

    pub async fn queue(&self) -> RedisQueue {
        RedisQueue::connect(&self.redis.url()).await.expect("the bench's queue")
    }

    /// Waits until the runs stream is empty: every entry's leg over and acknowledged.
    pub async fn until_queue_empty(&self, queue: &RedisQueue) {
        let deadline = Instant::now() + STUCK;
        loop {
            if queue.queued().await.expect("XLEN") == 0 {
                return;
            }
            assert!(Instant::now() < deadline, "the queue never emptied; workers said:\n{}", self.workers_said());
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    pub fn workers_said(&self) -> String {
        self.workers.iter().map(|w| format!("{}: {}", w.name, w.said())).collect::<Vec<_>>().join("\n")
    }

    /// Stops every worker (SIGTERM); how many legs each executed.
    pub fn stop_workers(&mut self) -> Vec<usize> {
        self.workers
            .iter_mut()
            .map(|worker| {
                let said = worker.stop();
                said.lines()
                    .find_map(|line| line.split_once("stopped (").and_then(|(_, rest)| rest.split(' ').next()?.parse().ok()))
                    .unwrap_or_else(|| panic!("{} says how many legs it executed: {said}", worker.name))
            })
            .collect()
    }

    /// How many runs of the database stand in each status.
    pub async fn statuses(&self) -> BTreeMap<String, usize> {
        let store = PostgresStore::connect(&self.store).await.expect("the phase's database");
        let mut statuses = BTreeMap::new();
        for run in store.list_runs().await.expect("the runs") {
            let status = serde_json::to_value(run.status).expect("a status").as_str().unwrap_or("?").to_owned();
            *statuses.entry(status).or_default() += 1;
        }
        statuses
    }

    /// The processes whose CPU the phase's figures split.
    pub fn groups(&self) -> Groups {
        vec![
            ("workers", self.workers.iter().map(Spawned::pid).collect()),
            ("API node", vec![self.api.pid()]),
            ("PostgreSQL", self.backing.postmaster.map(with_children).unwrap_or_default()),
            ("Redis", self.redis_pid.into_iter().collect()),
            ("bench", vec![std::process::id()]),
        ]
    }
}

/// Starts run number `n` of `script` at `url`; panics unless it is accepted.
pub async fn start_run(http: &reqwest::Client, url: &str, n: usize, script: &Value) -> String {
    let body = json!({"crew": "ping-pong.yaml", "input": format!("run {n}"), "script": script});
    let (status, answer) = post_json(http, url, &body).await;
    assert_eq!(status, reqwest::StatusCode::ACCEPTED, "POST /runs: {answer}");
    answer["run_id"].as_str().expect("a run id").to_owned()
}

pub async fn post_json(http: &reqwest::Client, url: &str, body: &Value) -> (reqwest::StatusCode, Value) {
    let response =
        http.post(url).header("content-type", "application/json").body(body.to_string()).send().await.expect("the request is answered");
    let status = response.status();
    let bytes = response.bytes().await.expect("a body");
    (status, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
}

pub async fn get_json(http: &reqwest::Client, url: &str) -> Value {
    let bytes = http.get(url).header("accept", "application/json").send().await.expect("answered").bytes().await.expect("a body");
    serde_json::from_slice(&bytes).expect("JSON")
}
