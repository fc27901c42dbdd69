//! Testing a crew's routes (`crewgraph test`, the window's Test tab): whether every
//! arrow can be taken (Simulate scenarios, no model called), or how often real runs
//! take each (probes on a model).

use serde::Deserialize;
use ts_rs::TS;
use utoipa::openapi::{RefOr, Schema};
use utoipa::ToSchema;

use crate::api::operation::{any_object, Operation, Route, Schemas};
use crate::api::{Api, ApiError, ApiErrorCode, CrewTest, ProbesText};

/// A crew's route coverage to find.
#[derive(Clone, Debug, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct TestCrew {
    /// The crew: its path in the window and the CLI, its name in the crews folder over HTTP.
    #[schema(example = "exam.yaml")]
    pub crew: String,
    /// Probes to run on a real model instead of the Simulate scenarios: a probes
    /// file's YAML text (`probes:` and a list of requests, each optionally with
    /// `final_agent`, `status`, `repeat`). Its problems are named `probes`.
    #[serde(default)]
    #[ts(optional)]
    pub probes: Option<String>,
    /// A probes file instead of `probes` (a path in the window and the CLI, a file of
    /// the crews folder over HTTP).
    #[serde(default)]
    #[ts(optional)]
    pub probes_file: Option<String>,
    /// With probes: the model every agent uses (a named model, provider/model, or
    /// `local`); their own models otherwise.
    #[serde(default)]
    #[ts(optional)]
    pub model: Option<String>,
}

impl TestCrew {
    /// The probes it gives, read; None for the Simulate scenarios.
    pub fn probes(&self, api: &Api) -> Result<Option<ProbesText>, ApiError> {
        let invalid = |message: &str| ApiError::new(ApiErrorCode::InvalidInput, message);
        match (&self.probes, &self.probes_file) {
            (Some(_), Some(_)) => Err(invalid("give either 'probes' or 'probes_file', not both")),
            (Some(text), None) => Ok(Some(ProbesText { name: "probes".into(), text: text.clone() })),
            (None, Some(name)) => {
                let path = api.crew_path(name)?;
                let text = std::fs::read_to_string(&path).map_err(|e| {
                    let code = if e.kind() == std::io::ErrorKind::NotFound { ApiErrorCode::NotFound } else { ApiErrorCode::InvalidInput };
                    ApiError::new(code, format!("{name}:1:1: the probes file cannot be read: {e}"))
                })?;
                Ok(Some(ProbesText { name: name.clone(), text }))
            }
            (None, None) if self.model.is_some() => Err(invalid("a model is for probes: give probes to run on it, or leave the model out")),
            (None, None) => Ok(None),
        }
    }
}

impl Operation for TestCrew {
    type Request = Self;
    const NAME: &'static str = "test_crew";
    const SUMMARY: &'static str = "Route coverage: without probes, one Simulate run per arrow (no model called) and which arrows no run \
                                   can take, with why; with probes, each request on a real model and how often each arrow was taken \
                                   (CrewTest). Probes on a model can take longer than a request may: run those with `crewgraph test`";
    const ROUTE: Option<Route> = Some(Route::post("/crews/{crew}/test", "crews"));
    const ERRORS: &'static [ApiErrorCode] = &[ApiErrorCode::NotFound, ApiErrorCode::InvalidCrew, ApiErrorCode::Store];
    type Answer = CrewTest;

    fn answer_schema(_: &mut Schemas) -> RefOr<Schema> {
        any_object(false)
    }

    async fn call(request: Self, api: &Api) -> Result<CrewTest, ApiError> {
        let path = api.crew_path(&request.crew)?;
        let probes = request.probes(api)?;
        api.test_crew(&path, probes.as_ref(), request.model.as_deref()).await.map_err(|mut error| {
            error.message = api.in_names(&error.message, &path, &request.crew);
            error
        })
    }
}
