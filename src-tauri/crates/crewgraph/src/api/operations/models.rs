//! The models agents use: list them (never a key: only where each key comes from,
//! and base URLs with any credentials in them masked), add or replace one, remove
//! one, choose the default, check what one can do; find the model servers already
//! running on this computer (and where to look for them); and, in the window only,
//! keep an API key in the OS keyring or forget it (keys never travel over HTTP).

use serde::Deserialize;
use ts_rs::TS;
use utoipa::openapi::{RefOr, Schema};
use utoipa::ToSchema;

use super::requests::{Nothing, WhichModel};
use crate::api::operation::{schema_of, Operation, Route, Schemas};
use crate::api::{Api, ApiError, ApiErrorCode, ModelRequest, ModelView};
use crewgraph_llm::check::ModelCheck;
use crewgraph_llm::discover::FoundServer;

/// The models agents can use.
#[derive(Clone, Debug, Default, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct ListModels {
    /// Ask each model whether it answers.
    #[serde(default)]
    #[ts(optional, as = "Option<bool>")]
    pub check: bool,
}

impl Operation for ListModels {
    type Request = Self;
    const NAME: &'static str = "list_models";
    const SUMMARY: &'static str = "The models (no keys); with `check`, whether each answers";
    const ROUTE: Option<Route> = Some(Route::get("/models", "models"));
    const ERRORS: &'static [ApiErrorCode] = &[ApiErrorCode::Store];
    type Answer = Vec<ModelView>;

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<Vec<ModelView>>(schemas)
    }

    async fn call(request: Self, api: &Api) -> Result<Vec<ModelView>, ApiError> {
        api.list_models(request.check).await
    }
}

/// A model to add or replace, under the name crew files use (`model: NAME`).
#[derive(Clone, Debug, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct PutModel {
    #[schema(example = "fast")]
    pub name: String,
    #[serde(flatten)]
    #[ts(flatten)]
    pub model: ModelRequest,
}

impl Operation for PutModel {
    type Request = Self;
    const NAME: &'static str = "put_model";
    const SUMMARY: &'static str = "Adds or replaces a model";
    const ROUTE: Option<Route> = Some(Route::put("/models/{name}", "models").answering(204));
    const ERRORS: &'static [ApiErrorCode] = &[ApiErrorCode::Store];
    type Answer = ();

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<()>(schemas)
    }

    async fn call(request: Self, api: &Api) -> Result<(), ApiError> {
        api.put_model(&request.name, request.model).await
    }
}

/// Removes a model.
pub struct RemoveModel;

impl Operation for RemoveModel {
    type Request = WhichModel;
    const NAME: &'static str = "remove_model";
    const SUMMARY: &'static str = "Removes a model";
    const ROUTE: Option<Route> = Some(Route::delete("/models/{name}", "models").answering(204));
    const ERRORS: &'static [ApiErrorCode] = &[ApiErrorCode::NotFound, ApiErrorCode::Store];
    type Answer = ();

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<()>(schemas)
    }

    async fn call(request: WhichModel, api: &Api) -> Result<(), ApiError> {
        api.remove_model(&request.name).await
    }
}

/// Makes a model (a configured one, or `local`) the default.
pub struct SetDefaultModel;

impl Operation for SetDefaultModel {
    type Request = WhichModel;
    const NAME: &'static str = "set_default_model";
    const SUMMARY: &'static str = "Makes a model the default";
    const ROUTE: Option<Route> = Some(Route::post("/models/{name}/default", "models").answering(204));
    const ERRORS: &'static [ApiErrorCode] = &[ApiErrorCode::NotFound, ApiErrorCode::Store];
    type Answer = ();

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<()>(schemas)
    }

    async fn call(request: WhichModel, api: &Api) -> Result<(), ApiError> {
        api.set_default_model(&request.name).await
    }
}

/// An API key to keep in the OS keyring under `name`; it is never shown again.
#[derive(Clone, Debug, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct SetApiKey {
    pub name: String,
    pub key: String,
}

impl Operation for SetApiKey {
    type Request = Self;
    const NAME: &'static str = "set_api_key";
    const SUMMARY: &'static str = "Keeps an API key in the OS keyring";
    // Keys never travel over HTTP: a server's are set on its machine (`crewgraph keys`).
    const ROUTE: Option<Route> = None;
    const ERRORS: &'static [ApiErrorCode] = &[ApiErrorCode::Io];
    type Answer = ();

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<()>(schemas)
    }

    async fn call(request: Self, api: &Api) -> Result<(), ApiError> {
        api.set_api_key(&request.name, &request.key)
    }
}

/// Forgets the API key kept under `name`.
#[derive(Clone, Debug, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct RemoveApiKey {
    pub name: String,
}

impl Operation for RemoveApiKey {
    type Request = Self;
    const NAME: &'static str = "remove_api_key";
    const SUMMARY: &'static str = "Forgets an API key kept in the OS keyring; false when there was none";
    const ROUTE: Option<Route> = None;
    const ERRORS: &'static [ApiErrorCode] = &[ApiErrorCode::Io];
    type Answer = bool;

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<bool>(schemas)
    }

    async fn call(request: Self, api: &Api) -> Result<bool, ApiError> {
        api.remove_api_key(&request.name)
    }
}

/// Asks a model what it can do, and keeps the answer with it.
pub struct CheckModel;

impl Operation for CheckModel {
    type Request = WhichModel;
    const NAME: &'static str = "check_model";
    const SUMMARY: &'static str =
        "Asks a model whether it answers, its context window, streaming, tool calling, structured output and speed";
    const ROUTE: Option<Route> = Some(Route::post("/models/{name}/check", "models"));
    const ERRORS: &'static [ApiErrorCode] = &[ApiErrorCode::NotFound, ApiErrorCode::Store];
    type Answer = ModelCheck;

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<ModelCheck>(schemas)
    }

    async fn call(request: WhichModel, api: &Api) -> Result<ModelCheck, ApiError> {
        api.check_model(&request.name).await
    }
}

/// The model servers running where they are looked for.
pub struct DiscoverModels;

impl Operation for DiscoverModels {
    type Request = Nothing;
    const NAME: &'static str = "discover_models";
    const SUMMARY: &'static str = "The model servers (Ollama, LM Studio, llama.cpp, vLLM, Jan, LocalAI) running where they are looked for";
    const ROUTE: Option<Route> = Some(Route::get("/model-servers/found", "models"));
    const ERRORS: &'static [ApiErrorCode] = &[ApiErrorCode::Store];
    type Answer = Vec<FoundServer>;

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<Vec<FoundServer>>(schemas)
    }

    async fn call(_: Nothing, api: &Api) -> Result<Vec<FoundServer>, ApiError> {
        api.discover_models().await
    }
}

/// Where model servers are looked for.
pub struct ModelServers;

impl Operation for ModelServers {
    type Request = Nothing;
    const NAME: &'static str = "model_servers";
    const SUMMARY: &'static str = "The addresses (host:port) where model servers are looked for";
    const ROUTE: Option<Route> = Some(Route::get("/model-servers", "models"));
    const ERRORS: &'static [ApiErrorCode] = &[ApiErrorCode::Store];
    type Answer = Vec<String>;

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<Vec<String>>(schemas)
    }

    async fn call(_: Nothing, api: &Api) -> Result<Vec<String>, ApiError> {
        api.model_servers().await
    }
}

/// The addresses to look for model servers at; none means the usual ones.
#[derive(Clone, Debug, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct SetModelServers {
    /// `host:port` each, for example `127.0.0.1:11434`.
    pub addresses: Vec<String>,
}

impl Operation for SetModelServers {
    type Request = Self;
    const NAME: &'static str = "set_model_servers";
    const SUMMARY: &'static str = "Sets the addresses where model servers are looked for";
    const ROUTE: Option<Route> = Some(Route::put("/model-servers", "models").answering(204));
    const ERRORS: &'static [ApiErrorCode] = &[ApiErrorCode::Store];
    type Answer = ();

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<()>(schemas)
    }

    async fn call(request: Self, api: &Api) -> Result<(), ApiError> {
        api.set_model_servers(request.addresses).await
    }
}
