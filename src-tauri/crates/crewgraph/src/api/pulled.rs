//! A run's events for a window that asks for them: the window's watches are read
//! into a gathering place each, and the window asks for the next batch
//! ([`PulledWatches::next`]) once it has shown the last. The answer is everything
//! that arrived since, at once — or, when nothing has, the first event to come,
//! alone. So the road from the shell to the page is one round trip (the ask and its
//! answer) and the events of a fast run gather in the shell while the page paints:
//! a window that paints slowly gets fewer, bigger batches, one that keeps up gets
//! each event within a frame. No event is merged or dropped (the UI's reducer sees
//! every `seq`); the last batch says how the watch ended.
//!
//! A window that stops asking (reloaded, closed) is not waited for without end:
//! a watch that gathers more than [`GATHERED_AT_MOST`] events unasked ends `lagged`
//! (asked again, it says so, and the window watches again from the last event it
//! has), and a watch that ended and was not asked for its end within
//! [`FORGOTTEN_AFTER`] is forgotten when the next watch starts. Asked for a watch
//! it does not know (forgotten), the answer is that end too. A window that no longer
//! wants a watch (the person left its run) says so ([`PulledWatches::stop`]): it is
//! forgotten at once and its reading ends.
//!
//! ```no_run
//! # async fn example(api: crewgraph::api::Api, run: crewgraph_engine::RunId) -> Result<(), crewgraph::api::ApiError> {
//! use crewgraph::api::PulledWatches;
//! let watches = PulledWatches::default();
//! let (id, reading) = watches.start(api.watch_run(&run, None).await?);
//! tokio::spawn(reading);
//! loop {
//!     let batch = watches.next(id).await;
//!     println!("{} events", batch.events.len());
//!     if batch.end.is_some() {
//!         break;
//!     }
//! }
//! # Ok(())
//! # }
//! ```

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use crewgraph_engine::run::RunEvent;
use tokio::sync::Notify;
use tokio::time::Instant;

use super::{RunBatch, RunWatch, WatchEnd, WatchItem};

/// How many events a watch gathers unasked before it ends `lagged` (a run's whole
/// replay fits many times over; a window that stopped asking does not hold the
/// shell's memory).
pub const GATHERED_AT_MOST: usize = 100_000;

/// How long an ended watch waits to be asked for its end before it is forgotten.
pub const FORGOTTEN_AFTER: Duration = Duration::from_secs(60);

/// The watches a window follows, by the id [`PulledWatches::start`] gave each.
#[derive(Clone, Debug, Default)]
pub struct PulledWatches(Arc<Mutex<Watches>>);

#[derive(Debug, Default)]
struct Watches {
    last_id: u32,
    by_id: HashMap<u32, Arc<Pulled>>,
}

/// One watch's gathering place, and the bell its reader rings.
#[derive(Debug, Default)]
struct Pulled {
    gathered: Mutex<Gathered>,
    arrived: Notify,
}

#[derive(Debug, Default)]
struct Gathered {
    events: Vec<RunEvent>,
    /// How the watch ended (with `lost_from` for `interrupted`), and when.
    end: Option<(WatchEnd, Option<u64>, Instant)>,
}

impl PulledWatches {
    /// Starts gathering `watch`: answers its id, for [`Self::next`], and the reading
    /// to spawn (it ends with the watch).
    pub fn start(&self, watch: RunWatch) -> (u32, impl Future<Output = ()> + Send + 'static) {
        let pulled = Arc::new(Pulled::default());
        let id = {
            let mut watches = self.lock();
            // Ended watches nobody asked about for a minute: their windows are gone.
            watches.by_id.retain(|_, p| p.lock().end.is_none_or(|(.., at)| at.elapsed() < FORGOTTEN_AFTER));
            watches.last_id = watches.last_id.wrapping_add(1);
            let id = watches.last_id;
            watches.by_id.insert(id, pulled.clone());
            id
        };
        (id, read(watch, pulled))
    }

    /// The next batch of watch `id`: what arrived since the last one, or, when
    /// nothing has, the first event to come (or the end). Once the end is answered
    /// the watch is forgotten; a watch not known ends `lagged`.
    pub async fn next(&self, id: u32) -> RunBatch {
        let Some(pulled) = self.lock().by_id.get(&id).cloned() else {
            return RunBatch { events: Vec::new(), end: Some(WatchEnd::Lagged), lost_from: None };
        };
        loop {
            {
                let mut gathered = pulled.lock();
                if let Some((end, lost_from, _)) = gathered.end {
                    let events = std::mem::take(&mut gathered.events);
                    drop(gathered);
                    self.lock().by_id.remove(&id);
                    return RunBatch { events, end: Some(end), lost_from };
                }
                if !gathered.events.is_empty() {
                    return RunBatch { events: std::mem::take(&mut gathered.events), end: None, lost_from: None };
                }
            }
            // (The reader rings after each event; a ring with nobody waiting is kept.)
            pulled.arrived.notified().await;
        }
    }

    /// Stops watch `id`: the window no longer wants it. Forgotten at once; its
    /// reading ends at the next item; an ask still waiting on it answers `lagged`.
    pub fn stop(&self, id: u32) {
        let Some(pulled) = self.lock().by_id.remove(&id) else { return };
        let mut gathered = pulled.lock();
        gathered.events = Vec::new();
        gathered.end.get_or_insert((WatchEnd::Lagged, None, Instant::now()));
        drop(gathered);
        pulled.arrived.notify_one();
    }

    fn lock(&self) -> MutexGuard<'_, Watches> {
        // (A panic elsewhere while holding it leaves a map that is still whole.)
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Pulled {
    fn lock(&self) -> MutexGuard<'_, Gathered> {
        self.gathered.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Reads `watch` to its end into `pulled`, ringing after each item.
async fn read(mut watch: RunWatch, pulled: Arc<Pulled>) {
    loop {
        let item = watch.next().await;
        let mut gathered = pulled.lock();
        if gathered.end.is_some() {
            return; // stopped: nobody asks any more
        }
        let (end, lost_from) = match item {
            Some(WatchItem::Event(event)) if gathered.events.len() < GATHERED_AT_MOST => {
                gathered.events.push((*event).clone());
                drop(gathered);
                pulled.arrived.notify_one();
                continue;
            }
            // Nobody has asked for a long while: the window is gone, or will watch again.
            Some(WatchItem::Event(_)) => {
                gathered.events.clear();
                (WatchEnd::Lagged, None)
            }
            Some(WatchItem::Interrupted { lost_from }) => (WatchEnd::Interrupted, lost_from),
            Some(WatchItem::Lagged) => (WatchEnd::Lagged, None),
            None => (WatchEnd::Finished, None),
        };
        gathered.end = Some((end, lost_from, Instant::now()));
        drop(gathered);
        pulled.arrived.notify_one();
        return;
    }
}

#[cfg(test)]
mod tests {
    use tokio::sync::broadcast;

    use super::*;
    use crate::api::batches::tests::{event, seqs};
    use crate::api::hub::LiveItem;

    /// A watch of a live run fed by the returned sender, started on `watches`.
    fn started(watches: &PulledWatches) -> (broadcast::Sender<LiveItem>, u32) {
        let (hub, live) = broadcast::channel(64);
        let (id, reading) = watches.start(RunWatch::live_only(live));
        tokio::spawn(reading);
        (hub, id)
    }

    // The window's rule: an ask that finds nothing waits for the first event and
    // gets it alone; what arrives between asks comes as one batch — every event
    // once, in order; the end comes with what was still gathered, and then the
    // watch is forgotten.
    #[tokio::test]
    async fn an_ask_gets_what_arrived_since_the_last_or_waits_for_the_first_event() {
        let watches = PulledWatches::default();
        let (hub, id) = started(&watches);

        let asked = tokio::spawn({
            let watches = watches.clone();
            async move { watches.next(id).await }
        });
        tokio::task::yield_now().await;
        hub.send(event(0)).unwrap();
        assert_eq!(seqs(&asked.await.unwrap()), [0], "a waiting ask gets the first event at once, alone");

        for seq in 1..=3 {
            hub.send(event(seq)).unwrap();
        }
        let gathered = wait_for(&watches, id, 3).await;
        assert_eq!(seqs(&gathered), [1, 2, 3], "what arrived between asks goes as one batch");

        hub.send(event(4)).unwrap();
        drop(hub);
        let last = watches.next(id).await;
        assert_eq!((seqs(&last), last.end), (vec![4], Some(WatchEnd::Finished)), "the end comes with what was gathered");
        let again = watches.next(id).await;
        assert_eq!((again.events.len(), again.end), (0, Some(WatchEnd::Lagged)), "an ended watch is forgotten once its end was asked for");
    }

    /// Asks `id` until the batch holds `count` events (the reader may not have
    /// gathered them all at the first ask), as one batch: asserts nothing came split.
    async fn wait_for(watches: &PulledWatches, id: u32, count: usize) -> RunBatch {
        for _ in 0..1000 {
            tokio::time::sleep(Duration::from_millis(1)).await;
            if watches.lock().by_id[&id].lock().events.len() == count {
                return watches.next(id).await;
            }
        }
        panic!("the reader never gathered {count} events");
    }

    #[tokio::test]
    async fn an_unknown_watch_ends_lagged_so_the_window_watches_again() {
        let batch = PulledWatches::default().next(42).await;
        assert_eq!((batch.events.len(), batch.end), (0, Some(WatchEnd::Lagged)));
    }

    // A window that stopped asking while the run went on: the shell does not hold
    // its events without end; asked again, the watch says it lagged.
    #[tokio::test]
    async fn a_watch_nobody_asks_ends_lagged_after_gathering_its_most() {
        let watches = PulledWatches::default();
        let (hub, id) = started(&watches);
        let gathered = |watches: &PulledWatches| watches.lock().by_id[&id].lock().events.len();
        for seq in 0..GATHERED_AT_MOST as u64 {
            hub.send(event(seq)).unwrap();
            // (Within the hub's ring: let the reader keep up.)
            if seq % 32 == 31 {
                while gathered(&watches) < seq as usize + 1 {
                    tokio::task::yield_now().await;
                }
            }
        }
        hub.send(event(GATHERED_AT_MOST as u64)).unwrap();
        while watches.lock().by_id[&id].lock().end.is_none() {
            tokio::task::yield_now().await;
        }
        let batch = watches.next(id).await;
        assert_eq!((batch.events.len(), batch.end), (0, Some(WatchEnd::Lagged)));
    }

    // The person left the run: the window stops its watch. Forgotten at once, an
    // ask still waiting on it answers lagged, and its reading ends although the run
    // goes on (it gathers nothing more).
    #[tokio::test]
    async fn a_stopped_watch_is_forgotten_at_once_and_its_reading_ends() {
        let watches = PulledWatches::default();
        let (hub, live) = broadcast::channel(64);
        let (id, reading) = watches.start(RunWatch::live_only(live));
        let reading = tokio::spawn(reading);
        hub.send(event(0)).unwrap();
        assert_eq!(seqs(&watches.next(id).await), [0]);
        let waiting = tokio::spawn({
            let watches = watches.clone();
            async move { watches.next(id).await }
        });
        tokio::task::yield_now().await;
        watches.stop(id);
        let after_stop = waiting.await.unwrap();
        assert_eq!((after_stop.events.len(), after_stop.end), (0, Some(WatchEnd::Lagged)), "the waiting ask is answered");
        assert!(!watches.lock().by_id.contains_key(&id), "forgotten at once");
        hub.send(event(1)).unwrap();
        tokio::time::timeout(Duration::from_secs(60), reading).await.expect("the reading ended with the run still going").unwrap();
        watches.stop(id); // again, or unknown: nothing
    }

    // A window that stopped asking: its ended watches are forgotten when the next
    // watch starts, a minute on; one still going is kept.
    #[tokio::test(start_paused = true)]
    async fn ended_watches_nobody_asked_about_are_forgotten_a_minute_later() {
        let watches = PulledWatches::default();
        let (hub, ended) = started(&watches);
        let (_going, going) = started(&watches);
        drop(hub);
        while watches.lock().by_id[&ended].lock().end.is_none() {
            tokio::task::yield_now().await;
        }
        let _ = started(&watches);
        assert!(watches.lock().by_id.contains_key(&ended), "kept within the minute");
        tokio::time::advance(FORGOTTEN_AFTER).await;
        let _ = started(&watches);
        let known: Vec<u32> = watches.lock().by_id.keys().copied().collect();
        assert!(!known.contains(&ended) && known.contains(&going), "the ended watch forgotten, the live one kept: {known:?}");
    }
}
