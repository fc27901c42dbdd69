//! The `gatekeeper` routing strategy (DESIGN.md §5, issue 4) against a real HTTP
//! server each test starts on 127.0.0.1: a hand-written HTTP/1.1 responder that
//! records every request (head and JSON body) and answers as the test says — in
//! time or late, 200 or 500, a decision or garbage. Runs go through the API (crew
//! and script files, the API's own wiring of the gatekeeper client) with an
//! in-memory store, and through the binary — once with a real `crewgraph serve`
//! process as the gatekeeper of `crews/gatekeeper-desk.yaml`. A script that answers only for the
//! agents leaves the run asking the service; one with `gatekeeper:` answers asks no
//! service at all (Simulate mode), and its answers are read exactly as a service's.
//! The gatekeeper client alone, beside the router model's decider and the scripted
//! gatekeeper, is held to the `RouteDecider` suite (`deciders.rs`), which uses this
//! file's test gatekeeper. Every case ends with a clear status
//! within a time limit.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crewgraph::api::{Api, ApiErrorCode, RunOptions, ScriptSource};
use crewgraph_engine::run::{CollectingSink, MemoryStore, RunEvent, RunOutcome, RunStatus, RunStore, SequentialIds, SteppingClock};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::e2e::Sandbox;
use crate::routed::{decisions, finished, handoffs, script, warnings};
use crate::runner::START;

/// The longest a run may take before the test calls it hung.
const LIMIT: Duration = Duration::from_secs(30);

/// One request the gatekeeper got.
#[derive(Clone, Debug)]
pub(crate) struct Seen {
    pub(crate) head: String,
    pub(crate) body: Value,
}

/// What the gatekeeper answers one request with.
pub(crate) struct Answer {
    pub(crate) delay: Duration,
    pub(crate) status: u16,
    pub(crate) body: String,
}

impl Answer {
    pub(crate) fn ok(body: impl Into<String>) -> Answer {
        Answer { delay: Duration::ZERO, status: 200, body: body.into() }
    }
}

/// How the gatekeeper answers: from the request's number (from 0) and body.
type Answers = Box<dyn Fn(usize, &Value) -> Answer + Send + Sync>;

/// A gatekeeper on 127.0.0.1; its URL and what it has seen.
pub(crate) struct Gatekeeper {
    pub(crate) url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Gatekeeper {
    pub(crate) fn start(answers: impl Fn(usize, &Value) -> Answer + Send + Sync + 'static) -> Gatekeeper {
        let answers: Arc<Answers> = Arc::new(Box::new(answers));
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        listener.set_nonblocking(true).unwrap();
        let url = format!("http://{}/route", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        tokio::spawn(async move {
            let listener = TcpListener::from_std(listener).expect("a tokio listener");
            loop {
                let Ok((stream, _)) = listener.accept().await else { continue };
                let (answers, log) = (answers.clone(), log.clone());
                tokio::spawn(async move {
                    let (read, mut write) = stream.into_split();
                    let mut reader = BufReader::new(read);
                    let (mut head, mut length) = (String::new(), 0);
                    loop {
                        let mut line = String::new();
                        if reader.read_line(&mut line).await.unwrap_or(0) == 0 || line == "\r\n" {
                            break;
                        }
                        if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                            length = value.trim().parse().unwrap_or(0);
                        }
                        head.push_str(&line);
                    }
                    let mut body = vec![0; length];
                    if reader.read_exact(&mut body).await.is_err() {
                        return;
                    }
                    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                    let number = {
                        let mut log = log.lock().unwrap();
                        log.push(Seen { head, body: body.clone() });
                        log.len() - 1
                    };
                    let answer = answers(number, &body);
                    tokio::time::sleep(answer.delay).await;
                    let reason = match answer.status {
                        200 => "OK",
                        401 => "Unauthorized",
                        500 => "Internal Server Error",
                        _ => "Other",
                    };
                    let response = format!(
                        "HTTP/1.1 {} {reason}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{}",
                        answer.status,
                        answer.body.len(),
                        answer.body
                    );
                    let _ = write.write_all(response.as_bytes()).await;
                    let _ = write.shutdown().await;
                });
            }
        });
        Gatekeeper { url, seen }
    }

    pub(crate) fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

/// A decision routing to `agent`.
pub(crate) fn route(agent: &str, instruction: &str, reasoning: &str) -> String {
    json!({"workflow_complete": false, "next_agent": agent, "next_instruction": instruction, "reasoning": reasoning, "confidence": 0.9})
        .to_string()
}

/// The decision that completes the workflow.
pub(crate) fn complete() -> String {
    json!({"workflow_complete": true, "next_agent": null, "next_instruction": null, "confidence": 0.99}).to_string()
}

/// The crew of the routed tests, asking the gatekeeper at `url`.
fn desk(url: &str, extra: &str) -> String {
    format!(
        r#"
name: Gated desk
entry_point: lead
routing:
  strategy: gatekeeper
  gatekeeper:
    url: "{url}"
    timeout: 500ms
    retries: 2{extra}
agents:
  - {{ id: lead, name: Lead, role: Plans the work }}
  - {{ id: writer, name: Writer, role: Writes short notes, tags: [prose] }}
  - {{ id: editor, name: Editor, role: Polishes notes, tags: [editing] }}
"#
    )
}

/// The agents' replies.
fn replies() -> String {
    script(&[
        ("lead", vec!["Plan: the writer drafts, the editor polishes.".into()]),
        ("writer", vec!["Bees make honey. They dance. They pollinate.".into()]),
        ("editor", vec!["Bees make honey.\nThey dance.\nThey pollinate crops.".into()]),
    ])
}

/// What a run through the API left behind.
struct Gated {
    outcome: RunOutcome,
    /// Every event, as the sink saw them and the store keeps them.
    events: Vec<RunEvent>,
}

/// A run of `crew` through the API, with the agents' replies from `script`.
async fn run(crew: &str, script: &str) -> Result<Gated, crewgraph::api::ApiError> {
    let dir = tempfile::tempdir().unwrap();
    let (crew_path, script_path): (PathBuf, PathBuf) = (dir.path().join("crew.yaml"), dir.path().join("replies.yaml"));
    std::fs::write(&crew_path, crew).unwrap();
    std::fs::write(&script_path, script).unwrap();
    let store = Arc::new(MemoryStore::new());
    let api = Api::new(dir.path())
        .with_store(store.clone())
        .with_time(Arc::new(SteppingClock::new(START, 1)), Arc::new(SequentialIds::default()));
    let sink = Arc::new(CollectingSink::default());
    let options = RunOptions { script: Some(ScriptSource::File(script_path)), model: None, requested_agent: None, ..RunOptions::default() };
    let cancel = CancellationToken::new();
    let started = api.start_run(&crew_path, "A polished three-line note on bees", &options, sink.clone(), &cancel);
    let outcome = tokio::time::timeout(LIMIT, started).await.expect("the run ends within the limit")?;
    let events = sink.events();
    let stored = store.events(&outcome.run_id, None).await.unwrap();
    assert_eq!(stored, events, "every event is stored, in order");
    Ok(Gated { outcome, events })
}

/// Answers by decision number: writer, then editor, then complete.
fn two_agents(_: usize, body: &Value) -> Answer {
    Answer::ok(match body["iteration"].as_u64() {
        Some(1) => route("writer", "Write a three-line note on bees.", "A draft comes first."),
        Some(2) => route("editor", "Polish this note.", "The draft needs polish."),
        _ => complete(),
    })
}

#[tokio::test]
async fn gatekeeper_decisions_carry_the_work_through_two_agents_to_completion() {
    let gatekeeper = Gatekeeper::start(two_agents);
    let ran = run(&desk(&gatekeeper.url, ""), &replies()).await.expect("the run starts");
    assert_eq!(finished(&ran.events), (RunStatus::Completed, None));
    assert_eq!((ran.outcome.handoffs, ran.outcome.steps), (2, 3));
    assert_eq!(ran.outcome.final_agent.as_ref().map(|a| a.as_str()), Some("editor"));
    assert_eq!(
        handoffs(&ran.events),
        ["lead → writer: A draft comes first. (confidence 0.9)", "writer → editor: The draft needs polish. (confidence 0.9)"]
    );
    let chosen: Vec<(String, String)> = decisions(&ran.events).into_iter().map(|(s, c, _)| (s, c)).collect();
    assert_eq!(
        chosen,
        [("gatekeeper".into(), "writer".into()), ("gatekeeper".into(), "editor".into()), ("gatekeeper".into(), "complete".into())]
    );

    let seen = gatekeeper.seen();
    assert_eq!(seen.len(), 3, "one POST per decision");
    assert!(seen[0].head.starts_with("POST /route HTTP/1.1"), "{}", seen[0].head);
    assert!(seen[0].head.to_ascii_lowercase().contains("content-type: application/json"));
    assert!(!seen[0].head.to_ascii_lowercase().contains("authorization"), "no token configured, none sent");
    let first = &seen[0].body;
    assert_eq!(first["original_query"], "A polished three-line note on bees");
    assert_eq!(
        first["workflow_history"],
        json!([{"agent_id": "lead", "action": "Plan: the writer drafts, the editor polishes.", "timestamp": first["workflow_history"][0]["timestamp"]}])
    );
    assert_eq!(first["current_output"], "Plan: the writer drafts, the editor polishes.");
    assert_eq!(
        first["available_agents"],
        json!([
            {"agent_id": "writer", "name": "Writer", "role": "Writes short notes", "description": "", "capabilities": ["prose"]},
            {"agent_id": "editor", "name": "Editor", "role": "Polishes notes", "description": "", "capabilities": ["editing"]}
        ]),
        "every agent but the supervisor"
    );
    assert_eq!((first["iteration"].as_u64(), first["max_iterations"].as_u64()), (Some(1), Some(10)));
    let third = &seen[2].body;
    let history: Vec<&str> = third["workflow_history"].as_array().unwrap().iter().map(|s| s["agent_id"].as_str().unwrap()).collect();
    assert_eq!(history, ["lead", "writer", "editor"]);
    assert!(third.get("rejected").is_none());
}

#[tokio::test]
async fn workflow_complete_at_once_ends_the_run_after_the_entry_agent() {
    let gatekeeper = Gatekeeper::start(|_, _| Answer::ok(complete()));
    let ran = run(&desk(&gatekeeper.url, ""), &replies()).await.expect("the run starts");
    assert_eq!(finished(&ran.events), (RunStatus::Completed, None));
    assert_eq!((ran.outcome.handoffs, ran.outcome.steps), (0, 1));
    assert_eq!(ran.outcome.final_agent.as_ref().map(|a| a.as_str()), Some("lead"));
    assert_eq!(decisions(&ran.events), [("gatekeeper".into(), "complete".into(), None)], "a gatekeeper need not give reasoning");
}

#[tokio::test]
async fn a_slow_answer_times_out_and_the_retry_succeeds() {
    let gatekeeper = Gatekeeper::start(|number, body| Answer {
        delay: if number == 0 { Duration::from_secs(3) } else { Duration::ZERO },
        ..two_agents(number, body)
    });
    let ran = run(&desk(&gatekeeper.url, ""), &replies()).await.expect("the run starts");
    assert_eq!(finished(&ran.events), (RunStatus::Completed, None));
    let seen = gatekeeper.seen();
    assert_eq!(seen.len(), 4, "the late first try, then one per decision");
    assert_eq!(seen[0].body, seen[1].body, "the same question again");
    assert!(warnings(&ran.events).is_empty(), "a retry that succeeds is no news");
}

#[tokio::test]
async fn server_errors_are_retried_then_the_run_fails_naming_the_gatekeeper() {
    let gatekeeper = Gatekeeper::start(|_, _| Answer { delay: Duration::ZERO, status: 500, body: "boom: database down".into() });
    let ran = run(&desk(&gatekeeper.url, ""), &replies()).await.expect("the run starts");
    let (status, error) = finished(&ran.events);
    assert_eq!(status, RunStatus::Failed);
    assert_eq!(
        error.as_deref(),
        Some(
            format!(
                "the gatekeeper gave no decision: {} answered 500 Internal Server Error: boom: database down (3 tries)",
                gatekeeper.url
            )
            .as_str()
        )
    );
    assert_eq!(gatekeeper.seen().len(), 3, "retries: 2");
    assert_eq!(ran.outcome.steps, 1, "the entry agent's turn is kept");
}

#[tokio::test]
async fn a_refusal_is_not_retried() {
    let gatekeeper = Gatekeeper::start(|_, _| Answer { delay: Duration::ZERO, status: 401, body: r#"{"error": "who are you?"}"#.into() });
    let ran = run(&desk(&gatekeeper.url, ""), &replies()).await.expect("the run starts");
    let (status, error) = finished(&ran.events);
    assert_eq!(status, RunStatus::Failed);
    assert!(error.as_deref().unwrap().contains("answered 401 Unauthorized"), "{error:?}");
    assert_eq!(gatekeeper.seen().len(), 1);
}

#[tokio::test]
async fn garbage_is_asked_again_then_fails_with_the_raw_answer_kept() {
    let gatekeeper = Gatekeeper::start(|number, _| Answer::ok(format!("<html>gateway {number} lost its mind</html>")));
    let ran = run(&desk(&gatekeeper.url, ""), &replies()).await.expect("the run starts");
    let (status, error) = finished(&ran.events);
    assert_eq!(status, RunStatus::Failed);
    let error = error.unwrap();
    assert!(error.starts_with("the gatekeeper gave no valid decision in two tries: the answer is not JSON"), "{error}");
    assert!(error.ends_with("Its last answer: <html>gateway 1 lost its mind</html>"), "{error}");
    let warnings = warnings(&ran.events);
    assert!(warnings[0].contains("<html>gateway 0 lost its mind</html>"), "{warnings:?}");
    let seen = gatekeeper.seen();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[1].body["rejected"]["answer"], "<html>gateway 0 lost its mind</html>", "the second POST says what was refused");
    assert!(seen[1].body["rejected"]["problem"].as_str().unwrap().starts_with("the answer is not JSON"));
}

#[tokio::test]
async fn an_unknown_agent_is_asked_again_and_a_valid_answer_goes_on() {
    let gatekeeper = Gatekeeper::start(|number, body| match number {
        0 => Answer::ok(route("judge", "Judge it.", "A judge should look.")),
        _ => two_agents(number, body),
    });
    let ran = run(&desk(&gatekeeper.url, ""), &replies()).await.expect("the run starts");
    assert_eq!(finished(&ran.events), (RunStatus::Completed, None));
    assert!(warnings(&ran.events)[0].contains("'judge', which is not an agent of this crew"), "{:?}", warnings(&ran.events));

    // Named twice: the run fails, saying which agent.
    let gatekeeper = Gatekeeper::start(|_, _| Answer::ok(route("judge", "Judge it.", "A judge should look.")));
    let ran = run(&desk(&gatekeeper.url, ""), &replies()).await.expect("the run starts");
    let (status, error) = finished(&ran.events);
    assert_eq!(status, RunStatus::Failed);
    assert!(error.as_deref().unwrap().contains("'judge', which is not an agent of this crew"), "{error:?}");
}

#[tokio::test]
async fn the_bearer_token_reaches_the_gatekeeper_and_nowhere_in_the_events() {
    const TOKEN: &str = "gk-test-5ecret-never-stored-4242";
    const VAR: &str = "CREWGRAPH_TEST_GATEKEEPER_TOKEN_A1";
    std::env::set_var(VAR, TOKEN);
    // The first answer echoes the header back, as a careless service might.
    let gatekeeper = Gatekeeper::start(|number, body| match number {
        0 => Answer::ok(format!("unauthorized? you sent Bearer {TOKEN}")),
        _ => two_agents(number, body),
    });
    let ran = run(&desk(&gatekeeper.url, &format!("\n    token_env: {VAR}")), &replies()).await.expect("the run starts");
    assert_eq!(finished(&ran.events), (RunStatus::Completed, None));
    let seen = gatekeeper.seen();
    let bearer = |s: &Seen| {
        s.head.lines().any(|l| l.to_ascii_lowercase().starts_with("authorization:") && l.trim_end().ends_with(&format!(" Bearer {TOKEN}")))
    };
    assert!(seen.iter().all(bearer), "{:?}", seen[0].head);
    let stored = serde_json::to_string(&ran.events).unwrap();
    assert!(!stored.contains(TOKEN), "the token is in no stored event");
    assert!(stored.contains("you sent Bearer [hidden]"), "the echo is kept, blanked");
}

#[tokio::test]
async fn a_gatekeeper_url_that_is_not_http_or_does_not_resolve_stops_the_run_before_it_starts() {
    // Not http(s): the crew itself is invalid, at the line and column of the URL.
    let error = run(&desk("ftp://127.0.0.1/route", ""), &replies()).await.err().expect("the run does not start");
    assert_eq!(error.code, ApiErrorCode::InvalidCrew);
    assert!(
        error.message.contains("routing.gatekeeper.url 'ftp://127.0.0.1/route' is not an http:// or https:// address"),
        "{}",
        error.message
    );
    // A name that does not resolve: found when the run is about to start.
    let error = run(&desk("http://gatekeeper.invalid/route", ""), &replies()).await.err().expect("the run does not start");
    assert_eq!(error.code, ApiErrorCode::InvalidInput);
    assert!(error.message.starts_with("the gatekeeper URL 'http://gatekeeper.invalid/route' does not resolve"), "{}", error.message);
}

#[tokio::test]
async fn a_gatekeeper_that_is_not_listening_fails_the_run_after_its_retries() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}/route");
    let ran = run(&desk(&url, ""), &replies()).await.expect("an address needs no lookup: the run starts");
    let (status, error) = finished(&ran.events);
    assert_eq!(status, RunStatus::Failed);
    let error = error.unwrap();
    let said = format!("the gatekeeper gave no decision: nothing answers at 127.0.0.1:{port} — is the gatekeeper running?");
    assert!(error.starts_with(&said) && error.ends_with("(3 tries)"), "{error}");
}

#[tokio::test]
async fn a_run_cancelled_while_the_gatekeeper_thinks_ends_cancelled_at_once() {
    let gatekeeper = Gatekeeper::start(|_, _| Answer { delay: Duration::from_secs(20), ..Answer::ok(complete()) });
    let dir = tempfile::tempdir().unwrap();
    let (crew, replies_path) = (dir.path().join("crew.yaml"), dir.path().join("replies.yaml"));
    std::fs::write(&crew, desk(&gatekeeper.url, "").replace("timeout: 500ms", "timeout: 30s")).unwrap();
    std::fs::write(&replies_path, replies()).unwrap();
    let api = Api::new(dir.path()).with_store(Arc::new(MemoryStore::new()));
    let sink = Arc::new(CollectingSink::default());
    let cancel = CancellationToken::new();
    let stop = cancel.clone();
    let waiting = gatekeeper.seen.clone();
    tokio::spawn(async move {
        while waiting.lock().unwrap().is_empty() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        stop.cancel();
    });
    let options =
        RunOptions { script: Some(ScriptSource::File(replies_path)), model: None, requested_agent: None, ..RunOptions::default() };
    let started = std::time::Instant::now();
    let outcome = tokio::time::timeout(LIMIT, api.start_run(&crew, "A note", &options, sink.clone(), &cancel)).await.unwrap().unwrap();
    assert_eq!(outcome.status, RunStatus::Cancelled);
    assert!(started.elapsed() < Duration::from_secs(10), "it did not wait for the answer: {:?}", started.elapsed());
    assert_eq!(finished(&sink.events()), (RunStatus::Cancelled, None));
}

/// The agents' replies and, under `gatekeeper:`, the gatekeeper's `answers`.
fn replies_and_answers(answers: &[String]) -> String {
    let mut text = replies() + "  gatekeeper:\n";
    for answer in answers {
        text.push_str(&format!("    - {}\n", serde_json::to_string(answer).unwrap()));
    }
    text
}

#[tokio::test]
async fn a_script_that_answers_for_the_gatekeeper_needs_no_service() {
    // Nothing could answer at this name: a run that asked it would not even start.
    let answers = [
        route("writer", "Write a three-line note on bees.", "A draft comes first."),
        route("editor", "Polish this note.", "The draft needs polish."),
        complete(),
    ];
    let ran = run(&desk("http://gatekeeper.invalid/route", ""), &replies_and_answers(&answers)).await.expect("the run starts");
    assert_eq!(finished(&ran.events), (RunStatus::Completed, None));
    assert_eq!(
        handoffs(&ran.events),
        ["lead → writer: A draft comes first. (confidence 0.9)", "writer → editor: The draft needs polish. (confidence 0.9)"]
    );
    let chosen: Vec<String> = decisions(&ran.events).into_iter().map(|(strategy, chosen, _)| format!("{strategy}:{chosen}")).collect();
    assert_eq!(chosen, ["gatekeeper:writer", "gatekeeper:editor", "gatekeeper:complete"]);
}

#[tokio::test]
async fn scripted_answers_are_refused_and_ended_on_exactly_as_a_services_are() {
    // The same answers from a service and from a script: the same events, byte for
    // byte (one parser, one run loop).
    let answers = ["Sure! The writer, I think.".to_owned(), r#"{"workflow_complete": maybe}"#.to_owned()];
    let served = answers.clone();
    let gatekeeper = Gatekeeper::start(move |number, _| Answer::ok(served[number.min(1)].clone()));
    let over_http = run(&desk(&gatekeeper.url, ""), &replies()).await.expect("the run starts");
    let scripted = run(&desk(&gatekeeper.url, ""), &replies_and_answers(&answers)).await.expect("the run starts");
    assert_eq!(gatekeeper.seen().len(), 2, "the scripted run asked the service nothing");
    let (status, error) = finished(&scripted.events);
    assert_eq!(status, RunStatus::Failed);
    assert!(error.unwrap().starts_with("the gatekeeper gave no valid decision in two tries: the answer is not JSON"));
    assert_eq!(serde_json::to_value(&scripted.events).unwrap(), serde_json::to_value(&over_http.events).unwrap());

    // An unknown agent, then a good answer: refused once, and the run goes on.
    let answers = [route("judge", "Judge it.", "A judge should look."), route("writer", "Write it.", "Drafting."), complete()];
    let ran = run(&desk(&gatekeeper.url, ""), &replies_and_answers(&answers)).await.expect("the run starts");
    assert_eq!(finished(&ran.events), (RunStatus::Completed, None));
    assert!(warnings(&ran.events)[0].contains("'judge', which is not an agent of this crew"), "{:?}", warnings(&ran.events));
}

#[tokio::test]
async fn a_script_out_of_gatekeeper_answers_fails_the_run_saying_where_to_add_one() {
    let answers = [route("writer", "Write it.", "Drafting.")];
    let ran = run(&desk("http://gatekeeper.invalid/route", ""), &replies_and_answers(&answers)).await.expect("the run starts");
    assert_eq!(
        finished(&ran.events),
        (
            RunStatus::Failed,
            Some("the gatekeeper gave no decision: the script has no answer left for the gatekeeper (decision 2: add one under `gatekeeper:`)".into())
        )
    );
}

#[test]
fn a_gatekeeper_run_through_the_binary_prints_its_reasons() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let gatekeeper = runtime.block_on(async { Gatekeeper::start(two_agents) });
    let sandbox = Sandbox::new();
    let crew = sandbox.write("desk.yaml", &desk(&gatekeeper.url, ""));
    let replies = sandbox.write("replies.yaml", &replies());
    let run = sandbox.cg(&["run", crew.to_str().unwrap(), "--input", "A note on bees", "--script", replies.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    for line in [
        "lead → writer because A draft comes first. (confidence 0.9) (handoff 1)",
        "writer → editor because The draft needs polish. (confidence 0.9) (handoff 2)",
        "■ completed · last agent editor · 2 handoffs · 3 steps",
    ] {
        assert!(run.stdout.contains(line), "{line:?} in:\n{}", run.stdout);
    }
    assert_eq!(gatekeeper.seen().len(), 3);
    drop(runtime);
}

/// The decisions of a `run --json` transcript: `(strategy, chosen, reasoning)`.
fn printed_decisions(stdout: &str) -> Vec<(String, String, String)> {
    stdout
        .lines()
        .map(crate::e2e::parse)
        .filter(|e| e["type"] == "routing_decision")
        .map(|e| {
            let text = |key: &str| e[key].as_str().unwrap_or_default().to_owned();
            (text("strategy"), text("chosen"), text("reasoning"))
        })
        .collect()
}

#[test]
fn a_crewgraph_serve_process_is_the_gatekeeper_of_the_example_desk_run_through_the_cli() {
    // crews/gatekeeper-desk.yaml as it ships, asking a real `crewgraph serve` (on a
    // free port instead of 7878); the script answers for the agents only, so every
    // decision comes over HTTP from the server's keyword gatekeeper.
    let sandbox = Sandbox::new();
    std::fs::create_dir(sandbox.path("crews")).unwrap();
    let crews = sandbox.path("crews");
    let mut serve = sandbox.spawn(&["serve", "--addr", "127.0.0.1:0", "--crews", crews.to_str().unwrap()]);
    let listening = serve.read_until(|line| line.starts_with("crewgraph serve: listening on "));
    let address = listening.trim_start_matches("crewgraph serve: listening on http://").to_owned();
    let example = std::fs::read_to_string(crate::support::repo_root().join("crews/gatekeeper-desk.yaml")).unwrap();
    assert!(example.contains("http://127.0.0.1:7878/gatekeeper"), "the example asks serve's default address");
    let crew = sandbox.write("gatekeeper-desk.yaml", &example.replace("127.0.0.1:7878", &address));
    let agents = script(&[
        ("desk", vec!["The customer was charged twice for one invoice and wants a refund.".into()]),
        ("billing", vec!["The second charge was a duplicate. I refunded it: the money is back on the card in 3 to 5 days.".into()]),
    ]);
    let replies = sandbox.write("agents.yaml", &agents);
    let request = "I was charged twice on my invoice and want a refund";
    let run = sandbox.cg(&["run", crew.to_str().unwrap(), "--input", request, "--script", replies.to_str().unwrap(), "--json"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let decisions = printed_decisions(&run.stdout);
    assert_eq!(decisions.len(), 2, "{decisions:?}");
    let (strategy, chosen, why) = &decisions[0];
    assert_eq!((strategy.as_str(), chosen.as_str()), ("gatekeeper", "billing"));
    assert!(why.starts_with("billing scores ") && why.ends_with("(tech 0, shipping 0)."), "the server's keyword scores: {why}");
    let (_, chosen, why) = &decisions[1];
    assert_eq!(chosen, "complete");
    assert!(why.starts_with("No agent that has not worked yet shares a word"), "{why}");
    let last = crate::e2e::parse(run.stdout.lines().last().unwrap());
    assert_eq!((last["status"].as_str(), last["final_agent"].as_str()), (Some("completed"), Some("billing")), "{last}");

    serve.signal(libc::SIGTERM);
    let (status, stderr) = serve.finish();
    assert!(status.success(), "crewgraph serve stops cleanly: {stderr}");
}
