//! The seam to language models: [`LlmClient`]. Providers (`crewgraph-llm`) implement
//! it; the run loop calls it once per agent turn (and again after tool calls).

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use super::history::Visible;
use super::message::ToolCall;
use crate::crew::ModelSpec;
use crate::ids::AgentId;

/// A tool the agent may call, as the model is told about it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    /// JSON Schema of the arguments.
    pub parameters: serde_json::Value,
}

/// An answer that must be one JSON value of a schema (structured output: OpenAI's
/// `json_schema` response format, Anthropic's forced tool, a local model's grammar).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OutputSchema {
    /// A short identifier (`route_decision`): the schema's name or the forced tool's.
    pub name: String,
    pub description: String,
    /// JSON Schema of the answer (an object).
    pub schema: serde_json::Value,
}

/// One call to a model: an agent's system prompt, the history it sees, its tools.
/// It borrows them from the run, so a call costs the same however long the run is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LlmRequest<'a> {
    /// The agent speaking (the scripted provider picks its replies by it).
    pub agent: &'a AgentId,
    /// Which model: a named model (`default`, `fast`), `provider/model`, or the Go
    /// engine's provider + model + URL; None = the default model.
    pub model: Option<&'a ModelSpec>,
    pub system: &'a str,
    pub messages: Visible<'a>,
    pub tools: &'a [ToolSpec],
    /// The reply must call one of `tools` (OpenAI's `tool_choice: required`,
    /// Anthropic's `any`): to find out whether a model can call tools at all.
    pub require_tool: bool,
    pub temperature: Option<f64>,
    /// The most tokens the reply may take; None = the model's own setting.
    pub max_tokens: Option<u32>,
    /// How the reply may end so that one of the agent's rules matches. A provider
    /// that can constrain its output (the local model) makes the reply end with one
    /// of them; others rely on the instructions in `system`. Empty = no constraint.
    pub signals: &'a [Ending],
    /// When set, the answer is one JSON value of this schema, as text.
    pub schema: Option<&'a OutputSchema>,
}

/// One way a reply may end so that a rule of its agent matches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// A bracket signal, written as it is (`[QUESTION]`).
    Signal(String),
    /// A last line that a pattern signal's regular expression matches
    /// (`^READY_FOR_REVIEW:\s*(\S+)`, written `READY_FOR_REVIEW: T-42`).
    Line(String),
}

/// How much one call to a model can hold, prompt and reply together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ContextWindow {
    /// Tokens of the prompt and the reply together.
    pub tokens: u32,
    /// The most tokens a reply takes when the request sets none (the model's
    /// `max_tokens`); None = the provider's default.
    pub reply: Option<u32>,
}

impl<'a> LlmRequest<'a> {
    /// A request from `agent` with its system prompt and messages, and nothing else.
    pub fn new(agent: &'a AgentId, system: &'a str, messages: Visible<'a>) -> Self {
        LlmRequest {
            agent,
            model: None,
            system,
            messages,
            tools: &[],
            require_tool: false,
            temperature: None,
            max_tokens: None,
            signals: &[],
            schema: None,
        }
    }
}

/// Tokens a provider reports having used, and what they cost when the model's price
/// is known.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct Usage {
    pub input_tokens: u32,
    pub output_tokens: u32,
    /// In US dollars, from the model's price (Settings); None when no price is set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub cost_usd: Option<f64>,
}

impl Usage {
    /// What two calls used together; None only when neither reported usage.
    pub fn add(total: Option<Usage>, more: Option<Usage>) -> Option<Usage> {
        match (total, more) {
            (Some(a), Some(b)) => Some(Usage {
                input_tokens: a.input_tokens.saturating_add(b.input_tokens),
                output_tokens: a.output_tokens.saturating_add(b.output_tokens),
                cost_usd: match (a.cost_usd, b.cost_usd) {
                    (Some(x), Some(y)) => Some(x + y),
                    (x, y) => x.or(y),
                },
            }),
            (one, other) => one.or(other),
        }
    }
}

/// A model's answer.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LlmReply {
    pub content: String,
    pub tool_calls: Vec<ToolCall>,
    pub usage: Option<Usage>,
}

impl LlmReply {
    /// True when the reply says nothing and calls no tool (a small model sometimes
    /// stops at once): such a reply is asked for again, once.
    pub fn is_empty(&self) -> bool {
        self.content.trim().is_empty() && self.tool_calls.is_empty()
    }
}

/// Why a call failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LlmError {
    /// The provider (or a script's `error:` entry) reported a failure.
    #[error("{0}")]
    Failed(String),
    /// The script has no reply left for this agent.
    #[error("the script has no reply left for agent '{0}'")]
    ScriptExhausted(AgentId),
    /// The script has no replies at all for this agent.
    #[error("the script has no replies for agent '{0}'")]
    NoScriptFor(AgentId),
    /// The call was cancelled.
    #[error("cancelled")]
    Cancelled,
    /// The model's server refused the request as longer than its context window
    /// (OpenAI's `context_length_exceeded`, llama.cpp's "exceeds the available
    /// context size", Anthropic's "prompt is too long"): the provider's own words,
    /// and the window it said it has, when it said one.
    #[error("{said}")]
    ContextOverflow { said: String, window: Option<u32> },
}

/// Receives a reply's text as it streams.
pub type TokenSink<'a> = &'a (dyn Fn(&str) + Send + Sync);

/// A language model provider.
#[async_trait]
pub trait LlmClient: Send + Sync {
    /// Answers `request`, passing each piece of text to `on_token` as it arrives and
    /// returning the whole reply. Must stop promptly (with [`LlmError::Cancelled`])
    /// once `cancel` fires.
    async fn complete(&self, request: &LlmRequest<'_>, on_token: TokenSink<'_>, cancel: &CancellationToken) -> Result<LlmReply, LlmError>;

    /// True when its replies are typed by a person (Simulate by hand): time spent
    /// waiting for them is the person's, not a model's, so no time limit of the crew
    /// (a parallel group's timeout) runs meanwhile.
    fn typed_by_a_person(&self) -> bool {
        false
    }

    /// True when the model `model` names is offered its tools through structured
    /// output (it has no tool calling of its own, or its server refused tools), so a
    /// model check can say how tools reach it.
    fn tools_through_structured_output(&self, model: Option<&ModelSpec>) -> bool {
        let _ = model;
        false
    }

    /// The context window of the model `model` names (None = the default model):
    /// what its server reports, what is known of it, or what the person set. None
    /// when nothing is known; then only a crew's `context_budget` trims the history.
    /// Called before every call: answer from memory after the first time.
    async fn context_window(&self, model: Option<&ModelSpec>) -> Option<ContextWindow> {
        let _ = model;
        None
    }

    /// How many tokens each of `texts` takes for the model `model` names, counted by
    /// its own tokenizer where its server has one (llama.cpp's `/tokenize`). None
    /// when it cannot count: the engine then estimates, erring on the large side.
    async fn count_tokens(&self, model: Option<&ModelSpec>, texts: &[&str]) -> Option<Vec<u32>> {
        let _ = (model, texts);
        None
    }
}

#[cfg(test)]
mod tests {
    use super::Usage;

    #[test]
    fn usage_of_a_turn_adds_up_its_calls_and_stays_none_when_no_call_reported_any() {
        let call = |i, o| Some(Usage { input_tokens: i, output_tokens: o, cost_usd: None });
        assert_eq!(Usage::add(call(10, 2), call(30, 5)), call(40, 7));
        let priced = |i, o, c| Some(Usage { input_tokens: i, output_tokens: o, cost_usd: Some(c) });
        assert_eq!(Usage::add(priced(10, 2, 0.25), priced(30, 5, 0.5)), priced(40, 7, 0.75));
        assert_eq!(Usage::add(priced(10, 2, 0.25), call(30, 5)), priced(40, 7, 0.25), "a call without a price adds no cost");
        assert_eq!(Usage::add(None, call(3, 1)), call(3, 1));
        assert_eq!(Usage::add(call(3, 1), None), call(3, 1));
        assert_eq!(Usage::add(None, None), None);
        assert_eq!(Usage::add(call(u32::MAX, 0), call(1, 0)), call(u32::MAX, 0));
    }
}
