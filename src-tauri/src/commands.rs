//! The Tauri commands: one-line adapters from IPC to [`crewgraph::api::Api`].
//! Each runs off the main thread (async) so the window never waits on the disk.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crewgraph::api::{
    forward_batches, Api, ApiError, CheckCrew, CrewDocument, CrewSummary, EditableCrew, ModelRequest, ModelView, RecentCrew, Recording,
    ResumeRequest, RunBatch, RunRequest, SaveCrew, SavedCrew, BATCH_WINDOW,
};
use crewgraph_engine::run::{RunEvent, RunSummary};
use crewgraph_engine::RunId;
use crewgraph_store::SqliteStore;
use tauri::ipc::Channel;
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
    std::env::current_exe().ok().and_then(|exe| exe.ancestors().map(|a| a.join("crews")).find(|c| c.is_dir())).unwrap_or(here)
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

/// The models agents can use (the model picker, Settings); `check` asks each one.
#[tauri::command]
pub async fn list_models(api: State<'_, Api>, check: Option<bool>) -> Result<Vec<ModelView>, ApiError> {
    api.list_models(check.unwrap_or(false)).await
}

/// Adds or replaces a model (Settings).
#[tauri::command]
pub async fn put_model(api: State<'_, Api>, name: String, request: ModelRequest) -> Result<(), ApiError> {
    api.put_model(&name, request).await
}

/// Removes a model (Settings).
#[tauri::command]
pub async fn remove_model(api: State<'_, Api>, name: String) -> Result<(), ApiError> {
    api.remove_model(&name).await
}

/// Makes a model the default (Settings).
#[tauri::command]
pub async fn set_default_model(api: State<'_, Api>, name: String) -> Result<(), ApiError> {
    api.set_default_model(&name).await
}

/// Keeps an API key in the keyring (Settings); it is never shown again.
#[tauri::command]
pub async fn set_api_key(api: State<'_, Api>, name: String, key: String) -> Result<(), ApiError> {
    api.set_api_key(&name, &key)
}

/// Forgets an API key kept in the keyring.
#[tauri::command]
pub async fn remove_api_key(api: State<'_, Api>, name: String) -> Result<bool, ApiError> {
    api.remove_api_key(&name)
}

/// What the engine tells an agent about its signals, for the agent form.
#[tauri::command]
pub async fn agent_instructions(api: State<'_, Api>, spec: serde_json::Value, agent: String) -> Result<Option<String>, ApiError> {
    api.agent_instructions(&spec, &agent)
}

/// Starts a run; its events arrive on `on_batch` (stored events first, then live
/// ones, in batches), and the answer is the run's id once its first step is stored.
#[tauri::command]
pub async fn start_run(api: State<'_, Api>, request: RunRequest, on_batch: Channel<RunBatch>) -> Result<String, ApiError> {
    let id = api.spawn_run(Path::new(&request.crew), &request.input, request.replies.options()).await?;
    forward(&api, &id, None, on_batch).await?;
    Ok(id.to_string())
}

/// The runs going on in the app now (a window that reloads catches up on them).
#[tauri::command]
pub fn live_runs(api: State<'_, Api>) -> Vec<String> {
    api.live_runs().ids().iter().map(ToString::to_string).collect()
}

/// Writes run `run_id`'s recording (every event, one JSON file) to `path`.
#[tauri::command]
pub async fn export_run(api: State<'_, Api>, run_id: String, path: String) -> Result<(), ApiError> {
    api.export_run(&RunId::from(run_id.as_str()), Path::new(&path)).await
}

/// Reads a run recording, checked whole, to replay it.
#[tauri::command]
pub fn import_recording(api: State<'_, Api>, path: String) -> Result<Recording, ApiError> {
    api.import_recording(Path::new(&path))
}

/// Simulate mode by hand: the reply the person typed for `agent`'s turn.
#[tauri::command]
pub fn type_reply(api: State<'_, Api>, run_id: String, agent: String, text: String) -> Result<(), ApiError> {
    api.type_reply(&RunId::from(run_id.as_str()), &agent, &text)
}

/// Watches a run from after event `after` (the window reopened, or a replay).
#[tauri::command]
pub async fn watch_run(api: State<'_, Api>, run_id: String, after: Option<u64>, on_batch: Channel<RunBatch>) -> Result<(), ApiError> {
    forward(&api, &RunId::from(run_id.as_str()), after, on_batch).await
}

/// Resumes a paused run with the person's answer; events after `after` arrive on `on_batch`.
#[tauri::command]
pub async fn resume_run(
    api: State<'_, Api>,
    run_id: String,
    request: ResumeRequest,
    after: Option<u64>,
    on_batch: Channel<RunBatch>,
) -> Result<(), ApiError> {
    let id = RunId::from(run_id.as_str());
    api.spawn_resume(&id, request.input.as_deref(), request.replies.options()).await?;
    forward(&api, &id, after, on_batch).await
}

/// Stops a run going on: it ends `cancelled`, its events kept.
#[tauri::command]
pub async fn cancel_run(api: State<'_, Api>, run_id: String) -> Result<(), ApiError> {
    api.cancel_run(&RunId::from(run_id.as_str())).await
}

/// Past runs, newest first.
#[tauri::command]
pub async fn list_runs(api: State<'_, Api>) -> Result<Vec<RunSummary>, ApiError> {
    api.list_runs().await
}

/// Every stored event of a run (replay, export).
#[tauri::command]
pub async fn run_events(api: State<'_, Api>, run_id: String) -> Result<Vec<RunEvent>, ApiError> {
    api.run_events(&RunId::from(run_id.as_str()), None).await
}

/// Scripts for Simulate mode that come with a crew.
#[tauri::command]
pub async fn crew_scripts(api: State<'_, Api>, path: String) -> Result<Vec<String>, ApiError> {
    Ok(api.crew_scripts(Path::new(&path)).iter().map(|p| p.display().to_string()).collect())
}

/// The crew file or folder a run was made from (None: not known, or gone).
#[tauri::command]
pub async fn run_crew(api: State<'_, Api>, run_id: String) -> Result<Option<String>, ApiError> {
    Ok(api.run_crew_path(&RunId::from(run_id.as_str())).await?.map(|p| p.display().to_string()))
}

/// Sends the run's events to the window in batches, in the background.
async fn forward(api: &Api, id: &RunId, after: Option<u64>, channel: Channel<RunBatch>) -> Result<(), ApiError> {
    let watch = api.watch_run(id, after).await?;
    tauri::async_runtime::spawn(forward_batches(watch, BATCH_WINDOW, move |batch| channel.send(batch).is_ok()));
    Ok(())
}
