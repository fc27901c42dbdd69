//! Runs as OpenTelemetry traces (docs/observability.md), against a real receiver:
//! Arize Phoenix (`make test-deps` installs it pinned into `.tools/phoenix`),
//! started by the test on loopback on free ports with a working folder of its own,
//! waited for by polling, stopped afterwards. Scripted runs are traced — one set up
//! in Settings through the API (as the window and `crewgraph serve` run them), one
//! by `OTEL_EXPORTER_OTLP_ENDPOINT` through `crewgraph run` — and their spans read
//! back through Phoenix's REST API: the tree, names and attributes. And a collector
//! that is down (a closed port) neither slows nor fails a run.

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crewgraph::api::{Api, TraceSettings};
use crewgraph_engine::run::{CollectingSink, EventKind, RunStatus};
use crewgraph_store::SqliteStore;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::support::{block_on, crewgraph, repo_root, scripted};

/// A port nothing listens on now.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// A Phoenix server of the test's own, stopped when dropped.
struct Phoenix {
    child: Child,
    port: u16,
    dir: tempfile::TempDir,
}

impl Phoenix {
    fn start() -> Phoenix {
        let phoenix = repo_root().join(".tools/phoenix/venv/bin/phoenix");
        assert!(phoenix.is_file(), "{} is missing: `make test-deps` (scripts/install-phoenix.sh) installs it", phoenix.display());
        let dir = tempfile::tempdir().unwrap();
        let (port, grpc) = (free_port(), free_port());
        let log = std::fs::File::create(dir.path().join("phoenix.log")).unwrap();
        let child = Command::new(phoenix)
            .arg("serve")
            .env("PHOENIX_WORKING_DIR", dir.path())
            .env("PHOENIX_HOST", "127.0.0.1")
            .env("PHOENIX_PORT", port.to_string())
            .env("PHOENIX_GRPC_PORT", grpc.to_string())
            .env("PHOENIX_TELEMETRY_ENABLED", "false")
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .expect("Phoenix starts");
        let mut phoenix = Phoenix { child, port, dir };
        phoenix.wait_until_up();
        phoenix
    }

    fn base(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("phoenix.log")).unwrap_or_default()
    }

    /// Polls `/healthz` until it answers (two minutes at most: a cold start on a
    /// busy machine migrates its database first).
    fn wait_until_up(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(120);
        let url = format!("{}/healthz", self.base());
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().unwrap() {
                panic!("Phoenix ended ({status}) before it answered:\n{}", self.log());
            }
            if block_on(async { reqwest::get(&url).await.is_ok_and(|r| r.status().is_success()) }) {
                return;
            }
            std::thread::sleep(Duration::from_millis(250));
        }
        panic!("Phoenix did not answer {url} within 120 s:\n{}", self.log());
    }

    /// The spans of trace `trace_id` Phoenix holds, once there are at least `count`
    /// (ingestion is asynchronous: polled, a minute at most).
    fn spans(&self, trace_id: &str, count: usize) -> Vec<Value> {
        let url = format!("{}/v1/projects/default/spans?limit=1000", self.base());
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let body = block_on(async { reqwest::get(&url).await.unwrap().text().await.unwrap() });
            let all: Value = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body}"));
            let spans: Vec<Value> =
                all["data"].as_array().cloned().unwrap_or_default().into_iter().filter(|s| s["context"]["trace_id"] == trace_id).collect();
            if spans.len() >= count || Instant::now() > deadline {
                return spans;
            }
            std::thread::sleep(Duration::from_millis(250));
        }
    }
}

impl Drop for Phoenix {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn api_in(dir: &std::path::Path) -> Api {
    Api::new(repo_root().join("crews")).with_sqlite(Arc::new(SqliteStore::open(dir.join("crewgraph.db")).unwrap()))
}

fn named<'a>(spans: &'a [Value], name: &str) -> Vec<&'a Value> {
    spans.iter().filter(|s| s["name"] == name).collect()
}

fn trace_of(run_id: &str) -> String {
    crewgraph_otel::trace_id_of(run_id).to_string()
}

#[test]
fn a_scripted_run_traced_from_settings_reads_back_from_phoenix_as_its_tree() {
    let phoenix = Phoenix::start();
    let dir = tempfile::tempdir().unwrap();
    let api = api_in(dir.path());
    let key = "CREWGRAPH_TRACES_PHOENIX_TEST_KEY_8e2";
    std::env::set_var(key, "s3cret");
    let settings = TraceSettings {
        enabled: true,
        endpoint: Some(phoenix.base()),
        headers: [("Authorization".to_owned(), serde_json::json!({"key": key, "prefix": "Bearer "}))].into(),
        capture_content: true,
    };
    let view = block_on(api.set_trace_settings(settings)).unwrap();
    assert!(view.status.active, "{:?}", view.status);
    assert_eq!(view.status.endpoint.as_deref(), Some(format!("{}/v1/traces", phoenix.base()).as_str()));

    let sink = Arc::new(CollectingSink::default());
    let crew = repo_root().join("crews/exam.yaml");
    let options = scripted(&repo_root().join("crews/scripts/exam.yaml").display().to_string());
    let outcome = block_on(api.start_run(&crew, "Start the exam", &options, sink.clone(), &CancellationToken::new())).unwrap();
    assert_eq!(outcome.status, RunStatus::Terminated);
    assert_eq!(api.flush_traces(Duration::from_secs(30)), None, "every span was taken");

    let events = sink.events();
    let turns = events.iter().filter(|e| matches!(e.kind, EventKind::AgentStarted { .. })).count();
    let tools = events.iter().filter(|e| matches!(e.kind, EventKind::ToolCall { .. })).count();
    let spans = phoenix.spans(&trace_of(outcome.run_id.as_str()), 1 + turns + tools);
    assert_eq!(spans.len(), 1 + turns + tools, "a span per run, turn and tool call: {spans:#?}");

    // The tree: the run at the root, every turn in it, the tool call in its turn.
    let run = named(&spans, "invoke_workflow Fractions exam");
    assert_eq!(run.len(), 1);
    let run = run[0];
    assert!(run["parent_id"].is_null());
    let run_id = &run["context"]["span_id"];
    let chats = named(&spans, "chat scripted");
    assert_eq!(chats.len(), turns);
    assert!(chats.iter().all(|c| &c["parent_id"] == run_id), "every turn is in the run");
    let tool = named(&spans, "execute_tool calculator");
    assert_eq!(tool.len(), 1);
    let asked = chats.iter().find(|c| c["context"]["span_id"] == tool[0]["parent_id"]).expect("the tool call is in a turn");
    assert_eq!(asked["attributes"]["gen_ai.agent.name"], "Reporter", "the reporter asked for the calculator");

    // Names and attributes, as the GenAI conventions say.
    assert_eq!(run["attributes"]["gen_ai.operation.name"], "invoke_workflow");
    assert_eq!(run["attributes"]["crewgraph.run.status"], "terminated");
    assert_eq!(run["attributes"]["gen_ai.conversation.id"], outcome.run_id.as_str());
    assert_eq!(run["status_code"], "OK");
    let teacher = chats.iter().find(|c| c["attributes"]["gen_ai.agent.id"] == "teacher").unwrap();
    assert_eq!(teacher["attributes"]["gen_ai.operation.name"], "chat");
    assert_eq!(teacher["attributes"]["gen_ai.agent.name"], "Teacher");
    assert_eq!(teacher["attributes"]["gen_ai.provider.name"], "crewgraph.scripted");
    assert_eq!(teacher["attributes"]["gen_ai.request.model"], "scripted");
    let replies: Vec<String> =
        chats.iter().filter(|c| c["attributes"]["gen_ai.agent.id"] == "teacher").map(|c| c["attributes"].to_string()).collect();
    assert!(replies.iter().any(|a| a.contains("what is 1/2 + 1/4? [QUESTION]")), "content capture is on: {replies:#?}");
    assert_eq!(tool[0]["attributes"]["gen_ai.operation.name"], "execute_tool");
    assert_eq!(tool[0]["attributes"]["gen_ai.tool.name"], "calculator");
    assert_eq!(tool[0]["attributes"]["gen_ai.tool.call.result"], "0.75");

    // The handoffs: events carrying the signal, its level and the reason.
    let handoffs: Vec<&Value> =
        spans.iter().flat_map(|s| s["events"].as_array().unwrap().iter()).filter(|e| e["name"] == "crewgraph.handoff").collect();
    let expected = events.iter().filter(|e| matches!(e.kind, EventKind::Handoff { .. })).count();
    assert_eq!(handoffs.len(), expected);
    let first = handoffs.iter().find(|h| h["attributes"]["crewgraph.handoff.from"] == "teacher").expect("the teacher hands off");
    assert_eq!(first["attributes"]["crewgraph.signal"], "[QUESTION]");
    assert_eq!(first["attributes"]["crewgraph.signal.level"], "exact");
    assert!(first["attributes"]["crewgraph.handoff.reason"].as_str().unwrap().contains("[QUESTION]"));

    // Span times are the events' own.
    let started = events.first().unwrap().timestamp.to_string();
    assert_eq!(run["start_time"].as_str().unwrap()[..23], started[..23], "the run span starts at run_started");
    let status = block_on(api.traces_view()).unwrap().status;
    assert_eq!((status.exported as usize, status.dropped, status.failed), (spans.len(), 0, 0), "{status:?}");
}

#[test]
fn crewgraph_run_with_otel_exporter_otlp_endpoint_sends_its_trace_before_it_ends() {
    let phoenix = Phoenix::start();
    let dir = tempfile::tempdir().unwrap();
    let root = repo_root();
    let output = crewgraph()
        .args(["run", "crews/note-desk.yaml", "--input", "A note on honey", "--script", "crews/scripts/note-desk.yaml", "--json", "--db"])
        .arg(dir.path().join("crewgraph.db"))
        .current_dir(&root)
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", phoenix.base())
        .env_remove("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT")
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let run_id = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find_map(|e| e["run_id"].as_str().map(str::to_owned))
        .expect("the JSON events name the run");
    // Lead, note-taker, summariser: three turns, three decisions of the router.
    let spans = phoenix.spans(&trace_of(&run_id), 7);
    let routes = named(&spans, "route llm");
    assert_eq!(routes.len(), 3, "a span per routing decision: {spans:#?}");
    assert_eq!(routes[0]["attributes"]["crewgraph.routing.strategy"], "llm");
    // (A scripted run's decisions share their millisecond: compared as a set.)
    let mut chosen: Vec<&str> = routes.iter().map(|r| r["attributes"]["crewgraph.routing.chosen"].as_str().unwrap()).collect();
    chosen.sort_unstable();
    assert_eq!(chosen, ["complete", "note_taker", "summariser"]);
    assert_eq!(named(&spans, "chat scripted").len(), 3);
    for span in &spans {
        let text = span.to_string();
        assert!(!text.contains("gen_ai.output.messages") && !text.contains("nectar"), "no reply text without content capture: {text}");
    }
}

#[test]
fn a_collector_that_is_down_neither_slows_nor_fails_a_run() {
    let dir = tempfile::tempdir().unwrap();
    let crew = repo_root().join("crews/research-loop.yaml");
    let options = scripted(&repo_root().join("crews/scripts/research-loop.yaml").display().to_string());
    let run = |api: &Api| {
        let started = Instant::now();
        let outcome =
            block_on(api.start_run(&crew, "Bees in the city", &options, Arc::new(CollectingSink::default()), &CancellationToken::new()));
        (outcome.unwrap(), started.elapsed())
    };
    let plain = api_in(dir.path());
    let (untraced, untraced_took) = run(&plain);

    let traced = api_in(dir.path());
    let closed = format!("http://127.0.0.1:{}", free_port());
    block_on(traced.set_trace_settings(TraceSettings { enabled: true, endpoint: Some(closed), ..TraceSettings::default() })).unwrap();
    let (outcome, took) = run(&traced);
    assert_eq!(outcome.status, untraced.status, "the run ends as it does untraced");
    assert!(took < untraced_took + Duration::from_millis(500), "traced {took:?} against {untraced_took:?} untraced");

    // What was lost is counted and said.
    let lost = traced.flush_traces(Duration::from_secs(60)).expect("the spans were not taken");
    assert!(lost.contains("not taken"), "{lost}");
    let status = block_on(traced.traces_view()).unwrap().status;
    assert!(status.failed > 0 && status.exported == 0, "{status:?}");
    assert!(status.problem.is_some(), "the sending error is shown: {status:?}");
}
