//! The HTTP providers over real HTTP against the fault server: each case's answers
//! are written as the provider's own wire format by [`Protocol`] (OpenAI's
//! chat-completion chunks, Anthropic's named Messages events) and served by a
//! [`FaultServer`] on a loopback port, so a reply is checked to the byte and the
//! requests the client sent are checked too.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use crewgraph_engine::run::LlmClient;
use crewgraph_llm::{AnthropicClient, Limits, OpenAiClient};
use serde_json::{json, Value};

use super::{conformance, Case, Primed, Subject};
use super::{CUT_PIECES, PLAIN_REPLY, STREAMED_PIECES, TOOL_ANSWER, TOOL_EXPRESSION};
use crate::fault_server::{Answer, FaultServer};

/// The wire format of one HTTP provider.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// `POST {base}/v1/chat/completions`, unnamed server-sent events, `[DONE]`.
    OpenAi,
    /// `POST {base}/v1/messages`, named server-sent events, `message_stop`.
    Anthropic,
}

/// Limits small enough that every fault shows within a second.
pub fn quick() -> Limits {
    Limits {
        connect: Duration::from_secs(1),
        first_byte: Duration::from_secs(2),
        idle: Duration::from_secs(1),
        retries: 2,
        backoff: Duration::from_millis(10),
        max_wait: Duration::from_secs(5),
        reply: Duration::from_secs(10),
    }
}

/// One server-sent event, named or not.
pub fn sse(event: Option<&str>, data: &Value) -> String {
    match event {
        Some(name) => format!("event: {name}\ndata: {data}\n\n"),
        None => format!("data: {data}\n\n"),
    }
}

/// The byte count of the first `n` chunks: where to cut a stream.
pub fn bytes_of(chunks: &[String], n: usize) -> usize {
    chunks[..n].iter().map(String::len).sum()
}

impl Protocol {
    /// A client of this protocol at `server`.
    pub fn client(self, server: &FaultServer, limits: Limits) -> Arc<dyn LlmClient> {
        self.client_at(&server.base_url, limits)
    }

    /// A client of this protocol at `http://HOST:PORT` (OpenAI's under `/v1`).
    pub fn client_at(self, base_url: &str, limits: Limits) -> Arc<dyn LlmClient> {
        match self {
            Protocol::OpenAi => Arc::new(OpenAiClient::new(&format!("{base_url}/v1"), "gpt-test", None, limits).expect("a client")),
            Protocol::Anthropic => Arc::new(AnthropicClient::new(base_url, "claude-test", None, limits).expect("a client")),
        }
    }

    /// The label errors start with: `openai at http://127.0.0.1:PORT/v1`.
    pub fn label(self, server: &FaultServer) -> String {
        match self {
            Protocol::OpenAi => format!("openai at {}/v1", server.base_url),
            Protocol::Anthropic => format!("anthropic at {}", server.base_url),
        }
    }

    /// The events before a reply's content (Anthropic's message start).
    fn opening(self) -> Vec<String> {
        match self {
            Protocol::OpenAi => Vec::new(),
            Protocol::Anthropic => {
                vec![sse(
                    Some("message_start"),
                    &json!({"type": "message_start", "message": {"usage": {"input_tokens": 7, "output_tokens": 1}}}),
                )]
            }
        }
    }

    /// The events after a reply's content: its stop reason, usage and end.
    fn closing(self, stop: &str, output_tokens: usize) -> Vec<String> {
        match self {
            Protocol::OpenAi => vec![
                sse(None, &json!({"choices": [{"index": 0, "delta": {}, "finish_reason": stop}]})),
                sse(None, &json!({"choices": [], "usage": {"prompt_tokens": 7, "completion_tokens": output_tokens}})),
                "data: [DONE]\n\n".to_owned(),
            ],
            Protocol::Anthropic => vec![
                sse(
                    Some("message_delta"),
                    &json!({"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"output_tokens": output_tokens}}),
                ),
                sse(Some("message_stop"), &json!({"type": "message_stop"})),
            ],
        }
    }

    /// A stream of text `pieces`: one chunk each, then the stop and usage. The
    /// chunks of the text start at [`Protocol::text_start`].
    pub fn stream(self, pieces: &[&str]) -> Vec<String> {
        let mut chunks = self.opening();
        match self {
            Protocol::OpenAi => {
                for piece in pieces {
                    chunks.push(sse(None, &json!({"choices": [{"index": 0, "delta": {"content": piece}}]})));
                }
                chunks.extend(self.closing("stop", pieces.len()));
            }
            Protocol::Anthropic => {
                chunks.push(sse(
                    Some("content_block_start"),
                    &json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
                ));
                for piece in pieces {
                    chunks.push(sse(
                        Some("content_block_delta"),
                        &json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": piece}}),
                    ));
                }
                chunks.push(sse(Some("content_block_stop"), &json!({"type": "content_block_stop", "index": 0})));
                chunks.extend(self.closing("end_turn", pieces.len()));
            }
        }
        chunks
    }

    /// Where the text's chunks start in [`Protocol::stream`]'s chunks.
    pub fn text_start(self) -> usize {
        match self {
            Protocol::OpenAi => 0,
            Protocol::Anthropic => 2,
        }
    }

    /// A stream calling tool `name` (call `id`) with `arguments` sent in two pieces.
    fn tool_call(self, id: &str, name: &str, arguments: &Value) -> Vec<String> {
        let text = arguments.to_string();
        let (head, tail) = text.split_at(text.len() / 2);
        let mut chunks = self.opening();
        match self {
            Protocol::OpenAi => {
                let call = |value: Value| sse(None, &json!({"choices": [{"index": 0, "delta": {"tool_calls": [value]}}]}));
                chunks.push(call(json!({"index": 0, "id": id, "type": "function", "function": {"name": name, "arguments": ""}})));
                chunks.push(call(json!({"index": 0, "function": {"arguments": head}})));
                chunks.push(call(json!({"index": 0, "function": {"arguments": tail}})));
                chunks.extend(self.closing("tool_calls", 9));
            }
            Protocol::Anthropic => {
                chunks.push(sse(
                    Some("content_block_start"),
                    &json!({"type": "content_block_start", "index": 0,
                            "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}}),
                ));
                for piece in [head, tail] {
                    chunks.push(sse(
                        Some("content_block_delta"),
                        &json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": piece}}),
                    ));
                }
                chunks.push(sse(Some("content_block_stop"), &json!({"type": "content_block_stop", "index": 0})));
                chunks.extend(self.closing("tool_use", 9));
            }
        }
        chunks
    }

    /// A structured answer, as the protocol gives one: OpenAI's `json_schema` text,
    /// Anthropic's forced tool (named after the schema).
    fn structured(self, schema: &str, answer: &Value) -> Vec<String> {
        match self {
            Protocol::OpenAi => {
                let text = answer.to_string();
                let (head, tail) = text.split_at(text.len() / 2);
                self.stream(&[head, tail])
            }
            Protocol::Anthropic => self.tool_call("toolu_decision", schema, answer),
        }
    }

    /// The result the request `body` sends back for the tool call `id`.
    pub fn tool_result(self, body: &Value, id: &str) -> Option<String> {
        let messages = body["messages"].as_array()?;
        match self {
            Protocol::OpenAi => messages
                .iter()
                .find(|m| m["role"] == "tool" && m["tool_call_id"] == id)
                .and_then(|m| m["content"].as_str())
                .map(str::to_owned),
            Protocol::Anthropic => messages
                .iter()
                .filter(|m| m["role"] == "user")
                .flat_map(|m| m["content"].as_array().into_iter().flatten())
                .find(|block| block["type"] == "tool_result" && block["tool_use_id"] == id)
                .and_then(|block| block["content"].as_str())
                .map(str::to_owned),
        }
    }

    /// An error answer's body in the provider's shape.
    pub fn error_body(self, kind: &str, message: &str) -> String {
        match self {
            Protocol::OpenAi => json!({"error": {"message": message, "type": kind}}).to_string(),
            Protocol::Anthropic => json!({"type": "error", "error": {"type": kind, "message": message}}).to_string(),
        }
    }

    /// An error reported mid-stream, in the provider's shape.
    pub fn error_event(self, message: &str) -> String {
        match self {
            Protocol::OpenAi => sse(None, &json!({"error": {"message": message, "type": "server_error"}})),
            Protocol::Anthropic => sse(Some("error"), &json!({"type": "error", "error": {"type": "overloaded_error", "message": message}})),
        }
    }

    /// A chunk whose data is not JSON, and what the error calls such a chunk.
    pub fn broken_chunk(self) -> (String, &'static str) {
        match self {
            Protocol::OpenAi => ("data: {\"choices\": [oops\n\n".to_owned(), "a streamed chunk is not JSON"),
            Protocol::Anthropic => ("event: content_block_delta\ndata: {\"delta\": oops\n\n".to_owned(), "a streamed event is not JSON"),
        }
    }

    /// The answers the fault server gives for `case`, in order.
    fn answers(self, case: Case) -> Vec<Answer> {
        match case {
            Case::Plain => vec![Answer::stream(self.stream(&[PLAIN_REPLY]))],
            Case::Streamed => vec![Answer::stream(self.stream(&STREAMED_PIECES))],
            Case::ToolCallRoundTrip => vec![
                Answer::stream(self.tool_call("call_sum_1", "calculator", &json!({"expression": TOOL_EXPRESSION}))),
                Answer::stream(self.stream(&[TOOL_ANSWER])),
            ],
            Case::StructuredOutput => vec![Answer::stream(self.structured("decision", &super::structured_answer()))],
            // The first piece, then silence with the socket held open: cancelled mid-reply.
            Case::Cancellation => {
                let chunks = self.stream(&["Once upon a time", " there was a lighthouse"]);
                vec![Answer::Trickle { chunks: chunks[..=self.text_start()].to_vec() }]
            }
            Case::RetryAfter => vec![
                Answer::status_with(429, &[("Retry-After", "1")], &self.error_body("rate_limit_error", "slow down")),
                Answer::stream(self.stream(&[PLAIN_REPLY])),
            ],
            // Two whole pieces, then half of the third, and the socket closed.
            Case::CutStream => {
                let chunks = self.stream(&CUT_PIECES);
                let third = self.text_start() + 2;
                let cut = bytes_of(&chunks, third) + chunks[third].len() / 2;
                vec![Answer::cut_stream(chunks, cut)]
            }
        }
    }

    /// A client of this protocol primed for `case` at a fault server of its own.
    async fn prime(self, case: Case) -> Primed {
        let server = Arc::new(FaultServer::start(self.answers(case)).await);
        let mut primed = Primed::new(self.client(&server, quick()), true);
        primed.reports_usage = true;
        primed.failure_words = Some("the connection closed before the reply was complete (9 characters received)".to_owned());
        primed.wire = Some((server, self));
        primed
    }
}

/// [`OpenAiClient`] at the fault server.
pub struct OpenAiAtFaultServer;

#[async_trait]
impl Subject for OpenAiAtFaultServer {
    async fn prime(&self, case: Case) -> Primed {
        Protocol::OpenAi.prime(case).await
    }
}

/// [`AnthropicClient`] at the fault server.
pub struct AnthropicAtFaultServer;

#[async_trait]
impl Subject for AnthropicAtFaultServer {
    async fn prime(&self, case: Case) -> Primed {
        Protocol::Anthropic.prime(case).await
    }
}

conformance! { openai = OpenAiAtFaultServer;
    plain, streamed, tool_call_round_trip, structured_output, cancellation, retry_after, cut_stream,
}

conformance! { anthropic = AnthropicAtFaultServer;
    plain, streamed, tool_call_round_trip, structured_output, cancellation, retry_after, cut_stream,
}
