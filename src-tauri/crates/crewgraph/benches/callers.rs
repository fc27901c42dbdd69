//! What calling a crew from another app costs over running it through the API
//! (BENCHMARKS.md, "Crews called from other apps"): the same Simulate run of the
//! exam (its script file) to its end, one call at a time against the real binary
//! (release build) on loopback, three ways in turn —
//!
//! - `POST /runs` then `GET /runs/{id}/events` until `run_finished` (the API);
//! - `POST /v1/chat/completions` (`crewgraph: {model: simulate}`), not streamed;
//! - `tools/call` of the crew's tool on `/mcp`, in one MCP session.
//!
//! The overhead is each door's p50 minus the API's, measured in the same run:
//! `cargo bench -p crewgraph --bench callers` (`CALLERS_SAMPLES`, default 300 each).

use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant};

use eventsource_stream::Eventsource;
use futures_util::StreamExt;
use serde_json::{json, Value};

mod served;

/// A `crewgraph serve` over a folder with the exam and its script.
struct Served {
    child: Child,
    base: String,
    _dir: tempfile::TempDir,
}

impl Served {
    fn start() -> Served {
        let dir = tempfile::tempdir().expect("temp dir");
        let crews = dir.path().join("crews");
        std::fs::create_dir_all(crews.join("scripts")).expect("crews folder");
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../crews");
        std::fs::copy(repo.join("exam.yaml"), crews.join("exam.yaml")).expect("exam.yaml");
        std::fs::copy(repo.join("scripts/exam.yaml"), crews.join("scripts/exam.yaml")).expect("its script");
        let (child, base) = served::serve(&crews, &dir.path().join("bench.db"), &[]);
        Served { child, base, _dir: dir }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The exam through the API: started, then watched to its end.
async fn through_the_api(http: &reqwest::Client, base: &str) {
    let body = json!({"crew": "exam.yaml", "input": "Start the exam", "script_file": "scripts/exam.yaml"});
    let started = post_json(http, &format!("{base}/runs"), &body).await;
    let id = started["run_id"].as_str().expect("a run id");
    let response = http.get(format!("{base}/runs/{id}/events")).send().await.expect("events");
    let mut events = response.bytes_stream().eventsource();
    while let Some(Ok(event)) = events.next().await {
        if event.data.contains("\"run_finished\"") {
            return;
        }
    }
    panic!("the run never finished");
}

/// The exam as an OpenAI model.
async fn as_a_model(http: &reqwest::Client, base: &str) {
    let body = json!({
        "model": "crew/exam",
        "messages": [{"role": "user", "content": "Start the exam"}],
        "crewgraph": {"model": "simulate"},
    });
    let answer = post_json(http, &format!("{base}/v1/chat/completions"), &body).await;
    assert_eq!(answer["crewgraph"]["status"], json!("terminated"), "{answer}");
}

async fn post_json(http: &reqwest::Client, url: &str, body: &Value) -> Value {
    let response = http.post(url).header("content-type", "application/json").body(body.to_string()).send().await.expect("request");
    serde_json::from_slice(&response.bytes().await.expect("body")).expect("JSON")
}

/// An MCP session on `/mcp`: its id once initialized.
async fn mcp_session(http: &reqwest::Client, base: &str) -> String {
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}});
    let response = mcp_post(http, base, None, &initialize).await;
    let session = response.headers().get("mcp-session-id").expect("a session id").to_str().expect("text").to_owned();
    let _ = response.bytes().await;
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let _ = mcp_post(http, base, Some(&session), &initialized).await.bytes().await;
    session
}

async fn mcp_post(http: &reqwest::Client, base: &str, session: Option<&str>, body: &Value) -> reqwest::Response {
    let mut request = http
        .post(format!("{base}/mcp"))
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(body.to_string());
    if let Some(session) = session {
        request = request.header("mcp-session-id", session).header("mcp-protocol-version", "2025-06-18");
    }
    request.send().await.expect("MCP request")
}

/// The exam as an MCP tool, its answer read from the call's stream.
async fn as_a_tool(http: &reqwest::Client, base: &str, session: &str, id: u64) {
    let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "exam", "arguments": {"input": "Start the exam", "model": "simulate"}}});
    let response = mcp_post(http, base, Some(session), &call).await;
    let mut events = response.bytes_stream().eventsource();
    while let Some(Ok(event)) = events.next().await {
        if event.data.contains("\"result\"") {
            assert!(event.data.contains("terminated"), "{}", event.data);
            return;
        }
    }
    panic!("the tool call never answered");
}

fn p(samples: &mut [Duration], at: f64) -> f64 {
    samples.sort();
    samples[((samples.len() as f64 * at) as usize).min(samples.len() - 1)].as_secs_f64() * 1e3
}

fn main() {
    let samples: usize = std::env::var("CALLERS_SAMPLES").ok().and_then(|v| v.parse().ok()).unwrap_or(300);
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    let served = Served::start();
    let base = served.base.clone();
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let (mut api, mut model, mut tool) = runtime.block_on(async {
        let http = reqwest::Client::new();
        let session = mcp_session(&http, &base).await;
        // Warm up every door (connections, the page cache, the database).
        for i in 0..20 {
            through_the_api(&http, &base).await;
            as_a_model(&http, &base).await;
            as_a_tool(&http, &base, &session, 1_000_000 + i).await;
        }
        let (mut api, mut model, mut tool) = (Vec::new(), Vec::new(), Vec::new());
        // In turn, so a burst of load on the machine falls on all three alike.
        for i in 0..samples as u64 {
            let started = Instant::now();
            through_the_api(&http, &base).await;
            api.push(started.elapsed());
            let started = Instant::now();
            as_a_model(&http, &base).await;
            model.push(started.elapsed());
            let started = Instant::now();
            as_a_tool(&http, &base, &session, i + 1).await;
            tool.push(started.elapsed());
        }
        (api, model, tool)
    });
    println!("# A crew called from other apps (one run; release build; {samples} runs of the exam each, one at a time)\n");
    println!("Load average before: {}\n", load.split_whitespace().take(3).collect::<Vec<_>>().join(" "));
    println!("| way | p50 ms | p90 ms | overhead over the API, p50 |");
    println!("|---|---|---|---|");
    let base_p50 = p(&mut api, 0.5);
    println!("| POST /runs, then its events to run_finished | {base_p50:.2} | {:.2} | — |", p(&mut api, 0.9));
    for (name, samples) in [("POST /v1/chat/completions (whole)", &mut model), ("MCP tools/call on /mcp", &mut tool)] {
        let p50 = p(samples, 0.5);
        println!("| {name} | {p50:.2} | {:.2} | {:+.2} ms |", p(samples, 0.9), p50 - base_p50);
    }
}
