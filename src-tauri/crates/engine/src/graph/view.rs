//! The view model the window draws: nodes and edges with stable string ids, labels
//! and kinds, free of petgraph indices. It crosses to the UI as generated
//! TypeScript (ts-rs); the UI lays it out and styles it by `kind` and `behavior`.
//!
//! Ids: `agent:<id>`, `group:<id>`, `end`, `wait`, `router` for nodes;
//! `rule:<agent>:<index>:<target node>` for signal edges (a broadcast rule has one
//! edge per target), `fallback:…`, `next:…`, `member:…`, `terminal:…`, `waits:…`,
//! `score:…`, `finalize:…`, `assign:…` for the others.

use petgraph::visit::{EdgeRef, IntoEdgeReferences};
use serde::Serialize;
use ts_rs::TS;

use super::{CrewGraph, GraphEdge, GraphNode};
use crate::crew::{Crew, Strategy};
use crate::diagnostic::Subject;
use crate::signal::Behavior;

/// What a node is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum NodeKind {
    Agent,
    Group,
    End,
    Wait,
    Router,
}

/// What an edge is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum EdgeKind {
    /// A routing rule (see `behavior`).
    Signal,
    /// A `handoff_targets` fallback: "otherwise".
    Fallback,
    /// A group's way on (or back to the agent that started it).
    GroupNext,
    /// A group's member drawn outside its frame.
    Membership,
    /// A terminal agent's way to End.
    Terminal,
    /// A waiting agent's way to Wait.
    Waits,
    /// Scoring: the supervisor may pick this specialist.
    Score,
    /// Scoring: on to the finalizer or End.
    Finalize,
    /// `llm` / `gatekeeper`: the router may assign this agent.
    Assign,
    /// `llm` / `gatekeeper`: the entry point's request goes to the router.
    Asks,
}

/// A parallel group's settings, for its frame.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
#[ts(export)]
pub struct GroupInfo {
    /// The group's id (what a crew's `parallel_groups` and a run's events call it).
    pub id: String,
    pub members: Vec<String>,
    #[ts(type = "number")]
    pub timeout_ms: u64,
    pub wait_for_all: bool,
    pub next_agent: Option<String>,
}

/// One node to draw.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
#[ts(export)]
pub struct ViewNode {
    pub id: String,
    pub kind: NodeKind,
    /// The agent's name, the group's id, "End", "Wait", or the router's name.
    pub label: String,
    /// The agent's id (agents only).
    pub agent: Option<String>,
    pub role: Option<String>,
    /// The model shown as a small tag; None = the default model.
    pub model: Option<String>,
    pub description: Option<String>,
    pub tags: Vec<String>,
    /// The group frame this node sits in.
    pub parent: Option<String>,
    /// The agent where runs start.
    pub entry: bool,
    pub terminal: bool,
    pub waits: bool,
    pub group: Option<GroupInfo>,
}

impl ViewNode {
    /// A node with only an id, a kind and a label; the rest empty.
    fn new(id: String, kind: NodeKind, label: String) -> Self {
        ViewNode {
            id,
            kind,
            label,
            agent: None,
            role: None,
            model: None,
            description: None,
            tags: Vec::new(),
            parent: None,
            entry: false,
            terminal: false,
            waits: false,
            group: None,
        }
    }
}

/// Which routing rule an edge draws.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct RuleRef {
    pub agent: String,
    pub index: u32,
}

/// One edge to draw.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
#[ts(export)]
pub struct ViewEdge {
    pub id: String,
    pub source: String,
    pub target: String,
    pub kind: EdgeKind,
    /// The signal for signal edges, a short word for the others ("otherwise").
    pub label: String,
    pub signal: Option<String>,
    pub behavior: Option<Behavior>,
    /// What the signal means, when the crew says.
    pub description: Option<String>,
    pub rule: Option<RuleRef>,
}

/// The crew graph as the window draws it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, TS)]
#[ts(export)]
pub struct GraphView {
    /// Group frames come before the nodes inside them.
    pub nodes: Vec<ViewNode>,
    pub edges: Vec<ViewEdge>,
}

fn node_id(node: &GraphNode) -> String {
    match node {
        GraphNode::Agent(id) => format!("agent:{id}"),
        GraphNode::Group(id) => format!("group:{id}"),
        GraphNode::End => "end".into(),
        GraphNode::Wait => "wait".into(),
        GraphNode::Router => "router".into(),
    }
}

impl CrewGraph {
    /// The view model of this graph; `crew` supplies names, roles and labels.
    pub fn view(&self, crew: &Crew) -> GraphView {
        let mut nodes: Vec<ViewNode> = Vec::new();
        for group in &crew.routing.groups {
            nodes.push(ViewNode {
                description: Some(group.description.clone()).filter(|d| !d.is_empty()),
                group: Some(GroupInfo {
                    id: group.id.to_string(),
                    members: group.agents.iter().map(|a| a.to_string()).collect(),
                    timeout_ms: group.timeout.as_millis() as u64,
                    wait_for_all: group.wait_for_all,
                    next_agent: group.next_agent.as_ref().map(|a| a.to_string()),
                }),
                ..ViewNode::new(format!("group:{}", group.id), NodeKind::Group, group.id.to_string())
            });
        }
        for agent in &crew.agents {
            let groups: Vec<_> = crew.routing.groups.iter().filter(|g| g.agents.contains(&agent.id)).collect();
            nodes.push(ViewNode {
                agent: Some(agent.id.to_string()),
                role: Some(agent.role.clone()).filter(|r| !r.is_empty()),
                model: agent.model_label().map(str::to_owned),
                description: Some(agent.description.clone()).filter(|d| !d.is_empty()),
                tags: agent.tags.clone(),
                parent: match groups.as_slice() {
                    [only] => Some(format!("group:{}", only.id)),
                    _ => None,
                },
                entry: agent.id == crew.entry_point,
                terminal: agent.is_terminal,
                waits: agent.wait_for_signal,
                ..ViewNode::new(format!("agent:{}", agent.id), NodeKind::Agent, agent.name.clone())
            });
        }
        for index in self.graph.node_indices() {
            let (label, kind) = match &self.graph[index] {
                GraphNode::End => ("End".to_owned(), NodeKind::End),
                GraphNode::Wait => ("Wait".to_owned(), NodeKind::Wait),
                GraphNode::Router => {
                    (if crew.routing.strategy == Strategy::Gatekeeper { "Gatekeeper" } else { "Router" }.to_owned(), NodeKind::Router)
                }
                _ => continue,
            };
            nodes.push(ViewNode::new(node_id(&self.graph[index]), kind, label));
        }

        let mut edges = Vec::new();
        for edge in self.graph.edge_references() {
            let source = node_id(&self.graph[edge.source()]);
            let target = node_id(&self.graph[edge.target()]);
            let plain = |kind: EdgeKind, label: &str, prefix: &str| ViewEdge {
                id: format!("{prefix}:{}:{}", source.split_once(':').map_or(source.as_str(), |s| s.1), target),
                source: source.clone(),
                target: target.clone(),
                kind,
                label: label.to_owned(),
                signal: None,
                behavior: None,
                description: None,
                rule: None,
            };
            edges.push(match edge.weight() {
                GraphEdge::Signal { agent, rule, signal, behavior } => ViewEdge {
                    id: format!("rule:{agent}:{rule}:{target}"),
                    source: source.clone(),
                    target: target.clone(),
                    kind: EdgeKind::Signal,
                    label: signal.to_string(),
                    signal: Some(signal.to_string()),
                    behavior: Some(*behavior),
                    description: crew
                        .rules_of(agent.as_str())
                        .iter()
                        .find(|r| r.index == *rule)
                        .map(|r| r.description.clone())
                        .filter(|d| !d.is_empty()),
                    rule: Some(RuleRef { agent: agent.to_string(), index: *rule }),
                },
                GraphEdge::Fallback => plain(EdgeKind::Fallback, "otherwise", "fallback"),
                GraphEdge::GroupNext { back: false } => plain(EdgeKind::GroupNext, "then", "next"),
                GraphEdge::GroupNext { back: true } => plain(EdgeKind::GroupNext, "back", "next"),
                GraphEdge::Membership => plain(EdgeKind::Membership, "member", "member"),
                GraphEdge::Terminal => plain(EdgeKind::Terminal, "finishes", "terminal"),
                GraphEdge::Waits => plain(EdgeKind::Waits, "waits for you", "waits"),
                GraphEdge::Score => plain(EdgeKind::Score, "best match", "score"),
                GraphEdge::Finalize => plain(EdgeKind::Finalize, "answer", "finalize"),
                GraphEdge::Assign => plain(EdgeKind::Assign, "assigns", "assign"),
                GraphEdge::Asks => plain(EdgeKind::Asks, "asks", "asks"),
            });
        }
        GraphView { nodes, edges }
    }
}

impl GraphView {
    /// The ids of the nodes and edges a problem is about, so the window can badge
    /// them; a rule whose edge could not be drawn falls back to its agent.
    pub fn targets_of(&self, subject: &Subject) -> Vec<String> {
        let node = |id: String| -> Vec<String> {
            if self.nodes.iter().any(|n| n.id == id) {
                vec![id]
            } else {
                Vec::new()
            }
        };
        match subject {
            Subject::Crew => Vec::new(),
            Subject::Agent { agent } => node(format!("agent:{agent}")),
            Subject::Group { group } => node(format!("group:{group}")),
            Subject::Rule { agent, index } => {
                let edges: Vec<String> = self
                    .edges
                    .iter()
                    .filter(|e| e.rule.as_ref().is_some_and(|r| r.agent == *agent && r.index == *index))
                    .map(|e| e.id.clone())
                    .collect();
                if edges.is_empty() {
                    node(format!("agent:{agent}"))
                } else {
                    edges
                }
            }
            Subject::Handoff { agent, target } => {
                let id = format!("fallback:{agent}:agent:{target}");
                if self.edges.iter().any(|e| e.id == id) {
                    vec![id]
                } else {
                    node(format!("agent:{agent}"))
                }
            }
            Subject::Signal { signal } => {
                self.edges.iter().filter(|e| e.signal.as_deref() == Some(signal.as_str())).map(|e| e.id.clone()).collect()
            }
        }
    }
}
