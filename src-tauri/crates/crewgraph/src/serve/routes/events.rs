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
//! With `Accept: application/json` the stored events come as one JSON list instead.

use std::convert::Infallible;
use std::time::Duration;

use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::Json;
use crewgraph_engine::RunId;
use futures_util::StreamExt;
use serde::Deserialize;
use utoipa::IntoParams;

use crate::api::{ApiError, WatchItem};
use crate::serve::error::{no_content, HttpError};
use crate::serve::state::AppState;

/// How long a quiet stream waits before a keep-alive comment.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// Where to start.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct After {
    /// The `seq` of the last event the client has; the `Last-Event-ID` header wins over it.
    pub after: Option<u64>,
}

/// The point to start after: `Last-Event-ID`, else `?after`.
fn start_after(headers: &HeaderMap, query: &After) -> Result<Option<u64>, HttpError> {
    let Some(value) = headers.get("last-event-id") else { return Ok(query.after) };
    let text = value.to_str().unwrap_or("?").trim();
    if text.is_empty() {
        return Ok(None);
    }
    text.parse().map(Some).map_err(|_| HttpError::invalid(format!("Last-Event-ID '{text}' is not an event's seq (a number)")))
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

/// A run's events: the stored ones after `Last-Event-ID` (or `?after`), then the
/// live ones while it goes on here.
#[utoipa::path(
    get,
    path = "/runs/{id}/events",
    tag = "runs",
    params(
        ("id" = String, Path, description = "The run's id"),
        ("Last-Event-ID" = Option<String>, Header, description = "The seq of the last event the client has"),
        After,
    ),
    responses(
        (status = 200, description = "Server-sent events, one RunEvent (ui/src/bindings/RunEvent.ts) per message with `id: <seq>`; \
                                      with `Accept: application/json`, the stored events as a list",
         content((String = "text/event-stream"), (Vec<Object> = "application/json"))),
        (status = 204, description = "Nothing after that point, and the run is not going on here"),
        (status = 400, description = "A Last-Event-ID that is not a number", body = ApiError),
        (status = 404, description = "No such run", body = ApiError),
    )
)]
pub async fn events(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(query): Query<After>,
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
    let stream = watch.into_stream().map(|item| Ok::<_, Infallible>(message(item)));
    let mut response = Sse::new(stream).keep_alive(KeepAlive::new().interval(KEEP_ALIVE)).into_response();
    // Asks reverse proxies (nginx) to pass events on at once instead of buffering them.
    response.headers_mut().insert("x-accel-buffering", axum::http::HeaderValue::from_static("no"));
    Ok(response)
}
