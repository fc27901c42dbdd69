//! The editor over HTTP: open a crew for editing, check an edited crew as it is
//! typed, save it (refused with 409 when its files changed on disk since it was
//! opened), its YAML, what the engine adds to an agent's prompt, signal names, the
//! crews opened lately, and the Simulate scripts that come with a crew. As
//! everywhere in the server, crews are named relative to the crews folder and no
//! route reads or writes outside it; Export is the browser's download of the YAML.

use axum::extract::{Path, State};
use axum::Json;
use serde::Deserialize;
use serde_json::Value;
use utoipa::ToSchema;

use super::crews::rename_document;
use crate::api::{ApiError, CheckCrew, CrewDocument, EditableCrew, RecentCrew, SaveCrew, SavedCrew};
use crate::serve::error::HttpError;
use crate::serve::json::JsonBody;
use crate::serve::state::AppState;

/// An edited crew, for its YAML.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SpecBody {
    /// The crew as the editor holds it (CrewSpec, ui/src/bindings/CrewSpec.ts).
    #[schema(value_type = Object)]
    pub spec: Value,
}

/// An edited crew and one of its agents.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct InstructionsBody {
    #[schema(value_type = Object)]
    pub spec: Value,
    pub agent: String,
}

/// A signal name to check.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SignalNameBody {
    #[schema(example = "[READY]")]
    pub name: String,
}

/// Opens a crew for editing: the crew as the editor holds it, the engine's verdict,
/// where the person placed its nodes, and the fingerprint of its files.
#[utoipa::path(
    get,
    path = "/crews/{crew}/edit",
    tag = "editor",
    params(("crew" = String, Path, description = "The crew's path relative to the crews folder", example = "exam.yaml")),
    responses(
        (status = 200, description = "The crew to edit (EditableCrew, ui/src/bindings/EditableCrew.ts)", body = Object),
        (status = 400, description = "A name that is not a crew of this server", body = ApiError),
        (status = 404, description = "No such crew", body = ApiError),
    )
)]
pub async fn edit(State(state): State<AppState>, Path(crew): Path<String>) -> Result<Json<EditableCrew>, HttpError> {
    let path = state.crews.resolve(&crew)?;
    let mut editable = state.api.edit_crew(&path).await;
    editable.path = crew.clone();
    rename_document(&state.crews, &mut editable.document, crew);
    Ok(Json(editable))
}

/// The crew's files as they are now, to compare with `disk` from when it was opened.
#[utoipa::path(
    get,
    path = "/crews/{crew}/disk",
    tag = "editor",
    params(("crew" = String, Path, description = "The crew's path relative to the crews folder")),
    responses(
        (status = 200, description = "The fingerprint of its files", body = String, content_type = "application/json"),
        (status = 404, description = "No such crew", body = ApiError),
    )
)]
pub async fn disk(State(state): State<AppState>, Path(crew): Path<String>) -> Result<Json<String>, HttpError> {
    let path = state.crews.resolve(&crew)?;
    Ok(Json(state.api.crew_disk(&path)))
}

/// The Simulate scripts that come with the crew (`scripts/<name>.yaml` beside it),
/// named relative to the crews folder (what `script_file` of a run takes).
#[utoipa::path(
    get,
    path = "/crews/{crew}/scripts",
    tag = "editor",
    params(("crew" = String, Path, description = "The crew's path relative to the crews folder", example = "exam.yaml")),
    responses(
        (status = 200, description = "Its scripts", body = [String]),
        (status = 404, description = "No such crew", body = ApiError),
    )
)]
pub async fn scripts(State(state): State<AppState>, Path(crew): Path<String>) -> Result<Json<Vec<String>>, HttpError> {
    let path = state.crews.resolve(&crew)?;
    let scripts = state.api.crew_scripts(&path);
    Ok(Json(scripts.iter().filter(|p| state.crews.contains(p)).map(|p| state.crews.name(&p.display().to_string())).collect()))
}

/// The engine's verdict on an edited crew: its graph and every problem.
#[utoipa::path(
    post,
    path = "/editor/check",
    tag = "editor",
    request_body(content = Object, description = "CheckCrew: `{path?, spec}`"),
    responses(
        (status = 200, description = "The crew as the engine sees it", body = CrewDocument),
        (status = 400, description = "A body that is not a CheckCrew, or a spec that is not a crew's shape", body = ApiError),
    )
)]
pub async fn check(State(state): State<AppState>, JsonBody(mut check): JsonBody<CheckCrew>) -> Result<Json<CrewDocument>, HttpError> {
    let name = check.path.take();
    if let Some(name) = &name {
        check.path = Some(state.crews.resolve_target(name)?.display().to_string());
    }
    let mut document = state.api.check_crew(&check)?;
    rename_document(&state.crews, &mut document, name.unwrap_or_else(|| "untitled.yaml".into()));
    Ok(Json(document))
}

/// Saves an edited crew inside the crews folder. Refused with 409 (`conflict`) when
/// its files changed since `disk`, or when a new name exists, unless `overwrite`.
#[utoipa::path(
    post,
    path = "/editor/save",
    tag = "editor",
    request_body(content = Object, description = "SaveCrew: `{path, layout, spec, positions, disk?, overwrite}`"),
    responses(
        (status = 200, description = "Saved (SavedCrew, ui/src/bindings/SavedCrew.ts)", body = Object),
        (status = 400, description = "A name outside the crews folder, or a spec that is not a crew's shape", body = ApiError),
        (status = 409, description = "Changed on disk since it was opened, or the new name exists", body = ApiError),
    )
)]
pub async fn save(State(state): State<AppState>, JsonBody(mut save): JsonBody<SaveCrew>) -> Result<Json<SavedCrew>, HttpError> {
    let name = std::mem::take(&mut save.path);
    save.path = state.crews.resolve_target(&name)?.display().to_string();
    let mut saved = state.api.save_crew(&save).await.map_err(|error| rename_message(&state, error, &save.path, &name))?;
    saved.path = name.clone();
    rename_document(&state.crews, &mut saved.document, name);
    Ok(Json(saved))
}

/// An API error about the file at `path`, naming it as the client did.
fn rename_message(state: &AppState, mut error: ApiError, path: &str, name: &str) -> HttpError {
    error.message = error.message.replace(path, name).replace(&state.crews.path().display().to_string(), "the crews folder");
    HttpError::from(error)
}

/// The edited crew as the YAML of one self-contained file.
#[utoipa::path(
    post,
    path = "/editor/yaml",
    tag = "editor",
    request_body = SpecBody,
    responses(
        (status = 200, description = "The YAML text", body = String, content_type = "application/json"),
        (status = 400, description = "A spec that is not a crew's shape", body = ApiError),
    )
)]
pub async fn yaml(State(state): State<AppState>, JsonBody(body): JsonBody<SpecBody>) -> Result<Json<String>, HttpError> {
    Ok(Json(state.api.crew_yaml(&body.spec)?))
}

/// What the engine appends to an agent's prompt about its signals (null: nothing).
#[utoipa::path(
    post,
    path = "/editor/instructions",
    tag = "editor",
    request_body = InstructionsBody,
    responses(
        (status = 200, description = "The appended instructions, or null", body = Option<String>, content_type = "application/json"),
        (status = 400, description = "A spec that is not a crew's shape", body = ApiError),
    )
)]
pub async fn instructions(
    State(state): State<AppState>,
    JsonBody(body): JsonBody<InstructionsBody>,
) -> Result<Json<Option<String>>, HttpError> {
    Ok(Json(state.api.agent_instructions(&body.spec, &body.agent)?))
}

/// What is wrong with a signal name, in plain words (null: nothing).
#[utoipa::path(
    post,
    path = "/editor/signal-name",
    tag = "editor",
    request_body = SignalNameBody,
    responses((status = 200, description = "null, or what is wrong", body = Option<String>, content_type = "application/json"))
)]
pub async fn signal_name(State(state): State<AppState>, JsonBody(body): JsonBody<SignalNameBody>) -> Json<Option<String>> {
    Json(state.api.check_signal_name(&body.name))
}

/// The crews of the crews folder opened or saved lately, newest first.
#[utoipa::path(
    get,
    path = "/editor/recent",
    tag = "editor",
    responses((status = 200, description = "RecentCrew list (ui/src/bindings/RecentCrew.ts)", body = [Object]))
)]
pub async fn recent(State(state): State<AppState>) -> Json<Vec<RecentCrew>> {
    let root = state.crews.path();
    let recent = state.api.recent_crews().await.into_iter().filter(|crew| std::path::Path::new(&crew.path).starts_with(root));
    Json(recent.map(|crew| RecentCrew { path: state.crews.name(&crew.path), exists: crew.exists }).collect())
}
