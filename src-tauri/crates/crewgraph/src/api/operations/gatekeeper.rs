//! A gatekeeper service in the server: `POST /gatekeeper` answers the questions a
//! crew of the `gatekeeper` strategy asks after each agent's turn, deciding by
//! keywords ([`crate::api::decide_by_keywords`]).

use utoipa::openapi::{RefOr, Schema};

use crate::api::operation::{schema_of, Operation, Route, Schemas};
use crate::api::{decide_by_keywords, Api, ApiError, ApiErrorCode, GatekeeperAnswer, GatekeeperQuestion};

/// Decides who works next, by keywords: a gatekeeper any crew can use.
pub struct KeywordGatekeeper;

impl Operation for KeywordGatekeeper {
    type Request = GatekeeperQuestion;
    const NAME: &'static str = "keyword_gatekeeper";
    const SUMMARY: &'static str = "A gatekeeper service: the available agent that has not worked yet and shares most words with the \
                                   request and the latest work goes next; none above 0 completes the workflow";
    const ROUTE: Option<Route> = Some(Route::post("/gatekeeper", "routing"));
    const ERRORS: &'static [ApiErrorCode] = &[];
    type Answer = GatekeeperAnswer;

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<GatekeeperAnswer>(schemas)
    }

    async fn call(request: GatekeeperQuestion, _: &Api) -> Result<GatekeeperAnswer, ApiError> {
        Ok(decide_by_keywords(&request))
    }
}
