//! The `steps` table: one row per stored step, holding what the step added to
//! its run besides its events — the history messages it appended and what its
//! model calls were given (the engine's `AgentContext`s) — each a JSON array in
//! the engine's serde form, as the SQLite store keeps them. A run's history is
//! the concatenation of its steps' arrays, step by step.

use crewgraph_engine::run::seen::AgentContext;
use crewgraph_engine::run::Message;

use crate::error::Fault;

pub(crate) const V1: &str = "
CREATE TABLE steps (
    run        bigint NOT NULL REFERENCES runs (number) ON DELETE CASCADE,
    step       bigint NOT NULL,   -- 0 for the step the run was created with, then 1, 2 …
    written_at bigint NOT NULL,   -- ms since the epoch, when the server stored it
    history    json NOT NULL,     -- the messages it appended to the history, in order
    contexts   json,              -- what its model calls were given
    PRIMARY KEY (run, step)
);
";

/// What the run's model calls were given, step by step (the steps that kept it);
/// no row for an unknown run.
pub(crate) const CONTEXTS: &str = "
SELECT ARRAY(SELECT s.contexts::text FROM steps s WHERE s.run = r.number AND s.contexts IS NOT NULL ORDER BY s.step)
FROM runs r WHERE r.id = $1";

/// A run's history from its steps' arrays, in step order.
pub(crate) fn history(arrays: &[String]) -> Result<Vec<Message>, Fault> {
    let mut history = Vec::new();
    for (step, text) in arrays.iter().enumerate() {
        let messages: Vec<Message> = serde_json::from_str(text)
            .map_err(|err| Fault::Unreadable(format!("the history messages of step {step} cannot be read: {err}")))?;
        history.extend(messages);
    }
    Ok(history)
}

/// What the model calls were given, from the steps' arrays, in step order.
pub(crate) fn contexts(arrays: &[String]) -> Result<Vec<AgentContext>, Fault> {
    let mut contexts = Vec::new();
    for text in arrays {
        let read: Vec<AgentContext> = serde_json::from_str(text)
            .map_err(|err| Fault::Unreadable(format!("what the agents of a step were given cannot be read: {err}")))?;
        contexts.extend(read);
    }
    Ok(contexts)
}
