//! Runtime agents through the API (seed 002): agents a person adds to a crew while
//! the app runs — from the agent form, `crewgraph agents add`, or `POST /agents` —
//! without touching the crew's files. Each is validated with the crew, kept in the
//! store (so it survives a restart), and is part of the crew from then on: in the
//! graph, and in routing from the next decision, including the runs that are paused
//! now (a resume loads the crew again). Removing them removes only them.

use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use crewgraph_engine::ids::AgentId;
use crewgraph_engine::load::{load_path, load_path_with, parse_yaml, Loaded, RuntimeAgentText};
use crewgraph_engine::run::StoreError;
use crewgraph_store::SqliteStore;
use crewgraph_store_postgres::PostgresStore;
use serde::{Deserialize, Serialize};
use ts_rs::TS;
use utoipa::ToSchema;

use super::crews::crew_key;
use super::{Api, ApiError, ApiErrorCode};

/// The largest runtime agent accepted (its YAML).
pub const MAX_AGENT_BYTES: usize = 256 * 1024;

/// Where runtime agents are kept, per crew (its absolute path).
#[async_trait]
pub trait AgentStore: Send + Sync {
    /// `(id, body)` of each runtime agent of the crew, in the order they were added.
    async fn runtime_agents(&self, crew: &str) -> Result<Vec<(AgentId, serde_json::Value)>, StoreError>;
    async fn put_runtime_agent(&self, crew: &str, id: &AgentId, body: &serde_json::Value) -> Result<(), StoreError>;
    async fn remove_runtime_agent(&self, crew: &str, id: &AgentId) -> Result<bool, StoreError>;
}

#[async_trait]
impl AgentStore for SqliteStore {
    async fn runtime_agents(&self, crew: &str) -> Result<Vec<(AgentId, serde_json::Value)>, StoreError> {
        Ok(SqliteStore::runtime_agents(self, crew).await?.into_iter().map(|a| (a.id, a.agent)).collect())
    }

    async fn put_runtime_agent(&self, crew: &str, id: &AgentId, body: &serde_json::Value) -> Result<(), StoreError> {
        SqliteStore::put_runtime_agent(self, crew, id, body).await
    }

    async fn remove_runtime_agent(&self, crew: &str, id: &AgentId) -> Result<bool, StoreError> {
        SqliteStore::remove_runtime_agent(self, crew, id).await
    }
}

#[async_trait]
impl AgentStore for PostgresStore {
    async fn runtime_agents(&self, crew: &str) -> Result<Vec<(AgentId, serde_json::Value)>, StoreError> {
        PostgresStore::runtime_agents(self, crew).await
    }

    async fn put_runtime_agent(&self, crew: &str, id: &AgentId, body: &serde_json::Value) -> Result<(), StoreError> {
        PostgresStore::put_runtime_agent(self, crew, id, body).await
    }

    async fn remove_runtime_agent(&self, crew: &str, id: &AgentId) -> Result<bool, StoreError> {
        PostgresStore::remove_runtime_agent(self, crew, id).await
    }
}

/// How a runtime agent is stored: its YAML as given.
#[derive(Serialize, Deserialize)]
struct Stored {
    yaml: String,
}

/// A runtime agent as lists show it.
#[derive(Clone, Debug, PartialEq, Serialize, TS, ToSchema)]
#[ts(export)]
pub struct RuntimeAgentView {
    pub id: String,
    pub name: String,
    pub description: String,
    pub tags: Vec<String>,
}

/// Just the id of an agent file, read before anything else.
#[derive(Default, Serialize, Deserialize)]
struct IdOnly {
    #[serde(default)]
    id: Option<String>,
    #[serde(flatten)]
    rest: serde_json::Map<String, serde_json::Value>,
}

fn invalid(message: impl Into<String>) -> ApiError {
    ApiError::new(ApiErrorCode::InvalidInput, message)
}

/// Diagnostics as `FILE:LINE:COL: message` lines.
fn lines<'a>(diagnostics: impl Iterator<Item = &'a crewgraph_engine::Diagnostic>) -> String {
    diagnostics.map(ToString::to_string).collect::<Vec<_>>().join("\n")
}

impl Api {
    fn agent_store(&self) -> Result<&Arc<dyn AgentStore>, ApiError> {
        self.agents.as_ref().ok_or_else(|| ApiError::new(ApiErrorCode::Store, "no store for runtime agents is open"))
    }

    /// Keeps runtime agents in `agents`.
    pub fn with_agents(mut self, agents: Arc<dyn AgentStore>) -> Self {
        self.agents = Some(agents);
        self
    }

    /// The runtime agents of the crew at `path`, as the loader takes them (none
    /// when no store is open).
    pub(crate) async fn runtime_texts(&self, path: &Path) -> Result<Vec<RuntimeAgentText>, ApiError> {
        let Some(store) = &self.agents else { return Ok(Vec::new()) };
        let mut texts = Vec::new();
        for (id, body) in store.runtime_agents(&crew_key(path)).await? {
            let stored: Stored = serde_json::from_value(body)
                .map_err(|e| ApiError::new(ApiErrorCode::Store, format!("the stored runtime agent '{id}' cannot be read: {e}")))?;
            texts.push(RuntimeAgentText { name: format!("runtime agent '{id}'"), yaml: stored.yaml });
        }
        Ok(texts)
    }

    /// The crew at `path` with its runtime agents.
    pub async fn load_crew(&self, path: &Path) -> Result<Loaded, ApiError> {
        Ok(load_path_with(path, &self.runtime_texts(path).await?))
    }

    /// Adds the agent described by `yaml` (one agent file; `name` is how error
    /// locations name it) to the crew at `path`, after checking it with the crew.
    pub async fn register_agent(&self, path: &Path, yaml: &str, name: &str) -> Result<RuntimeAgentView, ApiError> {
        let store = self.agent_store()?.clone();
        if yaml.len() > MAX_AGENT_BYTES {
            return Err(invalid(format!("{name}: the agent is {} KB; the most is {} KB", yaml.len() / 1024, MAX_AGENT_BYTES / 1024)));
        }
        let (parsed, problems) = parse_yaml::<IdOnly>(name, yaml);
        let Some(parsed) = parsed else { return Err(invalid(lines(problems.iter().filter(|d| d.is_error())))) };
        let id = parsed.id.as_deref().map(str::trim).unwrap_or_default().to_owned();
        if id.is_empty() {
            return Err(invalid(format!("{name}: the agent has no id: give it one (id: lore_keeper)")));
        }
        if id == "finalize" {
            return Err(invalid(format!(
                "{name}: the id 'finalize' is taken: it is where the scoring router sends what no agent scores for"
            )));
        }
        let base = load_path(path);
        let Some(crew) = &base.crew else {
            return Err(ApiError::new(ApiErrorCode::InvalidCrew, format!("the crew cannot be read:\n{}", lines(base.errors()))));
        };
        if crew.agent(&id).is_some_and(|a| !a.runtime) {
            return Err(invalid(format!("{name}: the id '{id}' clashes with the crew's own agent '{id}': choose another id")));
        }
        let mut texts = self.runtime_texts(path).await?;
        if texts.iter().any(|t| t.name == format!("runtime agent '{id}'")) {
            return Err(ApiError::new(
                ApiErrorCode::Conflict,
                format!("{name}: a runtime agent '{id}' is already on this crew: remove it first (crewgraph agents remove {id})"),
            ));
        }
        texts.push(RuntimeAgentText { name: name.to_owned(), yaml: yaml.to_owned() });
        let merged = load_path_with(path, &texts);
        let errors: Vec<_> = merged.errors().collect();
        if !errors.is_empty() {
            let (own, crew_errors): (Vec<_>, Vec<_>) =
                errors.into_iter().partition(|d| d.location.as_ref().is_some_and(|l| l.file == name));
            return Err(if own.is_empty() {
                ApiError::new(
                    ApiErrorCode::InvalidCrew,
                    format!("the crew has errors; fix them first:\n{}", lines(crew_errors.into_iter())),
                )
            } else {
                invalid(lines(own.into_iter()))
            });
        }
        let agent =
            merged.crew.as_ref().and_then(|c| c.agent(&id)).cloned().ok_or_else(|| invalid(format!("{name}: the agent did not load")))?;
        let body = serde_json::to_value(Stored { yaml: yaml.to_owned() }).map_err(|e| ApiError::new(ApiErrorCode::Store, e.to_string()))?;
        store.put_runtime_agent(&crew_key(path), &agent.id, &body).await?;
        Ok(RuntimeAgentView { id: agent.id.to_string(), name: agent.name, description: agent.description, tags: agent.tags })
    }

    /// The runtime agents of the crew at `path`, in the order they were added.
    pub async fn list_runtime_agents(&self, path: &Path) -> Result<Vec<RuntimeAgentView>, ApiError> {
        let loaded = self.load_crew(path).await?;
        let Some(crew) = loaded.crew else {
            return Err(ApiError::new(ApiErrorCode::InvalidCrew, format!("the crew cannot be read:\n{}", lines(loaded.errors()))));
        };
        Ok(crew
            .agents
            .iter()
            .filter(|a| a.runtime)
            .map(|a| RuntimeAgentView {
                id: a.id.to_string(),
                name: a.name.clone(),
                description: a.description.clone(),
                tags: a.tags.clone(),
            })
            .collect())
    }

    /// Removes the runtime agent `id` from the crew at `path` (the crew's own agents
    /// cannot be removed this way).
    pub async fn remove_runtime_agent(&self, path: &Path, id: &str) -> Result<(), ApiError> {
        let store = self.agent_store()?.clone();
        if store.remove_runtime_agent(&crew_key(path), &AgentId::from(id)).await? {
            return Ok(());
        }
        let own = load_path(path).crew.is_some_and(|c| c.agent(id).is_some());
        Err(if own {
            invalid(format!("'{id}' is one of the crew's own agents (in its files); only runtime agents can be removed here"))
        } else {
            ApiError::new(ApiErrorCode::NotFound, format!("the crew has no runtime agent '{id}'"))
        })
    }
}
