//! Settings → Traces: where runs' OpenTelemetry traces go, and how that is going
//! (spans sent, dropped, failed). docs/observability.md.

use utoipa::openapi::{RefOr, Schema};

use super::requests::Nothing;
use crate::api::operation::{schema_of, Operation, Route, Schemas};
use crate::api::{Api, ApiError, ApiErrorCode, TraceSettings, TracesView};

/// Settings → Traces and where tracing stands.
pub struct Traces;

impl Operation for Traces {
    type Request = Nothing;
    const NAME: &'static str = "traces";
    const SUMMARY: &'static str = "Where runs' OpenTelemetry traces go, and the spans sent, dropped and failed so far";
    const ROUTE: Option<Route> = Some(Route::get("/traces", "traces"));
    const ERRORS: &'static [ApiErrorCode] = &[ApiErrorCode::Store];
    type Answer = TracesView;

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<TracesView>(schemas)
    }

    async fn call(_: Nothing, api: &Api) -> Result<TracesView, ApiError> {
        api.traces_view().await
    }
}

/// Keeps Settings → Traces; runs started from now on follow them.
pub struct SetTraces;

impl Operation for SetTraces {
    type Request = TraceSettings;
    const NAME: &'static str = "set_traces";
    const SUMMARY: &'static str = "Sets where runs' OpenTelemetry traces go (endpoint, headers, content capture), or turns them off";
    const ROUTE: Option<Route> = Some(Route::put("/traces", "traces"));
    const ERRORS: &'static [ApiErrorCode] = &[ApiErrorCode::Store];
    type Answer = TracesView;

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<TracesView>(schemas)
    }

    async fn call(request: TraceSettings, api: &Api) -> Result<TracesView, ApiError> {
        api.set_trace_settings(request).await
    }
}
