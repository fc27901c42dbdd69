//! Runs: start one (it goes on in the background of the host; the answer comes
//! once its first step is stored), list them, look at one, resume one, cancel one,
//! type an agent's reply, and their recordings. A run's events are watched apart
//! from these ([`crate::api::Api::watch_run`]: a Tauri channel in the window,
//! server-sent events over HTTP). A server resumes only runs of crews in its crews
//! folder (a run the CLI made of a crew elsewhere is not).

use crewgraph_engine::run::{RunEvent, RunSummary};
use crewgraph_engine::RunId;
use serde::{Deserialize, Serialize};
use ts_rs::TS;
use utoipa::openapi::{RefOr, Schema};
use utoipa::ToSchema;

use super::requests::{Nothing, WhichRun};
use super::run_request::{ApproveToolCall, ForkRun, ResumeRun, StartRun};
use crate::api::operation::{any_object, schema_of, Operation, Route, Schemas};
use crate::api::{read_recording, Api, ApiError, ApiErrorCode, Recording, StepContext};

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

impl RunAccepted {
    fn of(id: &RunId) -> Self {
        Self { run_id: id.to_string(), events: format!("/runs/{id}/events") }
    }
}

/// Refuses a run of a crew outside this host's reach (a server's crews folder): a
/// leg of it goes on only where it ran — `there` says how.
async fn reached(api: &Api, id: &RunId, there: &str) -> Result<(), ApiError> {
    match api.run_crew_path(id).await? {
        Some(path) if api.reaches(&path) => Ok(()),
        _ => Err(ApiError::new(ApiErrorCode::InvalidInput, format!("run '{id}' ran a crew outside this server's crews folder; {there}"))),
    }
}

/// Where a run is, for the `Location` header.
fn location(accepted: &RunAccepted) -> Vec<(&'static str, String)> {
    vec![("location", format!("/runs/{}", accepted.run_id))]
}

impl Operation for StartRun {
    type Request = Self;
    const NAME: &'static str = "start_run";
    const SUMMARY: &'static str = "Starts a run; it goes on in the background. The answer comes once its first step is stored: \
                                   from then on it is listed and its events can be watched";
    const ROUTE: Option<Route> = Some(Route::post("/runs", "runs").answering(202));
    const ERRORS: &'static [ApiErrorCode] = &[ApiErrorCode::NotFound, ApiErrorCode::InvalidCrew, ApiErrorCode::Store];
    type Answer = RunAccepted;

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<RunAccepted>(schemas)
    }

    async fn call(request: Self, api: &Api) -> Result<RunAccepted, ApiError> {
        let options = request.options(api)?;
        let path = api.crew_path(&request.crew)?;
        Ok(RunAccepted::of(&api.spawn_run(&path, &request.input, options).await?))
    }

    fn headers(answer: &RunAccepted) -> Vec<(&'static str, String)> {
        location(answer)
    }
}

impl Operation for ResumeRun {
    type Request = Self;
    const NAME: &'static str = "resume_run";
    const SUMMARY: &'static str = "Resumes a paused run with the person's answer, or an interrupted one from its last stored step \
                                   (one resume of a run at a time: the second gets `conflict`)";
    const ROUTE: Option<Route> = Some(Route::post("/runs/{id}/resume", "runs").answering(202));
    const ERRORS: &'static [ApiErrorCode] =
        &[ApiErrorCode::NotFound, ApiErrorCode::Conflict, ApiErrorCode::InvalidCrew, ApiErrorCode::Store];
    type Answer = RunAccepted;

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<RunAccepted>(schemas)
    }

    async fn call(request: Self, api: &Api) -> Result<RunAccepted, ApiError> {
        let id = RunId::from(request.id.as_str());
        reached(api, &id, "resume it where it ran (crewgraph resume)").await?;
        let options = request.options(api)?;
        Ok(RunAccepted::of(&api.spawn_resume(&id, request.input.as_deref(), options).await?))
    }

    fn headers(answer: &RunAccepted) -> Vec<(&'static str, String)> {
        location(answer)
    }
}

impl Operation for ForkRun {
    type Request = Self;
    const NAME: &'static str = "fork_run";
    const SUMMARY: &'static str = "A new run forked from a stored one at one of its replies: the turns before it given again from \
                                   the stored run (no model asked, no tool called again), that reply replaced, the rest run on \
                                   its model or in Simulate; stored as the first's child (`forked_from`)";
    const ROUTE: Option<Route> = Some(Route::post("/runs/{id}/fork", "runs").answering(202));
    const ERRORS: &'static [ApiErrorCode] =
        &[ApiErrorCode::NotFound, ApiErrorCode::Conflict, ApiErrorCode::InvalidInput, ApiErrorCode::InvalidCrew, ApiErrorCode::Store];
    type Answer = RunAccepted;

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<RunAccepted>(schemas)
    }

    async fn call(request: Self, api: &Api) -> Result<RunAccepted, ApiError> {
        let id = RunId::from(request.id.as_str());
        reached(api, &id, "fork it where it ran (crewgraph fork)").await?;
        let (at, options) = request.fork(api)?;
        Ok(RunAccepted::of(&api.spawn_fork(&id, at, options).await?))
    }

    fn headers(answer: &RunAccepted) -> Vec<(&'static str, String)> {
        location(answer)
    }
}

impl Operation for ApproveToolCall {
    type Request = Self;
    const NAME: &'static str = "approve_tool_call";
    const SUMMARY: &'static str = "Answers a tool call a run waits on (its `tool_approval_requested` event): allow it once, for the \
                                   rest of the run, or deny it; the run goes on in the background (`not_found`: the run waits \
                                   on no such call)";
    const ROUTE: Option<Route> = Some(Route::post("/runs/{id}/approvals/{call_id}", "runs").answering(202));
    const ERRORS: &'static [ApiErrorCode] =
        &[ApiErrorCode::NotFound, ApiErrorCode::Conflict, ApiErrorCode::InvalidCrew, ApiErrorCode::Store];
    type Answer = RunAccepted;

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<RunAccepted>(schemas)
    }

    async fn call(request: Self, api: &Api) -> Result<RunAccepted, ApiError> {
        let id = RunId::from(request.id.as_str());
        reached(api, &id, "answer it where it ran (crewgraph approve)").await?;
        let (answer, options) = request.answer(api)?;
        Ok(RunAccepted::of(&api.spawn_answer(&id, answer, options).await?))
    }

    fn headers(answer: &RunAccepted) -> Vec<(&'static str, String)> {
        location(answer)
    }
}

/// Cancels a run going on here.
pub struct CancelRun;

impl Operation for CancelRun {
    type Request = WhichRun;
    const NAME: &'static str = "cancel_run";
    const SUMMARY: &'static str = "Stops a run going on here: it ends `cancelled`, its events kept (`conflict`: it is not going on)";
    const ROUTE: Option<Route> = Some(Route::post("/runs/{id}/cancel", "runs").answering(202));
    const ERRORS: &'static [ApiErrorCode] = &[ApiErrorCode::NotFound, ApiErrorCode::Conflict];
    type Answer = RunAccepted;

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<RunAccepted>(schemas)
    }

    async fn call(request: WhichRun, api: &Api) -> Result<RunAccepted, ApiError> {
        let id = RunId::from(request.id.as_str());
        api.cancel_run(&id).await?;
        Ok(RunAccepted::of(&id))
    }

    fn headers(answer: &RunAccepted) -> Vec<(&'static str, String)> {
        location(answer)
    }
}

/// Every stored run.
pub struct ListRuns;

impl Operation for ListRuns {
    type Request = Nothing;
    const NAME: &'static str = "list_runs";
    const SUMMARY: &'static str = "Every stored run, newest first (RunSummary)";
    const ROUTE: Option<Route> = Some(Route::get("/runs", "runs"));
    const ERRORS: &'static [ApiErrorCode] = &[ApiErrorCode::Store];
    type Answer = Vec<RunSummary>;

    fn answer_schema(_: &mut Schemas) -> RefOr<Schema> {
        any_object(true)
    }

    async fn call(_: Nothing, api: &Api) -> Result<Vec<RunSummary>, ApiError> {
        api.list_runs().await
    }
}

/// One run: as listings show it, whether it is going on here now, and its crew.
#[derive(Clone, Debug, Serialize, ToSchema, TS)]
#[ts(export)]
pub struct RunDetail {
    #[schema(value_type = Object)]
    pub run: RunSummary,
    /// A leg of it is going on here now. A run whose status is `running` but is not
    /// live was interrupted: it can be resumed.
    pub live: bool,
    /// Its crew file or folder, as crews are named here (None when it is not known,
    /// or out of reach: a server's run of a crew outside its crews folder).
    pub crew: Option<String>,
}

/// Looks at one run.
pub struct GetRun;

impl Operation for GetRun {
    type Request = WhichRun;
    const NAME: &'static str = "get_run";
    const SUMMARY: &'static str = "One run, whether it is going on here, and its crew";
    const ROUTE: Option<Route> = Some(Route::get("/runs/{id}", "runs"));
    const ERRORS: &'static [ApiErrorCode] = &[ApiErrorCode::NotFound, ApiErrorCode::Store];
    type Answer = RunDetail;

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<RunDetail>(schemas)
    }

    async fn call(request: WhichRun, api: &Api) -> Result<RunDetail, ApiError> {
        api.run_detail(&RunId::from(request.id.as_str())).await
    }
}

/// One step of a run, for what its agents were given.
#[derive(Clone, Debug, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct WhichStep {
    /// The run's id.
    #[schema(example = "run-5f0c2d1e9a7b3c41")]
    pub id: String,
    /// The step (an `agent_started` event's `step`).
    #[schema(example = 2)]
    pub step: u32,
    /// Only this agent's calls (a parallel group's step has several agents).
    #[serde(default)]
    #[ts(optional)]
    pub agent: Option<String>,
}

/// What an agent saw at one turn.
pub struct StepContextOf;

impl Operation for StepContextOf {
    type Request = WhichStep;
    const NAME: &'static str = "step_context";
    const SUMMARY: &'static str = "What the agents of one step of a run were given: for each model call, the system prompt (its \
                                   signal paragraph included), the messages shown, those the context window cut, and the \
                                   tokens (`not_found`: no such run or turn, or a run recorded before this was kept)";
    const ROUTE: Option<Route> = Some(Route::get("/runs/{id}/context", "runs"));
    const ERRORS: &'static [ApiErrorCode] = &[ApiErrorCode::NotFound, ApiErrorCode::Store];
    type Answer = StepContext;

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<StepContext>(schemas)
    }

    async fn call(request: WhichStep, api: &Api) -> Result<StepContext, ApiError> {
        api.step_context(&RunId::from(request.id.as_str()), request.step, request.agent.as_deref()).await
    }
}

/// Simulate mode by hand: what an agent says, typed by the person.
#[derive(Clone, Debug, Deserialize, ToSchema, TS)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct TypeReply {
    /// The run's id.
    #[schema(example = "run-5f0c2d1e9a7b3c41")]
    pub id: String,
    /// The agent whose turn it is (or whose next turn it will be).
    #[schema(example = "teacher")]
    pub agent: String,
    /// Its reply, signals included.
    #[schema(example = "Question 1: what is 2 + 2? [QUESTION]")]
    pub text: String,
}

impl Operation for TypeReply {
    type Request = Self;
    const NAME: &'static str = "type_reply";
    const SUMMARY: &'static str =
        "Gives an agent of a run started with `typed` its reply (`conflict`: not going on here with typed replies)";
    const ROUTE: Option<Route> = Some(Route::post("/runs/{id}/reply", "runs").answering(204));
    const ERRORS: &'static [ApiErrorCode] = &[ApiErrorCode::Conflict];
    type Answer = ();

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<()>(schemas)
    }

    async fn call(request: Self, api: &Api) -> Result<(), ApiError> {
        api.type_reply(&RunId::from(request.id.as_str()), &request.agent, &request.text)
    }
}

/// A run's recording.
pub struct RunRecording;

impl Operation for RunRecording {
    type Request = WhichRun;
    const NAME: &'static str = "run_recording";
    const SUMMARY: &'static str = "A run and all its events as one recording (Recording), to save as a file";
    const ROUTE: Option<Route> = Some(Route::get("/runs/{id}/recording", "runs"));
    const ERRORS: &'static [ApiErrorCode] = &[ApiErrorCode::NotFound, ApiErrorCode::Store];
    type Answer = Recording;

    fn answer_schema(_: &mut Schemas) -> RefOr<Schema> {
        any_object(false)
    }

    async fn call(request: WhichRun, api: &Api) -> Result<Recording, ApiError> {
        let mut recording = api.run_recording(&RunId::from(request.id.as_str())).await?;
        recording.crew = recording.crew.map(|path| api.crew_name(&path));
        Ok(recording)
    }

    fn headers(recording: &Recording) -> Vec<(&'static str, String)> {
        vec![("content-disposition", format!("attachment; filename=\"{}.json\"", recording.run.id))]
    }
}

/// A run recording's text, to check and replay (the browser's Import).
#[derive(Clone, Debug, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct CheckRecording {
    /// The file's name, for messages.
    #[schema(example = "exam-run.json")]
    pub name: String,
    /// The file's whole text.
    pub text: String,
}

impl Operation for CheckRecording {
    type Request = Self;
    const NAME: &'static str = "check_recording";
    const SUMMARY: &'static str = "Checks a recording's text whole and answers it as a Recording, to replay; nothing is kept";
    const ROUTE: Option<Route> = Some(Route::post("/recordings/check", "runs"));
    const ERRORS: &'static [ApiErrorCode] = &[];
    type Answer = Recording;

    fn answer_schema(_: &mut Schemas) -> RefOr<Schema> {
        any_object(false)
    }

    async fn call(request: Self, _: &Api) -> Result<Recording, ApiError> {
        read_recording(&request.name, &request.text)
    }
}

/// Where to write a run's recording (the window only: a file of this machine).
#[derive(Clone, Debug, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct ExportRun {
    pub id: String,
    pub path: String,
}

impl Operation for ExportRun {
    type Request = Self;
    const NAME: &'static str = "export_run";
    const SUMMARY: &'static str = "Writes a run's recording (every event, one JSON file) to a file";
    // A browser downloads `run_recording` instead.
    const ROUTE: Option<Route> = None;
    const ERRORS: &'static [ApiErrorCode] = &[ApiErrorCode::NotFound, ApiErrorCode::Io, ApiErrorCode::Store];
    type Answer = ();

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<()>(schemas)
    }

    async fn call(request: Self, api: &Api) -> Result<(), ApiError> {
        api.export_run(&RunId::from(request.id.as_str()), std::path::Path::new(&request.path)).await
    }
}

/// A run recording's file, to replay (the window only).
#[derive(Clone, Debug, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct ImportRecording {
    pub path: String,
}

impl Operation for ImportRecording {
    type Request = Self;
    const NAME: &'static str = "import_recording";
    const SUMMARY: &'static str = "Reads a run recording, checked whole, to replay it";
    // A browser sends the file's text to `check_recording` instead.
    const ROUTE: Option<Route> = None;
    const ERRORS: &'static [ApiErrorCode] = &[];
    type Answer = Recording;

    fn answer_schema(_: &mut Schemas) -> RefOr<Schema> {
        any_object(false)
    }

    async fn call(request: Self, api: &Api) -> Result<Recording, ApiError> {
        api.import_recording(std::path::Path::new(&request.path))
    }
}

/// Every stored event of a run.
pub struct RunEvents;

impl Operation for RunEvents {
    type Request = WhichRun;
    const NAME: &'static str = "run_events";
    const SUMMARY: &'static str = "Every stored event of a run";
    // Over HTTP: `GET /runs/{id}/events` with `Accept: application/json` (one route
    // for a run's events, stored or live).
    const ROUTE: Option<Route> = None;
    const ERRORS: &'static [ApiErrorCode] = &[ApiErrorCode::NotFound, ApiErrorCode::Store];
    type Answer = Vec<RunEvent>;

    fn answer_schema(_: &mut Schemas) -> RefOr<Schema> {
        any_object(true)
    }

    async fn call(request: WhichRun, api: &Api) -> Result<Vec<RunEvent>, ApiError> {
        api.run_events(&RunId::from(request.id.as_str()), None).await
    }
}

/// The runs going on here now.
pub struct ListLiveRuns;

impl Operation for ListLiveRuns {
    type Request = Nothing;
    const NAME: &'static str = "live_runs";
    const SUMMARY: &'static str = "The ids of the runs going on here now (a window that reloads catches up on them)";
    const ROUTE: Option<Route> = Some(Route::get("/runs/live", "runs"));
    const ERRORS: &'static [ApiErrorCode] = &[];
    type Answer = Vec<String>;

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<Vec<String>>(schemas)
    }

    async fn call(_: Nothing, api: &Api) -> Result<Vec<String>, ApiError> {
        Ok(api.live_runs().ids().iter().map(ToString::to_string).collect())
    }
}

/// A scripted run one turn at a time: its next turn comes.
pub struct StepRun;

impl Operation for StepRun {
    type Request = WhichRun;
    const NAME: &'static str = "step_run";
    const SUMMARY: &'static str = "Lets the next turn of a run going on one turn at a time come (`conflict`: not going on so here)";
    const ROUTE: Option<Route> = Some(Route::post("/runs/{id}/step", "runs").answering(204));
    const ERRORS: &'static [ApiErrorCode] = &[ApiErrorCode::Conflict];
    type Answer = ();

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<()>(schemas)
    }

    async fn call(request: WhichRun, api: &Api) -> Result<(), ApiError> {
        api.step_run(&RunId::from(request.id.as_str()))
    }
}
