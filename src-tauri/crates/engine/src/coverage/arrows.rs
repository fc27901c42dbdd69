//! The arrows of a crew's drawing ([`GraphView`]), found by what a run does: a
//! routing rule's arrow by its agent, signal and target; any other arrow by its
//! kind and its two ends. Node ids are the view's: `agent:<id>`, `group:<id>`,
//! `end`, `wait`, `router`.

use crate::graph::{EdgeKind, GraphView, ViewEdge};

/// The arrows of one drawing, looked up by what a run does.
#[derive(Clone, Copy, Debug)]
pub struct Arrows<'v> {
    view: &'v GraphView,
}

/// The view's id of an agent's node.
pub fn agent_node(agent: &str) -> String {
    format!("agent:{agent}")
}

/// The view's id of a group's node.
pub fn group_node(group: &str) -> String {
    format!("group:{group}")
}

impl<'v> Arrows<'v> {
    /// The arrows of `view`.
    pub fn new(view: &'v GraphView) -> Self {
        Self { view }
    }

    /// Every arrow, in drawing order.
    pub fn all(&self) -> &'v [ViewEdge] {
        &self.view.edges
    }

    /// The arrow with this id.
    pub fn get(&self, id: &str) -> Option<&'v ViewEdge> {
        self.view.edges.iter().find(|e| e.id == id)
    }

    /// The arrow of `agent`'s first rule on `signal` that leads to node `target`
    /// (the rule a run takes: rules are tried in file order).
    pub fn rule(&self, agent: &str, signal: &str, target: &str) -> Option<&'v ViewEdge> {
        self.view
            .edges
            .iter()
            .filter(|e| e.kind == EdgeKind::Signal && e.target == target && e.signal.as_deref() == Some(signal))
            .filter(|e| e.rule.as_ref().is_some_and(|r| r.agent == agent))
            .min_by_key(|e| e.rule.as_ref().map_or(u32::MAX, |r| r.index))
    }

    /// The arrow of `kind` from node `source` to node `target`.
    pub fn between(&self, kind: EdgeKind, source: &str, target: &str) -> Option<&'v ViewEdge> {
        self.view.edges.iter().find(|e| e.kind == kind && e.source == source && e.target == target)
    }

    /// The arrows of `kind` leaving node `source`.
    pub fn from(&self, kind: EdgeKind, source: &str) -> Vec<&'v ViewEdge> {
        self.view.edges.iter().filter(|e| e.kind == kind && e.source == source).collect()
    }

    /// What people call a node: an agent's name, a group's id, "End", "Wait", the
    /// router's name.
    pub fn node_name(&self, id: &str) -> String {
        self.view.nodes.iter().find(|n| n.id == id).map_or_else(|| id.split_once(':').map_or(id, |s| s.1).to_owned(), |n| n.label.clone())
    }

    /// An arrow in words: "Teacher → exam_round".
    pub fn ends(&self, edge: &ViewEdge) -> String {
        format!("{} → {}", self.node_name(&edge.source), self.node_name(&edge.target))
    }
}
