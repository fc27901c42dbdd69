//! The `signals` strategy's decision after an agent's reply (DESIGN.md §4, step 4):
//! pure, from the crew, the agent and its reply to [`Next`] and the events that
//! explain it. The checks run in the design's order, first that applies:
//!
//! 1. a terminate signal of the agent's rules matched → terminated;
//! 2. a pause signal matched → paused;
//! 3. a route, parallel or broadcast signal matched, rules in file order, first
//!    match wins (a target gone at run time is a warning and counts as no match);
//! 4. the agent waits for a signal → paused;
//! 5. the agent is terminal → completed;
//! 6. `routing.on_no_signal`: fallback, reprompt (three replies in a row end
//!    `signal_failure`), pause, or end (`no_route`) — after a `route_missed` event
//!    naming what came close, when anything did ([`crate::signal::near_miss`]).
//!
//! Only the agent's own rules count: a built-in `[END]` in a reply ends nothing
//! unless one of its rules says so.

use crate::crew::{Crew, OnNoSignal, Rule, Target};
use crate::ids::{AgentId, GroupId, SignalName};
use crate::run::event::{EventKind, RunStatus};
use crate::signal::{near_misses, Behavior, MatchLevel, ReplyMatches};

/// Replies in a row without a signal after which `reprompt` gives up.
pub const MAX_STRIKES: u32 = 3;

/// What the run does after a reply.
#[derive(Clone, Debug, PartialEq)]
pub enum Next {
    /// End the run with this status (terminated, completed, no_route, signal_failure).
    End(RunStatus),
    /// Wait for the person, then go on with `resume_with`.
    Pause { resume_with: AgentId, signal: Option<SignalName> },
    /// Transfer to an agent (itself included).
    Route { to: AgentId, reason: String },
    /// Run a parallel group, then go to its next agent (or back).
    Group { group: GroupId, reason: String },
    /// Deliver the reply to each target once.
    Broadcast { targets: Vec<AgentId>, reason: String },
    /// Ask the same agent again, reminding it of its signals (this is strike `strike`).
    Reprompt { strike: u32 },
}

/// The decision with the events that explain it.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    pub events: Vec<EventKind>,
    pub next: Next,
}

/// Decides what follows `agent`'s `reply`, whose signals are `found`; `strikes` is
/// the number of replies in a row without a signal before this one.
pub fn decide(crew: &Crew, agent: &AgentId, reply: &str, found: &ReplyMatches, strikes: u32) -> Decision {
    let rules = crew.rules_of(agent.as_str());
    let matched = |rule: &Rule| rule.signal_index.and_then(|i| found.get(i));
    let mut events = Vec::new();
    let signal_event = |rule: &Rule, level: MatchLevel, payload: Option<String>, target: Option<String>| EventKind::SignalMatched {
        agent: agent.clone(),
        signal: rule.signal.clone(),
        level,
        behavior: rule.behavior,
        target,
        payload,
    };

    // 1. terminate
    if let Some((rule, m)) = rules.iter().filter(|r| r.behavior == Behavior::Terminate).find_map(|r| matched(r).map(|m| (r, m))) {
        events.push(signal_event(rule, m.level, m.payload.clone(), None));
        return Decision { events, next: Next::End(RunStatus::Terminated) };
    }
    // 2. pause
    if let Some((rule, m)) = rules.iter().filter(|r| r.behavior == Behavior::Pause).find_map(|r| matched(r).map(|m| (r, m))) {
        let resume_with = match rule.targets.first() {
            Some(Target::Agent(id)) if crew.agent(id.as_str()).is_some() => id.clone(),
            _ => agent.clone(),
        };
        events.push(signal_event(rule, m.level, m.payload.clone(), rule.targets.first().map(|t| t.id().to_owned())));
        return Decision { events, next: Next::Pause { resume_with, signal: Some(rule.signal.clone()) } };
    }
    // 3. route, parallel, broadcast: file order, first match wins
    for rule in rules.iter().filter(|r| matches!(r.behavior, Behavior::Route | Behavior::Parallel | Behavior::Broadcast)) {
        let Some(m) = matched(rule) else { continue };
        let reason = format!("signal {} ({})", rule.signal, m.level.as_str());
        let present: Vec<&Target> = rule
            .targets
            .iter()
            .filter(|t| match t {
                Target::Agent(id) => crew.agent(id.as_str()).is_some(),
                Target::Group(id) => crew.group(id.as_str()).is_some(),
            })
            .collect();
        let next = match (rule.behavior, present.as_slice()) {
            (Behavior::Broadcast, targets) if !targets.is_empty() => Some(Next::Broadcast {
                targets: targets.iter().filter_map(|t| if let Target::Agent(id) = t { Some(id.clone()) } else { None }).collect(),
                reason,
            }),
            (_, [Target::Group(group), ..]) => Some(Next::Group { group: group.clone(), reason }),
            (_, [Target::Agent(to), ..]) => Some(Next::Route { to: to.clone(), reason }),
            _ => None,
        };
        match next {
            Some(next) => {
                let target = rule.targets.iter().map(Target::id).collect::<Vec<_>>().join(", ");
                events.push(signal_event(rule, m.level, m.payload.clone(), Some(target)));
                return Decision { events, next };
            }
            None => {
                let gone = rule.targets.iter().map(Target::id).collect::<Vec<_>>().join(", ");
                events.push(EventKind::Warning {
                    message: format!(
                        "signal {} of agent '{agent}' leads to '{gone}', which does not exist now; treated as no match",
                        rule.signal
                    ),
                });
            }
        }
    }
    let Some(this) = crew.agent(agent.as_str()) else {
        return Decision { events, next: Next::End(RunStatus::NoRoute) };
    };
    // 4. waits for a signal
    if this.wait_for_signal {
        return Decision { events, next: Next::Pause { resume_with: agent.clone(), signal: None } };
    }
    // 5. terminal
    if this.is_terminal {
        return Decision { events, next: Next::End(RunStatus::Completed) };
    }
    // 6. no signal matched: what came close, then `on_no_signal`
    let candidates = near_misses(crew, agent.as_str(), reply, found);
    if !candidates.is_empty() {
        events.push(EventKind::RouteMissed { agent: agent.clone(), candidates });
    }
    let next = match crew.routing.on_no_signal {
        OnNoSignal::Fallback => match fallback_target(crew, agent) {
            Some((to, reason)) => Next::Route { to, reason },
            None => Next::End(RunStatus::NoRoute),
        },
        OnNoSignal::Reprompt if strikes + 1 >= MAX_STRIKES => Next::End(RunStatus::SignalFailure),
        OnNoSignal::Reprompt => Next::Reprompt { strike: strikes + 1 },
        OnNoSignal::Pause => Next::Pause { resume_with: agent.clone(), signal: None },
        OnNoSignal::End => Next::End(RunStatus::NoRoute),
    };
    Decision { events, next }
}

/// Where `agent`'s work goes, under the `signals` strategy, when its reply has no
/// signal and no arrow of its own says where: the next agent of the crew, chosen
/// automatically (DESIGN.md §4, step 4.6) — None when it has a handoff target of
/// its own, waits for the person, finishes the run, or `on_no_signal` is not
/// `fallback`. The window draws no arrow for it and says it on the agent's card.
pub fn automatic_fallback(crew: &Crew, agent: &AgentId) -> Option<AgentId> {
    let this = crew.agent(agent.as_str())?;
    let own = this.handoff_targets.iter().any(|t| t != agent && crew.agent(t.as_str()).is_some());
    if crew.routing.strategy != crate::crew::Strategy::Signals
        || crew.routing.on_no_signal != OnNoSignal::Fallback
        || this.wait_for_signal
        || this.is_terminal
        || own
    {
        return None;
    }
    fallback_target(crew, agent).map(|(to, _)| to)
}

/// The fallback (seed 000): the first of the agent's handoff targets that is not
/// itself, else the first other agent in crew order.
fn fallback_target(crew: &Crew, agent: &AgentId) -> Option<(AgentId, String)> {
    let this = crew.agent(agent.as_str())?;
    if let Some(target) = this.handoff_targets.iter().find(|t| *t != agent && crew.agent(t.as_str()).is_some()) {
        return Some((target.clone(), "no signal matched; fallback to its handoff target".into()));
    }
    crew.agents.iter().find(|a| a.id != *agent).map(|a| (a.id.clone(), "no signal matched; fallback to the next agent of the crew".into()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::load_str;

    fn crew(yaml: &str) -> Crew {
        let loaded = load_str("t.yaml", yaml);
        assert!(loaded.is_valid(), "{:#?}", loaded.diagnostics);
        loaded.crew.unwrap()
    }

    fn decide_on(crew: &Crew, agent: &str, reply: &str, strikes: u32) -> Decision {
        decide(crew, &AgentId::from(agent), reply, &crew.matcher.scan(reply), strikes)
    }

    const CREW: &str = r#"
entry_point: a
signals: []
agents:
  - { id: a, handoff_targets: [c] }
  - { id: b }
  - { id: c, is_terminal: true }
  - { id: w, wait_for_signal: true }
routing:
  signals:
    a:
      - { signal: "[NEXT]", target: b }
      - { signal: "[WAIT]", target: "" }
      - { signal: "[DONE]", target: "" }
      - { signal: "[RETRY]", target: a }
"#;

    #[test]
    fn terminate_wins_over_pause_and_route_wherever_it_is_in_the_reply() {
        let crew = crew(CREW);
        let d = decide_on(&crew, "a", "[NEXT] first, then [WAIT] and finally [DONE]", 0);
        assert_eq!(d.next, Next::End(RunStatus::Terminated));
        assert!(matches!(&d.events[0], EventKind::SignalMatched { signal, .. } if signal == "[DONE]"));
    }

    #[test]
    fn route_rules_are_taken_in_file_order_not_reply_order() {
        let crew = crew(CREW);
        let d = decide_on(&crew, "a", "[RETRY] then [NEXT]", 0);
        assert_eq!(d.next, Next::Route { to: AgentId::from("b"), reason: "signal [NEXT] (exact)".into() });
    }

    #[test]
    fn only_the_agents_own_rules_count() {
        let crew = crew(CREW);
        // b has no rules: [DONE] in its reply ends nothing; it falls back.
        let d = decide_on(&crew, "b", "[DONE]", 0);
        assert!(matches!(d.next, Next::Route { ref to, .. } if to == "a"), "{:?}", d.next);
    }

    #[test]
    fn waiting_comes_before_terminal_and_fallback() {
        let crew = crew(CREW);
        assert_eq!(decide_on(&crew, "w", "nothing", 0).next, Next::Pause { resume_with: AgentId::from("w"), signal: None });
        assert_eq!(decide_on(&crew, "c", "nothing", 0).next, Next::End(RunStatus::Completed));
    }

    #[test]
    fn fallback_prefers_handoff_targets_then_crew_order() {
        let crew = crew(CREW);
        let d = decide_on(&crew, "a", "no signal here", 0);
        assert!(matches!(d.next, Next::Route { ref to, .. } if to == "c"), "{:?}", d.next);
        let d = decide_on(&crew, "b", "no signal here", 0);
        assert!(matches!(d.next, Next::Route { ref to, .. } if to == "a"), "{:?}", d.next);
    }

    #[test]
    fn the_automatic_fallback_is_the_one_no_arrow_shows() {
        let crew = crew(CREW);
        // a has a handoff target of its own (drawn as "otherwise"); w waits; c finishes.
        for agent in ["a", "w", "c"] {
            assert_eq!(automatic_fallback(&crew, &AgentId::from(agent)), None, "{agent}");
        }
        // b has none: its work goes on to the first other agent, as the run would send it.
        assert_eq!(automatic_fallback(&crew, &AgentId::from("b")), Some(AgentId::from("a")));
        let reprompting = self::crew(&format!("{CREW}  on_no_signal: reprompt\n"));
        assert_eq!(automatic_fallback(&reprompting, &AgentId::from("b")), None, "reprompt asks again instead");
    }

    #[test]
    fn reprompt_gives_up_at_the_third_reply_without_a_signal() {
        let crew = crew(&format!("{CREW}  on_no_signal: reprompt\n"));
        assert_eq!(decide_on(&crew, "b", "hm", 0).next, Next::Reprompt { strike: 1 });
        assert_eq!(decide_on(&crew, "b", "hm", 1).next, Next::Reprompt { strike: 2 });
        assert_eq!(decide_on(&crew, "b", "hm", 2).next, Next::End(RunStatus::SignalFailure));
    }

    #[test]
    fn on_no_signal_pause_and_end() {
        let paused = crew(&format!("{CREW}  on_no_signal: pause\n"));
        assert!(matches!(decide_on(&paused, "b", "hm", 0).next, Next::Pause { .. }));
        let ended = crew(&format!("{CREW}  on_no_signal: end\n"));
        assert_eq!(decide_on(&ended, "b", "hm", 0).next, Next::End(RunStatus::NoRoute));
    }

    #[test]
    fn a_target_gone_at_run_time_is_a_warning_and_no_match() {
        let mut crew = crew(CREW);
        crew.agents.retain(|a| a.id != "b");
        let d = decide_on(&crew, "a", "[NEXT]", 0);
        assert!(matches!(&d.events[0], EventKind::Warning { message } if message.contains("does not exist now")));
        // …so the agent falls back.
        assert!(matches!(d.next, Next::Route { ref to, .. } if to == "c"));
    }
}
