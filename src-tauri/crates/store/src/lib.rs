//! # crewgraph-store
//!
//! The engine's [`RunStore`](crewgraph_engine::run::RunStore) on SQLite (rusqlite,
//! bundled; DESIGN.md §8): one file, WAL mode, migrations versioned in code, so a
//! run can be listed, replayed event by event, and resumed after the app or the
//! machine stopped.
//!
//! How data flows (the modules named are private, in `src/`):
//!
//! 1. [`SqliteStore::open`] opens (or creates) the file: `connection` sets WAL,
//!    `synchronous=NORMAL`, foreign keys and a busy timeout, checks the file is
//!    Crewgraph's and runs the migrations (`schema`, one per table).
//! 2. Every write goes through the one `writer`: a caller that finds it idle
//!    writes its request alone, on its own thread; otherwise the request queues
//!    and the writer thread commits what has queued together (group commit). A
//!    request refused by its checks writes nothing; one that fails halfway sends
//!    its group to run again request by request (`batch`). A step (`step`)
//!    writes one row into the table `steps` and moves its run's row in `runs`
//!    (`tables`, one file per table).
//! 3. Reads run on a few read connections (`reader`) beside the writer, and a
//!    checkpointer thread (`checkpoint`) copies the WAL back into the file beside both;
//!    rusqlite's WAL hook wakes it, so the crate has no `unsafe` (it forbids it).
//! 4. SQLite's failures come back as the engine's `StoreError` (`error`):
//!    `Busy`, `Corrupt` or `Io`, saying what failed and where.
//!
//! Besides `RunStore`, small typed methods keep crews' revisions, runtime agents
//! and settings, each in its table's file.
//!
//! ```no_run
//! use crewgraph_engine::run::RunStore;
//! use crewgraph_store::SqliteStore;
//!
//! # async fn example() -> Result<(), crewgraph_engine::run::StoreError> {
//! let store = SqliteStore::open(SqliteStore::default_path()?)?;
//! for run in store.list_runs().await? {
//!     println!("{} {} {}", run.id, run.status.as_str(), run.crew_name);
//! }
//! # Ok(()) }
//! ```
//!
//! No SQLite type crosses the `RunStore` trait, so other stores (in memory for
//! tests, PostgreSQL later) can take its place.

#![forbid(unsafe_code)]

mod batch;
mod checkpoint;
mod connection;
mod error;
mod reader;
mod schema;
mod step;
mod store;
mod tables;
mod writer;

pub use checkpoint::CheckpointStats;
pub use connection::StoreOptions;
pub use store::SqliteStore;
pub use tables::crew_revisions::{CrewRevision, NewCrewRevision};
pub use tables::runtime_agents::RuntimeAgent;
pub use tables::steps::StoredStep;
pub use writer::WriteStats;
