//! Runtime agents of a crew (seed 002): add one (validated with the crew, kept in
//! the store, part of routing from the next decision), list them, remove one.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use ts_rs::TS;
use utoipa::ToSchema;

use crate::api::{ApiError, RuntimeAgentView};
use crate::serve::error::{no_content, HttpError};
use crate::serve::json::JsonBody;
use crate::serve::state::AppState;

/// A runtime agent to add: one agent in YAML, as in a crew folder's `agents/<id>.yaml`.
#[derive(Clone, Debug, Deserialize, ToSchema, TS)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct NewAgent {
    #[schema(example = "id: lore_keeper\nname: Lore keeper\nsystem_prompt: You know the lore.\n")]
    pub yaml: String,
}

/// The runtime agents of a crew, in the order they were added.
#[utoipa::path(
    get,
    path = "/crews/{crew}/agents",
    tag = "agents",
    params(("crew" = String, Path, description = "The crew's path relative to the crews folder")),
    responses(
        (status = 200, description = "Its runtime agents", body = [RuntimeAgentView]),
        (status = 404, description = "No such crew", body = ApiError),
        (status = 422, description = "The crew cannot be read", body = ApiError),
    )
)]
pub async fn list(State(state): State<AppState>, Path(crew): Path<String>) -> Result<Json<Vec<RuntimeAgentView>>, HttpError> {
    let path = state.crews.resolve(&crew)?;
    Ok(Json(state.api.list_runtime_agents(&path).await?))
}

/// Adds a runtime agent to a crew, after checking it with the crew.
#[utoipa::path(
    post,
    path = "/crews/{crew}/agents",
    tag = "agents",
    params(("crew" = String, Path, description = "The crew's path relative to the crews folder")),
    request_body = NewAgent,
    responses(
        (status = 201, description = "Added", body = RuntimeAgentView),
        (status = 400, description = "The agent has errors (each at its line and column)", body = ApiError),
        (status = 404, description = "No such crew", body = ApiError),
        (status = 409, description = "A runtime agent of that id is on the crew already", body = ApiError),
        (status = 422, description = "The crew itself has errors", body = ApiError),
    )
)]
pub async fn add(
    State(state): State<AppState>,
    Path(crew): Path<String>,
    JsonBody(agent): JsonBody<NewAgent>,
) -> Result<Response, HttpError> {
    let path = state.crews.resolve(&crew)?;
    let view = state.api.register_agent(&path, &agent.yaml, "agent").await?;
    Ok((StatusCode::CREATED, Json(view)).into_response())
}

/// Removes a runtime agent (the crew's own agents stay).
#[utoipa::path(
    delete,
    path = "/crews/{crew}/agents/{id}",
    tag = "agents",
    params(
        ("crew" = String, Path, description = "The crew's path relative to the crews folder"),
        ("id" = String, Path, description = "The runtime agent's id"),
    ),
    responses(
        (status = 204, description = "Removed"),
        (status = 400, description = "One of the crew's own agents", body = ApiError),
        (status = 404, description = "No such crew or runtime agent", body = ApiError),
    )
)]
pub async fn remove(State(state): State<AppState>, Path((crew, id)): Path<(String, String)>) -> Result<Response, HttpError> {
    let path = state.crews.resolve(&crew)?;
    state.api.remove_runtime_agent(&path, &id).await?;
    Ok(no_content())
}
