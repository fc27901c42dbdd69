//! The models agents use: list them (never a key: only where each key comes from,
//! and base URLs with any credentials in them masked), add or replace one, remove
//! one, choose the default. Keys themselves are not taken here: they live in the
//! OS keyring or the environment of the server (`crewgraph keys`).

use axum::extract::{Path, Query, State};
use axum::response::Response;
use axum::Json;
use serde::Deserialize;
use utoipa::IntoParams;

use crate::api::{ApiError, ModelRequest, ModelView};
use crate::serve::error::{no_content, HttpError};
use crate::serve::json::JsonBody;
use crate::serve::state::AppState;

/// `GET /models` options.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListModels {
    /// Also ask each model whether it answers (slow: one request per model).
    #[serde(default)]
    pub check: bool,
}

/// Every model, the built-in local one first, with where each key comes from.
#[utoipa::path(
    get,
    path = "/models",
    tag = "models",
    params(ListModels),
    responses((status = 200, description = "The models (no keys)", body = [ModelView]))
)]
pub async fn list(State(state): State<AppState>, Query(options): Query<ListModels>) -> Result<Json<Vec<ModelView>>, HttpError> {
    // The API masks credentials in base URLs for every caller.
    let models = state.api.list_models(options.check).await?;
    Ok(Json(models))
}

/// Adds the model `name`, or replaces it; the first one added becomes the default.
#[utoipa::path(
    put,
    path = "/models/{name}",
    tag = "models",
    params(("name" = String, Path, description = "The name crew files use (`model: NAME`)", example = "fast")),
    request_body = ModelRequest,
    responses(
        (status = 204, description = "Added"),
        (status = 400, description = "An unknown provider, a bad name or URL", body = ApiError),
    )
)]
pub async fn put(
    State(state): State<AppState>,
    Path(name): Path<String>,
    JsonBody(request): JsonBody<ModelRequest>,
) -> Result<Response, HttpError> {
    state.api.put_model(&name, request).await?;
    Ok(no_content())
}

/// Removes the model `name`.
#[utoipa::path(
    delete,
    path = "/models/{name}",
    tag = "models",
    params(("name" = String, Path, description = "The model's name")),
    responses((status = 204, description = "Removed"), (status = 404, description = "No such model", body = ApiError))
)]
pub async fn remove(State(state): State<AppState>, Path(name): Path<String>) -> Result<Response, HttpError> {
    state.api.remove_model(&name).await?;
    Ok(no_content())
}

/// Makes the model `name` (or `local`) the default.
#[utoipa::path(
    post,
    path = "/models/{name}/default",
    tag = "models",
    params(("name" = String, Path, description = "A configured model, or `local`")),
    responses((status = 204, description = "It is the default now"), (status = 404, description = "No such model", body = ApiError))
)]
pub async fn make_default(State(state): State<AppState>, Path(name): Path<String>) -> Result<Response, HttpError> {
    state.api.set_default_model(&name).await?;
    Ok(no_content())
}
