//! A CrewAI project becomes a Crewgraph crew ([`import_crewai`]).
//!
//! The project's files are read in order — [`files`] (agents.yaml, tasks.yaml, with
//! the crew loader's positions), [`crew_py`] (the process and its manager, and the
//! Python that cannot come along) — then checked (every task's agent and context
//! exist), then made into a crew:
//!
//! - one agent per CrewAI agent, its id the agent's name, its role, goal and
//!   backstory kept, its system prompt written from them and its tasks ([`prompt`]);
//! - the process as routes ([`routes`]): sequential as a chain in task order ending
//!   in End, `human_input: true` as a Wait; hierarchical as the `llm` strategy with
//!   the manager as the supervisor;
//! - `{topic}` style placeholders kept as written and listed as the run's inputs.
//!
//! What cannot be carried over (Python tools, callbacks, settings without a
//! counterpart) is a warning at its `file:line:col` ([`problem`]); a project that
//! cannot be read (bad YAML, a task for an agent that does not exist) fails with
//! every error at its place. The crew is written as one YAML file in the app's own
//! style ([`crate::file::spec::to_yaml`]) and checked by the crew loader before it
//! is handed back: an import never makes a crew that does not validate.

pub mod crew_py;
pub mod files;
pub mod names;
pub mod problem;
pub mod prompt;
pub mod routes;

use serde_json::{json, Value};

use self::crew_py::{read_crew_py, CrewPy, Process};
use self::files::{location, read, text, AgentConfig, Named, TaskConfig};
use self::problem::CrewAiProblem;
use self::prompt::{agent_prompt, manager_prompt, AgentPlan, TaskPlan};
use super::{ImportFailed, ImportIssue, SourceFile};
use crate::diagnostic::{Location, Severity};
use crate::file::spec;
use crate::load::load_str;

/// A CrewAI project's files, as read by the host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CrewAiProject {
    /// The project's name (its folder), for the crew's name; None: from crew.py's
    /// class, else "CrewAI crew".
    pub name: Option<String>,
    /// `config/agents.yaml`.
    pub agents: SourceFile,
    /// `config/tasks.yaml`.
    pub tasks: SourceFile,
    /// `crew.py`, when there is one: the process, the manager, Python tools.
    pub crew_py: Option<SourceFile>,
}

/// The crew made from a project.
#[derive(Clone, Debug, PartialEq)]
pub struct Imported {
    /// The crew's name (`Latest ai development`).
    pub crew_name: String,
    /// A file name for it (`latest-ai-development.yaml`).
    pub file_name: String,
    /// The crew file's text.
    pub yaml: String,
    /// The crew as an editor holds it ([`spec`]).
    pub spec: Value,
    /// How the project ran its tasks.
    pub process: Process,
    /// What was left out or changed, in file order.
    pub warnings: Vec<ImportIssue>,
    /// The `{placeholders}` the run asks for, in the order they first appear.
    pub inputs: Vec<String>,
}

/// Makes a crew of a CrewAI project, or says every reason it cannot.
pub fn import_crewai(project: &CrewAiProject) -> Result<Imported, ImportFailed> {
    let mut issues = Vec::new();
    let agents = read::<AgentConfig>(&project.agents, "agent", &mut issues);
    let tasks = read::<TaskConfig>(&project.tasks, "task", &mut issues);
    let crew_py = project.crew_py.as_ref().map(read_crew_py).unwrap_or_default();
    for (at, problem) in &crew_py.left_out {
        issues.push(ImportIssue::new(problem.severity(), at.clone(), problem.to_string()));
    }
    let (Some(agents), Some(tasks)) = (agents, tasks) else { return Err(failed(project, issues)) };
    let mut say = |at: Location, problem: CrewAiProblem| issues.push(ImportIssue::new(problem.severity(), at, problem.to_string()));
    if agents.is_empty() {
        say(start(&project.agents), CrewAiProblem::NoAgents { file: project.agents.name.clone() });
    }
    if tasks.is_empty() {
        say(start(&project.tasks), CrewAiProblem::NoTasks { file: project.tasks.name.clone() });
    }
    let agent_plans = plan_agents(project, &agents, &mut say);
    let mut task_plans = plan_tasks(project, &tasks, &agent_plans, crew_py.process, &mut say);
    if issues.iter().any(|i| i.severity == Severity::Error) {
        return Err(failed(project, issues));
    }
    routes::name_signals(&mut task_plans);

    let mut say = |at: Location, problem: CrewAiProblem| issues.push(ImportIssue::new(problem.severity(), at, problem.to_string()));
    let crew_name = crew_name(project, &crew_py);
    let mut inputs = Vec::new();
    for text in agent_plans
        .iter()
        .flat_map(|a| [&a.role, &a.goal, &a.backstory])
        .chain(task_plans.iter().flat_map(|t| [&t.description, &t.expected_output]))
    {
        names::placeholders(text.as_deref().unwrap_or_default(), &mut inputs);
    }
    let spec = match crew_py.process {
        Process::Sequential => sequential_crew(&crew_name, &agent_plans, &task_plans, &inputs, &mut say),
        Process::Hierarchical => hierarchical_crew(&crew_name, &agent_plans, &task_plans, &inputs, &crew_py, project, &mut say),
    };
    let file_name = names::file_name(&crew_name);
    let yaml = written(&spec, project, crew_py.process, &inputs).map_err(|e| internal(project, e.to_string()))?;
    // The engine's own verdict: an import never hands back a crew with errors.
    let loaded = load_str(&file_name, &yaml);
    if let Some(error) = loaded.errors().next() {
        return Err(internal(project, error.to_string()));
    }
    let spec = spec::from_texts(&[(file_name.clone(), yaml.clone())]).map_err(|e| internal(project, e.to_string()))?;
    let mut warnings = issues;
    sort(project, &mut warnings);
    Ok(Imported { crew_name, file_name, yaml, spec, process: crew_py.process, warnings, inputs })
}

/// Line 1, column 1 of a file.
fn start(file: &SourceFile) -> Location {
    Location { file: file.name.clone(), line: 1, column: 1 }
}

/// The failure holding the errors of `issues`, in file order.
fn failed(project: &CrewAiProject, issues: Vec<ImportIssue>) -> ImportFailed {
    let mut errors: Vec<ImportIssue> = issues.into_iter().filter(|i| i.severity == Severity::Error).collect();
    sort(project, &mut errors);
    ImportFailed { errors }
}

/// A crew the import made that does not validate: a fault of the import's, said so.
fn internal(project: &CrewAiProject, detail: String) -> ImportFailed {
    let message = format!("the crew made from this project does not validate, which is a fault of Crewgraph's import: {detail}");
    ImportFailed { errors: vec![ImportIssue::new(Severity::Error, start(&project.agents), message)] }
}

/// Orders issues by file (agents.yaml, tasks.yaml, crew.py), line and column.
fn sort(project: &CrewAiProject, issues: &mut [ImportIssue]) {
    let files = [Some(&project.agents.name), Some(&project.tasks.name), project.crew_py.as_ref().map(|f| &f.name)];
    issues.sort_by_key(|i| {
        let file = files.iter().position(|f| *f == Some(&i.location.file)).unwrap_or(usize::MAX);
        (file, i.location.line, i.location.column)
    });
}

/// The agents, with their ids and models; warnings for tools, delegation and
/// models Crewgraph cannot name.
fn plan_agents(project: &CrewAiProject, agents: &Named<AgentConfig>, say: &mut impl FnMut(Location, CrewAiProblem)) -> Vec<AgentPlan> {
    let file = &project.agents.name;
    let mut plans: Vec<AgentPlan> = Vec::with_capacity(agents.len());
    for (key, config) in agents {
        let mut id = names::agent_id(key);
        while plans.iter().any(|p| p.id == id) {
            id.push('_');
        }
        if id != key.as_str() {
            say(location(file, key.span()), CrewAiProblem::Renamed { name: key.to_string(), id: id.clone() });
        }
        for tool in &config.tools {
            say(
                location(file, tool.span()),
                CrewAiProblem::PythonTool { owner: format!("agent '{}'", key.as_str()), tool: tool.to_string() },
            );
        }
        if config.allow_delegation.as_ref().is_some_and(|d| **d) {
            let at = config.allow_delegation.as_ref().map(|d| location(file, d.span())).unwrap_or_else(|| location(file, key.span()));
            say(at, CrewAiProblem::Delegation { agent: key.to_string() });
        }
        let model = config.llm.as_ref().filter(|l| !l.trim().is_empty()).and_then(|llm| {
            let model = names::model(llm);
            if model.is_none() {
                say(location(file, llm.span()), CrewAiProblem::UnknownModel { agent: key.to_string(), llm: llm.trim().to_owned() });
            }
            model
        });
        plans.push(AgentPlan {
            key: key.to_string(),
            id,
            role: text(&config.role),
            goal: text(&config.goal),
            backstory: text(&config.backstory),
            model,
            at: location(file, key.span()),
        });
    }
    plans
}

/// The tasks, their agents and contexts resolved; errors for names that do not
/// exist, warnings for tools and what a hierarchical crew cannot draw.
fn plan_tasks(
    project: &CrewAiProject,
    tasks: &Named<TaskConfig>,
    agents: &[AgentPlan],
    process: Process,
    say: &mut impl FnMut(Location, CrewAiProblem),
) -> Vec<TaskPlan> {
    let file = &project.tasks.name;
    let known = agents.iter().map(|a| a.key.as_str()).collect::<Vec<_>>().join(", ");
    let mut plans = Vec::with_capacity(tasks.len());
    for (index, (key, config)) in tasks.iter().enumerate() {
        let agent_name = config.agent.as_ref().filter(|a| !a.trim().is_empty());
        let agent = match agent_name {
            Some(name) => {
                let found = agents.iter().position(|a| a.key == name.trim());
                if found.is_none() {
                    let problem =
                        CrewAiProblem::UnknownAgent { task: key.to_string(), agent: name.trim().to_owned(), known: known.clone() };
                    say(location(file, name.span()), problem);
                }
                found
            }
            None => {
                if process == Process::Sequential {
                    say(location(file, key.span()), CrewAiProblem::TaskWithoutAgent { task: key.to_string() });
                }
                None
            }
        };
        for context in &config.context {
            match tasks.iter().position(|(other, _)| other.as_str() == context.trim()) {
                None => say(
                    location(file, context.span()),
                    CrewAiProblem::UnknownContext { task: key.to_string(), context: context.to_string() },
                ),
                Some(at) if at >= index => {
                    say(location(file, context.span()), CrewAiProblem::LaterContext { task: key.to_string(), context: context.to_string() })
                }
                Some(_) => {}
            }
        }
        for tool in &config.tools {
            say(
                location(file, tool.span()),
                CrewAiProblem::PythonTool { owner: format!("task '{}'", key.as_str()), tool: tool.to_string() },
            );
        }
        let human_input = config.human_input.as_ref().is_some_and(|h| **h);
        if human_input && process == Process::Hierarchical {
            let at = config.human_input.as_ref().map(|h| location(file, h.span())).unwrap_or_else(|| location(file, key.span()));
            say(at, CrewAiProblem::HumanInputUnderRouter { task: key.to_string() });
        }
        plans.push(TaskPlan {
            key: key.to_string(),
            description: text(&config.description),
            expected_output: text(&config.expected_output),
            agent,
            context: config.context.iter().map(|c| c.trim().to_owned()).collect(),
            human_input: human_input && process == Process::Sequential,
            done: String::new(),
            review: None,
        });
    }
    plans
}

/// The crew's name: the project's, else crew.py's class, else a plain one.
fn crew_name(project: &CrewAiProject, crew_py: &CrewPy) -> String {
    let name = project.name.as_deref().or(crew_py.class_name.as_deref()).map(names::humanize).unwrap_or_default();
    if name.trim().is_empty() {
        "CrewAI crew".to_owned()
    } else {
        name
    }
}

/// The tasks agent `index` does, in order.
fn tasks_of(tasks: &[TaskPlan], index: usize) -> Vec<&TaskPlan> {
    tasks.iter().filter(|t| t.agent == Some(index)).collect()
}

/// An agent as the crew file writes it.
fn agent_value(agent: &AgentPlan, tasks: &[&TaskPlan], system_prompt: String) -> Value {
    let mut description = agent.goal.clone().unwrap_or_default();
    if !description.is_empty() && !description.ends_with(['.', '!', '?']) {
        description.push('.');
    }
    if !tasks.is_empty() {
        let list = tasks.iter().map(|t| t.key.as_str()).collect::<Vec<_>>().join(", ");
        description = format!("{description} Its tasks: {list}.").trim().to_owned();
    }
    json!({
        "id": agent.id,
        "name": names::humanize(&agent.key),
        "role": agent.role,
        "description": Some(description).filter(|d| !d.is_empty()),
        "objective": agent.goal,
        "backstory": agent.backstory,
        "model": agent.model,
        "system_prompt": system_prompt,
    })
}

/// The crew's description: where it came from and what the run asks for.
fn description(process: Process, tasks: usize, inputs: &[String]) -> String {
    let how = match process {
        Process::Sequential => format!("{tasks} task{} in order", if tasks == 1 { "" } else { "s" }),
        Process::Hierarchical => format!("a manager and a router model share out {tasks} task{}", if tasks == 1 { "" } else { "s" }),
    };
    let asks = if inputs.is_empty() { String::new() } else { format!(" The run asks for: {}.", inputs.join(", ")) };
    format!("Imported from a CrewAI project: {how}.{asks}")
}

fn sequential_crew(
    name: &str,
    agents: &[AgentPlan],
    tasks: &[TaskPlan],
    inputs: &[String],
    say: &mut impl FnMut(Location, CrewAiProblem),
) -> Value {
    let entry = tasks.first().and_then(|t| t.agent).and_then(|a| agents.get(a)).map(|a| a.id.clone());
    let mut values = Vec::with_capacity(agents.len());
    for (index, agent) in agents.iter().enumerate() {
        let own = tasks_of(tasks, index);
        if own.is_empty() {
            say(agent.at.clone(), CrewAiProblem::AgentWithoutTask { agent: agent.key.clone() });
        }
        values.push(agent_value(agent, &own, agent_prompt(agent, &own, Process::Sequential)));
    }
    let (signals, routing) = routes::sequential(agents, tasks);
    json!({
        "version": "1.0",
        "name": name,
        "description": description(Process::Sequential, tasks.len(), inputs),
        "entry_point": entry,
        "max_handoffs": (tasks.len() + 2).max(5),
        "agents": values,
        "signals": signals,
        "routing": routing,
    })
}

fn hierarchical_crew(
    name: &str,
    agents: &[AgentPlan],
    tasks: &[TaskPlan],
    inputs: &[String],
    crew_py: &CrewPy,
    project: &CrewAiProject,
    say: &mut impl FnMut(Location, CrewAiProblem),
) -> Value {
    let named = crew_py.manager_agent.as_ref().and_then(|(manager, at)| {
        let found = agents.iter().position(|a| a.key == *manager);
        if found.is_none() {
            say(at.clone(), CrewAiProblem::ManagerNotFound { manager: manager.clone() });
        }
        found
    });
    let router_model = crew_py.manager_llm.as_deref().and_then(|llm| {
        let model = names::model(llm);
        if model.is_none() {
            let at = project.crew_py.as_ref().map(start).unwrap_or_else(|| start(&project.agents));
            say(at, CrewAiProblem::UnknownModel { agent: "manager".into(), llm: llm.to_owned() });
        }
        model
    });
    let mut values = Vec::with_capacity(agents.len() + 1);
    let manager_id = match named {
        Some(index) => agents[index].id.clone(),
        None => {
            let mut id = "manager".to_owned();
            while agents.iter().any(|a| a.id == id) {
                id.push('_');
            }
            values.push(json!({
                "id": id,
                "name": "Manager",
                "role": "Plans the work and shares out the tasks",
                "description": "Reads the request and plans which agent does which task, in what order.",
                "system_prompt": manager_prompt(None, agents, tasks),
            }));
            id
        }
    };
    for (index, agent) in agents.iter().enumerate() {
        if Some(index) == named {
            let mut value = agent_value(agent, &[], manager_prompt(Some(agent), agents, tasks));
            value["description"] = json!("Plans the work and shares out the tasks.");
            values.insert(0, value);
        } else {
            let own = tasks_of(tasks, index);
            values.push(agent_value(agent, &own, agent_prompt(agent, &own, Process::Hierarchical)));
        }
    }
    json!({
        "version": "1.0",
        "name": name,
        "description": description(Process::Hierarchical, tasks.len(), inputs),
        "entry_point": manager_id,
        "agents": values,
        "routing": routes::hierarchical(tasks, router_model.as_deref()),
    })
}

/// The crew file's text: a comment saying where it came from, then the crew in the
/// app's YAML style, a blank line before each section and each agent.
fn written(spec: &Value, project: &CrewAiProject, process: Process, inputs: &[String]) -> Result<String, spec::SpecError> {
    let body = spec::to_yaml(spec)?;
    let how = match process {
        Process::Sequential => "sequential process: one task after another, then End",
        Process::Hierarchical => "hierarchical process: the manager plans, a router model hands each task on",
    };
    let mut out = format!(
        "# Imported from a CrewAI project ({}, {}) by `crewgraph import crewai`:\n# {how}.\n",
        project.agents.name, project.tasks.name
    );
    if !inputs.is_empty() {
        let them = if inputs.len() == 1 { "it" } else { "them" };
        out.push_str(&format!("# The run asks for {}: write {them} in the run's input (\"{}: …\").\n", inputs.join(", "), inputs[0]));
    }
    let mut first_agent = true;
    for line in body.lines() {
        let section = ["agents:", "signals:", "routing:"].iter().any(|s| line.starts_with(s));
        let agent = line.starts_with("- id:");
        if section || (agent && !std::mem::replace(&mut first_agent, false)) {
            out.push('\n');
        }
        out.push_str(line);
        out.push('\n');
    }
    Ok(out)
}
