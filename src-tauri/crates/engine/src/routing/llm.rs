//! The `llm` strategy's decider (DESIGN.md §5, seed 004): a router model is shown
//! the [`DecisionContext`] as text and answers with structured output — one JSON
//! object of [`decision_schema`], which providers enforce their own way (OpenAI's
//! `json_schema` response format, Anthropic's forced tool, the local model's
//! grammar). A refused answer is shown back to it, with the reason, when it is
//! asked again.
//!
//! The router's calls go to the run's [`LlmClient`] as agent [`ROUTER_AGENT`], so a
//! script (Simulate mode, tests) gives the router's answers under `router:`.
//!
//! ```
//! use crewgraph_engine::routing::llm::decision_schema;
//!
//! let schema = decision_schema(&["writer".into(), "editor".into()]);
//! assert_eq!(schema.name, "route_decision");
//! assert_eq!(schema.schema["properties"]["next_agent"]["enum"][1], "editor");
//! ```

use std::fmt::Write;
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::decider::{parse, DecideError, Decision, DecisionContext, Rejected, RouteDecider};
use crate::crew::ModelSpec;
use crate::ids::AgentId;
use crate::run::history::Visible;
use crate::run::{LlmClient, LlmError, LlmRequest, Message, OutputSchema};

/// The agent id the router's model calls are made under.
pub const ROUTER_AGENT: &str = "router";

/// The router's temperature: low, so the same situation gets the same decision.
pub const ROUTER_TEMPERATURE: f64 = 0.1;

/// What the router model is told it is.
pub const ROUTER_PROMPT: &str = "\
You are the router of a crew of AI agents. You do no work on the request yourself. \
After each agent's turn you decide one thing: is the person's request fully satisfied, \
or which agent should work next, and on what exactly.

The agents see only the person's request and the instruction you give them: never \
the other agents' work. So make each instruction complete on its own: say what to \
do and include the material to work on when it matters.

Answer with one JSON object and nothing else, with these fields: \
workflow_complete (true when the request is fully satisfied), \
reasoning (why you decided so, briefly), \
next_agent (the id of the agent that works next, from the AVAILABLE AGENTS list; null when complete), \
next_instruction (what exactly that agent must do; null when complete).";

/// The schema of a decision. `next_agent` is held to `agents` (and null), so a
/// provider that enforces schemas cannot name an agent the crew does not have.
pub fn decision_schema(agents: &[String]) -> OutputSchema {
    let mut choices: Vec<serde_json::Value> = agents.iter().map(|a| json!(a)).collect();
    choices.push(serde_json::Value::Null);
    OutputSchema {
        name: "route_decision".into(),
        description: "The routing decision after an agent's turn: complete, or the next agent and its instruction.".into(),
        schema: json!({
            "type": "object",
            "properties": {
                "workflow_complete": {"type": "boolean"},
                "reasoning": {"type": "string"},
                "next_agent": {"type": ["string", "null"], "enum": choices},
                "next_instruction": {"type": ["string", "null"]}
            },
            "required": ["workflow_complete", "reasoning", "next_agent", "next_instruction"],
            "additionalProperties": false
        }),
    }
}

/// The context as the router model reads it.
pub fn describe(context: &DecisionContext) -> String {
    let mut text = String::new();
    let _ = writeln!(text, "ORIGINAL REQUEST:\n{}\n", context.original_query.trim());
    let _ = writeln!(text, "WORKFLOW HISTORY (decision {} of at most {}):", context.iteration, context.max_iterations);
    for (i, step) in context.workflow_history.iter().enumerate() {
        let _ = writeln!(text, "{}. {}\n   Action: {}\n   Time: {}", i + 1, step.agent_id, step.action, step.timestamp);
    }
    let _ = writeln!(text, "\nCURRENT OUTPUT (from {}):\n{}\n", context.current_agent, context.current_output.trim());
    let _ = writeln!(text, "AVAILABLE AGENTS:");
    if context.available_agents.is_empty() {
        let _ = writeln!(text, "(none: the workflow can only complete)");
    }
    for agent in &context.available_agents {
        let _ = write!(text, "- {}", agent.agent_id);
        if !agent.name.is_empty() && agent.name != agent.agent_id.as_str() {
            let _ = write!(text, " ({})", agent.name);
        }
        for part in [&agent.role, &agent.description].into_iter().filter(|p| !p.trim().is_empty()) {
            let _ = write!(text, ": {}", part.trim());
        }
        if !agent.capabilities.is_empty() {
            let _ = write!(text, " [capabilities: {}]", agent.capabilities.join(", "));
        }
        text.push('\n');
    }
    let _ = write!(
        text,
        "\nDECISION CRITERIA:\n\
         1. Has the original request been fully satisfied? Then the workflow is complete.\n\
         2. What work remains, and which available agent is best suited for it?\n\
         3. Are we in a loop (the same agent asked the same thing again)? Then complete or change course.\n\
         4. Decision {} of at most {}: finish before the limit.",
        context.iteration, context.max_iterations
    );
    text
}

/// What the router is told when its answer was refused.
pub fn correction(rejected: &Rejected) -> String {
    format!(
        "That answer cannot be used: {}. Answer again with one JSON object of the form asked for, \
         naming only an agent from the AVAILABLE AGENTS list.",
        rejected.problem
    )
}

/// A router model behind the run's [`LlmClient`].
pub struct LlmRouter {
    llm: Arc<dyn LlmClient>,
    /// `routing.router_model`; None = the default model.
    model: Option<ModelSpec>,
    temperature: f64,
    /// `routing.router.max_tokens`; None = the model's own setting.
    max_tokens: Option<u32>,
    agent: AgentId,
}

impl LlmRouter {
    /// A router asking `llm`, with the model `model` (a named model or
    /// `provider/model`; None = the default model).
    pub fn new(llm: Arc<dyn LlmClient>, model: Option<&str>) -> Self {
        LlmRouter {
            llm,
            model: model.map(ModelSpec::named),
            temperature: ROUTER_TEMPERATURE,
            max_tokens: None,
            agent: AgentId::from(ROUTER_AGENT),
        }
    }

    /// The same, at `temperature` (`routing.router.temperature`).
    pub fn with_temperature(mut self, temperature: Option<f64>) -> Self {
        self.temperature = temperature.unwrap_or(ROUTER_TEMPERATURE);
        self
    }

    /// The same, each decision taking at most `max_tokens` tokens
    /// (`routing.router.max_tokens`; None = the model's own setting). A decision cut
    /// off at the limit is no decision, so a model with a small default (the local
    /// model's 128) needs room for its reasoning and the instruction.
    pub fn with_max_tokens(mut self, max_tokens: Option<u32>) -> Self {
        self.max_tokens = max_tokens;
        self
    }
}

#[async_trait]
impl RouteDecider for LlmRouter {
    async fn decide(
        &self,
        context: &DecisionContext,
        rejected: Option<&Rejected>,
        cancel: &CancellationToken,
    ) -> Result<Decision, DecideError> {
        let agents: Vec<String> = context.available_agents.iter().map(|a| a.agent_id.to_string()).collect();
        let schema = decision_schema(&agents);
        let mut messages = vec![Message::user(describe(context))];
        if let Some(rejected) = rejected {
            messages.push(Message::agent(&self.agent, rejected.raw.clone()));
            messages.push(Message::user(correction(rejected)));
        }
        let request = LlmRequest {
            model: self.model.as_ref(),
            temperature: Some(self.temperature),
            max_tokens: self.max_tokens,
            schema: Some(&schema),
            ..LlmRequest::new(&self.agent, ROUTER_PROMPT, Visible::all(&messages))
        };
        match self.llm.complete(&request, &|_| {}, cancel).await {
            Ok(reply) => parse(&reply.content),
            Err(LlmError::Cancelled) => Err(DecideError::Cancelled),
            Err(error) => Err(DecideError::Unavailable(error.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routing::decider::{CatalogEntry, WorkflowStep};
    use crate::run::Timestamp;

    fn context() -> DecisionContext {
        DecisionContext {
            original_query: "A polished note on bees".into(),
            workflow_history: vec![WorkflowStep::new(&AgentId::from("lead"), "Plan: research, then write.", Timestamp(0))],
            current_agent: AgentId::from("lead"),
            current_output: "Plan: research, then write.".into(),
            available_agents: vec![CatalogEntry {
                agent_id: AgentId::from("writer"),
                name: "Writer".into(),
                role: "Writes notes".into(),
                description: String::new(),
                capabilities: vec!["prose".into()],
            }],
            iteration: 1,
            max_iterations: 10,
        }
    }

    #[test]
    fn the_router_reads_every_part_of_the_context() {
        let text = describe(&context());
        for part in [
            "ORIGINAL REQUEST:\nA polished note on bees",
            "WORKFLOW HISTORY (decision 1 of at most 10):\n1. lead\n   Action: Plan: research, then write.\n   Time: 1970-01-01T00:00:00.000Z",
            "CURRENT OUTPUT (from lead):",
            "- writer (Writer): Writes notes [capabilities: prose]",
        ] {
            assert!(text.contains(part), "{part:?} in:\n{text}");
        }
    }

    #[test]
    fn the_schema_requires_every_field_as_strict_structured_output_needs() {
        let schema = decision_schema(&["writer".into()]).schema;
        assert_eq!(schema["required"].as_array().unwrap().len(), 4);
        assert_eq!(schema["additionalProperties"], false);
        assert_eq!(schema["properties"]["next_agent"]["enum"], json!(["writer", null]));
    }
}
