//! # crewgraph-store
//!
//! The engine's `RunStore` on SQLite (rusqlite, bundled; DESIGN.md §8). Nothing is
//! implemented yet; this crate will own one file per table, each with its migration:
//! crews and their revisions, runtime agents, settings, runs, steps and events — one
//! transaction per step, WAL mode, migrations versioned in code — so a run can be
//! listed, replayed event by event, and resumed after the app or the machine stopped.
//!
//! No SQLite type crosses the `RunStore` trait, so other stores (in memory for tests,
//! PostgreSQL later) can take its place.
