//! One file per table, each with its migrations (`V1` …, listed in order in
//! `schema.rs`) and the statements that read and write it.
//!
//! A run is kept in two tables, keyed by the run's row number in `runs`:
//!
//! ```text
//! runs   (number, id, record …, snapshot …, stored_steps)   one row per run; the snapshot is updated per step
//! steps  (number, run, step, first_seq, last_seq, written_at, events, history)
//!                                                           one row per stored step: its events and the
//!                                                           history messages it added, JSON
//! ```
//!
//! A step inserts its own row and updates one row of `runs`; nothing already
//! stored is written again. Crews, their revisions, runtime agents and settings
//! have a table each, with small typed methods on [`crate::SqliteStore`].

pub(crate) mod crew_revisions;
pub(crate) mod crews;
pub(crate) mod runs;
pub(crate) mod runtime_agents;
pub(crate) mod settings;
pub(crate) mod steps;
