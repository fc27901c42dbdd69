//! [`TracedSink`]: the [`EventSink`] a traced run emits to. It hands every event
//! on to the host's own sink first (the window, the server's watchers, the
//! terminal), then folds it into the run's spans ([`RunSpans`]) and puts those
//! that finish in the [`Exporter`]'s queue — never waiting for the collector.
//! When the leg ends without `run_finished` (its host stopped it), dropping the
//! sink ends its open spans where the leg stood.

use std::sync::{Arc, Mutex};

use crewgraph_engine::run::{EventSink, RunEvent};

use crate::crew::{CrewFacts, Prepared};
use crate::export::Exporter;
use crate::spans::RunSpans;

/// A run leg's sink that also traces it.
pub struct TracedSink {
    inner: Arc<dyn EventSink>,
    exporter: Arc<Exporter>,
    spans: Mutex<RunSpans>,
}

impl TracedSink {
    /// Events go to `inner`, and the spans of a run of the crew `facts` describes to
    /// `exporter`; prompt and reply text too with `capture_content`.
    pub fn new(inner: Arc<dyn EventSink>, exporter: Arc<Exporter>, facts: &CrewFacts, capture_content: bool) -> Self {
        let spans = RunSpans::prepared(Arc::new(Prepared::new(facts)), capture_content);
        TracedSink { inner, exporter, spans: Mutex::new(spans) }
    }
}

impl EventSink for TracedSink {
    fn emit(&self, event: &RunEvent) {
        self.inner.emit(event);
        let mut spans = self.spans.lock().unwrap_or_else(|p| p.into_inner());
        spans.event(event, &mut |span| self.exporter.send(span));
    }

    fn committed(&self, seq: u64) {
        self.inner.committed(seq);
    }
}

impl Drop for TracedSink {
    fn drop(&mut self) {
        let spans = self.spans.get_mut().unwrap_or_else(|p| p.into_inner());
        let exporter = &self.exporter;
        spans.interrupt(&mut |span| exporter.send(span));
    }
}
