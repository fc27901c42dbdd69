//! The live side of one run leg (a start, or a resume up to its end or pause): an
//! [`EventHub`] fans the run's events out to any number of watchers as they happen,
//! and remembers the events the store does not have yet, so a watcher that joins
//! mid-step misses none of them.
//!
//! The engine emits an event the moment it happens and stores a step's events when
//! the step ends ([`crewgraph_engine::run::EventSink::committed`]). So at any time
//! an event is either stored, or *pending* here, or not yet emitted; a watcher
//! subscribes and copies the pending events in one critical section, then reads the
//! store (see [`super::watch`]), and between the three it has them all.
//!
//! Fan-out is a bounded broadcast: one ring of `capacity` events shared by every
//! watcher, however many there are. A watcher that falls a whole ring behind is not
//! waited for and not buffered for; it learns it lagged and drops out, to come back
//! from the store (`Last-Event-ID`).

use std::sync::{Arc, Mutex, MutexGuard};

use crewgraph_engine::run::RunEvent;
use tokio::sync::broadcast;

/// What a hub broadcasts.
#[derive(Clone, Debug)]
pub(crate) enum LiveItem {
    /// An event, as it happens (not necessarily stored yet).
    Event(Arc<RunEvent>),
    /// The host stopped the run (shutting down) before it ended. Events from
    /// `lost_from` on were live only: the store will not have them, and a resumed
    /// run numbers its next events from there again. None: nothing was lost.
    Interrupted { lost_from: Option<u64> },
}

/// One run leg's live events.
#[derive(Debug)]
pub(crate) struct EventHub {
    state: Mutex<HubState>,
}

#[derive(Debug)]
struct HubState {
    /// Emitted but not yet stored, in `seq` order.
    pending: Vec<Arc<RunEvent>>,
    /// None once the leg is over: nothing more will come.
    sender: Option<broadcast::Sender<LiveItem>>,
}

impl EventHub {
    /// A hub whose watchers may fall up to `capacity` events behind.
    pub(crate) fn new(capacity: usize) -> Self {
        let (sender, _) = broadcast::channel(capacity.max(1));
        Self { state: Mutex::new(HubState { pending: Vec::new(), sender: Some(sender) }) }
    }

    fn state(&self) -> MutexGuard<'_, HubState> {
        // A poisoned lock only means a watcher panicked; the state itself is whole.
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// An event has happened.
    pub(crate) fn publish(&self, event: &RunEvent) {
        let event = Arc::new(event.clone());
        let mut state = self.state();
        state.pending.push(event.clone());
        if let Some(sender) = &state.sender {
            // No receiver is not an error: nobody is watching right now.
            let _ = sender.send(LiveItem::Event(event));
        }
    }

    /// Every event up to `seq` is stored.
    pub(crate) fn committed(&self, seq: u64) {
        self.state().pending.retain(|event| event.seq > seq);
    }

    /// Joins the leg: a receiver of what happens from now on, and the events that
    /// happened before but are not stored yet. None once the leg is over.
    pub(crate) fn subscribe(&self) -> Option<(broadcast::Receiver<LiveItem>, Vec<Arc<RunEvent>>)> {
        let state = self.state();
        let receiver = state.sender.as_ref()?.subscribe();
        Some((receiver, state.pending.clone()))
    }

    /// The events that happened and are not stored yet, those after `after` only.
    pub(crate) fn pending_after(&self, after: Option<u64>) -> Vec<Arc<RunEvent>> {
        self.state().pending.iter().filter(|event| after.is_none_or(|after| event.seq > after)).cloned().collect()
    }

    /// Ends the leg. `interrupted`: it was stopped, not finished, so watchers are
    /// told which events the store kept.
    pub(crate) fn close(&self, interrupted: bool) {
        let mut state = self.state();
        let Some(sender) = state.sender.take() else { return };
        if interrupted {
            let lost_from = state.pending.first().map(|first| first.seq);
            let _ = sender.send(LiveItem::Interrupted { lost_from });
        }
        state.pending.clear();
        // Dropping the sender closes every receiver once it has read what is left.
    }

    /// How many watchers are subscribed now.
    pub(crate) fn watchers(&self) -> usize {
        self.state().sender.as_ref().map_or(0, broadcast::Sender::receiver_count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crewgraph_engine::run::{EventKind, Timestamp};
    use crewgraph_engine::RunId;

    fn event(seq: u64) -> RunEvent {
        RunEvent { kind: EventKind::Warning { message: format!("{seq}") }, run_id: RunId::from("run-1"), seq, timestamp: Timestamp(0) }
    }

    fn seq(item: LiveItem) -> u64 {
        match item {
            LiveItem::Event(event) => event.seq,
            LiveItem::Interrupted { .. } => panic!("an event was expected"),
        }
    }

    #[test]
    fn a_late_watcher_gets_the_unstored_events_and_then_the_new_ones() {
        let hub = EventHub::new(16);
        for s in 0..4 {
            hub.publish(&event(s));
        }
        hub.committed(1);
        let (mut live, pending) = hub.subscribe().unwrap();
        assert_eq!(pending.iter().map(|e| e.seq).collect::<Vec<_>>(), [2, 3], "0 and 1 are in the store");
        hub.publish(&event(4));
        assert_eq!(seq(live.try_recv().unwrap()), 4);
    }

    #[test]
    fn a_watcher_a_whole_ring_behind_learns_it_lagged() {
        let hub = EventHub::new(4);
        let (mut live, _) = hub.subscribe().unwrap();
        for s in 0..10 {
            hub.publish(&event(s));
        }
        assert!(matches!(live.try_recv(), Err(broadcast::error::TryRecvError::Lagged(_))));
    }

    #[test]
    fn an_interrupted_leg_says_which_events_the_store_did_not_keep() {
        let hub = EventHub::new(16);
        let (mut live, _) = hub.subscribe().unwrap();
        for s in 0..5 {
            hub.publish(&event(s));
        }
        hub.committed(2);
        hub.close(true);
        for s in 0..5 {
            assert_eq!(seq(live.try_recv().unwrap()), s);
        }
        assert!(matches!(live.try_recv(), Ok(LiveItem::Interrupted { lost_from: Some(3) })));
        assert!(matches!(live.try_recv(), Err(broadcast::error::TryRecvError::Closed)));
        assert!(hub.subscribe().is_none(), "nobody joins a leg that is over");
    }

    #[test]
    fn a_leg_interrupted_with_everything_stored_lost_nothing() {
        let hub = EventHub::new(16);
        let (mut live, _) = hub.subscribe().unwrap();
        hub.publish(&event(0));
        hub.committed(0);
        hub.close(true);
        assert!(matches!(live.try_recv(), Ok(LiveItem::Event(_))));
        assert!(matches!(live.try_recv(), Ok(LiveItem::Interrupted { lost_from: None })));
    }
}
