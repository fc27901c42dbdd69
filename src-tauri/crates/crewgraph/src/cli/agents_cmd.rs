//! `crewgraph route` (where the scoring router would send a query, as JSON) and
//! `crewgraph agents add|list|remove` (runtime agents: added to a crew without
//! editing its files, kept in the database).

use std::path::Path;
use std::process::ExitCode;

use crewgraph::api::Api;
use crewgraph_engine::crew::Strategy;

use super::store::{open_api, open_existing};
use super::terminal::{say, tell};
use super::{block_on, fail};

/// Prints `{"chosen", "candidates", "tokens"}` for `query` on the crew at `crew`.
pub fn route(crew: &Path, query: &str, requested: Option<&str>, db: Option<&Path>) -> ExitCode {
    if let Err(error) = crewgraph::api::check_query(query) {
        return fail(error);
    }
    // Runtime agents come from the database when there is one; routing never creates it.
    let api = match open_existing(db) {
        Ok(api) => api.unwrap_or_else(|| Api::new("crews")),
        Err(error) => return fail(error),
    };
    match block_on(api.route(crew, query, requested)) {
        Ok(Ok(result)) => {
            if let Ok(Ok(loaded)) = block_on(api.load_crew(crew)) {
                let strategy = loaded.crew.map(|c| c.routing.strategy).filter(|s| *s != Strategy::Scoring);
                if let Some((_, name)) = strategy.and_then(|s| Strategy::ALL.into_iter().find(|(each, _)| *each == s)) {
                    tell!("crewgraph: note: in runs this crew routes by '{name}', not by scores");
                }
            }
            match serde_json::to_string(&result) {
                Ok(json) => {
                    say!("{json}");
                    ExitCode::SUCCESS
                }
                Err(error) => fail(error),
            }
        }
        Ok(Err(error)) => fail(error),
        Err(error) => fail(error),
    }
}

/// Adds the agent in `file` to the crew at `crew`.
pub fn add(file: &Path, crew: &Path, db: Option<&Path>) -> ExitCode {
    let yaml = match std::fs::read(file) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(_) => return fail(format!("{}:1:1: the file is not UTF-8 text", file.display())),
        },
        Err(error) => return fail(format!("{}: cannot read it: {error}", file.display())),
    };
    let api = match open_api(db) {
        Ok(api) => api,
        Err(error) => return fail(error),
    };
    match block_on(api.register_agent(crew, &yaml, &file.display().to_string())) {
        Ok(Ok(agent)) => {
            say!("added the agent '{}' to {}", agent.id, crew.display());
            ExitCode::SUCCESS
        }
        Ok(Err(error)) => fail(error),
        Err(error) => fail(error),
    }
}

/// Lists the runtime agents of the crew at `crew`.
pub fn list(crew: &Path, json: bool, db: Option<&Path>) -> ExitCode {
    let api = match open_existing(db) {
        Ok(api) => api.unwrap_or_else(|| Api::new("crews")),
        Err(error) => return fail(error),
    };
    match block_on(api.list_runtime_agents(crew)) {
        Ok(Ok(agents)) => {
            for agent in &agents {
                if json {
                    say!("{}", serde_json::to_string(agent).unwrap_or_default());
                } else {
                    say!("{:<20} {:<24} {}", agent.id, agent.name, agent.tags.join(", "));
                }
            }
            if agents.is_empty() && !json {
                tell!("the crew has no runtime agents");
            }
            ExitCode::SUCCESS
        }
        Ok(Err(error)) => fail(error),
        Err(error) => fail(error),
    }
}

/// Removes the runtime agent `id` from the crew at `crew`.
pub fn remove(id: &str, crew: &Path, db: Option<&Path>) -> ExitCode {
    let api = match open_api(db) {
        Ok(api) => api,
        Err(error) => return fail(error),
    };
    match block_on(api.remove_runtime_agent(crew, id)) {
        Ok(Ok(())) => {
            say!("removed the agent '{id}' from {}", crew.display());
            ExitCode::SUCCESS
        }
        Ok(Err(error)) => fail(error),
        Err(error) => fail(error),
    }
}
