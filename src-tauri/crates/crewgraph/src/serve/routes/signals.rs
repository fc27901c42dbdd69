//! `POST /match`: whether a reply contains a signal, and how closely (DESIGN.md §3
//! levels), as `crewgraph match` says.

use axum::extract::State;
use axum::Json;
use serde::Deserialize;
use ts_rs::TS;
use utoipa::ToSchema;

use crate::api::{ApiError, MatchResult};
use crate::serve::error::HttpError;
use crate::serve::json::JsonBody;
use crate::serve::state::AppState;

/// A signal and a reply to look for it in.
#[derive(Clone, Debug, Deserialize, ToSchema, TS)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct MatchRequest {
    /// A bracket signal: `[END]`.
    #[schema(example = "[KẾT_THÚC]")]
    pub signal: String,
    /// The reply.
    #[schema(example = "Xong [ Kết  Thúc ]")]
    pub content: String,
}

/// How a signal matches a reply: exact, case_insensitive, normalized or none.
#[utoipa::path(
    post,
    path = "/match",
    tag = "signals",
    request_body = MatchRequest,
    responses(
        (status = 200, description = "Whether it matched, and at which level", body = MatchResult),
        (status = 400, description = "A malformed signal (`[]`, `END`), or a body that is not a MatchRequest", body = ApiError),
    )
)]
pub async fn match_signal(
    State(state): State<AppState>,
    JsonBody(request): JsonBody<MatchRequest>,
) -> Result<Json<MatchResult>, HttpError> {
    Ok(Json(state.api.match_signal(&request.signal, &request.content)?))
}
