//! CrewAI's two YAML files as written: `config/agents.yaml` (each agent's name
//! followed by its role, goal, backstory, llm, tools, allow_delegation) and
//! `config/tasks.yaml` (each task's name followed by its description,
//! expected_output, agent, context, human_input, tools), read with the crew loader's
//! positions and messages ([`crate::load::parse_yaml`]). A key the mirror does not
//! take is not dropped: it comes back as a warning saying why it was left out.

use marked_yaml::{Span, Spanned};
use serde::{Deserialize, Serialize};

use super::problem::CrewAiProblem;
use crate::diagnostic::{Diagnostic, Location, Problem};
use crate::file::Entries;
use crate::import::{ImportIssue, SourceFile};
use crate::load::parse_yaml;

/// One agent of agents.yaml.
#[derive(Debug, Default, Deserialize, Serialize)]
pub struct AgentConfig {
    pub role: Option<Spanned<String>>,
    pub goal: Option<Spanned<String>>,
    pub backstory: Option<Spanned<String>>,
    /// `provider/model` (LiteLLM's naming) or a bare model name.
    pub llm: Option<Spanned<String>>,
    /// Names of Python tools.
    #[serde(default)]
    pub tools: Vec<Spanned<String>>,
    pub allow_delegation: Option<Spanned<bool>>,
}

/// One task of tasks.yaml.
#[derive(Debug, Default, Deserialize, Serialize)]
pub struct TaskConfig {
    pub description: Option<Spanned<String>>,
    pub expected_output: Option<Spanned<String>>,
    /// The agent's name in agents.yaml.
    pub agent: Option<Spanned<String>>,
    /// Tasks whose results this one works from.
    #[serde(default)]
    pub context: Vec<Spanned<String>>,
    pub human_input: Option<Spanned<bool>>,
    /// Names of Python tools.
    #[serde(default)]
    pub tools: Vec<Spanned<String>>,
}

/// A file's entries in file order: each name (with its place) and what it holds.
pub type Named<T> = Vec<(Spanned<String>, Spanned<T>)>;

/// Keys of CrewAI whose value is Python code (or a Python object) to run.
const PYTHON_KEYS: &[&str] = &[
    "callback",
    "step_callback",
    "guardrail",
    "guardrails",
    "output_pydantic",
    "output_json",
    "converter_cls",
    "knowledge_sources",
    "embedder",
    "function_calling_llm",
];

/// Reads agents.yaml or tasks.yaml (`kind`: "agent" or "task"): its entries, or
/// nothing when it cannot be read; warnings for the keys left out, errors for
/// what stopped the reading.
pub fn read<T>(file: &SourceFile, kind: &str, issues: &mut Vec<ImportIssue>) -> Option<Named<T>>
where
    T: for<'de> Deserialize<'de> + Serialize,
{
    let (entries, diagnostics) = parse_yaml::<Entries<Spanned<String>, Spanned<T>>>(&file.name, &file.text);
    let names: Vec<(u32, String)> = entries
        .as_ref()
        .map(|e| e.0.iter().map(|(name, _)| (location(&file.name, name.span()).line, name.to_string())).collect())
        .unwrap_or_default();
    for diagnostic in diagnostics {
        issues.push(issue(file, kind, &names, diagnostic));
    }
    entries.map(|e| e.0)
}

/// A loader diagnostic about `file` said as an import's issue.
fn issue(file: &SourceFile, kind: &str, names: &[(u32, String)], diagnostic: Diagnostic) -> ImportIssue {
    let location = diagnostic.location.clone().unwrap_or_else(|| Location { file: file.name.clone(), line: 1, column: 1 });
    let problem = match &diagnostic.problem {
        Problem::UnknownKey { key } => {
            let owner = names
                .iter()
                .rev()
                .find(|(line, _)| *line <= location.line)
                .map_or_else(|| format!("an {kind}"), |(_, name)| format!("{kind} '{name}'"));
            if PYTHON_KEYS.contains(&key.as_str()) {
                CrewAiProblem::PythonKey { owner, key: key.clone() }
            } else {
                CrewAiProblem::UnmappedKey { owner, key: key.clone() }
            }
        }
        Problem::Empty => CrewAiProblem::Unreadable { detail: "the file is empty".into() },
        Problem::NotAMapping => CrewAiProblem::Unreadable {
            detail: format!(
                "the file must be a mapping of {kind} names to their settings (a name, a colon, then its keys indented under it)"
            ),
        },
        Problem::UnsupportedYaml { feature } => {
            CrewAiProblem::Unreadable { detail: format!("YAML {feature} cannot be imported; write the values out in full") }
        }
        Problem::WrongType { field, detail } if field == "crew file" => CrewAiProblem::Unreadable { detail: format!("the file {detail}") },
        _ => CrewAiProblem::Unreadable { detail: diagnostic.message.clone() },
    };
    ImportIssue::new(problem.severity(), location, problem.to_string())
}

/// Where `span` starts in `file` (line and column from 1; 1:1 when it has no start).
pub fn location(file: &str, span: &Span) -> Location {
    let (line, column) = span.start().map_or((1, 1), |m| (m.line().max(1) as u32, m.column().max(1) as u32));
    Location { file: file.to_owned(), line, column }
}

/// A text value of a file, trimmed, its folded lines kept as written; None when empty.
pub fn text(value: &Option<Spanned<String>>) -> Option<String> {
    value.as_ref().map(|v| v.trim().to_owned()).filter(|v| !v.is_empty())
}
