//! What a model can do, found out by asking it (`crewgraph models check NAME`,
//! **Check** in Settings): does it answer, its context window and where that came
//! from, whether it streams, whether it calls a tool (one real tiny tool call),
//! whether it gives structured output (one real `json_schema` answer), its time to
//! first token and its tokens per second. Each question is a real request with a
//! time limit; one that fails says why and the others still run.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crewgraph_engine::run::history::Visible;
use crewgraph_engine::run::{LlmClient, LlmError, LlmReply, LlmRequest, Message, OutputSchema, ToolCall, ToolSpec};
use crewgraph_engine::AgentId;
use serde::{Deserialize, Serialize};
use serde_json::json;
use tokio_util::sync::CancellationToken;
use ts_rs::TS;
use utoipa::ToSchema;

/// The longest each question may take.
const QUESTION_LIMIT: Duration = Duration::from_secs(60);
/// The most tokens each answer may take.
const ANSWER_TOKENS: u32 = 64;

/// What a check found. Kept with the model (Settings), shown in the agent form's
/// model picker and by `crewgraph models check`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, TS, ToSchema)]
#[ts(export)]
pub struct ModelCheck {
    /// It answered a plain question.
    pub answers: bool,
    /// Why it did not answer (or what went wrong), in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub problem: Option<String>,
    /// Tokens one request may hold, prompt and reply together, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub context_window: Option<u32>,
    /// Where the window came from: "set in Settings", "reported by llama.cpp", "known for this model".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub context_source: Option<String>,
    /// Its reply came in pieces as it was written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub streaming: Option<bool>,
    /// It called a tool when offered one (None: not asked, because it did not answer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub tools: Option<bool>,
    /// Its tools go through structured output: it has no tool calling of its own (its
    /// server refused tools, or it called none when offered one natively).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub tool_json: Option<bool>,
    /// It answered with one JSON value of a given schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub structured: Option<bool>,
    /// Milliseconds from asking to the first piece of its reply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "number")]
    pub first_token_ms: Option<u64>,
    /// Tokens a second while it wrote (from its own usage count).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub tokens_per_second: Option<f64>,
    /// When it was checked, in milliseconds since 1970.
    #[ts(type = "number")]
    pub checked_at: u64,
}

/// Asks `model` (the client a run would use) the check's questions; `window` is its
/// context window and where that came from, as [`crate::Models::window_of`] says.
pub async fn check(model: Arc<dyn LlmClient>, window: Option<(u32, String)>) -> ModelCheck {
    let checked_at = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0);
    let mut found = ModelCheck {
        context_window: window.as_ref().map(|(tokens, _)| *tokens),
        context_source: window.map(|(_, source)| source),
        checked_at,
        ..ModelCheck::default()
    };
    let agent = AgentId::from("check");

    // A plain question, streamed: does it answer, how fast.
    let history = [Message::user("Count from one to twenty in words, separated by commas.")];
    let request = LlmRequest { max_tokens: Some(ANSWER_TOKENS), ..LlmRequest::new(&agent, "You answer briefly.", Visible::all(&history)) };
    let pieces = Arc::new(Mutex::new(Vec::<Instant>::new()));
    let seen = pieces.clone();
    let on_token = move |_: &str| {
        if let Ok(mut pieces) = seen.lock() {
            pieces.push(Instant::now());
        }
    };
    let asked = Instant::now();
    match ask(model.as_ref(), &request, &on_token).await {
        Ok(reply) => {
            let ended = Instant::now();
            let pieces = pieces.lock().map(|p| p.clone()).unwrap_or_default();
            found.answers = !reply.content.trim().is_empty();
            if !found.answers {
                found.problem = Some("it answered with an empty reply".to_owned());
            }
            found.streaming = Some(pieces.len() > 1);
            found.first_token_ms = pieces.first().map(|first| first.duration_since(asked).as_millis() as u64);
            let writing = pieces.first().map(|first| ended.duration_since(*first)).filter(|d| !d.is_zero());
            found.tokens_per_second = match (reply.usage, writing) {
                (Some(usage), Some(writing)) if usage.output_tokens > 1 => {
                    Some(((f64::from(usage.output_tokens - 1) / writing.as_secs_f64()) * 10.0).round() / 10.0)
                }
                _ => None,
            };
        }
        Err(error) => {
            found.problem = Some(error);
            return found;
        }
    }

    // One tiny tool call, after a worked example (a small model that can call tools
    // often answers in text without one; the example shows it the way).
    let tools = [ToolSpec {
        name: "get_weather".into(),
        description: "The current weather in a city.".into(),
        parameters: json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
    }];
    let example = ToolCall { id: "call_1".into(), name: "get_weather".into(), arguments: json!({"city": "Rome"}) };
    let mut called = Message::agent(&agent, "");
    called.tool_calls.push(example.clone());
    let history = [
        Message::user("What is the weather in Rome?"),
        called,
        Message::tool(&agent, &example, "sunny, 24 °C"),
        Message::agent(&agent, "It is sunny in Rome, 24 °C."),
        Message::user("What is the weather in Paris right now?"),
    ];
    let request = LlmRequest {
        tools: &tools,
        require_tool: true,
        max_tokens: Some(ANSWER_TOKENS),
        temperature: Some(0.0),
        ..LlmRequest::new(&agent, "You call tools when they help.", Visible::all(&history))
    };
    found.tools = Some(match ask(model.as_ref(), &request, &|_| {}).await {
        Ok(reply) => reply.tool_calls.iter().any(|call| call.name == "get_weather"),
        Err(_) => false,
    });
    found.tool_json = Some(model.tools_through_structured_output(None) || found.tools == Some(false));

    // One structured answer.
    let schema = OutputSchema {
        name: "sum".into(),
        description: "The sum of two numbers.".into(),
        schema: json!({"type": "object", "properties": {"sum": {"type": "integer"}}, "required": ["sum"], "additionalProperties": false}),
    };
    let history = [Message::user("What is 2 + 3? Answer with the sum.")];
    let request = LlmRequest {
        schema: Some(&schema),
        max_tokens: Some(ANSWER_TOKENS),
        temperature: Some(0.0),
        ..LlmRequest::new(&agent, "You answer in JSON.", Visible::all(&history))
    };
    found.structured = Some(match ask(model.as_ref(), &request, &|_| {}).await {
        Ok(reply) => serde_json::from_str::<serde_json::Value>(reply.content.trim())
            .ok()
            .is_some_and(|answer| answer.get("sum").is_some_and(serde_json::Value::is_i64)),
        Err(_) => false,
    });
    found
}

/// One question within [`QUESTION_LIMIT`], its failure in words.
async fn ask(model: &dyn LlmClient, request: &LlmRequest<'_>, on_token: &(dyn Fn(&str) + Send + Sync)) -> Result<LlmReply, String> {
    let cancel = CancellationToken::new();
    match tokio::time::timeout(QUESTION_LIMIT, model.complete(request, on_token, &cancel)).await {
        Ok(Ok(reply)) => Ok(reply),
        Ok(Err(LlmError::Cancelled)) => Err("cancelled".to_owned()),
        Ok(Err(error)) => Err(error.to_string()),
        Err(_) => {
            cancel.cancel();
            Err(format!("it did not answer within {} s", QUESTION_LIMIT.as_secs()))
        }
    }
}
