//! A scripted run at a person's pace (Simulate): a script answers at once, so a
//! crew's whole run is over before anyone has seen it. [`Paced`] wraps the scripted
//! model and lets its replies come
//!
//! - [`Pace::Instant`]: as the script says (its own `delay_ms`, else at once);
//! - [`Pace::Readable`]: word by word, as a model would write them, at a pace a
//!   person can read ([`READABLE_WORD`] a word);
//! - [`Pace::Step`]: one turn at a time — each agent's turn waits until the person
//!   says **Next** ([`Stepper::next`]), then comes at a readable pace.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use crewgraph_engine::run::{ContextWindow, LlmClient, LlmError, LlmReply, LlmRequest, TokenSink};
use crewgraph_engine::ModelSpec;
use serde::{Deserialize, Serialize};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use ts_rs::TS;
use utoipa::ToSchema;

/// The time one word takes at a readable pace (about a model's writing speed on a
/// modest machine, slow enough to follow).
pub const READABLE_WORD: Duration = Duration::from_millis(60);

/// How fast a scripted run's replies come.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS, ToSchema)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum Pace {
    /// As the script says: at once unless a reply has a `delay_ms`.
    #[default]
    Instant,
    /// Word by word, at a pace a person can read.
    Readable,
    /// One turn at a time: each waits for the person's **Next**.
    Step,
}

/// The person's **Next** for a run at [`Pace::Step`] (cheap to clone; clones share it).
#[derive(Clone, Debug)]
pub struct Stepper {
    permits: Arc<Semaphore>,
    /// Turns waiting for their **Next** now.
    waiting: Arc<Mutex<usize>>,
}

impl Default for Stepper {
    fn default() -> Self {
        Stepper { permits: Arc::new(Semaphore::new(0)), waiting: Arc::new(Mutex::new(0)) }
    }
}

impl Stepper {
    pub fn new() -> Self {
        Self::default()
    }

    /// Lets the next turn come (the one waiting now, or the next one to ask).
    pub fn next(&self) {
        self.permits.add_permits(1);
    }

    /// How many turns wait for their **Next** now.
    pub fn waiting(&self) -> usize {
        *self.waiting.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Waits for a **Next** (or the run's cancellation).
    async fn turn(&self, cancel: &CancellationToken) -> Result<(), LlmError> {
        *self.waiting.lock().unwrap_or_else(|p| p.into_inner()) += 1;
        let got = tokio::select! {
            permit = self.permits.acquire() => permit.map(|p| p.forget()).map_err(|_| LlmError::Cancelled),
            _ = cancel.cancelled() => Err(LlmError::Cancelled),
        };
        *self.waiting.lock().unwrap_or_else(|p| p.into_inner()) -= 1;
        got
    }
}

/// `inner` (a scripted model) at `pace`.
pub struct Paced {
    inner: Arc<dyn LlmClient>,
    pace: Pace,
    stepper: Stepper,
}

impl Paced {
    pub fn new(inner: Arc<dyn LlmClient>, pace: Pace, stepper: Stepper) -> Self {
        Paced { inner, pace, stepper }
    }
}

#[async_trait]
impl LlmClient for Paced {
    async fn complete(&self, request: &LlmRequest<'_>, on_token: TokenSink<'_>, cancel: &CancellationToken) -> Result<LlmReply, LlmError> {
        if self.pace == Pace::Instant {
            return self.inner.complete(request, on_token, cancel).await;
        }
        if self.pace == Pace::Step {
            self.stepper.turn(cancel).await?;
        }
        // The script's pieces, kept back, then given out one word at a time.
        let pieces = Mutex::new(Vec::<String>::new());
        let keep = |piece: &str| pieces.lock().unwrap_or_else(|p| p.into_inner()).push(piece.to_owned());
        let result = self.inner.complete(request, &keep, cancel).await;
        let pieces = pieces.into_inner().unwrap_or_else(|p| p.into_inner());
        for piece in pieces {
            tokio::select! {
                _ = tokio::time::sleep(READABLE_WORD) => {}
                _ = cancel.cancelled() => return Err(LlmError::Cancelled),
            }
            on_token(&piece);
        }
        result
    }

    fn typed_by_a_person(&self) -> bool {
        // At step pace a turn waits for the person's Next: their time, not a model's.
        self.pace == Pace::Step || self.inner.typed_by_a_person()
    }

    async fn context_window(&self, model: Option<&ModelSpec>) -> Option<ContextWindow> {
        self.inner.context_window(model).await
    }

    async fn count_tokens(&self, model: Option<&ModelSpec>, texts: &[&str]) -> Option<Vec<u32>> {
        self.inner.count_tokens(model, texts).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Script, ScriptedLlm};
    use crewgraph_engine::run::history::Visible;
    use crewgraph_engine::AgentId;
    use std::time::Instant;

    fn scripted() -> Arc<dyn LlmClient> {
        let script = Script::parse("s.yaml", "replies:\n  a: [\"one two three four five\", \"again\"]\n").unwrap();
        Arc::new(ScriptedLlm::new(&script))
    }

    async fn ask(model: &Paced, cancel: &CancellationToken) -> (Result<LlmReply, LlmError>, Vec<(String, Instant)>) {
        let agent = AgentId::from("a");
        let request = LlmRequest::new(&agent, "", Visible::all(&[]));
        let seen = Mutex::new(Vec::new());
        let result = model.complete(&request, &|t: &str| seen.lock().unwrap().push((t.to_owned(), Instant::now())), cancel).await;
        (result, seen.into_inner().unwrap())
    }

    #[tokio::test]
    async fn a_readable_pace_gives_the_words_out_one_by_one() {
        let paced = Paced::new(scripted(), Pace::Readable, Stepper::new());
        let started = Instant::now();
        let (reply, seen) = ask(&paced, &CancellationToken::new()).await;
        assert_eq!(reply.unwrap().content, "one two three four five");
        assert_eq!(seen.iter().map(|(t, _)| t.as_str()).collect::<String>(), "one two three four five");
        assert_eq!(seen.len(), 5);
        assert!(started.elapsed() >= READABLE_WORD * 5, "five words take five word-times: {:?}", started.elapsed());
        assert!(seen.windows(2).all(|w| w[1].1 >= w[0].1 + READABLE_WORD / 2), "the words come apart");
    }

    #[tokio::test]
    async fn at_step_pace_each_turn_waits_for_next_and_a_cancel_ends_the_wait() {
        let stepper = Stepper::new();
        let paced = Arc::new(Paced::new(scripted(), Pace::Step, stepper.clone()));
        assert!(paced.typed_by_a_person(), "no group timeout counts the person's time");
        let cancel = CancellationToken::new();
        let turn = tokio::spawn({
            let (paced, cancel) = (paced.clone(), cancel.clone());
            async move { ask(&paced, &cancel).await.0 }
        });
        let waited = Instant::now();
        while stepper.waiting() == 0 && waited.elapsed() < Duration::from_secs(10) {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert_eq!(stepper.waiting(), 1, "the turn waits for Next");
        assert!(!turn.is_finished());
        stepper.next();
        assert_eq!(turn.await.unwrap().unwrap().content, "one two three four five");
        let waiting = tokio::spawn({
            let (paced, cancel) = (paced.clone(), cancel.clone());
            async move { ask(&paced, &cancel).await.0 }
        });
        cancel.cancel();
        assert_eq!(waiting.await.unwrap().unwrap_err(), LlmError::Cancelled);
    }
}
