//! Everything an import of a CrewAI project can say: errors (the project cannot
//! become a crew) and warnings (a part of it was left out or changed), each in a
//! person's words. Display is the message the CLI prints after `file:line:col:` and
//! the window shows.

use crate::diagnostic::Severity;

/// One thing to say about a CrewAI project.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CrewAiProblem {
    // ---- errors ----
    /// The YAML (or its shape) could not be read; `detail` is the loader's message.
    #[error("{detail}")]
    Unreadable { detail: String },
    /// agents.yaml holds no agent.
    #[error("{file} has no agents: write each agent as a name followed by its role, goal and backstory")]
    NoAgents { file: String },
    /// tasks.yaml holds no task.
    #[error("{file} has no tasks: write each task as a name followed by its description, expected_output and agent")]
    NoTasks { file: String },
    /// A task names an agent agents.yaml does not have.
    #[error("task '{task}' is for agent '{agent}', but agents.yaml has no agent called '{agent}' (it has: {known})")]
    UnknownAgent { task: String, agent: String, known: String },
    /// A task of a sequential crew without `agent:`.
    #[error("task '{task}' says no agent; in a sequential crew each task needs one (add 'agent: NAME'; for a hierarchical crew, give its crew.py too)")]
    TaskWithoutAgent { task: String },
    /// `context:` names a task tasks.yaml does not have.
    #[error("task '{task}' takes its context from '{context}', but tasks.yaml has no task called '{context}'")]
    UnknownContext { task: String, context: String },

    // ---- warnings ----
    /// A tool of an agent or task: CrewAI's tools are Python.
    #[error("{owner} uses the tool '{tool}', a Python tool of CrewAI that Crewgraph cannot run; it is left out (give the agent an MCP server's tool instead: docs/tools.md)")]
    PythonTool { owner: String, tool: String },
    /// A Python tool given to an agent in crew.py.
    #[error("crew.py gives {owner} the Python tool {tool}, which Crewgraph cannot run; it is left out (give the agent an MCP server's tool instead: docs/tools.md)")]
    CrewPyTool { owner: String, tool: String },
    /// A setting of crew.py that runs Python or has no counterpart.
    #[error("crew.py sets '{setting}' ({what}); Crewgraph cannot do that, so it is left out")]
    CrewPySetting { setting: String, what: String },
    /// A key of agents.yaml or tasks.yaml that runs Python code.
    #[error("{owner} sets '{key}', which runs Python code in CrewAI; Crewgraph cannot run it, so it is left out")]
    PythonKey { owner: String, key: String },
    /// A key of agents.yaml or tasks.yaml Crewgraph has no counterpart for.
    #[error("{owner} sets '{key}', which Crewgraph has no counterpart for; it is left out")]
    UnmappedKey { owner: String, key: String },
    /// `allow_delegation: true`.
    #[error("agent '{agent}' may delegate work to its coworkers in CrewAI (allow_delegation); in Crewgraph work goes on only along the routes drawn, so draw one from '{agent}' to whom it should ask")]
    Delegation { agent: String },
    /// An `llm:` Crewgraph's providers do not name.
    #[error("agent '{agent}' uses the model '{llm}', which is not an OpenAI or Anthropic model Crewgraph can name; it uses the default model instead (add the model in Settings and choose it for the agent)")]
    UnknownModel { agent: String, llm: String },
    /// An agent that no task is for (sequential).
    #[error("agent '{agent}' does no task, so no route leads to it; it is kept, unconnected")]
    AgentWithoutTask { agent: String },
    /// `context:` naming a task that runs later.
    #[error("task '{task}' takes its context from '{context}', which comes after it; in Crewgraph each agent sees the work done so far, so it will not see that task's result")]
    LaterContext { task: String, context: String },
    /// `human_input: true` under a hierarchical process.
    #[error("task '{task}' asks a person to review its answer (human_input), but in a hierarchical crew the router model decides who works next, so no Wait is drawn; use a sequential crew for a review step")]
    HumanInputUnderRouter { task: String },
    /// A hierarchical crew whose manager_agent is not in agents.yaml.
    #[error("crew.py names the manager '{manager}', which agents.yaml does not have; a manager agent was made for it")]
    ManagerNotFound { manager: String },
    /// An id changed to one Crewgraph accepts.
    #[error("the name '{name}' has characters Crewgraph ids cannot have; it is called '{id}' in the crew")]
    Renamed { name: String, id: String },
}

impl CrewAiProblem {
    /// Errors stop the import; warnings are said and the crew is made.
    pub fn severity(&self) -> Severity {
        use CrewAiProblem::*;
        match self {
            Unreadable { .. }
            | NoAgents { .. }
            | NoTasks { .. }
            | UnknownAgent { .. }
            | TaskWithoutAgent { .. }
            | UnknownContext { .. } => Severity::Error,
            _ => Severity::Warning,
        }
    }
}
