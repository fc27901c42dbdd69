//! The seam to persistence: [`RunStore`]. Every step of a run is written before the
//! next begins (DESIGN.md §4, §8), as one [`StepRecord`] in one transaction, so a
//! run survives a crash and resumes from its last stored step. A write holds only
//! what the step added — its events, its new history entries, the small
//! [`RunSnapshot`] — never the whole history again.
//!
//! Implementations: `crewgraph-store`'s SQLite store, `crewgraph-store-postgres`'s
//! PostgreSQL store, and [`super::memory::MemoryStore`]. All three pass one
//! conformance suite. No SQLite or PostgreSQL type crosses this trait.

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use std::time::Duration;

use super::event::{RunEvent, RunStatus};
use super::lease::LeaseOutcome;
use super::llm::Usage;
use super::message::Message;
use super::replay::ForkPoint;
use super::seen::AgentContext;
use super::time::Timestamp;
use crate::ids::{AgentId, RunId};

/// What a run was started with; written once.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    pub id: RunId,
    pub crew_name: String,
    /// The crew file or folder, to load the crew again on resume.
    pub crew_path: Option<String>,
    /// A fingerprint of the crew as it ran, to notice a crew changed before a resume.
    pub crew_fingerprint: String,
    pub input: String,
    pub created_at: Timestamp,
    /// The run it was forked from, and the reply replaced there ([`super::replay`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forked_from: Option<ForkPoint>,
}

/// One transfer, as loop detection remembers it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Turn {
    pub agent: AgentId,
    /// The reply's fingerprint (a MinHash of its words, see [`super::loops`]).
    pub reply: String,
}

/// The state a run needs to go on, small and rewritten each step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunSnapshot {
    pub status: RunStatus,
    /// The agent that works next (or, once finished, the one that worked last).
    pub current_agent: AgentId,
    pub handoffs: u32,
    /// Agent turns so far.
    pub steps: u32,
    /// The `seq` the next event gets.
    pub next_seq: u64,
    /// Replies in a row without a signal (`on_no_signal: reprompt`).
    pub strikes: u32,
    /// The most recent turns, for loop detection.
    pub recent: Vec<Turn>,
    /// How many entries the history has (the store appends after them).
    pub history_len: u32,
    /// Why the run failed.
    pub error: Option<String>,
    pub updated_at: Timestamp,
    /// Tokens its agents used so far, as the providers reported them.
    #[serde(default)]
    pub tokens: Usage,
}

impl RunSnapshot {
    /// A new run's state before its first step: running, at `agent`, nothing done yet.
    pub fn starting(agent: AgentId, at: Timestamp) -> Self {
        RunSnapshot {
            status: RunStatus::Running,
            current_agent: agent,
            handoffs: 0,
            steps: 0,
            next_seq: 0,
            strikes: 0,
            recent: Vec::new(),
            history_len: 0,
            error: None,
            updated_at: at,
            tokens: Usage::default(),
        }
    }
}

/// Everything one step changes, written in one transaction.
#[derive(Clone, Debug, PartialEq)]
pub struct StepRecord {
    pub run_id: RunId,
    /// The step's events, in `seq` order, continuing the run's previous events.
    pub events: Vec<RunEvent>,
    /// Entries appended to the history in this step, in order.
    pub history: Vec<Message>,
    /// The run's state after the step.
    pub snapshot: RunSnapshot,
    /// What each model call of the step was given ([`super::seen`]): kept with the
    /// step, never sent as events.
    pub contexts: Vec<AgentContext>,
    /// How the leg this step opens is to be executed, when another executor will
    /// run it (a queued run, [`super::queued`]): the host's run options, as text the
    /// engine does not read. None keeps what is stored.
    pub options: Option<String>,
}

/// A stored run: how it started, where it stands, what its agents have said.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredRun {
    pub record: RunRecord,
    pub snapshot: RunSnapshot,
    pub history: Vec<Message>,
    /// How its latest queued leg is to be executed: the options the last step that
    /// had them stored ([`StepRecord::options`]); None when no step had any.
    pub options: Option<String>,
}

/// A run in a listing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct RunSummary {
    pub id: RunId,
    pub crew_name: String,
    /// Its crew file or folder, as the run stored it (the API names it as its host
    /// names crews: a server relative to its crews folder, None out of its reach).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub crew_path: Option<String>,
    pub input: String,
    pub status: RunStatus,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub steps: u32,
    pub handoffs: u32,
    pub error: Option<String>,
    /// Tokens its agents used, as the providers reported them (0 in Simulate mode).
    #[serde(default)]
    pub tokens: Usage,
    /// The revision of its crew it ran (a store that keeps crew revisions finds the
    /// one whose fingerprint is the run's); None when there is none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub crew_revision: Option<u32>,
    /// The run it was forked from, and the reply replaced there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub forked_from: Option<ForkPoint>,
}

/// Why the store failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// The run does not exist.
    #[error("there is no run '{0}'")]
    NoSuchRun(RunId),
    /// `create_run` for an id already stored.
    #[error("run '{0}' already exists")]
    AlreadyExists(RunId),
    /// A step whose events do not continue the stored ones, or whose history does
    /// not continue the stored history (a writer that lost track, or two writers).
    #[error("run '{run}': {detail}")]
    OutOfOrder { run: RunId, detail: String },
    /// Another writer holds the database for too long.
    #[error("the database is busy (locked by another program): {0}")]
    Busy(String),
    /// The database file is damaged or not a Crewgraph database.
    #[error("the database is damaged or is not a Crewgraph database: {0}")]
    Corrupt(String),
    /// The disk refused (permissions, a full disk, a read-only folder …).
    #[error("the database could not be written: {0}")]
    Io(String),
}

/// Where runs are kept.
#[async_trait]
pub trait RunStore: Send + Sync {
    /// Stores a new run with its first step. Fails with `AlreadyExists` for a known id.
    async fn create_run(&self, record: &RunRecord, first: &StepRecord) -> Result<(), StoreError>;

    /// Appends one step, atomically: all of it or none of it is stored. Its first
    /// event's `seq` must be the stored snapshot's `next_seq`, and its history must
    /// continue at the stored `history_len`; otherwise `OutOfOrder` and nothing is written.
    async fn append_step(&self, step: &StepRecord) -> Result<(), StoreError>;

    /// A run with its snapshot and whole history; None if unknown.
    async fn load_run(&self, id: &RunId) -> Result<Option<StoredRun>, StoreError>;

    /// Every run, newest first.
    async fn list_runs(&self) -> Result<Vec<RunSummary>, StoreError>;

    /// A run's events in `seq` order, those after `after` only when given.
    /// `NoSuchRun` for an unknown run.
    async fn events(&self, id: &RunId, after: Option<u64>) -> Result<Vec<RunEvent>, StoreError>;

    /// Atomically moves a run whose status is one of `from` to `Running`, so two
    /// resumes of one paused run cannot both win. True when this call moved it.
    async fn claim(&self, id: &RunId, from: &[RunStatus]) -> Result<bool, StoreError>;

    /// Leases the run to `owner` (an executor's name) for `ttl`, atomically: granted
    /// until now + `ttl` when nobody holds it, when `owner` holds it already (a
    /// renewal), or when the holder's lease has run out (a takeover); otherwise
    /// `Held` with the holder and its expiry, and nothing changes. "Now" is the
    /// store's clock: the server's for a shared database, so executors on machines
    /// whose clocks disagree agree on when a lease runs out ([`super::lease`]).
    /// `NoSuchRun` for an unknown run.
    async fn lease(&self, id: &RunId, owner: &str, ttl: Duration) -> Result<LeaseOutcome, StoreError>;

    /// Ends `owner`'s lease on the run, so another executor may take it at once. True
    /// when `owner` held it (run out or not, as long as nobody took it over); a
    /// release by anyone else changes nothing and is false. `NoSuchRun` for an
    /// unknown run.
    async fn release(&self, id: &RunId, owner: &str) -> Result<bool, StoreError>;

    /// What the run's model calls were given ([`super::seen`]), step by step; None
    /// when the run was stored without them (by a Crewgraph from before they were
    /// kept). `NoSuchRun` for an unknown run.
    async fn contexts(&self, id: &RunId) -> Result<Option<Vec<AgentContext>>, StoreError>;

    /// The queued runs an executor could take now, oldest first: running, held by
    /// nobody — no lease, or one that has run out by the store's clock — and opened
    /// for another executor (a step stored options for their leg). A run whose
    /// worker died, or one queued and not yet taken; a sweeper enqueues those no
    /// queue holds (docs/scale-out.md). A run some process executes itself (no
    /// options) is never one: it is resumed where it was started.
    async fn runnable(&self) -> Result<Vec<RunId>, StoreError>;
}
