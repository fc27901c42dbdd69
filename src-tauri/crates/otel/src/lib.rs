//! Crewgraph's runs as OpenTelemetry traces, following the GenAI semantic
//! conventions, sent over OTLP/HTTP to any collector (Phoenix, Langfuse, Jaeger,
//! the OpenTelemetry Collector): docs/observability.md.
//!
//! The engine knows nothing of it: a traced run emits its events to a
//! [`TracedSink`], which hands them on to the host's own sink and puts a copy in an
//! [`Exporter`]'s bounded queue — all a run's thread does for its trace. The
//! exporter's threads fold them into spans ([`RunSpans`], pure: times from the
//! events, ids from the run id and the events' `seq`) and send the spans in
//! batches — a collector that is down never slows a run; what it cost is counted
//! ([`ExportStats`]). Which model and provider each agent uses is the host's to
//! say ([`CrewFacts`]).
//!
//! ```no_run
//! use std::sync::Arc;
//! use crewgraph_engine::run::NullSink;
//! use crewgraph_otel::{AgentFacts, CrewFacts, ExportConfig, Exporter, TracedSink};
//!
//! let exporter = Exporter::start(&ExportConfig::new("http://127.0.0.1:6006")).unwrap();
//! let facts = CrewFacts {
//!     name: "Exam".into(),
//!     agents: vec![AgentFacts { id: "teacher".into(), name: "Teacher".into(), model: "gpt-4o-mini".into(), provider: "openai".into() }],
//! };
//! let sink = TracedSink::new(Arc::new(NullSink), exporter.clone(), &facts, false);
//! // … give `sink` to the run (`RunDeps::sink`); when it is over:
//! drop(sink);
//! exporter.flush(std::time::Duration::from_secs(5));
//! ```

mod crew;
mod export;
mod folding;
mod ids;
pub mod names;
mod sink;
mod spans;

pub use crew::{AgentFacts, CrewFacts};
pub use export::{traces_url, ExportConfig, ExportError, ExportStats, Exporter};
pub use ids::{span_id_of, trace_id_of};
pub use sink::TracedSink;
pub use spans::RunSpans;

/// The environment variables that turn tracing on without Settings, read as the
/// OpenTelemetry specification says: the traces endpoint as it is, else the
/// general one with `/v1/traces` added. None when neither is set (or
/// `OTEL_SDK_DISABLED=true`).
pub fn endpoint_from_env() -> Option<String> {
    if std::env::var("OTEL_SDK_DISABLED").is_ok_and(|v| v.trim().eq_ignore_ascii_case("true")) {
        return None;
    }
    let read = |name: &str| std::env::var(name).ok().map(|v| v.trim().to_owned()).filter(|v| !v.is_empty());
    read("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT").or_else(|| read("OTEL_EXPORTER_OTLP_ENDPOINT").map(|base| traces_url(&base)))
}
