//! Trying one agent before running the whole crew (the card's **Try this agent**): a
//! small chat with that agent alone — its system prompt as a run would give it (its
//! signal paragraph included), the person's messages and its replies so far — on its
//! model, on a model chosen for the chat, or in Simulate (its replies from a script,
//! in order). Nothing is stored; each answer also says, in words, where a run would
//! go after that reply (the engine's own decision over the reply's signals).

use std::sync::Arc;

use crewgraph_engine::crew::Strategy;
use crewgraph_engine::load::load_spec_value;
use crewgraph_engine::routing::signals::{decide, Next};
use crewgraph_engine::run::history::Visible;
use crewgraph_engine::run::prompt::{ending_signals, system_prompt};
use crewgraph_engine::run::{LlmError, LlmRequest, Message, Usage};
use crewgraph_engine::{AgentId, Crew};
use crewgraph_llm::ScriptedLlm;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use ts_rs::TS;
use utoipa::ToSchema;

use super::{Api, ApiError, ApiErrorCode, RunOptions, ScriptSource};

/// One message of a try-out chat.
#[derive(Clone, Debug, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct TryMessage {
    /// True for the agent's replies, false for what the person wrote.
    pub from_agent: bool,
    pub text: String,
}

/// What the agent answered, and what a run would do next.
#[derive(Clone, Debug, Serialize, TS, ToSchema)]
#[ts(export)]
pub struct TriedReply {
    pub reply: String,
    /// In words: where a run would go after this reply (`[QUESTION] — the work would
    /// go to Student`, `no signal — the work would go on to Writer (the fallback)`).
    pub next: String,
    /// Tokens the call used, when the model said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    #[schema(value_type = Option<Object>)]
    pub usage: Option<Usage>,
    /// Why there is no reply: the model did not answer, or the script has no more
    /// replies for the agent (said in the chat, not as an error).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub problem: Option<String>,
}

impl Api {
    /// `agent`'s reply to `messages` (the person's last), in the edited crew `spec`.
    /// With `script` (Simulate), the reply is the script's next one for the agent.
    pub async fn try_agent(
        &self,
        spec: &Value,
        agent: &str,
        messages: &[TryMessage],
        model: Option<String>,
        script: Option<&ScriptSource>,
    ) -> Result<TriedReply, ApiError> {
        let invalid = |message: String| ApiError::new(ApiErrorCode::InvalidInput, message);
        let crew = load_spec_value("crew", spec)
            .map_err(|e| invalid(e.to_string()))?
            .crew
            .ok_or_else(|| invalid("the crew cannot be read: fix its problems first".into()))?;
        let id = AgentId::from(agent);
        let Some(this) = crew.agent(agent) else { return Err(invalid(format!("the crew has no agent '{agent}'"))) };
        match messages.last() {
            Some(last) if !last.from_agent && !last.text.trim().is_empty() => {}
            _ => return Err(invalid(format!("write something to {} first", this.name))),
        }
        let history: Vec<Message> = messages
            .iter()
            .map(|m| if m.from_agent { Message::agent(&id, m.text.clone()) } else { Message::user(m.text.clone()) })
            .collect();
        let llm: Arc<dyn crewgraph_engine::run::LlmClient> = match script {
            Some(source) => {
                let mut script = source.script()?;
                // The agent's replies so far were the script's first ones.
                let said = messages.iter().filter(|m| m.from_agent).count();
                script.skip_replies_of(&id, said);
                Arc::new(ScriptedLlm::new(&script))
            }
            None => self.llm_for(&crew, &RunOptions { model, ..RunOptions::default() }).await?.0,
        };
        let signals = crew.routing.strategy == Strategy::Signals;
        let system = if signals { system_prompt(&crew, agent) } else { this.system_prompt.clone() };
        let endings = if signals { ending_signals(&crew, agent) } else { Vec::new() };
        let spec_model = this.model_spec();
        let request = LlmRequest {
            model: spec_model.as_ref(),
            temperature: this.temperature,
            max_tokens: this.max_tokens,
            signals: &endings,
            ..LlmRequest::new(&id, &system, Visible::all(&history))
        };
        let reply = match llm.complete(&request, &|_| {}, &CancellationToken::new()).await {
            Ok(reply) => reply,
            Err(error) => {
                let problem = match error {
                    LlmError::ScriptExhausted(_) | LlmError::NoScriptFor(_) => format!("the script has no more replies for {}", this.name),
                    other => format!("{}'s model did not answer: {other}", this.name),
                };
                return Ok(TriedReply { reply: String::new(), next: String::new(), usage: None, problem: Some(problem) });
            }
        };
        let next = if signals { what_comes_next(&crew, &id, &reply.content) } else { "the router decides what comes next".into() };
        Ok(TriedReply { reply: reply.content, next, usage: reply.usage, problem: None })
    }
}

/// Where a run would go after `agent` said `reply`, in words.
fn what_comes_next(crew: &Crew, agent: &AgentId, reply: &str) -> String {
    let decision = decide(crew, agent, reply, &crew.matcher.scan(reply), 0);
    let name = |id: &str| crew.agent(id).map_or_else(|| id.to_owned(), |a| a.name.clone());
    let because = decision
        .events
        .iter()
        .find_map(|event| match event {
            crewgraph_engine::run::EventKind::SignalMatched { signal, .. } => Some(format!("{signal} — ")),
            crewgraph_engine::run::EventKind::RouteMissed { candidates, .. } => {
                candidates.first().map(|near| format!("no signal (it wrote {}: did you mean {}?) — ", near.found, near.signal))
            }
            _ => None,
        })
        .unwrap_or_else(|| "no signal — ".to_owned());
    let what = match decision.next {
        Next::End(status) if status.as_str() == "no_route" => "the run would end: nowhere to go".to_owned(),
        Next::End(status) if status.as_str() == "completed" => "the run would finish here".to_owned(),
        Next::End(_) => "the run would end".to_owned(),
        Next::Pause { .. } => "the run would wait for you".to_owned(),
        Next::Route { to, reason } if reason.starts_with("no signal matched") => {
            format!("the work would go on to {} (the fallback)", name(to.as_str()))
        }
        Next::Route { to, .. } => format!("the work would go to {}", name(to.as_str())),
        Next::Group { group, .. } => format!("the group {group} would start working"),
        Next::Broadcast { targets, .. } => {
            format!("the reply would go to {}", targets.iter().map(|t| name(t.as_str())).collect::<Vec<_>>().join(" and "))
        }
        Next::Reprompt { .. } => "the agent would be asked again to end with a signal".to_owned(),
    };
    format!("{because}{what}")
}
