//! Running a crew (DESIGN.md §4): the loop that calls agents, matches their signals,
//! routes the work and writes every step to the store before the next begins.
//!
//! The seams, each a trait injected into a run: [`llm::LlmClient`] (the models),
//! [`store::RunStore`] (persistence), [`sink::EventSink`] (live events),
//! [`time::Clock`] and [`time::IdSource`] (so traces are byte-stable in tests).
//! Everything a run does is a [`event::RunEvent`]; its history is a list of
//! [`message::Message`]s, fit into each model's context window before every call
//! (`context`). Under the `llm` and `gatekeeper` strategies a
//! [`crate::routing::decider::RouteDecider`] decides after each turn (the
//! gatekeeper's comes in through [`RunDeps`]).

pub mod approval;
pub mod breakpoints;
pub mod calculator;
mod calls;
mod context;
pub mod crew_revision;
pub mod driver;
mod error;
pub mod event;
pub mod history;
pub mod lease;
pub mod llm;
pub mod loops;
pub mod memory;
pub mod message;
mod parallel;
pub mod prompt;
pub mod queued;
pub mod replay;
mod resume;
pub mod routed;
pub mod seen;
pub mod sink;
mod start;
pub mod store;
pub mod time;
pub mod tool_host;
pub mod tools;

pub use approval::{Answer, Approvals, Pending, ToolDecision};
pub use breakpoints::Breaks;
pub use crew_revision::{CrewRevision, NewCrewRevision};
pub use driver::{CrewSource, RunDeps, RunOutcome};
pub use error::RunError;
pub use event::{Candidate, EventKind, RunEvent, RunStatus};
pub use lease::{Executor, Lease, LeaseOutcome};
pub use llm::{ContextWindow, Ending, LlmClient, LlmError, LlmReply, LlmRequest, OutputSchema, TokenSink, ToolSpec, Usage};
pub use memory::MemoryStore;
pub use message::{Message, Role, ToolCall};
pub use queued::{continue_run, open_answer, open_resume, open_start};
pub use replay::{Fork, ForkPoint, Replay, Replaying};
pub use resume::{answer_tool_call, resume_run};
pub use sink::{CollectingSink, EventSink, NullSink};
pub use start::{start_run, start_run_for};
pub use store::{RunRecord, RunSnapshot, RunStore, RunSummary, StepRecord, StoreError, StoredRun, Turn};
pub use time::{Clock, IdSource, RandomIds, SequentialIds, SteppingClock, SystemClock, Timestamp};
pub use tool_host::{ServerTool, ToolHost, ToolOutput, ToolProgress};
pub use tools::{HttpFetch, ToolFacts, Tools};
