//! A run's events for a window, in batches: a watch ([`super::RunWatch`]) read
//! into [`RunBatch`]es of every event that arrived within a short window (50 ms in
//! the app), so a model streaming hundreds of tokens a second costs the UI a few
//! updates a second, not hundreds — without merging or dropping any event (the
//! UI's reducer sees every `seq`). The last batch says how the watch ended.
//! The window gets them over a Tauri channel, a browser as server-sent events.

use std::time::Duration;

use crewgraph_engine::run::RunEvent;
use serde::Serialize;
use tokio::time::Instant;
use ts_rs::TS;

use super::{RunWatch, WatchItem};

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
