//! What of the shared history an agent sees (DESIGN.md §4): all of it, unless it is
//! longer than the agent's context budget; then the oldest turns after the person's
//! first message are left out first, a tool call and its results together.

use super::message::{Message, Role};

/// Characters per token, for estimating how much of a budget a text takes.
pub const CHARS_PER_TOKEN: usize = 4;

/// A text's size in estimated tokens.
pub fn estimated_tokens(text: &str) -> usize {
    text.chars().count().div_ceil(CHARS_PER_TOKEN)
}

/// What an agent sees of the history: its first message (the person's request) and
/// a tail, borrowed, so handing it to a model costs nothing however long the run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Visible<'a> {
    /// The first message, when the tail does not start with it.
    pub first: Option<&'a Message>,
    /// The rest, in order.
    pub rest: &'a [Message],
}

impl<'a> Visible<'a> {
    /// All of `history`.
    pub fn all(history: &'a [Message]) -> Self {
        Visible { first: None, rest: history }
    }

    /// The messages in order.
    pub fn iter(&self) -> impl Iterator<Item = &'a Message> + '_ {
        self.first.into_iter().chain(self.rest.iter())
    }

    /// How many messages.
    pub fn len(&self) -> usize {
        self.rest.len() + usize::from(self.first.is_some())
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The messages, copied.
    pub fn to_vec(&self) -> Vec<Message> {
        self.iter().cloned().collect()
    }
}

/// The history an agent sees within `budget` tokens (with `system` taking its part),
/// and how many messages were left out.
pub fn visible<'a>(history: &'a [Message], system: &str, budget: Option<u32>) -> (Visible<'a>, u32) {
    let Some(budget) = budget.map(|b| b as usize) else { return (Visible::all(history), 0) };
    let size =
        |m: &Message| estimated_tokens(&m.content) + m.tool_calls.iter().map(|c| estimated_tokens(&c.arguments.to_string())).sum::<usize>();
    let mut total = estimated_tokens(system) + history.iter().map(size).sum::<usize>();
    if total <= budget || history.len() <= 2 {
        return (Visible::all(history), 0);
    }
    // Keep the first message and the last; drop from the oldest after the first.
    let mut start = 1;
    while total > budget && start < history.len() - 1 {
        total -= size(&history[start]);
        start += 1;
        // Tool results never outlive the call they answer.
        while start < history.len() - 1 && history[start].role == Role::Tool {
            total -= size(&history[start]);
            start += 1;
        }
    }
    (Visible { first: Some(&history[0]), rest: &history[start..] }, (start - 1) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::AgentId;
    use crate::run::message::ToolCall;

    fn history() -> Vec<Message> {
        let a = AgentId::from("a");
        let call = ToolCall { id: "c1".into(), name: "calculator".into(), arguments: serde_json::json!({}) };
        let mut with_call = Message::agent(&a, "x".repeat(40));
        with_call.tool_calls.push(call.clone());
        vec![
            Message::user("first question"),          // 4 tokens
            Message::agent(&a, "a".repeat(40)),       // 10
            with_call,                                // 10 + 1
            Message::tool(&a, &call, "b".repeat(40)), // 10
            Message::agent(&a, "c".repeat(40)),       // 10
            Message::user("latest"),                  // 2
        ]
    }

    #[test]
    fn no_budget_or_enough_budget_keeps_everything() {
        assert_eq!(visible(&history(), "", None).1, 0);
        assert_eq!(visible(&history(), "", Some(1000)).1, 0);
    }

    #[test]
    fn the_oldest_turns_after_the_first_message_go_first() {
        let history = history();
        let (kept, dropped) = visible(&history, "", Some(40));
        let kept = kept.to_vec();
        assert_eq!(dropped, 1);
        assert_eq!(kept[0].content, "first question");
        assert_eq!(kept[1].content, "x".repeat(40));
    }

    #[test]
    fn a_tool_result_goes_with_its_call() {
        let history = history();
        let (kept, dropped) = visible(&history, "", Some(25));
        let kept = kept.to_vec();
        assert_eq!(dropped, 3, "the call and its result are dropped together");
        assert!(kept.iter().all(|m| m.role != Role::Tool));
        assert_eq!(kept.last().unwrap().content, "latest");
    }

    #[test]
    fn the_first_and_last_messages_always_stay() {
        let history = history();
        let kept = visible(&history, "", Some(1)).0.to_vec();
        assert_eq!(kept.first().unwrap().content, "first question");
        assert_eq!(kept.last().unwrap().content, "latest");
    }
}
