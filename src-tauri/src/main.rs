//! # crewgraph-desktop
//!
//! Crewgraph's window: a Tauri shell around [`crewgraph::api::Api`]. It owns no
//! logic of its own — its commands ([`commands`]) hand an operation's request
//! to the API and its answer (or `{code, message}` error) back, and a run's events
//! to the window.
//!
//! The window lists the crews of the crews folder: `$CREWGRAPH_CREWS_DIR`, else
//! `./crews`, else the `crews/` folder of the source tree the binary was built in.
//! It keeps runs, settings and crew revisions in `$CREWGRAPH_DB`, else the same
//! database as the CLI (`crewgraph.db` in the data directory).

#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

mod commands;
mod painting;

/// mimalloc, as the CLI and the server have: runs go on in this process too, and
/// their many small, short-lived values are where it is faster than the system
/// allocator (BENCHMARKS.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay` and `mi_option_arena_eager_commit` (their
/// places in `mi_option_e`, the same in mimalloc 2 and 3; libmimalloc-sys names
/// neither).
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
const ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;

/// A window stays open for hours and is mostly idle: memory freed is given back
/// to the system at once, and arenas are committed as they are used, not whole
/// (the app's process idles ~10 MiB lower, BENCHMARKS.md). Before
/// anything else, so every later allocation follows them; `MIMALLOC_…` environment
/// variables still win.
fn tune_allocator() {
    for (option, name) in [(PURGE_DELAY, "MIMALLOC_PURGE_DELAY"), (ARENA_EAGER_COMMIT, "MIMALLOC_ARENA_EAGER_COMMIT")] {
        if std::env::var_os(name).is_none() {
            // SAFETY: mi_option_set only stores the value in mimalloc's option table
            // (an atomic write); any option number and value are accepted.
            unsafe { libmimalloc_sys::mi_option_set(option, 0) };
        }
    }
}

use std::process::ExitCode;

use tracing_subscriber::EnvFilter;

fn main() -> ExitCode {
    tune_allocator();
    let compositing = painting::choose();
    if cfg!(target_os = "linux") && std::env::var_os("DISPLAY").is_none() && std::env::var_os("WAYLAND_DISPLAY").is_none() {
        eprintln!(
            "Crewgraph's window needs a display, and there is none here (DISPLAY is not set).\n\
             Without a window, use the command line:\n  \
             crewgraph validate crews/exam.yaml\n  \
             crewgraph match --signal '[END]' --content 'All done [end]'\n\
             Run `crewgraph --help` for more."
        );
        return ExitCode::from(2);
    }
    tracing_subscriber::fmt().with_writer(std::io::stderr).with_env_filter(EnvFilter::from_default_env()).init();
    let api = commands::open_api();
    let tools = api.clone();
    let result = tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .manage(api)
        .manage(crewgraph::api::PulledWatches::default())
        .manage(compositing)
        .invoke_handler(tauri::generate_handler![
            commands::call,
            commands::watch_run,
            commands::next_batch,
            commands::stop_watch,
            commands::large_canvas
        ])
        .setup(move |app| {
            // Painted whole from the start, where compositing waits for a large canvas.
            use tauri::Manager;
            if let Some(window) = app.get_webview_window("main") {
                window.with_webview(move |webview| compositing.apply(&webview, false))?;
            }
            Ok(())
        })
        .build(tauri::generate_context!("../tauri.conf.json"));
    match result {
        Ok(app) => {
            app.run(move |_, event| {
                // The tool servers the window started stop with it.
                if let tauri::RunEvent::Exit = event {
                    tauri::async_runtime::block_on(tools.stop_tool_servers());
                    // The runs' spans are sent before the window closes (docs/observability.md).
                    if let Some(lost) = tools.flush_traces(std::time::Duration::from_secs(5)) {
                        tracing::warn!("{lost}");
                    }
                }
            });
            ExitCode::SUCCESS
        }
        Err(error) => {
            tracing::error!("Crewgraph could not start its window: {error}");
            ExitCode::FAILURE
        }
    }
}
