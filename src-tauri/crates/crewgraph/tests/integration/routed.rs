//! The `llm` routing strategy (DESIGN.md §5, issue 4): a router model decides after
//! each agent's turn. The agents and the router answer from one script (the router
//! under `router`), through a recording wrapper that keeps every request as the
//! model got it — so the tests can show what each agent saw (its task only: no
//! signals, no catalog, no other agent's work) and what the router was told after
//! a refused answer. Then the router against the real local model (llama-server
//! with SmolLM2), held to the decision schema; and a Simulate-mode run through the
//! binary. Every case ends with a clear status within a time limit.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use crewgraph_engine::routing::decider::{self, catalog, DecisionContext, RouteDecider, WorkflowStep};
use crewgraph_engine::routing::llm::{LlmRouter, ROUTER_AGENT};
use crewgraph_engine::run::llm::TokenSink;
use crewgraph_engine::run::{
    resume_run, start_run, CollectingSink, CrewSource, EventKind, LlmClient, LlmError, LlmReply, LlmRequest, MemoryStore, Message,
    OutputSchema, RunDeps, RunError, RunEvent, RunRecord, RunStatus, RunStore, RunSummary, SequentialIds, StepRecord, SteppingClock,
    StoreError, StoredRun,
};
use crewgraph_engine::{AgentId, Crew, ModelSpec, RunId};
use crewgraph_llm::{LocalModel, Script, ScriptedLlm};
use tokio_util::sync::CancellationToken;

use crate::e2e::Sandbox;
use crate::runner::{crew, Ran, START};

/// The longest a scripted run may take before the test calls it hung.
const LIMIT: Duration = Duration::from_secs(30);

/// A lead who takes the request, a writer and an editor; the router decides.
const NOTE_DESK: &str = r#"
name: Note desk
entry_point: lead
routing:
  strategy: llm
  max_iterations: 6
  router: { model: fast, max_tokens: 300 }
agents:
  - { id: lead, name: Lead, role: Plans the work, system_prompt: "You plan the work." }
  - { id: writer, name: Writer, role: Writes short notes, tags: [prose], system_prompt: "You write short notes." }
  - { id: editor, name: Editor, role: Polishes notes, tags: [editing], system_prompt: "You polish notes." }
"#;

const REQUEST: &str = "A polished three-line note on bees";

/// One request as the model got it.
#[derive(Clone, Debug)]
pub(crate) struct Asked {
    agent: AgentId,
    system: String,
    pub(crate) messages: Vec<Message>,
    schema: Option<OutputSchema>,
    model: Option<ModelSpec>,
    max_tokens: Option<u32>,
    signals: Vec<crewgraph_engine::run::Ending>,
}

/// A model that keeps every request it is asked, then lets `inner` answer.
pub(crate) struct Recording<L> {
    inner: L,
    asked: Mutex<Vec<Asked>>,
}

impl<L> Recording<L> {
    pub(crate) fn new(inner: L) -> Self {
        Recording { inner, asked: Mutex::new(Vec::new()) }
    }

    /// The requests so far, in order.
    fn asked(&self) -> Vec<Asked> {
        self.asked.lock().unwrap().clone()
    }

    /// The requests of one agent (`router` for the router).
    pub(crate) fn of(&self, agent: &str) -> Vec<Asked> {
        self.asked().into_iter().filter(|a| a.agent == *agent).collect()
    }
}

#[async_trait]
impl<L: LlmClient> LlmClient for Recording<L> {
    async fn complete(&self, request: &LlmRequest<'_>, on_token: TokenSink<'_>, cancel: &CancellationToken) -> Result<LlmReply, LlmError> {
        self.asked.lock().unwrap().push(Asked {
            agent: request.agent.clone(),
            system: request.system.to_owned(),
            messages: request.messages.to_vec(),
            schema: request.schema.cloned(),
            model: request.model.cloned(),
            max_tokens: request.max_tokens,
            signals: request.signals.to_vec(),
        });
        self.inner.complete(request, on_token, cancel).await
    }
}

/// A router answer routing to `agent` with `instruction`.
fn route(agent: &str, instruction: &str, reasoning: &str) -> String {
    serde_json::json!({"workflow_complete": false, "reasoning": reasoning, "next_agent": agent, "next_instruction": instruction})
        .to_string()
}

/// A router answer completing the workflow.
fn complete(reasoning: &str) -> String {
    serde_json::json!({"workflow_complete": true, "reasoning": reasoning, "next_agent": null, "next_instruction": null}).to_string()
}

/// A script of `replies` per agent.
pub fn script(replies: &[(&str, Vec<String>)]) -> String {
    let mut text = String::from("replies:\n");
    for (agent, lines) in replies {
        text.push_str(&format!("  {agent}:\n"));
        for line in lines {
            text.push_str(&format!("    - {}\n", serde_json::to_string(line).unwrap()));
        }
    }
    text
}

/// Runs `crew` on `input` with the agents' and the router's replies from `script`.
async fn run_llm(crew: &Crew, script: &str, input: &str) -> (Ran, Arc<Recording<ScriptedLlm>>) {
    let llm = Arc::new(Recording::new(ScriptedLlm::new(&Script::parse("script.yaml", script).expect("test script parses"))));
    (run_on(crew, llm.clone(), input).await, llm)
}

/// Runs `crew` on `input` against `llm`, in memory, within [`LIMIT`].
async fn run_on(crew: &Crew, llm: Arc<dyn LlmClient>, input: &str) -> Ran {
    let (deps, store, sink) = crate::runner::deps_with(llm);
    let source = CrewSource { path: None, fingerprint: "test".into() };
    let outcome = tokio::time::timeout(LIMIT, start_run(crew, &source, input, &deps, &CancellationToken::new()))
        .await
        .expect("the run ends within the limit")
        .expect("the run starts");
    Ran { outcome, events: sink.events(), store, deps }
}

/// `run_finished`'s status and error.
pub fn finished(events: &[RunEvent]) -> (RunStatus, Option<String>) {
    match &events.last().expect("events").kind {
        EventKind::RunFinished { status, error, .. } => (*status, error.clone()),
        other => panic!("the last event is {other:?}, not run_finished"),
    }
}

/// Each `routing_decision`'s strategy, choice and reasoning.
pub fn decisions(events: &[RunEvent]) -> Vec<(String, String, Option<String>)> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::RoutingDecision { strategy, chosen, reasoning, candidates, .. } => {
                assert!(candidates.is_none(), "no scores under llm or gatekeeper");
                Some((serde_json::to_value(strategy).unwrap().as_str().unwrap().to_owned(), chosen.clone(), reasoning.clone()))
            }
            _ => None,
        })
        .collect()
}

/// Each handoff as `from → to: reason`.
pub fn handoffs(events: &[RunEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Handoff { from, to, reason, .. } => Some(format!("{from} → {to}: {reason}")),
            _ => None,
        })
        .collect()
}

/// Every `warning` message.
pub fn warnings(events: &[RunEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Warning { message } => Some(message.clone()),
            _ => None,
        })
        .collect()
}

/// The normal path, used by several tests: lead → writer → editor → complete.
fn the_whole_desk() -> String {
    script(&[
        ("lead", vec!["Plan: the writer drafts, the editor polishes.".into()]),
        ("writer", vec!["Bees make honey. They dance. They pollinate.".into()]),
        ("editor", vec!["Bees make honey.\nThey dance to share directions.\nThey pollinate our crops.".into()]),
        (
            ROUTER_AGENT,
            vec![
                route("writer", "Write a three-line note on bees.", "A draft is needed first."),
                route("editor", "Polish this note: Bees make honey. They dance. They pollinate.", "The draft needs polish."),
                complete("The note is polished: the request is satisfied."),
            ],
        ),
    ])
}

#[tokio::test]
async fn the_router_hands_the_work_on_until_it_completes_the_workflow() {
    let crew = crew(NOTE_DESK);
    let (ran, llm) = run_llm(&crew, &the_whole_desk(), REQUEST).await;
    assert_eq!(finished(&ran.events), (RunStatus::Completed, None));
    assert_eq!(ran.outcome.final_agent, Some(AgentId::from("editor")), "the last agent that worked");
    assert_eq!((ran.outcome.handoffs, ran.outcome.steps), (2, 3), "one step per agent turn");
    assert_eq!(
        decisions(&ran.events),
        [
            ("llm".into(), "writer".into(), Some("A draft is needed first.".into())),
            ("llm".into(), "editor".into(), Some("The draft needs polish.".into())),
            ("llm".into(), "complete".into(), Some("The note is polished: the request is satisfied.".into())),
        ]
    );
    assert_eq!(handoffs(&ran.events), ["lead → writer: A draft is needed first.", "writer → editor: The draft needs polish."]);
    assert_eq!(ran.stored().await, ran.events, "every event is stored, in order");

    // The router sees the request, the workflow so far, the output, the catalog and
    // the iteration count, and must answer with the decision schema.
    let router = llm.of(ROUTER_AGENT);
    assert_eq!(router.len(), 3);
    let second = &router[1].messages[0].content;
    for part in [
        "ORIGINAL REQUEST:\nA polished three-line note on bees",
        "WORKFLOW HISTORY (decision 2 of at most 6):\n1. lead\n   Action: Plan: the writer drafts, the editor polishes.",
        "2. writer\n   Action: Bees make honey. They dance. They pollinate.",
        "CURRENT OUTPUT (from writer):\nBees make honey. They dance. They pollinate.",
        "- writer (Writer): Writes short notes [capabilities: prose]",
        "- editor (Editor): Polishes notes [capabilities: editing]",
    ] {
        assert!(second.contains(part), "{part:?} in:\n{second}");
    }
    assert!(!second.contains("- lead"), "the supervisor is not in the catalog");
    let schema = router[0].schema.as_ref().expect("structured output");
    assert_eq!(schema.name, "route_decision");
    assert_eq!(schema.schema["properties"]["next_agent"]["enum"], serde_json::json!(["writer", "editor", null]));
    assert_eq!(router[0].model, Some(ModelSpec::named("fast")), "routing.router.model");
    assert_eq!(router[0].max_tokens, Some(300), "routing.router.max_tokens: a decision's room");
    let history = ran.store.load_run(&ran.outcome.run_id).await.unwrap().unwrap().history;
    assert_eq!(history.iter().filter(|m| m.content.starts_with("Request: ")).count(), 2, "each task is kept in the history");
}

#[tokio::test]
async fn agents_are_blind_to_routing_they_see_only_the_request_and_their_task() {
    let crew = crew(NOTE_DESK);
    let (ran, llm) = run_llm(&crew, &the_whole_desk(), REQUEST).await;
    assert_eq!(ran.outcome.status, RunStatus::Completed);
    let lead = &llm.of("lead")[0];
    assert_eq!(lead.messages, [Message::user(REQUEST)], "the entry point works on the person's input alone");
    let writer = &llm.of("writer")[0];
    assert_eq!(writer.system, "You write short notes.", "the agent's own prompt, with no signal instructions");
    assert_eq!(
        writer.messages,
        [Message::user(format!("Request: {REQUEST}\n\nYour task: Write a three-line note on bees."))],
        "one message: the request and the router's instruction — not the lead's plan"
    );
    let editor = &llm.of("editor")[0];
    assert_eq!(editor.messages.len(), 1);
    for agent in [lead, writer, editor] {
        assert!(agent.signals.is_empty() && agent.schema.is_none(), "{}: no signals, no schema", agent.agent);
        let seen = format!("{} {:?}", agent.system, agent.messages);
        for routing in ["AVAILABLE AGENTS", "WORKFLOW HISTORY", "[NEXT]", "[DONE]", "next_agent", "editor (Editor)"] {
            assert!(!seen.contains(routing), "{} saw {routing:?}: {seen}", agent.agent);
        }
    }
}

#[tokio::test]
async fn an_unknown_agent_is_refused_and_the_router_is_asked_again_with_the_error() {
    let crew = crew(NOTE_DESK);
    let unknown = route("judge", "Judge the plan.", "A judge should look.");
    let replies = script(&[
        ("lead", vec!["Plan: write it.".into()]),
        ("writer", vec!["Bees make honey.".into()]),
        (ROUTER_AGENT, vec![unknown.clone(), route("writer", "Write the note.", "Writing is next."), complete("Done.")]),
    ]);
    let (ran, llm) = run_llm(&crew, &replies, REQUEST).await;
    assert_eq!(finished(&ran.events), (RunStatus::Completed, None));
    let warnings = warnings(&ran.events);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("'judge', which is not an agent of this crew") && warnings[0].contains("asked once more"),
        "{}",
        warnings[0]
    );
    assert!(warnings[0].contains(&unknown), "the raw answer is in the warning: {}", warnings[0]);
    let retry = &llm.of(ROUTER_AGENT)[1];
    assert_eq!(retry.messages.len(), 3, "the context, its refused answer, the correction");
    assert_eq!(retry.messages[1], Message::agent(&AgentId::from(ROUTER_AGENT), unknown), "its own answer, as its turn");
    let correction = &retry.messages[2].content;
    assert!(correction.contains("'judge', which is not an agent of this crew (choose one of: writer, editor)"), "{correction}");
    assert_eq!(decisions(&ran.events).len(), 2, "a refused answer is no decision");
    assert_eq!(ran.outcome.handoffs, 1);
}

#[tokio::test]
async fn malformed_json_twice_fails_the_run_with_the_raw_answers_kept() {
    let crew = crew(NOTE_DESK);
    let first = "Next, the writer should write the note.";
    let second = r#"{"workflow_complete": maybe}"#;
    let replies = script(&[("lead", vec!["Plan: write it.".into()]), (ROUTER_AGENT, vec![first.into(), second.into()])]);
    let (ran, llm) = run_llm(&crew, &replies, REQUEST).await;
    let (status, error) = finished(&ran.events);
    assert_eq!(status, RunStatus::Failed);
    let error = error.expect("an error");
    assert!(error.starts_with("the router model gave no valid decision in two tries: the answer is not JSON"), "{error}");
    assert!(error.ends_with(&format!("Its last answer: {second}")), "{error}");
    let stored = serde_json::to_string(&ran.stored().await).unwrap();
    for raw in [first, second] {
        assert!(stored.contains(&serde_json::to_string(raw).unwrap().trim_matches('"').to_owned()), "{raw} is kept in the stored events");
    }
    assert_eq!(warnings(&ran.events).len(), 2);
    assert_eq!(llm.of(ROUTER_AGENT).len(), 2, "retried once, not more");
    assert_eq!((ran.outcome.steps, ran.outcome.handoffs), (1, 0));
    assert_eq!(ran.outcome.final_agent, Some(AgentId::from("lead")));
    assert!(decisions(&ran.events).is_empty());
}

#[tokio::test]
async fn a_router_naming_the_supervisor_is_refused_like_an_unknown_agent() {
    let crew = crew(NOTE_DESK);
    let back = route("lead", "Plan again.", "The plan is thin.");
    let replies = script(&[("lead", vec!["Plan: write it.".into()]), (ROUTER_AGENT, vec![back.clone(), back])]);
    let (ran, llm) = run_llm(&crew, &replies, REQUEST).await;
    let (status, error) = finished(&ran.events);
    assert_eq!(status, RunStatus::Failed);
    assert!(error.as_deref().unwrap().contains("names 'lead', the supervisor"), "{error:?}");
    assert!(llm.of(ROUTER_AGENT)[1].messages[2].content.contains("the supervisor"), "the router was told why");
    assert_eq!(llm.of("lead").len(), 1, "the supervisor never worked again");
}

#[tokio::test]
async fn a_decision_missing_its_instruction_is_refused() {
    let crew = crew(NOTE_DESK);
    let missing = r#"{"workflow_complete": false, "reasoning": "x", "next_agent": "writer"}"#;
    let replies =
        script(&[("lead", vec!["Plan.".into()]), ("writer", vec!["Note.".into()]), (ROUTER_AGENT, vec![missing.into(), complete("ok")])]);
    let (ran, _) = run_llm(&crew, &replies, REQUEST).await;
    assert_eq!(ran.outcome.status, RunStatus::Completed);
    assert!(warnings(&ran.events)[0].contains("`next_instruction` is missing"), "{:?}", warnings(&ran.events));
}

#[tokio::test]
async fn max_iterations_bounds_the_decisions_and_the_error_says_so() {
    let crew = crew(&NOTE_DESK.replace("max_iterations: 6", "max_iterations: 2"));
    let replies = script(&[
        ("lead", vec!["Plan.".into()]),
        ("writer", vec!["Draft.".into()]),
        (ROUTER_AGENT, vec![route("writer", "Write it.", "first"), route("editor", "Polish it.", "second")]),
    ]);
    let (ran, llm) = run_llm(&crew, &replies, REQUEST).await;
    let (status, error) = finished(&ran.events);
    assert_eq!(status, RunStatus::MaxHandoffs, "the limit on transfers, by another name");
    let error = error.expect("the reason");
    assert!(
        error.starts_with(
            "max_iterations (2) reached: the router model made 2 decisions and still asked for more work (editor: Polish it.)"
        ),
        "{error}"
    );
    assert_eq!(decisions(&ran.events).len(), 2, "the second decision is made and shown");
    assert_eq!((ran.outcome.handoffs, ran.outcome.steps), (1, 2), "its handoff is refused");
    assert!(llm.of("editor").is_empty());
    assert_eq!(ran.outcome.final_agent, Some(AgentId::from("writer")));
}

#[tokio::test]
async fn the_limit_is_max_iterations_not_max_handoffs() {
    // max_handoffs is 5 by default; six decisions must still be possible.
    let crew = crew(NOTE_DESK);
    let mut router: Vec<String> =
        (1..=5).map(|i| route(if i % 2 == 1 { "writer" } else { "editor" }, &format!("Round {i}."), "more")).collect();
    router.push(complete("enough"));
    let replies = script(&[
        ("lead", vec!["Plan.".into()]),
        ("writer", vec!["w1".into(), "w2".into(), "w3".into()]),
        ("editor", vec!["e1".into(), "e2".into()]),
        (ROUTER_AGENT, router),
    ]);
    let (ran, _) = run_llm(&crew, &replies, REQUEST).await;
    assert_eq!(finished(&ran.events), (RunStatus::Completed, None));
    assert_eq!((ran.outcome.handoffs, ran.outcome.steps), (5, 6));
}

#[tokio::test]
async fn an_agent_asked_for_the_same_thing_again_is_a_loop() {
    let replies = |router: Vec<String>| {
        script(&[
            ("lead", vec!["Plan.".into()]),
            ("writer", vec!["Draft one.".into(), "Draft two.".into()]),
            ("editor", vec!["Edited.".into(), "Edited again.".into()]),
            (ROUTER_AGENT, router),
        ])
    };
    let router = vec![
        route("writer", "Write the note.", "draft"),
        route("editor", "Polish the note.", "polish"),
        route("writer", "write the  note.", "redraft"),
        complete("fine"),
    ];
    // Reported, and the run goes on (on_loop: warn, the default).
    let (ran, _) = run_llm(&crew(NOTE_DESK), &replies(router.clone()), REQUEST).await;
    assert_eq!(finished(&ran.events), (RunStatus::Completed, None));
    let loops: Vec<_> = ran.of("loop_detected").into_iter().map(|e| e.kind.clone()).collect();
    assert_eq!(loops, [EventKind::LoopDetected { agents: vec![AgentId::from("editor"), AgentId::from("writer")], repeats: 2 }]);
    // With on_loop: stop, the run ends there.
    let stop = NOTE_DESK.replace("  max_iterations: 6", "  max_iterations: 6\n  on_loop: stop");
    let (ran, llm) = run_llm(&crew(&stop), &replies(router), REQUEST).await;
    assert_eq!(finished(&ran.events), (RunStatus::LoopDetected, None));
    assert_eq!(ran.outcome.handoffs, 2, "the repeated handoff is not made");
    assert_eq!(llm.of("writer").len(), 1);
}

#[tokio::test]
async fn a_router_model_that_fails_ends_the_run_failed_with_its_error() {
    let crew = crew(NOTE_DESK);
    let replies = "replies:\n  lead: [Plan.]\n  router: [{ error: provider unavailable }]\n";
    let (ran, llm) = run_llm(&crew, replies, REQUEST).await;
    assert_eq!(
        finished(&ran.events),
        (RunStatus::Failed, Some("the router model gave no decision: scripted: provider unavailable".into()))
    );
    assert_eq!(llm.of(ROUTER_AGENT).len(), 1, "a provider failure is not a bad answer: the provider retries its own");
}

/// A memory store whose disk "fills up" after `keep` appended steps: the run stops
/// where a crash would leave it, its status still `running`.
struct FillingStore {
    inner: MemoryStore,
    keep: AtomicUsize,
}

#[async_trait]
impl RunStore for FillingStore {
    async fn create_run(&self, record: &RunRecord, first: &StepRecord) -> Result<(), StoreError> {
        self.inner.create_run(record, first).await
    }
    async fn append_step(&self, step: &StepRecord) -> Result<(), StoreError> {
        if self.keep.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |k| k.checked_sub(1)).is_err() {
            return Err(StoreError::Io("the disk is full".into()));
        }
        self.inner.append_step(step).await
    }
    async fn load_run(&self, id: &RunId) -> Result<Option<StoredRun>, StoreError> {
        self.inner.load_run(id).await
    }
    async fn list_runs(&self) -> Result<Vec<RunSummary>, StoreError> {
        self.inner.list_runs().await
    }
    async fn events(&self, id: &RunId, after: Option<u64>) -> Result<Vec<RunEvent>, StoreError> {
        self.inner.events(id, after).await
    }
    async fn claim(&self, id: &RunId, from: &[RunStatus]) -> Result<bool, StoreError> {
        self.inner.claim(id, from).await
    }
    async fn lease(&self, id: &RunId, owner: &str, ttl: std::time::Duration) -> Result<crewgraph_engine::run::LeaseOutcome, StoreError> {
        self.inner.lease(id, owner, ttl).await
    }
    async fn release(&self, id: &RunId, owner: &str) -> Result<bool, StoreError> {
        self.inner.release(id, owner).await
    }
    async fn contexts(&self, id: &RunId) -> Result<Option<Vec<crewgraph_engine::run::seen::AgentContext>>, StoreError> {
        self.inner.contexts(id).await
    }
    async fn runnable(&self) -> Result<Vec<RunId>, StoreError> {
        self.inner.runnable().await
    }
}

#[tokio::test]
async fn an_interrupted_llm_run_resumes_with_its_workflow_and_the_agents_task() {
    let crew = crew(NOTE_DESK);
    let store = Arc::new(FillingStore { inner: MemoryStore::new(), keep: AtomicUsize::new(1) });
    let wiring = |llm: Arc<dyn LlmClient>, sink: Arc<CollectingSink>| RunDeps {
        llm,
        store: store.clone(),
        sink,
        clock: Arc::new(SteppingClock::new(START, 1000)),
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
    // The lead's step is stored; the writer's is not.
    let first = Arc::new(Recording::new(ScriptedLlm::new(&Script::parse("s.yaml", &the_whole_desk()).unwrap())));
    let deps = wiring(first.clone(), Arc::new(CollectingSink::default()));
    let stopped = start_run(&crew, &CrewSource::default(), REQUEST, &deps, &CancellationToken::new()).await;
    assert!(matches!(stopped, Err(RunError::Store(StoreError::Io(_)))), "{stopped:?}");
    let id = RunId::from("run-1");
    let kept = store.load_run(&id).await.unwrap().unwrap();
    assert_eq!((kept.snapshot.status, kept.snapshot.current_agent.as_str()), (RunStatus::Running, "writer"));
    let lead_replied =
        store.events(&id, None).await.unwrap().into_iter().find(|e| e.kind.type_name() == "agent_response").unwrap().timestamp;

    let rest = script(&[("writer", vec!["Bees make honey. They dance.".into()]), (ROUTER_AGENT, vec![complete("Good enough.")])]);
    let second = Arc::new(Recording::new(ScriptedLlm::new(&Script::parse("s.yaml", &rest).unwrap())));
    store.keep.store(usize::MAX, Ordering::SeqCst);
    let sink = Arc::new(CollectingSink::default());
    let deps = wiring(second.clone(), sink.clone());
    let outcome = tokio::time::timeout(LIMIT, resume_run(&crew, &CrewSource::default(), &id, None, &deps, &CancellationToken::new()))
        .await
        .unwrap()
        .expect("it resumes");
    assert_eq!(outcome.status, RunStatus::Completed);
    assert_eq!(second.of("writer")[0].messages, first.of("writer")[0].messages, "the writer is given its task again");
    let router = &second.of(ROUTER_AGENT)[0].messages[0].content;
    let lead_step = format!("1. lead\n   Action: Plan: the writer drafts, the editor polishes.\n   Time: {lead_replied}\n2. writer");
    assert!(router.contains(&lead_step), "the workflow before the interruption, with its times: {router}");
    assert!(router.contains("WORKFLOW HISTORY (decision 2 of at most 6)"), "{router}");
}

#[tokio::test]
async fn a_gatekeeper_crew_without_a_gatekeeper_does_not_start() {
    let crew = crew(&NOTE_DESK.replace("strategy: llm", "strategy: gatekeeper\n  gatekeeper: { url: 'http://127.0.0.1:9/route' }"));
    let llm = Arc::new(ScriptedLlm::new(&Script::parse("s.yaml", "replies:\n  lead: [x]\n").unwrap()));
    let deps = RunDeps {
        llm,
        store: Arc::new(MemoryStore::new()),
        sink: Arc::new(CollectingSink::default()),
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
    let started = start_run(&crew, &CrewSource::default(), REQUEST, &deps, &CancellationToken::new()).await;
    assert!(matches!(started, Err(RunError::NoGatekeeper)), "{started:?}");
    assert!(deps.store.list_runs().await.unwrap().is_empty(), "nothing was stored");
}

#[test]
fn a_simulated_llm_run_through_the_binary_scripts_the_router() {
    let sandbox = Sandbox::new();
    let crew = sandbox.write("desk.yaml", NOTE_DESK);
    let replies = sandbox.write("replies.yaml", &the_whole_desk());
    let run = sandbox.cg(&["run", crew.to_str().unwrap(), "--input", REQUEST, "--script", replies.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("lead → writer because A draft is needed first. (handoff 1)"), "{}", run.stdout);
    assert!(run.stdout.contains("router chose complete: The note is polished"), "{}", run.stdout);
    assert!(run.stdout.contains("■ completed · last agent editor · 2 handoffs · 3 steps"), "{}", run.stdout);
}

/// Router requests go to the local model; the agents' to their script.
struct LocalRouter {
    local: LocalModel,
    agents: ScriptedLlm,
}

#[async_trait]
impl LlmClient for LocalRouter {
    async fn complete(&self, request: &LlmRequest<'_>, on_token: TokenSink<'_>, cancel: &CancellationToken) -> Result<LlmReply, LlmError> {
        if request.agent.as_str() == ROUTER_AGENT {
            self.local.complete(request, on_token, cancel).await
        } else {
            self.agents.complete(request, on_token, cancel).await
        }
    }
}

/// How long the local model may take for one decision on a busy 2-core machine.
const LOCAL_LIMIT: Duration = Duration::from_secs(240);

#[tokio::test]
async fn the_local_model_decides_with_the_schema_and_a_run_on_it_ends_clearly() {
    let crew = crew(NOTE_DESK);
    let local = LocalModel::new();
    assert!(local.available().is_ok(), "the local model is set up (scripts/setup-local-model.sh): {:?}", local.available().err());
    let llm: Arc<dyn LlmClient> = Arc::new(local);
    let context = DecisionContext {
        original_query: REQUEST.into(),
        workflow_history: vec![WorkflowStep::new(&AgentId::from("lead"), "Plan: the writer drafts, the editor polishes.", START)],
        current_agent: AgentId::from("lead"),
        current_output: "Plan: the writer drafts, the editor polishes.".into(),
        available_agents: catalog(&crew),
        iteration: 1,
        max_iterations: 6,
    };
    let router = LlmRouter::new(llm, None);
    let decision = tokio::time::timeout(LOCAL_LIMIT, router.decide(&context, None, &CancellationToken::new()))
        .await
        .expect("the local model decides within the limit")
        .expect("its answer parses into a decision");
    // The schema holds next_agent to the catalog, so the choice is always usable,
    // however silly.
    let next = decider::check(&crew, &decision).expect("the decision names a crew agent or completes");
    println!("the local model decided {next:?}: {}", decision.raw);

    // A whole run with the local model routing three scripted agents: whatever it
    // decides, the run ends with a clear status.
    let agents = script(&[
        ("lead", vec!["Plan: the writer drafts, the editor polishes.".into()]),
        ("writer", vec!["Bees make honey. They dance. They pollinate.".into(); 3]),
        ("editor", vec!["Bees make honey.\nThey dance.\nThey pollinate crops.".into(); 3]),
    ]);
    let crew = crewgraph_engine::load_str(
        "desk.yaml",
        // The default model (the local one), with room for a decision (128 tokens cut most off).
        &NOTE_DESK.replace("max_iterations: 6", "max_iterations: 3").replace("{ model: fast, max_tokens: 300 }", "{ max_tokens: 384 }"),
    )
    .crew
    .unwrap();
    let llm = Arc::new(Recording::new(LocalRouter {
        local: LocalModel::new(),
        agents: ScriptedLlm::new(&Script::parse("s.yaml", &agents).unwrap()),
    }));
    let store = Arc::new(MemoryStore::new());
    let sink = Arc::new(CollectingSink::default());
    let deps = RunDeps {
        llm: llm.clone(),
        store,
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
    let outcome =
        tokio::time::timeout(3 * LOCAL_LIMIT, start_run(&crew, &CrewSource::default(), REQUEST, &deps, &CancellationToken::new()))
            .await
            .expect("the run ends within the limit")
            .expect("the run starts");
    println!("{}", crate::runner::trace(&sink.events()));
    match outcome.status {
        RunStatus::Completed | RunStatus::MaxHandoffs | RunStatus::LoopDetected => {}
        RunStatus::Failed => {
            let error = outcome.error.as_deref().unwrap_or_default();
            assert!(
                error.contains("gave no valid decision in two tries") || error.contains("has no reply left"),
                "a clean failure: {error}"
            );
        }
        other => panic!("an unexpected end: {other:?} {:?}", outcome.error),
    }
    assert!(outcome.steps <= 3, "max_iterations 3 bounds the turns");
    assert!(!llm.of(ROUTER_AGENT).is_empty());
}
