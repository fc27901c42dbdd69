//! The `runtime_agents` table: agents a person added to a crew from the window's
//! form rather than in the crew file, kept per crew in the order they were first
//! added. The store keeps each agent as JSON and leaves its meaning to the engine.

use crewgraph_engine::ids::AgentId;
use crewgraph_engine::run::StoreError;
use rusqlite::{params, Connection};

use super::crews;
use crate::error::Fault;
use crate::store::SqliteStore;

pub(crate) const V1: &str = "
CREATE TABLE runtime_agents (
    crew  INTEGER NOT NULL REFERENCES crews (id) ON DELETE CASCADE,
    agent TEXT NOT NULL,   -- the agent's id
    body  TEXT NOT NULL,   -- the agent as JSON
    UNIQUE (crew, agent)
);
";

/// An agent added to a crew at run time.
#[derive(Clone, Debug, PartialEq)]
pub struct RuntimeAgent {
    pub id: AgentId,
    /// The agent as the engine wrote it.
    pub agent: serde_json::Value,
}

fn put(conn: &Connection, crew_path: &str, id: &AgentId, body: &str) -> Result<(), Fault> {
    let crew = crews::ensure(conn, crew_path)?;
    // Replacing an agent keeps its row, so it keeps its place in the crew's order.
    conn.prepare_cached(
        "INSERT INTO runtime_agents (crew, agent, body) VALUES (?1, ?2, ?3)
         ON CONFLICT (crew, agent) DO UPDATE SET body = excluded.body",
    )?
    .execute(params![crew, id.as_str(), body])?;
    Ok(())
}

fn list(conn: &Connection, crew_path: &str) -> Result<Vec<RuntimeAgent>, Fault> {
    let Some(crew) = crews::find(conn, crew_path)? else { return Ok(Vec::new()) };
    let mut statement = conn.prepare_cached("SELECT agent, body FROM runtime_agents WHERE crew = ?1 ORDER BY rowid")?;
    let mut rows = statement.query([crew])?;
    let mut agents = Vec::new();
    while let Some(row) = rows.next()? {
        let id = AgentId::new(row.get::<_, String>(0)?);
        let body: String = row.get(1)?;
        let agent = serde_json::from_str(&body)
            .map_err(|err| Fault::Unreadable(format!("the runtime agent '{id}' of the crew {crew_path} cannot be read: {err}")))?;
        agents.push(RuntimeAgent { id, agent });
    }
    Ok(agents)
}

fn remove(conn: &Connection, crew_path: &str, id: &AgentId) -> Result<bool, Fault> {
    let Some(crew) = crews::find(conn, crew_path)? else { return Ok(false) };
    let removed = conn.prepare_cached("DELETE FROM runtime_agents WHERE crew = ?1 AND agent = ?2")?.execute(params![crew, id.as_str()])?;
    Ok(removed > 0)
}

impl SqliteStore {
    /// Adds an agent to the crew at `crew_path`, or replaces the one with its id.
    pub async fn put_runtime_agent(&self, crew_path: &str, id: &AgentId, agent: &serde_json::Value) -> Result<(), StoreError> {
        let doing = format!("save the agent '{id}' of the crew {crew_path}");
        let body = serde_json::to_string(agent).map_err(|err| Fault::Unwritable(err.to_string()).describe(&doing, self.path()))?;
        let (crew_path, id) = (crew_path.to_owned(), id.clone());
        self.write(doing, move |conn, _| put(conn, &crew_path, &id, &body)).await
    }

    /// The runtime agents of the crew at `crew_path`, in the order they were first added.
    pub async fn runtime_agents(&self, crew_path: &str) -> Result<Vec<RuntimeAgent>, StoreError> {
        let crew_path = crew_path.to_owned();
        self.read(format!("read the agents of the crew {crew_path}"), move |conn| list(conn, &crew_path)).await
    }

    /// Removes a runtime agent; true when there was one.
    pub async fn remove_runtime_agent(&self, crew_path: &str, id: &AgentId) -> Result<bool, StoreError> {
        let (crew_path, id) = (crew_path.to_owned(), id.clone());
        self.write(format!("remove the agent '{id}' of the crew {crew_path}"), move |conn, _| remove(conn, &crew_path, &id)).await
    }
}
