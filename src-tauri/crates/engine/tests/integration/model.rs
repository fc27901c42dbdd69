//! A deterministic model for the run-loop tests: [`Book`], an [`LlmClient`] that
//! answers each agent from its own queue of [`Say`]s, in order. A reply streams as
//! one piece (so its `token` event never depends on how fast the machine is) and
//! reports a fixed usage; [`Say::Hang`] never answers — it waits for the run's
//! cancellation, as a model stuck mid-reply would — and [`Book::hung`] lets a test
//! wait for that moment instead of sleeping.
//!
//! ```ignore
//! let book = Book::new(&[("a", &[Say::Text("Which colour? [WAIT]")]), ("b", &[Say::Hang])]);
//! ```

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use async_trait::async_trait;
use crewgraph_engine::run::{LlmClient, LlmError, LlmReply, LlmRequest, TokenSink, Usage};
use crewgraph_engine::AgentId;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

/// One turn of an agent's model.
#[derive(Clone, Copy, Debug)]
pub enum Say {
    /// This reply, streamed as one piece.
    Text(&'static str),
    /// No reply: the call waits until the run is cancelled (or dropped).
    Hang,
}

/// Each agent's replies, in order.
pub struct Book {
    queues: Mutex<HashMap<AgentId, VecDeque<Say>>>,
    /// Set to the agent whose call hangs, once one does.
    hanging: watch::Sender<Option<AgentId>>,
    /// Every call's agent and the last message it was shown, in order.
    asked: Mutex<Vec<(AgentId, String)>>,
}

impl Book {
    pub fn new(replies: &[(&str, &[Say])]) -> Book {
        let queues = replies.iter().map(|(agent, says)| (AgentId::from(*agent), says.iter().copied().collect())).collect();
        Book { queues: Mutex::new(queues), hanging: watch::channel(None).0, asked: Mutex::new(Vec::new()) }
    }

    /// Waits until a call hangs, and says whose.
    pub async fn hung(&self) -> AgentId {
        let mut hanging = self.hanging.subscribe();
        let agent = hanging.wait_for(Option::is_some).await.expect("the book lives as long as the test");
        agent.clone().expect("waited for some")
    }

    /// Each call's agent and the last message of what it was shown.
    pub fn asked(&self) -> Vec<(AgentId, String)> {
        self.asked.lock().expect("the call log").clone()
    }
}

#[async_trait]
impl LlmClient for Book {
    async fn complete(&self, request: &LlmRequest<'_>, on_token: TokenSink<'_>, cancel: &CancellationToken) -> Result<LlmReply, LlmError> {
        let last = request.messages.iter().last().map(|m| m.content.clone()).unwrap_or_default();
        self.asked.lock().expect("the call log").push((request.agent.clone(), last));
        let next = self.queues.lock().expect("the queues").get_mut(request.agent).and_then(VecDeque::pop_front);
        match next {
            None => Err(LlmError::ScriptExhausted(request.agent.clone())),
            Some(Say::Hang) => {
                self.hanging.send_replace(Some(request.agent.clone()));
                cancel.cancelled().await;
                Err(LlmError::Cancelled)
            }
            Some(Say::Text(text)) => {
                on_token(text);
                let usage = Usage { input_tokens: 10, output_tokens: text.split_whitespace().count() as u32, cost_usd: None };
                Ok(LlmReply { content: text.to_owned(), tool_calls: Vec::new(), usage: Some(usage) })
            }
        }
    }
}
