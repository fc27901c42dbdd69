//! `crewgraph runs` (the stored runs with their status), `crewgraph replay` (a
//! stored run's events, as a transcript or JSON lines) and `crewgraph context` (what
//! the agents of one step were given).

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

/// `crewgraph context`: what the agents of step `step` of run `id` were given.
pub fn context(id: &str, step: u32, agent: Option<&str>, db: Option<&Path>, json: bool) -> ExitCode {
    let run = RunId::from(id);
    let agent_owned = agent.map(str::to_owned);
    match in_runtime(db, |api| async move { api.step_context(&run, step, agent_owned.as_deref()).await }) {
        Ok(None) => {
            tell!("crewgraph: there is no run '{id}' (there is no database yet)");
            ExitCode::FAILURE
        }
        Ok(Some(seen)) if json => match serde_json::to_string(&seen) {
            Ok(line) => {
                say!("{line}");
                ExitCode::SUCCESS
            }
            Err(error) => {
                tell!("crewgraph: {error}");
                ExitCode::FAILURE
            }
        },
        Ok(Some(seen)) => {
            let count = seen.calls.len();
            for (index, call) in seen.calls.iter().enumerate() {
                let window = call.window.map(|w| format!(" of a {w}-token window")).unwrap_or_default();
                say!("Step {} · {} · call {} of {count}", seen.step, call.agent, index + 1);
                say!("  tokens: {} sent{window} (about {} for the instructions)", call.tokens, call.prompt_tokens);
                if !call.cut.is_empty() {
                    say!("  cut by the context window: {} earlier messages (about {} tokens)", call.cut.len(), call.cut_tokens);
                }
                say!("  instructions:");
                for line in call.system_prompt.lines() {
                    say!("    {line}");
                }
                say!("  messages:");
                for message in &call.messages {
                    let who = match (message.role, &message.agent) {
                        (crewgraph_engine::run::Role::User, _) => "person".to_owned(),
                        (_, Some(agent)) => agent.to_string(),
                        (role, None) => format!("{role:?}").to_lowercase(),
                    };
                    let calls: Vec<String> = message.tool_calls.iter().map(|c| format!("{} {}", c.name, c.arguments)).collect();
                    let text = if calls.is_empty() {
                        message.content.clone()
                    } else {
                        format!("{} [calls {}]", message.content, calls.join(", "))
                    };
                    let mut lines = text.lines();
                    say!("    [{who}] {}", lines.next().unwrap_or_default());
                    for line in lines {
                        say!("      {line}");
                    }
                }
            }
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
