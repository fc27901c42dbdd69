//! A streamed chat completion: the run's news as server-sent events while it goes
//! on — the agents' words as `reasoning_content`, each handoff as a comment line and
//! a chunk's `crewgraph.handoff` — then the final answer as `content`, the last
//! chunk (`finish_reason`, the outcome), the usage when asked for, and `[DONE]`.
//! The run is followed by a task of its own; the body holds a guard that cancels
//! the run when the client closes the stream.

use std::convert::Infallible;

use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::Stream;
use tokio::sync::mpsc;
use tokio_util::sync::{CancellationToken, DropGuard};

use super::now;
use super::wire::{ChatChunk, ChatRequest, ChunkChoice, Delta, RunNews, TokenUsage};
use crate::api::{Api, Call, CallNews, CallOutcome, GoOn};

/// What goes out, in order.
enum Frame {
    Chunk(Box<ChatChunk>),
    Comment(String),
    Done,
}

/// The stream's answer for `call`, started already.
pub fn answer(api: Api, call: Call, request: ChatRequest) -> Response {
    let (sender, receiver) = mpsc::unbounded_channel();
    let cancel = CancellationToken::new();
    let guard = cancel.clone().drop_guard();
    let shape = Shape { id: format!("chatcmpl-{}", call.id), model: request.model.clone(), created: now() };
    let usage_asked = request.stream_options.as_ref().is_some_and(|o| o.include_usage);
    tokio::spawn(async move {
        let send = |frame: Frame| {
            let _ = sender.send(frame);
        };
        send(Frame::Chunk(Box::new(
            shape.chunk(Delta { role: Some("assistant"), content: Some(String::new()), ..Delta::default() }, None),
        )));
        let mut turn: Vec<String> = Vec::new();
        let mut agent = String::new();
        let mut news = |news: CallNews| match news {
            CallNews::TurnStarted { agent: name } => {
                turn.clear();
                agent = name;
            }
            CallNews::Token { text, .. } => {
                turn.push(text.clone());
                let mut chunk = shape.chunk(Delta { reasoning_content: Some(text), ..Delta::default() }, None);
                chunk.crewgraph = Some(RunNews { agent: Some(agent.clone()), ..RunNews::default() });
                send(Frame::Chunk(Box::new(chunk)));
            }
            CallNews::Handoff { words, .. } => {
                send(Frame::Comment(words.clone()));
                let mut chunk = shape.chunk(Delta::default(), None);
                chunk.crewgraph = Some(RunNews { handoff: Some(words), ..RunNews::default() });
                send(Frame::Chunk(Box::new(chunk)));
            }
        };
        let outcome = api.follow_call(&call, &mut news, &cancel).await;
        match outcome {
            Ok(outcome) => {
                for words in final_words(&outcome, &turn) {
                    send(Frame::Chunk(Box::new(shape.chunk(Delta { content: Some(words), ..Delta::default() }, None))));
                }
                let mut last = shape.chunk(Delta::default(), Some("stop"));
                let usage = TokenUsage::of(&outcome);
                last.crewgraph = Some(RunNews {
                    run_id: Some(outcome.run_id.clone()),
                    status: Some(outcome.status.clone()),
                    outcome: Some(outcome),
                    ..RunNews::default()
                });
                send(Frame::Chunk(Box::new(last)));
                if usage_asked {
                    let mut chunk = shape.chunk(Delta::default(), None);
                    chunk.choices.clear();
                    chunk.usage = usage.or(Some(TokenUsage { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }));
                    send(Frame::Chunk(Box::new(chunk)));
                }
            }
            Err(error) => {
                send(Frame::Comment(format!("error: {}", error.message)));
                let chunk = shape.chunk(
                    Delta { content: Some(format!("The crew could not go on: {}", error.message)), ..Delta::default() },
                    Some("stop"),
                );
                send(Frame::Chunk(Box::new(chunk)));
            }
        }
        send(Frame::Done);
    });
    Sse::new(events(receiver, guard)).keep_alive(KeepAlive::default()).into_response()
}

/// The final answer's words, as chunks: the final turn's streamed pieces when they
/// make up the answer, else the answer (or what the run waits for) whole.
fn final_words(outcome: &CallOutcome, turn: &[String]) -> Vec<String> {
    if outcome.succeeded() && !turn.is_empty() && turn.concat() == outcome.answer {
        return turn.to_vec();
    }
    vec![outcome.in_words(GoOn::NextMessage)]
}

/// The frames as server-sent events; the guard goes with the body, so a closed
/// connection cancels the run.
fn events(receiver: mpsc::UnboundedReceiver<Frame>, guard: DropGuard) -> impl Stream<Item = Result<Event, Infallible>> + Send {
    futures_util::stream::unfold((receiver, Some(guard)), |(mut receiver, guard)| async move {
        let frame = receiver.recv().await?;
        let event = match frame {
            Frame::Chunk(chunk) => Event::default().data(serde_json::to_string(&chunk).unwrap_or_default()),
            Frame::Comment(words) => Event::default().comment(words.replace(['\r', '\n'], " ")),
            Frame::Done => {
                // Finished: nothing to cancel any more.
                drop(guard.map(DropGuard::disarm));
                return Some((Ok(Event::default().data("[DONE]")), (receiver, None)));
            }
        };
        Some((Ok(event), (receiver, guard)))
    })
}

/// What every chunk of one answer shares.
struct Shape {
    id: String,
    model: String,
    created: u64,
}

impl Shape {
    fn chunk(&self, delta: Delta, finish_reason: Option<&'static str>) -> ChatChunk {
        ChatChunk {
            id: self.id.clone(),
            object: "chat.completion.chunk",
            created: self.created,
            model: self.model.clone(),
            choices: vec![ChunkChoice { index: 0, delta, finish_reason }],
            usage: None,
            crewgraph: None,
        }
    }
}
