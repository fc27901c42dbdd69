//! A crew as an editor holds it: the file model ([`CrewFile`]) as JSON, with every
//! agent written out in place and empty values left out (`CrewSpec` in TypeScript),
//! and the way back to YAML text — one self-contained file, or a Go-engine crew
//! directory's `crew.yaml` plus one `agents/<id>.yaml` per agent.
//!
//! The editor changes the JSON; the engine checks it with the loader that reads
//! files ([`crate::load::load_spec_value`] takes the JSON as the YAML tree it stands
//! for, [`to_node`], without writing and re-reading text, so a check of a thousand
//! agents stays within a frame), so an edit is validated by the same code as a file
//! on disk. Keys keep the order they arrive in, so a file saved without edits reads
//! as it did.
//!
//! ```
//! use crewgraph_engine::file::spec;
//! let spec = serde_json::json!({"name": "Solo", "entry_point": "a", "agents": [{"id": "a", "tags": [], "is_terminal": true}]});
//! assert_eq!(spec::to_yaml(&spec).unwrap(), "name: Solo\nentry_point: a\nagents:\n- id: a\n  is_terminal: true\n");
//! ```

use marked_yaml::types::{MarkedMappingNode, MarkedScalarNode, MarkedSequenceNode};
use marked_yaml::Node;
use serde_json::{Map, Value};

use super::{AgentFile, CrewFile};
use crate::validate::is_valid_agent_id;

/// Why a crew could not be turned into YAML.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    #[error("a crew must be a mapping of keys (name, agents, …), not {found}")]
    NotAMapping { found: &'static str },
    #[error("agent number {index} has no usable id, so it cannot get a file of its own in agents/")]
    AgentWithoutId { index: usize },
    #[error("two agents have the id '{id}', so they cannot each get a file in agents/")]
    DuplicateAgentFile { id: String },
    #[error("the crew could not be written as YAML: {0}")]
    Yaml(String),
    /// Text kept as a crew (a stored revision) that does not read as one.
    #[error("the crew could not be read: {0}")]
    Unreadable(String),
}

/// The crew file and its agents (for a crew directory, those of `agents/`) as the
/// JSON an editor holds.
pub fn to_spec(file: &CrewFile, agents: &[&AgentFile]) -> Value {
    let mut spec = serde_json::to_value(file).unwrap_or_else(|_| Value::Object(Map::new()));
    let agents = agents.iter().map(|a| serde_json::to_value(a).unwrap_or(Value::Null)).collect();
    if let Value::Object(map) = &mut spec {
        map.insert("agents".into(), Value::Array(agents));
    }
    prune(&mut spec, true);
    spec
}

/// The spec of a crew kept as text (a stored revision): `files` are (name, text)
/// pairs, one self-contained file, or a crew directory's `crew.yaml` and its
/// `agents/<id>.yaml` files in any order. An agent file that is missing leaves its
/// agent as just its id.
pub fn from_texts(files: &[(String, String)]) -> Result<Value, SpecError> {
    use crate::file::AgentEntry;
    use crate::load::parse_yaml;

    let (crew_name, crew_text) = files
        .iter()
        .find(|(name, _)| name == "crew.yaml" || name == "crew.yml")
        .or_else(|| files.first())
        .ok_or_else(|| SpecError::Unreadable("there is no crew file".into()))?;
    let unreadable = |name: &str, problems: Vec<crate::diagnostic::Diagnostic>| {
        let first = problems.into_iter().find(|d| d.is_error()).map(|d| d.to_string()).unwrap_or_default();
        SpecError::Unreadable(format!("{name} is not a crew file: {first}"))
    };
    let (file, problems) = parse_yaml::<CrewFile>(crew_name, crew_text);
    let file = file.ok_or_else(|| unreadable(crew_name, problems))?;
    let mut agents: Vec<AgentFile> = Vec::with_capacity(file.agents.len());
    for entry in &file.agents {
        match &**entry {
            AgentEntry::Inline(agent) => agents.push((**agent).clone()),
            AgentEntry::Reference(id) => {
                let name = format!("agents/{id}.yaml");
                let just_id;
                let text = match files.iter().find(|(file, _)| *file == name) {
                    Some((_, text)) => text,
                    None => {
                        just_id = yaml(&serde_json::json!({"id": id}))?;
                        &just_id
                    }
                };
                let (agent, problems) = parse_yaml::<AgentFile>(&name, text);
                agents.push(agent.ok_or_else(|| unreadable(&name, problems))?);
            }
        }
    }
    Ok(to_spec(&file, &agents.iter().collect::<Vec<_>>()))
}

/// The crew as one self-contained YAML file.
pub fn to_yaml(spec: &Value) -> Result<String, SpecError> {
    let mut value = Value::Object(crew_map(spec)?.clone());
    prune(&mut value, true);
    yaml(&value)
}

/// The crew as a Go-engine crew directory: `crew.yaml` listing the agent ids, and
/// `agents/<id>.yaml` for each agent, as (path inside the directory, text) pairs.
pub fn to_directory(spec: &Value) -> Result<Vec<(String, String)>, SpecError> {
    let crew = crew_map(spec)?;
    let agents = crew.get("agents").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    let mut files = Vec::with_capacity(agents.len() + 1);
    let mut ids: Vec<Value> = Vec::with_capacity(agents.len());
    for (index, agent) in agents.iter().enumerate() {
        let id = agent.get("id").and_then(Value::as_str).map(str::trim).unwrap_or_default();
        if id.is_empty() || !is_valid_agent_id(id) {
            return Err(SpecError::AgentWithoutId { index: index + 1 });
        }
        if ids.iter().any(|known| known == id) {
            return Err(SpecError::DuplicateAgentFile { id: id.to_owned() });
        }
        let mut agent = agent.clone();
        prune(&mut agent, true);
        files.push((format!("agents/{id}.yaml"), yaml(&agent)?));
        ids.push(Value::String(id.to_owned()));
    }
    // `agents:` keeps its place among the crew's keys.
    let mut listing: Map<String, Value> = crew.clone();
    listing.insert("agents".to_owned(), Value::Array(ids));
    let mut listing = Value::Object(listing);
    prune(&mut listing, true);
    files.insert(0, ("crew.yaml".to_owned(), yaml(&listing)?));
    Ok(files)
}

/// The crew as the YAML tree its text would parse into (without positions: the text
/// does not exist), for [`crate::load::load_spec_value`]. Nulls are left out, as in
/// the text; numbers and booleans become the scalars YAML would hold.
pub fn to_node(spec: &Value) -> Result<Node, SpecError> {
    crew_map(spec)?;
    Ok(node(spec))
}

fn node(value: &Value) -> Node {
    match value {
        Value::Object(map) => {
            let fields = map.iter().filter(|(_, v)| !v.is_null()).map(|(k, v)| (MarkedScalarNode::from(k.as_str()), node(v)));
            Node::Mapping(fields.collect::<MarkedMappingNode>())
        }
        Value::Array(items) => Node::Sequence(items.iter().map(node).collect::<MarkedSequenceNode>()),
        Value::String(text) => Node::Scalar(MarkedScalarNode::from(text.as_str())),
        Value::Number(number) => Node::Scalar(MarkedScalarNode::from(number.to_string())),
        Value::Bool(flag) => Node::Scalar(MarkedScalarNode::from(*flag)),
        Value::Null => Node::Scalar(MarkedScalarNode::from("")),
    }
}

fn crew_map(spec: &Value) -> Result<&Map<String, Value>, SpecError> {
    match spec {
        Value::Object(map) => Ok(map),
        Value::Null => Err(SpecError::NotAMapping { found: "nothing" }),
        Value::Bool(_) => Err(SpecError::NotAMapping { found: "true or false" }),
        Value::Number(_) => Err(SpecError::NotAMapping { found: "a number" }),
        Value::String(_) => Err(SpecError::NotAMapping { found: "text" }),
        Value::Array(_) => Err(SpecError::NotAMapping { found: "a list" }),
    }
}

fn yaml(value: &Value) -> Result<String, SpecError> {
    let mut value = value.clone();
    whole_numbers(&mut value);
    serde_yaml::to_string(&value).map_err(|e| SpecError::Yaml(e.to_string()))
}

/// Writes the Go engine's `timeout_seconds` (kept as text, as `timeout: 30s` is) as a
/// number when it is one: the Go engine reads it as an integer, not a string.
fn whole_numbers(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, child) in map.iter_mut() {
                match child {
                    Value::String(text) if key == "timeout_seconds" => {
                        if let Ok(number) = text.trim().parse::<u64>() {
                            *child = Value::from(number);
                        }
                    }
                    _ => whole_numbers(child),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(whole_numbers),
        _ => {}
    }
}

/// Leaves out what says nothing: `null`s everywhere, and empty lists and mappings
/// below the top level. At the top an empty list stays, because `signals: []` (a
/// strict registry with no signals of its own) differs from no `signals:` at all.
fn prune(value: &mut Value, top: bool) {
    match value {
        Value::Object(map) => {
            map.retain(|_, child| {
                prune(child, false);
                match child {
                    Value::Null => false,
                    Value::Array(items) => !items.is_empty() || top,
                    Value::Object(fields) => !fields.is_empty() || top,
                    _ => true,
                }
            });
        }
        Value::Array(items) => items.iter_mut().for_each(|item| prune(item, false)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::load::load_str;

    #[test]
    fn nulls_and_empty_lists_are_left_out_but_an_empty_registry_stays() {
        let spec = json!({"name": "X", "description": null, "signals": [], "agents": [{"id": "a", "tags": [], "tools": null}]});
        assert_eq!(to_yaml(&spec).unwrap(), "name: X\nsignals: []\nagents:\n- id: a\n");
    }

    #[test]
    fn keys_keep_their_order_and_multi_line_prompts_stay_readable() {
        let spec = json!({"version": "1.0", "name": "Quiz", "entry_point": "t",
            "agents": [{"id": "t", "system_prompt": "Line one.\nLine two.\n", "is_terminal": true}],
            "routing": {"signals": {"t": [{"signal": "[END]", "target": ""}]}}});
        let text = to_yaml(&spec).unwrap();
        assert!(text.starts_with("version: '1.0'\nname: Quiz\nentry_point: t\n"), "{text}");
        assert!(text.contains("  system_prompt: |\n    Line one.\n    Line two.\n"), "{text}");
        assert!(text.contains("    - signal: '[END]'\n      target: ''\n"), "{text}");
        assert!(load_str("quiz.yaml", &text).is_valid(), "{text}");
    }

    #[test]
    fn a_directory_lists_ids_where_the_agents_were() {
        let spec = json!({"name": "D", "agents": [{"id": "a", "name": "A"}, {"id": "b"}], "entry_point": "a"});
        let files = to_directory(&spec).unwrap();
        let names: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(names, ["crew.yaml", "agents/a.yaml", "agents/b.yaml"]);
        assert_eq!(files[0].1, "name: D\nagents:\n- a\n- b\nentry_point: a\n");
        assert_eq!(files[1].1, "id: a\nname: A\n");
    }

    #[test]
    fn a_directory_refuses_agents_it_cannot_name_files_after() {
        let blank = json!({"agents": [{"id": "a"}, {"name": "no id"}]});
        assert_eq!(to_directory(&blank), Err(SpecError::AgentWithoutId { index: 2 }));
        let escape = json!({"agents": [{"id": "../x"}]});
        assert_eq!(to_directory(&escape), Err(SpecError::AgentWithoutId { index: 1 }));
        let twice = json!({"agents": [{"id": "a"}, {"id": "a"}]});
        assert_eq!(to_directory(&twice), Err(SpecError::DuplicateAgentFile { id: "a".into() }));
    }

    #[test]
    fn a_crew_kept_as_text_reads_back_as_its_spec() {
        let spec = json!({"name": "D", "entry_point": "a", "agents": [{"id": "a", "name": "A", "tags": ["x"]}, {"id": "b"}]});
        let one = vec![("crew.yaml".to_owned(), to_yaml(&spec).unwrap())];
        assert_eq!(from_texts(&one).unwrap(), spec);
        let mut folder = to_directory(&spec).unwrap();
        folder.reverse();
        assert_eq!(from_texts(&folder).unwrap(), spec, "a directory's files in any order");
        folder.retain(|(name, _)| name != "agents/b.yaml");
        assert_eq!(from_texts(&folder).unwrap()["agents"][1], json!({"id": "b"}), "a missing agent file leaves the id");
        let broken = vec![("crew.yaml".to_owned(), "agents: [".to_owned())];
        assert!(matches!(from_texts(&broken), Err(SpecError::Unreadable(_))));
    }

    #[test]
    fn only_a_mapping_is_a_crew() {
        assert_eq!(to_yaml(&json!([1])), Err(SpecError::NotAMapping { found: "a list" }));
        assert_eq!(to_yaml(&Value::Null), Err(SpecError::NotAMapping { found: "nothing" }));
    }
}

#[cfg(test)]
mod tree_tests {
    use serde_json::json;

    use super::*;
    use crate::load::{load_spec_value, load_str};

    fn messages(loaded: &crate::load::Loaded) -> Vec<String> {
        loaded.diagnostics.iter().map(|d| d.message.clone()).collect()
    }

    /// The tree and the text say the same, for good crews and bad ones.
    #[test]
    fn the_tree_is_checked_exactly_as_the_text_would_be() {
        let crews = [
            json!({"name": "Fine", "entry_point": "a", "max_handoffs": 3,
                "agents": [{"id": "a", "temperature": 0.5, "tags": ["x"]}, {"id": "b", "is_terminal": true}],
                "routing": {"signals": {"a": [{"signal": "[GO]", "target": "b"}]}}}),
            json!({"name": "Broken", "entry_point": "nobody", "max_handoffs": -1, "surprise": true,
                "agents": [{"id": "a", "temperature": 7}, {"id": "a"}, {"name": "no id"}],
                "signals": [{"name": "[]"}, {"name": "[A_B]"}, {"name": "[a b]"}],
                "routing": {"strategy": "telepathy", "signals": {"a": [{"signal": "[NOPE]", "target": "ghost"}]},
                    "parallel_groups": {"g": {"agents": ["ghost"], "wait_for_all": "perhaps"}}}}),
        ];
        for crew in crews {
            let text = to_yaml(&crew).unwrap();
            let from_text = load_str("crew.yaml", &text);
            let from_tree = load_spec_value("crew.yaml", &crew).unwrap();
            assert_eq!(messages(&from_tree), messages(&from_text), "{text}");
            assert_eq!(from_tree.is_valid(), from_text.is_valid());
        }
    }

    #[test]
    fn only_a_mapping_is_checked() {
        assert_eq!(load_spec_value("x", &json!("text")).err(), Some(SpecError::NotAMapping { found: "text" }));
    }
}
