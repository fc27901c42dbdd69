//! `GET /runs/{id}/events`: a run's events as server-sent events — the stored ones
//! after the point the client names, then, while the run goes on in this server,
//! each new one as it happens; the stream ends after the leg's `run_finished`.
//!
//! Every event is one SSE message, `id: <seq>` and `data: <the RunEvent as JSON>`
//! (no `event:` name, so `EventSource.onmessage` gets them all). A client that comes
//! back with `Last-Event-ID: <seq>` (browsers do it by themselves) or `?after=<seq>`
//! gets exactly the events after it. Two named messages end a stream early:
//! `interrupted` (the server is stopping; its `id:` resets the client's last id to
//! the last stored event, so events it saw live after that are replaced when the
//! run is resumed) and `lagged` (the client read too slowly and was dropped; it
//! comes back with its last id). When there is nothing to send and nothing will
//! come, the answer is 204, which tells `EventSource` to stop reconnecting.
//!
//! With `?batches=true` the same events come in batches instead, as the window gets
//! them ([`forward_batches`]; a batch a frame at most, [`FRAME`], as the server
//! cannot see its page paint, where the window asks for each): one message per batch,
//! `event: batch`, `id: <the last seq in it>` and `data: <the RunBatch as JSON>`. How
//! the watch ended travels in the last batch's `end` (`finished`, `lagged`, or
//! `interrupted` with `lost_from`, its `id:` then the last stored event), so that form
//! has no other named message.
//!
//! With `Accept: application/json` the stored events come as one JSON list instead.

use std::convert::Infallible;
use std::time::Duration;

use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::Json;
use crewgraph_engine::RunId;
use futures_util::{FutureExt, Stream, StreamExt};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::api::{forward_batches, ApiError, RunBatch, RunWatch, WatchEnd, WatchItem, FRAME};
use crate::serve::error::{no_content, HttpError};
use crate::serve::state::AppState;

/// How long a quiet stream waits before a keep-alive comment.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// Where to start, and in which form.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct EventsQuery {
    /// The `seq` of the last event the client has; the `Last-Event-ID` header wins over it.
    pub after: Option<u64>,
    /// One message per batch of events (`event: batch`, a RunBatch) instead of one per event.
    pub batches: Option<bool>,
}

/// The point to start after: `Last-Event-ID`, else `?after`. A seq is stored as a
/// signed 64-bit number, so one above that is no event's (the document says so too).
fn start_after(headers: &HeaderMap, query: &EventsQuery) -> Result<Option<u64>, HttpError> {
    // An empty Last-Event-ID says nothing (a browser sends none then): `?after` holds.
    let header = headers.get("last-event-id").map(|value| value.to_str().unwrap_or("?").trim()).filter(|text| !text.is_empty());
    let after = match header {
        None => query.after,
        Some(text) => {
            Some(text.parse().map_err(|_| HttpError::invalid(format!("Last-Event-ID '{text}' is not an event's seq (a number)")))?)
        }
    };
    match after {
        Some(seq) if seq > i64::MAX as u64 => Err(HttpError::invalid(format!("{seq} is larger than any event's seq"))),
        after => Ok(after),
    }
}

fn wants_json(headers: &HeaderMap) -> bool {
    let accept = headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()).unwrap_or("");
    accept.contains("application/json") && !accept.contains("text/event-stream")
}

/// One SSE message.
fn message(item: WatchItem) -> Event {
    match item {
        WatchItem::Event(event) => {
            let data = serde_json::to_string(&*event).unwrap_or_else(|e| format!("{{\"type\":\"warning\",\"message\":\"{e}\"}}"));
            Event::default().id(event.seq.to_string()).data(data)
        }
        WatchItem::Interrupted { lost_from } => {
            let event = Event::default().event("interrupted");
            let event = match lost_from {
                // The last stored event is the client's last id now (none at all: empty).
                Some(first_lost) => event.id(first_lost.checked_sub(1).map(|s| s.to_string()).unwrap_or_default()),
                None => event,
            };
            event.data(
                serde_json::json!({
                    "message": "the server is stopping; the run is resumable from its last stored event",
                    "lost_from": lost_from,
                })
                .to_string(),
            )
        }
        WatchItem::Lagged => Event::default().event("lagged").data(
            serde_json::json!({"message": "this client fell too far behind and was dropped: reconnect with Last-Event-ID"}).to_string(),
        ),
    }
}

/// One SSE message for a batch: `event: batch`, `id:` the last seq in it — or, when
/// the run was interrupted, the last stored event (empty: none), as `interrupted`
/// says it in the one-per-event form — and the batch as its data.
fn batch_message(batch: &RunBatch) -> Event {
    let id = match (batch.end, batch.lost_from) {
        (Some(WatchEnd::Interrupted), Some(first_lost)) => Some(first_lost.checked_sub(1).map(|s| s.to_string()).unwrap_or_default()),
        _ => batch.events.last().map(|event| event.seq.to_string()),
    };
    let data = serde_json::to_string(batch)
        .unwrap_or_else(|e| format!("{{\"events\":[],\"end\":\"interrupted\",\"lost_from\":null,\"error\":\"{e}\"}}"));
    let event = Event::default().event("batch");
    match id {
        Some(id) => event.id(id),
        None => event,
    }
    .data(data)
}

/// The watch in batches, as the window gets them: [`forward_batches`] runs inside
/// the stream (polled as the client reads), so a client that stops reading stops it
/// too and falls behind on the run's live ring until it is dropped (`end: lagged`),
/// as in the one-per-event form — no batch is buffered for it beyond the one or two
/// a poll can make.
fn batches(watch: RunWatch) -> impl Stream<Item = RunBatch> + Send + 'static {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let forward = forward_batches(watch, FRAME, move |batch| tx.send(batch).is_ok());
    let sent = futures_util::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|batch| (batch, rx)) });
    // The forwarding yields nothing itself; it ends (dropping `tx`) after the last batch.
    futures_util::stream::select(sent.map(Some), forward.into_stream().map(|()| None)).filter_map(std::future::ready)
}

/// One server-sent message as a client reads it (what the OpenAPI document says
/// each message of the stream is).
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub struct SseMessage {
    /// None for an event, `batch` for a batch, `lagged` or `interrupted`.
    event: Option<String>,
    /// The seq of the (last) event in it.
    id: Option<String>,
    /// The RunEvent, RunBatch or `{lost_from}`, as JSON.
    data: String,
}

/// A run's events: the stored ones after `Last-Event-ID` (or `?after`), then the
/// live ones while it goes on here.
#[utoipa::path(
    get,
    path = "/runs/{id}/events",
    tag = "runs",
    params(
        ("id" = String, Path, description = "The run's id"),
        ("Last-Event-ID" = Option<String>, Header, description = "The seq of the last event the client has"),
        EventsQuery,
    ),
    responses(
        (status = 200, description = "Server-sent events, one RunEvent (ui/src/bindings/RunEvent.ts) per message with `id: <seq>`; \
                                      with `batches=true`, one RunBatch (ui/src/bindings/RunBatch.ts) per message, `event: batch`, \
                                      `id: <its last seq>`, the last one with how the watch ended; \
                                      with `Accept: application/json`, the stored events as a list",
         content((SseMessage = "text/event-stream"), (Vec<Object> = "application/json"))),
        (status = 204, description = "Nothing after that point, and the run is not going on here"),
        (status = 400, description = "A Last-Event-ID that is not a number", body = ApiError),
        (status = 404, description = "No such run", body = ApiError),
    )
)]
pub async fn events(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(query): Query<EventsQuery>,
    headers: HeaderMap,
) -> Result<Response, HttpError> {
    let id = RunId::from(id);
    let after = start_after(&headers, &query)?;
    if wants_json(&headers) {
        return Ok(Json(state.api.run_events(&id, after).await?).into_response());
    }
    let watch = state.api.watch_run(&id, after).await?;
    if !watch.is_live() && watch.replay_len() == 0 {
        return Ok(no_content());
    }
    let mut response = if query.batches == Some(true) {
        let stream = batches(watch).map(|batch| Ok::<_, Infallible>(batch_message(&batch)));
        Sse::new(stream).keep_alive(KeepAlive::new().interval(KEEP_ALIVE)).into_response()
    } else {
        let stream = watch.into_stream().map(|item| Ok::<_, Infallible>(message(item)));
        Sse::new(stream).keep_alive(KeepAlive::new().interval(KEEP_ALIVE)).into_response()
    };
    // Asks reverse proxies (nginx) to pass events on at once instead of buffering them.
    response.headers_mut().insert("x-accel-buffering", axum::http::HeaderValue::from_static("no"));
    Ok(response)
}
