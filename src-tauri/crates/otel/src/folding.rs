//! The exporter's folding thread ([`Folding`]): it takes the run events traced
//! runs put in the [`Exporter`](crate::Exporter)'s queue, folds each leg's into
//! spans ([`RunSpans`], as a leg's own fold would: times from the events, ids from
//! the run id and `seq`), and hands the spans on in batches to the sending thread.
//!
//! The runs never wake it for an event: while events come it drains the queue,
//! naps a few milliseconds, drains again — the runs' threads only put events in, a
//! step's worth at a time (and wake it when the queue is half full); when a nap
//! brings nothing it sleeps until the next events. A batch goes when it has [`BATCH`] spans or its first
//! span has waited the exporter's delay, or at a flush; when the batches waiting
//! for the collector are as many as the queue allows, its spans are dropped and
//! counted.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender, TryRecvError, TrySendError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crewgraph_engine::run::RunEvent;
use opentelemetry_sdk::trace::SpanData;

use crate::crew::Prepared;
use crate::export::{Counters, LegId, BATCH};
use crate::spans::RunSpans;

/// How long the folding thread naps between two drains while events come.
const NAP: Duration = Duration::from_millis(2);

/// What the exporter's queue carries, in the order it was put in.
pub(crate) enum Item {
    /// A leg begins: its crew, and whether its spans carry content.
    Leg { leg: LegId, facts: Arc<Prepared>, capture_content: bool },
    /// Some of a leg's events, in order (copied by [`crate::TracedSink`]).
    Events { leg: LegId, events: Vec<RunEvent> },
    /// A leg's sink is gone: its open spans end where it stood.
    End { leg: LegId },
    /// Send everything before this, then say so on `done` (given up at `deadline`).
    Flush { deadline: Instant, done: mpsc::Sender<()> },
}

impl std::fmt::Debug for Item {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Item::Leg { .. } => "Leg",
            Item::Events { .. } => "Events",
            Item::End { .. } => "End",
            Item::Flush { .. } => "Flush",
        })
    }
}

/// Spans for the sending thread: one request each (or more, past [`BATCH`]).
pub(crate) struct Batch {
    pub(crate) spans: Vec<SpanData>,
    /// Told once the batch is sent (a flush).
    pub(crate) flushed: Option<mpsc::Sender<()>>,
}

/// The folding thread's state.
pub(crate) struct Folding {
    items: Receiver<Item>,
    /// Events in `items`, shared with the exporter.
    queued: Arc<AtomicUsize>,
    legs: HashMap<LegId, RunSpans>,
    batch: Vec<SpanData>,
    /// When `batch` is to go.
    due: Option<Instant>,
    batches: SyncSender<Batch>,
    counters: Arc<Counters>,
    delay: Duration,
    url: String,
}

impl Folding {
    pub(crate) fn new(
        items: Receiver<Item>,
        queued: Arc<AtomicUsize>,
        batches: SyncSender<Batch>,
        counters: Arc<Counters>,
        delay: Duration,
        url: String,
    ) -> Self {
        Folding { items, queued, legs: HashMap::new(), batch: Vec::new(), due: None, batches, counters, delay, url }
    }

    pub(crate) fn run(mut self) {
        loop {
            // Asleep until an event comes (or the batch is due).
            let first = match self.due {
                None => self.items.recv().ok(),
                Some(due) => match self.items.recv_timeout(due.saturating_duration_since(Instant::now())) {
                    Ok(item) => Some(item),
                    Err(RecvTimeoutError::Timeout) => {
                        self.hand_on(None, None);
                        continue;
                    }
                    Err(RecvTimeoutError::Disconnected) => None,
                },
            };
            let Some(first) = first else { break };
            self.take(first);
            // Awake while events come: drain, nap, drain.
            let ended = loop {
                let mut took = 0;
                let ended = loop {
                    match self.items.try_recv() {
                        Ok(item) => {
                            self.take(item);
                            took += 1;
                        }
                        Err(TryRecvError::Empty) => break false,
                        Err(TryRecvError::Disconnected) => break true,
                    }
                };
                if self.due.is_some_and(|due| due <= Instant::now()) {
                    self.hand_on(None, None);
                }
                if ended || took == 0 {
                    break ended;
                }
                std::thread::park_timeout(NAP);
            };
            if ended {
                break;
            }
        }
        // The exporter is gone, and with it every sink: what is left goes.
        for (_, mut spans) in self.legs.drain() {
            spans.interrupt(&mut |span| self.batch.push(span));
        }
        let spans = std::mem::take(&mut self.batch);
        let _ = self.batches.send(Batch { spans, flushed: None });
    }

    fn take(&mut self, item: Item) {
        match item {
            Item::Leg { leg, facts, capture_content } => {
                self.legs.insert(leg, RunSpans::prepared(facts, capture_content));
            }
            Item::Events { leg, events } => {
                self.queued.fetch_sub(events.len(), Ordering::Relaxed);
                if let Some(spans) = self.legs.get_mut(&leg) {
                    for event in &events {
                        spans.event(event, &mut |span| self.batch.push(span));
                    }
                    if spans.is_finished() {
                        self.legs.remove(&leg);
                    }
                    self.batched();
                }
            }
            Item::End { leg } => {
                if let Some(mut spans) = self.legs.remove(&leg) {
                    let batch = &mut self.batch;
                    spans.interrupt(&mut |span| batch.push(span));
                    self.batched();
                }
            }
            Item::Flush { deadline, done } => self.hand_on(Some(done), Some(deadline)),
        }
    }

    /// After spans were added: the batch goes when full, else is due a delay after
    /// its first span.
    fn batched(&mut self) {
        if self.batch.len() >= BATCH {
            self.hand_on(None, None);
        } else if !self.batch.is_empty() && self.due.is_none() {
            self.due = Some(Instant::now() + self.delay);
        }
    }

    /// Hands the batch to the sending thread. A flush waits for room until its
    /// deadline; otherwise, when the batches already waiting fill the queue, the
    /// spans are dropped and counted.
    fn hand_on(&mut self, flushed: Option<mpsc::Sender<()>>, deadline: Option<Instant>) {
        self.due = None;
        if self.batch.is_empty() && flushed.is_none() {
            return;
        }
        let mut batch = Batch { spans: std::mem::take(&mut self.batch), flushed };
        loop {
            match self.batches.try_send(batch) {
                Ok(()) => return,
                Err(TrySendError::Full(back)) if deadline.is_some_and(|d| Instant::now() < d) => {
                    batch = back;
                    std::thread::sleep(Duration::from_millis(5));
                }
                Err(TrySendError::Full(back)) | Err(TrySendError::Disconnected(back)) => {
                    batch = back;
                    break;
                }
            }
        }
        self.counters.dropped.fetch_add(batch.spans.len() as u64, Ordering::Relaxed);
        if !batch.spans.is_empty() && !self.counters.told_dropped.swap(true, Ordering::Relaxed) {
            tracing::warn!(
                "traces: the queue of spans for {} is full (the collector is slow or down): spans are dropped and counted",
                self.url
            );
        }
    }
}
