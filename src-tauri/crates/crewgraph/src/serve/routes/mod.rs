//! The routes, one file per resource, and the router that joins them: every API
//! route behind the token check, `/health` and the UI's files outside it, and
//! around everything the body limit, the request's time limit and the JSON shape of
//! errors.
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

mod agents;
mod crews;
mod editor;
mod events;
mod health;
mod models;
mod runs;
mod signals;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::DefaultBodyLimit;
use axum::http::StatusCode;
use axum::{middleware, Router};
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::timeout::TimeoutLayer;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::auth::{self, Token};
use super::crew_path::CrewsRoot;
use super::error::json_errors;
use super::openapi::{self, ApiDoc};
use super::state::AppState;
use super::ui;
use crate::api::Api;

pub use agents::NewAgent;
pub use crews::RouteRequest;
pub use health::Health;
pub use runs::{ResumeRun, RunAccepted, RunDetail, StartRun};
pub use signals::MatchRequest;

/// The API's routes with their OpenAPI operations (all behind the token).
fn api_routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .routes(routes!(openapi::document))
        .routes(routes!(crews::list))
        .routes(routes!(crews::open))
        .routes(routes!(crews::validate))
        .routes(routes!(crews::route))
        .routes(routes!(editor::edit))
        .routes(routes!(editor::disk))
        .routes(routes!(editor::scripts))
        .routes(routes!(editor::check))
        .routes(routes!(editor::save))
        .routes(routes!(editor::yaml))
        .routes(routes!(editor::instructions))
        .routes(routes!(editor::signal_name))
        .routes(routes!(editor::recent))
        .routes(routes!(agents::list, agents::add))
        .routes(routes!(agents::remove))
        .routes(routes!(signals::match_signal))
        .routes(routes!(models::list))
        .routes(routes!(models::put, models::remove))
        .routes(routes!(models::make_default))
        .routes(routes!(runs::list, runs::start))
        .routes(routes!(runs::get))
        .routes(routes!(runs::resume))
        .routes(routes!(runs::cancel))
        .routes(routes!(runs::reply))
        .routes(routes!(runs::recording))
        .routes(routes!(runs::check_recording))
        .routes(routes!(events::events))
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

/// The whole application.
pub fn app(api: Api, crews: CrewsRoot, token: Option<Token>, ui_dir: Option<&Path>, limits: Limits) -> Router {
    let body_limit = limits.body;
    let (protected, mut document) = api_routes().split_for_parts();
    let (public, public_document) = OpenApiRouter::<AppState>::new().routes(routes!(health::health)).split_for_parts();
    document.merge(public_document);
    openapi::add_common_answers(&mut document, &["/health"]);
    let state = AppState {
        api,
        crews: Arc::new(crews),
        token,
        openapi: Arc::from(document.to_json().unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))),
    };
    let app = Router::new()
        .merge(protected.route_layer(middleware::from_fn_with_state(state.clone(), auth::require_token)))
        .merge(public)
        .fallback_service(ui::fallback(ui_dir))
        .layer(DefaultBodyLimit::max(body_limit))
        .layer(RequestBodyLimitLayer::new(body_limit))
        .layer(TimeoutLayer::with_status_code(StatusCode::REQUEST_TIMEOUT, limits.request_time))
        .with_state(state);
    // Outside the whole router, so it sees answers as they leave (with the `Allow`
    // header axum adds to a 405 last).
    Router::new().fallback_service(app).layer(middleware::from_fn(json_errors))
}
