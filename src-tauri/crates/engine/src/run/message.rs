//! The history every agent of a run sees (DESIGN.md §4): the person's input, the
//! agents' replies, the tool calls they made and the results, a parallel group's
//! combined answer, reminders the run adds.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::ids::AgentId;

/// Who wrote a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum Role {
    /// The person (the run's input, an answer after a pause) or the run itself
    /// (a reminder, a parallel group's combined answer).
    User,
    /// An agent's reply.
    Agent,
    /// A tool's result.
    Tool,
}

/// A tool call an agent asked for.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct ToolCall {
    /// The call's id (from the provider, or made up), answered by a tool message.
    pub id: String,
    pub name: String,
    #[ts(type = "unknown")]
    pub arguments: serde_json::Value,
}

/// One entry of a run's history.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct Message {
    pub role: Role,
    /// The agent that wrote it (agent messages) or whose call it answers (tool messages).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<AgentId>,
    pub content: String,
    /// Tools the agent asked for in this message.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// For a tool result: the call it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

impl Message {
    /// A message from the person (or the run).
    pub fn user(content: impl Into<String>) -> Self {
        Message { role: Role::User, agent: None, content: content.into(), tool_calls: Vec::new(), tool_call_id: None }
    }

    /// An agent's reply.
    pub fn agent(agent: &AgentId, content: impl Into<String>) -> Self {
        Message { role: Role::Agent, agent: Some(agent.clone()), content: content.into(), tool_calls: Vec::new(), tool_call_id: None }
    }

    /// A tool's result for `call`, made by `agent`.
    pub fn tool(agent: &AgentId, call: &ToolCall, result: impl Into<String>) -> Self {
        Message {
            role: Role::Tool,
            agent: Some(agent.clone()),
            content: result.into(),
            tool_calls: Vec::new(),
            tool_call_id: Some(call.id.clone()),
        }
    }
}
