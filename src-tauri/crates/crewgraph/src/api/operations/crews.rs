//! The crews of the crews folder: list them, open one, validate one, ask the scoring
//! router about one, the Simulate scripts that come with one; and signal matching
//! (one signal, or why a reply of an agent routes or does not).

use crewgraph_engine::diagnostic::Diagnostic;
use serde::Deserialize;
use ts_rs::TS;
use utoipa::openapi::{RefOr, Schema};
use utoipa::ToSchema;

use super::requests::{Nothing, WhichCrew};
use crate::api::operation::{schema_of, Operation, Route, Schemas};
use crate::api::{Api, ApiError, ApiErrorCode, CrewDocument, CrewSummary, MatchResult, ReplyExplanation, RouteResult, Validation};

/// The crews of the crews folder, for the start view.
pub struct ListCrews;

impl Operation for ListCrews {
    type Request = Nothing;
    const NAME: &'static str = "list_crews";
    const SUMMARY: &'static str = "The crews of the crews folder, each with its graph and problem counts";
    const ROUTE: Option<Route> = Some(Route::get("/crews", "crews"));
    const ERRORS: &'static [ApiErrorCode] = &[ApiErrorCode::Io];
    type Answer = Vec<CrewSummary>;

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<Vec<CrewSummary>>(schemas)
    }

    async fn call(_: Nothing, api: &Api) -> Result<Vec<CrewSummary>, ApiError> {
        let reader = api.clone();
        let mut crews = tokio::task::spawn_blocking(move || reader.list_crews())
            .await
            .map_err(|e| ApiError::new(ApiErrorCode::Io, format!("listing the crews failed: {e}")))??;
        crews.retain(|crew| api.reaches(std::path::Path::new(&crew.path)));
        for crew in &mut crews {
            crew.path = api.crew_name(&crew.path);
        }
        Ok(crews)
    }
}

/// Opens a crew file or crew folder.
pub struct OpenCrew;

impl Operation for OpenCrew {
    type Request = WhichCrew;
    const NAME: &'static str = "open_crew";
    const SUMMARY: &'static str = "Opens a crew file or crew folder: the crew, its graph and every problem";
    const ROUTE: Option<Route> = Some(Route::get("/crews/{crew}", "crews"));
    const ERRORS: &'static [ApiErrorCode] = &[ApiErrorCode::NotFound];
    type Answer = CrewDocument;

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<CrewDocument>(schemas)
    }

    async fn call(request: WhichCrew, api: &Api) -> Result<CrewDocument, ApiError> {
        let path = api.crew_path(&request.crew)?;
        let document = api.open_crew(&path).await;
        Ok(named(api, document, request.crew))
    }
}

/// `document` naming its crew `name` and its files as `api` names crews.
pub(super) fn named(api: &Api, mut document: CrewDocument, name: String) -> CrewDocument {
    document.path = name;
    for problem in &mut document.problems {
        rename(api, &mut problem.diagnostic);
    }
    document
}

fn rename(api: &Api, diagnostic: &mut Diagnostic) {
    if let Some(location) = &mut diagnostic.location {
        location.file = api.crew_name(&location.file);
    }
}

/// A crew's problems, without its graph.
pub struct ValidateCrew;

impl Operation for ValidateCrew {
    type Request = WhichCrew;
    const NAME: &'static str = "validate_crew";
    const SUMMARY: &'static str = "The crew's diagnostics (`valid` is false when it has errors)";
    const ROUTE: Option<Route> = Some(Route::get("/crews/{crew}/validation", "crews"));
    const ERRORS: &'static [ApiErrorCode] = &[ApiErrorCode::NotFound, ApiErrorCode::Store];
    type Answer = Validation;

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<Validation>(schemas)
    }

    async fn call(request: WhichCrew, api: &Api) -> Result<Validation, ApiError> {
        let path = api.crew_path(&request.crew)?;
        let mut validation = api.validate_crew(&path).await?;
        validation.diagnostics.iter_mut().for_each(|diagnostic| rename(api, diagnostic));
        Ok(validation)
    }
}

/// Where the scoring router would send a query (DESIGN.md §5).
#[derive(Clone, Debug, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct RouteQuery {
    #[schema(example = "support-triage.yaml")]
    pub crew: String,
    /// What the crew is asked to do.
    #[schema(example = "My invoice was charged twice")]
    pub query: String,
    /// An agent the person asks for (it wins when it is a candidate).
    #[serde(default)]
    #[ts(optional)]
    pub agent: Option<String>,
}

impl Operation for RouteQuery {
    type Request = Self;
    const NAME: &'static str = "route_query";
    const SUMMARY: &'static str = "The scoring router's choice for a query: the agent (or `finalize`), every candidate's score, the tokens";
    const ROUTE: Option<Route> = Some(Route::post("/crews/{crew}/route", "crews"));
    const ERRORS: &'static [ApiErrorCode] = &[ApiErrorCode::NotFound, ApiErrorCode::InvalidCrew];
    type Answer = RouteResult;

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<RouteResult>(schemas)
    }

    async fn call(request: Self, api: &Api) -> Result<RouteResult, ApiError> {
        let path = api.crew_path(&request.crew)?;
        api.route(&path, &request.query, request.agent.as_deref()).await
    }
}

/// Where the example crews come from (the window's start view).
pub struct CrewsFolder;

impl Operation for CrewsFolder {
    type Request = Nothing;
    const NAME: &'static str = "crews_folder";
    const SUMMARY: &'static str = "Where the example crews come from";
    // A server does not say where its files are.
    const ROUTE: Option<Route> = None;
    const ERRORS: &'static [ApiErrorCode] = &[];
    type Answer = String;

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<String>(schemas)
    }

    async fn call(_: Nothing, api: &Api) -> Result<String, ApiError> {
        Ok(api.crews_dir().display().to_string())
    }
}

/// The scripts for Simulate mode that come with a crew (`scripts/<name>.yaml` beside it).
pub struct CrewScripts;

impl Operation for CrewScripts {
    type Request = WhichCrew;
    const NAME: &'static str = "crew_scripts";
    const SUMMARY: &'static str = "The scripts for Simulate mode that come with the crew";
    const ROUTE: Option<Route> = Some(Route::get("/crews/{crew}/scripts", "editor"));
    const ERRORS: &'static [ApiErrorCode] = &[ApiErrorCode::NotFound];
    type Answer = Vec<String>;

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<Vec<String>>(schemas)
    }

    async fn call(request: WhichCrew, api: &Api) -> Result<Vec<String>, ApiError> {
        let path = api.crew_path(&request.crew)?;
        let scripts = api.crew_scripts(&path);
        Ok(scripts.iter().filter(|p| api.reaches(p)).map(|p| api.crew_name(&p.display().to_string())).collect())
    }
}

/// Whether a reply contains a signal, and how closely (DESIGN.md §3 levels).
#[derive(Clone, Debug, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct MatchSignal {
    #[schema(example = "[KẾT_THÚC]")]
    pub signal: String,
    #[schema(example = "Xong [ Kết  Thúc ]")]
    pub content: String,
}

impl Operation for MatchSignal {
    type Request = Self;
    const NAME: &'static str = "match_signal";
    const SUMMARY: &'static str = "Whether a reply contains a signal, and at which level";
    const ROUTE: Option<Route> = Some(Route::post("/match", "signals"));
    const ERRORS: &'static [ApiErrorCode] = &[];
    type Answer = MatchResult;

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<MatchResult>(schemas)
    }

    async fn call(request: Self, api: &Api) -> Result<MatchResult, ApiError> {
        api.match_signal(&request.signal, &request.content)
    }
}

/// Why a reply of one agent would or would not route, and what came close.
#[derive(Clone, Debug, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct ExplainReply {
    #[schema(example = "exam.yaml")]
    pub crew: String,
    /// The agent whose reply it is.
    #[schema(example = "student")]
    pub agent: String,
    /// The reply.
    #[schema(example = "What is 1/2 + 1/4? [QUESTON]")]
    pub content: String,
}

impl Operation for ExplainReply {
    type Request = Self;
    const NAME: &'static str = "explain_reply";
    const SUMMARY: &'static str = "Whether a reply of an agent routes, where, and when it does not, what came close (a misspelt \
                                   signal, its words without brackets, another agent's signal)";
    const ROUTE: Option<Route> = Some(Route::post("/crews/{crew}/explain", "signals"));
    const ERRORS: &'static [ApiErrorCode] = &[ApiErrorCode::NotFound, ApiErrorCode::InvalidCrew, ApiErrorCode::InvalidInput];
    type Answer = ReplyExplanation;

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<ReplyExplanation>(schemas)
    }

    async fn call(request: Self, api: &Api) -> Result<ReplyExplanation, ApiError> {
        let path = api.crew_path(&request.crew)?;
        api.explain_reply(&path, &request.agent, &request.content).await
    }
}
