//! Chaos provider (issue 23): [`RUNS`] runs of a three-agent crew at once, through
//! the API, the real `openai` provider and the SQLite store, against a real HTTP
//! server on 127.0.0.1 that answers each request with a fault drawn from a seeded
//! random mix: a good streamed answer, 500/502/503, 429 with `Retry-After` (short,
//! or longer than the model waits), a connection reset before the first byte, a
//! stream cut in the middle, an HTML page with 200, truncated JSON (a streamed chunk,
//! or a whole body), an empty body, a stream that trickles, and an answer so slow
//! the provider gives up on it.
//!
//! Every run must end with a status within a generous limit — none hangs, none
//! panics — and keep every event: the store holds what the run's sink saw, seqs
//! without a gap, `run_finished` last. A run that got only good answers completes;
//! a failed run's error names the provider and says what the last answer was; a run
//! cut mid-stream keeps the text that arrived. Run 0 is the control: good answers
//! only.
//!
//! Each run talks to its own path (`/run/N/v1`) and the fault of its k-th request is
//! a function of the seed, N and k, so `CREWGRAPH_CHAOS_SEED=S` (the seed is
//! printed) serves every run the same faults again, however the runs interleave.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crewgraph::api::{Api, RunOptions};
use crewgraph_engine::run::{CollectingSink, EventKind, RunEvent, RunStatus, RunStore};
use crewgraph_llm::settings::{ModelConfig, Provider};
use crewgraph_llm::Limits;
use crewgraph_store::SqliteStore;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

use crate::support::{seed_from, Rng};

/// How many runs.
const RUNS: usize = 50;

/// The longest one run may take before the test calls it hung (a run's worst case
/// under these limits is about 20 s: three calls, three tries each, 2 s apiece).
const RUN_LIMIT: Duration = Duration::from_secs(180);

/// What the provider is told to bear: small, so a slow answer costs seconds.
fn limits() -> Limits {
    Limits {
        connect: Duration::from_secs(2),
        first_byte: Duration::from_secs(2),
        idle: Duration::from_secs(2),
        retries: 2,
        backoff: Duration::from_millis(20),
        max_wait: Duration::from_millis(1500),
        reply: Duration::from_secs(30),
    }
}

/// How long the slow answer keeps the head back (past [`Limits::first_byte`]).
const SLOW_HEAD: Duration = Duration::from_secs(6);

/// The pause between two pieces of a trickling stream (under [`Limits::idle`]).
const TRICKLE_GAP: Duration = Duration::from_millis(250);

/// The pieces of a good answer.
const PIECES: [&str; 3] = ["Done with ", "my part. ", "[NEXT]"];

/// A planner, a writer and a reviewer in a row; each hands over with [NEXT].
const RELAY: &str = r#"version: "1.0"
name: Chaos relay
entry_point: planner
agents:
  - { id: planner, system_prompt: "Plan a short note, then hand over with [NEXT]." }
  - { id: writer, system_prompt: "Write the note, then hand over with [NEXT]." }
  - { id: reviewer, system_prompt: "Review the note in one sentence.", is_terminal: true }
routing:
  signals:
    planner:
      - { signal: "[NEXT]", target: writer }
    writer:
      - { signal: "[NEXT]", target: reviewer }
"#;

/// How the server answers one request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Fault {
    /// A whole stream of [`PIECES`].
    Good,
    /// The same, [`TRICKLE_GAP`] between pieces.
    Trickle,
    /// 500, 502 or 503 with a JSON error.
    ServerError(u16),
    /// 429 with `Retry-After: N` seconds.
    RateLimited(u32),
    /// The connection reset (RST) once the request is read, before any byte.
    Reset,
    /// The stream's head and first two pieces, then the connection closed.
    CutStream,
    /// 200 with an HTML page.
    Html,
    /// A streamed chunk whose JSON is cut short, then the end of the stream.
    TruncatedChunk,
    /// 200 `application/json` whose JSON is cut short.
    TruncatedBody,
    /// 200 with an empty body.
    EmptyBody,
    /// The head held back for [`SLOW_HEAD`], then a good answer nobody waits for.
    SlowHead,
}

impl Fault {
    /// Whether this answer is a good one.
    fn is_good(self) -> bool {
        matches!(self, Fault::Good | Fault::Trickle)
    }
}

/// The fault of run `run`'s `request`-th request (from 0) under `seed`.
fn fault_for(seed: u64, run: usize, request: usize) -> Fault {
    if run == 0 {
        return Fault::Good;
    }
    let mut rng = Rng::new(seed ^ (run as u64).wrapping_mul(0x0001_0000_0001) ^ ((request as u64) << 20));
    // Weights out of 100: half good, the rest spread over the faults.
    let table: [(u64, Fault); 14] = [
        (44, Fault::Good),
        (6, Fault::Trickle),
        (4, Fault::ServerError(500)),
        (4, Fault::ServerError(502)),
        (4, Fault::ServerError(503)),
        (5, Fault::RateLimited(1)),
        (2, Fault::RateLimited(120)),
        (5, Fault::Reset),
        (5, Fault::CutStream),
        (4, Fault::Html),
        (3, Fault::TruncatedChunk),
        (3, Fault::TruncatedBody),
        (4, Fault::EmptyBody),
        (7, Fault::SlowHead),
    ];
    let mut pick = rng.below(100);
    for (weight, fault) in table {
        if pick < weight {
            return fault;
        }
        pick -= weight;
    }
    unreachable!("the weights add up to 100")
}

/// The chaos server: its address and, per run, the faults it has served in order.
struct ChaosServer {
    base: String,
    served: Arc<Mutex<BTreeMap<usize, Vec<Fault>>>>,
    accepting: tokio::task::JoinHandle<()>,
}

impl ChaosServer {
    async fn start(seed: u64) -> ChaosServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("a loopback port for the chaos server");
        let base = format!("http://{}", listener.local_addr().unwrap());
        let served = Arc::new(Mutex::new(BTreeMap::<usize, Vec<Fault>>::new()));
        let log = served.clone();
        let accepting = tokio::spawn(async move {
            let mut connections = tokio::task::JoinSet::new();
            loop {
                let Ok((socket, _)) = listener.accept().await else {
                    continue;
                };
                connections.spawn(answer(socket, seed, log.clone()));
                while connections.try_join_next().is_some() {}
            }
        });
        ChaosServer { base, served, accepting }
    }

    /// The base URL run `run` talks to.
    fn url(&self, run: usize) -> String {
        format!("{}/run/{run}/v1", self.base)
    }

    fn served(&self, run: usize) -> Vec<Fault> {
        self.served.lock().unwrap().get(&run).cloned().unwrap_or_default()
    }
}

impl Drop for ChaosServer {
    fn drop(&mut self) {
        self.accepting.abort();
    }
}

/// Reads one request, draws its fault and answers with it.
async fn answer(mut socket: TcpStream, seed: u64, served: Arc<Mutex<BTreeMap<usize, Vec<Fault>>>>) {
    let Some(path) = read_request(&mut socket).await else {
        return;
    };
    let run: usize = path.strip_prefix("/run/").and_then(|rest| rest.split('/').next()).and_then(|n| n.parse().ok()).unwrap_or(usize::MAX);
    let fault = {
        let mut served = served.lock().unwrap();
        let faults = served.entry(run).or_default();
        let fault = fault_for(seed, run, faults.len());
        faults.push(fault);
        fault
    };
    let stream_head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n";
    match fault {
        Fault::Good | Fault::Trickle => {
            let gap = if fault == Fault::Trickle { TRICKLE_GAP } else { Duration::ZERO };
            let _ = write_stream(&mut socket, stream_head, &good_stream(), gap).await;
        }
        Fault::SlowHead => {
            tokio::time::sleep(SLOW_HEAD).await;
            let _ = write_stream(&mut socket, stream_head, &good_stream(), Duration::ZERO).await;
        }
        Fault::ServerError(status) => {
            let body = json!({"error": {"message": format!("chaos: the server fails with {status}")}}).to_string();
            let _ = socket.write_all(whole(status, "application/json", &[], &body).as_bytes()).await;
        }
        Fault::RateLimited(wait) => {
            let body = json!({"error": {"message": "chaos: slow down"}}).to_string();
            let _ = socket.write_all(whole(429, "application/json", &[("Retry-After", &wait.to_string())], &body).as_bytes()).await;
        }
        Fault::Reset => {
            // Linger 0: closing sends RST instead of FIN.
            let _ = socket.set_zero_linger();
            drop(socket);
            return;
        }
        Fault::CutStream => {
            let _ = write_stream(&mut socket, stream_head, &good_stream()[..2], Duration::ZERO).await;
        }
        Fault::Html => {
            let page = "<!DOCTYPE html><html><head><title>Gateway</title></head><body><h1>Please wait</h1></body></html>";
            let _ = socket.write_all(whole(200, "text/html; charset=utf-8", &[], page).as_bytes()).await;
        }
        Fault::TruncatedChunk => {
            let chunks = ["data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Do\n\n".to_owned()];
            let _ = write_stream(&mut socket, stream_head, &chunks, Duration::ZERO).await;
        }
        Fault::TruncatedBody => {
            let body = r#"{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Do"#;
            let _ = socket.write_all(whole(200, "application/json", &[], body).as_bytes()).await;
        }
        Fault::EmptyBody => {
            let _ = socket.write_all(whole(200, "application/json", &[], "").as_bytes()).await;
        }
    }
    let _ = socket.shutdown().await;
}

/// A whole answer with a `Content-Length`.
fn whole(status: u16, content_type: &str, headers: &[(&str, &str)], body: &str) -> String {
    let reason = match status {
        200 => "OK",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        _ => "Unknown",
    };
    let extra: String = headers.iter().map(|(name, value)| format!("{name}: {value}\r\n")).collect();
    format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n{extra}Connection: close\r\n\r\n{body}",
        body.len()
    )
}

/// A chat-completions stream of [`PIECES`]: a chunk each, the finish, the usage, `[DONE]`.
fn good_stream() -> Vec<String> {
    let sse = |value: serde_json::Value| format!("data: {value}\n\n");
    let mut chunks: Vec<String> = PIECES.iter().map(|p| sse(json!({"choices": [{"index": 0, "delta": {"content": p}}]}))).collect();
    chunks.push(sse(json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})));
    chunks.push(sse(json!({"choices": [], "usage": {"prompt_tokens": 11, "completion_tokens": 3}})));
    chunks.push("data: [DONE]\n\n".to_owned());
    chunks
}

async fn write_stream(socket: &mut TcpStream, head: &str, chunks: &[String], gap: Duration) -> std::io::Result<()> {
    socket.write_all(head.as_bytes()).await?;
    for chunk in chunks {
        socket.write_all(chunk.as_bytes()).await?;
        socket.flush().await?;
        if !gap.is_zero() {
            tokio::time::sleep(gap).await;
        }
    }
    Ok(())
}

/// Reads a request's head and `Content-Length` body; returns its path (None when
/// the client went away first).
async fn read_request(socket: &mut TcpStream) -> Option<String> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break at;
        }
        let n = socket.read(&mut chunk).await.ok().filter(|n| *n > 0)?;
        buffer.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
    let path = head.split_whitespace().nth(1)?.to_owned();
    let length: usize = head
        .lines()
        .filter_map(|line| line.split_once(':'))
        .find(|(name, _)| name.trim().eq_ignore_ascii_case("content-length"))
        .and_then(|(_, value)| value.trim().parse().ok())
        .unwrap_or(0);
    let mut read = buffer.len() - head_end - 4;
    while read < length {
        let n = socket.read(&mut chunk).await.ok().filter(|n| *n > 0)?;
        read += n;
    }
    Some(path)
}

/// What one run came to.
struct Ended {
    run: usize,
    status: RunStatus,
    error: Option<String>,
    events: Vec<RunEvent>,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runs_against_a_provider_that_fails_at_random_all_end_with_a_status_and_keep_their_events() {
    let seed = seed_from("CREWGRAPH_CHAOS_SEED");
    println!("chaos: seed {seed} (CREWGRAPH_CHAOS_SEED={seed} serves the same faults again), {RUNS} runs");
    let server = ChaosServer::start(seed).await;
    let dir = tempfile::tempdir().unwrap();
    let crew = dir.path().join("relay.yaml");
    std::fs::write(&crew, RELAY).unwrap();
    let store = Arc::new(SqliteStore::open(dir.path().join("chaos.db")).expect("the store opens"));
    let api = Arc::new(Api::new(dir.path()).with_sqlite(store.clone()));
    for run in 0..RUNS {
        let mut config = ModelConfig::new(Provider::Openai, "chaos-model");
        config.base_url = Some(server.url(run));
        config.limits = limits();
        api.add_model(&format!("chaos-{run}"), config, false).await.expect("the model is added");
    }

    let mut runs = Vec::new();
    for run in 0..RUNS {
        let (api, crew) = (api.clone(), crew.clone());
        runs.push(tokio::spawn(async move {
            let sink = Arc::new(CollectingSink::default());
            let options = RunOptions { model: Some(format!("chaos-{run}")), ..RunOptions::default() };
            let (input, cancel) = (format!("Note number {run}"), CancellationToken::new());
            let outcome = tokio::time::timeout(RUN_LIMIT, api.start_run(&crew, &input, &options, sink.clone(), &cancel)).await;
            (outcome, sink.events())
        }));
    }
    let mut ended = Vec::new();
    for (run, handle) in runs.into_iter().enumerate() {
        let (outcome, events) = match handle.await {
            Ok(done) => done,
            Err(error) => panic!("seed {seed}: run {run} panicked ({error}); faults served: {:?}", server.served(run)),
        };
        let outcome = outcome.unwrap_or_else(|_| {
            panic!("seed {seed}: run {run} hung: no status within {RUN_LIMIT:?}; faults served: {:?}", server.served(run))
        });
        let outcome = outcome.unwrap_or_else(|e| panic!("seed {seed}: run {run} did not start: {e}"));
        let stored = store.events(&outcome.run_id, None).await.expect("the run's events are stored");
        assert_eq!(stored, events, "seed {seed}: run {run}: the store holds every event the run sent, in order");
        ended.push(Ended { run, status: outcome.status, error: outcome.error, events });
    }

    let mut statuses = BTreeMap::<&str, usize>::new();
    let mut faults = BTreeMap::<String, usize>::new();
    // What a person is told, for each last answer before a run failed (one example each).
    let mut said = BTreeMap::<Fault, String>::new();
    for run in &ended {
        let served = server.served(run.run);
        check(run, &served, seed);
        *statuses.entry(run.status.as_str()).or_default() += 1;
        if let (Some(last), Some(error)) = (served.last(), &run.error) {
            said.entry(*last).or_insert_with(|| error.clone());
        }
        for fault in served {
            *faults.entry(format!("{fault:?}")).or_default() += 1;
        }
    }
    println!("chaos: seed {seed}: ends {statuses:?}; answers served {faults:?}");
    for (fault, error) in said {
        println!("chaos: failed after {fault:?}: {error}");
    }
    assert_eq!(ended[0].status, RunStatus::Completed, "seed {seed}: the control run (good answers only) completes");
}

/// One run's checks, given the faults its requests got.
fn check(run: &Ended, served: &[Fault], seed: u64) {
    let about = format!("seed {seed}: run {} (faults served {served:?})", run.run);
    assert!(matches!(run.status, RunStatus::Completed | RunStatus::Failed), "{about}: ended {:?}: {:?}", run.status, run.error);

    // Every event kept: seqs 0.. without a gap, one start first, the end last.
    let seqs: Vec<u64> = run.events.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, (0..run.events.len() as u64).collect::<Vec<_>>(), "{about}: seqs without a gap");
    assert!(matches!(run.events.first().map(|e| &e.kind), Some(EventKind::RunStarted { .. })), "{about}: the start first");
    match run.events.last().map(|e| &e.kind) {
        Some(EventKind::RunFinished { status, error, .. }) => {
            assert_eq!((*status, error), (run.status, &run.error), "{about}: the stored end is the outcome");
        }
        other => panic!("{about}: the last event is the end, not {other:?}"),
    }
    let responses: Vec<&str> = run
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::AgentResponse { content, .. } => Some(content.as_str()),
            _ => None,
        })
        .collect();
    let started = run.events.iter().filter(|e| matches!(e.kind, EventKind::AgentStarted { .. })).count();

    if served.iter().all(|f| f.is_good()) {
        assert_eq!(run.status, RunStatus::Completed, "{about}: only good answers, yet it ended {:?}: {:?}", run.status, run.error);
    }
    match run.status {
        RunStatus::Completed => {
            assert_eq!(responses, vec![PIECES.concat(); 3], "{about}: the three agents' replies");
            assert!(served.last().is_some_and(|f| f.is_good()), "{about}: completed, so the last answer was a good one");
        }
        RunStatus::Failed => {
            let error = run.error.as_deref().unwrap_or_else(|| panic!("{about}: a failed run says why"));
            assert!(error.contains(&format!("openai at {}", "http://127.0.0.1")), "{about}: the error names the provider: {error}");
            assert_plain_words(error, &about);
            // The agents before the one whose call failed kept their replies.
            assert_eq!(started, responses.len() + 1, "{about}: each agent that started answered, but the failing one");
            let last = *served.last().unwrap_or_else(|| panic!("{about}: a failed run asked the server"));
            match last {
                Fault::ServerError(status) => assert!(error.contains(&status.to_string()), "{about}: the error says {status}: {error}"),
                Fault::RateLimited(wait) if Duration::from_secs(wait.into()) > limits().max_wait => {
                    assert!(
                        error.contains("429") || error.contains(&format!("{wait} s")),
                        "{about}: the error says it was rate limited: {error}"
                    )
                }
                Fault::CutStream => {
                    // The text that came before the cut is in the run's token events.
                    let arrived: String = run
                        .events
                        .iter()
                        .rev()
                        .take_while(|e| !matches!(e.kind, EventKind::AgentStarted { .. }))
                        .filter_map(|e| match &e.kind {
                            EventKind::Token { text, .. } => Some(text.as_str()),
                            _ => None,
                        })
                        .collect::<Vec<_>>()
                        .into_iter()
                        .rev()
                        .collect();
                    assert_eq!(arrived, PIECES[..2].concat(), "{about}: the text before the cut is kept: {error}");
                }
                _ => {}
            }
        }
        _ => unreachable!(),
    }
}

/// An error a person reads: words, not Rust's debug output.
fn assert_plain_words(text: &str, about: &str) {
    for marker in ["panicked", "{ kind:", "Os {", "Error {", "Kind(", "reqwest::", "hyper::", "std::io"] {
        assert!(!text.contains(marker), "{about}: the error shows Rust's internals ({marker}): {text}");
    }
}
