//! The operations of Crewgraph as one typed API, the same for the window (Tauri), the
//! HTTP server and the CLI, so all three behave alike. Each operation is declared
//! once ([`operation::Operation`], listed in [`operations`]): the window's command,
//! the HTTP route, its OpenAPI operation and the UI's TypeScript types come from that
//! declaration. Operations take and return plain data (the types re-exported here);
//! failures are an [`ApiError`] (`{code, message}` across every boundary). Which
//! crews an API reaches, and how its answers name them, is its [`Reach`]: any path
//! in the window and the CLI, only the crews folder in a server.
//!
//! Opening a crew never fails because the crew is broken: a broken crew comes back
//! as a [`CrewDocument`] whose `problems` say what is wrong and where, so the window
//! can show it. Only a missing examples folder is an error.
//!
//! A run either runs to its end in the caller ([`Api::start_run`], the CLI), or in
//! the background of a long-lived host ([`Api::spawn_run`], the HTTP server):
//! [`LiveRuns`] keeps those, to cancel, watch ([`Api::watch_run`]: stored events,
//! then live ones) or interrupt them. In a cluster ([`Cluster`], docs/scale-out.md)
//! an API node opens each leg and queues it ([`Api::with_queue`]), a worker
//! executes what the queue hands it ([`Api::execute_queued`]), and watchers on any
//! node follow runs executed anywhere.

mod agents;
mod batches;
mod calling;
mod coverage;
mod coverage_report;
mod crewai;
mod crews;
mod database;
mod editor;
mod error;
mod explain;
mod fetch;
mod fork;
mod gatekeeper;
mod hub;
mod keyword_gatekeeper;
mod live;
mod models;
pub mod operation;
pub mod operations;
mod pulled;
mod queued;
mod reach;
mod recording;
mod remote;
mod revisions;
mod routing;
mod runs;
mod scripted_gatekeeper;
mod seen;
mod tool_servers;
mod traces;
mod try_agent;
mod types;
mod validation;
mod watch;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crewgraph_engine::run::{Clock, HttpFetch, IdSource, RandomIds, RunStore, SystemClock};
use crewgraph_llm::LocalModel;
use crewgraph_mcp::McpHost;

pub use agents::{AgentStore, RuntimeAgentView, MAX_AGENT_BYTES};
pub use batches::{forward_batches, RunBatch, WatchEnd, FRAME};
pub use calling::{outside_name, waiting_run, Call, CallNews, CallOutcome, GoOn, Waiting, SIMULATE};
pub use coverage::ProbesText;
pub use coverage_report::{AgentCoverage, ArrowCoverage, CrewTest, ProbeResult, ScenarioResult, TestMode};
pub use crewai::{import_crewai, read_crewai_project, CrewAiFiles, ImportedCrew};
pub use database::database_path;
pub use editor::{CheckCrew, EditableCrew, Position, RecentCrew, SaveCrew, SavedCrew, RECENT_CREWS};
pub use error::{ApiError, ApiErrorCode};
pub use explain::ReplyExplanation;
pub use fetch::WebFetch;
pub use fork::ForkAt;
pub use gatekeeper::{GatekeeperClient, GatekeeperError};
pub use keyword_gatekeeper::{decide_by_keywords, GatekeeperAgent, GatekeeperAnswer, GatekeeperQuestion, GatekeeperStep, RefusedAnswer};
pub use live::{LiveRuns, DEFAULT_LIVE_CAPACITY};
pub use models::{ModelRequest, ModelView, SettingsStore};
pub use operation::{Method, Operation, Route};
pub use operations::{ApproveToolCall, ForkRun, Replies, ResumeRun, RunAccepted, RunDetail, StartRun};
pub use pulled::{PulledWatches, FORGOTTEN_AFTER, GATHERED_AT_MOST};
pub use queued::{Cluster, LegOptions};
pub use reach::{CrewsRoot, Reach};
pub use recording::{read_recording, Recording, RECORDING_FORMAT, RECORDING_VERSION};
pub use revisions::{CrewStore, RevisionDiff, RevisionSpec, RevisionView};
pub use routing::{check_query, RouteResult};
pub use runs::{fingerprint, RunOptions, ScriptSource};
pub use scripted_gatekeeper::ScriptedGatekeeper;
pub use seen::{SeenCall, StepContext};
pub use tool_servers::{server_of, ImportedServers, ServerCheck, ServerTools, ToolInfo, ToolServerView};
pub use traces::{TraceSettings, TraceStatus, TracesView};
pub use try_agent::{TriedReply, TryMessage};
pub use types::{AgentView, CrewDocument, CrewSummary, MatchResult, ProblemView};
pub use validation::Validation;
pub use watch::{RunWatch, WatchItem};

/// Crewgraph's operations, over one folder of crews and (for runs) one store.
#[derive(Clone)]
pub struct Api {
    crews_dir: PathBuf,
    store: Option<Arc<dyn RunStore>>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdSource>,
    http: Option<Arc<dyn HttpFetch>>,
    settings: Option<Arc<dyn SettingsStore>>,
    agents: Option<Arc<dyn AgentStore>>,
    crew_store: Option<Arc<dyn CrewStore>>,
    /// The local model, one server for every run of this API.
    local: Arc<LocalModel>,
    /// The tool servers, started once for every run of this API.
    tool_host: Arc<McpHost>,
    /// The app's tool servers as last read (their tools are no unknown tools to a
    /// crew's validation).
    app_servers: Arc<std::sync::RwLock<Vec<crewgraph_engine::crew::ToolServer>>>,
    /// The runs going on in the background of this API (shared by its clones).
    live: Arc<LiveRuns>,
    /// Which crews it reaches, and how it names them.
    reach: Arc<Reach>,
    /// Where its runs' traces go (docs/observability.md).
    traces: Arc<traces::Traces>,
    /// Who its runs' legs are executed by, when the store is shared with other
    /// machines: each leg then holds its run's lease (docs/scale-out.md). None: a
    /// store of this process's own, no leases.
    executor: Option<crewgraph_engine::run::Executor>,
    /// The cluster it is part of, and its part: an API node handing runs to a
    /// queue, or a worker executing them (docs/scale-out.md). None: it executes
    /// every run it is asked to itself.
    cluster: Option<(Arc<queued::Cluster>, queued::Part)>,
}

impl Api {
    /// An API whose example crews live in `crews_dir`, with no store yet.
    pub fn new(crews_dir: impl Into<PathBuf>) -> Self {
        Self {
            crews_dir: crews_dir.into(),
            store: None,
            clock: Arc::new(SystemClock),
            ids: Arc::new(RandomIds),
            http: WebFetch::new().ok().map(|f| Arc::new(f) as Arc<dyn HttpFetch>),
            settings: None,
            agents: None,
            crew_store: None,
            local: Arc::new(LocalModel::new()),
            tool_host: Arc::new(McpHost::new(std::env::temp_dir().join("crewgraph-tool-logs"))),
            app_servers: Arc::default(),
            live: LiveRuns::new(DEFAULT_LIVE_CAPACITY),
            reach: Arc::new(Reach::Anywhere),
            traces: Arc::default(),
            executor: None,
            cluster: None,
        }
    }

    /// Runs' legs are executed by `executor`: each holds its run's lease, so another
    /// machine sharing the store cannot execute the run at the same time.
    pub fn with_executor(mut self, executor: crewgraph_engine::run::Executor) -> Self {
        self.executor = Some(executor);
        self
    }

    /// Keeps settings (the configured models among them) in `settings`.
    pub fn with_settings(mut self, settings: Arc<dyn SettingsStore>) -> Self {
        self.settings = Some(settings);
        self
    }

    /// Keeps everything in one SQLite store: runs, settings, runtime agents, crew
    /// revisions; tool servers write their logs to `tool-logs/` beside it.
    pub fn with_sqlite(self, store: Arc<crewgraph_store::SqliteStore>) -> Self {
        let logs = store.path().parent().unwrap_or(std::path::Path::new(".")).join("tool-logs");
        self.with_store(store.clone()).with_settings(store.clone()).with_agents(store.clone()).with_crew_store(store).with_tool_logs(logs)
    }

    /// Keeps everything in one PostgreSQL database, shared with the other machines
    /// that open it: runs, settings, runtime agents, crew revisions (`docs/scale-out.md`).
    pub fn with_postgres(self, store: Arc<crewgraph_store_postgres::PostgresStore>) -> Self {
        self.with_store(store.clone()).with_settings(store.clone()).with_agents(store.clone()).with_crew_store(store)
    }

    /// Tool servers write their standard error to `<logs>/<server>.log`.
    pub fn with_tool_logs(mut self, logs: impl Into<PathBuf>) -> Self {
        self.tool_host = Arc::new(McpHost::new(logs));
        self
    }

    /// Stops the tool servers this API started (when the process ends).
    pub async fn stop_tool_servers(&self) {
        self.tool_host.stop().await;
    }

    /// Keeps a revision of each saved crew in `crews`.
    pub fn with_crew_store(mut self, crews: Arc<dyn CrewStore>) -> Self {
        self.crew_store = Some(crews);
        self
    }

    /// Keeps runs in `store`.
    pub fn with_store(mut self, store: Arc<dyn RunStore>) -> Self {
        self.store = Some(store);
        self
    }

    /// Uses `clock` and `ids` (tests make traces byte-stable with them).
    pub fn with_time(mut self, clock: Arc<dyn Clock>, ids: Arc<dyn IdSource>) -> Self {
        self.clock = clock;
        self.ids = ids;
        self
    }

    fn store(&self) -> Result<Arc<dyn RunStore>, ApiError> {
        self.store.clone().ok_or_else(|| ApiError::new(ApiErrorCode::Store, "no run store is open"))
    }

    /// The folder the start view lists.
    pub fn crews_dir(&self) -> &Path {
        &self.crews_dir
    }

    /// The crews in the crews folder: every `*.yaml` / `*.yml` file and every folder
    /// holding a `crew.yaml`, sorted by file name, each with its graph and problem counts.
    pub fn list_crews(&self) -> Result<Vec<CrewSummary>, ApiError> {
        crews::list(&self.crews_dir)
    }

    /// Opens a crew file or crew folder: the crew (with its runtime agents), its
    /// graph and every problem. When the runtime agents cannot be read, the crew is
    /// opened without them.
    pub async fn open_crew(&self, path: &Path) -> CrewDocument {
        self.refresh_app_servers().await;
        match self.load_crew(path).await {
            Ok(loaded) => crews::document(path, &self.known_tools(loaded)),
            Err(_) => crews::open(path),
        }
    }

    /// Checks one bracket signal against a reply, as `crewgraph match` does.
    pub fn match_signal(&self, signal: &str, content: &str) -> Result<MatchResult, ApiError> {
        match_signal(signal, content)
    }
}

/// Checks one bracket signal against a reply (DESIGN.md §3 levels).
pub fn match_signal(signal: &str, content: &str) -> Result<MatchResult, ApiError> {
    let level =
        crewgraph_engine::signal::match_signal(signal, content).map_err(|e| ApiError::new(ApiErrorCode::InvalidInput, e.to_string()))?;
    Ok(MatchResult { matched: level != crewgraph_engine::signal::MatchLevel::None, level })
}
