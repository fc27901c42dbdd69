//! Runs: start one (it goes on in the background of the server; the answer comes
//! once its first step is stored), list them, look at one, resume one, cancel one.
//! Their events are in [`super::events`]. A run's crew must be in the crews folder,
//! also when it is resumed (a run the CLI made of a crew elsewhere is not).

use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use crewgraph_engine::run::RunSummary;
use crewgraph_engine::RunId;
use serde::{Deserialize, Serialize};
use ts_rs::TS;
use utoipa::ToSchema;

use crewgraph_llm::TypedReplies;

use crate::api::{read_recording, ApiError, Recording, RunOptions, ScriptSource};
use crate::serve::error::HttpError;
use crate::serve::json::JsonBody;
use crate::serve::state::AppState;

/// A run to start.
#[derive(Clone, Debug, Deserialize, ToSchema, TS)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct StartRun {
    /// The crew's path relative to the crews folder.
    #[schema(example = "exam.yaml")]
    pub crew: String,
    /// What the crew is asked to do.
    #[schema(example = "Start the exam")]
    pub input: String,
    /// Simulate mode: the agents' replies from this script instead of a model — its
    /// YAML text, or the same as a JSON object (`{"replies": {"teacher": ["… [QUESTION]"]}}`).
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    #[ts(optional, type = "string | Record<string, unknown>")]
    pub script: Option<serde_json::Value>,
    /// Simulate mode with a script file of the crews folder (what
    /// `GET /crews/{crew}/scripts` lists), instead of `script`.
    #[serde(default)]
    #[ts(optional)]
    #[schema(example = "scripts/exam.yaml")]
    pub script_file: Option<String>,
    /// Simulate mode by hand: each agent's reply is typed in its turn
    /// (`POST /runs/{id}/reply`), instead of a script or a model.
    #[serde(default)]
    pub typed: bool,
    /// The model every agent uses instead of its own (a named model, provider/model, or `local`).
    #[serde(default)]
    #[ts(optional)]
    pub model: Option<String>,
    /// Under the scoring strategy: the agent the person asks for.
    #[serde(default)]
    #[ts(optional)]
    pub agent: Option<String>,
}

/// How to go on with a paused run (or an interrupted one).
#[derive(Clone, Debug, Default, Deserialize, ToSchema, TS)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct ResumeRun {
    /// The person's answer (needed for a paused run).
    #[serde(default)]
    #[ts(optional)]
    pub input: Option<String>,
    /// Replies from the resume point on (Simulate mode), as for `StartRun`.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    #[ts(optional, type = "string | Record<string, unknown>")]
    pub script: Option<serde_json::Value>,
    /// Simulate mode with the whole run's script file (of the crews folder): the
    /// replies the run has used already are skipped, as the window's Resume does.
    #[serde(default)]
    #[ts(optional)]
    pub script_file: Option<String>,
    /// Simulate mode by hand, as for `StartRun`.
    #[serde(default)]
    pub typed: bool,
    /// The model every agent uses instead of its own.
    #[serde(default)]
    #[ts(optional)]
    pub model: Option<String>,
}

/// A run under way (or told to stop), and where to watch it.
#[derive(Clone, Debug, Serialize, ToSchema, TS)]
#[ts(export)]
pub struct RunAccepted {
    #[schema(example = "run-5f0c2d1e9a7b3c41")]
    pub run_id: String,
    /// Its events, as server-sent events.
    #[schema(example = "/runs/run-5f0c2d1e9a7b3c41/events")]
    pub events: String,
}

/// One run: as listings show it, and whether it is going on in this server now.
#[derive(Clone, Debug, Serialize, ToSchema, TS)]
#[ts(export)]
pub struct RunDetail {
    #[schema(value_type = Object)]
    pub run: RunSummary,
    /// A leg of it is going on in this server now. A run whose status is `running`
    /// but is not live was interrupted: it can be resumed.
    pub live: bool,
    /// Its crew, relative to the crews folder (None when it is not in it).
    pub crew: Option<String>,
}

/// A run's options from a request's script (text or a file of the crews folder) and model.
fn options(
    state: &AppState,
    script: Option<serde_json::Value>,
    script_file: Option<String>,
    typed: bool,
    model: Option<String>,
    agent: Option<String>,
) -> Result<RunOptions, HttpError> {
    if typed {
        if script.as_ref().is_some_and(|s| !s.is_null()) || script_file.is_some() {
            return Err(HttpError::invalid("typed replies come instead of a script: give 'typed' or a script, not both"));
        }
        return Ok(RunOptions { typed: Some(TypedReplies::new()), model, requested_agent: agent, ..RunOptions::default() });
    }
    if let Some(name) = script_file {
        if script.as_ref().is_some_and(|s| !s.is_null()) {
            return Err(HttpError::invalid("give either 'script' or 'script_file', not both"));
        }
        let path = state.crews.resolve(&name)?;
        let script = Some(ScriptSource::File(path));
        return Ok(RunOptions { script, model, requested_agent: agent, ..RunOptions::default() });
    }
    let script = match script {
        None | Some(serde_json::Value::Null) => None,
        Some(serde_json::Value::String(text)) => Some(ScriptSource::Text(text)),
        Some(value @ (serde_json::Value::Object(_) | serde_json::Value::Array(_))) => {
            Some(ScriptSource::Text(serde_json::to_string(&value).map_err(|e| HttpError::invalid(e.to_string()))?))
        }
        Some(_) => return Err(HttpError::invalid("'script' must be the script's YAML text or a JSON object with 'replies'")),
    };
    Ok(RunOptions { script, model, requested_agent: agent, ..RunOptions::default() })
}

fn accepted(id: &RunId) -> Response {
    let events = format!("/runs/{id}/events");
    let mut response = (StatusCode::ACCEPTED, Json(RunAccepted { run_id: id.to_string(), events })).into_response();
    if let Ok(location) = format!("/runs/{id}").parse() {
        response.headers_mut().insert(header::LOCATION, location);
    }
    response
}

/// Every stored run, newest first.
#[utoipa::path(
    get,
    path = "/runs",
    tag = "runs",
    responses((status = 200, description = "The runs (RunSummary, see ui/src/bindings/RunSummary.ts)", body = [Object]))
)]
pub async fn list(State(state): State<AppState>) -> Result<Json<Vec<RunSummary>>, HttpError> {
    Ok(Json(state.api.list_runs().await?))
}

/// Starts a run; it goes on in the background. The answer comes once its first step
/// is stored: from then on it is listed and its events can be watched.
#[utoipa::path(
    post,
    path = "/runs",
    tag = "runs",
    request_body = StartRun,
    responses(
        (status = 202, description = "Under way", body = RunAccepted, headers(("Location" = String, description = "/runs/{id}"))),
        (status = 400, description = "An empty input, a bad script or model, or a body that is not a StartRun", body = ApiError),
        (status = 404, description = "No such crew", body = ApiError),
        (status = 422, description = "The crew has errors", body = ApiError),
    )
)]
pub async fn start(State(state): State<AppState>, JsonBody(request): JsonBody<StartRun>) -> Result<Response, HttpError> {
    if request.input.trim().is_empty() {
        return Err(HttpError::invalid("the input is empty: write what the crew is asked to do"));
    }
    let path = state.crews.resolve(&request.crew)?;
    let options = options(&state, request.script, request.script_file, request.typed, request.model, request.agent)?;
    let id = state.api.spawn_run(&path, &request.input, options).await?;
    Ok(accepted(&id))
}

/// One run, and whether it is going on in this server.
#[utoipa::path(
    get,
    path = "/runs/{id}",
    tag = "runs",
    params(("id" = String, Path, description = "The run's id")),
    responses((status = 200, description = "The run", body = RunDetail), (status = 404, description = "No such run", body = ApiError))
)]
pub async fn get(State(state): State<AppState>, Path(id): Path<String>) -> Result<Json<RunDetail>, HttpError> {
    let id = RunId::from(id);
    let (run, crew) = state.api.run_and_crew(&id).await?;
    let crew = crew.filter(|path| state.crews.contains(path)).map(|path| state.crews.name(&path.display().to_string()));
    Ok(Json(RunDetail { live: state.api.is_live(&id), run, crew }))
}

/// Resumes a paused run with the person's answer, or an interrupted one from its
/// last stored step. One resume of a run at a time: the second gets 409.
#[utoipa::path(
    post,
    path = "/runs/{id}/resume",
    tag = "runs",
    params(("id" = String, Path, description = "The run's id")),
    request_body(content = Option<ResumeRun>, description = "Optional for an interrupted run"),
    responses(
        (status = 202, description = "Under way again", body = RunAccepted),
        (status = 400, description = "A paused run without an answer, a run that has ended, a crew outside the crews folder", body = ApiError),
        (status = 404, description = "No such run", body = ApiError),
        (status = 409, description = "It is going on already (another client resumed it first)", body = ApiError),
        (status = 422, description = "Its crew has errors now", body = ApiError),
    )
)]
pub async fn resume(
    State(state): State<AppState>,
    Path(id): Path<String>,
    JsonBody(request): JsonBody<Option<ResumeRun>>,
) -> Result<Response, HttpError> {
    let id = RunId::from(id);
    let request = request.unwrap_or_default();
    match state.api.run_crew_path(&id).await? {
        Some(path) if state.crews.contains(&path) => {}
        _ => {
            return Err(HttpError::invalid(format!(
                "run '{id}' ran a crew outside this server's crews folder; resume it where it ran (crewgraph resume)"
            )))
        }
    }
    let options = options(&state, request.script, request.script_file, request.typed, request.model, None)?;
    let id = state.api.spawn_resume(&id, request.input.as_deref(), options).await?;
    Ok(accepted(&id))
}

/// Cancels a run going on in this server: it ends `cancelled` (its events kept).
#[utoipa::path(
    post,
    path = "/runs/{id}/cancel",
    tag = "runs",
    params(("id" = String, Path, description = "The run's id")),
    responses(
        (status = 202, description = "Told to stop; its last event will be `run_finished` with status `cancelled`", body = RunAccepted),
        (status = 404, description = "No such run", body = ApiError),
        (status = 409, description = "It is not going on (ended, paused, or interrupted)", body = ApiError),
    )
)]
pub async fn cancel(State(state): State<AppState>, Path(id): Path<String>) -> Result<Response, HttpError> {
    let id = RunId::from(id);
    state.api.cancel_run(&id).await?;
    Ok(accepted(&id))
}

/// Simulate mode by hand: what an agent says, typed by the person.
#[derive(Clone, Debug, Deserialize, ToSchema, TS)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct TypedReply {
    /// The agent whose turn it is (or whose next turn it will be).
    #[schema(example = "teacher")]
    pub agent: String,
    /// Its reply, signals included.
    #[schema(example = "Question 1: what is 2 + 2? [QUESTION]")]
    pub text: String,
}

/// Gives an agent of a run started with `typed` its reply.
#[utoipa::path(
    post,
    path = "/runs/{id}/reply",
    tag = "runs",
    params(("id" = String, Path, description = "The run's id")),
    request_body = TypedReply,
    responses(
        (status = 204, description = "Handed to the agent"),
        (status = 400, description = "An empty reply", body = ApiError),
        (status = 409, description = "The run is not going on here with typed replies", body = ApiError),
    )
)]
pub async fn reply(
    State(state): State<AppState>,
    Path(id): Path<String>,
    JsonBody(reply): JsonBody<TypedReply>,
) -> Result<Response, HttpError> {
    state.api.type_reply(&RunId::from(id), &reply.agent, &reply.text)?;
    Ok(crate::serve::error::no_content())
}

/// A run recording's text, to check and replay (the browser's Import).
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordingText {
    /// The file's name, for messages.
    #[schema(example = "exam-run.json")]
    pub name: String,
    /// The file's whole text.
    pub text: String,
}

/// A run and all its events as one recording, to save as a file.
#[utoipa::path(
    get,
    path = "/runs/{id}/recording",
    tag = "runs",
    params(("id" = String, Path, description = "The run's id")),
    responses(
        (status = 200, description = "The recording (Recording, ui/src/bindings/Recording.ts), as an attachment", body = Object),
        (status = 404, description = "No such run", body = ApiError),
    )
)]
pub async fn recording(State(state): State<AppState>, Path(id): Path<String>) -> Result<Response, HttpError> {
    let id = RunId::from(id);
    let mut recording = state.api.run_recording(&id).await?;
    recording.crew = recording.crew.map(|path| state.crews.name(&path));
    let disposition = format!("attachment; filename=\"{id}.json\"");
    let mut response = Json(recording).into_response();
    if let Ok(value) = disposition.parse() {
        response.headers_mut().insert(header::CONTENT_DISPOSITION, value);
    }
    Ok(response)
}

/// Checks a recording's text whole and answers it as a recording, to replay; the
/// store keeps nothing of it.
#[utoipa::path(
    post,
    path = "/recordings/check",
    tag = "runs",
    request_body = RecordingText,
    responses(
        (status = 200, description = "The recording (Recording, ui/src/bindings/Recording.ts)", body = Object),
        (status = 400, description = "Truncated, of a newer Crewgraph, or not a recording: the message says which", body = ApiError),
    )
)]
pub async fn check_recording(JsonBody(file): JsonBody<RecordingText>) -> Result<Json<Recording>, HttpError> {
    Ok(Json(read_recording(&file.name, &file.text)?))
}
