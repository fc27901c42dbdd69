//! Context that fits (DESIGN.md §4 and §13): before each call, what an agent is
//! shown is fit into its model's context window — the system prompt, the history,
//! and room for the reply — by leaving out the oldest turns after the person's first
//! message ([`history::trim_start`]), never after a provider refused.
//!
//! - **The window** comes from the model ([`LlmClient::context_window`]: what its
//!   server reports, what is known of it, what the person set); a crew's or agent's
//!   `context_budget` narrows it further. Unknown and unset: nothing is trimmed.
//! - **Sizes** are counted by the model's own tokenizer where its server has one
//!   ([`LlmClient::count_tokens`], each text once per run), else estimated on the
//!   large side ([`history::estimated_tokens`]).
//! - **Room to grow**: once turns must go, enough go that the history fills at most
//!   three quarters of the room, and later calls keep that starting point while it
//!   fits, so a server's prompt cache reuses the prompt's beginning.
//! - **Squeezed**: after a provider said the request was too long anyway, the next
//!   try fits into two thirds of what was sent ([`Fit::squeezed`]).

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};

use super::history::{self, Visible, MESSAGE_OVERHEAD};
use super::llm::{ContextWindow, LlmClient};
use super::message::Message;
use crate::crew::{Agent, ModelSpec, Settings};
use crate::ids::AgentId;

/// Tokens kept free for the chat template's own text around the messages.
const TEMPLATE_MARGIN: u32 = 32;
/// The room kept for a reply when neither the agent nor its model says how long
/// replies may be: a quarter of the window, at most this many tokens.
const DEFAULT_REPLY: u32 = 2048;

/// Fits requests into their model's window, for one run (its counts are kept).
pub(crate) struct Fitter {
    llm: Arc<dyn LlmClient>,
    /// Token counts by text (a hash of the model and the text), counted once.
    counts: Mutex<HashMap<u64, u32>>,
}

/// What one call may send.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Fit<'a> {
    pub messages: Visible<'a>,
    /// Messages left out (the `history_trimmed` event's count).
    pub dropped: u32,
    /// Where the tail started, for the next call's [`Fitter::fit`].
    pub start: usize,
    /// The tokens sent, system prompt and messages (counted or estimated), when
    /// anything bounds them; None when nothing was measured.
    pub tokens: Option<u32>,
    /// The model's window, when known.
    pub window: Option<u32>,
}

/// Why a request cannot be fit at all.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Unfit {
    /// The system prompt and the reply's room alone fill the window.
    #[error(
        "its instructions alone take about {instructions} tokens, and with {reply} tokens kept for its reply they do not fit \
         its model's context window of {window} tokens: shorten its instructions, lower its max_tokens, or give it a model \
         with a larger context window"
    )]
    Instructions { instructions: u32, reply: u32, window: u32 },
    /// The room kept for the reply alone fills the window.
    #[error(
        "the {reply} tokens kept for its reply (its max_tokens) leave no room in its model's context window of {window} \
         tokens: lower its max_tokens, or give it a model with a larger context window"
    )]
    Reply { reply: u32, window: u32 },
}

/// What bounds one call besides the model's window.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Bounds {
    /// The crew's or agent's `context_budget` (estimated tokens of prompt and history).
    pub budget: Option<u32>,
    /// The agent's `max_tokens`: the room kept for the reply.
    pub max_tokens: Option<u32>,
    /// After an overflow: send at most this many tokens.
    pub squeeze: Option<u32>,
    /// After an overflow: the window the model's server said it has, believed over
    /// the one known before.
    pub window: Option<u32>,
}

impl Bounds {
    /// What bounds `agent`'s calls before any overflow: its (or its crew's)
    /// `context_budget` and its `max_tokens`.
    pub(crate) fn of(agent: &Agent, settings: &Settings) -> Bounds {
        Bounds { budget: agent.context_budget.or(settings.context_budget), max_tokens: agent.max_tokens, ..Bounds::default() }
    }

    /// The bounds for the one more try after a request of `sent` tokens was refused
    /// as too long by a server that said its window is `window` (when it said).
    pub(crate) fn squeezed(self, sent: u32, window: Option<u32>) -> Bounds {
        Bounds { squeeze: Some(sent / 3 * 2), window: window.or(self.window), ..self }
    }
}

impl Fitter {
    pub(crate) fn new(llm: Arc<dyn LlmClient>) -> Self {
        Fitter { llm, counts: Mutex::new(HashMap::new()) }
    }

    /// What `system` and `history` come to for `model`: the tail to send, starting at
    /// `from` (the last call's start) when it still fits.
    pub(crate) async fn fit<'a>(
        &self,
        model: Option<&ModelSpec>,
        system: &str,
        history: &'a [Message],
        bounds: Bounds,
        from: usize,
    ) -> Result<Fit<'a>, Unfit> {
        let known = self.llm.context_window(model).await;
        let window = match bounds.window {
            Some(tokens) => Some(ContextWindow { tokens, reply: known.and_then(|k| k.reply) }),
            None => known,
        }
        .filter(|w| w.tokens > 0);
        let room = window.map(|w| room(w, bounds.max_tokens)).transpose()?;
        let limit = [room.map(|r| r.prompt), bounds.budget, bounds.squeeze].into_iter().flatten().min();
        let Some(limit) = limit else {
            return Ok(Fit { messages: Visible::all(history), dropped: 0, start: 1, tokens: None, window: None });
        };
        let mut sizes = Self::estimate(system, history);
        let estimated: u64 = sizes.iter().map(|&s| u64::from(s)).sum();
        if estimated > u64::from(limit) || bounds.squeeze.is_some() {
            if let Some(counted) = self.count(model, system, history).await {
                sizes = counted;
            }
        }
        let (system_size, sizes) = sizes.split_first().map(|(s, rest)| (*s, rest)).unwrap_or((0, &[]));
        if let (Some(window), Some(room)) = (window, room) {
            if system_size > room.prompt {
                return Err(Unfit::Instructions { instructions: system_size, reply: room.reply, window: window.tokens });
            }
        }
        let start = history::trim_start(history, sizes, system_size, limit, from, limit / 4 * 3);
        let sent = system_size + sizes.first().copied().unwrap_or(0) + sizes.iter().skip(start).sum::<u32>();
        let dropped = u32::try_from(start.saturating_sub(1)).unwrap_or(u32::MAX);
        Ok(Fit { messages: Visible::from(history, start), dropped, start, tokens: Some(sent), window: window.map(|w| w.tokens) })
    }

    /// Estimated sizes: the system prompt first, then each message.
    fn estimate(system: &str, history: &[Message]) -> Vec<u32> {
        std::iter::once(history::estimated_tokens(system))
            .chain(
                history
                    .iter()
                    .map(|m| history::texts(m).map(|t| history::estimated_tokens(&t)).fold(MESSAGE_OVERHEAD, u32::saturating_add)),
            )
            .collect()
    }

    /// Counted sizes (the system prompt first, then each message), asking the model
    /// only for texts not counted before; None when it cannot count.
    async fn count(&self, model: Option<&ModelSpec>, system: &str, history: &[Message]) -> Option<Vec<u32>> {
        let model_key = format!("{model:?}");
        let key = |text: &str| {
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            model_key.hash(&mut hasher);
            text.hash(&mut hasher);
            hasher.finish()
        };
        let mut texts: Vec<Vec<std::borrow::Cow<'_, str>>> = vec![vec![std::borrow::Cow::Borrowed(system)]];
        texts.extend(history.iter().map(|m| history::texts(m).collect()));
        let missing: Vec<&str> = {
            let counts = self.counts.lock().ok()?;
            let mut missing: Vec<&str> =
                texts.iter().flatten().map(|t| t.as_ref()).filter(|t| !t.is_empty() && !counts.contains_key(&key(t))).collect();
            missing.sort_unstable();
            missing.dedup();
            missing
        };
        if !missing.is_empty() {
            let counted = self.llm.count_tokens(model, &missing).await?;
            if counted.len() != missing.len() {
                return None;
            }
            let mut counts = self.counts.lock().ok()?;
            for (text, tokens) in missing.iter().zip(counted) {
                counts.insert(key(text), tokens);
            }
        }
        let counts = self.counts.lock().ok()?;
        let size = |t: &str| if t.is_empty() { Some(0) } else { counts.get(&key(t)).copied() };
        let mut sizes = Vec::with_capacity(texts.len());
        for (i, message) in texts.iter().enumerate() {
            let overhead = if i == 0 { 0 } else { MESSAGE_OVERHEAD };
            let mut total = overhead;
            for text in message {
                total = total.saturating_add(size(text)?);
            }
            sizes.push(total);
        }
        Some(sizes)
    }
}

/// The estimated tokens of `system` and `messages` (for a request nothing bounded).
pub(crate) fn estimated(system: &str, messages: Visible<'_>) -> u32 {
    messages.iter().fold(history::estimated_tokens(system), |total, m| {
        history::texts(m).map(|t| history::estimated_tokens(&t)).fold(total.saturating_add(MESSAGE_OVERHEAD), u32::saturating_add)
    })
}

/// The warning when `agent`'s model refused a request as too long, before it is
/// asked again with less of the history.
pub(crate) fn squeezing(agent: &AgentId, said: &str) -> String {
    format!("{agent}'s model said the conversation is too long for it ({said}); the oldest turns are left out and it is asked again")
}

/// Why a run fails when a model refused a request as too long even once squeezed.
pub(crate) fn overflow(dropped: u32, seen: usize, said: &str) -> String {
    format!(
        "the conversation does not fit its model's context window, even with the oldest turns left out ({dropped} left out, \
         {seen} still sent): give it a model with a larger context window, shorten its instructions, or lower its \
         max_tokens (the model's server said: {said})"
    )
}

/// A window split into the prompt's part and the reply's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Room {
    prompt: u32,
    reply: u32,
}

/// The room `window` leaves for the prompt once `max_tokens` (the agent's; else the
/// model's; else a quarter of the window, at most [`DEFAULT_REPLY`]) is kept for the
/// reply and a margin for the chat template.
fn room(window: ContextWindow, max_tokens: Option<u32>) -> Result<Room, Unfit> {
    let reply = max_tokens.or(window.reply).unwrap_or((window.tokens / 4).min(DEFAULT_REPLY));
    let margin = TEMPLATE_MARGIN + window.tokens / 50;
    match window.tokens.checked_sub(reply).and_then(|left| left.checked_sub(margin)) {
        Some(prompt) if prompt > 0 => Ok(Room { prompt, reply }),
        _ => Err(Unfit::Reply { reply, window: window.tokens }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::AgentId;
    use crate::run::llm::{LlmError, LlmReply, LlmRequest, TokenSink};
    use async_trait::async_trait;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use tokio_util::sync::CancellationToken;

    /// A model with a small window whose tokenizer counts one token per word.
    struct Small {
        window: Option<ContextWindow>,
        counts: bool,
        asked: AtomicUsize,
    }

    #[async_trait]
    impl LlmClient for Small {
        async fn complete(&self, _: &LlmRequest<'_>, _: TokenSink<'_>, _: &CancellationToken) -> Result<LlmReply, LlmError> {
            Ok(LlmReply::default())
        }
        async fn context_window(&self, _: Option<&ModelSpec>) -> Option<ContextWindow> {
            self.window
        }
        async fn count_tokens(&self, _: Option<&ModelSpec>, texts: &[&str]) -> Option<Vec<u32>> {
            if !self.counts {
                return None;
            }
            self.asked.fetch_add(texts.len(), Ordering::SeqCst);
            Some(texts.iter().map(|t| t.split_whitespace().count() as u32).collect())
        }
    }

    fn small(window: Option<u32>, reply: Option<u32>, counts: bool) -> (Fitter, Arc<Small>) {
        let small = Arc::new(Small { window: window.map(|tokens| ContextWindow { tokens, reply }), counts, asked: AtomicUsize::new(0) });
        (Fitter::new(small.clone()), small)
    }

    fn turns(n: usize, words: usize) -> Vec<Message> {
        let a = AgentId::from("a");
        let mut history = vec![Message::user("please begin")];
        history.extend((0..n).map(|i| Message::agent(&a, format!("turn {i} {}", "word ".repeat(words)))));
        history
    }

    #[tokio::test]
    async fn an_unknown_window_and_no_budget_send_everything() {
        let (fitter, _) = small(None, None, false);
        let history = turns(50, 100);
        let fit = fitter.fit(None, "sys", &history, Bounds::default(), 1).await.unwrap();
        assert_eq!((fit.dropped, fit.messages.len()), (0, 51));
    }

    #[tokio::test]
    async fn a_history_longer_than_the_window_is_trimmed_to_leave_room_for_the_reply() {
        let (fitter, small) = small(Some(1000), Some(200), true);
        let history = turns(30, 50); // 30 × (52 words + 4) tokens counted
        let fit = fitter.fit(None, "be brief", &history, Bounds::default(), 1).await.unwrap();
        let room = 1000 - 200 - TEMPLATE_MARGIN - 1000 / 50;
        let sent = fit.tokens.unwrap();
        assert!(sent <= room / 4 * 3, "trimmed to the low-water mark: {sent} of {room}");
        assert!(fit.dropped > 0 && fit.messages.first.is_some());
        assert_eq!(fit.messages.iter().last(), history.last(), "the latest message stays");
        let asked = small.asked.load(Ordering::SeqCst);
        assert!(asked > 0, "the model's own tokenizer counted");
        // The next call counts only what is new, and keeps the start while it fits.
        let mut longer = history.clone();
        longer.push(Message::user("one more"));
        let next = fitter.fit(None, "be brief", &longer, Bounds::default(), fit.start).await.unwrap();
        assert_eq!(next.start, fit.start, "the prompt's beginning stays the same");
        assert_eq!(small.asked.load(Ordering::SeqCst), asked + 1, "only the new message was counted");
    }

    #[tokio::test]
    async fn the_agents_max_tokens_and_budget_narrow_the_room() {
        let (fitter, _) = small(Some(100_000), None, false);
        let history = turns(30, 50);
        let roomy = fitter.fit(None, "", &history, Bounds::default(), 1).await.unwrap();
        assert_eq!(roomy.dropped, 0);
        let narrow = fitter.fit(None, "", &history, Bounds { budget: Some(500), ..Bounds::default() }, 1).await.unwrap();
        assert!(narrow.dropped > 0 && narrow.tokens.unwrap() <= 500, "{narrow:?}");
        let (small, _) = small(Some(2000), None, false);
        let wide_reply = small.fit(None, "", &history, Bounds { max_tokens: Some(1500), ..Bounds::default() }, 1).await.unwrap();
        assert!(wide_reply.tokens.unwrap() <= 2000 - 1500, "{wide_reply:?}");
    }

    #[tokio::test]
    async fn squeezed_sends_less_than_before() {
        let (fitter, _) = small(Some(4000), Some(100), true);
        let history = turns(60, 50);
        let first = fitter.fit(None, "", &history, Bounds::default(), 1).await.unwrap();
        let less = first.tokens.unwrap() / 3 * 2;
        let squeezed = fitter.fit(None, "", &history, Bounds::default().squeezed(first.tokens.unwrap(), None), first.start).await.unwrap();
        assert!(squeezed.tokens.unwrap() <= less && squeezed.dropped > first.dropped, "{first:?} then {squeezed:?}");
        // A server that says its window is smaller than believed is believed.
        let said =
            fitter.fit(None, "", &history, Bounds::default().squeezed(first.tokens.unwrap(), Some(1000)), first.start).await.unwrap();
        assert!(said.tokens.unwrap() <= 1000 - 100 - TEMPLATE_MARGIN - 1000 / 50, "{said:?}");
    }

    #[tokio::test]
    async fn instructions_larger_than_the_window_are_said_plainly() {
        let (fitter, _) = small(Some(500), Some(100), true);
        let system = "rule ".repeat(800);
        let error = fitter.fit(None, &system, &turns(2, 5), Bounds::default(), 1).await.unwrap_err();
        assert_eq!(error, Unfit::Instructions { instructions: 800, reply: 100, window: 500 });
        assert!(error.to_string().starts_with("its instructions alone take about 800 tokens"), "{error}");
        let (tiny, _) = small(Some(40), Some(100), false);
        let error = tiny.fit(None, "", &turns(2, 5), Bounds::default(), 1).await.unwrap_err();
        assert_eq!(error, Unfit::Reply { reply: 100, window: 40 });
    }
}
