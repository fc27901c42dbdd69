//! The HTTP providers ([`OpenAiClient`], [`AnthropicClient`]) against servers that
//! fail: 5xx and 429 answers (retried, `Retry-After` honoured or refused when too
//! long), refused keys, bad requests, streams cut halfway, streams that go silent,
//! servers that never answer, malformed chunks and error events mid-stream, and
//! cancellation while waiting. Each case scripts a [`FaultServer`] (a hand-written
//! HTTP/1.1 server on a loopback port, `fault_server.rs`), calls the client
//! through the engine's `LlmClient` trait, and checks the error's words, what reached
//! `on_token`, how many requests the server saw and how long it all took. Limits are
//! small (milliseconds), and every case runs under a 10 s timeout, so a hang fails
//! instead of blocking the suite.

use std::future::Future;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::fault_server::{Answer, FaultServer};
use crewgraph_engine::run::history::Visible;
use crewgraph_engine::run::{LlmClient, LlmError, LlmReply, LlmRequest, Message, Usage};
use crewgraph_engine::AgentId;
use crewgraph_llm::keys::Secret;
use crewgraph_llm::{AnthropicClient, Limits, OpenAiClient};
use serde_json::json;
use tokio_util::sync::CancellationToken;

/// Limits small enough that every fault shows within a second.
fn quick() -> Limits {
    Limits {
        connect: Duration::from_secs(1),
        first_byte: Duration::from_secs(2),
        idle: Duration::from_secs(1),
        retries: 2,
        backoff: Duration::from_millis(10),
        max_wait: Duration::from_secs(5),
    }
}

/// Runs a case, failing it if it takes more than 10 s (a hang is a failure too).
async fn bounded<F: Future>(case: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(10), case).await.expect("the case did not end within 10 s")
}

/// What one call returned, the pieces it passed to `on_token`, and how long it took.
struct Outcome {
    result: Result<LlmReply, LlmError>,
    pieces: Vec<String>,
    took: Duration,
}

impl Outcome {
    /// The failure's text (panics on success or on another kind of error).
    fn failure(&self) -> &str {
        match &self.result {
            Err(LlmError::Failed(text)) => text,
            other => panic!("expected a failure, got {other:?}"),
        }
    }

    fn reply(&self) -> &LlmReply {
        self.result.as_ref().unwrap_or_else(|e| panic!("expected a reply, got the error: {e}"))
    }
}

/// One turn of a writer asked to say hello, with `cancel`.
async fn ask_with(client: &dyn LlmClient, cancel: &CancellationToken) -> Outcome {
    let agent = AgentId::from("writer");
    let history = [Message::user("Say hello.")];
    let request = LlmRequest::new(&agent, "Be brief.", Visible::all(&history));
    let pieces = Mutex::new(Vec::new());
    let on_token = |piece: &str| pieces.lock().unwrap().push(piece.to_owned());
    let started = Instant::now();
    let result = client.complete(&request, &on_token, cancel).await;
    Outcome { result, pieces: pieces.into_inner().unwrap(), took: started.elapsed() }
}

async fn ask(client: &dyn LlmClient) -> Outcome {
    ask_with(client, &CancellationToken::new()).await
}

fn openai(server: &FaultServer, limits: Limits) -> OpenAiClient {
    OpenAiClient::new(&server.url("/v1"), "gpt-test", None, limits).unwrap()
}

fn anthropic(server: &FaultServer, limits: Limits) -> AnthropicClient {
    AnthropicClient::new(&server.base_url, "claude-test", None, limits).unwrap()
}

/// An OpenAI chat-completions stream of `pieces`: one chunk each, then the finish
/// reason, the usage and `[DONE]`.
fn openai_stream(pieces: &[&str]) -> Vec<String> {
    let mut chunks: Vec<String> =
        pieces.iter().map(|piece| sse(None, &json!({"choices": [{"index": 0, "delta": {"content": piece}}]}))).collect();
    chunks.push(sse(None, &json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})));
    chunks.push(sse(None, &json!({"choices": [], "usage": {"prompt_tokens": 7, "completion_tokens": pieces.len()}})));
    chunks.push("data: [DONE]\n\n".to_owned());
    chunks
}

/// An Anthropic Messages stream of `pieces`, with its named events.
fn anthropic_stream(pieces: &[&str]) -> Vec<String> {
    let mut chunks = vec![
        sse(Some("message_start"), &json!({"type": "message_start", "message": {"usage": {"input_tokens": 7, "output_tokens": 1}}})),
        sse(
            Some("content_block_start"),
            &json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ),
    ];
    for piece in pieces {
        chunks.push(sse(
            Some("content_block_delta"),
            &json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": piece}}),
        ));
    }
    chunks.push(sse(Some("content_block_stop"), &json!({"type": "content_block_stop", "index": 0})));
    chunks.push(sse(
        Some("message_delta"),
        &json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": pieces.len()}}),
    ));
    chunks.push(sse(Some("message_stop"), &json!({"type": "message_stop"})));
    chunks
}

/// One server-sent event, named or not.
fn sse(event: Option<&str>, data: &serde_json::Value) -> String {
    match event {
        Some(name) => format!("event: {name}\ndata: {data}\n\n"),
        None => format!("data: {data}\n\n"),
    }
}

/// The byte count of the first `n` chunks: where to cut a stream.
fn bytes_of(chunks: &[String], n: usize) -> usize {
    chunks[..n].iter().map(String::len).sum()
}

// ---- OpenAI-compatible endpoints ----

#[tokio::test]
async fn openai_a_500_is_tried_again_and_the_good_stream_that_follows_is_the_reply() {
    bounded(async {
        let server = FaultServer::start(vec![
            Answer::status(500, r#"{"error": {"message": "the model crashed"}}"#),
            Answer::stream(openai_stream(&["Hel", "lo"])),
        ])
        .await;
        let outcome = ask(&openai(&server, quick())).await;
        let reply = outcome.reply();
        assert_eq!(reply.content, "Hello");
        assert_eq!(reply.usage, Some(Usage { input_tokens: 7, output_tokens: 2, cost_usd: None }));
        assert_eq!(outcome.pieces, ["Hel", "lo"]);
        assert_eq!(server.requests().len(), 2, "one failed try, one good");
    })
    .await;
}

#[tokio::test]
async fn openai_a_429_with_retry_after_waits_that_long_before_trying_again() {
    bounded(async {
        let server = FaultServer::start(vec![
            Answer::status_with(429, &[("Retry-After", "1")], r#"{"error": {"message": "slow down"}}"#),
            Answer::stream(openai_stream(&["ok"])),
        ])
        .await;
        let outcome = ask(&openai(&server, quick())).await;
        assert_eq!(outcome.reply().content, "ok");
        assert_eq!(server.requests().len(), 2);
        // The backoff alone would be ~10 ms: the second try waited for the server's 1 s.
        assert!(outcome.took >= Duration::from_millis(950), "retried after {:?}", outcome.took);
    })
    .await;
}

#[tokio::test]
async fn openai_a_retry_after_beyond_max_wait_fails_at_once_saying_how_long_was_asked() {
    bounded(async {
        let server =
            FaultServer::start(vec![Answer::status_with(429, &[("Retry-After", "120")], r#"{"error": {"message": "quota"}}"#)]).await;
        let outcome = ask(&openai(&server, quick())).await;
        let error = outcome.failure();
        assert!(error.contains("rate limited: the server asks to wait 120 s before trying again"), "{error}");
        assert!(error.starts_with(&format!("openai at {}/v1: ", server.base_url)), "errors name the provider: {error}");
        assert_eq!(server.requests().len(), 1, "no second try");
        assert!(outcome.took < Duration::from_secs(1), "failed after {:?}", outcome.took);
    })
    .await;
}

#[tokio::test]
async fn openai_a_stream_cut_halfway_is_an_error_after_the_pieces_already_received() {
    bounded(async {
        let chunks = openai_stream(&["Once", " upon", " a time"]);
        // Two whole chunks, then half of the third.
        let cut = bytes_of(&chunks, 2) + chunks[2].len() / 2;
        let server = FaultServer::start(vec![Answer::cut_stream(chunks, cut)]).await;
        let outcome = ask(&openai(&server, quick())).await;
        let error = outcome.failure();
        assert!(error.contains("the connection closed before the reply was complete (9 characters received)"), "{error}");
        assert_eq!(outcome.pieces, ["Once", " upon"], "the text before the cut reached on_token");
        assert_eq!(server.requests().len(), 1, "a broken stream is not retried (its text was already shown)");
    })
    .await;
}

#[tokio::test]
async fn openai_a_chunked_transfer_cut_halfway_is_a_broken_stream_after_the_pieces_already_received() {
    bounded(async {
        let chunks = openai_stream(&["Once", " upon", " a time"]);
        let cut = bytes_of(&chunks, 2) + chunks[2].len() / 2;
        let server = FaultServer::start(vec![Answer::cut_chunked_stream(chunks, cut)]).await;
        let outcome = ask(&openai(&server, quick())).await;
        let error = outcome.failure();
        assert!(error.contains("the connection broke off in the middle of the reply"), "{error}");
        assert_eq!(outcome.pieces, ["Once", " upon"]);
    })
    .await;
}

#[tokio::test]
async fn openai_a_server_that_never_answers_fails_after_its_retries_within_bounded_time() {
    bounded(async {
        let server = FaultServer::start(vec![Answer::Silent, Answer::Silent]).await;
        let limits = Limits { first_byte: Duration::from_millis(300), retries: 1, backoff: Duration::from_millis(10), ..quick() };
        let outcome = ask(&openai(&server, limits)).await;
        let error = outcome.failure();
        assert!(error.contains("no answer within 0.3 s (tried 2 times)"), "{error}");
        assert_eq!(server.requests().len(), 2);
        assert!(outcome.took >= Duration::from_millis(600) && outcome.took < Duration::from_millis(1500), "took {:?}", outcome.took);
    })
    .await;
}

#[tokio::test]
async fn openai_a_stream_that_goes_silent_fails_after_the_idle_limit() {
    bounded(async {
        let chunks = openai_stream(&["Thinking", "…"]);
        let server = FaultServer::start(vec![Answer::Trickle { chunks: chunks[..1].to_vec() }]).await;
        let limits = Limits { idle: Duration::from_millis(300), ..quick() };
        let outcome = ask(&openai(&server, limits)).await;
        let error = outcome.failure();
        assert!(error.contains("the stream went silent for 0.3 s"), "{error}");
        assert_eq!(outcome.pieces, ["Thinking"]);
        assert!(outcome.took < Duration::from_secs(1), "took {:?}", outcome.took);
    })
    .await;
}

#[tokio::test]
async fn openai_a_chunk_that_is_not_json_is_an_error_quoting_it() {
    bounded(async {
        let mut chunks = openai_stream(&["Hi"]);
        chunks.insert(1, "data: {\"choices\": [oops\n\n".to_owned());
        let server = FaultServer::start(vec![Answer::stream(chunks)]).await;
        let outcome = ask(&openai(&server, quick())).await;
        let error = outcome.failure();
        assert!(error.contains("a streamed chunk is not JSON"), "{error}");
        assert!(error.contains("{\"choices\": [oops"), "the chunk is quoted: {error}");
    })
    .await;
}

#[tokio::test]
async fn openai_an_error_chunk_mid_stream_is_an_error_with_its_message() {
    bounded(async {
        let mut chunks = openai_stream(&["Hi"]);
        chunks.insert(1, sse(None, &json!({"error": {"message": "the context is full", "type": "server_error"}})));
        let server = FaultServer::start(vec![Answer::stream(chunks)]).await;
        let outcome = ask(&openai(&server, quick())).await;
        let error = outcome.failure();
        assert!(error.ends_with(": the context is full"), "{error}");
        assert_eq!(outcome.pieces, ["Hi"]);
    })
    .await;
}

#[tokio::test]
async fn openai_a_refused_key_says_to_check_it_with_the_providers_message_and_is_not_retried() {
    bounded(async {
        let body = r#"{"error": {"message": "Incorrect API key provided: sk-wrong.", "type": "invalid_request_error", "code": "invalid_api_key"}}"#;
        let server = FaultServer::start(vec![Answer::status(401, body)]).await;
        let outcome = ask(&openai(&server, quick())).await;
        let error = outcome.failure();
        assert!(error.contains("the API key was refused (401)"), "{error}");
        assert!(error.contains("Incorrect API key provided: sk-wrong."), "{error}");
        assert!(error.contains("Check your key"), "{error}");
        assert_eq!(server.requests().len(), 1);
    })
    .await;
}

#[tokio::test]
async fn openai_a_bad_request_is_not_retried_and_shows_the_providers_message() {
    bounded(async {
        let body = r#"{"error": {"message": "'messages' must contain at least one message", "type": "invalid_request_error"}}"#;
        let server = FaultServer::start(vec![Answer::status(400, body)]).await;
        let outcome = ask(&openai(&server, quick())).await;
        let error = outcome.failure();
        assert!(error.contains("400 Bad Request: 'messages' must contain at least one message"), "{error}");
        assert_eq!(server.requests().len(), 1);
    })
    .await;
}

#[tokio::test]
async fn openai_sends_the_key_as_a_bearer_token_to_chat_completions() {
    bounded(async {
        let server = FaultServer::start(vec![Answer::stream(openai_stream(&["hi"]))]).await;
        let key = Secret::new("sk-test-123");
        let client = OpenAiClient::new(&server.url("/v1/"), "gpt-test", Some(&key), quick()).unwrap();
        assert_eq!(ask(&client).await.reply().content, "hi");
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
async fn openai_a_stream_closed_after_its_finish_reason_without_done_is_a_reply() {
    bounded(async {
        let mut chunks = openai_stream(&["fine"]);
        chunks.pop(); // no [DONE]
        let server = FaultServer::start(vec![Answer::stream(chunks)]).await;
        let outcome = ask(&openai(&server, quick())).await;
        assert_eq!(outcome.reply().content, "fine");
    })
    .await;
}

#[tokio::test]
async fn openai_cancelling_while_the_server_is_silent_returns_cancelled_at_once() {
    bounded(async {
        let server = FaultServer::start(vec![Answer::Silent]).await;
        let client = openai(&server, quick());
        let cancel = CancellationToken::new();
        let canceller = cancel.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(100)).await;
            canceller.cancel();
        });
        let outcome = ask_with(&client, &cancel).await;
        assert_eq!(outcome.result, Err(LlmError::Cancelled));
        assert!(outcome.took < Duration::from_millis(500), "took {:?}", outcome.took);
    })
    .await;
}

#[tokio::test]
async fn openai_cancelling_during_a_retry_after_wait_returns_cancelled_at_once() {
    bounded(async {
        let server = FaultServer::start(vec![Answer::status_with(503, &[("Retry-After", "3")], "busy")]).await;
        let client = openai(&server, quick());
        let cancel = CancellationToken::new();
        let canceller = cancel.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(200)).await;
            canceller.cancel();
        });
        let outcome = ask_with(&client, &cancel).await;
        assert_eq!(outcome.result, Err(LlmError::Cancelled));
        assert!(outcome.took < Duration::from_millis(700), "took {:?}", outcome.took);
        assert_eq!(server.requests().len(), 1);
    })
    .await;
}

// ---- Anthropic's Messages API ----

#[tokio::test]
async fn anthropic_a_500_is_tried_again_and_the_good_stream_that_follows_is_the_reply() {
    bounded(async {
        let server = FaultServer::start(vec![
            Answer::status(529, r#"{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}"#),
            Answer::status(500, r#"{"type": "error", "error": {"type": "api_error", "message": "Internal"}}"#),
            Answer::chunked_stream(anthropic_stream(&["Hel", "lo"])),
        ])
        .await;
        let outcome = ask(&anthropic(&server, quick())).await;
        let reply = outcome.reply();
        assert_eq!(reply.content, "Hello");
        assert_eq!(reply.usage, Some(Usage { input_tokens: 7, output_tokens: 2, cost_usd: None }));
        assert_eq!(outcome.pieces, ["Hel", "lo"]);
        assert_eq!(server.requests().len(), 3, "529 and 500 were both tried again");
    })
    .await;
}

#[tokio::test]
async fn anthropic_a_stream_cut_halfway_is_an_error_after_the_pieces_already_received() {
    bounded(async {
        let chunks = anthropic_stream(&["Once", " upon", " a time"]);
        // message_start, the block's start, two deltas, then half of the third.
        let cut = bytes_of(&chunks, 4) + chunks[4].len() / 2;
        let server = FaultServer::start(vec![Answer::cut_stream(chunks, cut)]).await;
        let outcome = ask(&anthropic(&server, quick())).await;
        let error = outcome.failure();
        assert!(error.contains("the connection closed before the reply was complete (9 characters received)"), "{error}");
        assert_eq!(outcome.pieces, ["Once", " upon"]);
    })
    .await;
}

#[tokio::test]
async fn anthropic_a_stream_that_goes_silent_fails_after_the_idle_limit() {
    bounded(async {
        let chunks = anthropic_stream(&["Thinking"]);
        let server = FaultServer::start(vec![Answer::Trickle { chunks: chunks[..3].to_vec() }]).await;
        let limits = Limits { idle: Duration::from_millis(300), ..quick() };
        let outcome = ask(&anthropic(&server, limits)).await;
        let error = outcome.failure();
        assert!(error.contains("the stream went silent for 0.3 s"), "{error}");
        assert_eq!(outcome.pieces, ["Thinking"]);
    })
    .await;
}

#[tokio::test]
async fn anthropic_an_event_that_is_not_json_is_an_error_quoting_it() {
    bounded(async {
        let mut chunks = anthropic_stream(&["Hi"]);
        chunks.insert(2, "event: content_block_delta\ndata: {\"delta\": oops\n\n".to_owned());
        let server = FaultServer::start(vec![Answer::stream(chunks)]).await;
        let outcome = ask(&anthropic(&server, quick())).await;
        let error = outcome.failure();
        assert!(error.contains("a streamed event is not JSON"), "{error}");
        assert!(error.contains("{\"delta\": oops"), "{error}");
    })
    .await;
}

#[tokio::test]
async fn anthropic_an_error_event_mid_stream_is_an_error_with_its_message() {
    bounded(async {
        let mut chunks = anthropic_stream(&["Hi", " there"]);
        let error_event = sse(Some("error"), &json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}));
        chunks.insert(3, error_event);
        let server = FaultServer::start(vec![Answer::stream(chunks)]).await;
        let outcome = ask(&anthropic(&server, quick())).await;
        let error = outcome.failure();
        assert_eq!(error, format!("anthropic at {}: Overloaded", server.base_url));
        assert_eq!(outcome.pieces, ["Hi"], "the text before the error event reached on_token");
    })
    .await;
}

#[tokio::test]
async fn anthropic_a_refused_key_says_to_check_it_with_the_providers_message() {
    bounded(async {
        let body = r#"{"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}"#;
        let server = FaultServer::start(vec![Answer::status(401, body)]).await;
        let outcome = ask(&anthropic(&server, quick())).await;
        let error = outcome.failure();
        assert!(error.contains("the API key was refused (401): invalid x-api-key"), "{error}");
        assert!(error.contains("Check your key"), "{error}");
        assert_eq!(server.requests().len(), 1);
    })
    .await;
}

#[tokio::test]
async fn anthropic_a_bad_request_is_not_retried_and_shows_the_providers_message() {
    bounded(async {
        let body = r#"{"type": "error", "error": {"type": "invalid_request_error", "message": "max_tokens: must be at most 8192"}}"#;
        let server = FaultServer::start(vec![Answer::status(400, body)]).await;
        let outcome = ask(&anthropic(&server, quick())).await;
        let error = outcome.failure();
        assert!(error.contains("400 Bad Request: max_tokens: must be at most 8192"), "{error}");
        assert_eq!(server.requests().len(), 1);
    })
    .await;
}

#[tokio::test]
async fn anthropic_sends_the_key_as_x_api_key_with_the_api_version() {
    bounded(async {
        let server = FaultServer::start(vec![Answer::stream(anthropic_stream(&["hi"]))]).await;
        let key = Secret::new("sk-ant-test-456");
        let client = AnthropicClient::new(&format!("{}/", server.base_url), "claude-test", Some(&key), quick()).unwrap();
        assert_eq!(ask(&client).await.reply().content, "hi");
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

#[tokio::test]
async fn openai_a_connection_reset_before_the_first_byte_is_retried_like_a_5xx() {
    bounded(async {
        let server = FaultServer::start(vec![Answer::Reset, Answer::stream(openai_stream(&["Hello"]))]).await;
        let outcome = ask(&openai(&server, quick())).await;
        assert_eq!(outcome.reply().content, "Hello");
        assert_eq!(server.requests().len(), 2, "the reset was tried again");
    })
    .await;
}

#[tokio::test]
async fn openai_resets_every_time_say_so_in_words() {
    bounded(async {
        let server = FaultServer::start(vec![Answer::Reset, Answer::Reset, Answer::Reset]).await;
        let error = ask(&openai(&server, quick())).await.failure().to_owned();
        assert!(error.contains("was cut before the server answered") && error.ends_with("(tried 3 times)"), "{error}");
        assert!(!error.contains("hyper") && !error.contains("reqwest"), "no client internals: {error}");
    })
    .await;
}

#[tokio::test]
async fn a_port_where_nothing_listens_says_so_and_what_to_try() {
    bounded(async {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let client = OpenAiClient::new(&format!("http://127.0.0.1:{port}/v1"), "m", None, quick()).unwrap();
        let error = ask(&client).await.failure().to_owned();
        assert!(error.contains(&format!("nothing answers at 127.0.0.1:{port} — is the model server running?")), "{error}");
    })
    .await;
}

#[tokio::test]
async fn a_200_that_is_an_html_page_says_so_and_is_not_retried() {
    bounded(async {
        let page = "<!DOCTYPE html><html><head><title>Welcome to nginx!</title></head><body>hi</body></html>";
        let server = FaultServer::start(vec![Answer::status_with(200, &[("Content-Type", "text/html")], page)]).await;
        let error = ask(&openai(&server, quick())).await.failure().to_owned();
        assert!(error.contains("an HTML page (\"Welcome to nginx!\"), not a chat completion — is the base URL right?"), "{error}");
        assert_eq!(server.requests().len(), 1);
        for body in ["", r#"{"choices": [{"delta""#] {
            let server = FaultServer::start(vec![Answer::status(200, body)]).await;
            let error = ask(&anthropic(&server, quick())).await.failure().to_owned();
            assert!(error.contains("empty body") || error.contains("cut off or broken JSON"), "{body}: {error}");
        }
    })
    .await;
}

#[tokio::test]
async fn a_base_url_with_a_query_keeps_it_after_the_path() {
    bounded(async {
        let server = FaultServer::start(vec![Answer::stream(openai_stream(&["Hi"]))]).await;
        let client = OpenAiClient::new(&server.url("/openai/deployments/d?api-version=2024-01-01"), "m", None, quick()).unwrap();
        assert_eq!(ask(&client).await.reply().content, "Hi");
        assert_eq!(server.requests()[0].path, "/openai/deployments/d/chat/completions?api-version=2024-01-01");
    })
    .await;
}
