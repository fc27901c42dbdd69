//! The crews of the crews folder: list them, open one (its graph and problems),
//! validate one (its diagnostics), and ask the scoring router where a query would
//! go. A crew is named by its path relative to the crews folder (`exam.yaml`,
//! `go-quiz`; a nested one with its slashes percent-encoded), and answers name
//! crews and their files the same way.

use axum::extract::{Path, State};
use axum::Json;
use crewgraph_engine::diagnostic::Diagnostic;
use serde::Deserialize;
use ts_rs::TS;
use utoipa::ToSchema;

use crate::api::{ApiError, CrewDocument, CrewSummary, RouteResult, Validation};
use crate::serve::crew_path::CrewsRoot;
use crate::serve::error::HttpError;
use crate::serve::json::JsonBody;
use crate::serve::state::AppState;

/// Names a diagnostic's file relative to the crews folder.
fn rename_diagnostic(crews: &CrewsRoot, diagnostic: &mut Diagnostic) {
    if let Some(location) = &mut diagnostic.location {
        location.file = crews.name(&location.file);
    }
}

/// The crews of the crews folder: YAML files and folders holding a crew.yaml,
/// sorted by name, each with its graph (for a thumbnail) and problem counts.
#[utoipa::path(
    get,
    path = "/crews",
    tag = "crews",
    responses(
        (status = 200, description = "The crews, by name", body = [CrewSummary]),
        (status = 401, description = "No token, or a wrong one", body = ApiError),
    )
)]
pub async fn list(State(state): State<AppState>) -> Result<Json<Vec<CrewSummary>>, HttpError> {
    let api = state.api.clone();
    let mut crews = tokio::task::spawn_blocking(move || api.list_crews())
        .await
        .map_err(|e| HttpError::from(ApiError::new(crate::api::ApiErrorCode::Io, format!("listing the crews failed: {e}"))))??;
    // The same confinement as every other route: a symbolic link out of the folder
    // is not one of its crews.
    crews.retain(|crew| state.crews.contains(std::path::Path::new(&crew.path)));
    for crew in &mut crews {
        crew.path = state.crews.name(&crew.path);
    }
    Ok(Json(crews))
}

/// Opens a crew: its agents, signals, graph and every problem. A broken crew is not
/// an error here: its problems say what is wrong.
#[utoipa::path(
    get,
    path = "/crews/{crew}",
    tag = "crews",
    params(("crew" = String, Path, description = "The crew's path relative to the crews folder", example = "exam.yaml")),
    responses(
        (status = 200, description = "The crew", body = CrewDocument),
        (status = 400, description = "A name that is not a crew of this server (absolute, `..`, a link out)", body = ApiError),
        (status = 404, description = "No such crew", body = ApiError),
    )
)]
pub async fn open(State(state): State<AppState>, Path(crew): Path<String>) -> Result<Json<CrewDocument>, HttpError> {
    let path = state.crews.resolve(&crew)?;
    let mut document = state.api.open_crew(&path).await;
    rename_document(&state.crews, &mut document, crew);
    Ok(Json(document))
}

/// Names a crew document, and the files its problems point into, as answers do:
/// relative to the crews folder.
pub(super) fn rename_document(crews: &CrewsRoot, document: &mut CrewDocument, name: String) {
    document.path = name;
    for problem in &mut document.problems {
        rename_diagnostic(crews, &mut problem.diagnostic);
    }
}

/// Validates a crew (with its runtime agents): every error and warning, with file,
/// line and column.
#[utoipa::path(
    get,
    path = "/crews/{crew}/validation",
    tag = "crews",
    params(("crew" = String, Path, description = "The crew's path relative to the crews folder", example = "exam.yaml")),
    responses(
        (status = 200, description = "The crew's diagnostics (`valid` is false when it has errors)", body = Validation),
        (status = 400, description = "A name that is not a crew of this server", body = ApiError),
        (status = 404, description = "No such crew", body = ApiError),
    )
)]
pub async fn validate(State(state): State<AppState>, Path(crew): Path<String>) -> Result<Json<Validation>, HttpError> {
    let path = state.crews.resolve(&crew)?;
    let mut validation = state.api.validate_crew(&path).await?;
    for diagnostic in &mut validation.diagnostics {
        rename_diagnostic(&state.crews, diagnostic);
    }
    Ok(Json(validation))
}

/// A query for the scoring router.
#[derive(Clone, Debug, Deserialize, ToSchema, TS)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct RouteRequest {
    /// What the crew is asked to do.
    pub query: String,
    /// An agent the person asked for: it wins when it is a candidate.
    #[serde(default)]
    #[ts(optional)]
    pub agent: Option<String>,
}

/// Where the scoring router would send a query (as `crewgraph route`), without
/// running anything.
#[utoipa::path(
    post,
    path = "/crews/{crew}/route",
    tag = "crews",
    params(("crew" = String, Path, description = "The crew's path relative to the crews folder", example = "support-triage.yaml")),
    request_body = RouteRequest,
    responses(
        (status = 200, description = "The chosen agent (or `finalize`), every candidate's score, the query's tokens", body = RouteResult),
        (status = 400, description = "An empty query, or a body that is not a RouteRequest", body = ApiError),
        (status = 404, description = "No such crew", body = ApiError),
        (status = 422, description = "The crew has errors", body = ApiError),
    )
)]
pub async fn route(
    State(state): State<AppState>,
    Path(crew): Path<String>,
    JsonBody(request): JsonBody<RouteRequest>,
) -> Result<Json<RouteResult>, HttpError> {
    let path = state.crews.resolve(&crew)?;
    Ok(Json(state.api.route(&path, &request.query, request.agent.as_deref()).await?))
}
