//! The `gatekeeper` strategy in Simulate mode: a run given a script whose
//! `gatekeeper:` entries answer for the gatekeeper service takes its decisions from
//! them, in order, and asks no service at all. [`ScriptedGatekeeper`] is a
//! [`RouteDecider`] like the HTTP [`super::GatekeeperClient`], and reads each answer
//! with the engine's one parser ([`parse`]), so a malformed scripted answer is
//! refused exactly as the same text from a service would be.
//!
//! ```yaml
//! replies:
//!   desk: ["A customer was charged twice and wants a refund."]
//!   billing: ["The second charge is refunded."]
//!   gatekeeper:
//!     - '{"workflow_complete": false, "next_agent": "billing", "next_instruction": "Refund the double charge.", "confidence": 0.8}'
//!     - '{"workflow_complete": true, "reasoning": "The refund is done."}'
//! ```
//!
//! An entry is a reply as scripts write them: its text is the service's answer, an
//! `error:` fails the decision as a service that cannot be reached does (the run
//! ends `failed`), `delay_ms` makes it wait (a cancelled run stops waiting). A run
//! that needs a decision after the last entry fails, saying so. A script without
//! `gatekeeper:` entries leaves the run asking the real service.
//!
//! ```
//! use crewgraph::api::ScriptedGatekeeper;
//! use crewgraph_llm::Script;
//!
//! let script = Script::parse("s.yaml", "replies:\n  gatekeeper: ['{\"workflow_complete\": true}']\n").unwrap();
//! assert!(ScriptedGatekeeper::from_script(&script).is_some());
//! let agents_only = Script::parse("s.yaml", "replies:\n  desk: [Hello.]\n").unwrap();
//! assert!(ScriptedGatekeeper::from_script(&agents_only).is_none(), "the real service is asked");
//! ```

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Duration;

use async_trait::async_trait;
use crewgraph_engine::routing::decider::{parse, DecideError, Decision, DecisionContext, Rejected, RouteDecider};
use crewgraph_llm::scripted::{ScriptedReply, GATEKEEPER, MAX_DELAY_MS};
use crewgraph_llm::Script;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::gatekeeper::request_body;

/// The gatekeeper's answers from a script, in order.
#[derive(Debug, Default)]
pub struct ScriptedGatekeeper {
    answers: Mutex<VecDeque<ScriptedReply>>,
    /// Every request it was asked, as a service would have been sent it.
    asked: Mutex<Vec<Value>>,
}

impl ScriptedGatekeeper {
    /// A gatekeeper answering `answers`, in order.
    pub fn new(answers: &[ScriptedReply]) -> Self {
        ScriptedGatekeeper { answers: Mutex::new(answers.iter().cloned().collect()), asked: Mutex::new(Vec::new()) }
    }

    /// The gatekeeper of `script`: its `gatekeeper:` entries; None when it has none
    /// (the run then asks the real service).
    pub fn from_script(script: &Script) -> Option<Self> {
        script.replies_of(GATEKEEPER).map(Self::new)
    }

    /// Every request it was asked so far, in order, as the JSON a gatekeeper service
    /// would have been posted.
    pub fn asked(&self) -> Vec<Value> {
        self.asked.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

#[async_trait]
impl RouteDecider for ScriptedGatekeeper {
    async fn decide(
        &self,
        context: &DecisionContext,
        rejected: Option<&Rejected>,
        cancel: &CancellationToken,
    ) -> Result<Decision, DecideError> {
        if cancel.is_cancelled() {
            return Err(DecideError::Cancelled);
        }
        self.asked.lock().unwrap_or_else(|p| p.into_inner()).push(request_body(context, rejected));
        let next = self.answers.lock().unwrap_or_else(|p| p.into_inner()).pop_front();
        let Some(answer) = next else {
            return Err(DecideError::Unavailable(format!(
                "the script has no answer left for the gatekeeper (decision {}: add one under `{GATEKEEPER}:`)",
                context.iteration
            )));
        };
        if answer.delay_ms > 0 {
            tokio::select! {
                biased;
                _ = cancel.cancelled() => return Err(DecideError::Cancelled),
                _ = tokio::time::sleep(Duration::from_millis(answer.delay_ms.min(MAX_DELAY_MS))) => {}
            }
        }
        if let Some(error) = answer.error {
            return Err(DecideError::Unavailable(format!("scripted: {error}")));
        }
        parse(&answer.content)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crewgraph_engine::routing::decider::WorkflowStep;
    use crewgraph_engine::run::Timestamp;
    use crewgraph_engine::AgentId;

    fn context() -> DecisionContext {
        DecisionContext {
            original_query: "Refund me".into(),
            workflow_history: vec![WorkflowStep::new(&AgentId::from("desk"), "A refund request.", Timestamp::default())],
            current_agent: AgentId::from("desk"),
            current_output: "A refund request.".into(),
            available_agents: Vec::new(),
            iteration: 2,
            max_iterations: 4,
        }
    }

    #[tokio::test]
    async fn answers_come_in_order_and_running_out_says_where_to_add_one() {
        let script = Script::parse(
            "s.yaml",
            "replies:\n  gatekeeper:\n    - '{\"workflow_complete\": true}'\n    - { error: the service is down }\n",
        )
        .unwrap();
        let gatekeeper = ScriptedGatekeeper::from_script(&script).unwrap();
        let cancel = CancellationToken::new();
        assert!(gatekeeper.decide(&context(), None, &cancel).await.unwrap().workflow_complete);
        assert_eq!(
            gatekeeper.decide(&context(), None, &cancel).await,
            Err(DecideError::Unavailable("scripted: the service is down".into()))
        );
        assert_eq!(
            gatekeeper.decide(&context(), None, &cancel).await,
            Err(DecideError::Unavailable(
                "the script has no answer left for the gatekeeper (decision 2: add one under `gatekeeper:`)".into()
            ))
        );
        let asked = gatekeeper.asked();
        assert_eq!(asked.len(), 3);
        assert_eq!(asked[0]["original_query"], "Refund me", "kept as a service would have been sent it");
    }
}
