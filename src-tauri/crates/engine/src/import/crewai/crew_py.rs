//! What an import needs from a CrewAI project's `crew.py`, read line by line
//! without running or parsing Python: the process (`process=Process.hierarchical`),
//! its manager (`manager_agent=…`, `manager_llm="…"`), the crew class's name, and
//! what cannot be carried over — Python tools given to agents (`tools=[…]`),
//! callbacks, guardrails, memory and the like — each with its line and column.

use std::sync::LazyLock;

use regex::Regex;

use super::problem::CrewAiProblem;
use crate::diagnostic::Location;
use crate::import::SourceFile;

/// How the crew's tasks are run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Process {
    /// One task after another, in tasks.yaml's order (CrewAI's default).
    #[default]
    Sequential,
    /// A manager hands each task to the agent best suited.
    Hierarchical,
}

/// What crew.py says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CrewPy {
    pub process: Process,
    /// `manager_agent=self.NAME()`: the agent's name.
    pub manager_agent: Option<(String, Location)>,
    /// `manager_llm="…"` or `manager_llm=LLM(model="…")`: the model.
    pub manager_llm: Option<String>,
    /// The crew's class (`class LatestAiDevelopment():`).
    pub class_name: Option<String>,
    /// What is left out, where.
    pub left_out: Vec<(Location, CrewAiProblem)>,
}

static PROCESS: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\bprocess\s*=\s*Process\.(hierarchical|sequential)\b").unwrap());
static MANAGER_AGENT: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\bmanager_agent\s*=\s*(?:self\.)?(\w+)").unwrap());
static MANAGER_LLM: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"\bmanager_llm\s*=\s*(?:["']([^"']+)["']|\w+\(\s*(?:model\s*=\s*)?["']([^"']+)["'])"#).unwrap());
static CLASS: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^class\s+(\w+)").unwrap());
static DEF: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^\s*def\s+(\w+)\s*\(").unwrap());
static DECORATOR: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^\s*@(\w+)").unwrap());
static TOOLS: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\btools\s*=\s*\[").unwrap());
static TOOL: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"[A-Za-z_][\w.]*(?:\([^()]*\))?").unwrap());
static SETTING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(step_callback|task_callback|callback|guardrail|output_pydantic|output_json|memory|planning|knowledge_sources|embedder|function_calling_llm)\s*=\s*([^,)\s]*)").unwrap()
});

/// What a setting of crew.py does, for the warning that it was left out.
fn setting_words(setting: &str) -> &'static str {
    match setting {
        "step_callback" | "task_callback" | "callback" => "a Python function called as the crew works",
        "guardrail" => "a Python check of a task's answer",
        "output_pydantic" | "output_json" => "a Python class the answer is parsed into",
        "memory" => "CrewAI's memory across runs",
        "planning" => "CrewAI's planning step before each run",
        "knowledge_sources" | "embedder" => "CrewAI's knowledge sources and their embeddings",
        "function_calling_llm" => "a second model for tool calls",
        _ => "Python code",
    }
}

/// Decorators that run Python code around the crew.
fn decorator_words(decorator: &str) -> Option<&'static str> {
    match decorator {
        "before_kickoff" => Some("a Python function run before each run"),
        "after_kickoff" => Some("a Python function run after each run"),
        "tool" => Some("a Python tool"),
        _ => None,
    }
}

/// Reads crew.py.
pub fn read_crew_py(file: &SourceFile) -> CrewPy {
    let mut crew = CrewPy::default();
    let at = |line: usize, text: &str, byte: usize| Location {
        file: file.name.clone(),
        line: line as u32 + 1,
        column: text[..byte].chars().count() as u32 + 1,
    };
    // The function being read, and the decorator above it (`agent`, `task`, `crew`).
    let mut decorator: Option<String> = None;
    let mut function: Option<(String, Option<String>)> = None;
    let mut lines = file.text.lines().enumerate().peekable();
    while let Some((index, line)) = lines.next() {
        let trimmed = line.trim_start();
        if trimmed.starts_with('#') {
            continue;
        }
        if let Some(class) = CLASS.captures(line) {
            crew.class_name.get_or_insert_with(|| class[1].to_owned());
        }
        if let Some(found) = DECORATOR.captures(line) {
            let name = found[1].to_owned();
            if let Some(words) = decorator_words(&name) {
                let m = found.get(1).map_or(0, |m| m.start() - 1);
                crew.left_out.push((at(index, line, m), CrewAiProblem::CrewPySetting { setting: format!("@{name}"), what: words.into() }));
            }
            decorator = Some(name);
            continue;
        }
        if let Some(def) = DEF.captures(line) {
            function = Some((def[1].to_owned(), decorator.take()));
        }
        if let Some(found) = PROCESS.captures(line) {
            crew.process = if &found[1] == "hierarchical" { Process::Hierarchical } else { Process::Sequential };
        }
        if let Some(found) = MANAGER_AGENT.captures(line) {
            let name = found.get(1).map(|m| (m.as_str().to_owned(), at(index, line, m.start())));
            crew.manager_agent = name.filter(|(n, _)| n != "None");
        }
        if let Some(found) = MANAGER_LLM.captures(line) {
            crew.manager_llm = found.get(1).or_else(|| found.get(2)).map(|m| m.as_str().to_owned());
        }
        for found in SETTING.captures_iter(line) {
            let value = &found[2];
            if matches!(value, "False" | "None" | "") {
                continue;
            }
            let setting = found[1].to_owned();
            let what = setting_words(&setting).to_owned();
            let start = found.get(1).map_or(0, |m| m.start());
            crew.left_out.push((at(index, line, start), CrewAiProblem::CrewPySetting { setting, what }));
        }
        if let Some(found) = TOOLS.find(line) {
            let owner = match &function {
                Some((name, Some(kind))) if kind == "agent" || kind == "task" => format!("{kind} '{name}'"),
                Some((name, _)) => format!("'{name}'"),
                None => "an agent".to_owned(),
            };
            // The list, to its closing bracket (on this line or the next few).
            let mut pieces = vec![(index, line, found.end())];
            let mut depth = bracket_depth(&line[found.end()..], 1);
            while depth > 0 {
                let Some((next_index, next)) = lines.next_if(|_| true) else { break };
                pieces.push((next_index, next, 0));
                depth = bracket_depth(next, depth);
            }
            for (piece_index, piece, from) in pieces {
                let list = &piece[from..];
                let list = list.split(']').next().unwrap_or(list);
                for tool in TOOL.find_iter(list) {
                    if tool.as_str().starts_with('#') {
                        break;
                    }
                    let location = at(piece_index, piece, from + tool.start());
                    crew.left_out.push((location, CrewAiProblem::CrewPyTool { owner: owner.clone(), tool: tool.as_str().to_owned() }));
                }
            }
        }
    }
    crew
}

/// The bracket depth after `text`, starting at `depth`.
fn bracket_depth(text: &str, mut depth: i32) -> i32 {
    for c in text.chars() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            '#' => break,
            _ => {}
        }
        if depth == 0 {
            break;
        }
    }
    depth
}

#[cfg(test)]
mod tests {
    use super::*;

    const CREW_PY: &str = r#"from crewai import Agent, Crew, Process, Task
from crewai.project import CrewBase, agent, crew, task
from crewai_tools import SerperDevTool

@CrewBase
class LatestAiDevelopment():
    """LatestAiDevelopment crew"""

    @agent
    def researcher(self) -> Agent:
        return Agent(
            config=self.agents_config['researcher'],
            verbose=True,
            tools=[SerperDevTool(), ScrapeWebsiteTool()]
        )

    @task
    def research_task(self) -> Task:
        return Task(config=self.tasks_config['research_task'], guardrail=validate_length)

    @crew
    def crew(self) -> Crew:
        return Crew(
            agents=self.agents,
            tasks=self.tasks,
            # process=Process.sequential,
            process=Process.hierarchical,
            manager_llm="gpt-4o",
            memory=False,
        )
"#;

    #[test]
    fn the_process_its_manager_and_what_is_left_out_are_found_where_they_are() {
        let crew = read_crew_py(&SourceFile::new("crew.py", CREW_PY));
        assert_eq!(crew.process, Process::Hierarchical, "the commented-out line does not count");
        assert_eq!(crew.manager_llm.as_deref(), Some("gpt-4o"));
        assert_eq!(crew.class_name.as_deref(), Some("LatestAiDevelopment"));
        let said: Vec<String> = crew.left_out.iter().map(|(at, p)| format!("{}:{}: {p}", at.line, at.column)).collect();
        assert_eq!(said.len(), 3, "{said:#?}");
        assert!(said[0].starts_with("14:20: crew.py gives agent 'researcher' the Python tool SerperDevTool()"), "{said:#?}");
        assert!(said[1].starts_with("14:37: crew.py gives agent 'researcher' the Python tool ScrapeWebsiteTool()"), "{said:#?}");
        assert!(said[2].starts_with("19:64: crew.py sets 'guardrail'"), "memory=False is not a warning: {said:#?}");
    }

    #[test]
    fn a_manager_agent_and_a_model_object_are_read() {
        let text = "crew = Crew(process=Process.hierarchical, manager_agent=self.boss(), manager_llm=LLM(model=\"openai/gpt-4o\"))\n";
        let crew = read_crew_py(&SourceFile::new("crew.py", text));
        assert_eq!(crew.manager_agent.as_ref().map(|(name, at)| (name.as_str(), at.column)), Some(("boss", 62)));
        assert_eq!(crew.manager_llm.as_deref(), Some("openai/gpt-4o"));
    }

    #[test]
    fn a_tool_list_over_several_lines_is_read_whole() {
        let text = "@agent\ndef writer(self):\n    return Agent(tools=[\n        FileReadTool(),\n        custom_search,\n    ])\n";
        let crew = read_crew_py(&SourceFile::new("crew.py", text));
        let tools: Vec<(u32, u32)> = crew.left_out.iter().map(|(at, _)| (at.line, at.column)).collect();
        assert_eq!(tools, [(4, 9), (5, 9)]);
    }
}
