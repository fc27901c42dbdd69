//! The tools a crews folder offers over MCP: one per valid crew (its name, its
//! description and agents in words, input `{input, model?}`, the outcome as
//! structured content), and `resume_run` to answer a crew that waits for a person.

use std::path::PathBuf;
use std::sync::Arc;

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{json, Value};

use crate::api::{outside_name, Api, CrewSummary, SIMULATE};

/// The tool that goes on with a paused run.
pub const RESUME_RUN: &str = "resume_run";

/// A crew offered as a tool.
#[derive(Clone, Debug)]
pub struct CrewTool {
    /// The tool's name: the crew's file or folder name without `.yaml`, in the
    /// characters MCP allows.
    pub name: String,
    pub path: PathBuf,
    pub tool: Tool,
}

/// The crews of `api`'s folder that can run (no errors), as tools, in the folder's order.
pub fn crew_tools(api: &Api) -> Vec<CrewTool> {
    let crews = api.list_crews().unwrap_or_default();
    let mut tools: Vec<CrewTool> = Vec::new();
    for crew in crews.into_iter().filter(|c| c.errors == 0) {
        let path = PathBuf::from(&crew.path);
        let name = tool_name(&outside_name(&path));
        if name == RESUME_RUN || tools.iter().any(|t| t.name == name) {
            continue;
        }
        let tool = Tool::new(name.clone(), describe(&crew), Arc::new(object(input_schema())))
            .with_title(crew.name.clone())
            .with_raw_output_schema(Arc::new(object(outcome_schema())))
            .with_annotations(ToolAnnotations::with_title(crew.name.clone()).read_only(false).open_world(true));
        tools.push(CrewTool { name, path, tool });
    }
    tools
}

/// `resume_run`, described.
pub fn resume_tool() -> Tool {
    let schema = json!({
        "type": "object",
        "properties": {
            "run_id": {"type": "string", "description": "The run waiting for an answer, as the crew's tool said it (run_id)."},
            "input": {"type": "string", "description": "Your answer to the agent waiting."},
            "model": model_property(),
        },
        "required": ["run_id", "input"],
        "additionalProperties": false,
    });
    Tool::new(
        RESUME_RUN,
        "Goes on with a crew's run that waits for a person (its status was 'paused'): gives the waiting agent your \
         answer and runs on to the end or the next pause. Answers like a crew's tool.",
        Arc::new(object(schema)),
    )
    .with_title("Answer a waiting crew")
    .with_raw_output_schema(Arc::new(object(outcome_schema())))
    .with_annotations(ToolAnnotations::with_title("Answer a waiting crew").read_only(false).open_world(true))
}

/// MCP tool names are letters, digits, `_`, `-` and `.`, at most 128 of them.
pub fn tool_name(name: &str) -> String {
    let name: String =
        name.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') { c } else { '_' }).take(128).collect();
    if name.is_empty() {
        "crew".to_owned()
    } else {
        name
    }
}

fn describe(crew: &CrewSummary) -> String {
    let about = crew.description.trim();
    let agents: Vec<&str> = crew.graph.nodes.iter().filter(|n| n.agent.is_some()).map(|n| n.label.as_str()).collect();
    let mut words = if about.is_empty() { format!("Runs the crew '{}'.", crew.name) } else { about.to_owned() };
    if !agents.is_empty() {
        words.push_str(&format!(" A crew of {} agents ({}) hands the work on until one of them answers.", agents.len(), agents.join(", ")));
    }
    words.push_str(
        " Give it what to work on as 'input'. It answers with the final agent's reply, the run id and its status; \
         a run that waits for a person answers with what it waits for (go on with resume_run).",
    );
    words
}

fn model_property() -> Value {
    json!({
        "type": "string",
        "description": format!(
            "The model every agent uses instead of its own: a model named in Crewgraph, provider/model, 'local' for the \
             built-in model, or '{SIMULATE}' to run the crew on its Simulate script (no model needed). Leave it out for \
             each agent's own model."
        ),
    })
}

fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "input": {"type": "string", "description": "What the crew should work on: the question or task, in words."},
            "model": model_property(),
        },
        "required": ["input"],
        "additionalProperties": false,
    })
}

fn outcome_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "answer": {"type": "string", "description": "The last agent's reply."},
            "run_id": {"type": "string"},
            "status": {"type": "string", "description": "completed, terminated, paused, failed, cancelled, no_route, signal_failure, max_handoffs or loop_detected"},
            "final_agent": {"type": "string"},
            "error": {"type": "string"},
            "waiting": {
                "type": "object",
                "properties": {
                    "agent": {"type": "string"},
                    "kind": {"type": "string", "enum": ["answer", "approval"]},
                    "question": {"type": "string"},
                },
                "required": ["agent", "kind", "question"],
            },
            "handoffs": {"type": "integer", "minimum": 0},
        },
        "required": ["answer", "run_id", "status", "handoffs"],
    })
}

fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_names_keep_to_the_characters_mcp_allows() {
        assert_eq!(tool_name("code-review"), "code-review");
        assert_eq!(tool_name("thi vấn đáp"), "thi_v_n___p");
        assert_eq!(tool_name(""), "crew");
        assert_eq!(tool_name(&"x".repeat(300)).len(), 128);
    }

    #[test]
    fn every_valid_example_crew_is_a_tool_named_after_its_file() {
        let api = Api::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../crews"));
        let names: Vec<String> = crew_tools(&api).into_iter().map(|t| t.name).collect();
        for expected in ["exam", "code-review", "support-triage", "go-quiz"] {
            assert!(names.iter().any(|n| n == expected), "{expected} missing from {names:?}");
        }
        let exam = crew_tools(&api).into_iter().find(|t| t.name == "exam").unwrap();
        assert!(exam.tool.description.unwrap().contains("agents ("));
        assert_eq!(exam.tool.input_schema["required"], json!(["input"]));
    }
}
