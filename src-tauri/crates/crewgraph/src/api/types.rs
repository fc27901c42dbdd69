//! The data the API hands out. Each type is exported to TypeScript (ts-rs) for the UI
//! and described in the HTTP server's OpenAPI document (utoipa); the engine's types
//! inside them appear there as plain objects or strings, their exact shapes being the
//! generated TypeScript in `ui/src/bindings`.

use crewgraph_engine::crew::{CrewLayout, Strategy};
use crewgraph_engine::diagnostic::Diagnostic;
use crewgraph_engine::graph::GraphView;
use crewgraph_engine::signal::{MatchLevel, SignalDef};
use serde::Serialize;
use ts_rs::TS;
use utoipa::ToSchema;

/// One crew of the crews folder, for the start view.
#[derive(Clone, Debug, Serialize, TS, ToSchema)]
#[ts(export)]
pub struct CrewSummary {
    /// The path to pass to `open_crew`.
    pub path: String,
    /// The file or folder name.
    pub file_name: String,
    pub name: String,
    pub description: String,
    #[schema(value_type = String, example = "signals")]
    pub strategy: Strategy,
    #[schema(value_type = String, example = "file")]
    pub layout: CrewLayout,
    pub agents: u32,
    pub errors: u32,
    pub warnings: u32,
    /// For the thumbnail picture.
    #[schema(value_type = Object)]
    pub graph: GraphView,
}

/// An agent as the inspector shows it.
#[derive(Clone, Debug, Serialize, TS, ToSchema)]
#[ts(export)]
pub struct AgentView {
    pub id: String,
    pub name: String,
    pub role: String,
    pub description: String,
    pub objective: String,
    pub tags: Vec<String>,
    pub system_prompt: String,
    /// None = the default model.
    pub model: Option<String>,
    pub temperature: Option<f64>,
    pub tools: Vec<String>,
    pub handoff_targets: Vec<String>,
    pub is_terminal: bool,
    pub wait_for_signal: bool,
    /// Where its work goes when its reply has no signal and no arrow of its own says
    /// where: the next agent of the crew, chosen automatically (shown on its card).
    pub automatic_fallback: Option<String>,
    /// Added while the app runs (`POST …/agents`, `crewgraph agents add`), not in the
    /// crew's file: its card is marked so.
    pub runtime: bool,
}

/// A problem with the ids of the nodes and edges it concerns.
#[derive(Clone, Debug, Serialize, TS, ToSchema)]
#[ts(export)]
pub struct ProblemView {
    #[schema(value_type = Object)]
    pub diagnostic: Diagnostic,
    /// Node and edge ids of the graph view (empty: about the crew as a whole).
    pub targets: Vec<String>,
}

/// An opened crew: what the canvas, the inspector and the problems list show.
#[derive(Clone, Debug, Serialize, TS, ToSchema)]
#[ts(export)]
pub struct CrewDocument {
    pub path: String,
    pub name: String,
    pub description: String,
    /// False when the crew has errors (it cannot run until they are fixed).
    pub valid: bool,
    /// False when the file could not even be read as a crew (no graph).
    pub parsed: bool,
    #[schema(value_type = Option<String>)]
    pub strategy: Option<Strategy>,
    #[schema(value_type = Option<String>)]
    pub layout: Option<CrewLayout>,
    pub entry_point: Option<String>,
    pub max_handoffs: Option<u32>,
    pub agents: Vec<AgentView>,
    #[schema(value_type = Vec<Object>)]
    pub signals: Vec<SignalDef>,
    #[schema(value_type = Object)]
    pub graph: GraphView,
    pub problems: Vec<ProblemView>,
}

/// The answer of `match_signal`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS, ToSchema)]
#[ts(export)]
pub struct MatchResult {
    pub matched: bool,
    /// exact, case_insensitive, normalized, pattern or none.
    #[schema(value_type = String, example = "normalized")]
    pub level: MatchLevel,
}
