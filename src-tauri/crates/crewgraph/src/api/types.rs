//! The data the API hands out. Each type is exported to TypeScript (ts-rs) for the UI.

use crewgraph_engine::crew::{CrewLayout, Strategy};
use crewgraph_engine::diagnostic::Diagnostic;
use crewgraph_engine::graph::GraphView;
use crewgraph_engine::signal::{MatchLevel, SignalDef};
use serde::Serialize;
use ts_rs::TS;

/// One crew of the crews folder, for the start view.
#[derive(Clone, Debug, Serialize, TS)]
#[ts(export)]
pub struct CrewSummary {
    /// The path to pass to `open_crew`.
    pub path: String,
    /// The file or folder name.
    pub file_name: String,
    pub name: String,
    pub description: String,
    pub strategy: Strategy,
    pub layout: CrewLayout,
    pub agents: u32,
    pub errors: u32,
    pub warnings: u32,
    /// For the thumbnail picture.
    pub graph: GraphView,
}

/// An agent as the inspector shows it.
#[derive(Clone, Debug, Serialize, TS)]
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
}

/// A problem with the ids of the nodes and edges it concerns.
#[derive(Clone, Debug, Serialize, TS)]
#[ts(export)]
pub struct ProblemView {
    pub diagnostic: Diagnostic,
    /// Node and edge ids of the graph view (empty: about the crew as a whole).
    pub targets: Vec<String>,
}

/// An opened crew: what the canvas, the inspector and the problems list show.
#[derive(Clone, Debug, Serialize, TS)]
#[ts(export)]
pub struct CrewDocument {
    pub path: String,
    pub name: String,
    pub description: String,
    /// False when the crew has errors (it cannot run until they are fixed).
    pub valid: bool,
    /// False when the file could not even be read as a crew (no graph).
    pub parsed: bool,
    pub strategy: Option<Strategy>,
    pub layout: Option<CrewLayout>,
    pub entry_point: Option<String>,
    pub max_handoffs: Option<u32>,
    pub agents: Vec<AgentView>,
    pub signals: Vec<SignalDef>,
    pub graph: GraphView,
    pub problems: Vec<ProblemView>,
}

/// The answer of `match_signal`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct MatchResult {
    pub matched: bool,
    pub level: MatchLevel,
}
