//! Planning route-coverage scenarios: for each arrow of a crew's drawing, the
//! replies (and router decisions, and the person's answers at pauses) of a Simulate
//! run that takes it — the shortest way from the entry point to the arrow, the
//! arrow, then the shortest way on to an end (a terminate signal, a terminal agent,
//! the router completing the work, the finalizer's answer). An arrow no such run
//! can take is *unreachable*, and the plan says why in words.
//!
//! Pure: nothing runs here. The planner knows what each reply does by asking the
//! strategy's own decision ([`signals::decide`]) about it, so a reply that an
//! earlier rule would take, or a line its pattern does not match, is never planned
//! as taking the arrow. Whether a run really takes it is for the run to show (the
//! host runs each scenario and counts the arrows from its events, [`mod@super::tally`]).
//!
//! What a run can do from each agent is a `Move` — one turn (with a group's or a
//! broadcast's turns inside it, or a router's decision after it) and where the work
//! goes. Paths are the fewest transfers first (the handoff limit counts transfers),
//! then the fewest moves.

use std::collections::{BTreeSet, HashMap};

use super::arrows::{agent_node, group_node, Arrows};
use super::replies::{self, signal_reply, Say};
use crate::crew::{Crew, OnNoSignal, Strategy};
use crate::graph::{EdgeKind, GraphView, ViewEdge};
use crate::ids::AgentId;
use crate::routing::{scoring, signals};
use crate::run::event::{EventKind, RunStatus};
use crate::signal::Behavior;

/// The scenarios of a crew and what no scenario can reach.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    /// One scenario per arrow a run can take, in drawing order.
    pub scenarios: Vec<Scenario>,
    /// Arrows no run can take, with why, in drawing order.
    pub unreachable: Vec<Unreachable>,
    /// Agents no run ever has work, with why.
    pub unreached_agents: Vec<(AgentId, String)>,
}

/// An arrow no run can take.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unreachable {
    /// The arrow's id in the drawing.
    pub arrow: String,
    /// Why, in words.
    pub reason: String,
}

/// One Simulate run planned to take an arrow.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// The arrow it is for.
    pub arrow: String,
    /// What the crew is asked.
    pub input: String,
    /// Under `scoring`: the specialist asked for by name, when no request's words make
    /// it the best match.
    pub requested: Option<AgentId>,
    /// Each agent's replies, in order (agents in the order they first speak).
    pub replies: Vec<(AgentId, Vec<String>)>,
    /// The router's (or gatekeeper's) decisions, in order, as JSON text.
    pub decisions: Vec<String>,
    /// The person's answer at each pause the run goes on after.
    pub answers: Vec<String>,
    /// The arrows it means to take, in order (repeats kept).
    pub arrows: Vec<String>,
    /// How it should end: terminated, completed, or paused (when the crew can only
    /// wait for the person after the arrow); None when it cannot finish, with why.
    pub ending: Result<RunStatus, String>,
    /// The transfers it makes.
    pub transfers: u32,
}

/// Where a move leaves the work.
#[derive(Clone, Debug, PartialEq)]
enum Place {
    Agent(AgentId),
    End(RunStatus),
}

/// A router's decision in a move.
#[derive(Clone, Debug, PartialEq)]
enum Decide {
    Assign(AgentId),
    Complete,
}

/// One thing a run can do from an agent.
#[derive(Clone, Debug, PartialEq)]
struct Move {
    from: AgentId,
    says: Vec<(AgentId, Say)>,
    decisions: Vec<Decide>,
    /// `scoring`: the request that makes this choice (and the agent asked for by
    /// name, when its words do not).
    input: Option<(String, Option<AgentId>)>,
    arrows: Vec<String>,
    to: Place,
    /// The crew waits for the person first; `to` is who goes on after the answer.
    pauses: bool,
    transfers: u32,
}

/// A path's cost: transfers, then moves.
type Cost = (u32, u32);

/// Plans the scenarios of `crew`, whose drawing is `view`.
pub fn plan(crew: &Crew, view: &GraphView) -> Plan {
    let arrows = Arrows::new(view);
    let mut why_not: HashMap<(String, u32), String> = HashMap::new();
    let moves = match crew.routing.strategy {
        Strategy::Signals => signal_moves(crew, &arrows, &mut why_not),
        Strategy::Scoring => scoring_moves(crew, &arrows),
        Strategy::Llm | Strategy::Gatekeeper => routed_moves(crew, &arrows),
    };
    let (dist, pred) = reach(crew, &moves);
    let finish = best_ways(&moves, |m| matches!(m.to, Place::End(RunStatus::Terminated | RunStatus::Completed)));
    let wait = best_ways(&moves, |m| m.pauses);
    let limit = limit(crew);
    let planner = Planner { crew, arrows, moves: &moves, dist: &dist, pred: &pred, finish: &finish, wait: &wait, limit };

    let mut plan = Plan::default();
    for edge in arrows.all() {
        match planner.scenario(edge) {
            Ok(scenario) => plan.scenarios.push(scenario),
            Err(reason) => plan.unreachable.push(Unreachable { arrow: edge.id.clone(), reason: planner.why(edge, reason, &why_not) }),
        }
    }
    let working = planner.working();
    for agent in &crew.agents {
        if !working.contains(agent.id.as_str()) {
            plan.unreached_agents.push((agent.id.clone(), planner.unreached(&agent.id)));
        }
    }
    plan
}

/// The most transfers a run may make (the strategy's limit less one: the transfer
/// that would reach the limit is refused).
fn limit(crew: &Crew) -> u32 {
    match crew.routing.strategy {
        Strategy::Llm | Strategy::Gatekeeper => crew.routing.max_iterations.saturating_sub(1),
        Strategy::Signals | Strategy::Scoring => crew.settings.max_handoffs.saturating_sub(1),
    }
}

/// The limit in the crew's words.
fn limit_words(crew: &Crew) -> String {
    match crew.routing.strategy {
        Strategy::Llm | Strategy::Gatekeeper => {
            format!("max_iterations {} allows {}", crew.routing.max_iterations, counted(limit(crew), "handoff", "handoffs"))
        }
        Strategy::Signals | Strategy::Scoring => {
            format!("max_handoffs {} allows {}", crew.settings.max_handoffs, counted(limit(crew), "transfer", "transfers"))
        }
    }
}

/// `n` and its word: "1 transfer", "3 transfers".
fn counted(n: u32, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// What `agent`'s reply does under the `signals` strategy: the strategy's own decision.
fn decided(crew: &Crew, agent: &AgentId, reply: &str) -> signals::Decision {
    signals::decide(crew, agent, reply, &crew.matcher.scan(reply), 0)
}

/// The signal a decision acted on: its name, behaviour and target as written.
fn matched(decision: &signals::Decision) -> Option<(String, Behavior, Option<String>)> {
    decision.events.iter().find_map(|e| match e {
        EventKind::SignalMatched { signal, behavior, target, .. } => Some((signal.to_string(), *behavior, target.clone())),
        _ => None,
    })
}

fn push(moves: &mut Vec<Move>, next: Move) {
    if !moves.iter().any(|m| m.from == next.from && m.arrows == next.arrows && m.to == next.to && m.pauses == next.pauses) {
        moves.push(next);
    }
}

/// Under `signals`: for each agent, a reply with each of its rules' signals and
/// one without a signal, as the strategy decides them. Why a rule's reply does not
/// take its own arrow goes to `why_not`.
fn signal_moves(crew: &Crew, arrows: &Arrows, why_not: &mut HashMap<(String, u32), String>) -> Vec<Move> {
    let mut moves = Vec::new();
    for agent in &crew.agents {
        let id = &agent.id;
        let name = &agent.name;
        for rule in crew.rules_of(id.as_str()) {
            let Some(say) = signal_reply(crew, rule) else {
                why_not.insert(
                    (id.to_string(), rule.index),
                    format!("no reply line could be written that the pattern of {} matches, so no scenario takes it", rule.signal),
                );
                continue;
            };
            let decision = decided(crew, id, &say.render(id.as_str(), 1));
            let written = rule.targets.iter().map(|t| t.id()).collect::<Vec<_>>().join(", ");
            match matched(&decision) {
                Some((signal, behavior, target))
                    if signal == rule.signal.as_str()
                        && behavior == rule.behavior
                        && target.as_deref().unwrap_or("") == written.as_str() => {}
                Some((signal, _, _)) => {
                    let why = if signal == rule.signal.as_str() {
                        format!("an earlier rule of {name} on {signal} is taken instead: only the first is ever taken")
                    } else {
                        format!("a reply with {} is taken by {name}'s rule on {signal} first (terminate, then pause, then routes in file order)", rule.signal)
                    };
                    why_not.insert((id.to_string(), rule.index), why);
                    continue;
                }
                None => {
                    why_not.insert((id.to_string(), rule.index), format!("a reply with {} is not acted on", rule.signal));
                    continue;
                }
            }
            let Some(next) = signal_move(crew, arrows, id, say, decision) else { continue };
            // The same signal to the same place by an earlier rule: this rule's arrow is never the one taken.
            let own = arrows.all().iter().filter(|e| e.rule.as_ref().is_some_and(|r| r.agent == id.as_str() && r.index == rule.index));
            for edge in own {
                if !next.arrows.contains(&edge.id) {
                    why_not.insert(
                        (id.to_string(), rule.index),
                        format!("an earlier rule of {name} on {} leads there too: only the first is ever taken", rule.signal),
                    );
                }
            }
            for onward in broadcast_onward(crew, arrows, &next) {
                push(&mut moves, onward);
            }
            push(&mut moves, next);
        }
        if let Some(next) = plain_move(crew, arrows, id) {
            push(&mut moves, next);
        }
    }
    moves
}

/// The move a reply with a signal makes, from the decision on it.
fn signal_move(crew: &Crew, arrows: &Arrows, agent: &AgentId, say: Say, decision: signals::Decision) -> Option<Move> {
    let (signal, _, _) = matched(&decision)?;
    let rule_arrow = |target: &str| arrows.rule(agent.as_str(), &signal, target).map(|e| e.id.clone());
    let base = Move {
        from: agent.clone(),
        says: vec![(agent.clone(), say)],
        decisions: Vec::new(),
        input: None,
        arrows: Vec::new(),
        to: Place::End(RunStatus::Terminated),
        pauses: false,
        transfers: 0,
    };
    Some(match decision.next {
        signals::Next::End(status) => Move { arrows: rule_arrow("end").into_iter().collect(), to: Place::End(status), ..base },
        signals::Next::Pause { resume_with, .. } => {
            Move { arrows: rule_arrow("wait").into_iter().collect(), to: Place::Agent(resume_with), pauses: true, ..base }
        }
        signals::Next::Route { to, .. } => {
            Move { arrows: rule_arrow(&agent_node(to.as_str())).into_iter().collect(), to: Place::Agent(to), transfers: 1, ..base }
        }
        signals::Next::Group { group, .. } => {
            let frame = crew.group(group.as_str())?;
            let node = group_node(group.as_str());
            let next = frame.next_agent.clone().unwrap_or_else(|| agent.clone());
            let mut taken: Vec<String> = rule_arrow(&node).into_iter().collect();
            taken.extend(arrows.from(EdgeKind::Membership, &node).into_iter().map(|e| e.id.clone()));
            taken.extend(arrows.between(EdgeKind::GroupNext, &node, &agent_node(next.as_str())).map(|e| e.id.clone()));
            let mut says = base.says.clone();
            says.extend(frame.agents.iter().map(|member| (member.clone(), Say::Work)));
            Move { says, arrows: taken, to: Place::Agent(next), transfers: 1, ..base }
        }
        signals::Next::Broadcast { targets, .. } => {
            let taken = targets.iter().filter_map(|t| rule_arrow(&agent_node(t.as_str()))).collect();
            let mut says = base.says.clone();
            says.extend(targets.iter().map(|t| (t.clone(), Say::Plain)));
            Move { says, arrows: taken, to: Place::Agent(agent.clone()), transfers: 1, ..base }
        }
        signals::Next::Reprompt { .. } => return None,
    })
}

/// After a broadcast, the work goes on with the first target whose own signal routes
/// on: one move for each such signal of each target.
fn broadcast_onward(crew: &Crew, arrows: &Arrows, broadcast: &Move) -> Vec<Move> {
    let Place::Agent(back) = &broadcast.to else { return Vec::new() };
    if broadcast.says.len() < 2 || back != &broadcast.from || broadcast.transfers != 1 || broadcast.pauses {
        return Vec::new();
    }
    let targets: Vec<AgentId> = broadcast.says[1..].iter().map(|(t, _)| t.clone()).collect();
    if broadcast.says[1..].iter().any(|(_, say)| *say != Say::Plain) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (i, target) in targets.iter().enumerate() {
        for rule in crew.rules_of(target.as_str()).iter().filter(|r| r.behavior == Behavior::Route) {
            let Some(say) = signal_reply(crew, rule) else { continue };
            let decision = decided(crew, target, &say.render(target.as_str(), 1));
            let (Some((signal, _, _)), signals::Next::Route { to, .. }) = (matched(&decision), decision.next) else { continue };
            let mut says = broadcast.says.clone();
            says[i + 1] = (target.clone(), say);
            let mut taken = broadcast.arrows.clone();
            taken.extend(arrows.rule(target.as_str(), &signal, &agent_node(to.as_str())).map(|e| e.id.clone()));
            out.push(Move { says, arrows: taken, to: Place::Agent(to), transfers: 2, ..broadcast.clone() });
        }
    }
    out
}

/// The move a reply without a signal makes: the agent waits for the person,
/// finishes the run, or falls back to another agent.
fn plain_move(crew: &Crew, arrows: &Arrows, agent: &AgentId) -> Option<Move> {
    let decision = decided(crew, agent, &Say::Plain.render(agent.as_str(), 1));
    if matched(&decision).is_some() {
        return None;
    }
    let node = agent_node(agent.as_str());
    let base = Move {
        from: agent.clone(),
        says: vec![(agent.clone(), Say::Plain)],
        decisions: Vec::new(),
        input: None,
        arrows: Vec::new(),
        to: Place::End(RunStatus::Completed),
        pauses: false,
        transfers: 0,
    };
    let waits = crew.agent(agent.as_str()).is_some_and(|a| a.wait_for_signal);
    Some(match decision.next {
        signals::Next::End(RunStatus::Completed) => {
            Move { arrows: arrows.between(EdgeKind::Terminal, &node, "end").map(|e| e.id.clone()).into_iter().collect(), ..base }
        }
        signals::Next::Pause { resume_with, .. } if waits => Move {
            arrows: arrows.between(EdgeKind::Waits, &node, "wait").map(|e| e.id.clone()).into_iter().collect(),
            to: Place::Agent(resume_with),
            pauses: true,
            ..base
        },
        signals::Next::Route { to, .. } => Move {
            // An otherwise arrow when the agent has one; the automatic fallback has none.
            arrows: arrows.between(EdgeKind::Fallback, &node, &agent_node(to.as_str())).map(|e| e.id.clone()).into_iter().collect(),
            to: Place::Agent(to),
            transfers: 1,
            ..base
        },
        _ => return None,
    })
}

/// Under `scoring`: the supervisor picks each specialist for a request that makes it
/// the best match; a specialist answers and the finalizer writes the answer.
fn scoring_moves(crew: &Crew, arrows: &Arrows) -> Vec<Move> {
    let supervisor = &crew.entry_point;
    let finalizer = crew.routing.finalizer.clone().filter(|f| crew.agent(f.as_str()).is_some());
    let mut moves = Vec::new();
    for specialist in scoring::candidates(crew) {
        let id = &specialist.id;
        let input = winning_request(crew, id);
        moves.push(Move {
            from: supervisor.clone(),
            says: Vec::new(),
            decisions: Vec::new(),
            input: Some(input),
            arrows: arrows
                .between(EdgeKind::Score, &agent_node(supervisor.as_str()), &agent_node(id.as_str()))
                .map(|e| e.id.clone())
                .into_iter()
                .collect(),
            to: Place::Agent(id.clone()),
            pauses: false,
            transfers: 1,
        });
        let node = agent_node(id.as_str());
        let (to, target, transfers) = match &finalizer {
            Some(f) if f != id => (Place::Agent(f.clone()), agent_node(f.as_str()), 1),
            _ => (Place::End(RunStatus::Completed), "end".to_owned(), 0),
        };
        moves.push(Move {
            from: id.clone(),
            says: vec![(id.clone(), Say::Work)],
            decisions: Vec::new(),
            input: None,
            arrows: arrows.between(EdgeKind::Finalize, &node, &target).map(|e| e.id.clone()).into_iter().collect(),
            to,
            pauses: false,
            transfers,
        });
    }
    if let Some(f) = finalizer.filter(|f| f != supervisor) {
        let node = agent_node(f.as_str());
        let end = arrows.between(EdgeKind::Finalize, &node, "end").or_else(|| arrows.between(EdgeKind::Terminal, &node, "end"));
        moves.push(Move {
            from: f.clone(),
            says: vec![(f.clone(), Say::Work)],
            decisions: Vec::new(),
            input: None,
            arrows: end.map(|e| e.id.clone()).into_iter().collect(),
            to: Place::End(RunStatus::Completed),
            pauses: false,
            transfers: 0,
        });
    }
    moves
}

/// A request the scoring router gives to `specialist`: its tags one by one, all of
/// them, its name; else it is asked for by name (and the scenario says so).
fn winning_request(crew: &Crew, specialist: &AgentId) -> (String, Option<AgentId>) {
    let Some(agent) = crew.agent(specialist.as_str()) else { return (String::new(), Some(specialist.clone())) };
    let mut tries: Vec<String> = agent.tags.iter().map(|t| format!("A request about {t}.")).collect();
    tries.push(format!("A request about {}.", agent.tags.join(", ")));
    tries.push(format!("A request for {}: {}", agent.name, agent.objective));
    for request in tries {
        if scoring::route(crew, &request, None).chosen.as_ref() == Some(specialist) {
            return (request, None);
        }
    }
    (format!("A request for {}.", agent.name), Some(specialist.clone()))
}

/// Under `llm` and `gatekeeper`: after any agent's turn the router hands the work to
/// any agent but the entry point, or completes it; the entry point's turn goes to
/// the router along its own arrow.
fn routed_moves(crew: &Crew, arrows: &Arrows) -> Vec<Move> {
    let mut moves = Vec::new();
    for agent in &crew.agents {
        let asks = || arrows.between(EdgeKind::Asks, &agent_node(agent.id.as_str()), "router").map(|e| e.id.clone());
        for to in crew.agents.iter().filter(|a| a.id != crew.entry_point) {
            moves.push(Move {
                from: agent.id.clone(),
                says: vec![(agent.id.clone(), Say::Work)],
                decisions: vec![Decide::Assign(to.id.clone())],
                input: None,
                arrows: asks()
                    .into_iter()
                    .chain(arrows.between(EdgeKind::Assign, "router", &agent_node(to.id.as_str())).map(|e| e.id.clone()))
                    .collect(),
                to: Place::Agent(to.id.clone()),
                pauses: false,
                transfers: 1,
            });
        }
        moves.push(Move {
            from: agent.id.clone(),
            says: vec![(agent.id.clone(), Say::Work)],
            decisions: vec![Decide::Complete],
            input: None,
            arrows: asks().into_iter().chain(arrows.between(EdgeKind::Assign, "router", "end").map(|e| e.id.clone())).collect(),
            to: Place::End(RunStatus::Completed),
            pauses: false,
            transfers: 0,
        });
    }
    moves
}

fn cost(m: &Move) -> Cost {
    (m.transfers, 1)
}

fn add(a: Cost, b: Cost) -> Cost {
    (a.0 + b.0, a.1 + b.1)
}

/// The cheapest way from the entry point to each agent's turn: its cost and the
/// move that ends it.
fn reach(crew: &Crew, moves: &[Move]) -> (HashMap<AgentId, Cost>, HashMap<AgentId, usize>) {
    let mut dist: HashMap<AgentId, Cost> = HashMap::from([(crew.entry_point.clone(), (0, 0))]);
    let mut pred: HashMap<AgentId, usize> = HashMap::new();
    // Costs are small and positive: relax until nothing improves (a crew has few agents).
    loop {
        let mut changed = false;
        for (i, m) in moves.iter().enumerate() {
            let (Some(&from), Place::Agent(to)) = (dist.get(&m.from), &m.to) else { continue };
            // Scoring: the supervisor's request is the run's input, so its choice comes first.
            if m.input.is_some() && from != (0, 0) {
                continue;
            }
            let via = add(from, cost(m));
            if dist.get(to).is_none_or(|d| via < *d) {
                dist.insert(to.clone(), via);
                pred.insert(to.clone(), i);
                changed = true;
            }
        }
        if !changed {
            return (dist, pred);
        }
    }
}

/// The cheapest way from each agent to a move `ends` says ends a scenario: its cost
/// and the first move of it.
fn best_ways(moves: &[Move], ends: impl Fn(&Move) -> bool) -> HashMap<AgentId, (Cost, usize)> {
    let mut best: HashMap<AgentId, (Cost, usize)> = HashMap::new();
    loop {
        let mut changed = false;
        for (i, m) in moves.iter().enumerate() {
            // A request is the run's first move only.
            if m.input.is_some() {
                continue;
            }
            let via = if ends(m) {
                cost(m)
            } else {
                match &m.to {
                    Place::Agent(to) => match best.get(to) {
                        Some((rest, _)) => add(cost(m), *rest),
                        None => continue,
                    },
                    Place::End(_) => continue,
                }
            };
            if best.get(&m.from).is_none_or(|(c, _)| via < *c) {
                best.insert(m.from.clone(), (via, i));
                changed = true;
            }
        }
        if !changed {
            return best;
        }
    }
}

struct Planner<'a> {
    crew: &'a Crew,
    arrows: Arrows<'a>,
    moves: &'a [Move],
    dist: &'a HashMap<AgentId, Cost>,
    pred: &'a HashMap<AgentId, usize>,
    finish: &'a HashMap<AgentId, (Cost, usize)>,
    wait: &'a HashMap<AgentId, (Cost, usize)>,
    limit: u32,
}

impl Planner<'_> {
    /// The moves from the entry point to `agent`'s turn.
    fn path_to(&self, agent: &AgentId) -> Vec<usize> {
        let mut path = Vec::new();
        let mut at = agent.clone();
        while let Some(&i) = self.pred.get(&at) {
            path.push(i);
            at = self.moves[i].from.clone();
            if path.len() > self.moves.len() {
                break;
            }
        }
        path.reverse();
        path
    }

    /// The moves from `agent` on along `ways` (to an end, or to a pause).
    fn path_on(&self, agent: &AgentId, ways: &HashMap<AgentId, (Cost, usize)>, ends: impl Fn(&Move) -> bool) -> Vec<usize> {
        let mut path = Vec::new();
        let mut at = agent.clone();
        while let Some(&(_, i)) = ways.get(&at) {
            path.push(i);
            let m = &self.moves[i];
            match (&m.to, ends(m)) {
                (Place::Agent(next), false) => at = next.clone(),
                _ => break,
            }
            if path.len() > self.moves.len() {
                break;
            }
        }
        path
    }

    /// The scenario that takes `edge`, or why there is none (the reason is refined
    /// by [`Planner::why`]).
    fn scenario(&self, edge: &ViewEdge) -> Result<Scenario, Option<String>> {
        let finished = |m: &Move| matches!(m.to, Place::End(RunStatus::Terminated | RunStatus::Completed));
        let mut best: Option<(Cost, usize)> = None;
        for (i, m) in self.moves.iter().enumerate().filter(|(_, m)| m.arrows.contains(&edge.id)) {
            let Some(&before) = self.dist.get(&m.from) else { continue };
            if m.input.is_some() && before != (0, 0) {
                continue;
            }
            let after = match &m.to {
                Place::Agent(next) => self.finish.get(next).map_or((0, 0), |(c, _)| *c),
                Place::End(_) => (0, 0),
            };
            let total = add(add(before, cost(m)), after);
            if best.is_none_or(|(c, _)| total < c) {
                best = Some((total, i));
            }
        }
        let Some((_, chosen)) = best else { return Err(None) };
        let m = &self.moves[chosen];
        let there = self.dist[&m.from].0 + m.transfers;
        if there > self.limit {
            return Err(Some(format!("it takes {} to get there, and {}", counted(there, "transfer", "transfers"), limit_words(self.crew))));
        }
        let mut path = self.path_to(&m.from);
        path.push(chosen);
        let ending = match &m.to {
            Place::End(status) if finished(m) => Ok(*status),
            Place::End(status) => Err(format!("the run ends {} right after it", status.as_str())),
            Place::Agent(next) if self.finish.contains_key(next) => {
                path.extend(self.path_on(next, self.finish, finished));
                Ok(match &self.moves[*path.last().unwrap_or(&chosen)].to {
                    Place::End(status) => *status,
                    Place::Agent(_) => RunStatus::Completed,
                })
            }
            // Nothing finishes after it: waiting for the person is the end it can reach.
            Place::Agent(_) if m.pauses => Ok(RunStatus::Paused),
            Place::Agent(next) if self.wait.contains_key(next) => {
                path.extend(self.path_on(next, self.wait, |m| m.pauses));
                Ok(RunStatus::Paused)
            }
            Place::Agent(next) => Err(format!("after it the crew has no way to finish: no run from {next} reaches End")),
        };
        let transfers: u32 = path.iter().map(|&i| self.moves[i].transfers).sum();
        let ending = match ending {
            Ok(_) if transfers > self.limit => Err(format!(
                "finishing after it takes {} in all, and {}",
                counted(transfers, "transfer", "transfers"),
                limit_words(self.crew)
            )),
            other => other,
        };
        Ok(self.assemble(edge, &path, ending, transfers))
    }

    /// A scenario from its moves.
    fn assemble(&self, edge: &ViewEdge, path: &[usize], ending: Result<RunStatus, String>, transfers: u32) -> Scenario {
        let mut replies: Vec<(AgentId, Vec<String>)> = Vec::new();
        let mut decisions = Vec::new();
        let mut answers = Vec::new();
        let mut taken = Vec::new();
        let mut input = format!("Route coverage of {}: a run that takes {} ({}).", self.crew.name, self.arrows.ends(edge), edge.label);
        let mut requested = None;
        let mut turn = 0;
        for (n, &i) in path.iter().enumerate() {
            let m = &self.moves[i];
            if let Some((request, asked)) = &m.input {
                input = request.clone();
                requested = asked.clone();
            }
            for (agent, say) in &m.says {
                turn += 1;
                let text = say.render(agent.as_str(), turn);
                match replies.iter_mut().find(|(a, _)| a == agent) {
                    Some((_, list)) => list.push(text),
                    None => replies.push((agent.clone(), vec![text])),
                }
            }
            for decide in &m.decisions {
                let number = decisions.len() as u32 + 1;
                decisions.push(match decide {
                    Decide::Assign(agent) => replies::assign(number, agent.as_str()),
                    Decide::Complete => replies::complete(number),
                });
            }
            taken.extend(m.arrows.iter().cloned());
            if m.pauses && n + 1 < path.len() {
                answers.push(format!("Route coverage: the person answers after turn {turn}; go on."));
            }
        }
        Scenario { arrow: edge.id.clone(), input, requested, replies, decisions, answers, arrows: taken, ending, transfers }
    }

    /// Every agent some reachable move gives work.
    fn working(&self) -> BTreeSet<String> {
        let mut working: BTreeSet<String> = self.dist.keys().map(|a| a.to_string()).collect();
        for m in self.moves.iter().filter(|m| self.dist.contains_key(&m.from)) {
            working.extend(m.says.iter().map(|(a, _)| a.to_string()));
        }
        working
    }

    /// Why `agent` never has work.
    fn unreached(&self, agent: &AgentId) -> String {
        let name = self.arrows.node_name(&agent_node(agent.as_str()));
        let entry = self.arrows.node_name(&agent_node(self.crew.entry_point.as_str()));
        match self.crew.routing.strategy {
            Strategy::Llm | Strategy::Gatekeeper if limit(self.crew) == 0 => {
                format!("{name} is never given work: {}", limit_words(self.crew))
            }
            _ => format!("no run from {entry} (where runs start) gives {name} work: no arrow a run takes leads to it"),
        }
    }

    /// Why no scenario takes `edge`, in words.
    fn why(&self, edge: &ViewEdge, found: Option<String>, why_not: &HashMap<(String, u32), String>) -> String {
        if let Some(reason) = found {
            return reason;
        }
        let crew = self.crew;
        let strategy = crew.routing.strategy;
        let from_agent = edge.source.strip_prefix("agent:").map(AgentId::from);
        let name = |node: &str| self.arrows.node_name(node);
        let not_signals = || match strategy {
            Strategy::Scoring => {
                "under the scoring strategy the supervisor's scores route the work; agents' signals and otherwise arrows are not acted on"
                    .to_owned()
            }
            Strategy::Llm => {
                "under the llm strategy the router model routes the work; agents' signals and otherwise arrows are not acted on".to_owned()
            }
            Strategy::Gatekeeper => {
                "under the gatekeeper strategy the gatekeeper routes the work; agents' signals and otherwise arrows are not acted on"
                    .to_owned()
            }
            Strategy::Signals => String::new(),
        };
        // A move takes it, from an agent no run reaches.
        if let Some(m) = self.moves.iter().find(|m| m.arrows.contains(&edge.id)) {
            return self.unreached(&m.from);
        }
        match edge.kind {
            EdgeKind::Signal | EdgeKind::Fallback | EdgeKind::Waits if strategy != Strategy::Signals => not_signals(),
            EdgeKind::Terminal if !matches!(strategy, Strategy::Signals | Strategy::Scoring) => not_signals(),
            EdgeKind::Signal => {
                let rule = edge.rule.as_ref().map(|r| (r.agent.clone(), r.index));
                rule.and_then(|key| why_not.get(&key).cloned()).unwrap_or_else(|| format!("no reply of {} takes it", name(&edge.source)))
            }
            EdgeKind::Fallback => {
                let Some(agent) = from_agent.and_then(|a| crew.agent(a.as_str())) else { return "its agent is not in the crew".into() };
                if crew.routing.on_no_signal != OnNoSignal::Fallback {
                    let (mode, does) = match crew.routing.on_no_signal {
                        OnNoSignal::Reprompt => ("reprompt", "asked again"),
                        OnNoSignal::Pause => ("pause", "waited on (the crew waits for you)"),
                        OnNoSignal::End => ("end", "the end of the run"),
                        OnNoSignal::Fallback => ("fallback", ""),
                    };
                    format!("routing.on_no_signal is {mode}: a reply of {} without a signal is {does}, never handed on", agent.name)
                } else if agent.wait_for_signal {
                    format!("{} waits for you when its reply has no signal, before any otherwise arrow", agent.name)
                } else if agent.is_terminal {
                    format!("{} finishes the run when its reply has no signal, before any otherwise arrow", agent.name)
                } else {
                    let first = agent.handoff_targets.iter().find(|t| **t != agent.id && crew.agent(t.as_str()).is_some());
                    match first {
                        Some(first) => {
                            format!("only {}'s first otherwise arrow (to {}) is ever taken", agent.name, name(&agent_node(first.as_str())))
                        }
                        None => format!("no reply of {} takes it", agent.name),
                    }
                }
            }
            EdgeKind::Terminal => match from_agent.and_then(|a| crew.agent(a.as_str())) {
                Some(agent) if agent.wait_for_signal => {
                    format!("{} waits for you when its reply has no signal, before it could finish", agent.name)
                }
                Some(agent) if strategy == Strategy::Scoring => {
                    format!(
                        "under the scoring strategy {}'s answer goes to the finalizer; only the finalizer's answer ends the run",
                        agent.name
                    )
                }
                Some(agent) => format!("no reply of {} finishes the run", agent.name),
                None => "its agent is not in the crew".into(),
            },
            EdgeKind::GroupNext | EdgeKind::Membership => format!("no signal a run acts on starts the group {}", name(&edge.source)),
            EdgeKind::Assign if limit(crew) == 0 => format!("{}: the first decision can only complete the work", limit_words(crew)),
            _ => format!("no run takes it from {}", name(&edge.source)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::CrewGraph;
    use crate::load::load_str;

    fn planned(yaml: &str) -> (Crew, GraphView, Plan) {
        let loaded = load_str("c.yaml", yaml);
        let crew = loaded.crew.unwrap();
        let view = CrewGraph::build(&crew).view(&crew);
        let plan = plan(&crew, &view);
        (crew, view, plan)
    }

    fn reasons(plan: &Plan) -> Vec<(String, String)> {
        plan.unreachable.iter().map(|u| (u.arrow.clone(), u.reason.clone())).collect()
    }

    #[test]
    fn every_arrow_of_a_loop_with_an_end_gets_a_scenario_that_finishes() {
        let (_, view, plan) = planned(
            "entry_point: a\nagents: [{id: a}, {id: b, handoff_targets: [a]}]\nrouting:\n  signals:\n    a: [{signal: '[NEXT]', target: b}, {signal: '[DONE]', target: ''}]\n    b: [{signal: '[BACK]', target: a}]\n",
        );
        assert!(plan.unreachable.is_empty(), "{:?}", reasons(&plan));
        assert_eq!(plan.scenarios.len(), view.edges.len());
        for scenario in &plan.scenarios {
            assert!(scenario.arrows.contains(&scenario.arrow), "{scenario:?}");
            assert_eq!(scenario.ending, Ok(RunStatus::Terminated), "{scenario:?}");
        }
        let back = plan.scenarios.iter().find(|s| s.arrow == "rule:b:0:agent:a").unwrap();
        assert_eq!(back.arrows, ["rule:a:0:agent:b", "rule:b:0:agent:a", "rule:a:1:end"]);
        // Each of a's replies names its turn: no two alike.
        let a = &back.replies.iter().find(|(agent, _)| agent == "a").unwrap().1;
        assert_eq!(a.len(), 2);
        assert_ne!(a[0], a[1]);
    }

    #[test]
    fn a_shadowed_rule_and_a_second_otherwise_arrow_are_unreachable_with_why() {
        let (_, _, plan) = planned(
            "entry_point: a\nagents: [{id: a, handoff_targets: [b, c]}, {id: b, is_terminal: true}, {id: c, is_terminal: true}]\nrouting:\n  signals:\n    a: [{signal: '[NEXT]', target: b}, {signal: '[NEXT]', target: c}]\n",
        );
        let reasons = reasons(&plan);
        assert!(
            reasons.contains(&(
                "rule:a:1:agent:c".into(),
                "an earlier rule of a on [NEXT] is taken instead: only the first is ever taken".into()
            )),
            "{reasons:?}"
        );
        assert!(
            reasons.contains(&("fallback:a:agent:c".into(), "only a's first otherwise arrow (to b) is ever taken".into())),
            "{reasons:?}"
        );
        // c still works: nothing routes to it, and it is said so.
        assert_eq!(plan.unreached_agents.len(), 1);
        assert!(plan.unreached_agents[0].1.contains("gives c work"), "{:?}", plan.unreached_agents);
    }

    #[test]
    fn an_arrow_past_the_handoff_limit_is_unreachable_and_says_the_limit() {
        let (_, _, plan) = planned(
            "entry_point: a\nmax_handoffs: 2\nagents: [{id: a}, {id: b}, {id: c, is_terminal: true}]\nrouting:\n  signals:\n    a: [{signal: '[NEXT]', target: b}]\n    b: [{signal: '[NEXT]', target: c}]\n",
        );
        let reasons = reasons(&plan);
        assert!(
            reasons
                .contains(&("rule:b:0:agent:c".into(), "it takes 2 transfers to get there, and max_handoffs 2 allows 1 transfer".into())),
            "{reasons:?}"
        );
    }

    #[test]
    fn a_pause_is_answered_and_the_run_goes_on_to_the_end() {
        let (_, _, plan) = planned(
            "entry_point: a\nagents: [{id: a}]\nsignals: [{name: '[WAIT]', behavior: pause}, {name: '[DONE]', behavior: terminate}]\nrouting:\n  signals:\n    a: [{signal: '[WAIT]', target: ''}, {signal: '[DONE]', target: ''}]\n",
        );
        let wait = plan.scenarios.iter().find(|s| s.arrow == "rule:a:0:wait").unwrap();
        assert_eq!(wait.answers.len(), 1);
        assert_eq!(wait.ending, Ok(RunStatus::Terminated));
        assert_eq!(wait.arrows, ["rule:a:0:wait", "rule:a:1:end"]);
    }

    #[test]
    fn under_a_router_the_entry_point_asks_and_is_never_assigned() {
        let (_, _, plan) = planned("entry_point: lead\nrouting: {strategy: llm}\nagents: [{id: lead}, {id: w}]\n");
        assert!(plan.unreachable.is_empty(), "{:?}", reasons(&plan));
        let arrows: Vec<&str> = plan.scenarios.iter().map(|s| s.arrow.as_str()).collect();
        assert!(!arrows.contains(&"assign:router:agent:lead"), "no arrow hands the entry point work: {arrows:?}");
        let asks = plan.scenarios.iter().find(|s| s.arrow == "asks:lead:router").unwrap();
        assert_eq!((asks.decisions.len(), &asks.ending), (1, &Ok(RunStatus::Completed)), "the first decision takes it");
        let w = plan.scenarios.iter().find(|s| s.arrow == "assign:router:agent:w").unwrap();
        assert_eq!(w.decisions.len(), 2);
        assert_eq!(w.ending, Ok(RunStatus::Completed));
    }

    #[test]
    fn under_scoring_each_specialist_gets_a_request_its_tags_win() {
        let (_, _, plan) = planned(
            "entry_point: s\nrouting: {strategy: scoring, finalizer: f}\nagents: [{id: s}, {id: x, tags: [invoice]}, {id: y, tags: [login]}, {id: f, is_terminal: true}]\n",
        );
        assert!(plan.unreachable.is_empty(), "{:?}", reasons(&plan));
        let y = plan.scenarios.iter().find(|s| s.arrow == "score:s:agent:y").unwrap();
        assert_eq!(y.input, "A request about login.");
        assert_eq!(y.requested, None);
        assert_eq!(y.arrows, ["score:s:agent:y", "finalize:y:agent:f", "terminal:f:end"]);
    }

    #[test]
    fn a_specialist_no_request_makes_the_best_match_is_asked_for_by_name() {
        // x and y have the same words; ties go to the agent listed first.
        let (_, _, plan) = planned(
            "entry_point: s\nrouting: {strategy: scoring}\nagents: [{id: s}, {id: x, tags: [invoice]}, {id: y, tags: [invoice]}]\n",
        );
        assert!(plan.unreachable.is_empty(), "{:?}", reasons(&plan));
        let x = plan.scenarios.iter().find(|s| s.arrow == "score:s:agent:x").unwrap();
        let y = plan.scenarios.iter().find(|s| s.arrow == "score:s:agent:y").unwrap();
        assert_eq!((x.requested.as_deref(), y.requested.as_deref()), (None, Some("y")));
    }
}
