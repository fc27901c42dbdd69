//! The models agents use: list them (never a key: only where each key comes from,
//! and base URLs with any credentials in them masked), add or replace one, remove
//! one, choose the default. Keys themselves are not taken here: they live in the
//! OS keyring or the environment of the server (`crewgraph keys`).

use axum::extract::{Path, Query, State};
use axum::response::Response;
use axum::Json;
use crewgraph_llm::settings::{ModelConfig, Provider};
use serde::Deserialize;
use ts_rs::TS;
use utoipa::{IntoParams, ToSchema};

use crate::api::{ApiError, ModelView};
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

/// A model to add (or replace).
#[derive(Clone, Debug, Deserialize, ToSchema, TS)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct ModelRequest {
    /// `openai` (any OpenAI-compatible server), `anthropic` or `local`.
    #[schema(example = "openai")]
    pub provider: String,
    /// The provider's name for the model (`gpt-4o-mini`); unused by `local`.
    #[serde(default)]
    #[ts(optional)]
    pub model: Option<String>,
    /// Where the server is (default: the provider's own address).
    #[serde(default)]
    #[ts(optional)]
    pub base_url: Option<String>,
    /// The name its API key is kept under in the keyring or environment (default:
    /// the provider's name) — the name, never the key.
    #[serde(default)]
    #[ts(optional)]
    pub key_name: Option<String>,
    /// The most tokens a reply may take.
    #[serde(default)]
    #[ts(optional)]
    pub max_tokens: Option<u32>,
    /// Make it the default model.
    #[serde(default)]
    #[ts(optional)]
    pub default: Option<bool>,
}

/// Masks credentials a base URL may carry (`https://user:pass@host`, `?api-key=…`).
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
    let provider = Provider::parse(&request.provider)
        .ok_or_else(|| HttpError::invalid(format!("unknown provider '{}' (known: openai, anthropic, local)", request.provider)))?;
    let mut config = ModelConfig::new(provider, request.model.unwrap_or_default());
    config.base_url = request.base_url;
    config.key = request.key_name;
    config.max_tokens = request.max_tokens;
    state.api.add_model(&name, config, request.default.unwrap_or(false)).await?;
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
