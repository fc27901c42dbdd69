//! The wiring the run-loop tests share ([`Bench`]): the ping-pong crew, one
//! in-memory store, a stepping clock and sequential ids for every leg of a run, so
//! each stored trace is the same bytes on every run; each leg brings its own model
//! and sink.

use std::sync::Arc;

use crewgraph_engine::run::{CollectingSink, CrewSource, MemoryStore, RunDeps, SequentialIds, SteppingClock, Timestamp};
use crewgraph_engine::Crew;

use crate::model::Book;
use crate::support::valid;

/// 2026-11-28T10:00:00.000Z, where every run's clock starts (as in crewgraph's traces).
pub const START: Timestamp = Timestamp(1_795_860_000_000);

/// Two agents that hand the work back and forth on [NEXT]; `a` may end it with
/// [DONE] or wait for the person with [WAIT].
const PING_PONG: &str = include_str!("../fixtures/ping_pong.yaml");

/// One store and clock for every leg of a run.
pub struct Bench {
    pub crew: Crew,
    pub store: Arc<MemoryStore>,
    pub clock: Arc<SteppingClock>,
    pub ids: Arc<SequentialIds>,
}

impl Bench {
    pub fn new() -> Bench {
        Bench {
            crew: valid(PING_PONG),
            store: Arc::new(MemoryStore::new()),
            clock: Arc::new(SteppingClock::new(START, 1)),
            ids: Arc::new(SequentialIds::default()),
        }
    }

    /// Wiring for a leg answered by `book`, its events to `sink`, with no executor.
    pub fn deps(&self, book: Arc<Book>, sink: Arc<CollectingSink>) -> RunDeps {
        RunDeps {
            llm: book,
            store: self.store.clone(),
            sink,
            clock: self.clock.clone(),
            ids: self.ids.clone(),
            http: None,
            tool_host: None,
            approvals: Default::default(),
            notices: Vec::new(),
            gatekeeper: None,
            breaks: Default::default(),
            fork: None,
            executor: None,
        }
    }
}

/// Where the tests' crew came from (no file).
pub fn source() -> CrewSource {
    CrewSource { path: None, fingerprint: "test".into() }
}
