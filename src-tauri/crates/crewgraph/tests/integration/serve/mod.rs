//! `crewgraph serve` for real (issue 7): a server on an ephemeral loopback port over
//! a SQLite file in a temp folder and a crews folder of its own, driven by an HTTP
//! client the way a browser or a script would. Runs use the scripted provider (a
//! `script` in the request), so they are deterministic and spend no tokens.
//!
//! - `routes`: every route, its happy path and its errors;
//! - `editor`: the editor's routes — open, check, save (conflicts, names outside
//!   the crews folder), and a run with a script file of the folder;
//! - `events`: server-sent events — resume with `Last-Event-ID` (no gap, no
//!   duplicate), several watchers, a client that never reads;
//! - `security`: the token, path traversal, body limits, malformed requests, CORS;
//! - `slow`: slow and greedy clients — a head sent slowly, a body sent a byte at a
//!   time, more connections from one address than it may hold;
//! - `process`: the binary — refusing a non-loopback address without a token, and
//!   SIGTERM mid-run (exit 0, the run resumable with its events intact);
//! - `fuzz`: arbitrary bodies to every route that takes one: never a 5xx, always
//!   `{code, message}`;
//! - `gatekeeper`: `POST /gatekeeper`, the server as a crew's gatekeeper service;
//! - `import`: `POST /import/crewai`, a CrewAI project's files made into a crew;
//! - `revisions`: a crew's revisions — listed with their runs, compared, read back;
//! - `testing`: a crew's route coverage (`POST /crews/{crew}/test`).

mod editor;
mod events;
mod fuzz;
mod gatekeeper;
mod import;
pub(crate) mod process;
mod revisions;
mod routes;
mod security;
mod slow;
mod testing;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crewgraph::api::Api;
use crewgraph::serve::{ServeConfig, Server};
use crewgraph_store::SqliteStore;
use futures_util::StreamExt;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use tokio::sync::oneshot;

use crate::support::{copy_dir, repo_root};

/// The longest a test waits for anything a healthy server does in milliseconds.
pub const LIMIT: Duration = Duration::from_secs(60);

/// A crew that passes the word back and forth until `ping` says `[END]`.
pub const PING_PONG: &str = r#"
version: "1.0"
name: Ping pong
description: Two agents pass the turn until ping ends it.
entry_point: ping
max_handoffs: 1000
agents:
  - id: ping
    name: Ping
    system_prompt: Say ping.
  - id: pong
    name: Pong
    system_prompt: Say pong.
routing:
  signals:
    ping:
      - signal: "[NEXT]"
        target: pong
      - signal: "[END]"
        target: ""
    pong:
      - signal: "[NEXT]"
        target: ping
"#;

/// A crew that asks the person once (it pauses), then ends.
pub const ASK: &str = r#"
version: "1.0"
name: Ask once
entry_point: asker
agents:
  - id: asker
    name: Asker
    system_prompt: Ask the person's name, then greet them.
    wait_for_signal: true
routing:
  signals:
    asker:
      - signal: "[END]"
        target: ""
"#;

/// A crew with errors.
pub const BROKEN: &str = "version: \"1.0\"\nname: Broken\nentry_point: nobody\nagents:\n  - id: a\n    system_prompt: hi\n";

/// What no answer may ever contain: the file outside the crews folder.
pub const SECRET: &str = "name: the secret crew outside the crews folder";

/// A temp folder with `crews/` (examples, test crews, a link out) and a database.
pub struct Fixture {
    pub dir: tempfile::TempDir,
}

impl Fixture {
    pub fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let crews = dir.path().join("crews");
        std::fs::create_dir(&crews).unwrap();
        for name in ["exam.yaml", "support-triage.yaml"] {
            std::fs::copy(repo_root().join("crews").join(name), crews.join(name)).unwrap();
        }
        copy_dir(&repo_root().join("crews/go-quiz"), &crews.join("go-quiz"));
        std::fs::create_dir(crews.join("scripts")).unwrap();
        std::fs::copy(repo_root().join("crews/scripts/exam.yaml"), crews.join("scripts/exam.yaml")).unwrap();
        std::fs::write(crews.join("ping-pong.yaml"), PING_PONG).unwrap();
        std::fs::write(crews.join("ask.yaml"), ASK).unwrap();
        std::fs::write(crews.join("broken.yaml"), BROKEN).unwrap();
        std::fs::write(dir.path().join("secret.yaml"), SECRET).unwrap();
        std::os::unix::fs::symlink(dir.path().join("secret.yaml"), crews.join("link.yaml")).unwrap();
        Fixture { dir }
    }

    pub fn crews(&self) -> PathBuf {
        self.dir.path().join("crews")
    }

    pub fn db(&self) -> PathBuf {
        self.dir.path().join("serve.db")
    }
}

/// A server answering on a loopback port, stopped (its runs interrupted) on drop.
pub struct TestServer {
    pub base: String,
    pub api: Api,
    pub fixture: Fixture,
    pub http: reqwest::Client,
    stop: Option<oneshot::Sender<()>>,
    stopped: Option<tokio::task::JoinHandle<crewgraph::serve::Stopped>>,
}

/// How a test server is set up.
#[derive(Default)]
pub struct Setup {
    pub token: Option<String>,
    /// How far a watcher may fall behind (the API's default when None).
    pub live_capacity: Option<usize>,
    pub body_limit: Option<usize>,
    /// A built web UI to serve at `/` (none when None).
    pub ui_dir: Option<PathBuf>,
    /// What a connection may take (the server's defaults when None).
    pub connections: Option<crewgraph::serve::listen::Limits>,
    /// A request's whole time (the server's default when None).
    pub request_timeout: Option<Duration>,
}

impl TestServer {
    pub async fn start() -> TestServer {
        Self::start_with(Setup::default()).await
    }

    pub async fn start_with(setup: Setup) -> TestServer {
        Self::start_on(Fixture::new(), setup).await
    }

    /// A server over an existing fixture (its database as it is).
    pub async fn start_on(fixture: Fixture, setup: Setup) -> TestServer {
        let store = Arc::new(SqliteStore::open(fixture.db()).unwrap());
        let mut api = Api::new(fixture.crews())
            .with_store(store.clone())
            .with_settings(store.clone())
            .with_agents(store.clone())
            .with_crew_store(store);
        if let Some(capacity) = setup.live_capacity {
            api = api.with_live_capacity(capacity);
        }
        let mut config = ServeConfig::new("127.0.0.1:0".parse().unwrap());
        config.token = setup.token;
        config.ui_dir = setup.ui_dir;
        if let Some(limit) = setup.body_limit {
            config.body_limit = limit;
        }
        if let Some(limits) = setup.connections {
            config.connections = limits;
        }
        if let Some(timeout) = setup.request_timeout {
            config.request_timeout = timeout;
        }
        let server = Server::bind(api.clone(), config).await.unwrap();
        let base = format!("http://{}", server.local_addr());
        let (stop, stopping) = oneshot::channel::<()>();
        let stopped = tokio::spawn(async move {
            server
                .run(async {
                    let _ = stopping.await;
                })
                .await
                .unwrap()
        });
        TestServer { base, api, fixture, http: reqwest::Client::new(), stop: Some(stop), stopped: Some(stopped) }
    }

    /// Stops the server as SIGTERM would; what it interrupted.
    pub async fn stop(mut self) -> crewgraph::serve::Stopped {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        let stopped = self.stopped.take().unwrap();
        tokio::time::timeout(LIMIT, stopped).await.expect("the server stops").unwrap()
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// A request with a JSON body (or none).
    pub async fn call(&self, method: Method, path: &str, body: Option<Value>) -> Answer {
        let mut request = self.http.request(method, self.url(path));
        if let Some(body) = body {
            request = request.header("content-type", "application/json").body(serde_json::to_vec(&body).unwrap());
        }
        Answer::read(request.send().await.unwrap()).await
    }

    pub async fn get(&self, path: &str) -> Answer {
        self.call(Method::GET, path, None).await
    }

    pub async fn post(&self, path: &str, body: Value) -> Answer {
        self.call(Method::POST, path, Some(body)).await
    }

    /// Starts a scripted run of `crew`; its id.
    pub async fn start_run(&self, crew: &str, input: &str, script: Value) -> String {
        let answer = self.post("/runs", json!({"crew": crew, "input": input, "script": script})).await;
        assert_eq!(answer.status, StatusCode::ACCEPTED, "{answer:?}");
        answer.json["run_id"].as_str().unwrap().to_owned()
    }

    /// Waits until run `id` is no longer going on here; its summary then.
    pub async fn settled(&self, id: &str) -> Value {
        let deadline = Instant::now() + LIMIT;
        loop {
            let answer = self.get(&format!("/runs/{id}")).await;
            assert_eq!(answer.status, StatusCode::OK, "{answer:?}");
            if answer.json["live"] == json!(false) {
                return answer.json["run"].clone();
            }
            assert!(Instant::now() < deadline, "run {id} never settled");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// The stored events of run `id` (JSON, not SSE).
    pub async fn stored_events(&self, id: &str) -> Vec<Value> {
        let response = self.http.get(self.url(&format!("/runs/{id}/events"))).header("accept", "application/json").send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        serde_json::from_slice::<Vec<Value>>(&response.bytes().await.unwrap()).unwrap()
    }

    /// Opens `GET /runs/{id}/events`, with `Last-Event-ID` when given.
    pub async fn watch(&self, id: &str, last_event_id: Option<u64>) -> reqwest::Response {
        let mut request = self.http.get(self.url(&format!("/runs/{id}/events")));
        if let Some(last) = last_event_id {
            request = request.header("last-event-id", last.to_string());
        }
        request.send().await.unwrap()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// An answer: its status, headers, and body (as JSON when it is).
#[derive(Debug)]
pub struct Answer {
    pub status: StatusCode,
    pub headers: reqwest::header::HeaderMap,
    pub text: String,
    pub json: Value,
}

impl Answer {
    pub async fn read(response: reqwest::Response) -> Answer {
        let status = response.status();
        let headers = response.headers().clone();
        let text = response.text().await.unwrap();
        let json = serde_json::from_str(&text).unwrap_or(Value::Null);
        Answer { status, headers, text, json }
    }

    /// Asserts this is an error with `status` and `code`, in the `{code, message}` shape.
    #[track_caller]
    pub fn assert_error(&self, status: StatusCode, code: &str) {
        assert_eq!(self.status, status, "{self:?}");
        assert_error_shape(self);
        assert_eq!(self.json["code"], json!(code), "{self:?}");
    }
}

/// Asserts an answer's body is exactly `{code, message}` with a JSON content type.
#[track_caller]
pub fn assert_error_shape(answer: &Answer) {
    let content_type = answer.headers.get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("");
    assert!(content_type.starts_with("application/json"), "an error is JSON: {answer:?}");
    let object = answer.json.as_object().unwrap_or_else(|| panic!("an error is a JSON object: {answer:?}"));
    assert_eq!(object.len(), 2, "exactly code and message: {answer:?}");
    assert!(object["code"].is_string() && object["message"].as_str().is_some_and(|m| !m.is_empty()), "{answer:?}");
}

/// A ping-pong script: `turns` replies of ping (the last one ends) and of pong,
/// each taking `delay_ms` and `words` words long.
pub fn ping_pong(turns: usize, delay_ms: u64, words: usize) -> Value {
    let text = |who: &str, i: usize| {
        let filler: Vec<String> = (0..words).map(|w| format!("{who}{i}w{w}")).collect();
        filler.join(" ")
    };
    let ping: Vec<Value> = (0..turns)
        .map(|i| {
            let signal = if i + 1 == turns { "[END]" } else { "[NEXT]" };
            json!({"content": format!("{} {signal}", text("ping", i)), "delay_ms": delay_ms})
        })
        .collect();
    let pong: Vec<Value> = (0..turns).map(|i| json!({"content": format!("{} [NEXT]", text("pong", i)), "delay_ms": delay_ms})).collect();
    json!({"replies": {"ping": ping, "pong": pong}})
}

/// One server-sent message as a test sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    pub event: String,
    pub id: String,
    pub data: Value,
}

impl Message {
    /// The run event's `seq`.
    pub fn seq(&self) -> u64 {
        self.data["seq"].as_u64().unwrap_or_else(|| panic!("not a run event: {self:?}"))
    }

    pub fn kind(&self) -> &str {
        self.data["type"].as_str().unwrap_or("")
    }
}

/// The messages of an SSE answer: the first `limit` of them (all when None), until
/// the stream ends.
pub async fn messages(response: reqwest::Response, limit: Option<usize>) -> Vec<Message> {
    use eventsource_stream::Eventsource;
    assert_eq!(response.status(), StatusCode::OK);
    let content_type = response.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
    assert!(content_type.starts_with("text/event-stream"), "{content_type}");
    let mut stream = response.bytes_stream().eventsource();
    let mut out = Vec::new();
    let read = async {
        while let Some(event) = stream.next().await {
            let event = event.expect("a well-formed SSE stream");
            out.push(Message { event: event.event, id: event.id, data: serde_json::from_str(&event.data).unwrap_or(Value::Null) });
            if limit.is_some_and(|limit| out.len() >= limit) {
                break;
            }
        }
    };
    tokio::time::timeout(LIMIT, read).await.expect("the stream goes on and ends in time");
    out
}

/// Follows run `id` to its `run_finished` the way a browser's EventSource does:
/// when a stream ends early (`lagged`, say), it comes back with its last id.
pub async fn follow(server: &TestServer, id: &str) -> Vec<Message> {
    let mut all: Vec<Message> = Vec::new();
    loop {
        let last = all.last().map(Message::seq);
        let response = server.watch(id, last).await;
        if response.status() == StatusCode::NO_CONTENT {
            return all;
        }
        all.extend(messages(response, None).await.into_iter().filter(|m| m.event == "message"));
        if all.last().is_some_and(|m| m.kind() == "run_finished") {
            return all;
        }
    }
}

/// Asserts the seqs of `events` run 0, 1, 2 … with no gap and no repeat.
#[track_caller]
pub fn assert_contiguous(seqs: &[u64]) {
    for (i, seq) in seqs.iter().enumerate() {
        assert_eq!(*seq, i as u64, "seq {i} is {seq}: a gap or a repeat in {seqs:?}");
    }
}
