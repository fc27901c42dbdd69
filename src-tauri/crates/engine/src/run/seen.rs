//! What an agent saw (issue 18, item 2): for each model call of a turn, the exact
//! system prompt (with its generated signal paragraph), which of the run's history
//! messages it was shown and how many the context window cut, and the tokens sent.
//!
//! A record names messages by their place in the run's history rather than copying
//! them (an agent is shown the person's request and a tail of the history, so two
//! numbers say it), so keeping one per call costs the same however long the run is.
//! Records travel with their step to the store ([`super::StepRecord::contexts`]),
//! never as events: a window watching a run is not sent them; the API reads them
//! when a person asks ([`shown`], [`cut`]).

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::history::{estimated_tokens, texts};
use super::message::Message;
use crate::ids::AgentId;

/// One model call of an agent's turn, as the model was given it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct AgentContext {
    pub agent: AgentId,
    /// The run's step (the `agent_started` event's).
    pub step: u32,
    /// Which call of the turn: 0 first, then one more after each round of tool
    /// results or a reminder.
    pub call: u32,
    /// The system prompt, signal paragraph included.
    pub system_prompt: String,
    /// Where the messages it was shown start in the run's history: its view's start
    /// (`llm` and `gatekeeper` agents see only their task).
    pub from: u32,
    /// The person's request, shown apart when the tail does not start with it.
    pub first: bool,
    /// The tail it was shown: history[tail .. until].
    pub tail: u32,
    pub until: u32,
    /// Messages the context window cut (between the request and the tail).
    pub dropped: u32,
    /// Tokens sent, system prompt and messages: counted by the model's own
    /// tokenizer where its server has one, else estimated.
    pub tokens: u32,
    /// Its model's context window, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub window: Option<u32>,
}

/// The messages `context` was shown, from the run's `history`; None when the
/// history is shorter than the record says (it is not the run's).
pub fn shown<'h>(history: &'h [Message], context: &AgentContext) -> Option<Vec<&'h Message>> {
    let (from, tail, until) = (context.from as usize, context.tail as usize, context.until as usize);
    if until > history.len() || tail > until || from > tail {
        return None;
    }
    let first = context.first.then(|| history.get(from)).flatten();
    Some(first.into_iter().chain(&history[tail..until]).collect())
}

/// The messages the context window cut from what `context` was shown.
pub fn cut<'h>(history: &'h [Message], context: &AgentContext) -> &'h [Message] {
    let start = (context.from as usize + usize::from(context.first)).min(history.len());
    let end = (context.tail as usize).clamp(start, history.len());
    &history[start..end]
}

/// About how many tokens `messages` take (three characters a token).
pub fn estimated(messages: &[Message]) -> u32 {
    messages.iter().flat_map(|m| texts(m).map(|t| estimated_tokens(&t))).fold(0, u32::saturating_add)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn history() -> Vec<Message> {
        (0..6).map(|i| Message::user(format!("message {i}"))).collect()
    }

    fn context(from: u32, first: bool, tail: u32, until: u32) -> AgentContext {
        AgentContext {
            agent: AgentId::from("a"),
            step: 1,
            call: 0,
            system_prompt: String::new(),
            from,
            first,
            tail,
            until,
            dropped: tail.saturating_sub(from + u32::from(first)),
            tokens: 0,
            window: None,
        }
    }

    #[test]
    fn the_request_and_the_tail_are_shown_and_what_lies_between_was_cut() {
        let history = history();
        let seen = context(0, true, 4, 6);
        let contents: Vec<&str> = shown(&history, &seen).unwrap().iter().map(|m| m.content.as_str()).collect();
        assert_eq!(contents, ["message 0", "message 4", "message 5"]);
        assert_eq!(cut(&history, &seen).len(), 3);
        let whole = context(0, false, 0, 6);
        assert_eq!(shown(&history, &whole).unwrap().len(), 6);
        assert!(cut(&history, &whole).is_empty());
        assert!(shown(&history, &context(0, false, 0, 9)).is_none(), "a record of another history");
    }
}
