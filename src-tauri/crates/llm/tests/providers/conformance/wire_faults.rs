//! The HTTP faults both HTTP providers must survive, written once and run for each
//! [`Protocol`]: 5xx and 429 answers (retried, `Retry-After` honoured or refused
//! when too long), refused keys, bad requests, transfers cut halfway, streams that
//! go silent, servers that never answer or reset the connection, malformed chunks
//! and error events mid-stream, pages that are not a reply, nothing listening, and
//! cancellation while waiting. Each fault scripts a [`FaultServer`], calls the client
//! through the engine's `LlmClient` trait, and checks the error's words, what reached
//! `on_token`, how many requests the server saw and how long it all took. Limits
//! are small (milliseconds), and every fault runs under a 10 s timeout, so a hang
//! fails instead of blocking the suite.
//!
//! To add a fault: an `async fn(Protocol)` here, and its name in the
//! `for_both_protocols!` list at the end.

use std::time::Duration;

use crewgraph_engine::run::history::Visible;
use crewgraph_engine::run::{LlmClient, LlmError, LlmRequest, Message, Usage};
use crewgraph_engine::AgentId;
use crewgraph_llm::Limits;
use tokio_util::sync::CancellationToken;

use super::wire::{bytes_of, quick, Protocol};
use super::{ask, assert_in_words, Outcome};
use crate::fault_server::{Answer, FaultServer};

/// One turn of a writer asked to say hello, with `cancel`.
async fn say_hello(client: &dyn LlmClient, cancel: &CancellationToken) -> Outcome {
    let agent = AgentId::from("writer");
    let history = [Message::user("Say hello.")];
    ask(client, &LlmRequest::new(&agent, "Be brief.", Visible::all(&history)), cancel).await
}

/// A fault server answering `answers`, and what the protocol's client got from it.
async fn serve(protocol: Protocol, answers: Vec<Answer>, limits: Limits) -> (FaultServer, Outcome) {
    let server = FaultServer::start(answers).await;
    let outcome = say_hello(protocol.client(&server, limits).as_ref(), &CancellationToken::new()).await;
    (server, outcome)
}

/// Cancels `cancel` after `after`.
fn cancel_after(cancel: &CancellationToken, after: Duration) {
    let cancel = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(after).await;
        cancel.cancel();
    });
}

async fn a_5xx_is_tried_again_and_the_good_stream_that_follows_is_the_reply(protocol: Protocol) {
    let answers = vec![
        Answer::status(529, &protocol.error_body("overloaded_error", "Overloaded")),
        Answer::status(500, &protocol.error_body("api_error", "the model crashed")),
        Answer::chunked_stream(protocol.stream(&["Hel", "lo"])),
    ];
    let (server, outcome) = serve(protocol, answers, quick()).await;
    let reply = outcome.reply();
    assert_eq!(reply.content, "Hello");
    assert_eq!(reply.usage, Some(Usage { input_tokens: 7, output_tokens: 2, cost_usd: None }));
    assert_eq!(outcome.pieces, ["Hel", "lo"]);
    assert_eq!(server.requests().len(), 3, "529 and 500 were both tried again");
}

async fn a_retry_after_beyond_max_wait_fails_at_once_saying_how_long_was_asked(protocol: Protocol) {
    let answers = vec![Answer::status_with(429, &[("Retry-After", "120")], &protocol.error_body("rate_limit_error", "quota"))];
    let (server, outcome) = serve(protocol, answers, quick()).await;
    let error = outcome.failure();
    assert!(error.contains("rate limited: the server asks to wait 120 s before trying again"), "{error}");
    assert!(error.starts_with(&format!("{}: ", protocol.label(&server))), "errors name the provider: {error}");
    assert_eq!(server.requests().len(), 1, "no second try");
    assert!(outcome.took < Duration::from_secs(1), "failed after {:?}", outcome.took);
}

async fn a_chunked_transfer_cut_halfway_is_a_broken_stream_after_the_pieces_already_received(protocol: Protocol) {
    let chunks = protocol.stream(&["Once", " upon", " a time"]);
    let third = protocol.text_start() + 2;
    let cut = bytes_of(&chunks, third) + chunks[third].len() / 2;
    let (server, outcome) = serve(protocol, vec![Answer::cut_chunked_stream(chunks, cut)], quick()).await;
    let error = outcome.failure();
    assert!(error.contains("the connection broke off in the middle of the reply"), "{error}");
    assert_in_words(error);
    assert_eq!(outcome.pieces, ["Once", " upon"]);
    assert_eq!(server.requests().len(), 1, "a broken stream is not retried (its text was already shown)");
}

async fn a_server_that_never_answers_fails_after_its_retries_within_bounded_time(protocol: Protocol) {
    let limits = Limits { first_byte: Duration::from_millis(300), retries: 1, backoff: Duration::from_millis(10), ..quick() };
    let (server, outcome) = serve(protocol, vec![Answer::Silent, Answer::Silent], limits).await;
    let error = outcome.failure();
    assert!(error.contains("no answer within 0.3 s (tried 2 times)"), "{error}");
    assert_eq!(server.requests().len(), 2);
    // Two waits of 0.3 s; the upper bound leaves a busy machine room, not a hang.
    assert!(outcome.took >= Duration::from_millis(600) && outcome.took < Duration::from_secs(5), "took {:?}", outcome.took);
}

async fn a_stream_that_goes_silent_fails_after_the_idle_limit(protocol: Protocol) {
    let chunks = protocol.stream(&["Thinking", "…"]);
    let answers = vec![Answer::Trickle { chunks: chunks[..=protocol.text_start()].to_vec() }];
    let (_server, outcome) = serve(protocol, answers, Limits { idle: Duration::from_millis(300), ..quick() }).await;
    let error = outcome.failure();
    assert!(error.contains("the stream went silent for 0.3 s"), "{error}");
    assert_eq!(outcome.pieces, ["Thinking"]);
    assert!(outcome.took < Duration::from_secs(5), "took {:?}", outcome.took);
}

async fn a_stream_that_never_ends_is_stopped_at_its_token_limit(protocol: Protocol) {
    let words = vec!["word "; 5_000];
    let answers = vec![Answer::Stream { chunks: protocol.stream(&words), gap: Duration::from_millis(1), cut_after: None, chunked: false }];
    let server = FaultServer::start(answers).await;
    let agent = AgentId::from("writer");
    let history = [Message::user("Say hello.")];
    let request = LlmRequest { max_tokens: Some(8), ..LlmRequest::new(&agent, "Be brief.", Visible::all(&history)) };
    let outcome = ask(protocol.client(&server, quick()).as_ref(), &request, &CancellationToken::new()).await;
    let error = outcome.failure();
    assert!(error.contains("the reply went on past its limit of 8 tokens (the server did not stop it)"), "{error}");
    assert!(outcome.pieces.len() < 100, "stopped soon after the limit: {} pieces", outcome.pieces.len());
}

async fn a_stream_that_never_ends_is_stopped_after_the_reply_time_limit(protocol: Protocol) {
    let words = vec!["word "; 5_000];
    let answers = vec![Answer::Stream { chunks: protocol.stream(&words), gap: Duration::from_millis(2), cut_after: None, chunked: false }];
    let (_server, outcome) = serve(protocol, answers, Limits { reply: Duration::from_millis(300), ..quick() }).await;
    let error = outcome.failure();
    assert!(error.contains("the reply took longer than 0.3 s, and was stopped"), "{error}");
    assert!(outcome.took < Duration::from_secs(5), "took {:?}", outcome.took);
}

async fn a_chunk_that_is_not_json_is_an_error_quoting_it(protocol: Protocol) {
    let (broken, called) = protocol.broken_chunk();
    let mut chunks = protocol.stream(&["Hi"]);
    chunks.insert(protocol.text_start() + 1, broken.clone());
    let (_server, outcome) = serve(protocol, vec![Answer::stream(chunks)], quick()).await;
    let error = outcome.failure();
    assert!(error.contains(called), "{error}");
    let data = broken.lines().find_map(|line| line.strip_prefix("data: ")).expect("the chunk has data");
    assert!(error.contains(data), "the chunk is quoted: {error}");
}

async fn an_error_event_mid_stream_is_an_error_with_its_message(protocol: Protocol) {
    let mut chunks = protocol.stream(&["Hi", " there"]);
    chunks.insert(protocol.text_start() + 1, protocol.error_event("the context is full"));
    let (server, outcome) = serve(protocol, vec![Answer::stream(chunks)], quick()).await;
    assert_eq!(outcome.failure(), format!("{}: the context is full", protocol.label(&server)));
    assert_eq!(outcome.pieces, ["Hi"], "the text before the error event reached on_token");
}

async fn a_refused_key_says_to_check_it_with_the_providers_message_and_is_not_retried(protocol: Protocol) {
    let body = protocol.error_body("authentication_error", "Incorrect API key provided: sk-wrong.");
    let (server, outcome) = serve(protocol, vec![Answer::status(401, &body)], quick()).await;
    let error = outcome.failure();
    assert!(error.contains("the API key was refused (401): Incorrect API key provided: sk-wrong."), "{error}");
    assert!(error.contains("Check your key"), "{error}");
    assert_eq!(server.requests().len(), 1);
}

async fn a_bad_request_is_not_retried_and_shows_the_providers_message(protocol: Protocol) {
    let body = protocol.error_body("invalid_request_error", "max_tokens: must be at most 8192");
    let (server, outcome) = serve(protocol, vec![Answer::status(400, &body)], quick()).await;
    let error = outcome.failure();
    assert!(error.contains("400 Bad Request: max_tokens: must be at most 8192"), "{error}");
    assert_eq!(server.requests().len(), 1);
}

async fn a_stream_closed_after_its_stop_reason_without_its_end_marker_is_a_reply(protocol: Protocol) {
    let mut chunks = protocol.stream(&["fine"]);
    chunks.pop(); // no [DONE], no message_stop
    let (_server, outcome) = serve(protocol, vec![Answer::stream(chunks)], quick()).await;
    assert_eq!(outcome.reply().content, "fine");
}

async fn cancelling_while_the_server_is_silent_returns_cancelled_at_once(protocol: Protocol) {
    let server = FaultServer::start(vec![Answer::Silent]).await;
    let cancel = CancellationToken::new();
    cancel_after(&cancel, Duration::from_millis(100));
    let outcome = say_hello(protocol.client(&server, quick()).as_ref(), &cancel).await;
    assert_eq!(outcome.result, Err(LlmError::Cancelled));
    assert!(outcome.took < Duration::from_secs(2), "took {:?}", outcome.took);
}

async fn cancelling_during_a_retry_after_wait_returns_cancelled_at_once(protocol: Protocol) {
    let server = FaultServer::start(vec![Answer::status_with(503, &[("Retry-After", "3")], "busy")]).await;
    let cancel = CancellationToken::new();
    cancel_after(&cancel, Duration::from_millis(200));
    let outcome = say_hello(protocol.client(&server, quick()).as_ref(), &cancel).await;
    assert_eq!(outcome.result, Err(LlmError::Cancelled));
    // The server asked for 3 s: returning well before shows the wait was cut short.
    assert!(outcome.took < Duration::from_secs(2), "took {:?}", outcome.took);
    assert_eq!(server.requests().len(), 1);
}

async fn a_connection_reset_before_the_first_byte_is_retried_like_a_5xx(protocol: Protocol) {
    let answers = vec![Answer::Reset, Answer::stream(protocol.stream(&["Hello"]))];
    let (server, outcome) = serve(protocol, answers, quick()).await;
    assert_eq!(outcome.reply().content, "Hello");
    assert_eq!(server.requests().len(), 2, "the reset was tried again");
}

async fn resets_every_time_say_so_in_words(protocol: Protocol) {
    let (_server, outcome) = serve(protocol, vec![Answer::Reset, Answer::Reset, Answer::Reset], quick()).await;
    let error = outcome.failure();
    assert!(error.contains("was cut before the server answered") && error.ends_with("(tried 3 times)"), "{error}");
    assert_in_words(error);
}

async fn a_port_where_nothing_listens_says_so_and_what_to_try(protocol: Protocol) {
    let port = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port").local_addr().expect("its address").port();
    let client = protocol.client_at(&format!("http://127.0.0.1:{port}"), quick());
    let outcome = say_hello(client.as_ref(), &CancellationToken::new()).await;
    let error = outcome.failure();
    assert!(error.contains(&format!("nothing answers at 127.0.0.1:{port} — is the model server running?")), "{error}");
}

async fn a_200_that_is_not_a_reply_says_what_it_is_and_is_not_retried(protocol: Protocol) {
    let page = "<!DOCTYPE html><html><head><title>Welcome to nginx!</title></head><body>hi</body></html>";
    let answers = vec![Answer::status_with(200, &[("Content-Type", "text/html")], page)];
    let (server, outcome) = serve(protocol, answers, quick()).await;
    let error = outcome.failure();
    assert!(error.contains("an HTML page (\"Welcome to nginx!\"), not a chat completion — is the base URL right?"), "{error}");
    assert_eq!(server.requests().len(), 1);
    for (body, said) in [("", "empty body"), (r#"{"choices": [{"delta""#, "cut off or broken JSON")] {
        let (_server, outcome) = serve(protocol, vec![Answer::status(200, body)], quick()).await;
        let error = outcome.failure();
        assert!(error.contains(said), "{body:?}: {error}");
    }
}

/// One test per fault and protocol: `openai::<fault>` and `anthropic::<fault>`.
macro_rules! for_both_protocols {
    ($($fault:ident),* $(,)?) => {
        mod openai {
            $(
                #[tokio::test]
                async fn $fault() {
                    super::super::bounded(std::time::Duration::from_secs(10), super::$fault(super::Protocol::OpenAi)).await;
                }
            )*
        }
        mod anthropic {
            $(
                #[tokio::test]
                async fn $fault() {
                    super::super::bounded(std::time::Duration::from_secs(10), super::$fault(super::Protocol::Anthropic)).await;
                }
            )*
        }
    };
}

for_both_protocols!(
    a_5xx_is_tried_again_and_the_good_stream_that_follows_is_the_reply,
    a_retry_after_beyond_max_wait_fails_at_once_saying_how_long_was_asked,
    a_chunked_transfer_cut_halfway_is_a_broken_stream_after_the_pieces_already_received,
    a_server_that_never_answers_fails_after_its_retries_within_bounded_time,
    a_stream_that_goes_silent_fails_after_the_idle_limit,
    a_stream_that_never_ends_is_stopped_at_its_token_limit,
    a_stream_that_never_ends_is_stopped_after_the_reply_time_limit,
    a_chunk_that_is_not_json_is_an_error_quoting_it,
    an_error_event_mid_stream_is_an_error_with_its_message,
    a_refused_key_says_to_check_it_with_the_providers_message_and_is_not_retried,
    a_bad_request_is_not_retried_and_shows_the_providers_message,
    a_stream_closed_after_its_stop_reason_without_its_end_marker_is_a_reply,
    cancelling_while_the_server_is_silent_returns_cancelled_at_once,
    cancelling_during_a_retry_after_wait_returns_cancelled_at_once,
    a_connection_reset_before_the_first_byte_is_retried_like_a_5xx,
    resets_every_time_say_so_in_words,
    a_port_where_nothing_listens_says_so_and_what_to_try,
    a_200_that_is_not_a_reply_says_what_it_is_and_is_not_retried,
);
