//! The providers against a real model: [`OpenAiClient`] and [`AnthropicClient`] at
//! the llama-servers `llama_server.rs` starts once for the whole binary (the app's
//! own, and one given a chat template that can call tools), and the local model
//! ([`LocalModel`]), which starts its own. A 135M model's words vary, so replies are
//! checked for shape; the tool and structured cases put worked examples before the
//! question ([`Primed::coaching`]) and ask for temperature 0, because a model this
//! small only calls a tool, with JSON that parses, after seeing it done.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use async_trait::async_trait;
use crewgraph_engine::run::{LlmClient, LlmError, LlmReply, LlmRequest, Message, Role, TokenSink, ToolCall};
use crewgraph_engine::AgentId;
use crewgraph_llm::{LocalModel, OpenAiClient};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::{calling, conformance, Case, Primed, Subject};
use crate::llama_server::{anthropic_at, app_server, openai_at, tool_server, CASE_LIMIT};

/// A history where `agent` used the calculator twice, answering in words after a
/// bare result and calling it again when a result came with a new question. Both
/// patterns are needed: the model copies them.
fn worked_example(agent: &AgentId) -> Vec<Message> {
    let first = ToolCall { id: "call_example_1".into(), name: "calculator".into(), arguments: json!({"expression": "7*6"}) };
    let second = ToolCall { id: "call_example_2".into(), name: "calculator".into(), arguments: json!({"expression": "9-4"}) };
    vec![
        Message::user("What is 7*6?"),
        calling(agent, &first),
        Message::tool(agent, &first, "42"),
        Message::agent(agent, "7*6 is 42."),
        Message::user("What is 9-4?"),
        calling(agent, &second),
        Message::tool(agent, &second, "5"),
    ]
}

/// Two earlier decisions made through the forced `decision` tool: llama-server lets
/// text come before a required call, and with one example the model still wrote
/// text first.
fn earlier_decisions(agent: &AgentId) -> Vec<Message> {
    let decide = |id: &str, next: &str, reason: &str| ToolCall {
        id: id.into(),
        name: "decision".into(),
        arguments: json!({"next": next, "reason": reason}),
    };
    let approved = decide("call_earlier_1", "writer", "the draft is approved");
    let review = decide("call_earlier_2", "editor", "a review was asked for");
    vec![
        Message::user("The editor approved the draft. Who should go next, the editor or the writer?"),
        calling(agent, &approved),
        Message::tool(agent, &approved, "ok"),
        Message::user("The writer asked for a review. Who should go next, the editor or the writer?"),
        calling(agent, &review),
        Message::tool(agent, &review, "ok"),
    ]
}

/// A real model's subject: the client, nothing scripted, usage reported.
fn real(client: Arc<dyn LlmClient>, coaching: Vec<Message>) -> Primed {
    let mut primed = Primed::new(client, false);
    primed.reports_usage = true;
    primed.coaching = coaching;
    primed
}

/// [`OpenAiClient`] whose turn asked by the person must call a tool (`tool_choice:
/// required`, which llama.cpp holds to the tool's schema by a grammar); the turn
/// after the tool's result is left free. Without it the 135M model often answers in
/// text. Only the request body gains the field; the reply is read as always.
struct FirstTurnCallsATool(OpenAiClient);

#[async_trait]
impl LlmClient for FirstTurnCallsATool {
    async fn complete(&self, request: &LlmRequest<'_>, on_token: TokenSink<'_>, cancel: &CancellationToken) -> Result<LlmReply, LlmError> {
        let mut body = self.0.body(request);
        if request.messages.iter().last().is_some_and(|m| m.role == Role::User) {
            body["tool_choice"] = json!("required");
        }
        self.0.send(&body, request.schema.is_some(), on_token, cancel).await
    }
}

/// [`OpenAiClient`] at llama-server.
pub struct OpenAiAtLlamaServer;

#[async_trait]
impl Subject for OpenAiAtLlamaServer {
    async fn prime(&self, case: Case) -> Primed {
        let agent = AgentId::from("accountant");
        match case {
            Case::ToolCallRoundTrip => real(Arc::new(FirstTurnCallsATool(openai_at(tool_server(), 64))), worked_example(&agent)),
            Case::StructuredOutput => real(Arc::new(openai_at(app_server(), 128)), Vec::new()),
            Case::Cancellation => real(Arc::new(openai_at(app_server(), 256)), Vec::new()),
            _ => real(Arc::new(openai_at(app_server(), 48)), Vec::new()),
        }
    }

    fn limit(&self) -> Duration {
        CASE_LIMIT
    }
}

/// [`AnthropicClient`] at llama-server (its `/v1/messages`).
pub struct AnthropicAtLlamaServer;

#[async_trait]
impl Subject for AnthropicAtLlamaServer {
    async fn prime(&self, case: Case) -> Primed {
        let client = |base_url: &str, max_tokens| Arc::new(anthropic_at(base_url, max_tokens));
        match case {
            // Anthropic's client forces no ordinary tool (only a schema's): the call is
            // the model's own choice after the worked example.
            Case::ToolCallRoundTrip => real(client(tool_server(), 64), worked_example(&AgentId::from("accountant"))),
            // A forced tool needs the tool template (the app's server ignores one,
            // `llama_server.rs` checks the error that gives).
            Case::StructuredOutput => real(client(tool_server(), 96), earlier_decisions(&AgentId::from("router"))),
            Case::Cancellation => real(client(app_server(), 256), Vec::new()),
            _ => real(client(app_server(), 48), Vec::new()),
        }
    }

    fn limit(&self) -> Duration {
        CASE_LIMIT
    }
}

/// The local model: one [`LocalModel`] (one server process) for every case, living
/// on a runtime of its own.
pub struct Local;

impl Local {
    fn model() -> Arc<LocalModel> {
        static MODEL: OnceLock<Arc<LocalModel>> = OnceLock::new();
        MODEL
            .get_or_init(|| {
                let model = LocalModel::new();
                if let Err(missing) = model.available() {
                    panic!("{missing}");
                }
                Arc::new(model)
            })
            .clone()
    }
}

#[async_trait]
impl Subject for Local {
    async fn prime(&self, _case: Case) -> Primed {
        real(Local::model(), Vec::new())
    }

    fn limit(&self) -> Duration {
        CASE_LIMIT
    }

    fn home(&self) -> Option<&'static tokio::runtime::Runtime> {
        static HOME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
        Some(HOME.get_or_init(|| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .thread_name("local-model-cases")
                .enable_all()
                .build()
                .expect("a runtime for the local model's cases")
        }))
    }
}

conformance! { openai_at_llama_server = OpenAiAtLlamaServer;
    plain, streamed, tool_call_round_trip, structured_output, cancellation,
    retry_after: "llama-server never asks to wait: the same client meets a 429 at the fault server",
    cut_stream: "llama-server cannot cut its stream on demand: the same client meets a cut at the fault server",
}

conformance! { anthropic_at_llama_server = AnthropicAtLlamaServer;
    plain, streamed, tool_call_round_trip, structured_output, cancellation,
    retry_after: "llama-server never asks to wait: the same client meets a 429 at the fault server",
    cut_stream: "llama-server cannot cut its stream on demand: the same client meets a cut at the fault server",
}

conformance! { local = Local;
    plain, streamed,
    tool_call_round_trip: "the local model calls no tools: SmolLM2's chat template has no tool format (local.rs)",
    structured_output, cancellation,
    retry_after: "the local model's own server never asks to wait; its HTTP is openai's, checked at the fault server",
    cut_stream: "a real server's stream cannot be cut on demand; a killed server is started again (llama_server.rs)",
}
