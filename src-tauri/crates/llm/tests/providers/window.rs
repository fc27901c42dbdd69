//! What a model's server says of its context window is untrusted: a window of 0 is
//! no answer, one of 10^12 is held to ten million, and a server that answers
//! something else entirely tells nothing. Each case scripts a fault server's answers
//! to the questions `window::ask_server` asks, in its order (`/props`, then
//! `/v1/models`).

use crewgraph_llm::window::{self, ServerKind, MAX_WINDOW};

use crate::fault_server::{Answer, FaultServer};

async fn ask(answers: Vec<Answer>) -> window::ServerFacts {
    let server = FaultServer::start(answers).await;
    window::ask_server(&reqwest::Client::new(), &server.url("/v1"), &Default::default(), "m").await
}

fn props(n_ctx: u64) -> Answer {
    Answer::status(200, &format!(r#"{{"default_generation_settings": {{"n_ctx": {n_ctx}}}}}"#))
}

fn models(n_ctx_train: u64) -> Answer {
    Answer::status(200, &format!(r#"{{"data": [{{"id": "m", "meta": {{"n_ctx_train": {n_ctx_train}}}}}]}}"#))
}

#[tokio::test]
async fn a_llama_server_window_is_a_slot_at_most_what_the_model_was_trained_for() {
    let facts = ask(vec![props(16_384), models(8192)]).await;
    assert_eq!((facts.window, facts.kind, facts.unbelievable), (Some(8192), Some(ServerKind::LlamaCpp), None));
}

#[tokio::test]
async fn a_window_of_zero_is_no_answer_and_one_of_a_trillion_is_held_to_ten_million() {
    let zero = ask(vec![props(0), models(0)]).await;
    assert_eq!((zero.window, zero.unbelievable), (None, Some(0)), "{zero:?}");
    let huge = ask(vec![props(1_000_000_000_000), models(0)]).await;
    assert_eq!((huge.window, huge.unbelievable), (Some(MAX_WINDOW as u32), Some(1_000_000_000_000)), "{huge:?}");
}

#[tokio::test]
async fn a_model_list_with_max_model_len_is_believed_and_garbage_tells_nothing() {
    let vllm = ask(vec![Answer::status(404, "no"), Answer::status(200, r#"{"data": [{"id": "m", "max_model_len": 32768}]}"#)]).await;
    assert_eq!((vllm.window, vllm.kind), (Some(32_768), Some(ServerKind::ModelList)));
    let garbage = ask(vec![Answer::status(200, "<html>"); 6]).await;
    assert_eq!(garbage, window::ServerFacts::default());
}
