//! What an agent saw at one turn of a stored run (issue 18, item 2; `crewgraph
//! context`, `GET /runs/{id}/context?step=N`): for each model call of the turn, the
//! exact system prompt, the messages it was shown, those its context window cut, and
//! the tokens — read from the store when asked, never streamed with the events
//! ([`crewgraph_engine::run::seen`]).

use crewgraph_engine::run::history::estimated_tokens;
use crewgraph_engine::run::seen::{cut, estimated, shown};
use crewgraph_engine::run::Message;
use crewgraph_engine::RunId;
use serde::Serialize;
use ts_rs::TS;
use utoipa::ToSchema;

use super::{Api, ApiError, ApiErrorCode};

/// One model call of a turn, as its model was given it.
#[derive(Clone, Debug, PartialEq, Serialize, TS, ToSchema)]
#[ts(export)]
pub struct SeenCall {
    pub agent: String,
    /// Which call of the turn: 0 first, then one more after each round of tool results.
    pub call: u32,
    /// The system prompt, the generated signal paragraph included.
    pub system_prompt: String,
    /// The messages it was shown, in order.
    #[schema(value_type = Vec<Object>)]
    pub messages: Vec<Message>,
    /// The messages its context window cut (between the person's request and the tail it was shown).
    #[schema(value_type = Vec<Object>)]
    pub cut: Vec<Message>,
    /// Tokens sent, prompt and messages: counted by its model's tokenizer where its server has one, else estimated.
    pub tokens: u32,
    /// Of those, about how many the system prompt took.
    pub prompt_tokens: u32,
    /// About how many tokens the cut messages would have taken.
    pub cut_tokens: u32,
    /// Its model's context window, when known.
    pub window: Option<u32>,
}

/// What the agents of one step of a run were given.
#[derive(Clone, Debug, PartialEq, Serialize, TS, ToSchema)]
#[ts(export)]
pub struct StepContext {
    pub run_id: String,
    pub step: u32,
    /// Each model call of the step, in order (several agents for a parallel group).
    pub calls: Vec<SeenCall>,
}

impl Api {
    /// What the agents of step `step` of run `id` were given (`agent`: only its calls).
    pub async fn step_context(&self, id: &RunId, step: u32, agent: Option<&str>) -> Result<StepContext, ApiError> {
        let stored = self.stored_run(id).await?;
        let Some(contexts) = self.store()?.contexts(id).await? else {
            return Err(ApiError::new(
                ApiErrorCode::NotFound,
                format!(
                    "run '{id}' was recorded before Crewgraph kept what each agent was given, so there is nothing to show; \
                     runs from now on keep it"
                ),
            ));
        };
        let calls: Vec<SeenCall> = contexts
            .iter()
            .filter(|c| c.step == step && agent.is_none_or(|a| c.agent == a))
            .map(|context| {
                let messages: Vec<Message> = shown(&stored.history, context).unwrap_or_default().into_iter().cloned().collect();
                let cut = cut(&stored.history, context).to_vec();
                SeenCall {
                    agent: context.agent.to_string(),
                    call: context.call,
                    prompt_tokens: estimated_tokens(&context.system_prompt),
                    cut_tokens: estimated(&cut),
                    system_prompt: context.system_prompt.clone(),
                    messages,
                    cut,
                    tokens: context.tokens,
                    window: context.window,
                }
            })
            .collect();
        if calls.is_empty() {
            let steps: Vec<u32> = contexts.iter().map(|c| c.step).collect();
            let (first, last) = (steps.iter().min(), steps.iter().max());
            let which = agent.map(|a| format!(" of {a}")).unwrap_or_default();
            let there = match (first, last) {
                (Some(first), Some(last)) => format!("its agents' turns are steps {first} to {last}"),
                _ => "no agent has had a turn yet".to_owned(),
            };
            return Err(ApiError::new(ApiErrorCode::NotFound, format!("run '{id}' has no turn{which} at step {step} ({there})")));
        }
        Ok(StepContext { run_id: id.to_string(), step, calls })
    }
}
