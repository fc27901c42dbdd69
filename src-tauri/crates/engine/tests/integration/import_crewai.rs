//! CrewAI projects imported (issue 19 §3): the documentation's project shapes —
//! sequential, hierarchical with a manager model or a manager agent, context chains,
//! placeholders, a person's review — become crews the engine's own validation
//! accepts, and what cannot come along is a warning at its place; malformed files
//! and a task for an agent that does not exist are errors at theirs.
//!
//! Fixtures are in `tests/fixtures/crewai/`, written from the shapes of CrewAI's
//! public docs (`crewai create crew`'s quickstart among them). Expected positions
//! are computed from the fixtures' text ([`pos`]), never copied from the output.

use std::path::PathBuf;

use crewgraph_engine::crew::Strategy;
use crewgraph_engine::import::crewai::crew_py::Process;
use crewgraph_engine::import::crewai::{import_crewai, CrewAiProject, Imported};
use crewgraph_engine::import::{ImportFailed, SourceFile};
use crewgraph_engine::load_str;
use serde_json::json;

use super::support::{fixture, pos, pos_in};

/// A fixture project's files, found as a person's folder holds them: `config/` at
/// the top, or under `src/<name>/` as `crewai create crew` lays it out.
fn project(name: &str) -> CrewAiProject {
    let root = fixture(&format!("crewai/{name}"));
    let base = if root.join("config").is_dir() { root.clone() } else { root.join("src").join(name) };
    let read = |path: PathBuf, shown: &str| SourceFile::new(shown, std::fs::read_to_string(path).expect("fixture is readable"));
    CrewAiProject {
        name: None,
        agents: read(base.join("config/agents.yaml"), "config/agents.yaml"),
        tasks: read(base.join("config/tasks.yaml"), "config/tasks.yaml"),
        crew_py: base.join("crew.py").is_file().then(|| read(base.join("crew.py"), "crew.py")),
    }
}

/// Imports a fixture project that must import, and checks the crew with the loader
/// the CLI and the window use: no errors, whatever warnings.
fn imported(name: &str) -> (CrewAiProject, Imported) {
    let project = project(name);
    let imported = import_crewai(&project).unwrap_or_else(|e| panic!("{name} does not import:\n{e}"));
    let loaded = load_str(&imported.file_name, &imported.yaml);
    let errors: Vec<String> = loaded.errors().map(ToString::to_string).collect();
    assert!(errors.is_empty() && loaded.crew.is_some(), "{name} makes a crew with errors: {errors:#?}\n{}", imported.yaml);
    (project, imported)
}

/// Each warning as `FILE:LINE:COL: message`.
fn warnings(imported: &Imported) -> Vec<String> {
    imported.warnings.iter().map(|w| format!("{}: {}", w.location, w.message)).collect()
}

fn errors(failed: &ImportFailed) -> Vec<String> {
    failed.errors.iter().map(|e| format!("{}: {}", e.location, e.message)).collect()
}

#[test]
fn the_quickstart_project_becomes_a_chain_in_task_order_ending_in_end() {
    let (project, imported) = imported("latest_ai_development");
    assert_eq!(imported.process, Process::Sequential);
    assert_eq!(imported.crew_name, "Latest ai development", "named after crew.py's class, 'Crew' left out");
    assert_eq!(imported.file_name, "latest-ai-development.yaml");
    assert_eq!(imported.inputs, ["topic", "current_year"], "placeholders in the order they first appear");
    let spec = &imported.spec;
    assert_eq!(spec["entry_point"], "researcher", "the first task's agent starts");
    let ids: Vec<&str> = spec["agents"].as_array().unwrap().iter().map(|a| a["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["researcher", "reporting_analyst"], "one agent per CrewAI agent, in file order");
    assert_eq!(spec["routing"]["signals"]["researcher"], json!([{"signal": "[RESEARCH_DONE]", "target": "reporting_analyst"}]));
    assert_eq!(
        spec["routing"]["signals"]["reporting_analyst"],
        json!([{"signal": "[REPORTING_DONE]", "target": ""}]),
        "the last task ends the run"
    );
    let researcher = &spec["agents"][0];
    assert_eq!(researcher["role"], "{topic} Senior Data Researcher", "placeholders are kept as written");
    let prompt = researcher["system_prompt"].as_str().unwrap();
    for part in [
        "Your role: {topic} Senior Data Researcher",
        "Your goal: Uncover",
        "seasoned researcher",
        "1. research_task",
        "Hand back: A list with 10 bullet points",
        "end your reply with [RESEARCH_DONE]",
        "({topic}, {current_year})",
    ] {
        assert!(prompt.contains(part), "the prompt is built from role, goal, backstory and its task: no {part:?} in\n{prompt}");
    }
    assert!(imported.yaml.starts_with("# Imported from a CrewAI project"), "{}", imported.yaml);
    assert!(imported.yaml.contains("# The run asks for topic, current_year"), "{}", imported.yaml);

    let tasks = &project.tasks.text;
    let crew_py = &project.crew_py.as_ref().unwrap().text;
    assert_eq!(
        warnings(&imported),
        [
            format!("config/tasks.yaml:{}: task 'reporting_task' sets 'output_file', which Crewgraph has no counterpart for; it is left out", pos(tasks, "output_file")),
            format!("crew.py:{}: crew.py gives agent 'researcher' the Python tool SerperDevTool(), which Crewgraph cannot run; it is left out (give the agent an MCP server's tool instead: docs/tools.md)", pos(crew_py, "SerperDevTool()")),
        ]
    );
    insta::assert_snapshot!("crewai_latest_ai_development", imported.yaml);
}

#[test]
fn a_hierarchical_project_gets_a_manager_as_supervisor_and_the_router_model() {
    let (_, imported) = imported("hierarchical_marketing");
    assert_eq!(imported.process, Process::Hierarchical);
    let spec = &imported.spec;
    assert_eq!(spec["routing"]["strategy"], "llm");
    assert_eq!(spec["routing"]["router"]["model"], "openai/gpt-4o", "manager_llm is the router's model");
    assert_eq!(spec["entry_point"], "manager", "a manager is made, as CrewAI makes one from manager_llm");
    let ids: Vec<&str> = spec["agents"].as_array().unwrap().iter().map(|a| a["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["manager", "market_researcher", "copywriter", "editor"]);
    assert_eq!(spec["agents"][1]["model"], "openai/gpt-4o-mini");
    assert_eq!(spec["agents"][2]["model"], "anthropic/claude-3-5-sonnet-20240620", "a bare Claude model is Anthropic's");
    let manager = spec["agents"][0]["system_prompt"].as_str().unwrap();
    assert!(manager.contains("2. write_copy (for copywriter)"), "{manager}");
    let copywriter = spec["agents"][2]["system_prompt"].as_str().unwrap();
    assert!(copywriter.contains("Work from the results of: audience_research."), "context chains are said: {copywriter}");
    assert!(!copywriter.contains("[WRITE_COPY_DONE]"), "agents under a router model emit no signals: {copywriter}");
    assert!(spec.get("signals").is_none());
    assert_eq!(imported.inputs, ["product"]);
    assert_eq!(warnings(&imported), Vec::<String>::new(), "everything of this project is carried over");
    let crew = load_str(&imported.file_name, &imported.yaml).crew.unwrap();
    assert_eq!(crew.routing.strategy, Strategy::Llm);
    insta::assert_snapshot!("crewai_hierarchical_marketing", imported.yaml);
}

#[test]
fn a_manager_agent_of_agents_yaml_is_the_supervisor_and_what_cannot_come_is_said() {
    let (project, imported) = imported("manager_agent");
    let spec = &imported.spec;
    assert_eq!(spec["entry_point"], "project_manager");
    let ids: Vec<&str> = spec["agents"].as_array().unwrap().iter().map(|a| a["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["project_manager", "architect", "estimator"], "no manager is made; the named one goes first");
    let manager = spec["agents"][0]["system_prompt"].as_str().unwrap();
    assert!(manager.starts_with("Your role: Project Manager"), "{manager}");
    assert!(manager.contains("1. design_task\n"), "tasks without an agent are the manager's to share out: {manager}");
    let (agents, tasks, crew_py) = (&project.agents.text, &project.tasks.text, &project.crew_py.as_ref().unwrap().text);
    assert_eq!(
        warnings(&imported),
        [
            format!("config/agents.yaml:{}: agent 'project_manager' may delegate work to its coworkers in CrewAI (allow_delegation); in Crewgraph work goes on only along the routes drawn, so draw one from 'project_manager' to whom it should ask", pos_in(agents, "allow_delegation: true", 0, "true")),
            format!("config/tasks.yaml:{}: task 'estimate_task' asks a person to review its answer (human_input), but in a hierarchical crew the router model decides who works next, so no Wait is drawn; use a sequential crew for a review step", pos_in(tasks, "human_input: true", 0, "true")),
            format!("crew.py:{}: crew.py sets 'planning' (CrewAI's planning step before each run); Crewgraph cannot do that, so it is left out", pos(crew_py, "planning")),
        ]
    );
}

#[test]
fn context_chains_a_persons_review_and_every_left_out_part_are_carried_or_said() {
    let (project, imported) = imported("review_pipeline");
    let spec = &imported.spec;
    assert_eq!(
        spec["routing"]["signals"]["writer"],
        json!([
            {"signal": "[DRAFT_REVIEW]", "target": "writer"},
            {"signal": "[DRAFT_DONE]", "target": "critic"},
            {"signal": "[FINAL_DONE]", "target": ""},
        ]),
        "the writer's two tasks, the first reviewed by a person: the Wait resumes with the writer"
    );
    assert_eq!(spec["routing"]["signals"]["critic"], json!([{"signal": "[CRITIQUE_DONE]", "target": "writer"}]));
    let review = spec["signals"].as_array().unwrap().iter().find(|s| s["name"] == "[DRAFT_REVIEW]").unwrap();
    assert_eq!(review["behavior"], "pause", "human_input is a Wait");
    let crew = load_str(&imported.file_name, &imported.yaml).crew.unwrap();
    let view = crewgraph_engine::graph::CrewGraph::build(&crew).view(&crew);
    assert!(
        view.edges.iter().any(|e| e.label == "[DRAFT_REVIEW]" && e.target.contains("wait")),
        "drawn into the Wait node: {:#?}",
        view.edges
    );
    let writer = spec["agents"][1]["system_prompt"].as_str().unwrap();
    assert!(writer.contains("Work from the results of: research_task."), "{writer}");
    assert!(writer.contains("end your reply with [DRAFT_REVIEW] and wait for them"), "{writer}");
    assert!(writer.contains("Work from the results of: draft_task, critique_task."), "{writer}");
    assert!(spec["agents"][0].get("model").is_none(), "a model Crewgraph cannot name leaves the default model");
    assert_eq!(imported.inputs, ["subject", "audience"]);

    let (agents, tasks) = (&project.agents.text, &project.tasks.text);
    let tool =
        "Python tool of CrewAI that Crewgraph cannot run; it is left out (give the agent an MCP server's tool instead: docs/tools.md)";
    assert_eq!(
        warnings(&imported),
        [
            format!("config/agents.yaml:{}: agent 'researcher' uses the tool 'SerperDevTool', a {tool}", pos(agents, "SerperDevTool")),
            format!("config/agents.yaml:{}: agent 'researcher' uses the tool 'WebsiteSearchTool', a {tool}", pos(agents, "WebsiteSearchTool")),
            format!("config/agents.yaml:{}: agent 'researcher' uses the model 'ollama/llama3.1', which is not an OpenAI or Anthropic model Crewgraph can name; it uses the default model instead (add the model in Settings and choose it for the agent)", pos(agents, "ollama/llama3.1")),
            format!("config/agents.yaml:{}: agent 'researcher' sets 'verbose', which Crewgraph has no counterpart for; it is left out", pos(agents, "verbose")),
            format!("config/agents.yaml:{}: agent 'writer' may delegate work to its coworkers in CrewAI (allow_delegation); in Crewgraph work goes on only along the routes drawn, so draw one from 'writer' to whom it should ask", pos_in(agents, "allow_delegation: true", 0, "true")),
            format!("config/agents.yaml:{}: agent 'writer' sets 'max_iter', which Crewgraph has no counterpart for; it is left out", pos(agents, "max_iter")),
            format!("config/agents.yaml:{}: agent 'archivist' does no task, so no route leads to it; it is kept, unconnected", pos(agents, "archivist")),
            format!("config/tasks.yaml:{}: task 'critique_task' sets 'callback', which runs Python code in CrewAI; Crewgraph cannot run it, so it is left out", pos(tasks, "callback")),
            format!("config/tasks.yaml:{}: task 'final_task' sets 'output_pydantic', which runs Python code in CrewAI; Crewgraph cannot run it, so it is left out", pos(tasks, "output_pydantic")),
        ]
    );
}

#[test]
fn bad_yaml_is_an_error_at_its_line_and_column_in_words() {
    let project = project("bad_yaml");
    let failed = import_crewai(&project).unwrap_err();
    let said = errors(&failed);
    assert_eq!(said.len(), 1, "{said:#?}");
    assert!(said[0].starts_with("config/agents.yaml:3:"), "{said:#?}");
    assert!(said[0].contains(": YAML syntax error:"), "{said:#?}");
}

#[test]
fn a_task_for_an_agent_that_does_not_exist_is_an_error_naming_it_where_it_is() {
    let project = project("unknown_agent");
    let failed = import_crewai(&project).unwrap_err();
    let tasks = &project.tasks.text;
    assert_eq!(
        errors(&failed),
        [
            format!("config/tasks.yaml:{}: task 'writing_task' is for agent 'writer', but agents.yaml has no agent called 'writer' (it has: researcher)", pos(tasks, "writer")),
            format!("config/tasks.yaml:{}: task 'writing_task' takes its context from 'outline_task', but tasks.yaml has no task called 'outline_task'", pos(tasks, "outline_task")),
        ]
    );
    assert!(failed.to_string().contains("config/tasks.yaml:"), "its Display lists every error: {failed}");
}

/// A project from texts, for the small cases.
fn texts(agents: &str, tasks: &str, crew_py: Option<&str>) -> CrewAiProject {
    CrewAiProject {
        name: Some("small".into()),
        agents: SourceFile::new("agents.yaml", agents),
        tasks: SourceFile::new("tasks.yaml", tasks),
        crew_py: crew_py.map(|text| SourceFile::new("crew.py", text)),
    }
}

const AGENT: &str = "poet:\n  role: Poet\n  goal: Rhyme\n  backstory: You rhyme.\n";

#[test]
fn malformed_files_are_said_in_words_at_their_place() {
    let cases = [
        (
            texts("- poet\n- critic\n", "t:\n  agent: poet\n", None),
            "agents.yaml:1:1: the file must be a mapping of agent names to their settings",
        ),
        (texts(AGENT, "# nothing yet\n", None), "tasks.yaml:1:1: the file is empty"),
        (
            texts(AGENT, "t:\n  agent: poet\n  human_input: maybe\n", None),
            "tasks.yaml:3:16: 't.human_input' must be true or false, not 'maybe'",
        ),
        (
            texts(AGENT, "t:\n  description: Write.\n", None),
            "tasks.yaml:1:1: task 't' says no agent; in a sequential crew each task needs one (add 'agent: NAME'; for a hierarchical crew, give its crew.py too)",
        ),
        (texts("{}\n", "t:\n  agent: poet\n", None), "agents.yaml:1:1: agents.yaml has no agents"),
        (texts(AGENT, "t:\n  agent: poet\n  agent: poet\n", None), "tasks.yaml:3:3: duplicate key 'agent' (first at line 2)"),
        (
            texts("a: &same\n  role: R\nb: *same\n", "t:\n  agent: a\n", None),
            "agents.yaml:2:7: YAML anchors and aliases (& and *) cannot be imported; write the values out in full",
        ),
    ];
    for (project, expected) in cases {
        let failed = import_crewai(&project).expect_err(expected);
        let said = errors(&failed);
        assert!(said.iter().any(|e| e.starts_with(expected)), "expected {expected:?}, got {said:#?}");
    }
}

#[test]
fn a_task_nobody_is_named_for_is_the_managers_under_a_hierarchical_process() {
    let crew_py = "crew = Crew(process=Process.hierarchical, manager_llm='ollama/llama3')\n";
    let imported = import_crewai(&texts(AGENT, "t:\n  description: Write.\n", Some(crew_py))).unwrap();
    assert_eq!(imported.spec["entry_point"], "manager");
    assert!(imported.spec["routing"].get("router").is_none(), "a manager model Crewgraph cannot name: the default router model");
    assert_eq!(imported.warnings.len(), 1, "{:#?}", imported.warnings);
    assert!(load_str(&imported.file_name, &imported.yaml).is_valid());
}

#[test]
fn ids_crewgraph_cannot_take_are_renamed_and_said() {
    let agents = "senior writer:\n  role: Writer\n  goal: Write\n  backstory: You write.\n";
    let imported = import_crewai(&texts(agents, "t:\n  agent: senior writer\n", None)).unwrap();
    assert_eq!(imported.spec["entry_point"], "senior_writer");
    assert_eq!(
        warnings(&imported),
        ["agents.yaml:1:1: the name 'senior writer' has characters Crewgraph ids cannot have; it is called 'senior_writer' in the crew"]
    );
    assert!(load_str(&imported.file_name, &imported.yaml).is_valid());
}

#[test]
fn every_fixture_project_that_imports_validates() {
    let dir = fixture("crewai");
    let mut names: Vec<String> =
        std::fs::read_dir(&dir).unwrap().filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    let good: Vec<&String> = names.iter().filter(|n| !matches!(n.as_str(), "bad_yaml" | "unknown_agent")).collect();
    assert!(good.len() >= 4, "{names:?}");
    for name in good {
        imported(name);
    }
}
