//! The graph editor's operations: open a crew for editing, its files' fingerprint,
//! check an edit, save, the crew as YAML, an agent's appended instructions, a
//! signal name's check, the recent crews, and (the window only) Export.

use serde::Deserialize;
use serde_json::Value;
use ts_rs::TS;
use utoipa::openapi::{RefOr, Schema};
use utoipa::ToSchema;

use super::crews::named;
use super::requests::{Nothing, WhichCrew};
use crate::api::operation::{any_object, schema_of, Operation, Route, Schemas};
use crate::api::{
    Api, ApiError, ApiErrorCode, CheckCrew, CrewDocument, EditableCrew, Reach, RecentCrew, SaveCrew, SavedCrew, ScriptSource, TriedReply,
    TryMessage,
};

/// Opens a crew for editing.
pub struct EditCrew;

impl Operation for EditCrew {
    type Request = WhichCrew;
    const NAME: &'static str = "edit_crew";
    const SUMMARY: &'static str = "Opens a crew for editing: its spec, the engine's verdict, the saved positions (EditableCrew)";
    const ROUTE: Option<Route> = Some(Route::get("/crews/{crew}/edit", "editor"));
    const ERRORS: &'static [ApiErrorCode] = &[ApiErrorCode::NotFound];
    type Answer = EditableCrew;

    fn answer_schema(_: &mut Schemas) -> RefOr<Schema> {
        any_object(false)
    }

    async fn call(request: WhichCrew, api: &Api) -> Result<EditableCrew, ApiError> {
        let path = api.crew_path(&request.crew)?;
        let mut editable = api.edit_crew(&path).await;
        editable.path = request.crew.clone();
        editable.document = named(api, editable.document, request.crew);
        Ok(editable)
    }
}

/// The fingerprint of a crew's files as they are now.
pub struct CrewDisk;

impl Operation for CrewDisk {
    type Request = WhichCrew;
    const NAME: &'static str = "crew_disk";
    const SUMMARY: &'static str = "The fingerprint of the crew's files as they are now (compare with EditableCrew.disk)";
    const ROUTE: Option<Route> = Some(Route::get("/crews/{crew}/disk", "editor"));
    const ERRORS: &'static [ApiErrorCode] = &[ApiErrorCode::NotFound];
    type Answer = String;

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<String>(schemas)
    }

    async fn call(request: WhichCrew, api: &Api) -> Result<String, ApiError> {
        Ok(api.crew_disk(&api.crew_path(&request.crew)?))
    }
}

impl Operation for CheckCrew {
    type Request = Self;
    const NAME: &'static str = "check_crew";
    const SUMMARY: &'static str = "The engine's verdict on an edited crew (live validation)";
    const ROUTE: Option<Route> = Some(Route::post("/editor/check", "editor"));
    const ERRORS: &'static [ApiErrorCode] = &[];
    type Answer = CrewDocument;

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<CrewDocument>(schemas)
    }

    async fn call(mut request: Self, api: &Api) -> Result<CrewDocument, ApiError> {
        let name = request.path.take();
        if let Some(name) = &name {
            request.path = Some(api.new_crew_path(name)?.display().to_string());
        }
        let document = api.check_crew(&request)?;
        Ok(named(api, document, name.unwrap_or_else(|| "untitled.yaml".into())))
    }
}

impl Operation for SaveCrew {
    type Request = Self;
    const NAME: &'static str = "save_crew";
    const SUMMARY: &'static str = "Saves an edited crew (refused with `conflict` when it changed on disk since it was opened)";
    const ROUTE: Option<Route> = Some(Route::post("/editor/save", "editor"));
    const ERRORS: &'static [ApiErrorCode] = &[ApiErrorCode::Conflict, ApiErrorCode::Io];
    type Answer = SavedCrew;

    fn answer_schema(_: &mut Schemas) -> RefOr<Schema> {
        any_object(false)
    }

    async fn call(mut request: Self, api: &Api) -> Result<SavedCrew, ApiError> {
        let name = std::mem::take(&mut request.path);
        let path = api.new_crew_path(&name)?;
        request.path = path.display().to_string();
        let mut saved = api.save_crew(&request).await.map_err(|mut error| {
            error.message = api.in_names(&error.message, &path, &name);
            error
        })?;
        saved.path = name.clone();
        saved.document = named(api, saved.document, name);
        Ok(saved)
    }
}

/// An edited crew, as the editor holds it (a CrewFile).
#[derive(Clone, Debug, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct CrewYaml {
    #[ts(as = "crewgraph_engine::file::CrewFile")]
    #[schema(value_type = Object)]
    pub spec: Value,
}

impl Operation for CrewYaml {
    type Request = Self;
    const NAME: &'static str = "crew_yaml";
    const SUMMARY: &'static str = "The edited crew as the YAML text of one file";
    const ROUTE: Option<Route> = Some(Route::post("/editor/yaml", "editor"));
    const ERRORS: &'static [ApiErrorCode] = &[];
    type Answer = String;

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<String>(schemas)
    }

    async fn call(request: Self, api: &Api) -> Result<String, ApiError> {
        api.crew_yaml(&request.spec)
    }
}

/// An agent of an edited crew whose appended instructions are wanted.
#[derive(Clone, Debug, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct AgentInstructions {
    #[ts(as = "crewgraph_engine::file::CrewFile")]
    #[schema(value_type = Object)]
    pub spec: Value,
    pub agent: String,
}

impl Operation for AgentInstructions {
    type Request = Self;
    const NAME: &'static str = "agent_instructions";
    const SUMMARY: &'static str = "What the engine appends to the agent's prompt about its signals, or null";
    const ROUTE: Option<Route> = Some(Route::post("/editor/instructions", "editor"));
    const ERRORS: &'static [ApiErrorCode] = &[];
    type Answer = Option<String>;

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<Option<String>>(schemas)
    }

    async fn call(request: Self, api: &Api) -> Result<Option<String>, ApiError> {
        api.agent_instructions(&request.spec, &request.agent)
    }
}

/// A signal name to check.
#[derive(Clone, Debug, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct CheckSignalName {
    #[schema(example = "[READY]")]
    pub name: String,
}

impl Operation for CheckSignalName {
    type Request = Self;
    const NAME: &'static str = "check_signal_name";
    const SUMMARY: &'static str = "What is wrong with a signal name, or null";
    const ROUTE: Option<Route> = Some(Route::post("/editor/signal-name", "editor"));
    const ERRORS: &'static [ApiErrorCode] = &[];
    type Answer = Option<String>;

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<Option<String>>(schemas)
    }

    async fn call(request: Self, api: &Api) -> Result<Option<String>, ApiError> {
        Ok(api.check_signal_name(&request.name))
    }
}

/// The crews opened lately.
pub struct RecentCrews;

impl Operation for RecentCrews {
    type Request = Nothing;
    const NAME: &'static str = "recent_crews";
    const SUMMARY: &'static str = "The crews opened or saved lately, newest first (RecentCrew)";
    const ROUTE: Option<Route> = Some(Route::get("/editor/recent", "editor"));
    const ERRORS: &'static [ApiErrorCode] = &[];
    type Answer = Vec<RecentCrew>;

    fn answer_schema(_: &mut Schemas) -> RefOr<Schema> {
        any_object(true)
    }

    async fn call(_: Nothing, api: &Api) -> Result<Vec<RecentCrew>, ApiError> {
        let recent = api.recent_crews().await;
        Ok(match api.reach() {
            Reach::Anywhere => recent,
            // Gone ones too (they are shown as gone), but only those of the folder.
            Reach::CrewsFolder(root) => recent
                .into_iter()
                .filter(|crew| std::path::Path::new(&crew.path).starts_with(root.path()))
                .map(|crew| RecentCrew { path: root.name(&crew.path), exists: crew.exists })
                .collect(),
        })
    }
}

/// Where to write the edited crew as one YAML file (Export, the window only).
#[derive(Clone, Debug, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct ExportCrew {
    /// A file of this machine.
    pub path: String,
    #[ts(as = "crewgraph_engine::file::CrewFile")]
    #[schema(value_type = Object)]
    pub spec: Value,
}

impl Operation for ExportCrew {
    type Request = Self;
    const NAME: &'static str = "export_crew";
    const SUMMARY: &'static str = "Writes the edited crew as one YAML file";
    // A browser downloads the YAML instead: a server writes no file a client names.
    const ROUTE: Option<Route> = None;
    const ERRORS: &'static [ApiErrorCode] = &[ApiErrorCode::Io];
    type Answer = ();

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<()>(schemas)
    }

    async fn call(request: Self, api: &Api) -> Result<(), ApiError> {
        api.export_crew(std::path::Path::new(&request.path), &request.spec)
    }
}

/// A try-out chat with one agent of the edited crew.
#[derive(Clone, Debug, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct TryAgent {
    /// The crew as the editor has it (saved or not).
    #[ts(as = "crewgraph_engine::file::CrewFile")]
    #[schema(value_type = Object)]
    pub spec: Value,
    /// The agent to talk to.
    pub agent: String,
    /// The chat so far, oldest first; the last message is the person's.
    pub messages: Vec<TryMessage>,
    /// A model for this chat instead of the agent's own (a named model, provider/model, or `local`).
    #[serde(default)]
    #[ts(optional)]
    pub model: Option<String>,
    /// Simulate: the agent's replies from this script (its YAML text), in order.
    #[serde(default)]
    #[ts(optional)]
    pub script: Option<String>,
    /// Simulate with a script file instead of `script` (a path in the window; over
    /// HTTP a script of the crews folder, as `GET /crews/{crew}/scripts` lists them).
    #[serde(default)]
    #[ts(optional)]
    pub script_file: Option<String>,
}

impl Operation for TryAgent {
    type Request = Self;
    const NAME: &'static str = "try_agent";
    const SUMMARY: &'static str = "One agent's reply in a try-out chat, and where a run would go after it (nothing is stored)";
    const ROUTE: Option<Route> = Some(Route::post("/editor/try-agent", "editor"));
    const ERRORS: &'static [ApiErrorCode] = &[ApiErrorCode::NotFound];
    type Answer = TriedReply;

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<TriedReply>(schemas)
    }

    async fn call(request: Self, api: &Api) -> Result<TriedReply, ApiError> {
        let script = match (request.script, request.script_file) {
            (Some(_), Some(_)) => {
                return Err(ApiError::new(ApiErrorCode::InvalidInput, "give either 'script' or 'script_file', not both"));
            }
            (None, Some(name)) => Some(ScriptSource::File(api.crew_path(&name)?)),
            (script, None) => script.map(ScriptSource::Text),
        };
        api.try_agent(&request.spec, &request.agent, &request.messages, request.model, script.as_ref()).await
    }
}
