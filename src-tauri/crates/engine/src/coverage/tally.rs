//! What one run did in route-coverage terms, read from its events: which arrows of
//! the crew's drawing it took (and how often), each agent's replies and how many
//! of them ended without any of its signals (signal compliance), the loops it
//! noticed, its transfers, how it ended and what it cost.
//!
//! An arrow is found as the window finds it when it animates a run: a handoff for a
//! signal is its agent's rule on that signal to that target; a fallback is the
//! agent's otherwise arrow (an automatic fallback has none); a router's choice is
//! the router's arrow; a group's way on is counted as the next agent starts; a
//! pause and the end are counted from the signal that caused them.

use std::collections::HashMap;

use super::arrows::{agent_node, group_node, Arrows};
use crate::crew::{Crew, Strategy};
use crate::graph::{EdgeKind, GraphView};
use crate::ids::AgentId;
use crate::run::event::{EventKind, RunEvent, RunStatus};
use crate::run::llm::Usage;
use crate::signal::Behavior;

/// One agent's replies in a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Replies {
    /// Replies that ended its turns (a group member's included).
    pub replies: u32,
    /// Of those it was told signals for, the ones with none of its signals.
    pub without_signal: u32,
}

/// What one run did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tally {
    /// Each arrow taken, with how often, in the order first taken.
    pub arrows: Vec<(String, u32)>,
    /// Moves that no arrow draws (the automatic fallback to the next agent, a
    /// finalizer chosen because nobody scored).
    pub unshown_moves: u32,
    /// Each agent's replies.
    pub replies: HashMap<AgentId, Replies>,
    /// `loop_detected` events.
    pub loops: u32,
    /// Transfers made.
    pub handoffs: u32,
    /// How the run ended (its last `run_finished`); None when it has not.
    pub status: Option<RunStatus>,
    pub final_agent: Option<AgentId>,
    pub error: Option<String>,
    /// Tokens and cost of every reply together (None when no provider said).
    pub usage: Option<Usage>,
}

impl Tally {
    /// How often the run took arrow `id`.
    pub fn taken(&self, id: &str) -> u32 {
        self.arrows.iter().find(|(a, _)| a == id).map_or(0, |(_, n)| *n)
    }

    fn take(&mut self, id: Option<&str>) {
        let Some(id) = id else {
            self.unshown_moves += 1;
            return;
        };
        match self.arrows.iter_mut().find(|(a, _)| a == id) {
            Some((_, n)) => *n += 1,
            None => self.arrows.push((id.to_owned(), 1)),
        }
    }
}

/// The signal a handoff's reason names (`signal [QUESTION] (exact)` → `[QUESTION]`).
fn reason_signal(reason: &str) -> Option<&str> {
    let rest = reason.strip_prefix("signal ")?;
    Some(rest.rsplit_once(" (").map_or(rest, |(signal, _)| signal))
}

/// Reads run `events` of `crew`, drawn as `view`.
pub fn tally(crew: &Crew, view: &GraphView, events: &[RunEvent]) -> Tally {
    let arrows = Arrows::new(view);
    let mut out = Tally::default();
    // The signal each agent's latest reply acted on.
    let mut signalled: HashMap<AgentId, (String, Behavior)> = HashMap::new();
    // The strategy of a routing decision not yet followed by its handoff.
    let mut decision: Option<Strategy> = None;
    // The agent whose reply came last (a router decides after it).
    let mut replied: Option<AgentId> = None;
    let mut in_group: Option<String> = None;
    let mut after_group: Option<String> = None;
    let id = |edge: Option<&crate::graph::ViewEdge>| edge.map(|e| e.id.clone());
    for event in events {
        match &event.kind {
            EventKind::SignalMatched { agent, signal, behavior, .. } => {
                signalled.insert(agent.clone(), (signal.to_string(), *behavior));
            }
            EventKind::RoutingDecision { strategy, .. } => {
                decision = Some(*strategy);
                if let (Strategy::Llm | Strategy::Gatekeeper, Some(agent)) = (strategy, &replied) {
                    out.take(id(arrows.between(EdgeKind::Asks, &agent_node(agent.as_str()), "router")).as_deref());
                }
            }
            EventKind::Handoff { from, to, reason, .. } => {
                out.handoffs += 1;
                let source = agent_node(from.as_str());
                let target = |to: &str| if crew.group(to).is_some() { group_node(to) } else { agent_node(to) };
                match decision.take() {
                    Some(Strategy::Llm | Strategy::Gatekeeper) => {
                        out.take(id(arrows.between(EdgeKind::Assign, "router", &target(to))).as_deref());
                    }
                    Some(Strategy::Scoring) => out.take(id(arrows.between(EdgeKind::Score, &source, &target(to))).as_deref()),
                    _ if reason == "finalize" => out.take(id(arrows.between(EdgeKind::Finalize, &source, &target(to))).as_deref()),
                    _ => match reason_signal(reason) {
                        // A broadcast names its targets "a, b".
                        Some(signal) => {
                            for to in to.split(", ") {
                                out.take(id(arrows.rule(from.as_str(), signal, &target(to))).as_deref());
                            }
                        }
                        None => out.take(id(arrows.between(EdgeKind::Fallback, &source, &target(to))).as_deref()),
                    },
                }
            }
            EventKind::ParallelStarted { group, .. } => {
                for edge in arrows.from(EdgeKind::Membership, &group_node(group)) {
                    out.take(Some(&edge.id));
                }
                in_group = Some(group.clone());
            }
            EventKind::ParallelFinished { group, .. } => {
                in_group = None;
                after_group = Some(group.clone());
            }
            EventKind::AgentStarted { agent, .. } if in_group.is_none() => {
                if let Some(group) = after_group.take() {
                    out.take(id(arrows.between(EdgeKind::GroupNext, &group_node(&group), &agent_node(agent.as_str()))).as_deref());
                }
            }
            EventKind::AgentResponse { agent, content, usage } => {
                replied = Some(agent.clone());
                out.usage = Usage::add(out.usage, *usage);
                let entry = out.replies.entry(agent.clone()).or_default();
                entry.replies += 1;
                let rules = crew.rules_of(agent.as_str());
                if in_group.is_none() && crew.routing.strategy == Strategy::Signals && !rules.is_empty() {
                    let found = crew.matcher.scan(content);
                    if !rules.iter().any(|r| r.signal_index.is_some_and(|i| found.get(i).is_some())) {
                        entry.without_signal += 1;
                    }
                }
            }
            EventKind::Paused { agent, signal, breakpoint: false } => {
                let node = agent_node(agent.as_str());
                match signal {
                    Some(signal) => out.take(id(arrows.rule(agent.as_str(), signal.as_str(), "wait")).as_deref()),
                    None if crew.agent(agent.as_str()).is_some_and(|a| a.wait_for_signal) => {
                        out.take(id(arrows.between(EdgeKind::Waits, &node, "wait")).as_deref());
                    }
                    None => {}
                }
            }
            EventKind::LoopDetected { .. } => out.loops += 1,
            EventKind::RunFinished { status, final_agent, error, .. } => {
                out.status = Some(*status);
                out.final_agent = final_agent.clone();
                out.error = error.clone();
                let Some(last) = final_agent else { continue };
                let node = agent_node(last.as_str());
                match status {
                    RunStatus::Terminated => {
                        if let Some((signal, Behavior::Terminate)) = signalled.get(last) {
                            out.take(id(arrows.rule(last.as_str(), signal, "end")).as_deref());
                        }
                    }
                    RunStatus::Completed => {
                        let edge = match (decision.take(), crew.routing.strategy) {
                            (Some(Strategy::Llm | Strategy::Gatekeeper), _) => arrows.between(EdgeKind::Assign, "router", "end"),
                            (_, Strategy::Scoring) => arrows
                                .between(EdgeKind::Finalize, &node, "end")
                                .or_else(|| arrows.between(EdgeKind::Terminal, &node, "end")),
                            _ => arrows.between(EdgeKind::Terminal, &node, "end"),
                        };
                        out.take(id(edge).as_deref());
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::CrewGraph;
    use crate::load::load_str;

    fn events(kinds: Vec<EventKind>) -> Vec<RunEvent> {
        crate::run::event::numbered(kinds)
    }

    #[test]
    fn signals_fallbacks_groups_and_the_end_are_their_arrows() {
        let crew = load_str(
            "c.yaml",
            "entry_point: a\nagents: [{id: a}, {id: b, handoff_targets: [a]}, {id: m}]\nrouting:\n  signals:\n    a: [{signal: '[GO]', target: g}, {signal: '[NEXT]', target: b}, {signal: '[DONE]', target: ''}]\n  parallel_groups:\n    g: {agents: [m]}\n",
        )
        .crew
        .unwrap();
        let view = CrewGraph::build(&crew).view(&crew);
        let a = AgentId::from("a");
        let b = AgentId::from("b");
        let reply =
            |agent: &AgentId, content: &str| EventKind::AgentResponse { agent: agent.clone(), content: content.into(), usage: None };
        let matched = |signal: &str, behavior: Behavior| EventKind::SignalMatched {
            agent: a.clone(),
            signal: signal.into(),
            level: crate::signal::MatchLevel::Exact,
            behavior,
            target: None,
            payload: None,
        };
        let run = events(vec![
            reply(&a, "go [GO]"),
            matched("[GO]", Behavior::Parallel),
            EventKind::Handoff { from: a.clone(), to: "g".into(), reason: "signal [GO] (exact)".into(), handoff_count: 1 },
            EventKind::ParallelStarted { group: "g".into(), agents: vec![AgentId::from("m")] },
            EventKind::AgentStarted { agent: AgentId::from("m"), step: 2 },
            reply(&AgentId::from("m"), "done, no signal"),
            EventKind::ParallelFinished { group: "g".into(), finished: vec![AgentId::from("m")], timed_out: vec![] },
            EventKind::AgentStarted { agent: a.clone(), step: 3 },
            reply(&a, "[NEXT]"),
            matched("[NEXT]", Behavior::Route),
            EventKind::Handoff { from: a.clone(), to: "b".into(), reason: "signal [NEXT] (exact)".into(), handoff_count: 2 },
            EventKind::AgentStarted { agent: b.clone(), step: 4 },
            reply(&b, "nothing"),
            EventKind::Handoff {
                from: b.clone(),
                to: "a".into(),
                reason: "no signal matched; fallback to its handoff target".into(),
                handoff_count: 3,
            },
            EventKind::AgentStarted { agent: a.clone(), step: 5 },
            reply(&a, "I forgot my signal"),
            reply(&a, "[DONE]"),
            matched("[DONE]", Behavior::Terminate),
            EventKind::RunFinished { status: RunStatus::Terminated, final_agent: Some(a.clone()), error: None, handoffs: 3, steps: 5 },
        ]);
        let t = tally(&crew, &view, &run);
        assert_eq!(
            t.arrows,
            [
                ("rule:a:0:group:g".to_owned(), 1),
                ("next:g:agent:a".to_owned(), 1),
                ("rule:a:1:agent:b".to_owned(), 1),
                ("fallback:b:agent:a".to_owned(), 1),
                ("rule:a:2:end".to_owned(), 1)
            ]
        );
        assert_eq!(t.handoffs, 3);
        assert_eq!(t.status, Some(RunStatus::Terminated));
        assert_eq!(t.replies[&a], Replies { replies: 4, without_signal: 1 }, "a forgot its signal once");
        assert_eq!(t.replies[&AgentId::from("m")], Replies { replies: 1, without_signal: 0 }, "members are told no signals");
        assert_eq!(t.replies[&b], Replies { replies: 1, without_signal: 0 }, "b has no rules: nothing to forget");
    }
}
