//! What the tests share: the stores under test ([`Subject`], made fresh per test by
//! [`memory`], [`sqlite`] and [`postgres`]), and [`Run`], a run written step by step that keeps
//! what a correct store must then hold.

use std::sync::Arc;
use std::time::Duration;

use crewgraph_engine::crew::Strategy;
use crewgraph_engine::ids::{AgentId, RunId, SignalName};
use crewgraph_engine::run::{
    Candidate, EventKind, MemoryStore, Message, RunEvent, RunRecord, RunSnapshot, RunStatus, RunStore, StepRecord, StoreError, StoredRun,
    Timestamp, ToolCall, Turn, Usage,
};
use crewgraph_engine::signal::{Behavior, MatchLevel};
use crewgraph_store::{SqliteStore, StoreOptions};
use tempfile::TempDir;

/// A fresh, empty store under test.
pub struct Subject {
    pub store: Arc<dyn RunStore>,
    /// The SQLite file's folder, removed when the test ends (after the store closed).
    pub _dir: Option<TempDir>,
}

/// The in-memory store of the engine.
pub fn memory() -> Subject {
    Subject { store: Arc::new(MemoryStore::new()), _dir: None }
}

/// The SQLite store on a new file in a temporary folder.
pub fn sqlite() -> Subject {
    let dir = temp_dir();
    let store = open_sqlite(&dir.path().join("crewgraph.db"));
    Subject { store: Arc::new(store), _dir: Some(dir) }
}

/// The PostgreSQL store on a new database (named after the test) of the server
/// this test binary started.
pub async fn postgres(test: &str) -> Subject {
    let url = crewgraph_store_postgres::testing::shared().database(test).await.unwrap_or_else(|err| panic!("{err}"));
    let store = crewgraph_store_postgres::PostgresStore::connect(&url).await.unwrap_or_else(|err| panic!("opening {url}: {err}"));
    Subject { store: Arc::new(store), _dir: None }
}

pub fn temp_dir() -> TempDir {
    tempfile::tempdir().expect("a temporary folder for the test")
}

/// Opens a SQLite store with a short busy timeout, so lock tests are quick.
pub fn open_sqlite(path: &std::path::Path) -> SqliteStore {
    SqliteStore::open_with(path, &quick()).unwrap_or_else(|err| panic!("opening {}: {err}", path.display()))
}

pub fn quick() -> StoreOptions {
    StoreOptions { busy_timeout: Duration::from_millis(200) }
}

/// A reply of `len` bytes (the benchmark's 240-byte reply, for instance).
pub fn reply(len: usize) -> String {
    "The answer, in full: ".chars().cycle().take(len).collect()
}

/// A run written step by step; it holds what the store must hold once the steps
/// it [`Run::accept`]ed are stored.
#[derive(Clone, Debug)]
pub struct Run {
    pub record: RunRecord,
    pub snapshot: RunSnapshot,
    pub history: Vec<Message>,
    pub events: Vec<RunEvent>,
    /// The options the last step that had them stored.
    pub options: Option<String>,
}

impl Run {
    /// A run not yet stored, created at `created_at` ms.
    pub fn new(id: &str, created_at: u64) -> Run {
        let record = RunRecord {
            id: RunId::from(id),
            crew_name: "Quiz «crew»".into(),
            crew_path: Some(format!("crews/{id}.yaml")),
            crew_fingerprint: format!("fp-{id}"),
            input: format!("Ask me about {id} ✓"),
            created_at: Timestamp(created_at),
            forked_from: None,
        };
        let snapshot = RunSnapshot::starting(AgentId::from("teacher"), Timestamp(created_at));
        Run { record, snapshot, history: Vec::new(), events: Vec::new(), options: None }
    }

    pub fn id(&self) -> &RunId {
        &self.record.id
    }

    /// The next step with these events and messages, continuing the run (not accepted).
    pub fn step(&self, kinds: Vec<EventKind>, messages: Vec<Message>) -> StepRecord {
        let start = self.snapshot.next_seq;
        let events: Vec<RunEvent> = kinds
            .into_iter()
            .enumerate()
            .map(|(i, kind)| {
                let seq = start + i as u64;
                RunEvent { kind, run_id: self.record.id.clone(), seq, timestamp: Timestamp(self.record.created_at.0 + 10 * seq) }
            })
            .collect();
        let mut snapshot = self.snapshot.clone();
        snapshot.next_seq = start + events.len() as u64;
        snapshot.history_len = self.snapshot.history_len + messages.len() as u32;
        snapshot.steps += 1;
        snapshot.updated_at = events.last().map_or(snapshot.updated_at, |e| e.timestamp);
        StepRecord { run_id: self.record.id.clone(), events, history: messages, snapshot, contexts: Vec::new(), options: None }
    }

    /// The first step: the run starts, the person's input goes into the history.
    pub fn start(&self) -> StepRecord {
        let kinds = vec![
            EventKind::RunStarted { crew: self.record.crew_name.clone(), input: self.record.input.clone() },
            EventKind::AgentStarted { agent: AgentId::from("teacher"), step: 1 },
        ];
        let mut step = self.step(kinds, vec![Message::user(self.record.input.clone())]);
        step.snapshot.steps = 0;
        step
    }

    /// An agent's turn ending in a handoff to the other agent, as the loop writes it.
    pub fn handoff(&self, content: &str) -> StepRecord {
        let from = self.snapshot.current_agent.clone();
        let to = AgentId::from(if from == "teacher" { "student" } else { "teacher" });
        let count = self.snapshot.handoffs + 1;
        let kinds = vec![
            EventKind::AgentStarted { agent: from.clone(), step: self.snapshot.steps + 1 },
            EventKind::AgentResponse {
                agent: from.clone(),
                content: content.to_owned(),
                usage: Some(Usage { input_tokens: 40, output_tokens: 9, cost_usd: Some(0.000_2) }),
            },
            EventKind::Handoff { from: from.clone(), to: to.to_string(), reason: "signal [NEXT] (exact)".into(), handoff_count: count },
        ];
        let mut step = self.step(kinds, vec![Message::agent(&from, content)]);
        step.snapshot.current_agent = to;
        step.snapshot.handoffs = count;
        step.snapshot.tokens.input_tokens += 40;
        step.snapshot.tokens.output_tokens += 9;
        step.snapshot.tokens.cost_usd = Some(step.snapshot.tokens.cost_usd.unwrap_or(0.0) + 0.000_2);
        step.snapshot.recent.push(Turn { agent: from, reply: format!("{:x}", content.len()) });
        if step.snapshot.recent.len() > 4 {
            step.snapshot.recent.remove(0);
        }
        step
    }

    /// Takes the step as stored: the run now holds it.
    pub fn accept(&mut self, step: &StepRecord) {
        self.events.extend(step.events.iter().cloned());
        self.history.extend(step.history.iter().cloned());
        self.snapshot = step.snapshot.clone();
        if step.options.is_some() {
            self.options = step.options.clone();
        }
    }

    /// Creates the run with its first step, and accepts that step.
    pub async fn create(&mut self, store: &dyn RunStore) -> Result<(), StoreError> {
        let first = self.start();
        store.create_run(&self.record, &first).await?;
        self.accept(&first);
        Ok(())
    }

    /// Appends `step`, and accepts it when the store took it.
    pub async fn append(&mut self, store: &dyn RunStore, step: StepRecord) -> Result<(), StoreError> {
        store.append_step(&step).await?;
        self.accept(&step);
        Ok(())
    }

    /// What `load_run` must return.
    pub fn stored(&self) -> StoredRun {
        StoredRun {
            record: self.record.clone(),
            snapshot: self.snapshot.clone(),
            history: self.history.clone(),
            options: self.options.clone(),
        }
    }

    /// Asserts the store holds exactly this run: record, snapshot, history, events.
    pub async fn assert_stored(&self, store: &dyn RunStore) {
        let loaded = store.load_run(self.id()).await.expect("load_run");
        assert_eq!(loaded.as_ref(), Some(&self.stored()), "the stored run of '{}'", self.id());
        let events = store.events(self.id(), None).await.expect("events");
        assert_eq!(events, self.events, "the events of '{}'", self.id());
    }
}

/// `runs` runs written at once, each from its own task and each waiting for its
/// step to be stored before the next, as the engine writes them: run `i` is named
/// `name(i)`, created at 1_795_000_000_000 + i ms, and hands off `steps` times with
/// `content(i, turn)` as the reply. Returns the runs as they should be stored.
pub async fn write_at_once(
    store: Arc<dyn RunStore>,
    runs: usize,
    steps: usize,
    name: fn(usize) -> String,
    content: fn(usize, usize) -> String,
) -> Vec<Run> {
    let tasks: Vec<_> = (0..runs)
        .map(|i| {
            let store = store.clone();
            tokio::spawn(async move {
                let mut run = Run::new(&name(i), 1_795_000_000_000 + i as u64);
                run.create(&*store).await.unwrap();
                for turn in 0..steps {
                    let step = run.handoff(&content(i, turn));
                    run.append(&*store, step).await.unwrap();
                }
                run
            })
        })
        .collect();
    let mut written = Vec::with_capacity(runs);
    for task in tasks {
        written.push(task.await.unwrap());
    }
    written
}

/// One event kind of each variant, with awkward text: unicode, quotes, newlines,
/// JSON arguments, optional fields both present and absent.
pub fn every_event_kind() -> Vec<EventKind> {
    let a = AgentId::from("teacher");
    vec![
        EventKind::RunStarted { crew: "Quiz «crew»".into(), input: "line one\nline \"two\" ✓".into() },
        EventKind::AgentStarted { agent: a.clone(), step: 7 },
        EventKind::Token { agent: a.clone(), text: " tok\u{0}en\t".into() },
        EventKind::ToolCall {
            agent: a.clone(),
            name: "calculator".into(),
            arguments: serde_json::json!({"expr": "2+2", "nested": [1, 2.5, null, {"x": true}]}),
        },
        EventKind::ToolResult { agent: a.clone(), name: "calculator".into(), result: "4".into() },
        EventKind::AgentResponse { agent: a.clone(), content: "Question 1? [QUESTION] 🙂".into(), usage: None },
        EventKind::SignalMatched {
            agent: a.clone(),
            signal: SignalName::from("[QUESTION]"),
            level: MatchLevel::Normalized,
            behavior: Behavior::Route,
            target: Some("student".into()),
            payload: Some("payload".into()),
        },
        EventKind::SignalMatched {
            agent: a.clone(),
            signal: SignalName::from("[DONE]"),
            level: MatchLevel::Exact,
            behavior: Behavior::Terminate,
            target: None,
            payload: None,
        },
        EventKind::RouteMissed {
            agent: a.clone(),
            candidates: vec![crewgraph_engine::signal::NearMiss {
                signal: "[QUESTION]".into(),
                found: "[QUESTON «»]".into(),
                kind: crewgraph_engine::signal::MissKind::Misspelt,
                distance: 2,
            }],
        },
        EventKind::Handoff { from: a.clone(), to: "student".into(), reason: "signal [QUESTION] (exact)".into(), handoff_count: 3 },
        EventKind::RoutingDecision {
            strategy: Strategy::Scoring,
            candidates: Some(vec![
                Candidate { agent: AgentId::from("math"), score: 12 },
                Candidate { agent: AgentId::from("art"), score: 0 },
            ]),
            chosen: "math".into(),
            reasoning: Some("most tags".into()),
            tokens: Some(vec!["sum".into(), "numbers".into()]),
        },
        EventKind::RoutingDecision { strategy: Strategy::Llm, candidates: None, chosen: "art".into(), reasoning: None, tokens: None },
        EventKind::ParallelStarted { group: "reviewers".into(), agents: vec![AgentId::from("r1"), AgentId::from("r2")] },
        EventKind::ParallelFinished {
            group: "reviewers".into(),
            finished: vec![AgentId::from("r1")],
            timed_out: vec![AgentId::from("r2")],
        },
        EventKind::HistoryTrimmed { agent: a.clone(), dropped: 4 },
        EventKind::Paused { agent: a.clone(), signal: Some(SignalName::from("[ASK]")), breakpoint: false },
        EventKind::Paused { agent: a.clone(), signal: None, breakpoint: true },
        EventKind::BreakpointsSet { agents: vec![a.clone(), AgentId::from("student")] },
        EventKind::ToolProgress { agent: a.clone(), name: "files.read_text_file".into(), progress: 2.0, total: Some(5.0), message: None },
        EventKind::ToolProgress { agent: a.clone(), name: "clock.wait".into(), progress: 0.5, total: None, message: Some("half".into()) },
        EventKind::ToolApprovalRequested {
            agent: a.clone(),
            call_id: "call-7".into(),
            name: "files.write_file".into(),
            arguments: serde_json::json!({"path": "notes/«summary».md", "content": "3/4\n"}),
        },
        EventKind::ToolApproval { call_id: "call-7".into(), decision: crewgraph_engine::run::ToolDecision::AllowRun, reason: None },
        EventKind::ToolApproval {
            call_id: "call-9".into(),
            decision: crewgraph_engine::run::ToolDecision::Deny,
            reason: Some("not there".into()),
        },
        EventKind::Resumed { agent: a.clone(), input: "go on".into() },
        EventKind::Warning { message: "target 'ghost' does not exist".into() },
        EventKind::LoopDetected { agents: vec![a.clone(), AgentId::from("student")], repeats: 3 },
        EventKind::RunFinished {
            status: RunStatus::Failed,
            final_agent: Some(a.clone()),
            error: Some("the model said no".into()),
            handoffs: 2,
            steps: 5,
        },
        EventKind::RunFinished { status: RunStatus::Completed, final_agent: None, error: None, handoffs: 0, steps: 1 },
    ]
}

/// Which variant a kind is. The match has no wildcard: a new variant of the engine
/// stops this from compiling until [`every_event_kind`] covers it too.
pub fn variant(kind: &EventKind) -> usize {
    match kind {
        EventKind::RunStarted { .. } => 0,
        EventKind::AgentStarted { .. } => 1,
        EventKind::Token { .. } => 2,
        EventKind::ToolCall { .. } => 3,
        EventKind::ToolResult { .. } => 4,
        EventKind::AgentResponse { .. } => 5,
        EventKind::SignalMatched { .. } => 6,
        EventKind::Handoff { .. } => 7,
        EventKind::RoutingDecision { .. } => 8,
        EventKind::ParallelStarted { .. } => 9,
        EventKind::ParallelFinished { .. } => 10,
        EventKind::HistoryTrimmed { .. } => 11,
        EventKind::Paused { .. } => 12,
        EventKind::Resumed { .. } => 13,
        EventKind::Warning { .. } => 14,
        EventKind::LoopDetected { .. } => 15,
        EventKind::RunFinished { .. } => 16,
        EventKind::ToolProgress { .. } => 17,
        EventKind::ToolApprovalRequested { .. } => 18,
        EventKind::ToolApproval { .. } => 19,
        EventKind::RouteMissed { .. } => 20,
        EventKind::BreakpointsSet { .. } => 21,
    }
}

/// How many variants [`variant`] knows.
pub const VARIANTS: usize = 22;

/// One message of each shape the history holds.
pub fn every_message_shape() -> Vec<Message> {
    let a = AgentId::from("teacher");
    let call = ToolCall { id: "call-1".into(), name: "calculator".into(), arguments: serde_json::json!({"expr": "6*7"}) };
    let mut asks = Message::agent(&a, "Let me compute.");
    asks.tool_calls.push(call.clone());
    vec![Message::user("Start «here» ✓\n"), asks, Message::tool(&a, &call, "42"), Message::agent(&a, "")]
}
