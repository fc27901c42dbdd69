//! Sending spans: [`Exporter`], the queue traced runs put their events in and the
//! two threads of its own behind it. A run's thread only hands each stored step's
//! events over to a bounded queue ([`TracedSink`](crate::TracedSink)) — never
//! copies, never waits, never folds: when the queue is full the events are dropped
//! and counted. The first thread
//! (`crewgraph-otel-fold`, [`crate::folding`]) folds each leg's events into spans
//! and gathers them in batches; the second (`crewgraph-otel`) sends each batch as
//! one OTLP/HTTP (protobuf) request with the `opentelemetry-otlp` exporter. When
//! the collector is slow or down, the batches waiting for it are bounded too, and
//! further spans are dropped and counted ([`ExportStats`]); the server log says so
//! once (and once more when the collector answers again).
//!
//! ```no_run
//! use crewgraph_otel::{ExportConfig, Exporter};
//! let exporter = Exporter::start(&ExportConfig::new("http://127.0.0.1:6006")).unwrap();
//! // … runs put their events in it (through a `TracedSink`) …
//! exporter.flush(std::time::Duration::from_secs(5));
//! println!("{:?}", exporter.stats());
//! ```

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};
use std::thread::Thread;
use std::time::{Duration, Instant};

use crewgraph_engine::run::RunEvent;
use opentelemetry::KeyValue;
use opentelemetry_otlp::{Protocol, WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::trace::{SpanData, SpanExporter};
use opentelemetry_sdk::Resource;

use crate::crew::Prepared;
use crate::folding::{Batch, Folding, Item};

/// The spans one request carries at most.
pub(crate) const BATCH: usize = 512;

/// Where and how spans are sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportConfig {
    /// The collector's OTLP/HTTP traces URL (`http://host:4318/v1/traces`), or its
    /// base (`http://host:4318`), to which `/v1/traces` is added.
    pub endpoint: String,
    /// Headers every request carries (an `Authorization`, an API key), secrets
    /// looked up already. `OTEL_EXPORTER_OTLP_HEADERS` adds its own.
    pub headers: Vec<(String, String)>,
    /// The longest one request may take.
    pub timeout: Duration,
    /// The spans that may wait to be sent; more are dropped.
    pub queue: usize,
    /// The run events that may wait to be folded into spans; more are dropped.
    pub events: usize,
    /// How long a span waits for others to go with it.
    pub delay: Duration,
}

impl ExportConfig {
    /// Spans to `endpoint`, no headers, a 10 s timeout, a queue of 2,048 spans sent
    /// at most a second after they end, and of 8,192 events.
    pub fn new(endpoint: impl Into<String>) -> Self {
        ExportConfig {
            endpoint: endpoint.into(),
            headers: Vec::new(),
            timeout: Duration::from_secs(10),
            queue: 2048,
            events: 8192,
            delay: Duration::from_secs(1),
        }
    }

    /// The traces URL: the endpoint as given when it names `/v1/traces`, else with
    /// it added.
    pub fn traces_url(&self) -> String {
        traces_url(&self.endpoint)
    }
}

/// `endpoint` as an OTLP/HTTP traces URL (`/v1/traces` added to a base).
pub fn traces_url(endpoint: &str) -> String {
    let endpoint = endpoint.trim();
    if endpoint.trim_end_matches('/').ends_with("/v1/traces") {
        endpoint.trim_end_matches('/').to_owned()
    } else {
        format!("{}/v1/traces", endpoint.trim_end_matches('/'))
    }
}

/// Why an exporter could not start.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The endpoint is not an http(s) URL.
    #[error("the traces endpoint '{0}' is not an http:// or https:// URL")]
    BadEndpoint(String),
    /// The OTLP exporter refused its configuration.
    #[error("the OTLP exporter could not be made: {0}")]
    Exporter(String),
    /// The sending thread could not be started.
    #[error("the thread that sends traces could not start: {0}")]
    Thread(String),
}

/// What an exporter has done so far.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExportStats {
    /// Spans the collector took.
    pub exported: u64,
    /// Spans dropped because the queue was full (the collector slow or down).
    pub dropped: u64,
    /// Run events dropped because their queue was full (the exporter's thread could
    /// not keep up with the runs): the spans they would have made or ended are
    /// missing or cut short.
    pub dropped_events: u64,
    /// Spans sent but not taken (the collector down or refusing them).
    pub failed: u64,
    /// The last sending error, until a send succeeds again.
    pub last_error: Option<String>,
}

#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub(crate) exported: AtomicU64,
    pub(crate) dropped: AtomicU64,
    pub(crate) dropped_events: AtomicU64,
    pub(crate) failed: AtomicU64,
    /// Told the log about dropped spans (once until a batch is taken again).
    pub(crate) told_dropped: AtomicBool,
    /// Told the log about dropped events (likewise).
    pub(crate) told_behind: AtomicBool,
    pub(crate) last_error: Mutex<Option<String>>,
}

/// One traced run leg, as the exporter's queue names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct LegId(pub(crate) u64);

/// The queue of run events and the threads that make them spans and send them.
#[derive(Debug)]
pub struct Exporter {
    items: mpsc::Sender<Item>,
    /// Run events in `items` now (legs' beginnings and ends, and flushes, are not
    /// counted: one each per leg, they are never dropped).
    queued: Arc<AtomicUsize>,
    capacity: usize,
    /// The folding thread, woken when the queue is half full.
    folding: Thread,
    next_leg: AtomicU64,
    counters: Arc<Counters>,
    url: String,
}

impl Exporter {
    /// Starts sending to `config`'s collector. Nothing is sent, nor the collector
    /// asked, until a span comes: a collector that is down is no error here.
    pub fn start(config: &ExportConfig) -> Result<Arc<Exporter>, ExportError> {
        let url = config.traces_url();
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(ExportError::BadEndpoint(config.endpoint.clone()));
        }
        let headers: HashMap<String, String> = config.headers.iter().cloned().collect();
        let mut exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_protocol(Protocol::HttpBinary)
            .with_endpoint(url.clone())
            .with_timeout(config.timeout)
            .with_headers(headers)
            .build()
            .map_err(|e| ExportError::Exporter(e.to_string()))?;
        exporter.set_resource(&resource());
        let counters = Arc::new(Counters::default());
        let thread = |name: &str| std::thread::Builder::new().name(name.to_owned());
        // The batches waiting for the collector: `queue` spans' worth.
        let (batches, waiting) = mpsc::sync_channel((config.queue / BATCH).max(1));
        let worker = Worker { batches: waiting, exporter, counters: counters.clone(), url: url.clone(), timeout: config.timeout };
        thread("crewgraph-otel")
            .spawn(move || {
                background();
                worker.run()
            })
            .map_err(|e| ExportError::Thread(e.to_string()))?;
        let (items, received) = mpsc::channel();
        let queued = Arc::new(AtomicUsize::new(0));
        let folding = Folding::new(received, queued.clone(), batches, counters.clone(), config.delay, url.clone());
        let folding = thread("crewgraph-otel-fold")
            .spawn(move || {
                background();
                folding.run()
            })
            .map_err(|e| ExportError::Thread(e.to_string()))?;
        Ok(Arc::new(Exporter {
            items,
            queued,
            capacity: config.events.max(2),
            folding: folding.thread().clone(),
            next_leg: AtomicU64::new(0),
            counters,
            url,
        }))
    }

    /// Where the spans go.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// A run leg begins, of a crew `facts` describes.
    pub(crate) fn open_leg(&self, facts: Arc<Prepared>, capture_content: bool) -> LegId {
        let leg = LegId(self.next_leg.fetch_add(1, Ordering::Relaxed));
        let _ = self.items.send(Item::Leg { leg, facts, capture_content });
        leg
    }

    /// Puts `leg`'s `events` in the queue, or, when it has no room for them, drops
    /// them (counted) and answers false. Never waits, and wakes the folding thread
    /// only when the queue gets half full: it drains the queue on its own every few
    /// milliseconds while events come.
    pub(crate) fn events(&self, leg: LegId, events: Vec<RunEvent>) -> bool {
        let count = events.len();
        let before = self.queued.fetch_add(count, Ordering::Relaxed);
        if before + count > self.capacity || self.items.send(Item::Events { leg, events }).is_err() {
            self.queued.fetch_sub(count, Ordering::Relaxed);
            self.dropped_events(count as u64);
            return false;
        }
        if before < self.capacity / 2 && before + count >= self.capacity / 2 {
            self.folding.unpark();
        }
        true
    }

    /// Counts `count` run events dropped, and says so once (until a batch is taken).
    pub(crate) fn dropped_events(&self, count: u64) {
        self.counters.dropped_events.fetch_add(count, Ordering::Relaxed);
        if !self.counters.told_behind.swap(true, Ordering::Relaxed) {
            tracing::warn!(
                "traces: the queue of run events for {} is full (the exporter cannot keep up): events are dropped and counted, their runs' traces cut short",
                self.url
            );
        }
    }

    /// `leg`'s sink is gone: the spans it left open end where it stood.
    pub(crate) fn end_leg(&self, leg: LegId) {
        let _ = self.items.send(Item::End { leg });
    }

    /// Folds and sends what is queued now and waits until it is sent (or given
    /// up), at most `timeout`. False when that was not enough.
    pub fn flush(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let (done, finished) = mpsc::channel();
        if self.items.send(Item::Flush { deadline, done }).is_err() {
            return false;
        }
        self.folding.unpark();
        finished.recv_timeout(deadline.saturating_duration_since(Instant::now())).is_ok()
    }

    /// What it has done so far.
    pub fn stats(&self) -> ExportStats {
        let c = &self.counters;
        ExportStats {
            exported: c.exported.load(Ordering::Relaxed),
            dropped: c.dropped.load(Ordering::Relaxed),
            dropped_events: c.dropped_events.load(Ordering::Relaxed),
            failed: c.failed.load(Ordering::Relaxed),
            last_error: c.last_error.lock().unwrap_or_else(|p| p.into_inner()).clone(),
        }
    }
}

/// Gives the calling thread the lowest priority (Linux: nice 19, for this thread
/// alone; elsewhere it keeps its own): where the cores are busy, the runs go first
/// and the exporter takes what is left — events and spans it cannot keep up with
/// are dropped and counted, never waited for.
fn background() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: gettid and setpriority only read their arguments; on Linux,
        // PRIO_PROCESS with a thread's id sets that thread's niceness alone.
        let failed = unsafe { libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, 19) } != 0;
        if failed {
            tracing::debug!("traces: the exporter's thread keeps its priority ({})", std::io::Error::last_os_error());
        }
    }
}

/// The resource every span names: the service `crewgraph` (unless
/// `OTEL_SERVICE_NAME` names another), with `OTEL_RESOURCE_ATTRIBUTES`.
fn resource() -> Resource {
    let builder = Resource::builder();
    if std::env::var_os("OTEL_SERVICE_NAME").is_some() {
        builder.build()
    } else {
        builder.with_service_name("crewgraph").with_attribute(KeyValue::new("service.version", env!("CARGO_PKG_VERSION"))).build()
    }
}

/// The sending thread: one request per batch.
struct Worker {
    batches: Receiver<Batch>,
    exporter: opentelemetry_otlp::SpanExporter,
    counters: Arc<Counters>,
    url: String,
    timeout: Duration,
}

impl Worker {
    fn run(self) {
        let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
            Ok(runtime) => runtime,
            Err(error) => {
                tracing::warn!("traces: no runtime to send spans on ({error}); none will be sent");
                return;
            }
        };
        while let Ok(Batch { mut spans, flushed }) = self.batches.recv() {
            while !spans.is_empty() {
                self.send(&runtime, &mut spans);
            }
            if let Some(done) = flushed {
                let _ = done.send(());
            }
        }
    }

    fn send(&self, runtime: &tokio::runtime::Runtime, batch: &mut Vec<SpanData>) {
        if batch.is_empty() {
            return;
        }
        let spans: Vec<SpanData> = batch.drain(..batch.len().min(BATCH)).collect();
        let count = spans.len() as u64;
        // The exporter's own timeout bounds each try; this bounds its retries too.
        let result = runtime.block_on(async { tokio::time::timeout(self.timeout * 3, self.exporter.export(spans)).await });
        let error = match result {
            Ok(Ok(())) => None,
            Ok(Err(error)) => Some(error.to_string()),
            Err(_) => Some(format!("no answer within {} s", (self.timeout * 3).as_secs())),
        };
        let mut last = self.counters.last_error.lock().unwrap_or_else(|p| p.into_inner());
        match error {
            None => {
                self.counters.exported.fetch_add(count, Ordering::Relaxed);
                if last.take().is_some() {
                    tracing::info!("traces: the collector at {} takes spans again", self.url);
                }
                self.counters.told_dropped.store(false, Ordering::Relaxed);
                self.counters.told_behind.store(false, Ordering::Relaxed);
            }
            Some(error) => {
                self.counters.failed.fetch_add(count, Ordering::Relaxed);
                if last.is_none() {
                    tracing::warn!(
                        "traces: the collector at {} did not take {count} spans ({error}); spans are dropped while it does not",
                        self.url
                    );
                }
                *last = Some(error);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_base_endpoint_gets_the_traces_path_and_a_full_one_is_kept() {
        assert_eq!(traces_url("http://127.0.0.1:6006"), "http://127.0.0.1:6006/v1/traces");
        assert_eq!(traces_url("http://127.0.0.1:6006/"), "http://127.0.0.1:6006/v1/traces");
        assert_eq!(traces_url("https://cloud.langfuse.com/api/public/otel"), "https://cloud.langfuse.com/api/public/otel/v1/traces");
        assert_eq!(traces_url("http://jaeger:4318/v1/traces"), "http://jaeger:4318/v1/traces");
    }

    #[test]
    fn an_endpoint_that_is_no_url_is_refused() {
        assert!(matches!(Exporter::start(&ExportConfig::new("localhost:4318")), Err(ExportError::BadEndpoint(_))));
    }
}
