//! crewgraph-otel's integration tests: the spans a run's events make.

mod spans;
