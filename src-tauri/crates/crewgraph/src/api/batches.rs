//! A run's events for a window, in batches: a watch ([`super::RunWatch`]) read
//! into [`RunBatch`]es of every event that arrived within a short window (50 ms in
//! the app), so a model streaming hundreds of tokens a second costs the UI a few
//! updates a second, not hundreds — without merging or dropping any event (the
//! UI's reducer sees every `seq`). The last batch says how the watch ended.
//!
//! Also the requests a window makes to run a crew ([`RunRequest`], [`ResumeRequest`]):
//! a crew file and, in Simulate mode, a script file, both by path.

use std::path::PathBuf;
use std::time::Duration;

use crewgraph_engine::run::RunEvent;
use crewgraph_llm::TypedReplies;
use serde::{Deserialize, Serialize};
use tokio::time::Instant;
use ts_rs::TS;

use super::{RunOptions, RunWatch, ScriptSource, WatchItem};

/// How long events are gathered before a batch goes out, in the app.
pub const BATCH_WINDOW: Duration = Duration::from_millis(50);

/// Events that arrived together, in `seq` order.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
#[ts(export)]
pub struct RunBatch {
    pub events: Vec<RunEvent>,
    /// Set on the last batch of a watch.
    pub end: Option<WatchEnd>,
    /// With `interrupted`: events from this `seq` on were never stored — forget them
    /// (a resume numbers its events from there again).
    pub lost_from: Option<u64>,
}

/// How a watch ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum WatchEnd {
    /// The run's leg ended (finished, paused, failed …: the events say which), or
    /// there was no leg going on and the stored events were all there was.
    Finished,
    /// The host stopped the run before it ended; it can be resumed. Events after
    /// the last stored one were lost with it.
    Interrupted,
    /// The window read too slowly and fell a whole buffer behind: watch again from
    /// the last `seq` it has.
    Lagged,
}

/// Run a crew (from the window).
#[derive(Clone, Debug, Deserialize, TS)]
#[ts(export)]
pub struct RunRequest {
    /// The crew file or folder.
    pub crew: String,
    pub input: String,
    #[serde(flatten)]
    pub replies: Replies,
}

/// Go on with a paused run (from the window).
#[derive(Clone, Debug, Default, Deserialize, TS)]
#[ts(export)]
pub struct ResumeRequest {
    /// The person's answer (needed for a paused run).
    #[serde(default)]
    #[ts(optional)]
    pub input: Option<String>,
    #[serde(flatten)]
    pub replies: Replies,
}

/// Where the agents' replies come from in a window's run or resume: their models
/// (or one model for all), a script, or the person typing them.
#[derive(Clone, Debug, Default, Deserialize, TS)]
#[ts(export)]
pub struct Replies {
    /// Simulate mode: the agents' replies from this script file instead of a model.
    #[serde(default)]
    #[ts(optional)]
    pub script_path: Option<String>,
    /// The model every agent uses instead of its own.
    #[serde(default)]
    #[ts(optional)]
    pub model: Option<String>,
    /// Simulate mode by hand: the person types each agent's reply in its turn.
    #[serde(default)]
    #[ts(optional)]
    pub typed: Option<bool>,
}

impl Replies {
    /// The run options they stand for (a resume's script may be the whole run's:
    /// see [`crewgraph_llm::Script::resume_after`]).
    pub fn options(&self) -> RunOptions {
        RunOptions {
            script: self.script_path.as_ref().map(|path| ScriptSource::File(PathBuf::from(path))),
            model: self.model.clone(),
            typed: (self.typed == Some(true)).then(TypedReplies::new),
            ..RunOptions::default()
        }
    }
}

/// Reads `watch` to its end, handing `send` a batch of what arrived within each
/// `window` (the first event of a batch opens the window). Stops early when `send`
/// says the receiver is gone (returns false).
pub async fn forward_batches(mut watch: RunWatch, window: Duration, mut send: impl FnMut(RunBatch) -> bool) {
    let mut events = Vec::new();
    let mut deadline: Option<Instant> = None;
    loop {
        // `next` is cancel-safe: a timeout loses no event.
        let item = match deadline {
            Some(at) => match tokio::time::timeout_at(at, watch.next()).await {
                Ok(item) => item,
                Err(_) => {
                    deadline = None;
                    if !send(RunBatch { events: std::mem::take(&mut events), end: None, lost_from: None }) {
                        return;
                    }
                    continue;
                }
            },
            None => watch.next().await,
        };
        let (end, lost_from) = match item {
            Some(WatchItem::Event(event)) => {
                events.push((*event).clone());
                deadline.get_or_insert_with(|| Instant::now() + window);
                continue;
            }
            Some(WatchItem::Interrupted { lost_from }) => (WatchEnd::Interrupted, lost_from),
            Some(WatchItem::Lagged) => (WatchEnd::Lagged, None),
            None => (WatchEnd::Finished, None),
        };
        send(RunBatch { events, end: Some(end), lost_from });
        return;
    }
}
