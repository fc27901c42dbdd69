//! What each HTTP provider puts on the wire that the other does not: where its key
//! goes and which headers and body fields it sends, checked at the fault server.
//! Everything both providers share — the conformance cases and the HTTP faults —
//! is in `conformance/`, written once for both.

use std::time::Duration;

use crewgraph_engine::run::history::Visible;
use crewgraph_engine::run::{LlmClient, LlmRequest, Message};
use crewgraph_engine::AgentId;
use crewgraph_llm::keys::Secret;
use crewgraph_llm::{AnthropicClient, OpenAiClient};
use tokio_util::sync::CancellationToken;

use crate::conformance::wire::{quick, Protocol};
use crate::conformance::{ask, bounded, Outcome};
use crate::fault_server::{Answer, FaultServer};

/// One turn of a writer asked to say hello.
async fn say_hello(client: &dyn LlmClient) -> Outcome {
    let agent = AgentId::from("writer");
    let history = [Message::user("Say hello.")];
    ask(client, &LlmRequest::new(&agent, "Be brief.", Visible::all(&history)), &CancellationToken::new()).await
}

const LIMIT: Duration = Duration::from_secs(10);

#[tokio::test]
async fn openai_sends_the_key_as_a_bearer_token_to_chat_completions() {
    bounded(LIMIT, async {
        let server = FaultServer::start(vec![Answer::stream(Protocol::OpenAi.stream(&["hi"]))]).await;
        let key = Secret::new("sk-test-123");
        let client = OpenAiClient::new(&server.url("/v1/"), "gpt-test", Some(&key), quick()).unwrap();
        assert_eq!(say_hello(&client).await.reply().content, "hi");
        let requests = server.requests();
        let request = &requests[0];
        assert_eq!((request.method.as_str(), request.path.as_str()), ("POST", "/v1/chat/completions"));
        assert_eq!(request.header("authorization"), Some("Bearer sk-test-123"));
        assert_eq!(request.header("content-type"), Some("application/json"));
        let body = request.json();
        assert_eq!((body["model"].as_str(), body["stream"].as_bool()), (Some("gpt-test"), Some(true)));
        assert_eq!(body["stream_options"]["include_usage"], true);
    })
    .await;
}

#[tokio::test]
async fn openai_keeps_a_base_url_query_after_the_path() {
    bounded(LIMIT, async {
        let server = FaultServer::start(vec![Answer::stream(Protocol::OpenAi.stream(&["Hi"]))]).await;
        let client = OpenAiClient::new(&server.url("/openai/deployments/d?api-version=2024-01-01"), "m", None, quick()).unwrap();
        assert_eq!(say_hello(&client).await.reply().content, "Hi");
        assert_eq!(server.requests()[0].path, "/openai/deployments/d/chat/completions?api-version=2024-01-01");
    })
    .await;
}

#[tokio::test]
async fn anthropic_sends_the_key_as_x_api_key_with_the_api_version() {
    bounded(LIMIT, async {
        let server = FaultServer::start(vec![Answer::stream(Protocol::Anthropic.stream(&["hi"]))]).await;
        let key = Secret::new("sk-ant-test-456");
        let client = AnthropicClient::new(&format!("{}/", server.base_url), "claude-test", Some(&key), quick()).unwrap();
        assert_eq!(say_hello(&client).await.reply().content, "hi");
        let requests = server.requests();
        let request = &requests[0];
        assert_eq!((request.method.as_str(), request.path.as_str()), ("POST", "/v1/messages"));
        assert_eq!(request.header("x-api-key"), Some("sk-ant-test-456"));
        assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
        assert_eq!(request.header("authorization"), None, "the key goes in x-api-key only");
        let body = request.json();
        assert_eq!((body["model"].as_str(), body["stream"].as_bool()), (Some("claude-test"), Some(true)));
        assert_eq!(body["system"], "Be brief.");
    })
    .await;
}
