//! How an imported crew's work goes on, by the project's process:
//!
//! - **sequential**: a chain of routes in task order. Each task has a signal that
//!   says it is done (`[RESEARCH_DONE]`), emitted by its agent and leading to the
//!   next task's agent, the last one to End; a task a person reviews
//!   (`human_input: true`) has a pause signal too (`[RESEARCH_REVIEW]`, the Wait),
//!   after which the run goes on with the same agent. The registry is strict, so
//!   each signal says who may emit it and what it does.
//! - **hierarchical**: the `llm` strategy, the manager as the supervisor that starts
//!   each run, a router model (the project's `manager_llm` when it names one) handing
//!   each task on.

use std::collections::HashSet;

use serde_json::{json, Map, Value};

use super::names::task_stem;
use super::prompt::{AgentPlan, TaskPlan};
use crate::signal::name::normalize;

/// Names each task's signals (`done`, and `review` for those a person reviews),
/// each distinct from the others after normalization.
pub fn name_signals(tasks: &mut [TaskPlan]) {
    let mut taken = HashSet::new();
    let mut unique = |stem: &str, what: &str| {
        let mut name = format!("[{stem}_{what}]");
        let mut n = 2;
        while !taken.insert(normalize(&name)) {
            name = format!("[{stem}_{n}_{what}]");
            n += 1;
        }
        name
    };
    for task in tasks.iter_mut() {
        let stem = task_stem(&task.key);
        task.done = unique(&stem, "DONE");
        if task.human_input {
            task.review = Some(unique(&stem, "REVIEW"));
        }
    }
}

/// A sequential crew's `signals:` and `routing:`. Every task has an agent here.
pub fn sequential(agents: &[AgentPlan], tasks: &[TaskPlan]) -> (Value, Value) {
    let mut signals = Vec::new();
    let mut rules: Map<String, Value> = Map::new();
    for (index, task) in tasks.iter().enumerate() {
        let Some(agent) = task.agent.and_then(|a| agents.get(a)) else { continue };
        let next = tasks.get(index + 1).and_then(|t| t.agent).and_then(|a| agents.get(a));
        let list = rules.entry(agent.id.clone()).or_insert_with(|| Value::Array(Vec::new()));
        let Value::Array(list) = list else { continue };
        if let Some(review) = &task.review {
            signals.push(json!({
                "name": review,
                "behavior": "pause",
                "description": format!("asks you to review {}", task.key),
                "allowed_agents": [agent.id],
            }));
            list.push(json!({"signal": review, "target": agent.id}));
        }
        match next {
            Some(next) => {
                signals.push(json!({
                    "name": task.done,
                    "behavior": "route",
                    "description": format!("{} is done", task.key),
                    "allowed_agents": [agent.id],
                }));
                list.push(json!({"signal": task.done, "target": next.id}));
            }
            None => {
                signals.push(json!({
                    "name": task.done,
                    "behavior": "terminate",
                    "description": format!("{} is done, and with it the crew's work", task.key),
                    "allowed_agents": [agent.id],
                }));
                list.push(json!({"signal": task.done, "target": ""}));
            }
        }
    }
    // No signal in a reply: the agent is reminded of its signals, not sent on to
    // whoever comes next in the file.
    let routing = json!({"strategy": "signals", "on_no_signal": "reprompt", "signals": rules});
    (Value::Array(signals), routing)
}

/// A hierarchical crew's `routing:`: the router model decides, at most
/// `max_iterations` times.
pub fn hierarchical(tasks: &[TaskPlan], router_model: Option<&str>) -> Value {
    let mut routing = json!({"strategy": "llm", "max_iterations": (tasks.len() * 2).max(10)});
    if let Some(model) = router_model {
        routing["router"] = json!({"model": model});
    }
    routing
}
