//! The system prompts of an imported crew: each agent's built from its role, goal
//! and backstory and the tasks it does (their description, what to hand back, the
//! tasks whose results they work from, and — in a sequential crew — the signal that
//! says each is done, and the review a person gives); the manager's from the whole
//! plan. `{placeholders}` stay as written, with a line saying where their values
//! come from.

use std::fmt::Write;

use super::crew_py::Process;
use crate::diagnostic::Location;

/// An agent of the project, as the crew will have it.
#[derive(Clone, Debug)]
pub struct AgentPlan {
    /// Its name in agents.yaml.
    pub key: String,
    /// Its id in the crew.
    pub id: String,
    pub role: Option<String>,
    pub goal: Option<String>,
    pub backstory: Option<String>,
    /// The model Crewgraph names for its `llm:` (None: the default model).
    pub model: Option<String>,
    /// Where agents.yaml names it.
    pub at: Location,
}

/// A task of the project, in tasks.yaml's order.
#[derive(Clone, Debug)]
pub struct TaskPlan {
    /// Its name in tasks.yaml.
    pub key: String,
    pub description: Option<String>,
    pub expected_output: Option<String>,
    /// The agent that does it (an index into the agents).
    pub agent: Option<usize>,
    /// The tasks whose results it works from, by name.
    pub context: Vec<String>,
    /// A person reviews its answer (`human_input: true`).
    pub human_input: bool,
    /// The signal that says it is done (sequential crews).
    pub done: String,
    /// The signal that asks the person to review it (sequential crews, `human_input`).
    pub review: Option<String>,
}

/// Who the agent is: role, goal, backstory.
fn identity(out: &mut String, agent: &AgentPlan) {
    if let Some(role) = &agent.role {
        let _ = writeln!(out, "Your role: {role}");
    }
    if let Some(goal) = &agent.goal {
        let _ = writeln!(out, "Your goal: {goal}");
    }
    if let Some(backstory) = &agent.backstory {
        let _ = write!(out, "\n{backstory}\n");
    }
}

/// One task as an agent is told it.
fn task_text(out: &mut String, number: usize, task: &TaskPlan, process: Process) {
    let _ = writeln!(out, "\n{number}. {}", task.key);
    if let Some(description) = &task.description {
        let _ = writeln!(out, "{description}");
    }
    if let Some(expected) = &task.expected_output {
        let _ = writeln!(out, "Hand back: {expected}");
    }
    if !task.context.is_empty() {
        let _ = writeln!(out, "Work from the results of: {}.", task.context.join(", "));
    }
    if process == Process::Sequential {
        match &task.review {
            Some(review) => {
                let _ = writeln!(
                    out,
                    "A person reviews this answer: when it is ready, end your reply with {review} and wait for them. \
                     Once they have answered, give the final answer, changed as they asked, and end it with {}.",
                    task.done
                );
            }
            None => {
                let _ = writeln!(out, "When it is done, end your reply with {}.", task.done);
            }
        }
    }
}

/// The system prompt of an agent that does `tasks`.
pub fn agent_prompt(agent: &AgentPlan, tasks: &[&TaskPlan], process: Process) -> String {
    let mut out = String::new();
    identity(&mut out, agent);
    if !tasks.is_empty() {
        let heading = match process {
            Process::Sequential => "Your tasks in this crew, in the order they come:",
            Process::Hierarchical => "The tasks you may be given in this crew:",
        };
        let _ = write!(out, "\n{heading}\n");
        for (index, task) in tasks.iter().enumerate() {
            task_text(&mut out, index + 1, task, process);
        }
    }
    finish(out)
}

/// The system prompt of a hierarchical crew's manager: its own identity (when the
/// project names a manager agent) and the whole plan.
pub fn manager_prompt(manager: Option<&AgentPlan>, agents: &[AgentPlan], tasks: &[TaskPlan]) -> String {
    let mut out = String::new();
    match manager {
        Some(manager) => identity(&mut out, manager),
        None => out.push_str(
            "Your role: Crew manager\nYour goal: See that the crew's tasks are done well, each by the agent best suited to it.\n",
        ),
    }
    out.push_str(
        "\nYou start each run. Read the person's request and write a short plan: the tasks below in the order \
         they should be done, and for each the agent best suited to it. A router then hands each task on.\n\nThe tasks:\n",
    );
    for (index, task) in tasks.iter().enumerate() {
        let who = task.agent.and_then(|a| agents.get(a)).map(|a| format!(" (for {})", a.id)).unwrap_or_default();
        let _ = writeln!(out, "\n{}. {}{who}", index + 1, task.key);
        if let Some(description) = &task.description {
            let _ = writeln!(out, "{description}");
        }
        if let Some(expected) = &task.expected_output {
            let _ = writeln!(out, "Hand back: {expected}");
        }
    }
    finish(out)
}

/// Adds a line saying where the prompt's `{placeholders}` come from, if it has any.
fn finish(mut out: String) -> String {
    let mut found = Vec::new();
    super::names::placeholders(&out, &mut found);
    if !found.is_empty() {
        let list = found.iter().map(|f| format!("{{{f}}}")).collect::<Vec<_>>().join(", ");
        let _ = write!(
            out,
            "\nWords in braces ({list}) stand for what the person gave when the run started: take their values from the \
             person's first message.\n"
        );
    }
    format!("{}\n", out.trim())
}
