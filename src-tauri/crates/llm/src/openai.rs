//! Any OpenAI-compatible endpoint (OpenAI, Ollama, LM Studio, vLLM, llama.cpp's
//! server, OpenRouter): `POST {base}/chat/completions` streamed as server-sent
//! events, with tool calls (their argument deltas assembled by index), structured
//! output (`response_format: json_schema`) and usage (`stream_options.include_usage`).
//!
//! A model without tool calling of its own (a server that refuses `tools` for it, or
//! one the model check found calling none) is offered its tools through structured
//! output instead ([`crate::tool_json`]): a JSON schema of a call or an answer, or,
//! where the server refuses that too, the instructions alone. The way found is kept
//! for the client's life, so a refusal costs one request, once.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

use async_trait::async_trait;
use crewgraph_engine::run::{LlmClient, LlmError, LlmReply, LlmRequest, TokenSink, ToolCall, Usage};
use crewgraph_engine::ModelSpec;
use reqwest::header::{HeaderMap, HeaderValue, AUTHORIZATION};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use crate::chat::{conversation, tool_arguments, Turn};
use crate::failure;
use crate::http::{endpoint, Limits, Transport};
use crate::keys::Secret;
use crate::settings::masked_url;
use crate::tool_json;

/// How tools reach the model: its own tool calling, a JSON schema of a call or an
/// answer (the endpoint's structured output), or the instructions alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
enum ToolWay {
    Native = 0,
    Schema = 1,
    Words = 2,
}

/// A client of one model at one OpenAI-compatible endpoint.
#[derive(Clone, Debug)]
pub struct OpenAiClient {
    transport: Transport,
    /// `https://api.openai.com/v1`, without a trailing slash.
    base_url: String,
    model: String,
    headers: HeaderMap,
    max_tokens: Option<u32>,
    /// The [`ToolWay`] found so far, shared by the client's clones.
    tool_way: Arc<AtomicU8>,
}

impl OpenAiClient {
    /// A client of `model` at `base_url`, sending `key` (if any) as a bearer token.
    pub fn new(base_url: &str, model: &str, key: Option<&Secret>, limits: Limits) -> Result<Self, LlmError> {
        let label = format!("openai at {}", masked_url(base_url.trim_end_matches('/')));
        Self::named(label, base_url, model, key, limits)
    }

    /// The same, named `label` in errors (the local model is "the local model").
    pub fn named(label: String, base_url: &str, model: &str, key: Option<&Secret>, limits: Limits) -> Result<Self, LlmError> {
        let base_url = base_url.trim_end_matches('/').to_owned();
        let transport = Transport::new(label, limits)?.hiding(key);
        let mut headers = HeaderMap::new();
        if let Some(key) = key {
            let mut value = HeaderValue::from_str(&format!("Bearer {}", key.expose()))
                .map_err(|_| transport.error("the API key holds characters a header cannot carry"))?;
            value.set_sensitive(true);
            headers.insert(AUTHORIZATION, value);
        }
        Ok(OpenAiClient { transport, base_url, model: model.to_owned(), headers, max_tokens: None, tool_way: Arc::default() })
    }

    /// Caps each reply at `max_tokens`.
    pub fn with_max_tokens(mut self, max_tokens: Option<u32>) -> Self {
        self.max_tokens = max_tokens;
        self
    }

    /// Offers tools through structured output from the start (the model check found
    /// it calling none of its own).
    pub fn with_tools_through_structured_output(self, yes: bool) -> Self {
        if yes {
            self.tool_way.store(ToolWay::Schema as u8, Ordering::Relaxed);
        }
        self
    }

    fn tool_way(&self) -> ToolWay {
        match self.tool_way.load(Ordering::Relaxed) {
            0 => ToolWay::Native,
            1 => ToolWay::Schema,
            _ => ToolWay::Words,
        }
    }

    /// Answers `request`, whose tools the model gets through structured output: the
    /// JSON it writes is read back into a call or an answer, and the answer's words
    /// passed on once read.
    async fn complete_through_json(
        &self,
        request: &LlmRequest<'_>,
        way: ToolWay,
        on_token: TokenSink<'_>,
        cancel: &CancellationToken,
    ) -> Result<LlmReply, LlmError> {
        let mut body = self.body(request);
        let asked = tool_json::asked_of(&body, request).unwrap_or(tool_json::Asked::CallOrAnswer);
        tool_json::offer_in_words(&mut body, request.tools, asked);
        if way == ToolWay::Schema {
            body["response_format"] = json!({
                "type": "json_schema",
                "json_schema": {"name": "reply", "description": "A call of one tool, or the reply", "schema": tool_json::schema(request.tools, asked)},
            });
        }
        let id = format!("call_json_{}", body["messages"].as_array().map_or(0, Vec::len));
        let reply = self.send(&body, false, &|_| {}, cancel).await?;
        let (content, tool_calls) = tool_json::read(&reply.content, request.tools, &id);
        if !content.is_empty() {
            on_token(&content);
        }
        Ok(LlmReply { content, tool_calls, usage: reply.usage })
    }

    /// The request body for `request` (streamed), before any `extra` fields.
    pub fn body(&self, request: &LlmRequest<'_>) -> Value {
        let mut messages = Vec::new();
        if !request.system.is_empty() {
            messages.push(json!({"role": "system", "content": request.system}));
        }
        for turn in conversation(request) {
            match turn {
                Turn::User(text) => messages.push(json!({"role": "user", "content": text})),
                Turn::Assistant { text, tool_calls } => {
                    let mut message = json!({"role": "assistant", "content": text});
                    if !tool_calls.is_empty() {
                        message["tool_calls"] = tool_calls
                            .iter()
                            .map(|call| {
                                json!({"id": call.id, "type": "function",
                                       "function": {"name": call.name, "arguments": call.arguments.to_string()}})
                            })
                            .collect();
                    }
                    messages.push(message);
                }
                Turn::ToolResults(results) => {
                    for (id, result) in results {
                        messages.push(json!({"role": "tool", "tool_call_id": id, "content": result}));
                    }
                }
            }
        }
        let mut body = json!({
            "model": self.model,
            "messages": messages,
            "stream": true,
            "stream_options": {"include_usage": true},
        });
        if let Some(temperature) = request.temperature {
            body["temperature"] = json!(temperature);
        }
        if let Some(max_tokens) = request.max_tokens.or(self.max_tokens) {
            body["max_tokens"] = json!(max_tokens);
        }
        if !request.tools.is_empty() {
            body["tools"] = request
                .tools
                .iter()
                .map(|tool| json!({"type": "function", "function": {"name": tool.name, "description": tool.description, "parameters": tool.parameters}}))
                .collect();
            if request.require_tool {
                body["tool_choice"] = json!("required");
            }
        }
        if let Some(schema) = request.schema {
            body["response_format"] = json!({
                "type": "json_schema",
                "json_schema": {"name": schema.name, "description": schema.description, "schema": schema.schema, "strict": true},
            });
        }
        body
    }

    /// Sends `body` and reads the streamed reply.
    pub async fn send(
        &self,
        body: &Value,
        structured: bool,
        on_token: TokenSink<'_>,
        cancel: &CancellationToken,
    ) -> Result<LlmReply, LlmError> {
        let url = endpoint(&self.base_url, "chat/completions");
        let mut events = self.transport.post_events(&url, &self.headers, body, cancel).await?;
        let guard = self.transport.reply_guard(body.get("max_tokens").and_then(Value::as_u64).and_then(|t| u32::try_from(t).ok()));
        let mut reply = Reply::default();
        let mut seen = 0;
        loop {
            guard.check(&self.transport, reply.text.len())?;
            let Some(event) = self.transport.next_event(&mut events, cancel).await? else {
                if reply.finish.is_some() {
                    break; // some servers close without [DONE] after the last chunk
                }
                return Err(self.transport.ended_early(seen, reply.text.chars().count()));
            };
            seen += 1;
            if event.data.trim() == "[DONE]" {
                break;
            }
            if event.data.trim().is_empty() {
                continue;
            }
            let chunk: Value = serde_json::from_str(&event.data)
                .map_err(|e| self.transport.error(format!("a streamed chunk is not JSON ({e}): {}", short(&event.data))))?;
            if chunk.get("error").is_some() {
                return Err(self.transport.failed_answer(&event.data));
            }
            reply.take(&chunk, on_token);
        }
        if structured && reply.finish.as_deref() == Some("length") {
            return Err(self.transport.error("the structured answer was cut off at the token limit"));
        }
        reply.finish_into(&self.transport)
    }

    /// Asks `GET {base}/models`: is the endpoint there, and does it take the key?
    pub async fn probe(&self) -> Result<(), String> {
        self.transport.probe(&endpoint(&self.base_url, "models"), &self.headers).await
    }
}

#[async_trait]
impl LlmClient for OpenAiClient {
    async fn complete(&self, request: &LlmRequest<'_>, on_token: TokenSink<'_>, cancel: &CancellationToken) -> Result<LlmReply, LlmError> {
        if request.tools.is_empty() || request.schema.is_some() {
            return self.send(&self.body(request), request.schema.is_some(), on_token, cancel).await;
        }
        loop {
            let way = self.tool_way();
            let reply = match way {
                ToolWay::Native => self.send(&self.body(request), false, on_token, cancel).await,
                way => self.complete_through_json(request, way, on_token, cancel).await,
            };
            let next = match (&reply, way) {
                (Err(LlmError::Failed(why)), ToolWay::Native) if failure::tools_refused(why) => ToolWay::Schema,
                (Err(LlmError::Failed(why)), ToolWay::Schema) if failure::schema_refused(why) => ToolWay::Words,
                _ => return reply,
            };
            self.tool_way.store(next as u8, Ordering::Relaxed);
        }
    }

    fn tools_through_structured_output(&self, _model: Option<&ModelSpec>) -> bool {
        self.tool_way() != ToolWay::Native
    }
}

/// A reply as its chunks arrive. Public, hidden, for the fuzz targets
/// (`fuzz/src/lib.rs`) only.
#[doc(hidden)]
#[derive(Default)]
pub struct Reply {
    text: String,
    /// Tool calls by their index: id, name, argument text so far.
    calls: Vec<(String, String, String)>,
    usage: Option<Usage>,
    finish: Option<String>,
    /// A tool call's index past [`MAX_TOOL_CALLS`], when one came.
    beyond_cap: Option<u64>,
}

/// The most tool calls one reply may make.
pub const MAX_TOOL_CALLS: usize = 128;

impl Reply {
    pub fn take(&mut self, chunk: &Value, on_token: TokenSink<'_>) {
        if let Some(usage) = chunk.get("usage").filter(|u| u.is_object()) {
            let count = |key: &str| usage.get(key).and_then(Value::as_u64).map_or(0, |n| u32::try_from(n).unwrap_or(u32::MAX));
            self.usage = Some(Usage { input_tokens: count("prompt_tokens"), output_tokens: count("completion_tokens"), cost_usd: None });
        }
        let Some(choice) = chunk.pointer("/choices/0") else { return };
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish = Some(reason.to_owned());
        }
        let Some(delta) = choice.get("delta") else { return };
        if let Some(text) = delta.get("content").and_then(Value::as_str).filter(|t| !t.is_empty()) {
            self.text.push_str(text);
            on_token(text);
        }
        for call in delta.get("tool_calls").and_then(Value::as_array).into_iter().flatten() {
            let index = call.get("index").and_then(Value::as_u64).unwrap_or(self.calls.len().saturating_sub(1) as u64);
            // The index comes from the model's server: it sizes nothing past the cap.
            let Some(index) = usize::try_from(index).ok().filter(|i| *i < MAX_TOOL_CALLS) else {
                self.beyond_cap.get_or_insert(index);
                continue;
            };
            while self.calls.len() <= index {
                self.calls.push(Default::default());
            }
            let entry = &mut self.calls[index];
            if let Some(id) = call.get("id").and_then(Value::as_str) {
                entry.0 = id.to_owned();
            }
            if let Some(name) = call.pointer("/function/name").and_then(Value::as_str) {
                entry.1.push_str(name);
            }
            if let Some(arguments) = call.pointer("/function/arguments").and_then(Value::as_str) {
                entry.2.push_str(arguments);
            }
        }
    }

    pub fn finish_into(self, transport: &Transport) -> Result<LlmReply, LlmError> {
        if let Some(index) = self.beyond_cap {
            return Err(transport.error(format!("the reply asked for tool call number {index}; one reply makes at most {MAX_TOOL_CALLS}")));
        }
        let mut tool_calls = Vec::new();
        for (index, (id, name, arguments)) in self.calls.into_iter().enumerate() {
            if name.is_empty() {
                return Err(transport.error(format!("tool call {index} came without a name")));
            }
            let arguments = tool_arguments(&arguments)
                .map_err(|e| transport.error(format!("the arguments of the call of {name} are not JSON ({e}): {}", short(&arguments))))?;
            let id = if id.is_empty() { format!("call_{index}") } else { id };
            tool_calls.push(ToolCall { id, name, arguments });
        }
        Ok(LlmReply { content: self.text, tool_calls, usage: self.usage })
    }
}

/// The start of a long text, for error messages.
pub(crate) fn short(text: &str) -> String {
    let mut short: String = text.chars().take(200).collect();
    if short.len() < text.len() {
        short.push('…');
    }
    short
}

#[cfg(test)]
mod tests {
    use super::*;
    use crewgraph_engine::run::history::Visible;
    use crewgraph_engine::run::{Message, OutputSchema, ToolSpec};
    use crewgraph_engine::AgentId;

    #[test]
    fn the_body_carries_the_conversation_tools_and_schema() {
        let client = OpenAiClient::new("http://127.0.0.1:1/v1/", "m", None, Limits::default()).unwrap().with_max_tokens(Some(64));
        let agent = AgentId::from("a");
        let history = [Message::user("hi")];
        let tools = [ToolSpec { name: "calculator".into(), description: "adds".into(), parameters: json!({"type": "object"}) }];
        let schema = OutputSchema { name: "decision".into(), description: "d".into(), schema: json!({"type": "object"}) };
        let request = LlmRequest {
            tools: &tools,
            temperature: Some(0.5),
            schema: Some(&schema),
            ..LlmRequest::new(&agent, "Be brief.", Visible::all(&history))
        };
        let body = client.body(&request);
        assert_eq!(body["messages"], json!([{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}]));
        assert_eq!((body["model"].as_str(), body["stream"].as_bool(), body["max_tokens"].as_u64()), (Some("m"), Some(true), Some(64)));
        assert_eq!(body["tools"][0]["function"]["name"], "calculator");
        assert_eq!(body["response_format"]["json_schema"]["name"], "decision");
        assert_eq!(body["temperature"], 0.5);
    }

    #[test]
    fn tool_call_deltas_are_assembled_by_index() {
        let mut reply = Reply::default();
        let chunks = [
            json!({"choices": [{"delta": {"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "calculator", "arguments": ""}}]}}]}),
            json!({"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"arguments": "{\"expression\":"}}]}}]}),
            json!({"choices": [{"delta": {"tool_calls": [{"index": 1, "id": "c2", "function": {"name": "current_time"}}]}}]}),
            json!({"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"arguments": " \"1+1\"}"}}]}}]}),
            json!({"choices": [{"delta": {}, "finish_reason": "tool_calls"}]}),
            json!({"choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5}}),
        ];
        for chunk in &chunks {
            reply.take(chunk, &|_| {});
        }
        let transport = Transport::new("t".into(), Limits::default()).unwrap();
        let reply = reply.finish_into(&transport).unwrap();
        assert_eq!(reply.tool_calls.len(), 2);
        assert_eq!(reply.tool_calls[0].arguments, json!({"expression": "1+1"}));
        assert_eq!(reply.tool_calls[1].arguments, json!({}));
        assert_eq!(reply.usage, Some(Usage { input_tokens: 10, output_tokens: 5, cost_usd: None }));
    }

    #[test]
    fn broken_tool_arguments_are_an_error_naming_the_tool() {
        let mut reply = Reply::default();
        reply.take(&json!({"choices": [{"delta": {"tool_calls": [{"index": 0, "id": "c", "function": {"name": "calculator", "arguments": "{oops"}}]}}]}), &|_| {});
        let transport = Transport::new("openai at x".into(), Limits::default()).unwrap();
        let error = reply.finish_into(&transport).unwrap_err().to_string();
        assert!(error.starts_with("openai at x: the arguments of the call of calculator are not JSON"), "{error}");
    }

    #[test]
    fn a_tool_call_index_from_far_away_sizes_nothing_and_is_refused() {
        // Found by fuzzing: an index of 4,000,000,000 made the reader allocate until the process died.
        let mut reply = Reply::default();
        reply.take(
            &json!({"choices": [{"delta": {"tool_calls": [{"index": 4_000_000_000u64, "function": {"name": "x", "arguments": "{}"}}]}}]}),
            &|_| {},
        );
        reply.take(&json!({"usage": {"prompt_tokens": u64::MAX, "completion_tokens": 1}}), &|_| {});
        assert!(reply.calls.is_empty());
        assert_eq!(reply.usage.map(|u| u.input_tokens), Some(u32::MAX), "held at the largest count, not wrapped");
        let transport = Transport::new("openai at x".into(), Limits::default()).unwrap();
        let error = reply.finish_into(&transport).unwrap_err().to_string();
        assert!(error.contains("tool call number 4000000000; one reply makes at most 128"), "{error}");
    }
}
