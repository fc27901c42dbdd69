//! Watching a run executed on another machine ([`RemoteWatch`]): its live events
//! come from the run's channel, published by whichever worker executes it
//! ([`super::queued`]). Events published before the watcher listened are either
//! stored already, or not yet: those the worker publishes again when the watcher
//! asks (`replay` on the control channel, sent once it listens). What the channel
//! still does not bring — messages lost while Redis was away, a listener that fell
//! behind — comes from the store, read by seq. The store is read once a second
//! while nothing else happens, and sooner when a gap shows (events ahead of the
//! next seq), until the gap is filled. Each event is handed out once, in seq order,
//! as a local watch hands them ([`super::watch`]).
//!
//! A leg that names seqs this watcher already handed out, published by another leg
//! (the worker that had published them died before storing them, and another took
//! the run over), ends the watch with [`WatchItem::Interrupted`] from its first seq,
//! as a local leg stopped where it stood does: the watcher forgets the lost events
//! and watches again. The watch ends after the event that ends the leg
//! (`run_finished`, which a pause is too).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use crewgraph_engine::run::{EventKind, RunEvent, RunStore};
use crewgraph_engine::RunId;
use crewgraph_queue::Listening;
use tokio::time::Instant;

use super::queued::HeardNews;
use super::watch::WatchItem;

/// How often the store is read while the channel brings nothing.
const QUIET_POLL: Duration = Duration::from_secs(1);
/// How soon the store is read again while a gap waits to be filled.
const GAP_POLL: Duration = Duration::from_millis(100);

/// The live side of a watch of a run executed elsewhere.
pub(crate) struct RemoteWatch {
    run: RunId,
    store: Arc<dyn RunStore>,
    listening: Listening,
    /// Events received beyond the next seq, by seq.
    ahead: BTreeMap<u64, Arc<RunEvent>>,
    /// The leg whose events were last handed out, when they came from the channel.
    leg: Option<String>,
    /// When the store is read next.
    poll: Instant,
    /// How far ahead events may pile up before the watcher is dropped as lagging.
    capacity: usize,
    /// The leg has ended: nothing more comes.
    ended: bool,
}

impl std::fmt::Debug for RemoteWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteWatch").field("run", &self.run).field("ahead", &self.ahead.len()).finish_non_exhaustive()
    }
}

impl RemoteWatch {
    pub(crate) fn new(run: RunId, store: Arc<dyn RunStore>, listening: Listening, capacity: usize) -> RemoteWatch {
        let poll = Instant::now() + QUIET_POLL;
        RemoteWatch { run, store, listening, ahead: BTreeMap::new(), leg: None, poll, capacity, ended: false }
    }

    /// The next item after `last`; None once the leg has ended.
    pub(crate) async fn next(&mut self, last: Option<u64>) -> Option<WatchItem> {
        if self.ended {
            return None;
        }
        let due = last.map_or(0, |last| last + 1);
        loop {
            self.ahead.retain(|seq, _| *seq >= due);
            if let Some(event) = self.ahead.remove(&due) {
                if matches!(event.kind, EventKind::RunFinished { .. }) {
                    self.ended = true;
                }
                return Some(WatchItem::Event(event));
            }
            if self.ahead.len() > self.capacity {
                self.ended = true;
                return Some(WatchItem::Lagged);
            }
            if !self.ahead.is_empty() {
                // A gap: what is missing is stored by now, or will be at the step's end.
                self.poll = self.poll.min(Instant::now() + GAP_POLL);
            }
            tokio::select! {
                message = self.listening.next() => match message {
                    Some(text) => {
                        if let Some(lost_from) = self.take(&text, last) {
                            self.ended = true;
                            return Some(WatchItem::Interrupted { lost_from: Some(lost_from) });
                        }
                    }
                    // Messages were missed: the store has what they said, or will.
                    None => self.poll = Instant::now(),
                },
                () = tokio::time::sleep_until(self.poll) => {
                    self.read_store(last).await;
                    self.poll = Instant::now() + if self.ahead.is_empty() { QUIET_POLL } else { GAP_POLL };
                }
            }
        }
    }

    /// Takes a message's events; the seq from which events already handed out were
    /// lost, when the message is another leg's renumbering them.
    fn take(&mut self, text: &str, last: Option<u64>) -> Option<u64> {
        let Ok(news) = serde_json::from_str::<HeardNews>(text) else { return None };
        let first = news.events.first()?.seq;
        if self.leg.as_ref().is_some_and(|leg| *leg != news.leg) && last.is_some_and(|last| first <= last) {
            return Some(first);
        }
        self.leg = Some(news.leg);
        for event in news.events {
            if event.run_id == self.run {
                self.ahead.entry(event.seq).or_insert_with(|| Arc::new(event));
            }
        }
        None
    }

    /// Reads the stored events after `last`: the truth, in place of any live copy.
    async fn read_store(&mut self, last: Option<u64>) {
        if let Ok(stored) = self.store.events(&self.run, last).await {
            for event in stored {
                self.ahead.insert(event.seq, Arc::new(event));
            }
        }
    }
}
