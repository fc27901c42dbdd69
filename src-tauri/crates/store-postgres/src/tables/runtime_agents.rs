//! The `runtime_agents` table: agents a person added to a crew from the window's
//! form rather than in the crew file, kept per crew in the order they were first
//! added (`number`; replacing an agent keeps its row, so its place). The store
//! keeps each agent as JSON and leaves its meaning to the engine.

use crewgraph_engine::ids::AgentId;
use crewgraph_engine::run::StoreError;

use super::runs::get;
use crate::error::Fault;
use crate::store::PostgresStore;

pub(crate) const V1: &str = "
CREATE TABLE runtime_agents (
    number bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,   -- the order they were first added
    crew   bigint NOT NULL REFERENCES crews (id) ON DELETE CASCADE,
    agent  text NOT NULL,   -- the agent's id
    body   json NOT NULL,   -- the agent as the engine wrote it
    UNIQUE (crew, agent)
);
";

const PUT: &str = "
WITH crew AS (
    INSERT INTO crews (path) VALUES ($1) ON CONFLICT (path) DO UPDATE SET path = excluded.path RETURNING id
)
INSERT INTO runtime_agents (crew, agent, body) SELECT id, $2, $3::text::json FROM crew
ON CONFLICT (crew, agent) DO UPDATE SET body = excluded.body";

const LIST: &str = "
SELECT a.agent, a.body::text FROM runtime_agents a JOIN crews c ON c.id = a.crew
WHERE c.path = $1 ORDER BY a.number";

const REMOVE: &str = "
DELETE FROM runtime_agents a USING crews c WHERE c.id = a.crew AND c.path = $1 AND a.agent = $2 RETURNING 1";

impl PostgresStore {
    /// Adds an agent to the crew at `crew_path`, or replaces the one with its id.
    pub async fn put_runtime_agent(&self, crew_path: &str, id: &AgentId, agent: &serde_json::Value) -> Result<(), StoreError> {
        let put = async {
            let body =
                serde_json::to_string(agent).map_err(|err| Fault::Unwritable(format!("the agent does not encode as JSON: {err}")))?;
            self.query(PUT, &[&crew_path, &id.as_str(), &body]).await?;
            Ok(())
        };
        put.await.map_err(|fault: Fault| fault.describe(&format!("save the agent '{id}' of the crew {crew_path}"), self.place()))
    }

    /// The runtime agents of the crew at `crew_path` as (id, agent), in the order
    /// they were first added.
    pub async fn runtime_agents(&self, crew_path: &str) -> Result<Vec<(AgentId, serde_json::Value)>, StoreError> {
        let read = async {
            let mut agents = Vec::new();
            for row in self.query(LIST, &[&crew_path]).await? {
                let id = AgentId::new(get::<String>(&row, 0)?);
                let body: String = get(&row, 1)?;
                let agent = serde_json::from_str(&body)
                    .map_err(|err| Fault::Unreadable(format!("the runtime agent '{id}' cannot be read: {err}")))?;
                agents.push((id, agent));
            }
            Ok(agents)
        };
        read.await.map_err(|fault: Fault| fault.describe(&format!("read the agents of the crew {crew_path}"), self.place()))
    }

    /// Removes a runtime agent; true when there was one.
    pub async fn remove_runtime_agent(&self, crew_path: &str, id: &AgentId) -> Result<bool, StoreError> {
        let removed = async { Ok(!self.query(REMOVE, &[&crew_path, &id.as_str()]).await?.is_empty()) };
        removed.await.map_err(|fault: Fault| fault.describe(&format!("remove the agent '{id}' of the crew {crew_path}"), self.place()))
    }
}
