//! Two versions of a crew drawn as one graph, for the window's comparison of
//! revisions: the newer version's graph, with what the older one had and the newer
//! lacks put back, and a mark on every node and edge that was added, removed or
//! changed ([`overlay`], pure).
//!
//! Nodes are the same node when their ids are (`agent:writer`, `group:review`,
//! `end`); an agent or group is changed when the [`CrewDiff`] says so. Edges are the
//! same edge when they join the same nodes, are of the same kind and carry the same
//! signal (a rule's place in its agent's list does not count); a signal edge that
//! is new where its agent had an edge for the same signal is that route pointed
//! elsewhere, and is marked changed (the old edge is marked removed). Edges put back
//! get ids of their own (`removed:` and the old id), so they never clash with the
//! newer version's.
//!
//! ```
//! use crewgraph_engine::file::diff::{diff, Change};
//! use crewgraph_engine::graph::overlay::overlay;
//! use crewgraph_engine::{graph::CrewGraph, load::load_spec_value};
//! use serde_json::json;
//!
//! let view = |spec: &serde_json::Value| {
//!     let crew = load_spec_value("crew", spec).unwrap().crew.unwrap();
//!     CrewGraph::build(&crew).view(&crew)
//! };
//! let old = json!({"name": "A", "entry_point": "a", "agents": [{"id": "a", "is_terminal": true}]});
//! let new = json!({"name": "A", "entry_point": "a", "agents": [{"id": "a", "is_terminal": true}, {"id": "b"}]});
//! let shown = overlay(&view(&old), &view(&new), &diff(&old, &new));
//! assert_eq!(shown.marks.get("agent:b"), Some(&Change::Added));
//! ```

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::Serialize;
use ts_rs::TS;

use super::view::{EdgeKind, GraphView, ViewEdge};
use crate::file::diff::{Change, CrewDiff};

/// The two versions as one graph, and what changed on it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, TS)]
#[ts(export)]
pub struct Overlay {
    pub graph: GraphView,
    /// Node and edge id → how it changed; what is not here is the same in both.
    pub marks: BTreeMap<String, Change>,
}

/// What makes two edges the same edge across versions.
type EdgeKey<'a> = (&'a str, &'a str, EdgeKind, Option<&'a str>);

fn key(edge: &ViewEdge) -> EdgeKey<'_> {
    (edge.source.as_str(), edge.target.as_str(), edge.kind, edge.signal.as_deref())
}

/// `older` and `newer` (the graph views of two versions) as one graph, marked with
/// `diff` (their spec's differences): see the module overview.
pub fn overlay(older: &GraphView, newer: &GraphView, diff: &CrewDiff) -> Overlay {
    let mut marks = BTreeMap::new();
    for agent in &diff.agents {
        marks.insert(format!("agent:{}", agent.id), agent.change);
    }
    for group in &diff.groups {
        marks.insert(format!("group:{}", group.id), group.change);
    }

    let new_ids: HashSet<&str> = newer.nodes.iter().map(|n| n.id.as_str()).collect();
    let old_ids: HashSet<&str> = older.nodes.iter().map(|n| n.id.as_str()).collect();
    let mut graph = GraphView { nodes: newer.nodes.clone(), edges: Vec::new() };
    for node in &newer.nodes {
        if !old_ids.contains(node.id.as_str()) {
            marks.insert(node.id.clone(), Change::Added);
        }
    }
    // Removed group frames come in the older version's order, before their members.
    for node in older.nodes.iter().filter(|n| !new_ids.contains(n.id.as_str())) {
        marks.insert(node.id.clone(), Change::Removed);
        graph.nodes.push(node.clone());
    }
    // A node the newer version has (or has not) marked by the diff but that only one
    // side drew keeps the mark the drawing says.
    marks.retain(|id, _| graph.nodes.iter().any(|n| n.id == *id));

    let old_edges: HashMap<EdgeKey, &ViewEdge> = older.edges.iter().map(|e| (key(e), e)).collect();
    let new_keys: HashSet<EdgeKey> = newer.edges.iter().map(key).collect();
    let old_routes: HashSet<(&str, &str)> = older.edges.iter().filter_map(|e| Some((e.source.as_str(), e.signal.as_deref()?))).collect();
    for edge in &newer.edges {
        let mark = match old_edges.get(&key(edge)) {
            Some(old) if old.description != edge.description || old.behavior != edge.behavior || old.label != edge.label => {
                Some(Change::Changed)
            }
            Some(_) => None,
            None => match edge.signal.as_deref() {
                Some(signal) if old_routes.contains(&(edge.source.as_str(), signal)) => Some(Change::Changed),
                _ => Some(Change::Added),
            },
        };
        if let Some(mark) = mark {
            marks.insert(edge.id.clone(), mark);
        }
        graph.edges.push(edge.clone());
    }
    for edge in older.edges.iter().filter(|e| !new_keys.contains(&key(e))) {
        let id = format!("removed:{}", edge.id);
        marks.insert(id.clone(), Change::Removed);
        graph.edges.push(ViewEdge { id, ..edge.clone() });
    }
    Overlay { graph, marks }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::*;
    use crate::file::diff::diff;
    use crate::graph::CrewGraph;
    use crate::load::load_spec_value;

    fn view(spec: &Value) -> GraphView {
        let crew = load_spec_value("crew", spec).unwrap().crew.unwrap();
        CrewGraph::build(&crew).view(&crew)
    }

    fn desk() -> Value {
        json!({"name": "Desk", "entry_point": "writer",
            "agents": [{"id": "writer", "name": "Writer"}, {"id": "editor", "name": "Editor", "system_prompt": "Edit."}],
            "routing": {"signals": {
                "writer": [{"signal": "[READY]", "target": "editor"}],
                "editor": [{"signal": "[REVISE]", "target": "writer"}, {"signal": "[DONE]", "target": ""}]}}})
    }

    fn shown(old: &Value, new: &Value) -> Overlay {
        overlay(&view(old), &view(new), &diff(old, new))
    }

    #[test]
    fn the_same_crew_has_no_marks() {
        let same = shown(&desk(), &desk());
        assert!(same.marks.is_empty(), "{:?}", same.marks);
        assert_eq!(same.graph, view(&desk()));
    }

    #[test]
    fn an_added_agent_its_arrow_and_a_repointed_route_are_marked() {
        let mut new = desk();
        new["agents"].as_array_mut().unwrap().push(json!({"id": "critic", "name": "Critic"}));
        new["routing"]["signals"]["editor"][0]["target"] = json!("critic");
        new["agents"][1]["system_prompt"] = json!("Edit carefully.");
        let shown = shown(&desk(), &new);
        assert_eq!(shown.marks.get("agent:critic"), Some(&Change::Added));
        assert_eq!(shown.marks.get("agent:editor"), Some(&Change::Changed), "its instructions changed");
        assert_eq!(shown.marks.get("agent:writer"), None);
        let repointed = shown.graph.edges.iter().find(|e| e.target == "agent:critic").unwrap();
        assert_eq!(shown.marks.get(&repointed.id), Some(&Change::Changed), "[REVISE] now goes elsewhere");
        let old = shown.graph.edges.iter().find(|e| e.id.starts_with("removed:") && e.target == "agent:writer").unwrap();
        assert_eq!(old.signal.as_deref(), Some("[REVISE]"));
        assert_eq!(shown.marks.get(&old.id), Some(&Change::Removed));
    }

    #[test]
    fn a_removed_agent_and_its_arrows_are_put_back_marked_removed() {
        let mut new = desk();
        new["agents"].as_array_mut().unwrap().remove(1);
        new["routing"]["signals"] = json!({"writer": [{"signal": "[READY]", "target": ""}]});
        let shown = shown(&desk(), &new);
        assert!(shown.graph.nodes.iter().any(|n| n.id == "agent:editor"), "the removed card is drawn");
        assert_eq!(shown.marks.get("agent:editor"), Some(&Change::Removed));
        let ids: HashSet<&str> = shown.graph.edges.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ids.len(), shown.graph.edges.len(), "edge ids stay unique");
        for edge in shown.graph.edges.iter().filter(|e| e.source == "agent:editor") {
            assert_eq!(shown.marks.get(&edge.id), Some(&Change::Removed), "{}", edge.id);
        }
        let ending = shown.graph.edges.iter().find(|e| e.source == "agent:writer" && e.target == "end").unwrap();
        assert_eq!(shown.marks.get(&ending.id), Some(&Change::Changed), "[READY] now ends the run");
        let nodes: HashSet<&str> = shown.graph.nodes.iter().map(|n| n.id.as_str()).collect();
        for edge in &shown.graph.edges {
            assert!(nodes.contains(edge.source.as_str()) && nodes.contains(edge.target.as_str()), "{} has both ends", edge.id);
        }
    }

    #[test]
    fn a_removed_group_frame_comes_before_its_members() {
        let mut old = desk();
        old["routing"]["parallel_groups"] = json!({"pair": {"agents": ["writer", "editor"]}});
        let shown = shown(&old, &desk());
        assert_eq!(shown.marks.get("group:pair"), Some(&Change::Removed));
        assert!(shown.graph.nodes.iter().any(|n| n.id == "group:pair"));
    }
}
