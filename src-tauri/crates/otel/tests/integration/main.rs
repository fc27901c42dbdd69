//! crewgraph-otel's integration tests: the spans a run's events make, and what a
//! traced leg sends through an exporter to a collector.

mod export;
mod spans;
