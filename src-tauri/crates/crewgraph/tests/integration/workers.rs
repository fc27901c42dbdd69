//! Crewgraph on many machines (issue 20, docs/scale-out.md), with every part real
//! and started by the tests: a PostgreSQL server and a Redis server of their own,
//! `crewgraph serve --queue … --store …` as the API node, `crewgraph worker`
//! processes as the workers. Runs are started over HTTP on the API node and
//! executed by the workers:
//!
//! - 200 scripted runs through three workers: each executed once (one leg each,
//!   no run interrupted), every event stored once with contiguous seqs;
//! - a worker killed (`kill -9`) with runs in flight: the others take them over
//!   once their leases run out, and each run's conversation is the one a single
//!   process has;
//! - Redis restarted empty, and flushed (`FLUSHALL`), under load: the sweeper
//!   queues every unfinished run again, and all finish;
//! - PostgreSQL restarted under load: the workers ride it out, and all finish;
//! - a worker stopped (SIGTERM) mid-run: its runs finish their step and go back to
//!   the queue, and another worker finishes them;
//! - a run watched live through the API node while a worker executes it: every
//!   event once, in order; a cancel sent to the API node reaches the worker;
//! - two resumes of one paused run through two API nodes: exactly one proceeds;
//! - a tool call waiting for a person, allowed (or denied) through the API node:
//!   the worker goes on with the same turn;
//! - a worker's health check: 200 while the queue and the store answer, 503 when
//!   the queue is gone.

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crewgraph_engine::run::{EventKind, RunEvent};
use crewgraph_queue::testing::RedisServer;
use crewgraph_store_postgres::testing;
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::serve::process::Served;
use crate::serve::{ping_pong, Fixture, LIMIT};
use crate::support::block_on;

/// How long a whole load may take on a busy machine before the test calls it stuck.
const LOAD_LIMIT: Duration = Duration::from_secs(300);

/// The parts of one cluster.
struct Cluster {
    fixture: Fixture,
    store: String,
    redis: RedisServer,
    api: Option<(Served, String)>,
    workers: Vec<Worker>,
}

/// A `crewgraph worker` child and the address of its health check.
struct Worker {
    child: Served,
    health: String,
    id: String,
    stderr: std::sync::mpsc::Receiver<String>,
}

impl Worker {
    /// What it said on stderr so far.
    fn said(&self) -> String {
        self.stderr.try_iter().collect::<Vec<_>>().join("\n")
    }
}

impl Cluster {
    /// A cluster on database `store` (of `testing::shared()` unless given) with an API node.
    async fn new(name: &str) -> Cluster {
        let store = testing::shared().database(name).await.unwrap();
        Cluster::on(store)
    }

    fn on(store: String) -> Cluster {
        let redis = RedisServer::start().expect("a redis-server for the test");
        let mut cluster = Cluster { fixture: Fixture::new(), store, redis, api: None, workers: Vec::new() };
        cluster.api = Some(cluster.api_node());
        cluster
    }

    /// Another `crewgraph serve --queue --store` on the same queue and database.
    fn api_node(&self) -> (Served, String) {
        let mut command = Command::new(env!("CARGO_BIN_EXE_crewgraph"));
        command
            .args(["serve", "--addr", "127.0.0.1:0", "--store", &self.store, "--queue", &self.redis.url(), "--sweep-every", "1"])
            .args(["--crews", self.fixture.crews().to_str().unwrap()])
            .env_remove("CREWGRAPH_STORE")
            .env_remove("CREWGRAPH_QUEUE");
        crate::serve::process::start(&self.fixture, command)
            .unwrap_or_else(|(code, stderr)| panic!("the API node ended ({code}): {stderr}"))
    }

    fn addr(&self) -> &str {
        &self.api.as_ref().expect("an API node").1
    }

    /// Starts a worker named `id` with leases of `lease` seconds.
    fn worker(&mut self, id: &str, lease: u64, concurrency: usize) {
        let mut child = Served(
            Command::new(env!("CARGO_BIN_EXE_crewgraph"))
                .args(["worker", "--queue", &self.redis.url(), "--store", &self.store, "--id", id, "--health", "127.0.0.1:0"])
                .args(["--crews", self.fixture.crews().to_str().unwrap(), "--lease", &lease.to_string()])
                .args(["--concurrency", &concurrency.to_string(), "--drain", "60"])
                .env_remove("CREWGRAPH_STORE")
                .env_remove("CREWGRAPH_QUEUE")
                .current_dir(self.fixture.dir.path())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("crewgraph worker starts"),
        );
        let stdout = child.stdout.take().unwrap();
        let mut first = String::new();
        BufReader::new(stdout).read_line(&mut first).unwrap();
        let Some(health) = first.trim().strip_prefix("crewgraph worker: health at http://") else {
            let mut stderr = String::new();
            child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
            panic!("worker {id} did not start: {first} {stderr}");
        };
        let health = health.trim_end_matches("/health").to_owned();
        let (lines, stderr) = std::sync::mpsc::channel();
        let err = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                let _ = lines.send(line);
            }
        });
        self.workers.push(Worker { child, health, id: id.to_owned(), stderr });
    }

    /// Starts `count` runs of `crew` with `script` on the API node; their ids.
    async fn start_runs(&self, count: usize, crew: &str, script: &Value) -> Vec<String> {
        let http = reqwest::Client::new();
        let mut ids = Vec::with_capacity(count);
        for n in 0..count {
            let answer = http
                .post(format!("http://{}/runs", self.addr()))
                .json(&json!({"crew": crew, "input": format!("run {n}"), "script": script}))
                .send()
                .await
                .unwrap();
            assert_eq!(answer.status(), StatusCode::ACCEPTED);
            ids.push(answer.json::<Value>().await.unwrap()["run_id"].as_str().unwrap().to_owned());
        }
        ids
    }

    /// Waits until none of `ids` is running (each final or paused), at most `limit`.
    async fn until_done(&self, ids: &[String], limit: Duration) -> Vec<Value> {
        let http = reqwest::Client::new();
        let deadline = Instant::now() + limit;
        loop {
            let runs: Vec<Value> = http.get(format!("http://{}/runs", self.addr())).send().await.unwrap().json().await.unwrap();
            let ours: Vec<Value> = runs.into_iter().filter(|r| ids.iter().any(|id| r["id"] == id.as_str())).collect();
            let running = ours.iter().filter(|r| r["status"] == "running").count();
            if ours.len() == ids.len() && running == 0 {
                return ours;
            }
            let said: Vec<String> = self.workers.iter().map(|w| format!("{}: {}", w.id, w.said())).collect();
            assert!(
                Instant::now() < deadline,
                "{running} of {} runs still running after {limit:?}; workers said:\n{}",
                ids.len(),
                said.join("\n")
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Run `id`'s stored events, read through the API node.
    async fn events(&self, id: &str) -> Vec<RunEvent> {
        reqwest::Client::new()
            .get(format!("http://{}/runs/{id}/events", self.addr()))
            .header("accept", "application/json")
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    /// Waits until some worker executes at least `count` runs at once.
    async fn until_in_flight(&self, worker: usize, count: usize) {
        let http = reqwest::Client::new();
        let deadline = Instant::now() + LIMIT;
        loop {
            let health: Value =
                http.get(format!("http://{}/health", self.workers[worker].health)).send().await.unwrap().json().await.unwrap();
            if health["running"].as_u64().unwrap_or(0) >= count as u64 {
                return;
            }
            assert!(Instant::now() < deadline, "worker {} never executed {count} runs at once: {health}", self.workers[worker].id);
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Waits until each of `ids` has handed over at least once (a turn of it is stored).
    async fn until_handed_over(&self, ids: &[String]) {
        let http = reqwest::Client::new();
        let deadline = Instant::now() + LIMIT;
        loop {
            let runs: Vec<Value> = http.get(format!("http://{}/runs", self.addr())).send().await.unwrap().json().await.unwrap();
            let begun = runs.iter().filter(|r| ids.iter().any(|id| r["id"] == id.as_str()) && r["handoffs"].as_u64() >= Some(1)).count();
            if begun == ids.len() {
                return;
            }
            assert!(Instant::now() < deadline, "only {begun} of {} runs handed over", ids.len());
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Stops worker `n` with SIGTERM and waits for it; what it said on stderr.
    fn stop_worker(&mut self, n: usize) -> String {
        let worker = &mut self.workers[n];
        // SAFETY: kill(2) with the child's own pid and a plain signal.
        unsafe { libc::kill(worker.child.id() as i32, libc::SIGTERM) };
        let deadline = Instant::now() + LOAD_LIMIT;
        loop {
            if let Some(status) = worker.child.try_wait().unwrap() {
                assert!(status.success(), "worker {} stopped with {status}: {}", worker.id, worker.said());
                break;
            }
            assert!(Instant::now() < deadline, "worker {} did not stop", worker.id);
            std::thread::sleep(Duration::from_millis(20));
        }
        std::thread::sleep(Duration::from_millis(50));
        worker.said()
    }
}

/// The replies of a run, in order, as the person reads them.
fn replies(events: &[RunEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(
            |e| if let EventKind::AgentResponse { agent, content, .. } = &e.kind { Some(format!("{agent}: {content}")) } else { None },
        )
        .collect()
}

/// Every event once, seqs 0, 1, 2 … without a gap.
fn assert_whole(id: &str, events: &[RunEvent]) {
    let seqs: Vec<u64> = events.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, (0..events.len() as u64).collect::<Vec<_>>(), "run {id}: every event once, in order");
}

fn interrupted(events: &[RunEvent]) -> bool {
    events.iter().any(|e| matches!(&e.kind, EventKind::Warning { message } if message.contains("interrupted")))
}

/// Sends `command` (a Redis command in its inline form) to the test's Redis.
fn redis_command(redis: &RedisServer, command: &str) -> String {
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", redis.port())).unwrap();
    stream.write_all(format!("{command}\r\n").as_bytes()).unwrap();
    let mut answer = [0u8; 64];
    let read = stream.read(&mut answer).unwrap();
    String::from_utf8_lossy(&answer[..read]).trim().to_owned()
}

#[test]
fn two_hundred_runs_through_three_workers_are_each_executed_once() {
    block_on(async {
        let mut cluster = Cluster::new("two_hundred").await;
        for id in ["worker-a", "worker-b", "worker-c"] {
            cluster.worker(id, 30, 64);
        }
        let script = ping_pong(3, 5, 2);
        let ids = cluster.start_runs(200, "ping-pong.yaml", &script).await;
        assert_eq!(ids.iter().collect::<HashSet<_>>().len(), 200);
        let runs = cluster.until_done(&ids, LOAD_LIMIT).await;
        assert!(runs.iter().all(|r| r["status"] == "terminated"), "every run ended: {runs:?}");
        let expected = replies(&cluster.events(&ids[0]).await);
        assert_eq!(expected.len(), 5, "ping, pong, ping, pong, ping");
        for id in &ids {
            let events = cluster.events(id).await;
            assert_whole(id, &events);
            assert_eq!(events.iter().filter(|e| matches!(e.kind, EventKind::RunStarted { .. })).count(), 1);
            assert!(!interrupted(&events), "run {id} was executed in one go");
            assert_eq!(replies(&events), expected, "run {id}: each turn once");
        }
        let mut executed = 0;
        for n in 0..3 {
            let said = cluster.stop_worker(n);
            let count: usize = said
                .lines()
                .find_map(|line| line.split_once("stopped (").and_then(|(_, rest)| rest.split(' ').next()?.parse().ok()))
                .unwrap_or_else(|| panic!("worker {n} says how many legs it executed: {said}"));
            executed += count;
        }
        assert_eq!(executed, 200, "200 legs executed in all, one per run");
    });
}

#[test]
fn a_killed_workers_runs_are_taken_over_and_end_as_on_one_process() {
    block_on(async {
        let mut cluster = Cluster::new("killed").await;
        cluster.worker("worker-a", 2, 64);
        // Runs of a few seconds each: 8 turns of 150 ms.
        let script = ping_pong(4, 150, 2);
        let ids = cluster.start_runs(12, "ping-pong.yaml", &script).await;
        cluster.until_in_flight(0, 12).await;
        cluster.until_handed_over(&ids).await;
        // worker-a dies with every run in flight, each some turns in; worker-b comes up after.
        unsafe { libc::kill(cluster.workers[0].child.id() as i32, libc::SIGKILL) };
        let _ = cluster.workers[0].child.wait();
        cluster.worker("worker-b", 2, 64);
        let runs = cluster.until_done(&ids, LOAD_LIMIT).await;
        assert!(runs.iter().all(|r| r["status"] == "terminated"), "{runs:?}");

        // The same conversation on one process, for comparison.
        let alone = crate::serve::TestServer::start().await;
        let single = alone.start_run("ping-pong.yaml", "run 0", script.clone()).await;
        alone.settled(&single).await;
        let single: Vec<RunEvent> =
            alone.stored_events(&single).await.into_iter().map(|event| serde_json::from_value(event).unwrap()).collect();
        let expected = replies(&single);
        let mut taken_over = 0;
        for id in &ids {
            let events = cluster.events(id).await;
            assert_whole(id, &events);
            assert_eq!(replies(&events), expected, "run {id}: the conversation one process has");
            taken_over += usize::from(interrupted(&events));
        }
        assert!(taken_over > 0, "worker-b took over runs worker-a had begun");
    });
}

#[test]
fn redis_restarted_empty_and_flushed_under_load_loses_no_run() {
    block_on(async {
        let mut cluster = Cluster::new("redis_lost").await;
        cluster.worker("worker-a", 3, 16);
        cluster.worker("worker-b", 3, 16);
        let script = ping_pong(3, 40, 2);
        let mut ids = cluster.start_runs(60, "ping-pong.yaml", &script).await;
        cluster.until_in_flight(0, 1).await;
        // Redis comes back with nothing: the queue and the entries in flight are gone.
        cluster.redis.restart().expect("restart");
        ids.extend(cluster.start_runs(20, "ping-pong.yaml", &script).await);
        // And again, by FLUSHALL, while runs wait in the stream.
        assert_eq!(redis_command(&cluster.redis, "FLUSHALL"), "+OK");
        ids.extend(cluster.start_runs(20, "ping-pong.yaml", &script).await);
        let runs = cluster.until_done(&ids, LOAD_LIMIT).await;
        assert!(runs.iter().all(|r| r["status"] == "terminated"), "{runs:?}");
        let expected = replies(&cluster.events(&ids[0]).await);
        for id in &ids {
            let events = cluster.events(id).await;
            assert_whole(id, &events);
            assert_eq!(replies(&events), expected, "run {id}: each turn once");
        }
    });
}

#[test]
fn postgresql_restarted_under_load_loses_no_run() {
    block_on(async {
        let postgres = testing::PostgresServer::start().expect("a PostgreSQL server of this test's own");
        let store = postgres.database("restarted").await.unwrap();
        let mut cluster = Cluster::on(store);
        cluster.worker("worker-a", 3, 32);
        let script = ping_pong(3, 60, 2);
        let ids = cluster.start_runs(30, "ping-pong.yaml", &script).await;
        cluster.until_in_flight(0, 5).await;
        postgres.restart().expect("PostgreSQL starts again");
        let runs = cluster.until_done(&ids, LOAD_LIMIT).await;
        // A step that could not be stored is done again once the database is back (its
        // entry left in the queue, taken over after the lease): every run ends well.
        assert!(runs.iter().all(|r| r["status"] == "terminated"), "{runs:?}");
        let expected = ping_pong_replies(3);
        for id in &ids {
            let events = cluster.events(id).await;
            assert_whole(id, &events);
            assert_eq!(replies(&events).len(), expected, "run {id}: each turn once");
        }
    });
}

#[test]
fn a_stopped_worker_hands_its_runs_back_and_another_finishes_them() {
    block_on(async {
        let mut cluster = Cluster::new("stopped").await;
        cluster.worker("worker-a", 30, 64);
        let script = ping_pong(6, 100, 2);
        let ids = cluster.start_runs(10, "ping-pong.yaml", &script).await;
        cluster.until_in_flight(0, 10).await;
        cluster.until_handed_over(&ids).await;
        cluster.worker("worker-b", 30, 64);
        let said = cluster.stop_worker(0);
        assert!(said.contains("handed back to the queue"), "{said}");
        let runs = cluster.until_done(&ids, LOAD_LIMIT).await;
        assert!(runs.iter().all(|r| r["status"] == "terminated"), "{runs:?}");
        let expected = ping_pong_replies(6);
        for id in &ids {
            let events = cluster.events(id).await;
            assert_whole(id, &events);
            assert_eq!(replies(&events).len(), expected, "run {id}: each turn once, none lost, none twice");
        }
    });
}

/// How many replies a ping-pong run of `turns` has: ping's turns and pong's between.
fn ping_pong_replies(turns: usize) -> usize {
    2 * turns - 1
}

#[test]
fn a_run_executed_by_a_worker_is_watched_live_and_cancelled_through_the_api_node() {
    block_on(async {
        let mut cluster = Cluster::new("watched").await;
        cluster.worker("worker-a", 30, 8);
        let http = reqwest::Client::new();
        // Watched from its first event to its end.
        let script = ping_pong(5, 60, 3);
        let id = cluster.start_runs(1, "ping-pong.yaml", &script).await.remove(0);
        let response = http.get(format!("http://{}/runs/{id}/events", cluster.addr())).send().await.unwrap();
        let watched = crate::serve::messages(response, None).await;
        let seqs: Vec<u64> = watched.iter().filter(|m| m.event == "message").map(|m| m.seq()).collect();
        crate::serve::assert_contiguous(&seqs);
        assert_eq!(watched.last().map(|m| m.kind()), Some("run_finished"), "{watched:?}");
        let stored = cluster.events(&id).await;
        assert_eq!(seqs.len(), stored.len(), "every stored event came live, once");

        // Joined mid-run (mid-step, most likely): the events before are stored or
        // published again by the worker; every one comes once, in order.
        let id = cluster.start_runs(1, "ping-pong.yaml", &script).await.remove(0);
        cluster.until_handed_over(std::slice::from_ref(&id)).await;
        let response = http.get(format!("http://{}/runs/{id}/events", cluster.addr())).send().await.unwrap();
        let joined = crate::serve::messages(response, None).await;
        let seqs: Vec<u64> = joined.iter().filter(|m| m.event == "message").map(|m| m.seq()).collect();
        crate::serve::assert_contiguous(&seqs);
        assert_eq!(joined.last().map(|m| m.kind()), Some("run_finished"), "{joined:?}");
        assert_eq!(seqs.len(), cluster.events(&id).await.len());

        // A long run, cancelled through the API node while the worker executes it.
        let long = ping_pong(50, 100, 2);
        let id = cluster.start_runs(1, "ping-pong.yaml", &long).await.remove(0);
        cluster.until_handed_over(std::slice::from_ref(&id)).await;
        let detail: Value = http.get(format!("http://{}/runs/{id}", cluster.addr())).send().await.unwrap().json().await.unwrap();
        assert_eq!(detail["live"], true, "going on, on a worker: {detail}");
        let cancelled = http.post(format!("http://{}/runs/{id}/cancel", cluster.addr())).send().await.unwrap();
        assert!(cancelled.status().is_success(), "{}", cancelled.text().await.unwrap());
        let runs = cluster.until_done(std::slice::from_ref(&id), LIMIT).await;
        assert_eq!(runs[0]["status"], "cancelled");
    });
}

#[test]
fn of_two_resumes_of_one_paused_run_through_two_api_nodes_exactly_one_proceeds() {
    block_on(async {
        let mut cluster = Cluster::new("two_resumes").await;
        cluster.worker("worker-a", 30, 8);
        let (_second, other) = cluster.api_node();
        let script = json!({"replies": {"asker": ["What is your name?", "Hello, Ada. [END]"]}});
        let http = reqwest::Client::new();
        for round in 0..5 {
            let id = cluster.start_runs(1, "ask.yaml", &script).await.remove(0);
            let runs = cluster.until_done(std::slice::from_ref(&id), LIMIT).await;
            assert_eq!(runs[0]["status"], "paused", "round {round}");
            let resume = |addr: String| {
                let (http, id, script) = (http.clone(), id.clone(), script.clone());
                async move {
                    http.post(format!("http://{addr}/runs/{id}/resume"))
                        .json(&json!({"input": "Ada", "script": script}))
                        .send()
                        .await
                        .unwrap()
                        .status()
                }
            };
            let (a, b) = tokio::join!(resume(cluster.addr().to_owned()), resume(other.clone()));
            let accepted = [a, b].iter().filter(|status| status.is_success()).count();
            assert_eq!(accepted, 1, "round {round}: exactly one resume proceeds ({a}, {b})");
            assert!([a, b].contains(&StatusCode::CONFLICT), "round {round}: the other is a conflict ({a}, {b})");
            let runs = cluster.until_done(std::slice::from_ref(&id), LIMIT).await;
            assert_eq!(runs[0]["status"], "terminated", "round {round}");
            let events = cluster.events(&id).await;
            assert_whole(&id, &events);
            assert_eq!(events.iter().filter(|e| matches!(e.kind, EventKind::Resumed { .. })).count(), 1, "round {round}: one resume");
        }
    });
}

/// A clerk whose calculator asks a person first.
const CLERK: &str = "\
name: Clerk
entry_point: clerk
tools:
  policy:
    calculator: ask
agents:
  - id: clerk
    role: Adds up the bill
    tools: [calculator]
    is_terminal: true
";

#[test]
fn a_tool_call_allowed_through_the_api_node_goes_on_on_a_worker() {
    block_on(async {
        let mut cluster = Cluster::new("approval").await;
        std::fs::write(cluster.fixture.crews().join("clerk.yaml"), CLERK).unwrap();
        cluster.worker("worker-a", 30, 8);
        let http = reqwest::Client::new();
        let script = json!({"replies": {"clerk": [
            {"content": "Adding up.", "tool_calls": [{"name": "calculator", "arguments": {"expression": "12 + 30"}}]},
            "The bill is 42."
        ]}});
        for decision in ["allow_once", "deny"] {
            let id = cluster.start_runs(1, "clerk.yaml", &script).await.remove(0);
            let runs = cluster.until_done(std::slice::from_ref(&id), LIMIT).await;
            assert_eq!(runs[0]["status"], "paused", "waiting for the person: {runs:?}");
            let events = cluster.events(&id).await;
            let call_id = events
                .iter()
                .find_map(|e| if let EventKind::ToolApprovalRequested { call_id, .. } = &e.kind { Some(call_id.clone()) } else { None })
                .expect("the call asks");
            // A plain resume does not answer it.
            let resumed =
                http.post(format!("http://{}/runs/{id}/resume", cluster.addr())).json(&json!({"input": "go"})).send().await.unwrap();
            assert_eq!(resumed.status(), StatusCode::CONFLICT);
            let answered = http
                .post(format!("http://{}/runs/{id}/approvals/{call_id}", cluster.addr()))
                .json(&json!({"decision": decision, "reason": "not today", "script": script}))
                .send()
                .await
                .unwrap();
            assert!(answered.status().is_success(), "{decision}: {}", answered.text().await.unwrap());
            let runs = cluster.until_done(std::slice::from_ref(&id), LIMIT).await;
            assert_eq!(runs[0]["status"], "completed", "{decision}: {runs:?}");
            let events = cluster.events(&id).await;
            assert_whole(&id, &events);
            let result = events
                .iter()
                .find_map(|e| if let EventKind::ToolResult { result, .. } = &e.kind { Some(result.clone()) } else { None })
                .expect("the call was answered");
            match decision {
                "allow_once" => assert!(result.contains("42"), "the calculator ran on the worker: {result}"),
                _ => assert!(result.contains("not allowed") && result.contains("not today"), "the agent is told: {result}"),
            }
            assert_eq!(replies(&events).last().map(String::as_str), Some("clerk: The bill is 42."), "the same turn went on");
        }
    });
}

#[test]
fn a_workers_health_says_whether_the_queue_and_the_store_answer() {
    block_on(async {
        let mut cluster = Cluster::new("health").await;
        cluster.worker("worker-a", 30, 8);
        let http = reqwest::Client::new();
        let url = format!("http://{}/health", cluster.workers[0].health);
        let answer = http.get(&url).send().await.unwrap();
        assert_eq!(answer.status(), StatusCode::OK);
        let health: Value = answer.json().await.unwrap();
        assert_eq!((health["status"].as_str(), health["queue"].as_str(), health["store"].as_str()), (Some("ok"), Some("ok"), Some("ok")));
        assert_eq!(health["worker"], "worker-a");
        cluster.redis.stop();
        let answer = http.get(&url).send().await.unwrap();
        assert_eq!(answer.status(), StatusCode::SERVICE_UNAVAILABLE);
        let health: Value = answer.json().await.unwrap();
        assert_eq!(health["status"], "unavailable");
        let queue = health["queue"].as_str().unwrap();
        assert!(queue.starts_with(&format!("the queue at 127.0.0.1:{} could not be reached", cluster.redis.port())), "{queue}");
        assert_eq!(health["store"], "ok");
    });
}

#[test]
fn a_worker_without_a_queue_or_a_store_says_what_it_needs() {
    let run = |args: &[&str]| {
        let output = Command::new(env!("CARGO_BIN_EXE_crewgraph"))
            .arg("worker")
            .args(args)
            .env_remove("CREWGRAPH_STORE")
            .env_remove("CREWGRAPH_QUEUE")
            .output()
            .unwrap();
        (output.status.code(), String::from_utf8_lossy(&output.stderr).into_owned())
    };
    let (code, stderr) = run(&["--store", "postgres://crew@127.0.0.1/runs"]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("--queue redis://HOST:PORT"), "{stderr}");
    let (code, stderr) = run(&["--queue", "redis://127.0.0.1:1"]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("--store postgres://"), "{stderr}");
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let (code, stderr) =
        run(&["--queue", &format!("redis://127.0.0.1:{port}"), "--store", &format!("postgres://crew:hunter2@127.0.0.1:{port}/runs")]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.starts_with("crewgraph worker: ") && stderr.contains(&format!("127.0.0.1:{port}")), "{stderr}");
    assert!(!stderr.contains("hunter2"), "never the password: {stderr}");
    // An API node needs a shared database to hand runs to workers.
    let output = Command::new(env!("CARGO_BIN_EXE_crewgraph"))
        .args(["serve", "--addr", "127.0.0.1:0", "--db", "/nonexistent/x.db", "--queue", "redis://127.0.0.1:1"])
        .env_remove("CREWGRAPH_STORE")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--queue needs a database the workers share"));
}
