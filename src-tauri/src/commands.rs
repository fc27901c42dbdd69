//! The Tauri commands: five, whatever the number of operations.
//!
//! - `call`: any operation of [`crewgraph::api::operations`], by its name, with its
//!   request as JSON; the answer is the operation's, or its `{code, message}` error.
//!   Operations are declared once in the API; nothing here changes when one is added.
//! - `watch_run`: starts gathering a run's events (stored, then live); answers the
//!   watch's id;
//! - `next_batch`: the watch's next batch, asked for once the window has shown the
//!   last: all that arrived meanwhile, or the first event to come
//!   ([`crewgraph::api::PulledWatches`]).
//! - `stop_watch`: the window no longer wants a watch (the person left its run):
//!   forgotten at once, its reading ended;
//! - `large_canvas`: the page shows a canvas large enough that zooming it needs the
//!   compositor, or no longer does ([`crate::painting::Compositing`]).
//!
//! All run off the main thread (async), so the window never waits on the disk.

use std::path::PathBuf;
use std::sync::Arc;

use crewgraph::api::{database_path, operations, Api, ApiError, PulledWatches, RunBatch};
use crewgraph_engine::RunId;
use crewgraph_store::SqliteStore;
use tauri::State;

use crate::painting::Compositing;

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

/// The API over the crews folder and the database ([`database_path`]). Without a
/// database the window still opens and edits crews; it says why on stderr.
pub fn open_api() -> Api {
    let api = Api::new(crews_dir());
    let path = match database_path(None) {
        Ok(path) => path,
        Err(error) => {
            tracing::warn!("Crewgraph cannot find its data folder ({error}); crews will not keep revisions.");
            return api;
        }
    };
    match SqliteStore::open(&path) {
        Ok(store) => api.with_sqlite(Arc::new(store)),
        Err(error) => {
            tracing::warn!("Crewgraph cannot open its database {}: {error}", path.display());
            api
        }
    }
}

/// Does the operation `operation` with `request` (its request type, as JSON).
#[tauri::command]
pub async fn call(api: State<'_, Api>, operation: String, request: serde_json::Value) -> Result<serde_json::Value, ApiError> {
    operations::call(&api, &operation, request).await
}

/// Watches run `run_id` from after event `after` (all of it when None): its events,
/// stored ones first, then live ones, gather for `next_batch`. Answers the watch's id.
#[tauri::command]
pub async fn watch_run(
    api: State<'_, Api>,
    watches: State<'_, PulledWatches>,
    run_id: String,
    after: Option<u64>,
) -> Result<u32, ApiError> {
    let watch = api.watch_run(&RunId::from(run_id.as_str()), after).await?;
    let (id, reading) = watches.start(watch);
    tauri::async_runtime::spawn(reading);
    Ok(id)
}

/// The next batch of watch `watch`, asked for once the window has shown the last:
/// what arrived meanwhile, or the first event to come; the last batch says how the
/// watch ended.
#[tauri::command]
pub async fn next_batch(watches: State<'_, PulledWatches>, watch: u32) -> Result<RunBatch, ApiError> {
    Ok(watches.next(watch).await)
}

/// The window no longer wants watch `watch` (the person left its run, or watches it
/// again): it is forgotten at once, and its reading ends.
#[tauri::command]
pub async fn stop_watch(watches: State<'_, PulledWatches>, watch: u32) -> Result<(), ApiError> {
    watches.stop(watch);
    Ok(())
}

/// The page shows a canvas so large that zooming it needs the compositor
/// (`shown`), or no longer shows one: where compositing is only for large
/// canvases, the window switches ([`Compositing`]).
#[tauri::command]
pub async fn large_canvas(window: tauri::WebviewWindow, compositing: State<'_, Compositing>, shown: bool) -> Result<(), ApiError> {
    let compositing = *compositing.inner();
    // (WebKit's settings are the main thread's: the switch is sent there. A window
    // closing meanwhile has nothing left to paint.)
    let _ = window.with_webview(move |webview| compositing.apply(&webview, shown));
    Ok(())
}
