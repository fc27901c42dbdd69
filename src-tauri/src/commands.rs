//! The Tauri commands: one-line adapters from IPC to [`crewgraph::api::Api`].
//! Each runs off the main thread (async) so the window never waits on the disk.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crewgraph::api::{
    Api, ApiError, CheckCrew, CrewDocument, CrewSummary, EditableCrew, ModelView, RecentCrew, SaveCrew, SavedCrew,
};
use crewgraph_store::SqliteStore;
use tauri::State;

/// The crews folder: `$CREWGRAPH_CREWS_DIR`, else `./crews`, else the source
/// tree's `crews/` next to the `target/` folder the binary runs from.
pub fn crews_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("CREWGRAPH_CREWS_DIR") {
        return PathBuf::from(dir);
    }
    let here = PathBuf::from("crews");
    if here.is_dir() {
        return here;
    }
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.ancestors().map(|a| a.join("crews")).find(|c| c.is_dir()))
        .unwrap_or(here)
}

/// The API over the crews folder and the database (`$CREWGRAPH_DB`, else the
/// default). Without a database the window still opens and edits crews; it says why
/// on stderr.
pub fn open_api() -> Api {
    let api = Api::new(crews_dir());
    let path = match std::env::var_os("CREWGRAPH_DB").map(PathBuf::from) {
        Some(path) => path,
        None => match SqliteStore::default_path() {
            Ok(path) => path,
            Err(error) => {
                eprintln!("Crewgraph cannot find its data folder ({error}); crews will not keep revisions.");
                return api;
            }
        },
    };
    match SqliteStore::open(&path) {
        Ok(store) => api.with_sqlite(Arc::new(store)),
        Err(error) => {
            eprintln!("Crewgraph cannot open its database {}: {error}", path.display());
            api
        }
    }
}

/// The crews of the crews folder, for the start view.
#[tauri::command]
pub async fn list_crews(api: State<'_, Api>) -> Result<Vec<CrewSummary>, ApiError> {
    api.list_crews()
}

/// Opens a crew file or crew folder.
#[tauri::command]
pub async fn open_crew(api: State<'_, Api>, path: String) -> Result<CrewDocument, ApiError> {
    Ok(api.open_crew(Path::new(&path)).await)
}

/// Where the examples come from, shown on the start view.
#[tauri::command]
pub async fn crews_folder(api: State<'_, Api>) -> Result<String, ApiError> {
    Ok(api.crews_dir().display().to_string())
}

/// Opens a crew for editing: its spec, the engine's verdict, the saved positions.
#[tauri::command]
pub async fn edit_crew(api: State<'_, Api>, path: String) -> Result<EditableCrew, ApiError> {
    Ok(api.edit_crew(Path::new(&path)).await)
}

/// The engine's verdict on an edited crew (live validation).
#[tauri::command]
pub async fn check_crew(api: State<'_, Api>, check: CheckCrew) -> Result<CrewDocument, ApiError> {
    api.check_crew(&check)
}

/// Saves an edited crew.
#[tauri::command]
pub async fn save_crew(api: State<'_, Api>, save: SaveCrew) -> Result<SavedCrew, ApiError> {
    api.save_crew(&save).await
}

/// The edited crew as YAML text.
#[tauri::command]
pub async fn crew_yaml(api: State<'_, Api>, spec: serde_json::Value) -> Result<String, ApiError> {
    api.crew_yaml(&spec)
}

/// Writes the edited crew as one YAML file somewhere else.
#[tauri::command]
pub async fn export_crew(api: State<'_, Api>, path: String, spec: serde_json::Value) -> Result<(), ApiError> {
    api.export_crew(Path::new(&path), &spec)
}

/// The crew's files as they are on disk now.
#[tauri::command]
pub async fn crew_disk(api: State<'_, Api>, path: String) -> Result<String, ApiError> {
    Ok(api.crew_disk(Path::new(&path)))
}

/// The crews opened lately.
#[tauri::command]
pub async fn recent_crews(api: State<'_, Api>) -> Result<Vec<RecentCrew>, ApiError> {
    Ok(api.recent_crews().await)
}

/// What is wrong with a signal name, if anything.
#[tauri::command]
pub async fn check_signal_name(api: State<'_, Api>, name: String) -> Result<Option<String>, ApiError> {
    Ok(api.check_signal_name(&name))
}

/// The models agents can use, for the model picker.
#[tauri::command]
pub async fn list_models(api: State<'_, Api>) -> Result<Vec<ModelView>, ApiError> {
    api.list_models(false).await
}

/// What the engine tells an agent about its signals, for the agent form.
#[tauri::command]
pub async fn agent_instructions(api: State<'_, Api>, spec: serde_json::Value, agent: String) -> Result<Option<String>, ApiError> {
    api.agent_instructions(&spec, &agent)
}
