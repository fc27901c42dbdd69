//! Names an import makes from a CrewAI project's: agent ids, people's names, the
//! crew's name and file name, the signal that says a task is done, the
//! `{placeholders}` a run asks for, and the model an `llm:` stands for.

use std::sync::LazyLock;

use regex::Regex;

use crate::validate::is_valid_agent_id;

/// An agent id for a CrewAI name: the name itself when Crewgraph accepts it,
/// else its other characters turned into `_`.
pub fn agent_id(name: &str) -> String {
    if !name.is_empty() && is_valid_agent_id(name) {
        return name.to_owned();
    }
    let id: String = name.chars().map(|c| if is_valid_agent_id(&c.to_string()) { c } else { '_' }).collect();
    if id.trim_matches('_').is_empty() {
        "agent".to_owned()
    } else {
        id
    }
}

/// The words of a name written in snake_case, kebab-case or CamelCase.
fn words(name: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut previous: Option<char> = None;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
        } else {
            if c.is_uppercase() && previous.is_some_and(|p| p.is_lowercase() || p.is_ascii_digit()) && !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            current.push(c);
        }
        previous = Some(c);
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

/// A person's name for a CrewAI name: `reporting_analyst` → `Reporting analyst`,
/// `LatestAiDevelopmentCrew` → `Latest ai development`.
pub fn humanize(name: &str) -> String {
    let mut words = words(name);
    if words.len() > 1 && words.last().is_some_and(|w| w.eq_ignore_ascii_case("crew")) {
        words.pop();
    }
    let text = words.iter().map(|w| w.to_lowercase()).collect::<Vec<_>>().join(" ");
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// A file name for a crew called `name`: `Latest ai development` → `latest-ai-development.yaml`.
pub fn file_name(name: &str) -> String {
    let slug = words(name).iter().map(|w| w.to_lowercase()).collect::<Vec<_>>().join("-");
    format!("{}.yaml", if slug.is_empty() { "crewai-crew" } else { &slug })
}

/// The inside of a signal for a task (`research_task` → `RESEARCH`): its words in
/// capitals, `task` left out.
pub fn task_stem(task: &str) -> String {
    let words: Vec<String> = words(task).into_iter().filter(|w| !w.eq_ignore_ascii_case("task")).map(|w| w.to_uppercase()).collect();
    if words.is_empty() {
        "TASK".to_owned()
    } else {
        words.join("_")
    }
}

static PLACEHOLDER: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\{([A-Za-z_][A-Za-z0-9_]*)\}").unwrap());

/// The `{placeholders}` of `text`, in order, each once, added to `found`.
pub fn placeholders(text: &str, found: &mut Vec<String>) {
    for name in PLACEHOLDER.captures_iter(text) {
        if !found.iter().any(|f| f == &name[1]) {
            found.push(name[1].to_owned());
        }
    }
}

/// True when `text` has a `{placeholder}`.
pub fn has_placeholder(text: &str) -> bool {
    PLACEHOLDER.is_match(text)
}

/// The model Crewgraph names for a CrewAI `llm:` (LiteLLM's `provider/model`, or a
/// bare OpenAI or Anthropic model name); None when no provider of Crewgraph's fits.
pub fn model(llm: &str) -> Option<String> {
    let llm = llm.trim();
    if let Some((provider, model)) = llm.split_once('/') {
        return matches!(provider, "openai" | "anthropic").then(|| format!("{provider}/{model}")).filter(|_| !model.is_empty());
    }
    let openai = ["gpt-", "gpt4", "o1", "o3", "o4", "chatgpt"];
    if openai.iter().any(|p| llm.starts_with(p)) {
        Some(format!("openai/{llm}"))
    } else if llm.starts_with("claude") {
        Some(format!("anthropic/{llm}"))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_as_words() {
        assert_eq!(humanize("reporting_analyst"), "Reporting analyst");
        assert_eq!(humanize("LatestAiDevelopmentCrew"), "Latest ai development");
        assert_eq!(file_name("Latest ai development"), "latest-ai-development.yaml");
        assert_eq!(task_stem("research_task"), "RESEARCH");
        assert_eq!(task_stem("task"), "TASK");
        assert_eq!(agent_id("senior researcher"), "senior_researcher");
    }

    #[test]
    fn placeholders_are_found_once_each_in_order() {
        let mut found = Vec::new();
        placeholders("{topic} in {current_year}, again {topic}; not {two words} or {{x}}", &mut found);
        assert_eq!(found, ["topic", "current_year", "x"]);
    }

    #[test]
    fn models_are_named_the_way_crewgraph_names_them() {
        assert_eq!(model("openai/gpt-4o").as_deref(), Some("openai/gpt-4o"));
        assert_eq!(model("gpt-4o-mini").as_deref(), Some("openai/gpt-4o-mini"));
        assert_eq!(model("claude-3-5-sonnet-20240620").as_deref(), Some("anthropic/claude-3-5-sonnet-20240620"));
        assert_eq!(model("ollama/llama3.1"), None);
        assert_eq!(model("groq/mixtral"), None);
    }
}
