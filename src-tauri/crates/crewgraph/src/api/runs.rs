//! Runs through the API: start one on a crew file (with a script: Simulate mode),
//! resume a paused or interrupted one, list them, read their stored events. The
//! crew is loaded and validated first; a crew with errors does not run, nor one
//! whose gatekeeper cannot be reached by name (see [`super::gatekeeper`]) — unless
//! its script answers for the gatekeeper (see [`super::scripted_gatekeeper`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crewgraph_engine::crew::Strategy;
use crewgraph_engine::load::{load_path_with, Loaded, RuntimeAgentText};
use crewgraph_engine::routing::decider::RouteDecider;
use crewgraph_engine::run::{
    answer_tool_call, approval, breakpoints, resume_run, start_run_for, Answer, Approvals, Breaks, CrewSource, EventSink, RunDeps,
    RunError, RunEvent, RunOutcome, RunStatus, RunSummary, StoreError, StoredRun,
};
use crewgraph_engine::{AgentId, Crew, RunId};
use crewgraph_llm::{Pace, RepliesUsed, Script, Stepper, TypedReplies, UsedReply};
use sha2::{Digest, Sha256};
use tokio_util::sync::CancellationToken;

use super::crews::crew_key;
use super::gatekeeper::GatekeeperClient;
use super::scripted_gatekeeper::ScriptedGatekeeper;
use super::{Api, ApiError, ApiErrorCode, RunDetail};

/// Where a run's scripted replies come from (Simulate mode).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScriptSource {
    /// A script file (`crewgraph run --script FILE`).
    File(PathBuf),
    /// Script text handed over with the request (`POST /runs` with a `script`);
    /// YAML, or JSON (which YAML reads too). Errors name it `script`.
    Text(String),
}

impl ScriptSource {
    /// The script, read and parsed; what is wrong with it (where) as `invalid_input`.
    pub fn script(&self) -> Result<Script, ApiError> {
        match self {
            ScriptSource::File(path) => Script::load(path),
            ScriptSource::Text(text) => Script::parse("script", text),
        }
        .map_err(|e| ApiError::new(ApiErrorCode::InvalidInput, e.to_string()))
    }
}

/// How a run is to be made.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Replies from a script (Simulate mode) instead of a model.
    pub script: Option<ScriptSource>,
    /// The model every agent uses (a named model, `provider/model` or `local`)
    /// instead of its own.
    pub model: Option<String>,
    /// `scoring`: an agent the person asked for (`requested_agent_id`); it wins the
    /// supervisor's decision when it is a specialist of the crew.
    pub requested_agent: Option<String>,
    /// What the run being resumed already took from its script (filled in by
    /// resume): a script that repeats it is the whole run's, and goes on after it
    /// ([`crewgraph_llm::Script::resume_after`]).
    pub used_replies: Option<RepliesUsed>,
    /// Simulate mode by hand: each reply typed by the person in its turn
    /// ([`Api::type_reply`]), instead of a script or a model.
    pub typed: Option<TypedReplies>,
    /// A scripted run's pace: at once, readable, or one turn at a time.
    pub pace: Pace,
    /// At [`Pace::Step`]: where the person's **Next** goes ([`Api::step_run`]).
    pub stepper: Option<Stepper>,
    /// Who answers a tool call waiting for approval: a person (the run waits), or
    /// `crewgraph run --approve-tools`.
    pub approvals: Approvals,
    /// The agents the run pauses before, and whether it goes on one turn only.
    pub breaks: Breaks,
}

impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> Self {
        let code = match error {
            StoreError::NoSuchRun(_) => ApiErrorCode::NotFound,
            StoreError::Busy(_) => ApiErrorCode::Conflict,
            _ => ApiErrorCode::Store,
        };
        ApiError::new(code, error.to_string())
    }
}

impl From<RunError> for ApiError {
    fn from(error: RunError) -> Self {
        match error {
            RunError::Store(store) => store.into(),
            RunError::Conflict(_) | RunError::AwaitsApproval { .. } | RunError::Leased { .. } | RunError::LeaseLost { .. } => {
                ApiError::new(ApiErrorCode::Conflict, error.to_string())
            }
            RunError::NoSuchApproval { .. } => ApiError::new(ApiErrorCode::NotFound, error.to_string()),
            other => ApiError::new(ApiErrorCode::InvalidInput, other.to_string()),
        }
    }
}

/// A leg's outcome in the API's words. Two legs that both loaded the run before
/// either stored a step: the store keeps the first one's step and refuses the other's
/// (`other` says what the first was).
pub(crate) fn leg_outcome<T>(id: &RunId, outcome: Result<T, RunError>, other: &str) -> Result<T, ApiError> {
    match outcome {
        Err(RunError::Store(StoreError::OutOfOrder { .. })) => {
            Err(ApiError::new(ApiErrorCode::Conflict, format!("{} ({other} stored its next step first)", RunError::Conflict(id.clone()))))
        }
        outcome => Ok(outcome?),
    }
}

/// How many model replies each agent's turns took so far (one per reply that ended a
/// turn, one per reply that asked for tools), and what the turns' replies said.
pub(crate) fn replies_used(events: &[RunEvent]) -> RepliesUsed {
    use crewgraph_engine::run::EventKind;
    let mut used = RepliesUsed::default();
    let mut asked_tools: Option<(AgentId, u64)> = None;
    for event in events {
        match &event.kind {
            EventKind::AgentResponse { agent, content, .. } => {
                *used.counts.entry(agent.clone()).or_default() += 1;
                used.said.entry(agent.clone()).or_default().push(content.clone());
                used.order.entry(agent.clone()).or_default().push(UsedReply::Said(content.clone()));
            }
            // The tool calls of one reply are announced one after another: one reply.
            EventKind::ToolCall { agent, name, .. } => {
                let same_reply = asked_tools.as_ref().is_some_and(|(a, seq)| a == agent && *seq + 1 == event.seq);
                let order = used.order.entry(agent.clone()).or_default();
                match (same_reply, order.last_mut()) {
                    (true, Some(UsedReply::Asked(names))) => names.push(name.clone()),
                    _ => {
                        *used.counts.entry(agent.clone()).or_default() += 1;
                        order.push(UsedReply::Asked(vec![name.clone()]));
                    }
                }
                asked_tools = Some((agent.clone(), event.seq));
            }
            _ => {}
        }
    }
    used
}

/// The gatekeeper of a run's script, when it has one: the script's `gatekeeper:`
/// answers ([`ScriptedGatekeeper`]). None without a script, or when the script
/// answers only for agents (the run asks the real service). The script was read and
/// checked against the crew already, for the agents' replies.
fn scripted_gatekeeper(options: &RunOptions) -> Result<Option<ScriptedGatekeeper>, ApiError> {
    let script = match &options.script {
        None => return Ok(None),
        Some(ScriptSource::File(path)) => Script::load(path),
        Some(ScriptSource::Text(text)) => Script::parse("script", text),
    }
    .map_err(|e| ApiError::new(ApiErrorCode::InvalidInput, e.to_string()))?;
    Ok(ScriptedGatekeeper::from_script(&script))
}

/// A fingerprint of a crew's files (their names and contents, in the order they were
/// read). Names, not paths: the same crew reached by another path (relative, absolute)
/// is the same crew.
pub fn fingerprint(loaded: &Loaded) -> String {
    let mut hash = Sha256::new();
    for file in &loaded.files {
        hash.update(file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default().as_bytes());
        hash.update(std::fs::read(file).unwrap_or_default());
    }
    hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// Loads a crew that must be valid to run, with where it came from. The run keeps
/// the crew's absolute path, so it can be resumed from any folder.
fn runnable_crew(path: &Path, runtime: &[RuntimeAgentText]) -> Result<(Crew, CrewSource, Vec<PathBuf>), ApiError> {
    let loaded = load_path_with(path, runtime);
    // Runtime agents are part of the crew: adding one changes its fingerprint too.
    let mut print = fingerprint(&loaded);
    if !runtime.is_empty() {
        let mut hash = Sha256::new();
        hash.update(print.as_bytes());
        for agent in runtime {
            hash.update(agent.name.as_bytes());
            hash.update(agent.yaml.as_bytes());
        }
        print = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
    }
    let source = CrewSource { path: Some(crew_key(path)), fingerprint: print };
    match (loaded.is_valid(), loaded.crew) {
        (true, Some(crew)) => Ok((crew, source, loaded.files)),
        _ => {
            let errors: Vec<String> = loaded.diagnostics.iter().filter(|d| d.is_error()).map(ToString::to_string).collect();
            Err(ApiError::new(ApiErrorCode::InvalidCrew, format!("the crew has errors and cannot run:\n{}", errors.join("\n"))))
        }
    }
}

impl Api {
    pub(crate) async fn deps(&self, crew: &Crew, options: &RunOptions, sink: Arc<dyn EventSink>) -> Result<RunDeps, ApiError> {
        // Traced when tracing is on (docs/observability.md): the run's events also become spans.
        let sink = self.traced(crew, options, sink).await;
        for agent in options.breaks.before.iter().flatten() {
            if crew.agent(agent.as_str()).is_none() {
                let known: Vec<&str> = crew.agents.iter().map(|a| a.id.as_str()).collect();
                return Err(ApiError::new(
                    ApiErrorCode::InvalidInput,
                    format!("the crew has no agent '{agent}' to pause before (it has: {})", known.join(", ")),
                ));
            }
        }
        let (llm, notices) = self.llm_for(crew, options).await?;
        let gatekeeper = match (crew.routing.strategy, &crew.routing.gatekeeper) {
            (Strategy::Gatekeeper, Some(config)) => Some(match scripted_gatekeeper(options)? {
                // Simulate mode with the gatekeeper's answers in the script: no service is asked.
                Some(scripted) => Arc::new(scripted) as Arc<dyn RouteDecider>,
                None => {
                    Arc::new(GatekeeperClient::connect(config).await.map_err(|e| ApiError::new(ApiErrorCode::InvalidInput, e.to_string()))?)
                }
            }),
            _ => None,
        };
        Ok(RunDeps {
            llm,
            store: self.store()?,
            sink,
            clock: self.clock.clone(),
            ids: self.ids.clone(),
            http: self.http.clone(),
            tool_host: Some(self.tool_host.clone()),
            approvals: options.approvals,
            notices,
            gatekeeper,
            breaks: options.breaks.clone(),
            fork: None,
            executor: self.executor.clone(),
        })
    }

    /// Starts a run of the crew at `path` on `input`; events go to `sink` as they
    /// happen. Returns when the run ends or pauses (or `cancel` fires).
    pub async fn start_run(
        &self,
        path: &Path,
        input: &str,
        options: &RunOptions,
        sink: Arc<dyn EventSink>,
        cancel: &CancellationToken,
    ) -> Result<RunOutcome, ApiError> {
        let (crew, source) = self.crew_to_run(path).await?;
        let deps = self.deps(&crew, options, sink).await?;
        let requested = options.requested_agent.as_deref().map(AgentId::from);
        Ok(start_run_for(&crew, &source, input, requested.as_ref(), &deps, cancel).await?)
    }

    /// Resumes a paused run with `input` (or an interrupted one from its last step),
    /// on its crew file as it is now.
    pub async fn resume_run(
        &self,
        id: &RunId,
        input: Option<&str>,
        options: &RunOptions,
        sink: Arc<dyn EventSink>,
        cancel: &CancellationToken,
    ) -> Result<RunOutcome, ApiError> {
        let stored = self.stored_run(id).await?;
        self.check_resumable(id, &stored, input).await?;
        let (crew, source, deps) = self.next_leg(id, &stored, options, sink).await?;
        let outcome = resume_run(&crew, &source, id, input, &deps, cancel).await;
        leg_outcome(id, outcome, "another resume of it")
    }

    /// Whether stored run `id` can be resumed with `input`: a paused run waiting for a
    /// tool call's approval cannot, nor one waiting for an answer that is not given.
    pub(crate) async fn check_resumable(&self, id: &RunId, stored: &StoredRun, input: Option<&str>) -> Result<(), ApiError> {
        let mut held = false;
        if stored.snapshot.status == RunStatus::Paused {
            let events = self.store()?.events(id, None).await?;
            if let Some(waiting) = approval::pending(&events) {
                return Err(RunError::AwaitsApproval { run: id.clone(), call_id: waiting.call_id, tool: waiting.name }.into());
            }
            // Paused before an agent's turn, it goes on without words too.
            held = breakpoints::held(&events);
        }
        if stored.snapshot.status == RunStatus::Paused && !held && input.is_none_or(|i| i.trim().is_empty()) {
            return Err(ApiError::new(
                ApiErrorCode::InvalidInput,
                format!("run '{id}' is paused, waiting for your answer: resume it with one (--input TEXT)"),
            ));
        }
        Ok(())
    }

    /// Goes on with run `id`, waiting for a person to allow a tool call, with their
    /// `answer` (see [`crewgraph_engine::run::answer_tool_call`]).
    pub async fn answer_tool_call(
        &self,
        id: &RunId,
        answer: Answer,
        options: &RunOptions,
        sink: Arc<dyn EventSink>,
        cancel: &CancellationToken,
    ) -> Result<RunOutcome, ApiError> {
        let stored = self.stored_run(id).await?;
        let (crew, source, deps) = self.next_leg(id, &stored, options, sink).await?;
        let outcome = answer_tool_call(&crew, &source, id, answer, &deps, cancel).await;
        leg_outcome(id, outcome, "another answer or resume of it")
    }

    /// The crew at `path` as a run takes it: with its runtime agents and the app's
    /// tool servers, and where it came from.
    pub(crate) async fn crew_to_run(&self, path: &Path) -> Result<(Crew, CrewSource), ApiError> {
        let runtime = self.runtime_texts(path).await?;
        let (mut crew, source, files) = runnable_crew(path, &runtime)?;
        self.keep_run_revision(path, &crew.name, &files, &runtime, &source.fingerprint).await;
        self.with_app_tool_servers(&mut crew).await?;
        Ok((crew, source))
    }

    /// What the next leg of stored run `id` goes on with: its crew file as it is now
    /// (with the app's tool servers), where that came from, and the run's wiring —
    /// with a script, told what the run already took from it.
    pub(crate) async fn next_leg(
        &self,
        id: &RunId,
        stored: &StoredRun,
        options: &RunOptions,
        sink: Arc<dyn EventSink>,
    ) -> Result<(Crew, CrewSource, RunDeps), ApiError> {
        let path = stored
            .record
            .crew_path
            .clone()
            .ok_or_else(|| ApiError::new(ApiErrorCode::InvalidInput, format!("run '{id}' does not say which crew file it ran")))?;
        let (crew, source) = self.crew_to_run(Path::new(&path)).await?;
        let mut options = options.clone();
        if options.script.is_some() {
            options.used_replies = Some(replies_used(&self.store()?.events(id, None).await?));
        }
        let deps = self.deps(&crew, &options, sink).await?;
        Ok((crew, source, deps))
    }

    /// Run `id` as stored (`not_found` when there is none).
    pub(crate) async fn stored_run(&self, id: &RunId) -> Result<StoredRun, ApiError> {
        self.store()?.load_run(id).await?.ok_or_else(|| ApiError::from(StoreError::NoSuchRun(id.clone())))
    }

    /// One stored run, as listings show it.
    pub async fn run_summary(&self, id: &RunId) -> Result<RunSummary, ApiError> {
        Ok(self.run_and_crew(id).await?.0)
    }

    /// One stored run as listings show it, and the crew file or folder it ran — one
    /// read of the store for both.
    pub async fn run_and_crew(&self, id: &RunId) -> Result<(RunSummary, Option<PathBuf>), ApiError> {
        let stored = self.stored_run(id).await?;
        let crew_revision = self.revision_ran(&stored.record).await;
        let crew = stored.record.crew_path.map(PathBuf::from);
        let summary = RunSummary {
            id: stored.record.id,
            crew_name: stored.record.crew_name,
            crew_path: self.named_here(crew.as_deref()),
            input: stored.record.input,
            status: stored.snapshot.status,
            created_at: stored.record.created_at,
            updated_at: stored.snapshot.updated_at,
            steps: stored.snapshot.steps,
            handoffs: stored.snapshot.handoffs,
            error: stored.snapshot.error,
            tokens: stored.snapshot.tokens,
            crew_revision,
            forked_from: stored.record.forked_from,
        };
        Ok((summary, crew))
    }

    /// One run as `GET /runs/{id}` (the window's `get_run`) answers it: as listings
    /// show it, whether a leg of it is going on here now, and its crew as crews are
    /// named here (None when not known or out of reach).
    ///
    /// Whether it is live is asked before the store is read. A leg leaves the
    /// registry only once its last step is stored (see [`Api::is_live`]), so a run
    /// found not live reads as its last leg left it: ended, paused, or `running`
    /// because it was interrupted. Asked after the read, a leg that stored its last
    /// step and left in between would read `running` and not live — interrupted,
    /// resumable, to every client — though it had ended. The other way round is
    /// harmless: a leg that ends during the read is answered live, with its status
    /// as it was read or as it ended, and the next question finds it not live.
    pub async fn run_detail(&self, id: &RunId) -> Result<RunDetail, ApiError> {
        let mut live = self.is_live(id);
        let (run, _) = self.run_and_crew(id).await?;
        // On an API node a running run is going on elsewhere: queued, or executed by a
        // worker (one whose worker died is taken over, or queued again by the sweeper).
        live |= self.api_node().is_some() && run.status == RunStatus::Running;
        let crew = run.crew_path.clone();
        Ok(RunDetail { run, live, crew })
    }

    /// Scripts for Simulate mode that come with the crew at `path`: `scripts/<name>.yaml`
    /// next to it (`<name>` the file's stem or the folder's name), as the examples ship.
    pub fn crew_scripts(&self, path: &Path) -> Vec<PathBuf> {
        let (Some(dir), Some(stem)) = (path.parent(), path.file_stem()) else { return Vec::new() };
        let stem = stem.to_string_lossy();
        ["yaml", "yml"].iter().map(|ext| dir.join("scripts").join(format!("{stem}.{ext}"))).filter(|p| p.is_file()).collect()
    }

    /// The crew file or folder run `id` ran (what a resume loads again), as stored.
    pub async fn run_crew_path(&self, id: &RunId) -> Result<Option<PathBuf>, ApiError> {
        Ok(self.stored_run(id).await?.record.crew_path.map(PathBuf::from))
    }

    /// Every stored run, newest first.
    pub async fn list_runs(&self) -> Result<Vec<RunSummary>, ApiError> {
        let mut runs = self.store()?.list_runs().await?;
        for run in &mut runs {
            run.crew_path = self.named_here(run.crew_path.as_deref().map(Path::new));
        }
        Ok(runs)
    }

    /// A crew path as stored, named as crews are named here (None out of reach).
    fn named_here(&self, path: Option<&Path>) -> Option<String> {
        path.filter(|path| self.reaches(path)).map(|path| self.crew_name(&path.display().to_string()))
    }

    /// A run's stored events (after `after`, when given).
    pub async fn run_events(&self, id: &RunId, after: Option<u64>) -> Result<Vec<RunEvent>, ApiError> {
        Ok(self.store()?.events(id, after).await?)
    }
}
