//! Simulate mode by hand: each agent's reply is typed by the person when its turn
//! comes, instead of taken from a script — to try a crew's routing without a model
//! and without writing a script first.
//!
//! [`TypedReplies`] is both sides: the run's model (an [`LlmClient`] that waits for
//! the reply addressed to the agent whose turn it is) and the handle the window
//! answers through ([`TypedReplies::reply`]). Replies are addressed per agent, so the
//! members of a parallel group are answered each on their own; a reply typed before
//! the agent's turn waits for it. The typed text streams as one token, like a
//! model's reply would.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use crewgraph_engine::ids::AgentId;
use crewgraph_engine::run::{LlmClient, LlmError, LlmReply, LlmRequest, TokenSink};
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};
use tokio_util::sync::CancellationToken;

/// One agent's mailbox: replies typed for it, in order.
#[derive(Clone)]
struct Mailbox {
    send: UnboundedSender<String>,
    receive: Arc<tokio::sync::Mutex<UnboundedReceiver<String>>>,
}

/// The replies the person types, per agent (cheap to clone; clones share them).
#[derive(Clone, Default)]
pub struct TypedReplies {
    mailboxes: Arc<Mutex<HashMap<AgentId, Mailbox>>>,
}

impl TypedReplies {
    pub fn new() -> Self {
        Self::default()
    }

    /// Gives `agent` its next reply (its current turn's, or the next turn's).
    pub fn reply(&self, agent: &AgentId, text: impl Into<String>) {
        // The receiver lives as long as the mailbox, so the send cannot fail.
        let _ = self.mailbox(agent).send.send(text.into());
    }

    fn mailbox(&self, agent: &AgentId) -> Mailbox {
        let mut mailboxes = self.mailboxes.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        mailboxes
            .entry(agent.clone())
            .or_insert_with(|| {
                let (send, receive) = unbounded_channel();
                Mailbox { send, receive: Arc::new(tokio::sync::Mutex::new(receive)) }
            })
            .clone()
    }
}

impl std::fmt::Debug for TypedReplies {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TypedReplies")
    }
}

#[async_trait]
impl LlmClient for TypedReplies {
    async fn complete(&self, request: &LlmRequest<'_>, on_token: TokenSink<'_>, cancel: &CancellationToken) -> Result<LlmReply, LlmError> {
        let mailbox = self.mailbox(request.agent);
        let mut receive = tokio::select! {
            biased;
            _ = cancel.cancelled() => return Err(LlmError::Cancelled),
            receive = mailbox.receive.lock() => receive,
        };
        let text = tokio::select! {
            biased;
            _ = cancel.cancelled() => return Err(LlmError::Cancelled),
            text = receive.recv() => text.ok_or(LlmError::Cancelled)?,
        };
        on_token(&text);
        Ok(LlmReply { content: text, ..LlmReply::default() })
    }

    fn typed_by_a_person(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crewgraph_engine::run::history::Visible;
    use std::time::Duration;

    async fn ask(replies: &TypedReplies, agent: &AgentId, cancel: &CancellationToken) -> Result<LlmReply, LlmError> {
        let request = LlmRequest::new(agent, "", Visible::all(&[]));
        replies.complete(&request, &|_| {}, cancel).await
    }

    #[tokio::test]
    async fn a_turn_waits_for_its_agent_s_reply_and_a_reply_typed_early_waits_for_the_turn() {
        let replies = TypedReplies::new();
        let (a, b) = (AgentId::from("a"), AgentId::from("b"));
        let cancel = CancellationToken::new();
        replies.reply(&b, "for b, early");
        let waiting = {
            let replies = replies.clone();
            let (a, cancel) = (a.clone(), cancel.clone());
            tokio::spawn(async move { ask(&replies, &a, &cancel).await })
        };
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiting.is_finished(), "a's turn waits for a's reply, not b's");
        replies.reply(&a, "Done. [END]");
        assert_eq!(waiting.await.unwrap().unwrap().content, "Done. [END]");
        assert_eq!(ask(&replies, &b, &cancel).await.unwrap().content, "for b, early");
    }

    #[tokio::test]
    async fn a_waiting_turn_stops_when_the_run_is_cancelled() {
        let replies = TypedReplies::new();
        let cancel = CancellationToken::new();
        cancel.cancel();
        assert_eq!(ask(&replies, &AgentId::from("a"), &cancel).await.unwrap_err(), LlmError::Cancelled);
    }
}
