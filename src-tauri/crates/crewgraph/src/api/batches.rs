//! A run's events in batches: a watch ([`super::RunWatch`]) read into
//! [`RunBatch`]es, so a model streaming hundreds of tokens a second costs the UI one
//! update a frame, not hundreds — without merging or dropping any event (the UI's
//! reducer sees every `seq`). The last batch says how the watch ended.
//!
//! A browser gets them as server-sent events, paced by a timer ([`forward_batches`]):
//! the first event after a quiet spell goes out at once, alone; what arrives in the
//! next [`FRAME`] goes out together — a server cannot see its page paint, so it
//! sends a batch a frame at most. The window asks for each batch once it has shown
//! the last ([`super::PulledWatches`]), the same batches paced by its painting.
//!
//! ```no_run
//! # async fn example(api: crewgraph::api::Api, run: crewgraph_engine::RunId) -> Result<(), crewgraph::api::ApiError> {
//! use crewgraph::api::{forward_batches, FRAME};
//! let watch = api.watch_run(&run, None).await?;
//! forward_batches(watch, FRAME, |batch| {
//!     println!("{} events", batch.events.len());
//!     true // false: the receiver is gone, stop
//! })
//! .await;
//! # Ok(())
//! # }
//! ```

use std::time::Duration;

use crewgraph_engine::run::RunEvent;
use serde::Serialize;
use tokio::time::Instant;
use ts_rs::TS;

use super::{RunWatch, WatchItem};

/// A frame at 60 Hz: the server sends a batch a frame at most.
pub const FRAME: Duration = Duration::from_millis(16);

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

/// Reads `watch` to its end, handing `send` its events in batches at most one
/// `spacing` apart: an event that finds no batch in flight (none went in the last
/// `spacing`) goes out at once; the events that arrive while one is in flight go
/// out together when its `spacing` is over. The end goes out at once, with what was
/// still gathering. Stops early when `send` says the receiver is gone (returns false).
pub async fn forward_batches(mut watch: RunWatch, spacing: Duration, mut send: impl FnMut(RunBatch) -> bool) {
    let mut events: Vec<RunEvent> = Vec::new();
    // The batch in flight: until when its spacing lasts.
    let mut in_flight: Option<Instant> = None;
    loop {
        let item = match in_flight {
            // `next` is cancel-safe: the spacing running out loses no event.
            Some(until) => tokio::select! {
                biased;
                () = tokio::time::sleep_until(until) => None,
                item = watch.next() => Some(item),
            },
            None => Some(watch.next().await),
        };
        let Some(item) = item else {
            // The spacing is over: what was gathered goes, or nothing is in flight.
            in_flight = None;
            if !events.is_empty() {
                if !send(RunBatch { events: std::mem::take(&mut events), end: None, lost_from: None }) {
                    return;
                }
                in_flight = Some(Instant::now() + spacing);
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
                    in_flight = Some(Instant::now() + spacing);
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
pub(crate) mod tests {
    use std::sync::Arc;

    use crewgraph_engine::run::{EventKind, RunEvent, Timestamp};
    use crewgraph_engine::RunId;
    use tokio::sync::{broadcast, mpsc};

    use super::*;
    use crate::api::hub::LiveItem;

    /// A live event numbered `seq` (pulled.rs's tests too).
    pub(crate) fn event(seq: u64) -> LiveItem {
        let kind = EventKind::Warning { message: format!("event {seq}") };
        LiveItem::Event(Arc::new(RunEvent { kind, run_id: RunId::from("run-1"), seq, timestamp: Timestamp(0) }))
    }

    /// The `seq`s a batch holds, in its order.
    pub(crate) fn seqs(batch: &RunBatch) -> Vec<u64> {
        batch.events.iter().map(|e| e.seq).collect()
    }

    // The server's rule: an event that finds nothing in flight goes at once and
    // alone; what arrives within the spacing of the last batch waits for it to run
    // out, then goes as one batch — every event once, in order; the end goes at
    // once, with what was still gathering. (Time is paused: the spacing runs out
    // only when the test lets it.)
    #[tokio::test(start_paused = true)]
    async fn what_arrives_within_a_spacing_of_the_last_batch_goes_as_one_batch_when_it_is_over() {
        let (hub, live) = broadcast::channel(64);
        let (out, mut batches) = mpsc::unbounded_channel();
        let spacing = Duration::from_secs(3600);
        let forward = tokio::spawn(forward_batches(RunWatch::live_only(live), spacing, move |batch| out.send(batch).is_ok()));

        hub.send(event(0)).unwrap();
        assert_eq!(seqs(&batches.recv().await.unwrap()), [0], "the first event of a burst goes at once, alone");
        for seq in 1..=3 {
            hub.send(event(seq)).unwrap();
        }
        tokio::time::advance(spacing / 2).await;
        assert!(batches.try_recv().is_err(), "nothing goes while a batch is in flight");
        tokio::time::advance(spacing).await;
        assert_eq!(seqs(&batches.recv().await.unwrap()), [1, 2, 3], "what arrived meanwhile goes as one batch");

        // A quiet spell: the next event goes at once.
        tokio::time::advance(spacing * 2).await;
        hub.send(event(4)).unwrap();
        assert_eq!(seqs(&batches.recv().await.unwrap()), [4]);

        hub.send(event(5)).unwrap();
        drop(hub);
        let last = batches.recv().await.unwrap();
        assert_eq!((seqs(&last), last.end), (vec![5], Some(WatchEnd::Finished)), "the end goes at once, with what was gathering");
        forward.await.unwrap();
        assert!(batches.recv().await.is_none(), "nothing after the end");
    }
}
