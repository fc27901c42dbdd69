//! A validated crew: ids resolved, signals registered and compiled, defaults filled
//! in. This is what the graph, the run loop and the routers work from.
//!
//! A [`Crew`] is produced by [`crate::validate`] even when the file has errors (the
//! window draws what it can and puts the errors on it); [`crate::load::Loaded`]
//! says whether it is fit to run.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::ids::{AgentId, GroupId, SignalName};
use crate::signal::{Behavior, SignalIndex, SignalMatcher, SignalRegistry};

/// The default limit on transfers per run (as in the Go engine).
pub const DEFAULT_MAX_HANDOFFS: u32 = 5;
/// The default bound on tool-call rounds per agent turn.
pub const DEFAULT_MAX_TOOL_ROUNDS: u32 = 8;
/// The Go engine's default `max_rounds`.
pub const DEFAULT_MAX_ROUNDS: u32 = 10;
/// The default bound on routing decisions under `llm` and `gatekeeper`.
pub const DEFAULT_MAX_ITERATIONS: u32 = 10;
/// The default timeout of a parallel group.
pub const DEFAULT_GROUP_TIMEOUT: Duration = Duration::from_secs(30);
/// The Go engine's default run timeout.
pub const DEFAULT_RUN_TIMEOUT: Duration = Duration::from_secs(300);

/// A crew ready for the graph and the run loop.
#[derive(Clone, Debug)]
pub struct Crew {
    pub name: String,
    pub description: String,
    pub version: String,
    /// The first agent of a run (the supervisor under `scoring`).
    pub entry_point: AgentId,
    /// Agents in crew order (the order of the file).
    pub agents: Vec<Agent>,
    pub signals: SignalRegistry,
    /// `signals`, compiled once for scanning replies.
    pub matcher: SignalMatcher,
    pub routing: Routing,
    pub settings: Settings,
    /// MCP servers declared under `tools.servers`.
    pub tool_servers: Vec<ToolServer>,
    /// `tools.policy`: which tools are called at once, asked about, or refused.
    pub tool_policy: Vec<PolicyRule>,
    /// The hosts the built-in `http_get` may reach (`tools.http_get.allow`).
    pub http_allow: Vec<String>,
    /// Whether the crew came from one file or a Go-engine crew directory.
    pub layout: CrewLayout,
}

impl Crew {
    /// The agent with this id.
    pub fn agent(&self, id: &str) -> Option<&Agent> {
        self.agents.iter().find(|a| a.id == id)
    }

    /// The parallel group with this id.
    pub fn group(&self, id: &str) -> Option<&ParallelGroup> {
        self.routing.groups.iter().find(|g| g.id == id)
    }

    /// The routing rules of `agent`, in file order.
    pub fn rules_of(&self, agent: &str) -> &[Rule] {
        self.routing.rules.iter().find(|(id, _)| id == agent).map_or(&[], |(_, rules)| rules.as_slice())
    }
}

/// How the crew was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum CrewLayout {
    /// One YAML file with agents inline.
    File,
    /// A Go-engine crew directory: `crew.yaml` + `agents/<id>.yaml`.
    Directory,
}

/// One agent.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Agent {
    pub id: AgentId,
    /// Shown on the card; the id when the file gives none.
    pub name: String,
    pub role: String,
    pub description: String,
    pub objective: String,
    pub backstory: String,
    pub tags: Vec<String>,
    pub system_prompt: String,
    /// A named model or `provider/model`; None = the default model.
    pub model: Option<String>,
    /// Go engine: the primary model (used when `model` is not set).
    pub primary: Option<ModelSpec>,
    /// Go engine: the model to use when the primary fails.
    pub backup: Option<ModelSpec>,
    pub temperature: Option<f64>,
    pub tools: Vec<String>,
    /// `tool_policy`: this agent's rules, before the crew's.
    pub tool_policy: Vec<PolicyRule>,
    /// Fallback targets when no signal matched, in order (includes Go `routing.defaults`).
    pub handoff_targets: Vec<AgentId>,
    /// Ending here ends the run `completed`.
    pub is_terminal: bool,
    /// No signal matched → pause for the person.
    pub wait_for_signal: bool,
    /// The most of the history (estimated tokens) it is shown; None = the crew's.
    pub context_budget: Option<u32>,
    /// The most tokens one of its replies may take; None = its model's setting.
    pub max_tokens: Option<u32>,
    /// Added while the app runs (stored apart from the crew's files).
    pub runtime: bool,
}

impl Agent {
    /// The model its turns use: `model` (a named model or `provider/model`), else the
    /// Go engine's `primary:`; None = the default model.
    pub fn model_spec(&self) -> Option<ModelSpec> {
        match &self.model {
            Some(model) => Some(ModelSpec::named(model)),
            None => self.primary.clone(),
        }
    }

    /// The model to show on the card: `model`, else the primary's model, else None.
    pub fn model_label(&self) -> Option<&str> {
        self.model.as_deref().or_else(|| self.primary.as_ref().and_then(|p| p.model.as_deref()))
    }
}

/// A Go-engine model block.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct ModelSpec {
    pub model: Option<String>,
    pub provider: Option<String>,
    pub provider_url: Option<String>,
}

impl ModelSpec {
    /// A model given by name alone (`default`, `fast`, `openai/gpt-4o-mini`).
    pub fn named(name: &str) -> Self {
        ModelSpec { model: Some(name.to_owned()), provider: None, provider_url: None }
    }
}

impl std::fmt::Display for ModelSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let model = self.model.as_deref().unwrap_or("default");
        match (&self.provider, &self.provider_url) {
            (Some(provider), Some(url)) => write!(f, "{provider}/{model} at {url}"),
            (Some(provider), None) => write!(f, "{provider}/{model}"),
            (None, _) => f.write_str(model),
        }
    }
}

/// Where a rule leads.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    Agent(AgentId),
    Group(GroupId),
}

impl Target {
    /// The id as written.
    pub fn id(&self) -> &str {
        match self {
            Target::Agent(id) => id.as_str(),
            Target::Group(id) => id.as_str(),
        }
    }
}

/// One routing rule of an agent.
#[derive(Clone, Debug, PartialEq)]
pub struct Rule {
    /// Where the rule is in its agent's list in the file (rules that do not check
    /// out are left out, so this can differ from the position in [`Crew::rules_of`]).
    pub index: u32,
    pub signal: SignalName,
    /// The signal's entry in the registry; None when it is not registered (an error).
    pub signal_index: Option<SignalIndex>,
    /// What the rule does (the registry's behaviour, or the one its target implies).
    pub behavior: Behavior,
    /// Resolved targets; a target that does not resolve is left out (and reported).
    pub targets: Vec<Target>,
    pub description: String,
}

/// A set of agents run side by side.
#[derive(Clone, Debug, PartialEq)]
pub struct ParallelGroup {
    pub id: GroupId,
    pub agents: Vec<AgentId>,
    pub timeout: Duration,
    pub wait_for_all: bool,
    /// Where the work goes afterwards; None = back to the agent that emitted the signal.
    pub next_agent: Option<AgentId>,
    pub description: String,
}

/// How the next agent is chosen (DESIGN.md §5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum Strategy {
    /// Agents emit signals; rules route them.
    #[default]
    Signals,
    /// The supervisor scores specialists by tags and words.
    Scoring,
    /// A router model decides after each agent.
    Llm,
    /// An external HTTP service decides after each agent.
    Gatekeeper,
}

impl Strategy {
    /// Every strategy with its YAML spelling.
    pub const ALL: [(Strategy, &'static str); 4] =
        [(Strategy::Signals, "signals"), (Strategy::Scoring, "scoring"), (Strategy::Llm, "llm"), (Strategy::Gatekeeper, "gatekeeper")];
}

/// What happens when an agent's reply matched no rule (DESIGN.md §4, step 4.6).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum OnNoSignal {
    /// Hand off to the first handoff target, else the next agent in crew order.
    #[default]
    Fallback,
    /// Ask the same agent again, up to three times.
    Reprompt,
    /// Wait for the person.
    Pause,
    /// End the run (`no_route`).
    End,
}

impl OnNoSignal {
    /// Every mode with its YAML spelling.
    pub const ALL: [(OnNoSignal, &'static str); 4] =
        [(OnNoSignal::Fallback, "fallback"), (OnNoSignal::Reprompt, "reprompt"), (OnNoSignal::Pause, "pause"), (OnNoSignal::End, "end")];
}

/// What happens when loop detection fires (DESIGN.md §13).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum OnLoop {
    /// Report it and go on (the handoff limit still applies).
    #[default]
    Warn,
    /// End the run `loop_detected`.
    Stop,
}

impl OnLoop {
    /// Every mode with its YAML spelling.
    pub const ALL: [(OnLoop, &'static str); 2] = [(OnLoop::Warn, "warn"), (OnLoop::Stop, "stop")];
}

/// The `routing:` section, resolved.
#[derive(Clone, Debug, Default)]
pub struct Routing {
    pub strategy: Strategy,
    /// Rules per agent (agents in the order their rules appear).
    pub rules: Vec<(AgentId, Vec<Rule>)>,
    /// Parallel groups in file order.
    pub groups: Vec<ParallelGroup>,
    pub on_no_signal: OnNoSignal,
    pub on_loop: OnLoop,
    /// Scoring: the agent that writes the final answer.
    pub finalizer: Option<AgentId>,
    /// `llm` / `gatekeeper`: the most routing decisions per run.
    pub max_iterations: u32,
    /// `llm`: the router model (None = the default model).
    pub router_model: Option<String>,
    /// `llm`: the router model's temperature (None = [`crate::routing::llm::ROUTER_TEMPERATURE`]).
    pub router_temperature: Option<f64>,
    /// `llm`: the most tokens one decision may take (None = the router model's setting).
    pub router_max_tokens: Option<u32>,
    /// `gatekeeper`: the service.
    pub gatekeeper: Option<Gatekeeper>,
    /// True when the crew declared `signals:` (a strict registry).
    pub strict_signals: bool,
}

/// The gatekeeper service of the `gatekeeper` strategy.
#[derive(Clone, Debug, PartialEq)]
pub struct Gatekeeper {
    pub url: String,
    pub timeout: Duration,
    pub retries: u32,
    /// Where the bearer token comes from (keyring entry / environment variable name).
    pub token_env: Option<String>,
}

/// Run limits and the Go engine's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    pub max_handoffs: u32,
    pub max_tool_rounds: u32,
    pub max_rounds: u32,
    pub timeout: Duration,
    pub language: String,
    /// The most of the history (estimated tokens) an agent is shown; None = all of it.
    pub context_budget: Option<u32>,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            max_handoffs: DEFAULT_MAX_HANDOFFS,
            max_tool_rounds: DEFAULT_MAX_TOOL_ROUNDS,
            max_rounds: DEFAULT_MAX_ROUNDS,
            timeout: DEFAULT_RUN_TIMEOUT,
            language: "en".into(),
            context_budget: None,
        }
    }
}

pub use crate::tool_server::{policy_of, PolicyRule, ServerTransport, ServerValue, ToolPolicy, ToolServer, DEFAULT_TOOL_TIMEOUT};

/// The tools every crew has (DESIGN.md §6).
pub const BUILTIN_TOOLS: &[&str] = &["current_time", "calculator", "http_get"];
