//! The scoring router on its own (DESIGN.md §5, `crewgraph route`): which agent of a
//! crew (its runtime agents included) a query would go to, every candidate's score,
//! and the query's tokens — without running anything.

use std::path::Path;

use crewgraph_engine::routing::scoring::ScoringIndex;
use crewgraph_engine::run::Candidate;
use crewgraph_engine::AgentId;
use serde::Serialize;
use ts_rs::TS;
use utoipa::ToSchema;

use super::{Api, ApiError, ApiErrorCode};

/// A scoring decision, as `crewgraph route` prints it.
#[derive(Clone, Debug, PartialEq, Serialize, TS, ToSchema)]
#[ts(export)]
pub struct RouteResult {
    /// The chosen agent's id, or `finalize` when nobody scored above 0.
    pub chosen: String,
    /// Every candidate (all agents but the supervisor and the finalizer), in crew order.
    #[schema(value_type = Vec<Object>)]
    pub candidates: Vec<Candidate>,
    /// The query's tokens: lowercased, without diacritics, 3+ characters, distinct.
    pub tokens: Vec<String>,
}

/// A query the router can take: not empty.
pub fn check_query(query: &str) -> Result<(), ApiError> {
    if query.trim().is_empty() {
        return Err(ApiError::new(ApiErrorCode::InvalidInput, "the query is empty: write what the crew is asked to do"));
    }
    Ok(())
}

impl Api {
    /// Where the scoring router would send `query` in the crew at `path`;
    /// `requested` (an agent the person asked for) wins when it is a candidate.
    pub async fn route(&self, path: &Path, query: &str, requested: Option<&str>) -> Result<RouteResult, ApiError> {
        check_query(query)?;
        let loaded = self.load_crew(path).await?;
        let crew = match (loaded.is_valid(), &loaded.crew) {
            (true, Some(crew)) => crew,
            _ => {
                let errors: Vec<String> = loaded.errors().map(ToString::to_string).collect();
                return Err(ApiError::new(ApiErrorCode::InvalidCrew, format!("the crew has errors:\n{}", errors.join("\n"))));
            }
        };
        let requested = requested.map(AgentId::from);
        let scored = ScoringIndex::new(crew).route(query, requested.as_ref());
        Ok(RouteResult {
            chosen: scored.chosen.map_or_else(|| "finalize".to_owned(), |c| c.to_string()),
            candidates: scored.candidates.into_iter().map(|(agent, score)| Candidate { agent, score }).collect(),
            tokens: scored.tokens,
        })
    }
}
