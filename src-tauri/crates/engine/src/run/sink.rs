//! Where a run's events go as they happen (the window's channel, the CLI's output):
//! [`EventSink`]. Storing them is the [`super::store::RunStore`]'s job.

use std::sync::Mutex;

use super::event::RunEvent;

/// Receives every event of a run, in `seq` order, as it happens; and learns when
/// events are safely stored, so a host can show live progress (tokens) at once but
/// report a step as done only once it would survive a crash.
pub trait EventSink: Send + Sync {
    /// One event. Must not block for long: the run waits for it.
    fn emit(&self, event: &RunEvent);

    /// Every event up to and including `seq` is now in the store.
    fn committed(&self, _seq: u64) {}

    /// A step is stored: its events (those emitted since the last step), handed
    /// over because the run has no further use for them. A sink that keeps events
    /// (a trace) takes them here rather than copying each one as it is emitted. By
    /// default, [`committed`](Self::committed) with the last one's `seq`.
    fn committed_events(&self, events: Vec<RunEvent>) {
        if let Some(last) = events.last() {
            self.committed(last.seq);
        }
    }
}

/// Drops every event.
#[derive(Clone, Copy, Debug, Default)]
pub struct NullSink;

impl EventSink for NullSink {
    fn emit(&self, _: &RunEvent) {}
}

/// Keeps every event (tests, recordings).
#[derive(Debug, Default)]
pub struct CollectingSink(Mutex<Vec<RunEvent>>);

impl CollectingSink {
    /// The events so far.
    pub fn events(&self) -> Vec<RunEvent> {
        self.0.lock().map(|e| e.clone()).unwrap_or_default()
    }
}

impl EventSink for CollectingSink {
    fn emit(&self, event: &RunEvent) {
        if let Ok(mut events) = self.0.lock() {
            events.push(event.clone());
        }
    }
}

impl<F: Fn(&RunEvent) + Send + Sync> EventSink for F {
    fn emit(&self, event: &RunEvent) {
        self(event)
    }
}
