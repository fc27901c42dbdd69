//! The outer loop of a run (DESIGN.md §4): it calls the current agent (streaming its
//! tokens, running its tools), hands the reply to the strategy's pure decision
//! ([`crate::routing`]), carries the decision out — a transfer within the handoff
//! limit, a parallel group, a broadcast, a pause, the end — and writes the step to
//! the store before the next begins.
//!
//! A *step* is one agent's turn and what follows from it (a group or broadcast runs
//! inside the step that started it; under `llm` and `gatekeeper`, the router's
//! decision, see [`super::routed`]). Its events go to the sink as they happen and to
//! the store at the step's end, in one transaction; the sink is then told they are
//! committed. A run that fails, is cancelled or crashes keeps every committed step.
//! A run begins in `start`; an agent's tool calls are made in `calls`; a stored
//! run goes on in `resume`.

use std::any::Any;
use std::collections::{HashMap, HashSet};
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use futures_util::FutureExt;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::approval::{Answer, Approvals};
use super::breakpoints::Breaks;
use super::context::{self, Bounds, Fitter};
use super::error::RunError;
use super::event::{Candidate, EventKind, RunEvent, RunStatus};
use super::lease::{Executor, Lease, LegLease, Lost};
use super::llm::{Ending, LlmClient, LlmError, LlmReply, LlmRequest, ToolSpec, Usage};
use super::loops;
use super::message::{Message, Role, ToolCall};
use super::prompt;
use super::replay::Fork;
use super::seen::AgentContext;
use super::sink::EventSink;
use super::store::{RunSnapshot, RunStore, StepRecord, Turn};
use super::time::{Clock, IdSource};
use super::tool_host::ToolHost;
use super::tools::{HttpFetch, Tools};
use crate::crew::{Crew, ModelSpec, OnLoop, Strategy};
use crate::ids::{AgentId, GroupId, RunId};
use crate::routing::decider::{RouteDecider, WorkflowStep};
use crate::routing::llm::LlmRouter;
use crate::routing::{scoring, signals};

/// How long streamed tokens are gathered into one `token` event.
pub const TOKEN_WINDOW: Duration = Duration::from_millis(50);

/// What a run is wired to.
#[derive(Clone)]
pub struct RunDeps {
    pub llm: Arc<dyn LlmClient>,
    pub store: Arc<dyn RunStore>,
    pub sink: Arc<dyn EventSink>,
    pub clock: Arc<dyn Clock>,
    pub ids: Arc<dyn IdSource>,
    /// For the `http_get` tool; None = not available.
    pub http: Option<Arc<dyn HttpFetch>>,
    /// For the tools of the crew's MCP servers; None = agents that use them cannot run.
    pub tool_host: Option<Arc<dyn ToolHost>>,
    /// Who answers a tool call waiting for approval (a person, unless told otherwise).
    pub approvals: Approvals,
    /// Sentences for the person about how this run is made (the local model standing
    /// in for an unconfigured one), given as `warning` events when it starts or resumes.
    pub notices: Vec<String>,
    /// The `gatekeeper` strategy's decider (an HTTP client the host builds from the
    /// crew's `routing.gatekeeper`); None = a crew of that strategy cannot run.
    pub gatekeeper: Option<Arc<dyn RouteDecider>>,
    /// Which agents the run pauses before, and whether it goes on for one turn only
    /// ([`super::breakpoints`]).
    pub breaks: Breaks,
    /// A new run forked from a stored one: its replies and tool results before the
    /// fork point, given again ([`super::replay`]; its `llm` is a [`super::Replaying`]).
    pub fork: Option<Fork>,
    /// Who executes the run (a worker sharing the store with others): each leg takes
    /// the run's lease before its first step, renews it as it runs and releases it
    /// when it ends ([`super::lease`]). None = no lease is taken (one process owns
    /// its store: the CLI, the desktop app, a single server).
    pub executor: Option<Executor>,
}

/// Where the crew of a run came from, so a resume can notice it changed.
#[derive(Clone, Debug, Default)]
pub struct CrewSource {
    pub path: Option<String>,
    pub fingerprint: String,
}

/// How a run (or this leg of it, up to a pause) ended.
#[derive(Clone, Debug, PartialEq)]
pub struct RunOutcome {
    pub run_id: RunId,
    pub status: RunStatus,
    pub final_agent: Option<AgentId>,
    pub error: Option<String>,
    pub handoffs: u32,
    pub steps: u32,
}

/// What a run needs from its wiring before it starts.
pub(crate) fn check_deps(crew: &Crew, deps: &RunDeps) -> Result<(), RunError> {
    if crew.routing.strategy == Strategy::Gatekeeper && deps.gatekeeper.is_none() {
        return Err(RunError::NoGatekeeper);
    }
    Ok(())
}

/// One run in progress: its state and the step being built.
pub(crate) struct Run<'a> {
    pub(crate) crew: &'a Crew,
    pub(crate) deps: &'a RunDeps,
    pub(crate) cancel: &'a CancellationToken,
    pub(crate) tools: Tools,
    pub(crate) id: RunId,
    pub(crate) snapshot: RunSnapshot,
    pub(crate) history: Vec<Message>,
    events: Vec<RunEvent>,
    added: Vec<Message>,
    /// What the step's model calls were given, kept with the step.
    contexts: Vec<AgentContext>,
    /// Each agent's system prompt (with or without signal instructions) and tool
    /// specs, built once per run.
    setups: HashMap<(AgentId, bool), AgentSetup>,
    /// `llm` / `gatekeeper`: who decides after each turn.
    pub(crate) decider: Option<Arc<dyn RouteDecider>>,
    /// `llm` / `gatekeeper`: every agent turn so far, as the router is shown it.
    pub(crate) workflow: Vec<WorkflowStep>,
    /// `scoring`: the agent the person asked for, if any.
    pub(crate) requested: Option<AgentId>,
    /// Fits each call into its model's context window.
    pub(crate) fitter: Arc<Fitter>,
    /// Where each agent's view of the history started last time (1 = all of it).
    starts: HashMap<AgentId, usize>,
    /// The tools a person allowed for the rest of this run.
    pub(crate) allowed_for_run: HashSet<String>,
    /// A person's answer to the call this leg of the run starts with.
    pub(crate) answer: Option<Answer>,
    /// The agents the run pauses before.
    pub(crate) breakpoints: Vec<AgentId>,
    /// The run was resumed from a pause before its current agent: that turn goes ahead.
    pub(crate) released: bool,
    /// Resumed to go on for one turn: pause before the next once it is done.
    pub(crate) step_once: bool,
    pub(crate) step_due: bool,
    /// The run's lease for this leg, when the run has an executor.
    pub(crate) lease: Option<Arc<LegLease>>,
}

/// What of the run an agent is shown besides its system prompt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sees {
    /// The whole history, and its signals in the system prompt (`signals`).
    HistoryAndSignals,
    /// The whole history (`scoring`, parallel members).
    History,
    /// Only its task: the latest message the run added for it (the person's request,
    /// or the request with the router's instruction), and its own tool calls since
    /// (`llm`, `gatekeeper`: agents are blind to routing).
    Task,
}

/// What an agent's model calls always carry, built once per run.
#[derive(Clone)]
struct AgentSetup {
    system: Arc<str>,
    tools: Arc<[ToolSpec]>,
    /// How its replies may end (empty without signal instructions).
    signals: Arc<[Ending]>,
    model: Option<Arc<ModelSpec>>,
    /// The Go engine's `backup:` model, tried once when a call to `model` fails.
    backup: Option<Arc<ModelSpec>>,
}

impl<'a> Run<'a> {
    pub(crate) fn new(
        crew: &'a Crew,
        deps: &'a RunDeps,
        cancel: &'a CancellationToken,
        id: RunId,
        snapshot: RunSnapshot,
        history: Vec<Message>,
    ) -> Self {
        let tools = Tools::new(deps.clock.clone(), deps.http.clone(), crew.http_allow.clone())
            .with_servers(crew.tool_servers.clone(), deps.tool_host.clone());
        let decider = match crew.routing.strategy {
            Strategy::Llm => {
                let router = LlmRouter::new(deps.llm.clone(), crew.routing.router_model.as_deref())
                    .with_temperature(crew.routing.router_temperature)
                    .with_max_tokens(crew.routing.router_max_tokens);
                Some(Arc::new(router) as Arc<dyn RouteDecider>)
            }
            Strategy::Gatekeeper => deps.gatekeeper.clone(),
            Strategy::Signals | Strategy::Scoring => None,
        };
        Run {
            crew,
            deps,
            cancel,
            tools,
            id,
            snapshot,
            history,
            events: Vec::new(),
            added: Vec::new(),
            contexts: Vec::new(),
            breakpoints: Vec::new(),
            released: false,
            step_once: false,
            step_due: false,
            requested: None,
            setups: HashMap::new(),
            decider,
            workflow: Vec::new(),
            fitter: Arc::new(Fitter::new(deps.llm.clone())),
            starts: HashMap::new(),
            allowed_for_run: HashSet::new(),
            answer: None,
            lease: None,
        }
    }

    /// The notices of [`RunDeps::notices`], as warnings.
    pub(crate) fn notices(&mut self) {
        for message in &self.deps.notices {
            self.event(EventKind::Warning { message: message.clone() });
        }
    }

    /// Records and emits an event.
    pub(crate) fn event(&mut self, kind: EventKind) {
        if let EventKind::AgentResponse { usage: Some(usage), .. } = &kind {
            self.snapshot.tokens = Usage::add(Some(self.snapshot.tokens), Some(*usage)).unwrap_or_default();
        }
        let event = RunEvent { kind, run_id: self.id.clone(), seq: self.snapshot.next_seq, timestamp: self.deps.clock.now() };
        self.snapshot.next_seq += 1;
        self.deps.sink.emit(&event);
        self.events.push(event);
    }

    /// Appends to the shared history.
    pub(crate) fn add(&mut self, message: Message) {
        self.history.push(message.clone());
        self.added.push(message);
        self.snapshot.history_len += 1;
    }

    pub(crate) fn take_step(&mut self) -> StepRecord {
        self.snapshot.updated_at = self.deps.clock.now();
        StepRecord {
            run_id: self.id.clone(),
            events: std::mem::take(&mut self.events),
            history: std::mem::take(&mut self.added),
            snapshot: self.snapshot.clone(),
            contexts: std::mem::take(&mut self.contexts),
            options: None,
        }
    }

    /// Steps until the run ends or pauses, committing each; then lets the leg's
    /// lease go (unless it was lost: it is someone else's then).
    pub(crate) async fn drive(&mut self) -> Result<RunOutcome, RunError> {
        let ended = self.drive_leg().await;
        if let (Some(lease), false) = (&self.lease, matches!(ended, Err(RunError::LeaseLost { .. }))) {
            lease.release().await;
        }
        ended
    }

    /// The leg's lease was taken over by `holder`.
    fn lost(&self, holder: Lease) -> RunError {
        let executor = self.deps.executor.as_ref().map(|e| e.owner.clone()).unwrap_or_default();
        RunError::LeaseLost { run: self.id.clone(), executor, holder: holder.owner, until: holder.expires_at }
    }

    async fn drive_leg(&mut self) -> Result<RunOutcome, RunError> {
        while self.snapshot.status == RunStatus::Running {
            let lease = self.lease.clone();
            if lease.is_some() && self.deps.executor.as_ref().is_some_and(|executor| executor.stop.is_cancelled()) {
                // The executor is stopping: the run stays running, from its last stored step.
                break;
            }
            if self.cancel.is_cancelled() {
                self.finish(RunStatus::Cancelled, None);
            } else if self.holds_here() {
                let agent = self.snapshot.current_agent.clone();
                self.event(EventKind::Paused { agent, signal: None, breakpoint: true });
                self.finish(RunStatus::Paused, None);
            } else {
                let step = AssertUnwindSafe(self.step()).catch_unwind();
                let stepped = match &lease {
                    // A lease lost mid-step stops the step where it is: nothing of it is stored.
                    Some(lease) => lease.during(step).await.map_err(|holder| self.lost(holder))?,
                    None => step.await,
                };
                if let Err(panic) = stepped {
                    // A defect in Crewgraph, not the crew: this run fails and keeps its
                    // events; the process and its other runs go on.
                    let why = panic_message(panic.as_ref());
                    self.finish(RunStatus::Failed, Some(format!("Crewgraph failed inside this run (a defect, please report it): {why}")));
                }
            }
            if std::mem::take(&mut self.step_once) {
                self.step_due = true;
            }
            if let Some(lease) = &lease {
                match lease.keep().await {
                    Ok(()) => {}
                    Err(Lost::To(holder)) => return Err(self.lost(holder)),
                    Err(Lost::Store(error)) => return Err(error.into()),
                }
            }
            let step = self.take_step();
            self.deps.store.append_step(&step).await?;
            self.deps.sink.committed_events(step.events);
        }
        Ok(RunOutcome {
            run_id: self.id.clone(),
            status: self.snapshot.status,
            final_agent: Some(self.snapshot.current_agent.clone()),
            error: self.snapshot.error.clone(),
            handoffs: self.snapshot.handoffs,
            steps: self.snapshot.steps,
        })
    }

    /// One step of the crew's strategy.
    async fn step(&mut self) {
        match self.crew.routing.strategy {
            Strategy::Signals => self.signals_step().await,
            Strategy::Scoring => self.scoring_step().await,
            Strategy::Llm | Strategy::Gatekeeper => self.routed_step().await,
        }
    }

    /// Ends the run (or pauses it) with `status`.
    pub(crate) fn finish(&mut self, status: RunStatus, error: Option<String>) {
        self.snapshot.status = status;
        self.snapshot.error = error.clone();
        self.event(EventKind::RunFinished {
            status,
            final_agent: Some(self.snapshot.current_agent.clone()),
            error,
            handoffs: self.snapshot.handoffs,
            steps: self.snapshot.steps,
        });
    }

    /// One transfer, within the handoff limit: a transfer that would bring the count
    /// to `max_handoffs` is refused and the run ends `max_handoffs` (so with the
    /// default 5, a run makes at most 4 transfers). False when refused.
    pub(crate) fn transfer(&mut self, from: &AgentId, to: &str, reason: String) -> bool {
        if self.snapshot.handoffs + 1 >= self.crew.settings.max_handoffs {
            let max = self.crew.settings.max_handoffs;
            self.event(EventKind::Warning {
                message: format!(
                    "{from} → {to} refused: max_handoffs {max} allows {} transfers, and {} have been made",
                    max.saturating_sub(1),
                    self.snapshot.handoffs
                ),
            });
            self.finish(RunStatus::MaxHandoffs, None);
            return false;
        }
        self.hand_off(from, to, reason);
        true
    }

    /// Counts a transfer and says so (the limit, if any, is the caller's).
    pub(crate) fn hand_off(&mut self, from: &AgentId, to: &str, reason: String) {
        self.snapshot.handoffs += 1;
        self.event(EventKind::Handoff { from: from.clone(), to: to.to_owned(), reason, handoff_count: self.snapshot.handoffs });
    }

    /// Remembers a turn that leads to a transfer and reports a loop; true when the
    /// run must stop for it (`on_loop: stop`).
    fn loop_stops(&mut self, agent: &AgentId, reply: &str) -> bool {
        loops::remember(&mut self.snapshot.recent, Turn { agent: agent.clone(), reply: loops::fingerprint(reply) });
        let Some(cycle) = loops::detect(&self.snapshot.recent) else { return false };
        self.snapshot.recent.clear();
        self.event(EventKind::LoopDetected { agents: cycle, repeats: 2 });
        if self.crew.routing.on_loop == OnLoop::Stop {
            self.finish(RunStatus::LoopDetected, None);
            return true;
        }
        false
    }

    /// A step under the `signals` strategy.
    async fn signals_step(&mut self) {
        let agent = self.snapshot.current_agent.clone();
        let Some(reply) = self.turn(&agent, true).await else { return };
        let found = self.crew.matcher.scan(&reply);
        let decision = signals::decide(self.crew, &agent, &reply, &found, self.snapshot.strikes);
        for event in decision.events {
            self.event(event);
        }
        match decision.next {
            signals::Next::End(status) => {
                self.snapshot.strikes = 0;
                self.finish(status, None);
            }
            signals::Next::Pause { resume_with, signal } => {
                self.snapshot.strikes = 0;
                self.event(EventKind::Paused { agent: agent.clone(), signal, breakpoint: false });
                self.snapshot.current_agent = resume_with;
                self.finish(RunStatus::Paused, None);
            }
            signals::Next::Reprompt { strike } => {
                self.snapshot.strikes = strike;
                self.event(EventKind::Warning {
                    message: format!("{agent} replied without a signal ({strike} of {} in a row); asked again", signals::MAX_STRIKES),
                });
                self.add(Message::user(prompt::reminder(self.crew, agent.as_str())));
            }
            signals::Next::Route { to, reason } => {
                self.snapshot.strikes = 0;
                if !self.loop_stops(&agent, &reply) && self.transfer(&agent, to.as_str(), reason) {
                    self.snapshot.current_agent = to;
                }
            }
            signals::Next::Group { group, reason } => {
                self.snapshot.strikes = 0;
                if !self.loop_stops(&agent, &reply) && self.transfer(&agent, group.as_str(), reason) {
                    self.run_group(&agent, &group).await;
                }
            }
            signals::Next::Broadcast { targets, reason } => {
                self.snapshot.strikes = 0;
                let to = targets.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(", ");
                if !self.loop_stops(&agent, &reply) && self.transfer(&agent, &to, reason) {
                    self.broadcast(&agent, &targets).await;
                }
            }
        }
    }

    /// Delivers a reply to each target once; the run goes on with the first target
    /// that routes on, else with the agent that broadcast.
    async fn broadcast(&mut self, from: &AgentId, targets: &[AgentId]) {
        let mut onward = None;
        for target in targets {
            let Some(reply) = self.turn(target, true).await else { return };
            if onward.is_none() {
                // Only a signal of the target's own rules routes on; its fallback does not.
                let found = self.crew.matcher.scan(&reply);
                let decision = signals::decide(self.crew, target, &reply, &found, 0);
                let signalled = decision.events.iter().any(|e| matches!(e, EventKind::SignalMatched { .. }));
                if let (true, signals::Next::Route { to, reason }) = (signalled, decision.next) {
                    onward = Some((target.clone(), to, reason));
                }
            }
        }
        match onward {
            Some((by, to, reason)) => {
                if self.transfer(&by, to.as_str(), reason) {
                    self.snapshot.current_agent = to;
                }
            }
            None => self.snapshot.current_agent = from.clone(),
        }
    }

    /// A step under the `scoring` strategy: the supervisor routes by score (no model
    /// call), the specialist answers, the finalizer (if any) writes the answer.
    async fn scoring_step(&mut self) {
        let current = self.snapshot.current_agent.clone();
        let finalizer = self.crew.routing.finalizer.clone();
        if current == self.crew.entry_point {
            let request = self.history.iter().rev().find(|m| m.agent.is_none()).map(|m| m.content.clone()).unwrap_or_default();
            let scored = scoring::route(self.crew, &request, self.requested.as_ref());
            let best = scored.chosen.as_ref().and_then(|c| scored.candidates.iter().find(|(id, _)| id == c)).map(|(_, s)| *s);
            let asked_for = self.requested.take();
            let honoured = asked_for.is_some() && asked_for == scored.chosen;
            if let (Some(asked), false) = (&asked_for, honoured) {
                self.event(EventKind::Warning {
                    message: format!("the requested agent '{asked}' is not one of the specialists; the scores decide"),
                });
            }
            self.event(EventKind::RoutingDecision {
                strategy: Strategy::Scoring,
                candidates: Some(
                    scored.candidates.iter().map(|(agent, score)| Candidate { agent: agent.clone(), score: *score }).collect(),
                ),
                chosen: scored.chosen.as_ref().map_or_else(|| "finalize".to_owned(), |c| c.to_string()),
                reasoning: None,
                tokens: Some(scored.tokens.clone()),
            });
            match (scored.chosen, finalizer) {
                (Some(specialist), _) => {
                    let reason =
                        if honoured { "requested by the person".to_owned() } else { format!("best score ({})", best.unwrap_or_default()) };
                    if self.transfer(&current, specialist.as_str(), reason) {
                        self.snapshot.current_agent = specialist;
                    }
                }
                (None, Some(finalizer)) => {
                    if self.transfer(&current, finalizer.as_str(), "no specialist scored above 0; finalize".into()) {
                        self.snapshot.current_agent = finalizer;
                    }
                }
                (None, None) => {
                    self.event(EventKind::Warning { message: "no specialist scored above 0 and the crew has no finalizer".into() });
                    self.finish(RunStatus::NoRoute, None);
                }
            }
            return;
        }
        if self.turn(&current, false).await.is_none() {
            return;
        }
        match finalizer {
            Some(finalizer) if finalizer != current => {
                if self.transfer(&current, finalizer.as_str(), "finalize".into()) {
                    self.snapshot.current_agent = finalizer;
                }
            }
            _ => self.finish(RunStatus::Completed, None),
        }
    }

    /// One agent's turn seeing the history (and, `with_signals`, told its signals).
    pub(crate) async fn turn(&mut self, agent_id: &AgentId, with_signals: bool) -> Option<String> {
        self.turn_seeing(agent_id, if with_signals { Sees::HistoryAndSignals } else { Sees::History }).await
    }

    /// One agent's turn: the model call (with tool rounds); the reply is added to the
    /// history. None when the run ended instead (failure, cancellation).
    pub(crate) async fn turn_seeing(&mut self, agent_id: &AgentId, sees: Sees) -> Option<String> {
        let with_signals = sees == Sees::HistoryAndSignals;
        // Under `Task`, what the agent sees starts at the run's latest message to it.
        let from = match sees {
            Sees::Task => self.history.iter().rposition(|m| m.role == Role::User).unwrap_or(0),
            Sees::HistoryAndSignals | Sees::History => 0,
        };
        // A turn stopped at a call waiting for approval goes on where it stopped.
        let unfinished = self.unfinished_calls(agent_id);
        if unfinished.is_none() {
            self.snapshot.steps += 1;
            self.event(EventKind::AgentStarted { agent: agent_id.clone(), step: self.snapshot.steps });
        }
        let Some(agent) = self.crew.agent(agent_id.as_str()) else {
            self.finish(RunStatus::Failed, Some(format!("agent '{agent_id}' is not in the crew")));
            return None;
        };
        let key = (agent_id.clone(), with_signals);
        let setup = match self.setups.get(&key) {
            Some(setup) => setup.clone(),
            None => {
                let tools = match self.tools.specs(agent, self.cancel).await {
                    Ok(tools) => tools,
                    Err(_) if self.cancel.is_cancelled() => {
                        self.finish(RunStatus::Cancelled, None);
                        return None;
                    }
                    Err(error) => {
                        self.finish(RunStatus::Failed, Some(format!("agent '{agent_id}': {error}")));
                        return None;
                    }
                };
                let setup = AgentSetup {
                    system: Arc::from(if with_signals {
                        prompt::system_prompt(self.crew, agent_id.as_str())
                    } else {
                        agent.system_prompt.clone()
                    }),
                    tools: Arc::from(tools),
                    signals: Arc::from(if with_signals { prompt::ending_signals(self.crew, agent_id.as_str()) } else { Vec::new() }),
                    model: agent.model_spec().map(Arc::new),
                    backup: agent.backup.clone().map(Arc::new),
                };
                self.setups.insert(key, setup.clone());
                setup
            }
        };
        let mut bounds = Bounds::of(agent, &self.crew.settings);
        let mut rounds = 0;
        let mut used = None;
        let mut asked_again = false;
        let mut calls_made = 0;
        if let Some((asked, calls)) = unfinished {
            if !self.run_calls(agent, asked, &calls, false).await {
                return None;
            }
            rounds += 1;
        }
        loop {
            // The history is lent to the request for the call (nothing else reads it
            // meanwhile), so a call costs the same however long the run is.
            let history = std::mem::take(&mut self.history);
            let start = self.starts.get(agent_id).copied().unwrap_or(1);
            let fit = match self.fitter.fit(setup.model.as_deref(), &setup.system, &history[from..], bounds, start).await {
                Ok(fit) => fit,
                Err(unfit) => {
                    self.history = history;
                    self.finish(RunStatus::Failed, Some(format!("agent '{agent_id}': {unfit}")));
                    return None;
                }
            };
            self.starts.insert(agent_id.clone(), fit.start);
            if fit.dropped > 0 {
                self.event(EventKind::HistoryTrimmed { agent: agent_id.clone(), dropped: fit.dropped });
            }
            let sent = fit.tokens.unwrap_or_else(|| context::estimated(&setup.system, fit.messages));
            self.contexts.push(AgentContext {
                agent: agent_id.clone(),
                step: self.snapshot.steps,
                call: calls_made,
                system_prompt: setup.system.to_string(),
                from: from as u32,
                first: fit.messages.first.is_some(),
                tail: (history.len() - fit.messages.rest.len()) as u32,
                until: history.len() as u32,
                dropped: fit.dropped,
                tokens: sent,
                window: fit.window,
            });
            calls_made += 1;
            let request = LlmRequest {
                model: setup.model.as_deref(),
                tools: &setup.tools,
                temperature: agent.temperature,
                max_tokens: agent.max_tokens,
                signals: &setup.signals,
                ..LlmRequest::new(agent_id, &setup.system, fit.messages)
            };
            let mut result = self.call(&request).await;
            if let (Err(error), Some(backup)) = (&result, &setup.backup) {
                if !matches!(error, LlmError::Cancelled | LlmError::ContextOverflow { .. }) {
                    self.event(EventKind::Warning {
                        message: format!("{agent_id}'s model failed ({error}); trying its backup model {backup}"),
                    });
                    result = self.call(&LlmRequest { model: Some(backup), ..request }).await;
                }
            }
            let (dropped, seen) = (fit.dropped, fit.messages.len());
            self.history = history;
            let reply = match result {
                Ok(reply) => reply,
                Err(LlmError::Cancelled) => {
                    self.finish(RunStatus::Cancelled, None);
                    return None;
                }
                Err(LlmError::ContextOverflow { said, window }) if bounds.squeeze.is_none() => {
                    self.event(EventKind::Warning { message: context::squeezing(agent_id, &said) });
                    bounds = bounds.squeezed(sent, window);
                    continue;
                }
                Err(LlmError::ContextOverflow { said, .. }) => {
                    self.finish(RunStatus::Failed, Some(format!("agent '{agent_id}': {}", context::overflow(dropped, seen, &said))));
                    return None;
                }
                Err(error) => {
                    self.finish(RunStatus::Failed, Some(format!("agent '{agent_id}': {error}")));
                    return None;
                }
            };
            used = Usage::add(used, reply.usage);
            if reply.is_empty() && !asked_again {
                asked_again = true;
                self.event(EventKind::Warning { message: asked_again_words(agent_id) });
                continue;
            }
            if reply.tool_calls.is_empty() || rounds >= self.crew.settings.max_tool_rounds {
                if !reply.tool_calls.is_empty() {
                    self.event(EventKind::Warning {
                        message: format!(
                            "{agent_id} asked for tools after {rounds} rounds (the most per turn); its reply is used as it is"
                        ),
                    });
                }
                self.event(EventKind::AgentResponse { agent: agent_id.clone(), content: reply.content.clone(), usage: used });
                self.add(Message::agent(agent_id, reply.content.clone()));
                return Some(reply.content);
            }
            let mut asked = Message::agent(agent_id, reply.content.clone());
            asked.tool_calls = reply.tool_calls.clone();
            self.add(asked);
            let calls: Vec<(usize, ToolCall)> = reply.tool_calls.iter().cloned().enumerate().collect();
            if !self.run_calls(agent, self.history.len() - 1, &calls, true).await {
                return None;
            }
            rounds += 1;
        }
    }

    /// Calls the model, turning its streamed text into `token` events: the first
    /// piece at once, the rest gathered over [`TOKEN_WINDOW`]. The text waits in a small shared buffer (a channel would
    /// allocate a block per call, a kilobyte per waiting run).
    async fn call(&mut self, request: &LlmRequest<'_>) -> Result<LlmReply, LlmError> {
        let llm = self.deps.llm.clone();
        let cancel = self.cancel;
        let streamed = Arc::new((std::sync::Mutex::new(String::new()), tokio::sync::Notify::new()));
        let sender = streamed.clone();
        let on_token = move |text: &str| {
            if let Ok(mut buffer) = sender.0.lock() {
                buffer.push_str(text);
            }
            sender.1.notify_one();
        };
        let take = || streamed.0.lock().map(|mut b| std::mem::take(&mut *b)).unwrap_or_default();
        let reply = llm.complete(request, &on_token, cancel);
        tokio::pin!(reply);
        let mut pending = String::new();
        // The first piece goes out at once (time to first token is what a person
        // waits for); later ones are gathered.
        let mut since: Option<Instant> = None;
        let result = loop {
            tokio::select! {
                biased;
                _ = streamed.1.notified() => {
                    pending.push_str(&take());
                    if since.is_none_or(|since| since.elapsed() >= TOKEN_WINDOW) && !pending.is_empty() {
                        self.event(EventKind::Token { agent: request.agent.clone(), text: std::mem::take(&mut pending) });
                        since = Some(Instant::now());
                    }
                }
                result = &mut reply => break result,
            }
        };
        pending.push_str(&take());
        if !pending.is_empty() {
            self.event(EventKind::Token { agent: request.agent.clone(), text: pending });
        }
        result
    }

    /// Runs a parallel group inside this step (see [`super::parallel`]) and moves on
    /// to its next agent, or back to `emitter`.
    async fn run_group(&mut self, emitter: &AgentId, group_id: &GroupId) {
        let Some(group) = self.crew.group(group_id.as_str()).cloned() else {
            self.finish(RunStatus::Failed, Some(format!("parallel group '{group_id}' is not in the crew")));
            return;
        };
        if super::parallel::run(self, &group).await {
            self.snapshot.current_agent = group.next_agent.clone().unwrap_or_else(|| emitter.clone());
        }
    }
}

/// The warning when an agent's reply was empty and it is asked once more.
pub(crate) fn asked_again_words(agent: &AgentId) -> String {
    format!("{agent} wrote an empty reply; it is asked once more")
}

/// What a caught panic said, when it said it as text.
fn panic_message(panic: &(dyn Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "an unexpected error".to_owned())
}
