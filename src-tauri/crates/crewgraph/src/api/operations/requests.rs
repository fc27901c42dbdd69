//! The requests several operations take: nothing at all, or which crew, run or
//! model. An operation with a request of its own declares it beside the operation.

use serde::Deserialize;
use ts_rs::TS;
use utoipa::ToSchema;

/// No fields: the operation needs nothing but itself.
#[derive(Clone, Debug, Default, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct Nothing {}

/// A crew: its path in the window and the CLI, its name in the crews folder over HTTP.
#[derive(Clone, Debug, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct WhichCrew {
    #[schema(example = "exam.yaml")]
    pub crew: String,
}

/// A run, by its id.
#[derive(Clone, Debug, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct WhichRun {
    /// The run's id.
    #[schema(example = "run-5f0c2d1e9a7b3c41")]
    pub id: String,
}

/// A model, by the name crew files use (`model: NAME`), or `local`.
#[derive(Clone, Debug, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct WhichModel {
    #[schema(example = "fast")]
    pub name: String,
}
