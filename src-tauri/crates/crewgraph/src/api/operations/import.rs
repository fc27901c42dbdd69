//! Crews made from other tools' projects: a CrewAI project's files made into a crew
//! (any host: the files' text comes in the request, so a browser uploads them), and
//! — the window only — a CrewAI project folder of this machine read into those files.

use std::path::PathBuf;

use crewgraph_engine::import::SourceFile;
use serde::Deserialize;
use ts_rs::TS;
use utoipa::openapi::{RefOr, Schema};
use utoipa::ToSchema;

use crate::api::crewai::{import_crewai, read_crewai_project, CrewAiFiles, ImportedCrew};
use crate::api::operation::{schema_of, Operation, Route, Schemas};
use crate::api::{Api, ApiError, ApiErrorCode};

/// One file of a project, as the person picked it.
#[derive(Clone, Debug, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct ProjectFile {
    /// Its name (`config/agents.yaml`): it tells the files apart, and names them in messages.
    #[schema(example = "config/agents.yaml")]
    pub name: String,
    /// Its whole text.
    #[schema(example = "researcher:\n  role: Researcher\n  goal: Find facts about {topic}\n  backstory: You dig.\n")]
    pub text: String,
}

/// A CrewAI project to make into a crew.
#[derive(Clone, Debug, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct ImportCrewAi {
    /// Its agents.yaml and tasks.yaml (by their names' endings), and its crew.py when
    /// there is one (it says whether the process is hierarchical, and its manager).
    pub files: Vec<ProjectFile>,
    /// The project's name, for the crew's (default: from crew.py's class).
    #[serde(default)]
    #[ts(optional)]
    pub name: Option<String>,
}

impl Operation for ImportCrewAi {
    type Request = Self;
    const NAME: &'static str = "import_crewai";
    const SUMMARY: &'static str = "Makes a crew of a CrewAI project's agents.yaml, tasks.yaml and crew.py (their text): the crew \
                                   file's text, its name, the warnings (what was left out, at file:line:col) and the inputs \
                                   the run asks for; nothing is saved";
    const ROUTE: Option<Route> = Some(Route::post("/import/crewai", "crews"));
    const ERRORS: &'static [ApiErrorCode] = &[];
    type Answer = ImportedCrew;

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<ImportedCrew>(schemas)
    }

    async fn call(request: Self, _: &Api) -> Result<ImportedCrew, ApiError> {
        let files: Vec<SourceFile> = request.files.into_iter().map(|f| SourceFile::new(f.name, f.text)).collect();
        import_crewai(&files, request.name)
    }
}

/// A CrewAI project folder of this machine (the window only).
#[derive(Clone, Debug, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct ReadCrewAiProject {
    /// The project's folder, or its files.
    pub paths: Vec<String>,
}

impl Operation for ReadCrewAiProject {
    type Request = Self;
    const NAME: &'static str = "read_crewai_project";
    const SUMMARY: &'static str = "Reads a CrewAI project folder (config/agents.yaml, config/tasks.yaml, crew.py) into the files \
                                   import_crewai takes";
    // A browser uploads the files instead: a server reads no file a client names.
    const ROUTE: Option<Route> = None;
    const ERRORS: &'static [ApiErrorCode] = &[ApiErrorCode::NotFound, ApiErrorCode::Io];
    type Answer = CrewAiFiles;

    fn answer_schema(schemas: &mut Schemas) -> RefOr<Schema> {
        schema_of::<CrewAiFiles>(schemas)
    }

    async fn call(request: Self, _: &Api) -> Result<CrewAiFiles, ApiError> {
        let paths: Vec<PathBuf> = request.paths.iter().map(PathBuf::from).collect();
        tokio::task::spawn_blocking(move || read_crewai_project(&paths))
            .await
            .map_err(|e| ApiError::new(ApiErrorCode::Io, format!("reading the project failed: {e}")))?
    }
}
