//! Watching a run: its stored events after a point, then — while a leg of it is in
//! progress in this host — its events as they happen, each exactly once and in
//! `seq` order, so a watcher that comes back with the last `seq` it saw misses
//! nothing and gets nothing twice (`GET /runs/{id}/events` with `Last-Event-ID`).
//!
//! How: join the leg's hub first (a receiver, plus the events emitted but not yet
//! stored), then read the store; every event is in one of the three (see
//! [`super::hub`]). Overlaps are dropped by `seq`. A watcher that falls a whole
//! ring behind ends with [`WatchItem::Lagged`] instead of being buffered for.
//!
//! On an API node of a cluster, a run going on elsewhere (queued, or executed by
//! a worker) is watched the same way, its live side a [`RemoteWatch`].

use std::collections::VecDeque;
use std::sync::Arc;

use crewgraph_engine::run::{RunEvent, StoreError};
use crewgraph_engine::RunId;
use futures_util::Stream;
use tokio::sync::broadcast::{self, error::RecvError};

use super::hub::LiveItem;
use super::remote::RemoteWatch;
use super::{Api, ApiError};

/// What a watcher receives.
#[derive(Clone, Debug, PartialEq)]
pub enum WatchItem {
    /// The run's next event.
    Event(Arc<RunEvent>),
    /// The host stopped the run before it ended (it is resumable). Events from
    /// `lost_from` on were never stored: forget them; a resume numbers its events
    /// from there again. None: nothing was lost. The watch ends here.
    Interrupted { lost_from: Option<u64> },
    /// The watcher fell too far behind and was dropped; watch again from the last
    /// event received. The watch ends here.
    Lagged,
}

/// One watcher of one run. Ends when the run's leg ends (finished or paused), or at
/// once after the stored events when no leg of it is in progress.
#[derive(Debug)]
pub struct RunWatch {
    replay: VecDeque<Arc<RunEvent>>,
    live: Option<broadcast::Receiver<LiveItem>>,
    /// A run going on on another machine: its live side.
    remote: Option<RemoteWatch>,
    /// The last `seq` handed out (or the point the watcher came back from).
    last: Option<u64>,
}

impl RunWatch {
    /// True while the run has a leg in progress that this watch follows.
    pub fn is_live(&self) -> bool {
        self.live.is_some() || self.remote.is_some()
    }

    /// How many stored (or not yet stored) events come before the live ones.
    pub fn replay_len(&self) -> usize {
        self.replay.len()
    }

    /// The next item; None at the end.
    pub async fn next(&mut self) -> Option<WatchItem> {
        if let Some(event) = self.replay.pop_front() {
            self.last = Some(event.seq);
            return Some(WatchItem::Event(event));
        }
        if let Some(remote) = self.remote.as_mut() {
            let item = remote.next(self.last).await;
            match &item {
                Some(WatchItem::Event(event)) => self.last = Some(event.seq),
                _ => self.remote = None,
            }
            return item;
        }
        let live = self.live.as_mut()?;
        loop {
            match live.recv().await {
                Ok(LiveItem::Event(event)) => {
                    if self.last.is_some_and(|last| event.seq <= last) {
                        continue;
                    }
                    self.last = Some(event.seq);
                    return Some(WatchItem::Event(event));
                }
                Ok(LiveItem::Interrupted { lost_from }) => {
                    self.live = None;
                    return Some(WatchItem::Interrupted { lost_from });
                }
                Err(RecvError::Lagged(_)) => {
                    self.live = None;
                    return Some(WatchItem::Lagged);
                }
                Err(RecvError::Closed) => {
                    self.live = None;
                    return None;
                }
            }
        }
    }

    /// A watch of live items only (a unit test's run, `tx` standing for its hub).
    #[cfg(test)]
    pub(crate) fn live_only(live: broadcast::Receiver<LiveItem>) -> RunWatch {
        RunWatch { replay: VecDeque::new(), live: Some(live), remote: None, last: None }
    }

    /// The watch as a stream.
    pub fn into_stream(self) -> impl Stream<Item = WatchItem> + Send + 'static {
        futures_util::stream::unfold(self, |mut watch| async move { watch.next().await.map(|item| (item, watch)) })
    }
}

impl Api {
    /// Watches run `id` from after the event `after` (from its first event when None).
    /// `not_found` for a run that is neither stored nor going on.
    pub async fn watch_run(&self, id: &RunId, after: Option<u64>) -> Result<RunWatch, ApiError> {
        let joined = self.live.get(id).and_then(|slot| slot.hub.subscribe());
        if joined.is_none() {
            if let Some(cluster) = self.api_node() {
                // Listening before the store is read: what is published meanwhile is heard;
                // what was emitted before and is not stored yet, its executor publishes again.
                let listening = cluster.listener().listen(&crewgraph_queue::run_channel(id.as_str())).await;
                cluster.ask_replay(id, after);
                let stored = self.store()?.events(id, after).await?;
                let going_on = match stored.last() {
                    Some(last) => !matches!(last.kind, crewgraph_engine::run::EventKind::RunFinished { .. }),
                    None => self.stored_run(id).await?.snapshot.status == crewgraph_engine::run::RunStatus::Running,
                };
                let store = self.store()?;
                let remote = going_on.then(|| RemoteWatch::new(id.clone(), store, listening, self.live.capacity()));
                return Ok(RunWatch { replay: stored.into_iter().map(Arc::new).collect(), live: None, remote, last: after });
            }
        }
        let stored = match self.store()?.events(id, after).await {
            Ok(events) => events,
            // A run that has just started is live before its first step is stored.
            Err(StoreError::NoSuchRun(_)) if joined.is_some() => Vec::new(),
            Err(error) => return Err(error.into()),
        };
        let mut replay: VecDeque<Arc<RunEvent>> = stored.into_iter().map(Arc::new).collect();
        let (live, pending) = match joined {
            Some((live, pending)) => (Some(live), pending),
            None => (None, Vec::new()),
        };
        let mut newest = replay.back().map(|e| e.seq).or(after);
        for event in pending {
            if newest.is_none_or(|newest| event.seq > newest) {
                newest = Some(event.seq);
                replay.push_back(event);
            }
        }
        Ok(RunWatch { replay, live, remote: None, last: after })
    }
}
