//! `GET /health`: whether the server answers — the one route that needs no token,
//! for load balancers and scripts that wait for the server to come up.

use axum::Json;
use serde::Serialize;
use ts_rs::TS;
use utoipa::ToSchema;

/// The answer of `/health`.
#[derive(Clone, Debug, Serialize, ToSchema, TS)]
#[ts(export)]
pub struct Health {
    /// Always `ok`.
    #[schema(example = "ok")]
    pub status: String,
}

/// Whether the server answers (no token needed).
#[utoipa::path(
    get,
    path = "/health",
    tag = "server",
    security(()),
    responses((status = 200, description = "The server answers", body = Health))
)]
pub async fn health() -> Json<Health> {
    Json(Health { status: "ok".into() })
}
