//! The Tauri commands: one-line adapters from IPC to [`crewgraph::api::Api`].
//! Each runs off the main thread (async) so the window never waits on the disk.

use std::path::{Path, PathBuf};

use crewgraph::api::{Api, ApiError, CrewDocument, CrewSummary};
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
