//! Running crews in tests, deterministically: a crew written inline (or a file),
//! replies from an inline script, an in-memory store, a stepping clock and
//! sequential ids, every event collected. The trace is then the same bytes on every
//! run, on any machine.

use std::sync::Arc;

use crewgraph_engine::load::load_str;
use crewgraph_engine::run::{
    start_run, CollectingSink, CrewSource, LlmClient, MemoryStore, RunDeps, RunEvent, RunOutcome, RunStore, SequentialIds, SteppingClock,
    Timestamp,
};
use crewgraph_engine::Crew;
use crewgraph_llm::{Script, ScriptedLlm};
use tokio_util::sync::CancellationToken;

/// 2026-11-28T10:00:00.000Z, the start of every test run's clock.
pub const START: Timestamp = Timestamp(1_795_860_000_000);

/// A crew from YAML text; panics (the test's own mistake) when it has errors.
pub fn crew(yaml: &str) -> Crew {
    let loaded = load_str("crew.yaml", yaml);
    assert!(loaded.is_valid(), "test crew has errors: {:#?}", loaded.diagnostics);
    loaded.crew.expect("valid crews have a crew")
}

/// What a test run left behind.
pub struct Ran {
    pub outcome: RunOutcome,
    /// Every event the sink saw, in order.
    pub events: Vec<RunEvent>,
    pub store: Arc<MemoryStore>,
    pub deps: RunDeps,
}

impl Ran {
    /// The `type` of each event, in order.
    pub fn types(&self) -> Vec<&'static str> {
        self.events.iter().map(|e| e.kind.type_name()).collect()
    }

    /// The events of one type.
    pub fn of(&self, type_name: &str) -> Vec<&RunEvent> {
        self.events.iter().filter(|e| e.kind.type_name() == type_name).collect()
    }

    /// The run's events as stored.
    pub async fn stored(&self) -> Vec<RunEvent> {
        self.store.events(&self.outcome.run_id, None).await.expect("the run is stored")
    }
}

/// Wiring for a run with replies from `script`.
pub fn deps(script: &str) -> (RunDeps, Arc<MemoryStore>, Arc<CollectingSink>) {
    let script = Script::parse("script.yaml", script).expect("test script parses");
    deps_with(Arc::new(ScriptedLlm::new(&script)))
}

/// Wiring for a run whose model is `llm`.
pub fn deps_with(llm: Arc<dyn LlmClient>) -> (RunDeps, Arc<MemoryStore>, Arc<CollectingSink>) {
    let store = Arc::new(MemoryStore::new());
    let sink = Arc::new(CollectingSink::default());
    let deps = RunDeps {
        llm,
        store: store.clone(),
        sink: sink.clone(),
        clock: Arc::new(SteppingClock::new(START, 1)),
        ids: Arc::new(SequentialIds::default()),
        http: None,
        tool_host: None,
        approvals: Default::default(),
        notices: Vec::new(),
        gatekeeper: None,
        breaks: Default::default(),
        fork: None,
        executor: None,
    };
    (deps, store, sink)
}

/// Runs `crew` on `input` with replies from `script`.
pub async fn run(crew: &Crew, script: &str, input: &str) -> Ran {
    run_with(crew, script, input, &CancellationToken::new()).await
}

/// [`run`], with a cancellation token the test controls.
pub async fn run_with(crew: &Crew, script: &str, input: &str, cancel: &CancellationToken) -> Ran {
    let (deps, store, sink) = deps(script);
    let source = CrewSource { path: None, fingerprint: "test".into() };
    let outcome = start_run(crew, &source, input, &deps, cancel).await.expect("the run starts");
    Ran { outcome, events: sink.events(), store, deps }
}

/// A trace as text: one JSON event per line.
pub fn trace(events: &[RunEvent]) -> String {
    events.iter().map(|e| serde_json::to_string(e).expect("events serialize")).collect::<Vec<_>>().join("\n")
}

#[test]
#[ignore = "prints sizes; run by hand"]
fn future_sizes() {
    let crew = crew("name: x\nentry_point: a\nagents:\n  - { id: a, is_terminal: true }\n");
    let (deps, _, _) = deps("replies:\n  a: [hi]\n");
    let cancel = CancellationToken::new();
    let source = CrewSource::default();
    let fut = start_run(&crew, &source, "go", &deps, &cancel);
    println!("start_run future: {} bytes", std::mem::size_of_val(&fut));
}
