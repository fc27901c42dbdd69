//! `crewgraph runs` (the stored runs with their status) and `crewgraph replay`
//! (a stored run's events, as a transcript or JSON lines).

use std::path::Path;
use std::process::ExitCode;

use crewgraph_engine::RunId;

use super::block_on;
use super::store::open_existing;
use super::terminal::{say, tell};
use super::transcript::Printer;

pub fn list(db: Option<&Path>, json: bool) -> ExitCode {
    // No database yet means no runs yet.
    let outcome = in_runtime(db, |api| async move { api.list_runs().await }).map(Option::unwrap_or_default);
    match outcome {
        Ok(runs) if json => {
            for run in &runs {
                if let Ok(line) = serde_json::to_string(run) {
                    say!("{line}");
                }
            }
            ExitCode::SUCCESS
        }
        Ok(runs) if runs.is_empty() => {
            say!("No runs yet. Start one with: crewgraph run crews/exam.yaml --input \"…\" --script …");
            ExitCode::SUCCESS
        }
        Ok(runs) => {
            say!("{:<22}  {:<14}  {:>5}  {:>8}  {:<24}  CREW · INPUT", "RUN", "STATUS", "STEPS", "HANDOFFS", "STARTED");
            for run in runs {
                let input: String = run.input.chars().take(40).collect();
                say!(
                    "{:<22}  {:<14}  {:>5}  {:>8}  {:<24}  {} · {}",
                    run.id.as_str(),
                    run.status.as_str(),
                    run.steps,
                    run.handoffs,
                    run.created_at.to_string(),
                    run.crew_name,
                    input.replace('\n', " ")
                );
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            tell!("crewgraph: {error}");
            ExitCode::FAILURE
        }
    }
}

pub fn replay(id: &str, db: Option<&Path>, json: bool) -> ExitCode {
    let run = RunId::from(id);
    match in_runtime(db, |api| async move { api.run_events(&run, None).await }) {
        Ok(None) => {
            tell!("crewgraph: there is no run '{id}' (there is no database yet)");
            ExitCode::FAILURE
        }
        Ok(Some(events)) => {
            Printer::new(json).print_all(&events);
            ExitCode::SUCCESS
        }
        Err(error) => {
            tell!("crewgraph: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Runs `go` on the existing database; None when there is none yet.
fn in_runtime<T, F, Fut>(db: Option<&Path>, go: F) -> Result<Option<T>, String>
where
    F: FnOnce(crewgraph::api::Api) -> Fut,
    Fut: std::future::Future<Output = Result<T, crewgraph::api::ApiError>>,
{
    let Some(api) = open_existing(db)? else { return Ok(None) };
    block_on(go(api))?.map(Some).map_err(|e| e.to_string())
}
