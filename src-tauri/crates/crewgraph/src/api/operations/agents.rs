//! Runtime agents of a crew (seed 002): add one (validated with the crew, kept in
//! the store, part of routing from the next decision), list them, remove one.

use serde::Deserialize;
use ts_rs::TS;
use utoipa::openapi::{RefOr, Schema};
use utoipa::ToSchema;

use super::requests::WhichCrew;
use crate::api::operation::{schema_of, Operation, Route, Schemas};
use crate::api::{Api, ApiError, ApiErrorCode, RuntimeAgentView};

/// Lists the runtime agents of a crew.
pub struct ListAgents;

impl Operation for ListAgents {
    type Request = WhichCrew;
    const NAME: &'static str = "list_agents";
    const SUMMARY: &'static str = "The runtime agents of a crew, in the order they were added";
    const ROUTE: Option<Route> = Some(Route::get("/crews/{crew}/agents", "agents"));
    const ERRORS: &'static [ApiErrorCode] = &[ApiErrorCode::NotFound, ApiErrorCode::InvalidCrew, ApiErrorCode::Store];
    type Answer = Vec<RuntimeAgentView>;

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<Vec<RuntimeAgentView>>(schemas)
    }

    async fn call(request: WhichCrew, api: &Api) -> Result<Vec<RuntimeAgentView>, ApiError> {
        api.list_runtime_agents(&api.crew_path(&request.crew)?).await
    }
}

/// A runtime agent to add: one agent in YAML, as in a crew folder's `agents/<id>.yaml`.
#[derive(Clone, Debug, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct AddAgent {
    #[schema(example = "support-triage.yaml")]
    pub crew: String,
    #[schema(example = "id: lore_keeper\nname: Lore keeper\nsystem_prompt: You know the lore.\n")]
    pub yaml: String,
}

impl Operation for AddAgent {
    type Request = Self;
    const NAME: &'static str = "add_agent";
    const SUMMARY: &'static str = "Adds a runtime agent to a crew, after checking it with the crew (errors at their line and column)";
    const ROUTE: Option<Route> = Some(Route::post("/crews/{crew}/agents", "agents").answering(201));
    const ERRORS: &'static [ApiErrorCode] =
        &[ApiErrorCode::NotFound, ApiErrorCode::Conflict, ApiErrorCode::InvalidCrew, ApiErrorCode::Store];
    type Answer = RuntimeAgentView;

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<RuntimeAgentView>(schemas)
    }

    async fn call(request: Self, api: &Api) -> Result<RuntimeAgentView, ApiError> {
        api.register_agent(&api.crew_path(&request.crew)?, &request.yaml, "agent").await
    }
}

/// A runtime agent to remove (the crew's own agents stay).
#[derive(Clone, Debug, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct RemoveAgent {
    #[schema(example = "support-triage.yaml")]
    pub crew: String,
    /// The runtime agent's id.
    #[schema(example = "lore_keeper")]
    pub id: String,
}

impl Operation for RemoveAgent {
    type Request = Self;
    const NAME: &'static str = "remove_agent";
    const SUMMARY: &'static str = "Removes a runtime agent";
    const ROUTE: Option<Route> = Some(Route::delete("/crews/{crew}/agents/{id}", "agents").answering(204));
    const ERRORS: &'static [ApiErrorCode] = &[ApiErrorCode::NotFound, ApiErrorCode::Store];
    type Answer = ();

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<()>(schemas)
    }

    async fn call(request: Self, api: &Api) -> Result<(), ApiError> {
        api.remove_runtime_agent(&api.crew_path(&request.crew)?, &request.id).await
    }
}
