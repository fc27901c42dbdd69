//! # Crews as OpenAI models: `/v1` on `crewgraph serve`
//!
//! Any app that speaks the OpenAI protocol — Open WebUI, LibreChat, a script with
//! OpenAI's SDK (the server's token as its API key) — uses a crew as a model:
//!
//! - `GET /v1/models` lists the crews that can run, as `crew/<name>`;
//! - `POST /v1/chat/completions` with `model: "crew/<name>"` runs that crew on the
//!   last user message, the earlier messages given to it as the conversation so
//!   far, and answers in the Chat Completions shape: the final
//!   agent's reply as the assistant's message. Streamed (`stream: true`), the agents'
//!   words on the way come as `reasoning_content` (what chat apps show folded, as a
//!   model's thinking), each handoff as an SSE comment line (`: Teacher → Student
//!   because [QUESTION] (exact)`) and in the chunk's `crewgraph.handoff`, then the
//!   final agent's words as `content`, then `[DONE]`.
//!
//! A run that waits for a person answers with the agent's question, ending with
//! `— Crewgraph run <id> waits for your reply.`: the conversation's next message
//! goes on with that run ([`crate::api::waiting_run`]); `crewgraph.run_id` in the
//! request names one explicitly, `crewgraph.model` picks the model every agent uses
//! (`simulate`: the crew's Simulate script). A client that closes the connection
//! cancels the run. Errors come in OpenAI's shape (`{"error": {message, type,
//! code}}`), so the SDKs raise them as such.

mod stream;
pub mod wire;

use std::time::{SystemTime, UNIX_EPOCH};

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::state::AppState;
use crate::api::{outside_name, waiting_run, Api, ApiError, ApiErrorCode, Call, GoOn};
use crewgraph_engine::run::RunStatus;
use crewgraph_engine::RunId;
use wire::{
    AnswerMessage, ChatCompletion, ChatRequest, Choice, ErrorBody, ErrorDetail, Message, ModelEntry, ModelList, RunNews, TokenUsage,
};

/// A crew's model name: `crew/<name>`.
pub const CREW_PREFIX: &str = "crew/";

/// `/v1/models` and `/v1/chat/completions`. `request_time` bounds the wait for a
/// request's body (an answer takes as long as its run).
pub fn router(body_limit: usize, request_time: std::time::Duration) -> Router<AppState> {
    Router::new()
        .route("/v1/models", get(models))
        .route("/v1/chat/completions", post(move |state: State<AppState>, request: Request| chat(state, request, body_limit, request_time)))
}

async fn models(State(state): State<AppState>) -> Response {
    let api = state.api.clone();
    let crews = tokio::task::spawn_blocking(move || api.list_crews()).await;
    let crews = match crews {
        Ok(Ok(crews)) => crews,
        Ok(Err(error)) => return failure(&error),
        Err(error) => {
            return openai_error(StatusCode::INTERNAL_SERVER_ERROR, "server_error", None, format!("listing the crews failed: {error}"))
        }
    };
    let data = crews
        .into_iter()
        .filter(|c| c.errors == 0)
        .map(|c| ModelEntry {
            id: format!("{CREW_PREFIX}{}", outside_name(std::path::Path::new(&c.path))),
            object: "model",
            created: 0,
            owned_by: "crewgraph",
            description: if c.description.trim().is_empty() { c.name } else { format!("{}: {}", c.name, c.description.trim()) },
        })
        .collect();
    Json(ModelList { object: "list", data }).into_response()
}

async fn chat(State(state): State<AppState>, request: Request, body_limit: usize, request_time: std::time::Duration) -> Response {
    let body = match tokio::time::timeout(request_time, axum::body::to_bytes(request.into_body(), body_limit)).await {
        Ok(Ok(body)) => body,
        Ok(Err(_)) => {
            return openai_error(
                StatusCode::PAYLOAD_TOO_LARGE,
                "invalid_request_error",
                None,
                format!("the request is larger than {body_limit} bytes"),
            )
        }
        Err(_) => {
            return openai_error(
                StatusCode::REQUEST_TIMEOUT,
                "invalid_request_error",
                None,
                "the request's body took too long to arrive".into(),
            )
        }
    };
    let request: ChatRequest = match serde_json::from_slice(&body) {
        Ok(request) => request,
        Err(error) => {
            return openai_error(
                StatusCode::BAD_REQUEST,
                "invalid_request_error",
                None,
                format!("the request is not a chat completion request: {error}"),
            )
        }
    };
    match start(&state.api, &request).await {
        Ok(call) if request.stream => stream::answer(state.api.clone(), call, request),
        Ok(call) => whole(state.api.clone(), call, request).await,
        Err(response) => response,
    }
}

/// Starts (or resumes) the run a request asks for; an error answer when it cannot.
async fn start(api: &Api, request: &ChatRequest) -> Result<Call, Response> {
    let Some(name) = request.model.strip_prefix(CREW_PREFIX) else {
        return Err(openai_error(
            StatusCode::NOT_FOUND,
            "invalid_request_error",
            Some("model"),
            format!("'{}' is not a crew: name one as crew/<name> (GET /v1/models lists them)", request.model),
        ));
    };
    let path = api.called_crew(name).map_err(|e| openai_error(StatusCode::NOT_FOUND, "invalid_request_error", Some("model"), e.message))?;
    let (input, earlier_answer) = conversation(&request.messages)
        .map_err(|message| openai_error(StatusCode::BAD_REQUEST, "invalid_request_error", Some("messages"), message))?;
    let extension = request.crewgraph.as_ref();
    let model = extension.and_then(|e| e.model.as_deref());
    let named = extension.and_then(|e| e.run_id.as_deref()).map(RunId::from);
    let waiting = match named {
        Some(id) => Some(id),
        None => match earlier_answer.as_deref().and_then(waiting_run) {
            // The conversation's last answer was a question of a run that still waits.
            Some(id) if api.run_summary(&id).await.is_ok_and(|r| r.status == RunStatus::Paused) => Some(id),
            _ => None,
        },
    };
    let started = match waiting {
        Some(id) => api.begin_resume(&id, &input.last, model).await,
        None => {
            let options = api.call_options(&path, model).map_err(|e| failure(&e))?;
            api.begin_call(&path, &input.whole, options).await
        }
    };
    started.map_err(|e| failure(&e))
}

/// The non-streamed answer, once the run ended or paused. A client that goes away
/// first cancels the run.
async fn whole(api: Api, call: Call, request: ChatRequest) -> Response {
    let cancel = CancellationToken::new();
    let guard = cancel.clone().drop_guard();
    let follower = api.clone();
    let task = tokio::spawn(async move { follower.follow_call(&call, |_| {}, &cancel).await });
    let outcome = task.await;
    drop(guard.disarm());
    let outcome = match outcome {
        Ok(Ok(outcome)) => outcome,
        Ok(Err(error)) => return failure(&error),
        Err(error) => {
            return openai_error(StatusCode::INTERNAL_SERVER_ERROR, "server_error", None, format!("the run's watcher failed: {error}"))
        }
    };
    let completion = ChatCompletion {
        id: format!("chatcmpl-{}", outcome.run_id),
        object: "chat.completion",
        created: now(),
        model: request.model,
        choices: vec![Choice {
            index: 0,
            message: AnswerMessage { role: "assistant", content: outcome.in_words(GoOn::NextMessage) },
            finish_reason: "stop",
        }],
        usage: TokenUsage::of(&outcome),
        crewgraph: RunNews {
            run_id: Some(outcome.run_id.clone()),
            status: Some(outcome.status.clone()),
            outcome: Some(outcome),
            ..RunNews::default()
        },
    };
    Json(completion).into_response()
}

/// What a crew is given from a conversation.
#[derive(Debug, PartialEq)]
struct Input {
    /// The last user message.
    last: String,
    /// The last user message after the conversation so far (what a new run gets).
    whole: String,
}

/// The last user message, with the earlier messages as the conversation so far, and
/// the last answer before it (which may name a run waiting for a reply).
fn conversation(messages: &[Message]) -> Result<(Input, Option<String>), String> {
    let Some((last, earlier)) = messages.split_last() else {
        return Err("'messages' is empty: give at least the user's message".into());
    };
    if last.role != "user" {
        return Err(format!("the last message is the {}'s: the last one must be the user's", last.role));
    }
    let last_text = text_of(last, messages.len() - 1)?;
    if last_text.trim().is_empty() {
        return Err("the user's message is empty: say what the crew should work on".into());
    }
    let mut lines = Vec::new();
    let mut last_answer = None;
    for (at, message) in earlier.iter().enumerate() {
        let text = text_of(message, at)?;
        let who = match message.role.as_str() {
            "system" | "developer" => "Instructions",
            "user" => "User",
            "assistant" => {
                last_answer = Some(text.clone());
                "Assistant"
            }
            "tool" | "function" => "Tool",
            other => return Err(format!("message {at} has the role '{other}': roles are system, developer, user, assistant and tool")),
        };
        if !text.trim().is_empty() {
            lines.push(format!("{who}: {}", text.trim()));
        }
    }
    let whole = if lines.is_empty() {
        last_text.clone()
    } else {
        format!("The conversation so far:\n\n{}\n\nNow the user says:\n\n{last_text}", lines.join("\n\n"))
    };
    Ok((Input { last: last_text, whole }, last_answer))
}

/// A message's text: its content as text, or its text parts joined.
fn text_of(message: &Message, at: usize) -> Result<String, String> {
    match &message.content {
        Value::Null => Ok(String::new()),
        Value::String(text) => Ok(text.clone()),
        Value::Array(parts) => {
            let mut texts = Vec::new();
            for part in parts {
                match (part.get("type").and_then(Value::as_str), part.get("text").and_then(Value::as_str)) {
                    (Some("text"), Some(text)) => texts.push(text),
                    (Some(kind), _) => return Err(format!("message {at} has a part of type '{kind}': a crew reads text only")),
                    _ => return Err(format!("message {at} has a part that is not {{\"type\": \"text\", \"text\": …}}")),
                }
            }
            Ok(texts.join("\n"))
        }
        _ => Err(format!("message {at}'s content must be text or a list of text parts")),
    }
}

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or_default()
}

/// An API error in OpenAI's shape.
fn failure(error: &ApiError) -> Response {
    let (status, kind) = match error.code {
        ApiErrorCode::NotFound => (StatusCode::NOT_FOUND, "invalid_request_error"),
        ApiErrorCode::InvalidInput | ApiErrorCode::InvalidCrew => (StatusCode::BAD_REQUEST, "invalid_request_error"),
        ApiErrorCode::Conflict => (StatusCode::CONFLICT, "invalid_request_error"),
        ApiErrorCode::Unauthorized => (StatusCode::UNAUTHORIZED, "authentication_error"),
        ApiErrorCode::Unavailable => (StatusCode::SERVICE_UNAVAILABLE, "server_error"),
        ApiErrorCode::Io | ApiErrorCode::Store => (StatusCode::INTERNAL_SERVER_ERROR, "server_error"),
    };
    let detail = ErrorDetail { message: error.message.clone(), kind, param: None, code: Some(error.code.as_str().to_owned()) };
    (status, Json(ErrorBody { error: detail })).into_response()
}

fn openai_error(status: StatusCode, kind: &'static str, param: Option<&'static str>, message: String) -> Response {
    (status, Json(ErrorBody { error: ErrorDetail { message, kind, param, code: None } })).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn messages(value: Value) -> Vec<Message> {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn one_message_is_the_input_itself() {
        let (input, answer) = conversation(&messages(json!([{"role": "user", "content": "What is 2+2?"}]))).unwrap();
        assert_eq!(input.whole, "What is 2+2?");
        assert_eq!(answer, None);
    }

    #[test]
    fn earlier_messages_come_before_it_as_the_conversation_so_far() {
        let (input, answer) = conversation(&messages(json!([
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": [{"type": "text", "text": "Hi"}]},
            {"role": "assistant", "content": "Hello"},
            {"role": "user", "content": "Quiz me"},
        ])))
        .unwrap();
        assert_eq!(input.last, "Quiz me");
        assert_eq!(
            input.whole,
            "The conversation so far:\n\nInstructions: Be brief.\n\nUser: Hi\n\nAssistant: Hello\n\nNow the user says:\n\nQuiz me"
        );
        assert_eq!(answer.as_deref(), Some("Hello"));
    }

    #[test]
    fn what_a_crew_cannot_read_is_said_in_words() {
        let cases = [
            (json!([]), "'messages' is empty"),
            (json!([{"role": "assistant", "content": "x"}]), "the last one must be the user's"),
            (json!([{"role": "user", "content": "  "}]), "the user's message is empty"),
            (json!([{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}]), "type 'image_url'"),
            (json!([{"role": "robot", "content": "x"}, {"role": "user", "content": "y"}]), "the role 'robot'"),
            (json!([{"role": "user", "content": 7}]), "must be text"),
        ];
        for (value, expected) in cases {
            let error = conversation(&messages(value.clone())).unwrap_err();
            assert!(error.contains(expected), "{value}: {error}");
        }
    }
}
