//! [`RunError`]: why a run could not start or go on — each variant a sentence a
//! person can act on, naming the run.

use super::lease::clock_time;
use super::store::StoreError;
use super::time::Timestamp;
use crate::ids::{AgentId, RunId};

/// Why a run could not start or go on (a run that starts and then fails ends
/// `failed` instead, with its events kept).
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The store refused (the run's committed steps are kept).
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Only a paused (or interrupted) run can be resumed.
    #[error("run '{0}' is {1} and cannot be resumed (only a paused run can)")]
    NotResumable(RunId, &'static str),
    /// The run waits for a person to allow a tool call; a plain resume does not answer it.
    #[error("run '{run}' waits for your approval of a call of {tool} ({call_id}): allow or deny it")]
    AwaitsApproval { run: RunId, call_id: String, tool: String },
    /// The answered call is not the one the run waits on.
    #[error("run '{run}' does not wait for an approval of '{call_id}'{}", match waiting { Some(w) => format!(" (it waits for {w})"), None => " (it waits for none)".to_owned() })]
    NoSuchApproval { run: RunId, call_id: String, waiting: Option<String> },
    /// Someone else resumed the run first.
    #[error("run '{0}' is already being resumed")]
    Conflict(RunId),
    /// Another executor holds the run's lease ([`super::lease`]): it is running it.
    #[error("run '{run}' is being executed by {holder} until {}; it can be taken over if that worker stops", clock_time(*until))]
    Leased { run: RunId, holder: String, until: Timestamp },
    /// The run's lease was taken over while this leg ran it (the leg stalled past the
    /// lease's expiry): the leg stopped without storing another step.
    #[error(
        "run '{run}' was taken over by {holder} (its lease runs until {}) while {executor} was running it; {executor} stopped without storing another step",
        clock_time(*until)
    )]
    LeaseLost { run: RunId, executor: String, holder: String, until: Timestamp },
    /// The crew no longer has the agent the run is at.
    #[error("run '{run}' was at agent '{agent}', which the crew does not have any more")]
    AgentGone { run: RunId, agent: AgentId },
    /// The crew has nobody to start with.
    #[error("the crew's entry point '{0}' is not an agent")]
    NoEntryPoint(AgentId),
    /// The crew routes through a gatekeeper, and the run was given none.
    #[error("the crew routes through a gatekeeper service, and this run was not given one to ask")]
    NoGatekeeper,
}
