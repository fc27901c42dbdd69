//! Sending spans: [`Exporter`], a bounded queue in front of one thread of its own
//! that sends the spans in batches over OTLP/HTTP (protobuf) with the
//! `opentelemetry-otlp` exporter. A run only ever puts a span in the queue, never
//! waits: when the collector is slow or down and the queue is full, the span is
//! dropped and counted ([`ExportStats`]), and the server log says so once (and once
//! more when the collector answers again).
//!
//! ```no_run
//! use crewgraph_otel::{ExportConfig, Exporter};
//! let exporter = Exporter::start(&ExportConfig::new("http://127.0.0.1:6006")).unwrap();
//! // … runs put spans in it (through a `TracedSink`) …
//! exporter.flush(std::time::Duration::from_secs(5));
//! println!("{:?}", exporter.stats());
//! ```

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use opentelemetry::KeyValue;
use opentelemetry_otlp::{Protocol, WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::trace::{SpanData, SpanExporter};
use opentelemetry_sdk::Resource;

/// The spans one request carries at most.
const BATCH: usize = 512;

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
    /// How long a span waits for others to go with it.
    pub delay: Duration,
}

impl ExportConfig {
    /// Spans to `endpoint`, no headers, a 10 s timeout, a queue of 2,048 spans sent
    /// at most a second after they end.
    pub fn new(endpoint: impl Into<String>) -> Self {
        ExportConfig {
            endpoint: endpoint.into(),
            headers: Vec::new(),
            timeout: Duration::from_secs(10),
            queue: 2048,
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
    /// Spans sent but not taken (the collector down or refusing them).
    pub failed: u64,
    /// The last sending error, until a send succeeds again.
    pub last_error: Option<String>,
}

#[derive(Debug, Default)]
struct Counters {
    exported: AtomicU64,
    dropped: AtomicU64,
    failed: AtomicU64,
    /// Told the log about dropped spans (once until the queue has room again).
    told_dropped: AtomicBool,
    last_error: Mutex<Option<String>>,
}

enum Item {
    Span(Box<SpanData>),
    Flush(mpsc::Sender<()>),
}

/// A bounded queue of spans and the thread that sends them.
#[derive(Debug)]
pub struct Exporter {
    sender: SyncSender<Item>,
    counters: Arc<Counters>,
    url: String,
}

impl std::fmt::Debug for Item {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Item::Span(_) => "Span",
            Item::Flush(_) => "Flush",
        })
    }
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
        let (sender, receiver) = mpsc::sync_channel(config.queue.max(1));
        let counters = Arc::new(Counters::default());
        let worker =
            Worker { receiver, exporter, counters: counters.clone(), url: url.clone(), delay: config.delay, timeout: config.timeout };
        std::thread::Builder::new()
            .name("crewgraph-otel".into())
            .spawn(move || worker.run())
            .map_err(|e| ExportError::Thread(e.to_string()))?;
        Ok(Arc::new(Exporter { sender, counters, url }))
    }

    /// Where the spans go.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Puts a finished span in the queue; when it is full the span is dropped (and
    /// counted). Never waits.
    pub fn send(&self, span: SpanData) {
        match self.sender.try_send(Item::Span(Box::new(span))) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) | Err(TrySendError::Disconnected(_)) => {
                self.counters.dropped.fetch_add(1, Ordering::Relaxed);
                if !self.counters.told_dropped.swap(true, Ordering::Relaxed) {
                    tracing::warn!(
                        "traces: the queue of spans for {} is full (the collector is slow or down): spans are dropped and counted",
                        self.url
                    );
                }
            }
        }
    }

    /// Sends what is queued now and waits until it is sent (or given up), at most
    /// `timeout`. False when that was not enough.
    pub fn flush(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let (done, finished) = mpsc::channel();
        let mut item = Item::Flush(done);
        loop {
            match self.sender.try_send(item) {
                Ok(()) => break,
                Err(TrySendError::Disconnected(_)) => return false,
                Err(TrySendError::Full(back)) => {
                    if Instant::now() >= deadline {
                        return false;
                    }
                    item = back;
                    std::thread::sleep(Duration::from_millis(5));
                }
            }
        }
        finished.recv_timeout(deadline.saturating_duration_since(Instant::now())).is_ok()
    }

    /// What it has done so far.
    pub fn stats(&self) -> ExportStats {
        let c = &self.counters;
        ExportStats {
            exported: c.exported.load(Ordering::Relaxed),
            dropped: c.dropped.load(Ordering::Relaxed),
            failed: c.failed.load(Ordering::Relaxed),
            last_error: c.last_error.lock().unwrap_or_else(|p| p.into_inner()).clone(),
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

struct Worker {
    receiver: Receiver<Item>,
    exporter: opentelemetry_otlp::SpanExporter,
    counters: Arc<Counters>,
    url: String,
    delay: Duration,
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
        let mut batch: Vec<SpanData> = Vec::new();
        let mut due: Option<Instant> = None;
        loop {
            let wait = due.map_or(Duration::from_secs(3600), |d| d.saturating_duration_since(Instant::now()));
            match self.receiver.recv_timeout(wait) {
                Ok(Item::Span(span)) => {
                    batch.push(*span);
                    due.get_or_insert_with(|| Instant::now() + self.delay);
                    if batch.len() >= BATCH {
                        self.send(&runtime, &mut batch);
                        due = None;
                    }
                }
                Ok(Item::Flush(done)) => {
                    // Everything queued before the flush is in the batch already.
                    while !batch.is_empty() {
                        self.send(&runtime, &mut batch);
                    }
                    due = None;
                    let _ = done.send(());
                }
                Err(RecvTimeoutError::Timeout) => {
                    self.send(&runtime, &mut batch);
                    due = None;
                }
                Err(RecvTimeoutError::Disconnected) => {
                    self.send(&runtime, &mut batch);
                    return;
                }
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
