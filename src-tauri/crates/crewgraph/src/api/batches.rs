//! A run's events for a window, in batches: a watch ([`super::RunWatch`]) read
//! into [`RunBatch`]es, so a model streaming hundreds of tokens a second costs the
//! UI one update a frame, not hundreds — without merging or dropping any event (the
//! UI's reducer sees every `seq`). The last batch says how the watch ended.
//! The window gets them over a Tauri channel, a browser as server-sent events.
//!
//! Batches are paced by the receiver, not by a timer ([`Pacing`]): the first event
//! after a quiet spell goes out at once, alone; while a batch is in flight (sent,
//! not yet shown), what arrives is gathered and goes out as one batch the moment
//! the receiver is ready for the next. The window says when it is — it has painted
//! the last batch ([`BatchShown`]) — so a window that paints slowly gets fewer,
//! bigger batches and one that keeps up gets each event within a frame; a server
//! cannot see its page paint, so it sends a batch a frame at most ([`FRAME`]).
//!
//! ```no_run
//! # async fn example(api: crewgraph::api::Api, run: crewgraph_engine::RunId) -> Result<(), crewgraph::api::ApiError> {
//! use crewgraph::api::{forward_batches, Pacing, FRAME};
//! let watch = api.watch_run(&run, None).await?;
//! forward_batches(watch, Pacing::Every(FRAME), |batch| {
//!     println!("{} events", batch.events.len());
//!     true // false: the receiver is gone, stop
//! })
//! .await;
//! # Ok(())
//! # }
//! ```

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crewgraph_engine::run::RunEvent;
use serde::Serialize;
use tokio::sync::Notify;
use tokio::time::Instant;
use ts_rs::TS;

use super::{RunWatch, WatchItem};

/// A frame at 60 Hz: the server sends a batch a frame at most.
pub const FRAME: Duration = Duration::from_millis(16);

/// How long the window may take to say it has shown a batch before the next one
/// goes anyway (a hidden window paints no frames; a reloaded page says nothing).
pub const SHOWN_AT_MOST: Duration = Duration::from_millis(250);

/// When the next batch may go, once one is in flight.
pub enum Pacing {
    /// This long after the last batch went (a receiver that cannot say when it
    /// has shown one: a server's page).
    Every(Duration),
    /// When the receiver says it has shown the last batch, or `at_most` after it
    /// went without a word.
    Shown { shown: BatchShown, at_most: Duration },
}

impl Pacing {
    /// Waits until the receiver is ready for the batch after one sent at `sent`.
    fn ready_after(&self, sent: Instant) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        match self {
            Pacing::Every(spacing) => Box::pin(tokio::time::sleep_until(sent + *spacing)),
            Pacing::Shown { shown, at_most } => Box::pin(async move {
                // (Without a word in time, the batch goes anyway.)
                let _ = tokio::time::timeout_at(sent + *at_most, shown.0.notified()).await;
            }),
        }
    }
}

/// The receiver's word that it has shown the batch in flight (the window says it
/// once it has painted it), so the next one may go. A word that comes when no
/// batch is in flight counts for the next one.
#[derive(Clone, Debug, Default)]
pub struct BatchShown(Arc<Notify>);

impl BatchShown {
    /// Says the batch in flight has been shown.
    pub fn shown(&self) {
        self.0.notify_one();
    }
}

/// The watches a window follows, by the id of the channel each sends its batches
/// on, for its word that it has shown one ([`BatchShown`]) to reach the right one.
#[derive(Clone, Debug, Default)]
pub struct ShownWatches(Arc<Mutex<HashMap<u32, BatchShown>>>);

impl ShownWatches {
    /// The pacing of a new watch sending on channel `channel`: by the window's word.
    pub fn pacing(&self, channel: u32) -> Pacing {
        let shown = BatchShown::default();
        self.lock().insert(channel, shown.clone());
        Pacing::Shown { shown, at_most: SHOWN_AT_MOST }
    }

    /// The window has shown the last batch of the watch on `channel` (a watch that
    /// ended meanwhile is no longer here: nothing to do).
    pub fn shown(&self, channel: u32) {
        if let Some(shown) = self.lock().get(&channel) {
            shown.shown();
        }
    }

    /// The watch on `channel` has ended.
    pub fn forget(&self, channel: u32) {
        self.lock().remove(&channel);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u32, BatchShown>> {
        // (A panic elsewhere while holding it leaves a map that is still whole.)
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

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

/// Reads `watch` to its end, handing `send` its events in batches paced by
/// `pacing`: an event that finds no batch in flight goes out at once; the events
/// that arrive while one is in flight go out together when the receiver is ready
/// for the next. The end goes out at once, with what was still gathering. Stops
/// early when `send` says the receiver is gone (returns false).
pub async fn forward_batches(mut watch: RunWatch, pacing: Pacing, mut send: impl FnMut(RunBatch) -> bool) {
    let mut events: Vec<RunEvent> = Vec::new();
    // The batch in flight: ready when the receiver is ready for the next one.
    let mut in_flight: Option<Pin<Box<dyn Future<Output = ()> + Send + '_>>> = None;
    loop {
        let item = match in_flight.as_mut() {
            // `next` is cancel-safe: the receiver becoming ready loses no event.
            Some(ready) => tokio::select! {
                biased;
                () = ready => None,
                item = watch.next() => Some(item),
            },
            None => Some(watch.next().await),
        };
        let Some(item) = item else {
            // The receiver is ready: what was gathered goes, or nothing is in flight.
            in_flight = None;
            if !events.is_empty() {
                if !send(RunBatch { events: std::mem::take(&mut events), end: None, lost_from: None }) {
                    return;
                }
                in_flight = Some(pacing.ready_after(Instant::now()));
            }
            continue;
        };
        let (end, lost_from) = match item {
            Some(WatchItem::Event(event)) => {
                events.push((*event).clone());
                if in_flight.is_none() {
                    if !send(RunBatch { events: std::mem::take(&mut events), end: None, lost_from: None }) {
                        return;
                    }
                    in_flight = Some(pacing.ready_after(Instant::now()));
                }
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crewgraph_engine::run::{EventKind, RunEvent, Timestamp};
    use crewgraph_engine::RunId;
    use tokio::sync::{broadcast, mpsc};

    use super::*;
    use crate::api::hub::LiveItem;

    fn event(seq: u64) -> LiveItem {
        let kind = EventKind::Warning { message: format!("event {seq}") };
        LiveItem::Event(Arc::new(RunEvent { kind, run_id: RunId::from("run-1"), seq, timestamp: Timestamp(0) }))
    }

    fn seqs(batch: &RunBatch) -> Vec<u64> {
        batch.events.iter().map(|e| e.seq).collect()
    }

    /// Gives the forwarding task room to run (what it must not do is checked after).
    async fn settle() {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // The window's rule: an event that finds nothing in flight goes at once and
    // alone; what arrives while a batch is in flight waits for the window's word
    // that it painted it, then goes as one batch — every event once, in order.
    #[tokio::test]
    async fn a_batch_in_flight_holds_the_next_events_until_the_window_says_it_was_shown() {
        let (hub, live) = broadcast::channel(64);
        let (out, mut batches) = mpsc::unbounded_channel();
        let shown = BatchShown::default();
        // (No word for an hour: only the word lets the next batch go.)
        let pacing = Pacing::Shown { shown: shown.clone(), at_most: Duration::from_secs(3600) };
        let forward = tokio::spawn(forward_batches(RunWatch::live_only(live), pacing, move |batch| out.send(batch).is_ok()));

        hub.send(event(0)).unwrap();
        let first = batches.recv().await.unwrap();
        assert_eq!(seqs(&first), [0], "the first event of a burst goes at once, alone");

        for seq in 1..=3 {
            hub.send(event(seq)).unwrap();
        }
        settle().await;
        assert!(batches.try_recv().is_err(), "nothing goes while a batch is in flight");

        shown.shown();
        let gathered = batches.recv().await.unwrap();
        assert_eq!(seqs(&gathered), [1, 2, 3], "what arrived meanwhile goes as one batch once the last was shown");

        // Shown with nothing gathered: nothing is in flight, the next event goes at once.
        shown.shown();
        settle().await;
        hub.send(event(4)).unwrap();
        assert_eq!(seqs(&batches.recv().await.unwrap()), [4]);

        // The end goes at once, with what was still gathering, without waiting for a word.
        hub.send(event(5)).unwrap();
        drop(hub);
        let last = batches.recv().await.unwrap();
        assert_eq!((seqs(&last), last.end), (vec![5], Some(WatchEnd::Finished)));
        forward.await.unwrap();
        assert!(batches.recv().await.is_none(), "nothing after the end");
    }

    // A window that stops saying (hidden, reloaded) still gets its batches.
    #[tokio::test]
    async fn without_a_word_the_next_batch_goes_after_at_most_its_wait() {
        let (hub, live) = broadcast::channel(64);
        let (out, mut batches) = mpsc::unbounded_channel();
        let pacing = Pacing::Shown { shown: BatchShown::default(), at_most: Duration::from_millis(20) };
        let forward = tokio::spawn(forward_batches(RunWatch::live_only(live), pacing, move |batch| out.send(batch).is_ok()));
        hub.send(event(0)).unwrap();
        assert_eq!(seqs(&batches.recv().await.unwrap()), [0]);
        hub.send(event(1)).unwrap();
        hub.send(event(2)).unwrap();
        assert_eq!(seqs(&batches.recv().await.unwrap()), [1, 2]);
        drop(hub);
        assert_eq!(batches.recv().await.unwrap().end, Some(WatchEnd::Finished));
        forward.await.unwrap();
    }

    #[test]
    fn a_word_reaches_the_watch_on_its_channel_only_while_it_goes_on() {
        let watches = ShownWatches::default();
        let Pacing::Shown { shown, .. } = watches.pacing(7) else { panic!("the window's watches are paced by its word") };
        watches.shown(8);
        watches.shown(7);
        watches.forget(7);
        watches.shown(7);
        // One word stored (Notify keeps one permit): the one for channel 7.
        let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
        rt.block_on(async {
            assert!(tokio::time::timeout(Duration::from_millis(1), shown.0.notified()).await.is_ok(), "the word for its channel arrived");
        });
        assert!(watches.lock().is_empty(), "a watch that ended is forgotten");
    }
}
