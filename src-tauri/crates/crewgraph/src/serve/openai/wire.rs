//! The shapes of the OpenAI Chat Completions protocol that `/v1` reads and writes:
//! the request (the fields a crew can use; the rest, such as `temperature`, are
//! accepted and left alone), the answer, a streamed chunk, the model list, and an
//! error. Crewgraph's own fields ride in a `crewgraph` object beside them, which
//! OpenAI's SDKs keep as extra fields.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::api::CallOutcome;

/// `POST /v1/chat/completions`.
#[derive(Debug, Deserialize)]
pub struct ChatRequest {
    /// `crew/<name>`.
    pub model: String,
    pub messages: Vec<Message>,
    #[serde(default)]
    pub stream: bool,
    #[serde(default)]
    pub stream_options: Option<StreamOptions>,
    /// Crewgraph's own fields.
    #[serde(default)]
    pub crewgraph: Option<ChatExtension>,
}

#[derive(Debug, Default, Deserialize)]
pub struct StreamOptions {
    #[serde(default)]
    pub include_usage: bool,
}

/// `crewgraph: {…}` in a request.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChatExtension {
    /// The model every agent uses instead of its own; `simulate` for the crew's
    /// Simulate script.
    #[serde(default)]
    pub model: Option<String>,
    /// Go on with this paused run (the last user message is the answer) instead
    /// of the run the conversation's last answer names, if any.
    #[serde(default)]
    pub run_id: Option<String>,
}

/// One message of the conversation.
#[derive(Debug, Deserialize)]
pub struct Message {
    pub role: String,
    /// Text, or a list of parts of which only text parts are read.
    #[serde(default)]
    pub content: Value,
}

/// The non-streamed answer.
#[derive(Debug, Serialize)]
pub struct ChatCompletion {
    pub id: String,
    pub object: &'static str,
    pub created: u64,
    pub model: String,
    pub choices: Vec<Choice>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<TokenUsage>,
    pub crewgraph: RunNews,
}

#[derive(Debug, Serialize)]
pub struct Choice {
    pub index: u32,
    pub message: AnswerMessage,
    pub finish_reason: &'static str,
}

#[derive(Debug, Serialize)]
pub struct AnswerMessage {
    pub role: &'static str,
    pub content: String,
}

/// Tokens, as OpenAI counts them.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct TokenUsage {
    pub prompt_tokens: u32,
    pub completion_tokens: u32,
    pub total_tokens: u32,
}

impl TokenUsage {
    pub fn of(outcome: &CallOutcome) -> Option<TokenUsage> {
        outcome.usage.as_ref().map(|u| TokenUsage {
            prompt_tokens: u.input_tokens,
            completion_tokens: u.output_tokens,
            total_tokens: u.input_tokens.saturating_add(u.output_tokens),
        })
    }
}

/// `crewgraph: {…}` in an answer or a chunk: the run, and what happened in it.
#[derive(Debug, Default, Serialize)]
pub struct RunNews {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// The run's status, once it ended or paused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// A handoff, in words (streamed chunks).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handoff: Option<String>,
    /// The agent whose words a chunk's `reasoning_content` carries.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The whole outcome (the answer and the last chunk).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<CallOutcome>,
}

/// One streamed chunk.
#[derive(Debug, Serialize)]
pub struct ChatChunk {
    pub id: String,
    pub object: &'static str,
    pub created: u64,
    pub model: String,
    pub choices: Vec<ChunkChoice>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<TokenUsage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crewgraph: Option<RunNews>,
}

#[derive(Debug, Serialize)]
pub struct ChunkChoice {
    pub index: u32,
    pub delta: Delta,
    pub finish_reason: Option<&'static str>,
}

/// What a chunk adds: the role once, then the final answer's words as `content`,
/// and the agents' words on the way as `reasoning_content` (what chat apps show
/// folded as the model's thinking).
#[derive(Debug, Default, Serialize)]
pub struct Delta {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning_content: Option<String>,
}

/// `GET /v1/models`.
#[derive(Debug, Serialize)]
pub struct ModelList {
    pub object: &'static str,
    pub data: Vec<ModelEntry>,
}

#[derive(Debug, Serialize)]
pub struct ModelEntry {
    pub id: String,
    pub object: &'static str,
    pub created: u64,
    pub owned_by: &'static str,
    /// The crew's name and what it does.
    pub description: String,
}

/// An error, as OpenAI's SDKs read it.
#[derive(Debug, Serialize)]
pub struct ErrorBody {
    pub error: ErrorDetail,
}

#[derive(Debug, Serialize)]
pub struct ErrorDetail {
    pub message: String,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub param: Option<&'static str>,
    pub code: Option<String>,
}
