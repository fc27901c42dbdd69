//! One file per table, each with its migrations (`V1` …, listed in order in
//! `schema.rs`) and the statements that read it.
//!
//! A run is kept in three tables, keyed by the run's row number in `runs`:
//!
//! ```text
//! runs    (number, id, record …, snapshot …, stored_steps)   one row per run; the snapshot is updated per step
//! steps   (run, step, written_at, history, contexts)          one row per stored step: the history messages it
//!                                                             added and what its model calls were given, JSON
//! events  (run, seq, at, kind)                                one row per event, its kind as JSON
//! ```
//!
//! A step updates one row of `runs`, inserts its row into `steps` and its events
//! into `events` with one multi-row INSERT — all in one statement (`step.rs`).
//! Crews, their revisions, runtime agents and settings have a table each, with
//! small typed methods on [`crate::PostgresStore`], as in the SQLite store.
//!
//! JSON is kept in `json` columns, not `jsonb`: `json` keeps the text exactly as
//! serde wrote it, and accepts `\u0000` in a string (a token or a tool's output may
//! hold one), which `jsonb` refuses.

pub(crate) mod crew_revisions;
pub(crate) mod crews;
pub(crate) mod events;
pub(crate) mod runs;
pub(crate) mod runtime_agents;
pub(crate) mod settings;
pub(crate) mod steps;
