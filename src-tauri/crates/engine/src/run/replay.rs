//! Forking a stored run from one of its replies (issue 18, item 3): the new run is
//! the crew run again on the same input, but every model call before the fork point
//! is answered with the reply the stored run got, and every tool call with the result
//! it got — no model is asked, no tool is called twice — and the reply at the fork
//! point is the one the person wrote instead. From there on the run's own model (or
//! script) answers. Replaying through the run loop rather than copying its state
//! keeps the new run's events, snapshot and history exactly what a run that had
//! received those replies would have.
//!
//! The stored history has what is needed: each agent message is one model call's
//! reply (its words and tool calls), each tool message one call's result. Replies are
//! given back per agent in order (a parallel group's members ask at once, each in
//! its own order); results by the call they answer.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;
use ts_rs::TS;

use super::llm::{ContextWindow, LlmClient, LlmError, LlmReply, LlmRequest, TokenSink};
use super::message::{Message, Role};
use crate::crew::ModelSpec;
use crate::ids::{AgentId, RunId};

/// Where a run was forked from: the stored run and the `seq` of the reply replaced.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct ForkPoint {
    pub run_id: RunId,
    pub seq: u64,
}

/// A fork: where from, and what is given again.
#[derive(Clone)]
pub struct Fork {
    pub from: ForkPoint,
    pub replay: Arc<Replay>,
}

/// The replies and results of a stored run before a fork point, to give again.
#[derive(Debug, Default)]
pub struct Replay {
    replies: Mutex<HashMap<AgentId, VecDeque<LlmReply>>>,
    results: Mutex<HashMap<(AgentId, String), VecDeque<String>>>,
}

impl Replay {
    /// The model calls and tool results of `history` up to and including the agent
    /// message at `fork`, whose words become `edited` (its tool calls, if any, kept).
    /// The first message (the person's request) is the new run's own input.
    pub fn of(history: &[Message], fork: usize, edited: &str) -> Replay {
        let mut replies: HashMap<AgentId, VecDeque<LlmReply>> = HashMap::new();
        let mut results: HashMap<(AgentId, String), VecDeque<String>> = HashMap::new();
        for (at, message) in history.iter().enumerate().take(fork + 1).skip(1) {
            let Some(agent) = message.agent.clone() else { continue };
            match message.role {
                Role::Agent => {
                    let content = if at == fork { edited.to_owned() } else { message.content.clone() };
                    let reply = LlmReply { content, tool_calls: message.tool_calls.clone(), usage: None };
                    replies.entry(agent).or_default().push_back(reply);
                }
                Role::Tool => {
                    let call = message.tool_call_id.clone().unwrap_or_default();
                    results.entry((agent, call)).or_default().push_back(message.content.clone());
                }
                _ => {}
            }
        }
        Replay { replies: Mutex::new(replies), results: Mutex::new(results) }
    }

    /// The next stored reply of `agent`'s, when it has one left.
    pub fn reply(&self, agent: &AgentId) -> Option<LlmReply> {
        self.replies.lock().ok()?.get_mut(agent)?.pop_front()
    }

    /// The stored result of `agent`'s call `call_id`, when there is one left.
    pub fn result(&self, agent: &AgentId, call_id: &str) -> Option<String> {
        self.results.lock().ok()?.get_mut(&(agent.clone(), call_id.to_owned()))?.pop_front()
    }

    /// How many stored replies are left to give.
    pub fn replies_left(&self) -> usize {
        self.replies.lock().map(|r| r.values().map(VecDeque::len).sum()).unwrap_or(0)
    }
}

/// A model client that gives a [`Replay`]'s replies first (their words streamed as
/// a model's would be), then asks `then`.
pub struct Replaying {
    pub replay: Arc<Replay>,
    pub then: Arc<dyn LlmClient>,
}

#[async_trait]
impl LlmClient for Replaying {
    async fn complete(&self, request: &LlmRequest<'_>, on_token: TokenSink<'_>, cancel: &CancellationToken) -> Result<LlmReply, LlmError> {
        match self.replay.reply(request.agent) {
            Some(reply) => {
                if !reply.content.is_empty() {
                    on_token(&reply.content);
                }
                Ok(reply)
            }
            None => self.then.complete(request, on_token, cancel).await,
        }
    }

    fn typed_by_a_person(&self) -> bool {
        self.then.typed_by_a_person()
    }

    fn tools_through_structured_output(&self, model: Option<&ModelSpec>) -> bool {
        self.then.tools_through_structured_output(model)
    }

    async fn context_window(&self, model: Option<&ModelSpec>) -> Option<ContextWindow> {
        self.then.context_window(model).await
    }

    async fn count_tokens(&self, model: Option<&ModelSpec>, texts: &[&str]) -> Option<Vec<u32>> {
        self.then.count_tokens(model, texts).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::message::ToolCall;

    #[test]
    fn replies_and_results_before_the_fork_are_given_again_the_forked_one_rewritten() {
        let (teacher, student) = (AgentId::from("teacher"), AgentId::from("student"));
        let call = ToolCall { id: "c1".into(), name: "calculator".into(), arguments: serde_json::json!({"expression": "1/2+1/4"}) };
        let mut asks = Message::agent(&teacher, "Let me check.");
        asks.tool_calls.push(call.clone());
        let history = vec![
            Message::user("Begin."),
            asks,
            Message::tool(&teacher, &call, "3/4"),
            Message::agent(&teacher, "Q1 [QUESTION]"),
            Message::agent(&student, "5/4 [ANSWER]"),
            Message::agent(&teacher, "Wrong. [QUESTION]"),
        ];
        let replay = Replay::of(&history, 4, "3/4 [ANSWER]");
        assert_eq!(replay.replies_left(), 3, "the teacher's two calls and the student's forked reply; nothing after");
        assert_eq!(replay.reply(&teacher).map(|r| r.tool_calls.len()), Some(1));
        assert_eq!(replay.result(&teacher, "c1").as_deref(), Some("3/4"));
        assert_eq!(replay.result(&teacher, "c1"), None, "given once");
        assert_eq!(replay.reply(&teacher).map(|r| r.content), Some("Q1 [QUESTION]".into()));
        assert_eq!(replay.reply(&student).map(|r| r.content), Some("3/4 [ANSWER]".into()), "the person's words");
        assert!(replay.reply(&teacher).is_none() && replay.reply(&student).is_none());
    }
}
