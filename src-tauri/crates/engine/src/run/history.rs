//! What of the shared history an agent sees (DESIGN.md §4): all of it, unless it is
//! longer than the room its model leaves (see `run::context`); then the oldest
//! turns after the person's first message are left out first, a tool call and its
//! results together.
//!
//! This file is the pure part: sizes in tokens come in, a starting point comes out.

use super::message::{Message, Role};

/// Tokens every message costs beyond its text: the chat template's role markers.
pub const MESSAGE_OVERHEAD: u32 = 4;

/// A text's size in tokens, estimated on the large side when the model's own
/// tokenizer cannot be asked: a token for every three characters (English runs near
/// four to a token, but figures, fractions and most other scripts take more).
pub fn estimated_tokens(text: &str) -> u32 {
    u32::try_from(text.chars().count().div_ceil(3)).unwrap_or(u32::MAX)
}

/// The texts of a message that take room in a request: its content, then the
/// arguments of each tool call it made.
pub fn texts(message: &Message) -> impl Iterator<Item = std::borrow::Cow<'_, str>> {
    std::iter::once(std::borrow::Cow::Borrowed(message.content.as_str()))
        .chain(message.tool_calls.iter().map(|call| std::borrow::Cow::Owned(call.arguments.to_string())))
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

    /// The first message and the messages from `start` on (all when `start` ≤ 1).
    pub fn from(history: &'a [Message], start: usize) -> Self {
        if start <= 1 || history.is_empty() {
            return Visible::all(history);
        }
        Visible { first: Some(&history[0]), rest: &history[start.min(history.len())..] }
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

/// Where the visible tail of `history` starts (1 = nothing left out) so that `fixed`
/// tokens (the system prompt) and the messages, sized by `sizes`, fit in `budget`.
///
/// `from` is where the tail started last time: while the history from there fits,
/// it stays (the prompt's beginning stays the same, so a server's prompt cache reuses
/// it). When turns must go, they go until the rest fills at most `low_water` tokens
/// (or only the first and the last message are left). The first and the last
/// message always stay; a tool result never outlives the call it answers.
pub fn trim_start(history: &[Message], sizes: &[u32], fixed: u32, budget: u32, from: usize, low_water: u32) -> usize {
    debug_assert_eq!(history.len(), sizes.len());
    let len = history.len();
    if len <= 2 {
        return 1;
    }
    let first = u64::from(sizes[0]) + u64::from(fixed);
    // tail[i] = the tokens of sizes[i..]
    let mut tail: Vec<u64> = vec![0; len + 1];
    for i in (0..len).rev() {
        tail[i] = tail[i + 1] + u64::from(sizes[i]);
    }
    let total = |start: usize| first + tail[start];
    if total(1) <= u64::from(budget) {
        return 1;
    }
    let from = from.clamp(1, len - 1);
    if from > 1 && total(from) <= u64::from(budget) {
        return from;
    }
    let mut start = from;
    while total(start) > u64::from(low_water.min(budget)) && start < len - 1 {
        start += 1;
        while start < len - 1 && history[start].role == Role::Tool {
            start += 1;
        }
    }
    start
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
            Message::user("first question"),
            Message::agent(&a, "a".repeat(40)),
            with_call,
            Message::tool(&a, &call, "b".repeat(40)),
            Message::agent(&a, "c".repeat(40)),
            Message::user("latest"),
        ]
    }

    const SIZES: [u32; 6] = [4, 10, 11, 10, 10, 2];

    #[test]
    fn enough_budget_keeps_everything() {
        assert_eq!(trim_start(&history(), &SIZES, 0, 1000, 1, 1000), 1);
        assert_eq!(trim_start(&history(), &SIZES, 0, 47, 1, 47), 1, "exactly the budget fits");
        assert_eq!(Visible::from(&history(), 1).len(), 6);
    }

    #[test]
    fn the_oldest_turns_after_the_first_message_go_first() {
        let history = history();
        let start = trim_start(&history, &SIZES, 0, 40, 1, 40);
        assert_eq!(start, 2);
        let kept = Visible::from(&history, start).to_vec();
        assert_eq!(kept[0].content, "first question");
        assert_eq!(kept[1].content, "x".repeat(40));
    }

    #[test]
    fn the_system_prompt_takes_its_part_of_the_budget() {
        assert_eq!(trim_start(&history(), &SIZES, 10, 47, 1, 47), 2);
    }

    #[test]
    fn a_tool_result_goes_with_its_call() {
        let history = history();
        let start = trim_start(&history, &SIZES, 0, 25, 1, 25);
        assert_eq!(start, 4, "the call and its result are dropped together");
        assert!(Visible::from(&history, start).iter().all(|m| m.role != Role::Tool));
    }

    #[test]
    fn the_first_and_last_messages_always_stay() {
        let history = history();
        let kept = Visible::from(&history, trim_start(&history, &SIZES, 0, 1, 1, 1)).to_vec();
        assert_eq!(kept.first().unwrap().content, "first question");
        assert_eq!(kept.last().unwrap().content, "latest");
        assert_eq!(kept.len(), 2);
    }

    #[test]
    fn trimming_leaves_room_to_grow_and_keeps_its_start_while_it_fits() {
        let history = history();
        // Budget 40, low water 20: trimmed until at most 20 tokens are left.
        let start = trim_start(&history, &SIZES, 0, 40, 1, 20);
        assert_eq!(start, 4, "trimmed past the budget to the low-water mark");
        // Next time, with the same history, the start stays although less would do.
        assert_eq!(trim_start(&history, &SIZES, 0, 40, 4, 20), 4);
        // A start that no longer fits moves on.
        assert_eq!(trim_start(&history, &SIZES, 0, 12, 4, 12), 5);
    }

    #[test]
    fn estimates_err_on_the_large_side() {
        assert_eq!(estimated_tokens(""), 0);
        assert_eq!(estimated_tokens("abc"), 1);
        assert_eq!(estimated_tokens("abcd"), 2);
        assert_eq!(estimated_tokens("Kết Thúc"), 3, "characters, not bytes");
    }
}
