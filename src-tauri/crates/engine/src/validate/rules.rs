//! Routing rules, parallel groups, agent behaviours and the Go engine's `defaults`:
//! each rule's signal is looked up in the registry, its emitter and targets are
//! checked against the signal's behaviour (DESIGN.md §3), and what resolves is kept.

use std::collections::HashSet;
use std::time::Duration;

use marked_yaml::{Span, Spanned};

use super::{duration_field, signals::implied_behavior};
use crate::crew::{Agent, ParallelGroup, Rule, Target, DEFAULT_GROUP_TIMEOUT};
use crate::diagnostic::{Problem, Subject};
use crate::file::{is_null, CrewFile, RuleFile, Targets};
use crate::ids::{AgentId, GroupId, SignalName};
use crate::report::Report;
use crate::signal::name::is_bracket_name;
use crate::signal::{Behavior, SignalRegistry};

pub(super) fn build_groups(file: &CrewFile, agents: &HashSet<String>, report: &mut Report) -> Vec<ParallelGroup> {
    let Some(groups) = file.routing.as_ref().and_then(|r| r.parallel_groups.as_ref()) else { return Vec::new() };
    let default_timeout = file
        .settings
        .as_ref()
        .and_then(|s| s.parallel_timeout_seconds.as_ref())
        .filter(|s| ***s > 0)
        .map_or(DEFAULT_GROUP_TIMEOUT, |s| Duration::from_secs(**s));
    let mut out = Vec::new();
    for (id, group) in &groups.0 {
        let subject = Subject::Group { group: id.to_string() };
        if agents.contains(id.as_str()) {
            report.at(id.span(), Problem::GroupIdIsAgent { group: id.to_string() }, subject.clone());
        }
        if group.agents.is_empty() {
            report.at(id.span(), Problem::GroupEmpty { group: id.to_string() }, subject.clone());
        }
        let mut members = Vec::new();
        for member in &group.agents {
            if agents.contains(member.as_str()) {
                members.push(AgentId::from(member.as_str()));
            } else {
                let problem = Problem::GroupUnknownAgent { group: id.to_string(), agent: member.to_string() };
                report.at(member.span(), problem, subject.clone());
            }
        }
        let field = format!("routing.parallel_groups.{}.timeout", id.as_str());
        let timeout = group
            .timeout
            .as_ref()
            .or(group.timeout_seconds.as_ref())
            .and_then(|t| duration_field(t, &field, subject.clone(), report))
            .unwrap_or(default_timeout);
        let next_agent = match group.next_agent.as_ref().filter(|n| !is_null(n)) {
            Some(next) if agents.contains(next.as_str()) => Some(AgentId::from(next.as_str())),
            Some(next) => {
                let problem = Problem::GroupUnknownNext { group: id.to_string(), agent: next.to_string() };
                report.at(next.span(), problem, subject.clone());
                None
            }
            None => None,
        };
        out.push(ParallelGroup {
            id: GroupId::from(id.as_str()),
            agents: members,
            timeout,
            wait_for_all: group.wait_for_all.unwrap_or(false),
            next_agent,
            description: group.description.clone().unwrap_or_default(),
        });
    }
    out
}

/// A rule's targets as written, each with the position to report it at.
fn written_targets(rule: &RuleFile, fallback: &Span) -> Vec<Spanned<String>> {
    let Some(targets) = &rule.target else { return Vec::new() };
    match &**targets {
        Targets::None => Vec::new(),
        Targets::One(id) => vec![Spanned::new(*targets.span(), id.clone())],
        Targets::Many(ids) => ids
            .iter()
            .filter(|id| !is_null(id))
            .map(|id| if id.span().start().is_some() { id.clone() } else { Spanned::new(*fallback, id.to_string()) })
            .collect(),
    }
}

pub(super) fn build_rules(
    file: &CrewFile,
    registry: &SignalRegistry,
    refused: &HashSet<String>,
    agents: &HashSet<String>,
    groups: &HashSet<String>,
    strict: bool,
    report: &mut Report,
) -> Vec<(AgentId, Vec<Rule>)> {
    let Some(all) = file.routing.as_ref().and_then(|r| r.signals.as_ref()) else { return Vec::new() };
    let mut out = Vec::new();
    for (agent, rules) in &all.0 {
        if !agents.contains(agent.as_str()) {
            let problem = Problem::UnknownAgentInSection { section: "routing.signals".into(), agent: agent.to_string() };
            report.at(agent.span(), problem, Subject::Crew);
            continue;
        }
        let mut kept: Vec<Rule> = Vec::new();
        // The rules that checked out without an error, for the repeat check.
        let mut sound: Vec<usize> = Vec::new();
        for (index, rule) in rules.iter().enumerate() {
            let subject = Subject::Rule { agent: agent.to_string(), index: index as u32 };
            let context = RuleContext { registry, refused, agents, groups, strict };
            let errors_before = report.error_count();
            let Some(checked) = check_rule(agent, index, rule, &context, subject.clone(), report) else { continue };
            if report.error_count() == errors_before {
                // Of two rules for one signal, the matcher only ever takes one (a rule
                // with an error of its own is reported for that alone).
                let same = |earlier: &Rule| match (earlier.signal_index, checked.signal_index) {
                    (Some(a), Some(b)) => a == b,
                    _ => earlier.signal == checked.signal,
                };
                if let Some(first) = sound.iter().map(|&i| &kept[i]).find(|earlier| same(earlier)) {
                    let (first, second) = (first.index, checked.index);
                    let problem =
                        Problem::RepeatedRule { agent: agent.to_string(), signal: checked.signal.to_string(), first, second, strict };
                    let at = rule.signal.as_ref().map_or(*rule.span(), |s| *s.span());
                    report.at(&at, problem, subject);
                }
                sound.push(kept.len());
            }
            kept.push(checked);
        }
        out.push((AgentId::from(agent.as_str()), kept));
    }
    out
}

/// What a rule is checked against.
struct RuleContext<'a> {
    registry: &'a SignalRegistry,
    /// Declared signals that were refused (their problem is reported there).
    refused: &'a HashSet<String>,
    agents: &'a HashSet<String>,
    groups: &'a HashSet<String>,
    strict: bool,
}

fn check_rule(
    agent: &Spanned<String>,
    index: usize,
    rule: &Spanned<RuleFile>,
    context: &RuleContext,
    subject: Subject,
    report: &mut Report,
) -> Option<Rule> {
    let RuleContext { registry, refused, agents, groups, strict } = *context;
    let Some(signal) = rule.signal.as_ref().filter(|s| !s.trim().is_empty()) else {
        let field = format!("routing.signals.{}[{index}].signal", agent.as_str());
        report.at(rule.span(), Problem::MissingField { field }, subject);
        return None;
    };
    let name = signal.to_string();
    let index_in_registry = registry.lookup(&name);
    let def = index_in_registry.map(|i| registry.get(i));
    match def {
        Some(def) => {
            if !def.allows(agent) {
                let problem = Problem::NotAllowedToEmit { agent: agent.to_string(), signal: name.clone() };
                report.at(signal.span(), problem, subject.clone());
            }
            if let Some(note) = &def.deprecated {
                let problem = Problem::DeprecatedSignal { signal: name.clone(), note: note.clone() };
                report.at(signal.span(), problem, subject.clone());
            }
        }
        // A pattern signal is known by its plain name; anything else must be `[NAME]`.
        None if !is_bracket_name(&name) => {
            report.at(signal.span(), Problem::InvalidSignalFormat { signal: name }, subject);
            return None;
        }
        // Declared, but refused (a collision): that is reported where it is declared,
        // and "not registered" would be wrong.
        None if refused.contains(&name) => {}
        // (An implicit registry refused this name already: it collides with another.)
        None if strict => report.at(signal.span(), Problem::UnknownSignal { signal: name.clone() }, subject.clone()),
        None => {}
    }
    // Strict registries decide the behaviour; implicit ones take it from each rule.
    let behavior = match def {
        Some(def) if strict || def.is_pattern() => def.behavior,
        _ => implied_behavior(rule.target.as_deref(), groups),
    };
    let targets = written_targets(rule, rule.span());
    let mut problems = Vec::new();
    let resolved = check_targets(&name, signal.span(), behavior, &targets, agents, groups, &mut problems);
    if let Some(def) = def.filter(|d| !d.valid_targets.is_empty()) {
        for target in &targets {
            if !def.valid_targets.iter().any(|v| v == target.as_str()) {
                let valid = def.valid_targets.join(", ");
                let problem = Problem::NotAValidTarget { signal: name.clone(), target: target.to_string(), valid };
                problems.push((*target.span(), problem));
            }
        }
    }
    for (span, problem) in problems {
        report.at(&span, problem, subject.clone());
    }
    Some(Rule {
        index: index as u32,
        signal: SignalName::from(name.as_str()),
        signal_index: index_in_registry,
        behavior,
        targets: resolved,
        description: rule.description.clone().unwrap_or_else(|| def.map(|d| d.description.clone()).unwrap_or_default()),
    })
}

/// Checks a rule's targets against its behaviour; returns those that resolve.
fn check_targets(
    signal: &str,
    signal_span: &Span,
    behavior: Behavior,
    targets: &[Spanned<String>],
    agents: &HashSet<String>,
    groups: &HashSet<String>,
    problems: &mut Vec<(Span, Problem)>,
) -> Vec<Target> {
    let resolve = |target: &str| {
        if agents.contains(target) {
            Some(Target::Agent(AgentId::from(target)))
        } else if groups.contains(target) {
            Some(Target::Group(GroupId::from(target)))
        } else {
            None
        }
    };
    let unknown =
        |target: &Spanned<String>| (*target.span(), Problem::UnknownTarget { signal: signal.to_owned(), target: target.to_string() });
    if behavior != Behavior::Broadcast && targets.len() > 1 {
        let problem = Problem::TooManyTargets { signal: signal.to_owned(), count: targets.len() as u32 };
        problems.push((*targets[1].span(), problem));
    }
    let mut resolved = Vec::new();
    match behavior {
        Behavior::Terminate => {
            if let Some(target) = targets.first() {
                let problem = Problem::TerminateWithTarget { signal: signal.to_owned(), target: target.to_string() };
                problems.push((*target.span(), problem));
            }
        }
        // A pause may name the agent to resume with.
        Behavior::Pause => {
            if let Some(target) = targets.first() {
                match resolve(target) {
                    Some(Target::Agent(id)) => resolved.push(Target::Agent(id)),
                    _ => problems.push(unknown(target)),
                }
            }
        }
        Behavior::Route | Behavior::Parallel | Behavior::Broadcast => {
            if targets.is_empty() {
                problems.push((*signal_span, Problem::RouteNeedsTarget { signal: signal.to_owned() }));
            }
            let limit = if behavior == Behavior::Broadcast { targets.len() } else { 1 };
            for target in targets.iter().take(limit) {
                match resolve(target) {
                    None => problems.push(unknown(target)),
                    Some(Target::Agent(_)) if behavior == Behavior::Parallel => {
                        let problem = Problem::ParallelNeedsGroup { signal: signal.to_owned(), target: target.to_string() };
                        problems.push((*target.span(), problem));
                    }
                    Some(found) if !resolved.contains(&found) => resolved.push(found),
                    Some(_) => {} // listed twice: one edge is enough
                }
            }
        }
    }
    resolved
}

/// Applies `routing.agent_behaviors`: `is_terminal` and `wait_for_signal` set there
/// or on the agent both count (DESIGN.md §12).
pub(super) fn apply_agent_behaviors(file: &CrewFile, agents: &mut [Agent], report: &mut Report) {
    let Some(behaviors) = file.routing.as_ref().and_then(|r| r.agent_behaviors.as_ref()) else { return };
    for (id, behavior) in &behaviors.0 {
        match agents.iter_mut().find(|a| a.id == id.as_str()) {
            Some(agent) => {
                agent.is_terminal |= behavior.is_terminal.unwrap_or(false);
                agent.wait_for_signal |= behavior.wait_for_signal.unwrap_or(false);
            }
            None => {
                let section = "routing.agent_behaviors".to_owned();
                report.at(id.span(), Problem::UnknownAgentInSection { section, agent: id.to_string() }, Subject::Crew);
            }
        }
    }
}

/// Applies the Go engine's `routing.defaults` (an agent's default next agent) as
/// one more handoff target.
pub(super) fn apply_go_defaults(file: &CrewFile, agents: &mut [Agent], known: &HashSet<String>, report: &mut Report) {
    let Some(defaults) = file.routing.as_ref().and_then(|r| r.defaults.as_ref()) else { return };
    for (id, target) in &defaults.0 {
        let Some(agent) = agents.iter_mut().find(|a| a.id == id.as_str()) else {
            let problem = Problem::UnknownAgentInSection { section: "routing.defaults".into(), agent: id.to_string() };
            report.at(id.span(), problem, Subject::Crew);
            continue;
        };
        if is_null(target) {
            continue;
        }
        if !known.contains(target.as_str()) {
            let problem = Problem::UnknownHandoffTarget { target: target.to_string(), agent: id.to_string() };
            report.at(target.span(), problem, Subject::Handoff { agent: id.to_string(), target: target.to_string() });
        } else if !agent.handoff_targets.iter().any(|t| t == target.as_str()) {
            agent.handoff_targets.push(AgentId::from(target.as_str()));
        }
    }
}
