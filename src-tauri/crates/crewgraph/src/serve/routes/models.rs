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

fn mask_credentials(url: &str) -> String {
    let Ok(mut parsed) = reqwest::Url::parse(url) else { return url.to_owned() };
    let mut masked = false;
    if !parsed.username().is_empty() || parsed.password().is_some() {
        let _ = parsed.set_username("***");
        let _ = parsed.set_password(None);
        masked = true;
    }
    if parsed.query().is_some() {
        let keys: Vec<String> = parsed.query_pairs().map(|(k, _)| k.into_owned()).collect();
        parsed.query_pairs_mut().clear().extend_pairs(keys.iter().map(|k| (k.as_str(), "***")));
        masked = true;
    }
    if masked {
        parsed.to_string()
    } else {
        url.to_owned()
    }
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
    let mut models = state.api.list_models(options.check).await?;
    for model in &mut models {
        model.base_url = mask_credentials(&model.base_url);
        if let Some(problem) = &mut model.problem {
            *problem = problem.replace(&model.base_url, &mask_credentials(&model.base_url));
        }
    }
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

#[cfg(test)]
mod tests {
    use super::mask_credentials;

    #[test]
    fn credentials_in_a_base_url_are_masked_and_plain_urls_kept() {
        assert_eq!(mask_credentials("https://api.openai.com/v1"), "https://api.openai.com/v1");
        let masked = mask_credentials("https://me:sk-secret@host.example/v1?api-key=sk-other&x=1");
        assert!(!masked.contains("sk-secret") && !masked.contains("sk-other"), "{masked}");
        assert!(masked.contains("host.example/v1"), "{masked}");
    }
}
