//! Anthropic's Messages API (`POST {base}/v1/messages`), streamed as named
//! server-sent events, with tool use (`tool_use` blocks, their input streamed as
//! JSON pieces) and structured output by a forced tool: the model must call a tool
//! whose input schema is the answer's, and the reply is that input.

use async_trait::async_trait;
use crewgraph_engine::run::{LlmClient, LlmError, LlmReply, LlmRequest, TokenSink, ToolCall, Usage};
use reqwest::header::{HeaderMap, HeaderValue};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use crate::chat::{conversation, tool_arguments, Turn};
use crate::http::{endpoint, Limits, Transport};
use crate::keys::Secret;
use crate::openai::short;
use crate::settings::masked_url;

/// The API version sent with every request.
const VERSION: &str = "2023-06-01";
/// Anthropic requires a reply limit; this one when the model sets none.
pub const DEFAULT_MAX_TOKENS: u32 = 4096;

/// A client of one model at one Messages API endpoint.
#[derive(Clone, Debug)]
pub struct AnthropicClient {
    transport: Transport,
    /// `https://api.anthropic.com`, without a trailing slash.
    base_url: String,
    model: String,
    headers: HeaderMap,
    max_tokens: u32,
}

impl AnthropicClient {
    /// A client of `model` at `base_url`, sending `key` (if any) as `x-api-key`.
    pub fn new(base_url: &str, model: &str, key: Option<&Secret>, limits: Limits) -> Result<Self, LlmError> {
        let base_url = base_url.trim_end_matches('/').to_owned();
        let transport = Transport::new(format!("anthropic at {}", masked_url(&base_url)), limits)?.hiding(key);
        let mut headers = HeaderMap::new();
        headers.insert("anthropic-version", HeaderValue::from_static(VERSION));
        if let Some(key) = key {
            let mut value =
                HeaderValue::from_str(key.expose()).map_err(|_| transport.error("the API key holds characters a header cannot carry"))?;
            value.set_sensitive(true);
            headers.insert("x-api-key", value);
        }
        Ok(AnthropicClient { transport, base_url, model: model.to_owned(), headers, max_tokens: DEFAULT_MAX_TOKENS })
    }

    /// Caps each reply at `max_tokens` (None = 4096).
    pub fn with_max_tokens(mut self, max_tokens: Option<u32>) -> Self {
        self.max_tokens = max_tokens.unwrap_or(DEFAULT_MAX_TOKENS);
        self
    }

    /// The request body for `request` (streamed).
    pub fn body(&self, request: &LlmRequest<'_>) -> Value {
        let mut messages: Vec<Value> = Vec::new();
        for turn in conversation(request) {
            let (role, blocks) = match turn {
                Turn::User(text) => ("user", vec![json!({"type": "text", "text": text})]),
                Turn::Assistant { text, tool_calls } => {
                    let mut blocks = Vec::new();
                    if !text.is_empty() {
                        blocks.push(json!({"type": "text", "text": text}));
                    }
                    for call in tool_calls {
                        blocks.push(json!({"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments}));
                    }
                    ("assistant", blocks)
                }
                Turn::ToolResults(results) => (
                    "user",
                    results.into_iter().map(|(id, result)| json!({"type": "tool_result", "tool_use_id": id, "content": result})).collect(),
                ),
            };
            if blocks.is_empty() {
                continue;
            }
            // Tool results and the text after them are one user turn.
            match messages.last_mut() {
                Some(last) if last["role"] == role => {
                    if let Some(content) = last["content"].as_array_mut() {
                        content.extend(blocks);
                    }
                }
                _ => messages.push(json!({"role": role, "content": blocks})),
            }
        }
        let max_tokens = request.max_tokens.unwrap_or(self.max_tokens);
        let mut body = json!({"model": self.model, "max_tokens": max_tokens, "messages": messages, "stream": true});
        if !request.system.is_empty() {
            body["system"] = json!(request.system);
        }
        if let Some(temperature) = request.temperature {
            body["temperature"] = json!(temperature);
        }
        let mut tools: Vec<Value> = request
            .tools
            .iter()
            .map(|tool| json!({"name": tool.name, "description": tool.description, "input_schema": tool.parameters}))
            .collect();
        if let Some(schema) = request.schema {
            tools.push(json!({"name": schema.name, "description": schema.description, "input_schema": schema.schema}));
            body["tool_choice"] = json!({"type": "tool", "name": schema.name});
        } else if request.require_tool && !tools.is_empty() {
            body["tool_choice"] = json!({"type": "any"});
        }
        if !tools.is_empty() {
            body["tools"] = Value::Array(tools);
        }
        body
    }

    /// Asks `GET {base}/v1/models`: is the endpoint there, and does it take the key?
    pub async fn probe(&self) -> Result<(), String> {
        self.transport.probe(&endpoint(&self.base_url, "v1/models"), &self.headers).await
    }
}

#[async_trait]
impl LlmClient for AnthropicClient {
    async fn complete(&self, request: &LlmRequest<'_>, on_token: TokenSink<'_>, cancel: &CancellationToken) -> Result<LlmReply, LlmError> {
        let url = endpoint(&self.base_url, "v1/messages");
        let body = self.body(request);
        let mut events = self.transport.post_events(&url, &self.headers, &body, cancel).await?;
        let guard = self.transport.reply_guard(body.get("max_tokens").and_then(Value::as_u64).and_then(|t| u32::try_from(t).ok()));
        let mut reply = Reply::default();
        let mut seen = 0;
        loop {
            guard.check(&self.transport, reply.text.len())?;
            let Some(event) = self.transport.next_event(&mut events, cancel).await? else {
                if reply.stop.is_some() {
                    break; // closed right after the last event that matters
                }
                return Err(self.transport.ended_early(seen, reply.text.chars().count()));
            };
            seen += 1;
            if event.data.trim().is_empty() {
                continue;
            }
            let data: Value = serde_json::from_str(&event.data)
                .map_err(|e| self.transport.error(format!("a streamed event is not JSON ({e}): {}", short(&event.data))))?;
            let kind = if event.event.is_empty() || event.event == "message" { data["type"].as_str().unwrap_or("") } else { &event.event };
            match kind {
                "error" => return Err(self.transport.failed_answer(&event.data)),
                "message_stop" => break,
                _ => reply.take(kind, &data, on_token),
            }
        }
        let structured = request.schema.map(|s| s.name.as_str());
        if structured.is_some() && reply.stop.as_deref() == Some("max_tokens") {
            return Err(self.transport.error("the structured answer was cut off at the token limit"));
        }
        reply.finish_into(&self.transport, structured)
    }
}

/// A content block as it streams.
enum Block {
    Text,
    ToolUse { id: String, name: String, input: String },
}

/// A reply as its events arrive. Public, hidden, for the fuzz targets
/// (`fuzz/src/lib.rs`) only.
#[doc(hidden)]
#[derive(Default)]
pub struct Reply {
    text: String,
    blocks: Vec<Block>,
    usage: Usage,
    stop: Option<String>,
}

impl Reply {
    pub fn take(&mut self, kind: &str, data: &Value, on_token: TokenSink<'_>) {
        // A count past u32::MAX is held at it, never wrapped or overflowed.
        let count = |v: &Value, key: &str| v.get(key).and_then(Value::as_u64).map_or(0, |n| u32::try_from(n).unwrap_or(u32::MAX));
        match kind {
            "message_start" => {
                if let Some(usage) = data.pointer("/message/usage") {
                    // Cached prompt tokens are input too.
                    self.usage.input_tokens = count(usage, "input_tokens").saturating_add(count(usage, "cache_read_input_tokens"));
                    self.usage.output_tokens = count(usage, "output_tokens");
                }
            }
            "content_block_start" => {
                let block = &data["content_block"];
                self.blocks.push(match block["type"].as_str() {
                    Some("tool_use") => Block::ToolUse {
                        id: block["id"].as_str().unwrap_or("").to_owned(),
                        name: block["name"].as_str().unwrap_or("").to_owned(),
                        input: String::new(),
                    },
                    _ => Block::Text,
                });
            }
            "content_block_delta" => {
                let delta = &data["delta"];
                match (delta["type"].as_str(), self.blocks.last_mut()) {
                    (Some("text_delta"), _) => {
                        if let Some(text) = delta["text"].as_str().filter(|t| !t.is_empty()) {
                            self.text.push_str(text);
                            on_token(text);
                        }
                    }
                    (Some("input_json_delta"), Some(Block::ToolUse { input, .. })) => {
                        input.push_str(delta["partial_json"].as_str().unwrap_or(""));
                    }
                    _ => {}
                }
            }
            "message_delta" => {
                if let Some(reason) = data.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    self.stop = Some(reason.to_owned());
                }
                if let Some(usage) = data.get("usage") {
                    self.usage.output_tokens = count(usage, "output_tokens");
                }
            }
            _ => {} // ping, content_block_stop
        }
    }

    /// The reply; under a forced tool (`structured`), that tool's input as the text.
    pub fn finish_into(self, transport: &Transport, structured: Option<&str>) -> Result<LlmReply, LlmError> {
        let mut tool_calls = Vec::new();
        let mut answer = None;
        for (index, block) in self.blocks.into_iter().enumerate() {
            let Block::ToolUse { id, name, input } = block else { continue };
            if name.is_empty() {
                return Err(transport.error(format!("tool call {index} came without a name")));
            }
            let arguments = tool_arguments(&input)
                .map_err(|e| transport.error(format!("the input of the call of {name} is not JSON ({e}): {}", short(&input))))?;
            if Some(name.as_str()) == structured {
                answer = Some(arguments.to_string());
                continue;
            }
            let id = if id.is_empty() { format!("call_{index}") } else { id };
            tool_calls.push(ToolCall { id, name, arguments });
        }
        let content = match (structured, answer) {
            (Some(_), Some(answer)) => answer,
            (Some(name), None) => return Err(transport.error(format!("the model did not answer through the {name} tool as it was told"))),
            (None, _) => self.text,
        };
        Ok(LlmReply { content, tool_calls, usage: Some(self.usage) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crewgraph_engine::run::history::Visible;
    use crewgraph_engine::run::{Message, OutputSchema};
    use crewgraph_engine::AgentId;

    #[test]
    fn tool_results_and_following_text_are_one_user_turn_and_the_schema_is_a_forced_tool() {
        let client = AnthropicClient::new("http://127.0.0.1:1", "m", None, Limits::default()).unwrap();
        let me = AgentId::from("a");
        let call = ToolCall { id: "t1".into(), name: "current_time".into(), arguments: json!({}) };
        let mut asked = Message::agent(&me, "");
        asked.tool_calls = vec![call.clone()];
        let history = [Message::user("time?"), asked, Message::tool(&me, &call, "noon"), Message::user("and?")];
        let schema = OutputSchema { name: "decision".into(), description: "d".into(), schema: json!({"type": "object"}) };
        let request = LlmRequest { schema: Some(&schema), ..LlmRequest::new(&me, "sys", Visible::all(&history)) };
        let body = client.body(&request);
        assert_eq!(body["system"], "sys");
        assert_eq!(body["max_tokens"], 4096);
        let messages = body["messages"].as_array().unwrap();
        assert_eq!(messages.len(), 3, "{messages:?}");
        assert_eq!(messages[1]["content"][0]["type"], "tool_use");
        assert_eq!(messages[2]["content"][0]["type"], "tool_result");
        assert_eq!(messages[2]["content"][1]["text"], "and?");
        assert_eq!(body["tool_choice"], json!({"type": "tool", "name": "decision"}));
    }

    #[test]
    fn a_forced_tool_input_is_the_reply_and_other_tools_are_calls() {
        let mut reply = Reply::default();
        let events = [
            ("message_start", json!({"message": {"usage": {"input_tokens": 3, "cache_read_input_tokens": 40, "output_tokens": 0}}})),
            ("content_block_start", json!({"content_block": {"type": "tool_use", "id": "x", "name": "decision"}})),
            ("content_block_delta", json!({"delta": {"type": "input_json_delta", "partial_json": "{\"next\": "}})),
            ("content_block_delta", json!({"delta": {"type": "input_json_delta", "partial_json": "\"b\"}"}})),
            ("message_delta", json!({"delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 9}})),
        ];
        for (kind, data) in &events {
            reply.take(kind, data, &|_| {});
        }
        let transport = Transport::new("t".into(), Limits::default()).unwrap();
        let reply = reply.finish_into(&transport, Some("decision")).unwrap();
        assert_eq!(reply.content, r#"{"next":"b"}"#);
        assert!(reply.tool_calls.is_empty());
        assert_eq!(reply.usage, Some(Usage { input_tokens: 43, output_tokens: 9, cost_usd: None }));
    }

    #[test]
    fn a_nameless_tool_call_and_huge_counts_are_handled() {
        // Both found by fuzzing: a call named '' went on to the run, and the sum of
        // two counts near u32::MAX overflowed.
        let mut reply = Reply::default();
        reply.take(
            "message_start",
            &json!({"message": {"usage": {"input_tokens": 4_294_967_295u64, "cache_read_input_tokens": 1}}}),
            &|_| {},
        );
        assert_eq!(reply.usage.input_tokens, u32::MAX);
        reply.take("content_block_start", &json!({"content_block": {"type": "tool_use", "id": "x"}}), &|_| {});
        let transport = Transport::new("anthropic at x".into(), Limits::default()).unwrap();
        let error = reply.finish_into(&transport, None).unwrap_err().to_string();
        assert!(error.contains("tool call 0 came without a name"), "{error}");
    }
}
