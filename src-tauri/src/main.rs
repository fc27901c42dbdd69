//! # crewgraph-desktop
//!
//! Crewgraph's window: a Tauri shell around [`crewgraph::api::Api`]. It owns no
//! logic of its own — each command in [`commands`] parses its arguments, calls the
//! API and hands back the API's answer or its `{code, message}` error.
//!
//! The window lists the crews of the crews folder: `$CREWGRAPH_CREWS_DIR`, else
//! `./crews`, else the `crews/` folder of the source tree the binary was built in.
//! It keeps runs, settings and crew revisions in `$CREWGRAPH_DB`, else the same
//! database as the CLI (`crewgraph.db` in the data directory).

#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

mod commands;

use std::process::ExitCode;

fn main() -> ExitCode {
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
    let api = commands::open_api();
    let result = tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .manage(api)
        .invoke_handler(tauri::generate_handler![
            commands::list_crews,
            commands::open_crew,
            commands::crews_folder,
            commands::edit_crew,
            commands::check_crew,
            commands::save_crew,
            commands::crew_yaml,
            commands::export_crew,
            commands::crew_disk,
            commands::recent_crews,
            commands::check_signal_name,
            commands::list_models,
            commands::put_model,
            commands::remove_model,
            commands::set_default_model,
            commands::set_api_key,
            commands::remove_api_key,
            commands::agent_instructions,
            commands::start_run,
            commands::watch_run,
            commands::resume_run,
            commands::cancel_run,
            commands::list_runs,
            commands::run_events,
            commands::run_crew,
            commands::crew_scripts,
            commands::type_reply,
            commands::export_run,
            commands::live_runs,
            commands::import_recording,
        ])
        .run(tauri::generate_context!("../tauri.conf.json"));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("Crewgraph could not start its window: {error}");
            ExitCode::FAILURE
        }
    }
}
