//! # crewgraph-store-postgres
//!
//! The engine's [`RunStore`](crewgraph_engine::run::RunStore) on PostgreSQL, for
//! Crewgraph on several machines (issue 20, `docs/scale-out.md`): every API node
//! and worker opens the same database, and a run's steps land there one
//! transaction each, as they do in the SQLite store's file. It keeps the same
//! promises — the store conformance suite runs against it, on a real server.
//!
//! How data flows (the modules named are private, in `src/`):
//!
//! 1. [`PostgresStore::connect`] reads the `postgres://` URL (`address`), makes a
//!    pool of connections (`deadpool-postgres` over `tokio-postgres`) and brings
//!    the tables up to date (`schema`: numbered migrations in one transaction,
//!    their count kept in `schema_version`; a database from a newer Crewgraph is
//!    refused).
//! 2. A step (`step`) is checked and encoded on the caller's task, then written
//!    by one statement: the run's row in `runs` moves only if the run stands
//!    where the step starts, the step's row goes into `steps`, its events into
//!    `events` in one multi-row INSERT (`tables`, one file per table). Of two
//!    writers continuing one run at the same seq, exactly one wins; the other gets
//!    `StoreError::OutOfOrder` and nothing of its step is stored.
//! 3. Reads are one statement each, so a run's snapshot and history agree.
//! 4. The driver's failures come back as the engine's `StoreError` (`error`),
//!    saying what failed, in which database, at which host and port.
//!
//! Events, history messages and what the model calls were given are kept as JSON
//! in the engine's serde forms, the same forms the SQLite store writes. Besides
//! `RunStore`, small typed methods keep crews' revisions, runtime agents and
//! settings, each in its table's file, as in the SQLite store.
//!
//! ```no_run
//! use crewgraph_engine::run::RunStore;
//! use crewgraph_store_postgres::PostgresStore;
//!
//! # async fn example() -> Result<(), crewgraph_engine::run::StoreError> {
//! let store = PostgresStore::connect("postgres://crew@127.0.0.1:5432/crewgraph").await?;
//! for run in store.list_runs().await? {
//!     println!("{} {} {}", run.id, run.status.as_str(), run.crew_name);
//! }
//! # Ok(()) }
//! ```
//!
//! With the `testing` feature, its `testing` module starts a real PostgreSQL server for
//! tests (initdb and pg_ctl on a free loopback port, no system service).

#![forbid(unsafe_code)]

mod address;
mod error;
mod schema;
mod step;
mod store;
mod tables;
#[cfg(feature = "testing")]
pub mod testing;

pub use store::{PostgresOptions, PostgresStore};

/// How many migrations this version of the store knows: the schema version a
/// database has once it opened it.
pub const SCHEMA_VERSION: usize = schema::MIGRATIONS.len();
