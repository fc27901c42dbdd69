//! The warnings of DESIGN.md §3: agents no route reaches, agents with no way out,
//! unknown tools. (Deprecated signals are reported with their rules, unknown keys
//! while loading.) Routes are only drawn by rules under the `signals` strategy, so
//! the two route warnings apply there only.

use std::collections::{HashMap, HashSet};

use marked_yaml::Span;

use super::LoadedAgent;
use crate::crew::{Agent, Crew, Rule, Strategy, Target, BUILTIN_TOOLS};
use crate::diagnostic::{Problem, Subject};
use crate::report::Report;
use crate::signal::Behavior;

pub(super) fn warn(crew: &Crew, loaded: &[LoadedAgent], id_spans: &[Span], report: &mut Report) {
    let stand_ins: HashSet<&str> = loaded.iter().filter(|l| l.missing).filter_map(|l| l.listed_id.as_ref().map(|id| id.as_str())).collect();
    // Without a valid entry point every agent would look unreachable.
    if crew.routing.strategy == Strategy::Signals && crew.agent(crew.entry_point.as_str()).is_some() {
        warn_routes(crew, id_spans, &stand_ins, report);
    }
    warn_tools(crew, loaded, report);
}

fn warn_routes(crew: &Crew, id_spans: &[Span], stand_ins: &HashSet<&str>, report: &mut Report) {
    // Agents that take a turn of their own, and agents reached only inside a group
    // (whose own signals are not acted on there). Of those taking turns, the ones a
    // run can be left with: a broadcast target runs once and the run goes on with the
    // agent that broadcast (DESIGN.md §3), so it needs no way out of its own.
    let mut turns: HashSet<&str> = HashSet::new();
    let mut members: HashSet<&str> = HashSet::new();
    let mut holders: HashSet<&str> = HashSet::new();
    // Looked up once per agent and rule: indexed, so a crew of thousands stays fast.
    let agents: HashMap<&str, &Agent> = crew.agents.iter().map(|a| (a.id.as_str(), a)).collect();
    let rules: HashMap<&str, &[Rule]> = crew.routing.rules.iter().map(|(id, rules)| (id.as_str(), rules.as_slice())).collect();
    let rules_of = |id: &str| rules.get(id).copied().unwrap_or_default();
    let mut queue = Vec::new();
    if agents.contains_key(crew.entry_point.as_str()) {
        queue.push((crew.entry_point.as_str(), true));
    }
    while let Some((current, holds)) = queue.pop() {
        if holds {
            holders.insert(current);
        }
        if !turns.insert(current) {
            continue;
        }
        let Some(agent) = agents.get(current) else { continue };
        let mut next: Vec<(&str, bool)> = agent.handoff_targets.iter().map(|t| (t.as_str(), true)).collect();
        for rule in rules_of(current) {
            for target in &rule.targets {
                match target {
                    Target::Agent(id) => next.push((id.as_str(), rule.behavior != Behavior::Broadcast)),
                    Target::Group(id) => {
                        if let Some(group) = crew.group(id.as_str()) {
                            members.extend(group.agents.iter().map(|a| a.as_str()));
                            next.push((group.next_agent.as_ref().map_or(current, |n| n.as_str()), true));
                        }
                    }
                }
            }
        }
        queue.extend(next);
    }
    for (agent, span) in crew.agents.iter().zip(id_spans) {
        let id = agent.id.as_str();
        if stand_ins.contains(id) {
            continue;
        }
        let subject = Subject::Agent { agent: id.to_owned() };
        if !turns.contains(id) && !members.contains(id) {
            report.at(span, Problem::Unreachable { agent: id.to_owned() }, subject.clone());
        }
        let passes_on = (members.contains(id) || turns.contains(id)) && !holders.contains(id);
        let has_exit = agent.is_terminal
            || agent.wait_for_signal
            || !agent.handoff_targets.is_empty()
            || rules_of(id).iter().any(|rule| !rule.targets.is_empty() || matches!(rule.behavior, Behavior::Terminate | Behavior::Pause));
        if !has_exit && !passes_on {
            report.at(span, Problem::NoWayOut { agent: id.to_owned() }, subject);
        }
    }
}

/// A tool is known when it is built in or comes from a declared MCP server
/// (`server`, `server.tool` or `server/tool`).
fn warn_tools(crew: &Crew, loaded: &[LoadedAgent], report: &mut Report) {
    let known = |tool: &str| {
        BUILTIN_TOOLS.contains(&tool)
            || crew.tool_servers.iter().any(|server| {
                tool == server.name
                    || tool.strip_prefix(server.name.as_str()).is_some_and(|rest| rest.starts_with('.') || rest.starts_with('/'))
            })
    };
    let by_id = super::loaded_by_id(loaded);
    for agent in &crew.agents {
        let Some(item) = by_id.get(agent.id.as_str()) else { continue };
        for tool in &item.file.tools {
            if !BUILTIN_TOOLS.contains(&tool.as_str()) {
                report.mention_tool(tool.span(), agent.id.as_str(), tool.as_str());
            }
            if !known(tool.as_str()) {
                let problem = Problem::UnknownTool { agent: agent.id.to_string(), tool: tool.to_string() };
                report.at(tool.span(), problem, Subject::Agent { agent: agent.id.to_string() });
            }
        }
    }
}
