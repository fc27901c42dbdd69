//! The crew as a graph (petgraph `StableGraph`, so removing a node in the editor
//! keeps every other node's index): agents, parallel groups and the End / Wait
//! pseudo-nodes (plus a Router node under the `llm` and `gatekeeper` strategies),
//! joined by signal edges labelled with their signal and behaviour, fallback
//! (`handoff_targets`) edges, a group's edge to its next agent, and the edges the
//! other strategies imply.
//!
//! Graph indices stay in this module; the outside sees ids and the [`view`] model
//! that the window draws.
//!
//! ```
//! use crewgraph_engine::{graph::CrewGraph, load::load_str};
//! let crew = load_str("c.yaml", "entry_point: a\nagents:\n  - id: a\n  - id: b\n    is_terminal: true\nrouting:\n  signals:\n    a: [{signal: '[NEXT]', target: b}]\n").crew.unwrap();
//! let view = CrewGraph::build(&crew).view(&crew);
//! assert!(view.edges.iter().any(|e| e.source == "agent:a" && e.target == "agent:b"));
//! ```

pub mod overlay;
pub mod view;

use std::collections::HashMap;

use petgraph::stable_graph::{NodeIndex, StableGraph};
use petgraph::visit::EdgeRef;

use crate::crew::{Crew, Strategy, Target};
use crate::ids::{AgentId, GroupId, SignalName};
use crate::signal::Behavior;

pub use view::{EdgeKind, GraphView, GroupInfo, NodeKind, RuleRef, ViewEdge, ViewNode};

/// A node of the crew graph.
#[derive(Clone, Debug, PartialEq)]
pub enum GraphNode {
    Agent(AgentId),
    Group(GroupId),
    /// Where terminate signals and terminal agents lead.
    End,
    /// Where pause signals and waiting agents lead: "waits for you".
    Wait,
    /// The router model or gatekeeper service that picks the next agent.
    Router,
}

/// An edge of the crew graph.
#[derive(Clone, Debug, PartialEq)]
pub enum GraphEdge {
    /// A routing rule: `agent`'s `rule`th rule, on `signal`, doing `behavior`.
    Signal { agent: AgentId, rule: u32, signal: SignalName, behavior: Behavior },
    /// A fallback (`handoff_targets`) used when no signal matched.
    Fallback,
    /// From a group to where the work goes after it (`back` when it returns to the emitter).
    GroupNext { back: bool },
    /// From a group to a member drawn outside it (a member of several groups).
    Membership,
    /// From a terminal agent to End.
    Terminal,
    /// From a `wait_for_signal` agent to Wait.
    Waits,
    /// Scoring: the supervisor may pick this specialist.
    Score,
    /// Scoring: the specialist's answer goes to the finalizer (or End).
    Finalize,
    /// `llm` / `gatekeeper`: the router may assign this agent (or end the run).
    Assign,
    /// `llm` / `gatekeeper`: from the entry point, which takes the person's request,
    /// to the router, which decides who works on it next (the entry point is never
    /// assigned work again).
    Asks,
}

/// A crew's routes as a graph.
#[derive(Clone, Debug)]
pub struct CrewGraph {
    graph: StableGraph<GraphNode, GraphEdge>,
    agents: HashMap<AgentId, NodeIndex>,
    groups: HashMap<GroupId, NodeIndex>,
}

impl CrewGraph {
    /// Builds the graph of a crew.
    pub fn build(crew: &Crew) -> Self {
        let mut graph = StableGraph::new();
        let mut agents = HashMap::new();
        let mut groups = HashMap::new();
        for agent in &crew.agents {
            agents.insert(agent.id.clone(), graph.add_node(GraphNode::Agent(agent.id.clone())));
        }
        for group in &crew.routing.groups {
            groups.insert(group.id.clone(), graph.add_node(GraphNode::Group(group.id.clone())));
        }
        let mut this = CrewGraph { graph, agents, groups };
        this.add_rules(crew);
        this.add_groups(crew);
        this.add_behaviours(crew);
        this.add_strategy(crew);
        this
    }

    fn special(&mut self, node: GraphNode) -> NodeIndex {
        match self.graph.node_indices().find(|i| self.graph[*i] == node) {
            Some(index) => index,
            None => self.graph.add_node(node),
        }
    }

    fn add_rules(&mut self, crew: &Crew) {
        for (agent, rules) in &crew.routing.rules {
            let Some(&from) = self.agents.get(agent) else { continue };
            for rule in rules {
                let edge =
                    GraphEdge::Signal { agent: agent.clone(), rule: rule.index, signal: rule.signal.clone(), behavior: rule.behavior };
                match rule.behavior {
                    Behavior::Terminate => {
                        let end = self.special(GraphNode::End);
                        self.graph.add_edge(from, end, edge);
                    }
                    Behavior::Pause => {
                        let wait = self.special(GraphNode::Wait);
                        self.graph.add_edge(from, wait, edge);
                    }
                    _ => {
                        for target in &rule.targets {
                            if let Some(to) = self.target_node(target) {
                                self.graph.add_edge(from, to, edge.clone());
                            }
                        }
                    }
                }
            }
        }
    }

    fn target_node(&self, target: &Target) -> Option<NodeIndex> {
        match target {
            Target::Agent(id) => self.agents.get(id).copied(),
            Target::Group(id) => self.groups.get(id).copied(),
        }
    }

    fn add_groups(&mut self, crew: &Crew) {
        for group in &crew.routing.groups {
            let Some(&node) = self.groups.get(&group.id) else { continue };
            for member in &group.agents {
                // A member of several groups cannot sit inside each frame.
                if crew.routing.groups.iter().filter(|g| g.agents.contains(member)).count() > 1 {
                    if let Some(&to) = self.agents.get(member) {
                        self.graph.add_edge(node, to, GraphEdge::Membership);
                    }
                }
            }
            match &group.next_agent {
                Some(next) => {
                    if let Some(&to) = self.agents.get(next) {
                        self.graph.add_edge(node, to, GraphEdge::GroupNext { back: false });
                    }
                }
                None => {
                    // Back to whichever agent started the group.
                    let emitters: Vec<NodeIndex> = self
                        .graph
                        .edges_directed(node, petgraph::Direction::Incoming)
                        .filter(|e| matches!(e.weight(), GraphEdge::Signal { .. }))
                        .map(|e| e.source())
                        .collect();
                    let mut seen = Vec::new();
                    for from in emitters {
                        if !seen.contains(&from) {
                            seen.push(from);
                            self.graph.add_edge(node, from, GraphEdge::GroupNext { back: true });
                        }
                    }
                }
            }
        }
    }

    fn add_behaviours(&mut self, crew: &Crew) {
        for agent in &crew.agents {
            let Some(&from) = self.agents.get(&agent.id) else { continue };
            for target in &agent.handoff_targets {
                if let Some(&to) = self.agents.get(target) {
                    self.graph.add_edge(from, to, GraphEdge::Fallback);
                }
            }
            if agent.is_terminal {
                let end = self.special(GraphNode::End);
                self.graph.add_edge(from, end, GraphEdge::Terminal);
            }
            if agent.wait_for_signal {
                let wait = self.special(GraphNode::Wait);
                self.graph.add_edge(from, wait, GraphEdge::Waits);
            }
        }
    }

    fn add_strategy(&mut self, crew: &Crew) {
        match crew.routing.strategy {
            Strategy::Signals => {}
            Strategy::Scoring => {
                let Some(&supervisor) = self.agents.get(&crew.entry_point) else { return };
                let finalizer = crew.routing.finalizer.as_ref().and_then(|f| self.agents.get(f).copied());
                let end = self.special(GraphNode::End);
                for agent in &crew.agents {
                    let Some(&node) = self.agents.get(&agent.id) else { continue };
                    if node == supervisor || Some(node) == finalizer {
                        continue;
                    }
                    self.graph.add_edge(supervisor, node, GraphEdge::Score);
                    self.graph.add_edge(node, finalizer.unwrap_or(end), GraphEdge::Finalize);
                }
                let finalizer_ends = crew.routing.finalizer.as_ref().and_then(|f| crew.agent(f.as_str())).is_some_and(|a| a.is_terminal);
                if let Some(finalizer) = finalizer.filter(|_| !finalizer_ends) {
                    self.graph.add_edge(finalizer, end, GraphEdge::Finalize);
                }
            }
            Strategy::Llm | Strategy::Gatekeeper => {
                let router = self.special(GraphNode::Router);
                for agent in &crew.agents {
                    let Some(&node) = self.agents.get(&agent.id) else { continue };
                    if agent.id == crew.entry_point {
                        self.graph.add_edge(node, router, GraphEdge::Asks);
                    } else {
                        self.graph.add_edge(router, node, GraphEdge::Assign);
                    }
                }
                let end = self.special(GraphNode::End);
                self.graph.add_edge(router, end, GraphEdge::Assign);
            }
        }
    }

    /// The agents a run may go to next from `agent` through its rules, fallbacks
    /// and groups (not through strategies), without repeats.
    pub fn successors(&self, agent: &AgentId) -> Vec<AgentId> {
        let Some(&node) = self.agents.get(agent) else { return Vec::new() };
        let mut out = Vec::new();
        for neighbour in self.graph.neighbors(node) {
            if let GraphNode::Agent(id) = &self.graph[neighbour] {
                if !out.contains(id) {
                    out.push(id.clone());
                }
            }
        }
        out
    }

    /// The number of nodes (agents, groups and pseudo-nodes).
    pub fn node_count(&self) -> usize {
        self.graph.node_count()
    }

    /// The number of edges.
    pub fn edge_count(&self) -> usize {
        self.graph.edge_count()
    }
}
