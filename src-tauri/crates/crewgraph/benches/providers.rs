//! The local model's figures for BENCHMARKS.md (issue 8): how long llama-server takes
//! to load SmolLM2 and answer `/health`, how many tokens a second it writes on this
//! machine, and the time to first token three ways — straight from the server (a bare
//! streamed HTTP request), through the `openai` provider, and through a whole run of
//! the engine (the first `token` event) — so the engine's overhead is the difference.
//!
//! `cargo bench -p crewgraph --bench providers` (needs `scripts/setup-local-model.sh`).
//! `PROVIDER_ROUNDS` sets the rounds per way (default 15); the ways alternate within a
//! round, so the server's prompt cache and the machine's noise favour none of them.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crewgraph_engine::load::load_str;
use crewgraph_engine::run::history::Visible;
use crewgraph_engine::run::{
    start_run, CrewSource, EventKind, EventSink, LlmClient, LlmRequest, MemoryStore, Message, RandomIds, RunDeps, RunEvent, SystemClock,
};
use crewgraph_engine::AgentId;
use crewgraph_llm::{Limits, LocalPaths, LocalServer, OpenAiClient};
use futures_util::StreamExt;
use tokio_util::sync::CancellationToken;

const SYSTEM: &str = "You are a patient maths teacher. Ask one short question about fractions.";
const INPUT: &str = "Start the exam.";

fn main() {
    let rounds: usize = std::env::var("PROVIDER_ROUNDS").ok().and_then(|r| r.parse().ok()).unwrap_or(15);
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    runtime.block_on(bench(rounds));
}

async fn bench(rounds: usize) {
    let paths = LocalPaths::find().unwrap_or_else(|e| panic!("{e}"));
    let mut loads = Vec::new();
    for _ in 0..3 {
        let server = LocalServer::start(&paths, 1).await.unwrap_or_else(|e| panic!("{e}"));
        loads.push(server.startup);
        server.stop().await;
    }
    println!("local model load (start llama-server until /health answers), 3 starts: {}", show(&mut loads));

    let server = LocalServer::start(&paths, 1).await.unwrap();
    let base = format!("{}/v1", server.base_url);
    let http = reqwest::Client::new();

    let story = serde_json::json!({"model": "local", "max_tokens": 128, "temperature": 0,
        "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "Tell me a long story about fractions."}]});
    let answer = http.post(format!("{base}/chat/completions")).body(story.to_string()).send().await.unwrap().bytes().await.unwrap();
    let speed: serde_json::Value = serde_json::from_slice(&answer).unwrap();
    println!(
        "generation: {:.1} tokens/s ({} tokens), prompt: {:.1} tokens/s (1 thread)",
        speed["timings"]["predicted_per_second"].as_f64().unwrap_or(0.0),
        speed["timings"]["predicted_n"],
        speed["timings"]["prompt_per_second"].as_f64().unwrap_or(0.0),
    );

    let client = OpenAiClient::new(&base, "local", None, Limits::default()).unwrap().with_max_tokens(Some(8));
    let crew = load_str(
        "bench.yaml",
        &format!("entry_point: teacher\nagents:\n  - {{ id: teacher, is_terminal: true, system_prompt: \"{SYSTEM}\" }}\n"),
    )
    .crew
    .expect("the bench crew is valid");
    let (mut direct, mut provider, mut engine) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..=rounds {
        let d = first_token_direct(&http, &base).await;
        let p = first_token_provider(&client).await;
        let e = first_token_engine(&crew, &client).await;
        if round > 0 {
            // round 0 warms the prompt cache
            direct.push(d);
            provider.push(p);
            engine.push(e);
        }
    }
    let diffs = |a: &[Duration], b: &[Duration]| -> Vec<Duration> { a.iter().zip(b).map(|(a, b)| a.saturating_sub(*b)).collect() };
    let (mut over_provider, mut over_engine) = (diffs(&provider, &direct), diffs(&engine, &direct));
    println!("time to first token, {rounds} rounds each:");
    println!("  straight from the server:  {}", show(&mut direct));
    println!("  through the openai provider: {}", show(&mut provider));
    println!("  through a run of the engine: {}", show(&mut engine));
    println!("  provider - server, per round: {}", show(&mut over_provider));
    println!("  engine - server, per round:   {}", show(&mut over_engine));
    server.stop().await;
}

fn body() -> serde_json::Value {
    serde_json::json!({"model": "local", "max_tokens": 8, "stream": true, "stream_options": {"include_usage": true},
        "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": INPUT}]})
}

/// A bare streamed request: from sending it to the first chunk with text.
async fn first_token_direct(http: &reqwest::Client, base: &str) -> Duration {
    let started = Instant::now();
    let response = http.post(format!("{base}/chat/completions")).body(body().to_string()).send().await.unwrap();
    let mut stream = response.bytes_stream();
    let mut seen = String::new();
    let mut first = None;
    while let Some(chunk) = stream.next().await {
        seen.push_str(&String::from_utf8_lossy(&chunk.unwrap()));
        if first.is_none() && seen.contains("\"content\":\"") {
            first = Some(started.elapsed());
        }
    }
    first.expect("the server streamed text")
}

/// The provider: from `complete` to the first `on_token`.
async fn first_token_provider(client: &OpenAiClient) -> Duration {
    let agent = AgentId::from("teacher");
    let history = [Message::user(INPUT)];
    let request = LlmRequest::new(&agent, SYSTEM, Visible::all(&history));
    let first = Mutex::new(None);
    let started = Instant::now();
    let on_token = |_: &str| {
        let mut first = first.lock().unwrap();
        if first.is_none() {
            *first = Some(started.elapsed());
        }
    };
    client.complete(&request, &on_token, &CancellationToken::new()).await.unwrap();
    first.into_inner().unwrap().expect("the provider streamed text")
}

/// Notes when the first `token` event arrives.
struct FirstToken(Instant, Mutex<Option<Duration>>);

impl EventSink for FirstToken {
    fn emit(&self, event: &RunEvent) {
        if matches!(event.kind, EventKind::Token { .. }) {
            let mut first = self.1.lock().unwrap();
            if first.is_none() {
                *first = Some(self.0.elapsed());
            }
        }
    }
}

/// A whole run (in-memory store): from `start_run` to the first `token` event.
async fn first_token_engine(crew: &crewgraph_engine::Crew, client: &OpenAiClient) -> Duration {
    let sink = Arc::new(FirstToken(Instant::now(), Mutex::new(None)));
    let deps = RunDeps {
        llm: Arc::new(client.clone()),
        store: Arc::new(MemoryStore::new()),
        sink: sink.clone(),
        clock: Arc::new(SystemClock),
        ids: Arc::new(RandomIds),
        http: None,
        tool_host: None,
        approvals: Default::default(),
        notices: Vec::new(),
        gatekeeper: None,
        breaks: Default::default(),
        fork: None,
        executor: None,
    };
    start_run(crew, &CrewSource::default(), INPUT, &deps, &CancellationToken::new()).await.unwrap();
    let first = *sink.1.lock().unwrap();
    first.expect("the run streamed text")
}

/// Median, p90, min and max of `values`.
fn show(values: &mut [Duration]) -> String {
    values.sort();
    let at = |q: f64| values[((values.len() - 1) as f64 * q).round() as usize];
    let ms = |d: Duration| format!("{:.2} ms", d.as_secs_f64() * 1000.0);
    format!("median {} · p90 {} · min {} · max {}", ms(at(0.5)), ms(at(0.9)), ms(values[0]), ms(values[values.len() - 1]))
}
