//! A crew's revisions side by side: its history, two revisions compared, and one
//! revision's crew (for the editor to restore it).

use serde::Deserialize;
use ts_rs::TS;
use utoipa::openapi::{RefOr, Schema};
use utoipa::ToSchema;

use super::requests::WhichCrew;
use crate::api::operation::{any_object, Operation, Route, Schemas};
use crate::api::{Api, ApiError, ApiErrorCode, RevisionDiff, RevisionSpec, RevisionView};

/// One revision of a crew.
#[derive(Clone, Debug, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct WhichRevision {
    #[schema(example = "exam.yaml")]
    pub crew: String,
    #[schema(example = 2)]
    pub revision: u32,
}

/// Two revisions of a crew to compare.
#[derive(Clone, Debug, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct CompareRevisions {
    #[schema(example = "exam.yaml")]
    pub crew: String,
    /// The older revision (the one compared with).
    #[schema(example = 1)]
    pub from: u32,
    /// The newer revision.
    #[schema(example = 2)]
    pub to: u32,
    /// The crew `to` belongs to, when it is named apart: another crew than `crew`
    /// is refused, in words.
    #[serde(default)]
    #[ts(optional)]
    pub to_crew: Option<String>,
}

/// The history of a crew.
pub struct ListRevisions;

impl Operation for ListRevisions {
    type Request = WhichCrew;
    const NAME: &'static str = "list_revisions";
    const SUMMARY: &'static str =
        "The crew's revisions, newest first: when each was kept, what changed since the one before in words, its runs (status, cost)";
    const ROUTE: Option<Route> = Some(Route::get("/crews/{crew}/revisions", "revisions"));
    const ERRORS: &'static [ApiErrorCode] = &[ApiErrorCode::NotFound, ApiErrorCode::Store];
    type Answer = Vec<RevisionView>;

    fn answer_schema(_: &mut Schemas) -> RefOr<Schema> {
        any_object(true)
    }

    async fn call(request: WhichCrew, api: &Api) -> Result<Vec<RevisionView>, ApiError> {
        api.list_revisions(&api.crew_path(&request.crew)?).await
    }
}

/// Two revisions of a crew compared.
pub struct DiffRevisions;

impl Operation for DiffRevisions {
    type Request = CompareRevisions;
    const NAME: &'static str = "diff_revisions";
    const SUMMARY: &'static str =
        "Two revisions of one crew compared: agents, routes, otherwise arrows, groups and signals added, removed or changed, \
         instructions as line hunks, every change in words, and both graphs as one with the changes marked";
    const ROUTE: Option<Route> = Some(Route::get("/crews/{crew}/revisions/diff", "revisions"));
    const ERRORS: &'static [ApiErrorCode] = &[ApiErrorCode::NotFound, ApiErrorCode::Store];
    type Answer = RevisionDiff;

    fn answer_schema(_: &mut Schemas) -> RefOr<Schema> {
        any_object(false)
    }

    async fn call(request: CompareRevisions, api: &Api) -> Result<RevisionDiff, ApiError> {
        let path = api.crew_path(&request.crew)?;
        let other = request.to_crew.as_deref().map(|name| api.crew_path(name)).transpose()?;
        let mut compared = api.diff_revisions(&path, request.from, request.to, other.as_deref()).await?;
        compared.crew = request.crew;
        Ok(compared)
    }
}

/// One revision's crew, as the editor holds a crew.
pub struct OpenRevision;

impl Operation for OpenRevision {
    type Request = WhichRevision;
    const NAME: &'static str = "open_revision";
    const SUMMARY: &'static str = "One revision of a crew as the editor holds a crew (its spec), to restore it";
    const ROUTE: Option<Route> = Some(Route::get("/crews/{crew}/revisions/spec", "revisions"));
    const ERRORS: &'static [ApiErrorCode] = &[ApiErrorCode::NotFound, ApiErrorCode::Store];
    type Answer = RevisionSpec;

    fn answer_schema(_: &mut Schemas) -> RefOr<Schema> {
        any_object(false)
    }

    async fn call(request: WhichRevision, api: &Api) -> Result<RevisionSpec, ApiError> {
        let mut revision = api.revision_spec(&api.crew_path(&request.crew)?, request.revision).await?;
        revision.crew = request.crew;
        Ok(revision)
    }
}
