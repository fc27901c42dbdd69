//! The crew graph's view model (what the window draws) and `targets_of`, which says
//! which node or edge a problem's badge goes on.

use crewgraph_engine::diagnostic::Subject;
use crewgraph_engine::graph::{CrewGraph, EdgeKind, GraphView, NodeKind};
use crewgraph_engine::signal::Behavior;
use crewgraph_engine::Crew;

use crate::support::{load, valid};

fn view_of(crew: &Crew) -> GraphView {
    CrewGraph::build(crew).view(crew)
}

/// `(source, target, kind, label)` of every edge, sorted, for whole-graph comparisons.
fn edges(view: &GraphView) -> Vec<(String, String, EdgeKind, String)> {
    let mut edges: Vec<_> = view.edges.iter().map(|e| (e.source.clone(), e.target.clone(), e.kind, e.label.clone())).collect();
    edges.sort_by(|a, b| (&a.0, &a.1, &a.3).cmp(&(&b.0, &b.1, &b.3)));
    edges
}

fn edge(source: &str, target: &str, kind: EdgeKind, label: &str) -> (String, String, EdgeKind, String) {
    (source.to_owned(), target.to_owned(), kind, label.to_owned())
}

const CLASSROOM: &str = r#"entry_point: teacher
agents:
  - id: teacher
    name: Ms Lee
    role: Asks
  - id: student
    handoff_targets: [teacher]
  - id: reporter
  - id: helper
    wait_for_signal: true
signals:
  - { name: "[QUESTION]", behavior: parallel }
  - { name: "[HELP]" }
  - { name: "[ANNOUNCE]", behavior: broadcast }
routing:
  signals:
    teacher:
      - { signal: "[QUESTION]", target: round }
      - { signal: "[HELP]", target: helper }
      - { signal: "[ANNOUNCE]", target: [student, reporter] }
      - { signal: "[WAIT]", target: "" }
      - { signal: "[END_EXAM]", target: "" }
  parallel_groups:
    round:
      agents: [student, reporter]
"#;

#[test]
fn classroom_graph_draws_every_route_with_its_kind_and_label() {
    let crew = valid(CLASSROOM);
    let view = view_of(&crew);
    assert_eq!(
        edges(&view),
        [
            edge("agent:helper", "wait", EdgeKind::Waits, "waits for you"),
            edge("agent:student", "agent:teacher", EdgeKind::Fallback, "otherwise"),
            edge("agent:teacher", "agent:helper", EdgeKind::Signal, "[HELP]"),
            edge("agent:teacher", "agent:reporter", EdgeKind::Signal, "[ANNOUNCE]"),
            edge("agent:teacher", "agent:student", EdgeKind::Signal, "[ANNOUNCE]"),
            edge("agent:teacher", "end", EdgeKind::Signal, "[END_EXAM]"),
            edge("agent:teacher", "group:round", EdgeKind::Signal, "[QUESTION]"),
            edge("agent:teacher", "wait", EdgeKind::Signal, "[WAIT]"),
            // No next_agent: the group hands back to whoever started it.
            edge("group:round", "agent:teacher", EdgeKind::GroupNext, "back"),
        ]
    );
    let behaviour = |label: &str| view.edges.iter().find(|e| e.label == label).and_then(|e| e.behavior);
    assert_eq!(behaviour("[QUESTION]"), Some(Behavior::Parallel));
    assert_eq!(behaviour("[ANNOUNCE]"), Some(Behavior::Broadcast));
    assert_eq!(behaviour("[WAIT]"), Some(Behavior::Pause));
    assert_eq!(behaviour("[END_EXAM]"), Some(Behavior::Terminate));
}

#[test]
fn classroom_nodes_carry_card_details_and_group_frames() {
    let crew = valid(CLASSROOM);
    let view = view_of(&crew);
    let node = |id: &str| view.nodes.iter().find(|n| n.id == id).unwrap_or_else(|| panic!("{id} drawn"));
    let teacher = node("agent:teacher");
    assert_eq!((teacher.label.as_str(), teacher.role.as_deref(), teacher.entry), ("Ms Lee", Some("Asks"), true));
    assert_eq!(node("agent:student").label, "student", "an agent without a name shows its id");
    assert_eq!(node("agent:student").parent.as_deref(), Some("group:round"));
    assert_eq!(node("agent:teacher").parent, None);
    assert!(node("agent:helper").waits);
    let round = node("group:round");
    assert_eq!(round.kind, NodeKind::Group);
    let info = round.group.as_ref().unwrap();
    assert_eq!(
        (info.members.clone(), info.timeout_ms, info.wait_for_all),
        (vec!["student".to_owned(), "reporter".to_owned()], 30_000, false)
    );
    // A frame must come before the nodes inside it (React Flow's parent rule).
    let index = |id: &str| view.nodes.iter().position(|n| n.id == id).unwrap();
    assert!(index("group:round") < index("agent:student"));
    assert_eq!(node("end").kind, NodeKind::End);
    assert_eq!(node("wait").kind, NodeKind::Wait);
}

#[test]
fn end_and_wait_nodes_appear_only_when_something_leads_there() {
    let crew = valid("entry_point: a\nagents:\n  - id: a\n    handoff_targets: [b]\n  - id: b\n    handoff_targets: [a]\n");
    let view = view_of(&crew);
    let kinds: Vec<NodeKind> = view.nodes.iter().map(|n| n.kind).collect();
    assert_eq!(kinds, [NodeKind::Agent, NodeKind::Agent]);
}

#[test]
fn agent_in_two_groups_is_drawn_outside_both_with_membership_edges() {
    let yaml = r#"entry_point: a
agents:
  - id: a
  - id: shared
  - id: c
routing:
  signals:
    a:
      - { signal: "[ONE]", target: g1 }
      - { signal: "[TWO]", target: g2 }
      - { signal: "[END]", target: "" }
  parallel_groups:
    g1: { agents: [shared, c], next_agent: a }
    g2: { agents: [shared], next_agent: a }
"#;
    let view = view_of(&valid(yaml));
    let shared = view.nodes.iter().find(|n| n.id == "agent:shared").unwrap();
    assert_eq!(shared.parent, None, "one node cannot sit in two frames");
    let members: Vec<_> =
        view.edges.iter().filter(|e| e.kind == EdgeKind::Membership).map(|e| (e.source.as_str(), e.target.as_str())).collect();
    assert_eq!(members, [("group:g1", "agent:shared"), ("group:g2", "agent:shared")]);
    assert_eq!(view.nodes.iter().find(|n| n.id == "agent:c").unwrap().parent.as_deref(), Some("group:g1"));
}

#[test]
fn router_strategies_draw_a_router_the_entry_point_asks_that_assigns_every_other_agent_and_can_end() {
    for (strategy, label) in [("llm", "Router"), ("gatekeeper", "Gatekeeper")] {
        let yaml = format!(
            "entry_point: a\nagents:\n  - id: a\n  - id: b\nrouting:\n  strategy: {strategy}\n  gatekeeper: {{ url: 'http://127.0.0.1:9/route' }}\n"
        );
        let view = view_of(&valid(&yaml));
        let router = view.nodes.iter().find(|n| n.kind == NodeKind::Router).expect("a router node");
        assert_eq!(router.label, label);
        let mut assigned: Vec<_> = view.edges.iter().filter(|e| e.kind == EdgeKind::Assign).map(|e| e.target.as_str()).collect();
        assigned.sort();
        assert_eq!(assigned, ["agent:b", "end"], "{strategy}: never the entry point, which is never handed work again");
        let asks: Vec<_> = view
            .edges
            .iter()
            .filter(|e| e.kind == EdgeKind::Asks)
            .map(|e| (e.source.as_str(), e.target.as_str(), e.label.as_str()))
            .collect();
        assert_eq!(asks, [("agent:a", "router", "asks")], "{strategy}");
    }
}

// ---- where problems are badged ----

#[test]
fn problems_are_badged_on_the_node_or_edge_they_concern() {
    let crew = valid(CLASSROOM);
    let view = view_of(&crew);
    let rule = |index: u32| Subject::Rule { agent: "teacher".into(), index };
    assert_eq!(view.targets_of(&Subject::Crew), Vec::<String>::new());
    assert_eq!(view.targets_of(&Subject::Agent { agent: "helper".into() }), ["agent:helper"]);
    assert_eq!(view.targets_of(&Subject::Group { group: "round".into() }), ["group:round"]);
    assert_eq!(view.targets_of(&rule(1)), ["rule:teacher:1:agent:helper"]);
    let mut broadcast = view.targets_of(&rule(2));
    broadcast.sort();
    assert_eq!(broadcast, ["rule:teacher:2:agent:reporter", "rule:teacher:2:agent:student"], "one edge per target");
    assert_eq!(
        view.targets_of(&Subject::Handoff { agent: "student".into(), target: "teacher".into() }),
        ["fallback:student:agent:teacher"]
    );
    assert_eq!(view.targets_of(&Subject::Signal { signal: "[HELP]".into() }), ["rule:teacher:1:agent:helper"]);
    // Whatever is badged exists in the view.
    for id in view.targets_of(&rule(0)) {
        assert!(view.edges.iter().any(|e| e.id == id), "{id}");
    }
    assert_eq!(view.targets_of(&Subject::Agent { agent: "nobody".into() }), Vec::<String>::new());
}

#[test]
fn a_rule_whose_edge_cannot_be_drawn_is_badged_on_its_agent() {
    let yaml = "entry_point: a\nagents:\n  - id: a\n    is_terminal: true\n    handoff_targets: [ghost]\nrouting:\n  signals:\n    a:\n      - { signal: \"[NEXT]\", target: nowhere }\n";
    let loaded = load(yaml);
    let crew = loaded.crew.as_ref().unwrap();
    let view = view_of(crew);
    let badges: Vec<(String, Vec<String>)> = loaded.diagnostics.iter().map(|d| (d.message.clone(), view.targets_of(&d.subject))).collect();
    assert_eq!(
        badges,
        [
            ("handoff target 'ghost' of agent 'a' is not an agent".to_owned(), vec!["agent:a".to_owned()]),
            ("signal '[NEXT]' targets unknown agent 'nowhere'".to_owned(), vec!["agent:a".to_owned()]),
        ]
    );
}

/// Regression: a broadcast listing the same agent twice drew two edges with the same
/// id, which React Flow cannot tell apart.
#[test]
fn broadcast_listing_a_target_twice_draws_one_edge() {
    let crew = valid("entry_point: a\nagents:\n  - id: a\n  - id: b\n    is_terminal: true\nsignals:\n  - { name: \"[TELL]\", behavior: broadcast }\nrouting:\n  signals:\n    a:\n      - { signal: \"[TELL]\", target: [b, b] }\n");
    let view = CrewGraph::build(&crew).view(&crew);
    let ids: Vec<_> = view.edges.iter().filter(|e| e.signal.as_deref() == Some("[TELL]")).map(|e| e.id.as_str()).collect();
    assert_eq!(ids, ["rule:a:0:agent:b"]);
}

#[test]
fn an_edge_names_its_rule_by_its_place_in_the_file_even_after_a_broken_one() {
    let loaded = load(
        "entry_point: a\nagents:\n  - id: a\n  - id: b\n    is_terminal: true\nrouting:\n  signals:\n    a:\n      - signal: \"[]\"\n        target: b\n      - signal: \"[GO]\"\n        target: b\n",
    );
    let crew = loaded.crew.as_ref().expect("a crew");
    let view = view_of(crew);
    let rule = view.edges.iter().find(|e| e.kind == EdgeKind::Signal).expect("the [GO] edge");
    assert_eq!(rule.id, "rule:a:1:agent:b");
    assert_eq!(rule.rule.as_ref().map(|r| r.index), Some(1));
    let go = view.targets_of(&Subject::Rule { agent: "a".into(), index: 1 });
    assert_eq!(go, ["rule:a:1:agent:b"]);
}
