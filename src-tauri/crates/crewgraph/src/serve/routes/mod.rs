//! The routes and the router that joins them: every operation's route made from
//! its declaration (`operations`), the few written by hand (the OpenAPI document,
//! a run's events, `/health`); every API route behind the token check, `/health` and
//! the UI's files outside it, and around everything the body limit, the request's
//! time limit and the JSON shape of errors.
//!
//! | route | does |
//! |---|---|
//! | `GET /health` | `{"status":"ok"}`, no token needed |
//! | `GET /openapi.json` | the OpenAPI document |
//! | `GET /crews`, `GET /crews/{crew}` | list the crews, open one |
//! | `GET /crews/{crew}/validation` | its diagnostics |
//! | `POST /crews/{crew}/route` | the scoring router's choice for a query |
//! | `GET`/`POST /crews/{crew}/agents`, `DELETE /crews/{crew}/agents/{id}` | runtime agents |
//! | `POST /match` | signal matching |
//! | `GET /models`, `PUT`/`DELETE /models/{name}`, `POST /models/{name}/default` | models |
//! | `GET`/`POST /runs`, `GET /runs/{id}` | runs |
//! | `POST /runs/{id}/resume`, `POST /runs/{id}/cancel` | resume, cancel |
//! | `POST /runs/{id}/reply` | Simulate mode by hand: an agent's typed reply |
//! | `GET /runs/{id}/recording`, `POST /recordings/check` | a run's recording; check one to replay it |
//! | `GET /runs/{id}/events` | its events, server-sent |
//! | `GET /crews/{crew}/edit`, `/disk`, `/scripts` | open it for editing, its files' fingerprint, its Simulate scripts |
//! | `POST /editor/check`, `/save`, `/yaml`, `/instructions`, `/signal-name`; `GET /editor/recent` | the editor |
//! | `POST /gatekeeper` | a gatekeeper service for crews of the `gatekeeper` strategy (by keywords) |
//! | `GET /v1/models`, `POST /v1/chat/completions` | the crews as OpenAI models ([`crate::serve::openai`]) |
//! | `/mcp` | the crews as MCP tools, Streamable HTTP ([`crate::mcp_server`]) |
//!
//! The last two answer for as long as their runs take, so the request time limit
//! bounds only the arrival of their bodies.

mod events;
mod health;
mod operations;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::DefaultBodyLimit;
use axum::http::StatusCode;
use axum::{middleware, Router};
use tokio_util::sync::CancellationToken;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::timeout::{RequestBodyTimeoutLayer, TimeoutLayer};
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::auth::{self, Token};
use super::error::json_errors;
use super::openai;
use super::openapi::{self, ApiDoc};
use super::state::AppState;
use super::ui;
use crate::api::Api;
use crate::mcp_server;

pub use health::Health;

/// The routes written by hand, with their OpenAPI operations: the document itself
/// and a run's events (a stream, not an operation's one answer). Every operation's
/// route comes from its declaration (`operations`).
fn hand_routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::with_openapi(ApiDoc::openapi()).routes(routes!(openapi::document)).routes(routes!(events::events))
}

/// What one request may take.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Its body, in bytes.
    pub body: usize,
    /// Its whole time, the body's arrival included (a client that sends one byte now
    /// and then is cut off with 408).
    pub request_time: Duration,
}

/// The whole application. `stop` ends the MCP sessions when the server stops.
pub fn app(api: Api, token: Option<Token>, ui_dir: Option<&Path>, limits: Limits, stop: CancellationToken) -> Router {
    let body_limit = limits.body;
    let (hand, mut document) = hand_routes().split_for_parts();
    operations::document(&mut document);
    let protected = hand.merge(operations::router());
    let (public, public_document) = OpenApiRouter::<AppState>::new().routes(routes!(health::health)).split_for_parts();
    document.merge(public_document);
    openapi::add_common_answers(&mut document, &["/health"]);
    let mcp = mcp_server::http_service(api.clone(), token.is_some(), stop);
    let state = AppState { api, token, openapi: Arc::from(document.to_json().unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))) };
    // Answers that last as long as a run: no time limit on the answer, only on the
    // arrival of the body.
    let callers = openai::router(body_limit, limits.request_time)
        .nest_service("/mcp", mcp)
        .route_layer(middleware::from_fn_with_state(state.clone(), auth::require_token))
        .layer(RequestBodyTimeoutLayer::new(limits.request_time))
        .layer(RequestBodyLimitLayer::new(body_limit))
        .with_state(state.clone());
    let app = Router::new()
        .merge(protected.route_layer(middleware::from_fn_with_state(state.clone(), auth::require_token)))
        .merge(public)
        .fallback_service(ui::fallback(ui_dir))
        .layer(DefaultBodyLimit::max(body_limit))
        .layer(RequestBodyLimitLayer::new(body_limit))
        .layer(TimeoutLayer::with_status_code(StatusCode::REQUEST_TIMEOUT, limits.request_time))
        .with_state(state);
    let app = callers.merge(app);
    // Outside the whole router, so it sees answers as they leave (with the `Allow`
    // header axum adds to a 405 last).
    Router::new().fallback_service(app).layer(middleware::from_fn(json_errors))
}
