//! Everything a run does is a [`RunEvent`] (DESIGN.md §7): streamed to the window
//! and the CLI, stored, replayed. One closed enum, [`EventKind`], serialized with a
//! snake_case `type` first, then its fields, then `run_id`, `seq` and `timestamp`:
//!
//! ```json
//! {"type":"handoff","from":"teacher","to":"student","reason":"signal [QUESTION] (exact)","handoff_count":1,
//!  "run_id":"run-1","seq":7,"timestamp":"2026-11-22T10:15:00.000Z"}
//! ```

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::approval::ToolDecision;
use super::llm::Usage;
use super::time::Timestamp;
use crate::crew::Strategy;
use crate::ids::{AgentId, RunId, SignalName};
use crate::signal::{Behavior, MatchLevel, NearMiss};

/// Where a run stands. Every run ends in one of DESIGN.md §4's final statuses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum RunStatus {
    /// Still going (or stopped by a crash, and resumable).
    Running,
    /// A terminate signal matched.
    Terminated,
    /// A terminal agent finished.
    Completed,
    /// Waiting for the person; resumable.
    Paused,
    /// A transfer would have reached the handoff limit.
    MaxHandoffs,
    /// No signal matched and there was nowhere to fall back to.
    NoRoute,
    /// Three replies in a row without a signal (`on_no_signal: reprompt`).
    SignalFailure,
    /// A cycle of near-identical replies (`on_loop: stop`).
    LoopDetected,
    /// Stopped on request.
    Cancelled,
    /// An error ended it (the error is in `run_finished`).
    Failed,
}

impl RunStatus {
    /// The snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Running => "running",
            RunStatus::Terminated => "terminated",
            RunStatus::Completed => "completed",
            RunStatus::Paused => "paused",
            RunStatus::MaxHandoffs => "max_handoffs",
            RunStatus::NoRoute => "no_route",
            RunStatus::SignalFailure => "signal_failure",
            RunStatus::LoopDetected => "loop_detected",
            RunStatus::Cancelled => "cancelled",
            RunStatus::Failed => "failed",
        }
    }

    /// Parses the snake_case name.
    pub fn parse(text: &str) -> Option<RunStatus> {
        use RunStatus::*;
        [Running, Terminated, Completed, Paused, MaxHandoffs, NoRoute, SignalFailure, LoopDetected, Cancelled, Failed]
            .into_iter()
            .find(|s| s.as_str() == text)
    }

    /// True once the run will not go on by itself (paused runs can be resumed).
    pub fn is_final(self) -> bool {
        self != RunStatus::Running
    }
}

/// One candidate of a routing decision, with its score.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct Candidate {
    pub agent: AgentId,
    pub score: u32,
}

/// What happened.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
#[ts(export)]
pub enum EventKind {
    /// The run began.
    RunStarted { crew: String, input: String },
    /// An agent's turn began (`step` counts turns from 1).
    AgentStarted { agent: AgentId, step: u32 },
    /// Part of an agent's reply, as it streams.
    Token { agent: AgentId, text: String },
    /// An agent asked for a tool.
    ToolCall {
        agent: AgentId,
        name: String,
        #[ts(type = "unknown")]
        arguments: serde_json::Value,
    },
    /// A tool's answer (or its error).
    ToolResult { agent: AgentId, name: String, result: String },
    /// A tool call waits for a person to allow it (its tool's policy is `ask`); the
    /// run stops `paused` until they answer.
    ToolApprovalRequested {
        agent: AgentId,
        /// This call's id in the run (`call-<its reply's place in the history>-<its place in the reply>`).
        call_id: String,
        name: String,
        #[ts(type = "unknown")]
        arguments: serde_json::Value,
    },
    /// The answer to a call waiting for approval.
    ToolApproval {
        call_id: String,
        decision: ToolDecision,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// A tool server's word on a call still going on (MCP progress).
    ToolProgress {
        agent: AgentId,
        name: String,
        progress: f64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        total: Option<f64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    },
    /// An agent's whole reply, with the tokens its turn used when the provider said
    /// (all its calls of the turn together; none in Simulate mode).
    AgentResponse {
        agent: AgentId,
        content: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        usage: Option<Usage>,
    },
    /// A signal of the agent's rules was found in its reply and acted on.
    SignalMatched {
        agent: AgentId,
        signal: SignalName,
        level: MatchLevel,
        behavior: Behavior,
        /// The agent or group it leads to; null for terminate (and a pause without one).
        target: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        payload: Option<String>,
    },
    /// None of the agent's signals routed its reply, but places of it came close
    /// (a misspelling, the words without brackets, another agent's signal), best
    /// first: emitted before `routing.on_no_signal` acts.
    RouteMissed { agent: AgentId, candidates: Vec<NearMiss> },
    /// The work moved: the delegation event. `reason` says why — the signal and its
    /// match level, the fallback, the score, or the router's reasoning.
    Handoff { from: AgentId, to: String, reason: String, handoff_count: u32 },
    /// A router chose (the `scoring`, `llm` and `gatekeeper` strategies).
    RoutingDecision {
        strategy: Strategy,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        candidates: Option<Vec<Candidate>>,
        chosen: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reasoning: Option<String>,
        /// Scoring: the request's words as the router saw them.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tokens: Option<Vec<String>>,
    },
    /// A parallel group started.
    ParallelStarted { group: String, agents: Vec<AgentId> },
    /// A parallel group ended: who finished in time, who did not.
    ParallelFinished { group: String, finished: Vec<AgentId>, timed_out: Vec<AgentId> },
    /// The history was longer than the agent's context budget: the oldest turns after
    /// the first message were left out of its request.
    HistoryTrimmed { agent: AgentId, dropped: u32 },
    /// The run waits for the person.
    Paused {
        agent: AgentId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signal: Option<SignalName>,
        /// It pauses before `agent`'s turn (a breakpoint, or one turn stepped), not
        /// after a reply: resuming gives `agent` its turn, words optional.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        breakpoint: bool,
    },
    /// The agents the run pauses before (at its start, or changed by a resume).
    BreakpointsSet { agents: Vec<AgentId> },
    /// The person answered; the run goes on with `agent`.
    Resumed { agent: AgentId, input: String },
    /// Something worth knowing that does not stop the run.
    Warning { message: String },
    /// The recent transfers repeat a cycle with (nearly) the same replies.
    LoopDetected { agents: Vec<AgentId>, repeats: u32 },
    /// The run ended (or paused): its status, the last agent, the error if it failed.
    RunFinished {
        status: RunStatus,
        final_agent: Option<AgentId>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
        handoffs: u32,
        steps: u32,
    },
}

impl EventKind {
    /// The `type` name (`run_started`, `handoff` …).
    pub fn type_name(&self) -> &'static str {
        match self {
            EventKind::RunStarted { .. } => "run_started",
            EventKind::AgentStarted { .. } => "agent_started",
            EventKind::Token { .. } => "token",
            EventKind::ToolCall { .. } => "tool_call",
            EventKind::ToolResult { .. } => "tool_result",
            EventKind::ToolProgress { .. } => "tool_progress",
            EventKind::ToolApprovalRequested { .. } => "tool_approval_requested",
            EventKind::ToolApproval { .. } => "tool_approval",
            EventKind::AgentResponse { .. } => "agent_response",
            EventKind::SignalMatched { .. } => "signal_matched",
            EventKind::RouteMissed { .. } => "route_missed",
            EventKind::Handoff { .. } => "handoff",
            EventKind::RoutingDecision { .. } => "routing_decision",
            EventKind::ParallelStarted { .. } => "parallel_started",
            EventKind::ParallelFinished { .. } => "parallel_finished",
            EventKind::HistoryTrimmed { .. } => "history_trimmed",
            EventKind::Paused { .. } => "paused",
            EventKind::BreakpointsSet { .. } => "breakpoints_set",
            EventKind::Resumed { .. } => "resumed",
            EventKind::Warning { .. } => "warning",
            EventKind::LoopDetected { .. } => "loop_detected",
            EventKind::RunFinished { .. } => "run_finished",
        }
    }
}

/// An event of one run: what happened, the run, its place in the run, when.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct RunEvent {
    #[serde(flatten)]
    pub kind: EventKind,
    pub run_id: RunId,
    /// 0, 1, 2 … within the run, without gaps.
    #[ts(type = "number")]
    pub seq: u64,
    pub timestamp: Timestamp,
}

/// `kinds` as the events of run `run-1`, numbered from seq 0, at time 0: the
/// events a test of code that reads a run's events starts from.
#[cfg(test)]
pub(crate) fn numbered(kinds: Vec<EventKind>) -> Vec<RunEvent> {
    kinds
        .into_iter()
        .enumerate()
        .map(|(seq, kind)| RunEvent { kind, run_id: RunId::from("run-1"), seq: seq as u64, timestamp: Timestamp(0) })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_serialize_with_the_type_first_and_design_names() {
        let event = RunEvent {
            kind: EventKind::Handoff {
                from: AgentId::from("teacher"),
                to: "student".into(),
                reason: "signal [QUESTION] (exact)".into(),
                handoff_count: 1,
            },
            run_id: RunId::from("run-1"),
            seq: 7,
            timestamp: Timestamp(1_795_000_000_000),
        };
        let json = serde_json::to_string(&event).unwrap();
        assert_eq!(
            json,
            r#"{"type":"handoff","from":"teacher","to":"student","reason":"signal [QUESTION] (exact)","handoff_count":1,"run_id":"run-1","seq":7,"timestamp":"2026-11-18T11:06:40.000Z"}"#
        );
        assert_eq!(serde_json::from_str::<RunEvent>(&json).unwrap(), event);
    }

    #[test]
    fn optional_fields_are_left_out_when_absent() {
        let kind = EventKind::RunFinished {
            status: RunStatus::MaxHandoffs,
            final_agent: Some(AgentId::from("a")),
            error: None,
            handoffs: 4,
            steps: 5,
        };
        let json = serde_json::to_value(&kind).unwrap();
        assert_eq!(json["type"], "run_finished");
        assert_eq!(json["status"], "max_handoffs");
        assert!(json.get("error").is_none());
        assert_eq!(kind.type_name(), "run_finished");
    }

    #[test]
    fn statuses_round_trip_their_names() {
        for status in [
            "running",
            "terminated",
            "completed",
            "paused",
            "max_handoffs",
            "no_route",
            "signal_failure",
            "loop_detected",
            "cancelled",
            "failed",
        ] {
            assert_eq!(RunStatus::parse(status).unwrap().as_str(), status);
        }
    }
}
