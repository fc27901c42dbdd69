//! A person in the loop for tool calls (`docs/tools.md`): a call of a tool whose
//! policy is `ask` waits for a person to allow it. The wait is durable: the run
//! stops `paused` at that call with a `tool_approval_requested {agent, call_id,
//! name, arguments}` event, every step before it stored; the answer — allow once,
//! allow for the rest of the run, or deny with a reason — is a `tool_approval
//! {call_id, decision, reason?}` event at the start of the run's next leg, which
//! makes the call (or tells the agent it may not) and goes on with the agent's turn.
//! Nothing but the stored events says what waits, so a run killed while it waits is
//! picked up by its next resume like any other.
//!
//! Without a person at hand (`crewgraph run --approve-tools`), [`Approvals`] answers
//! at once, and the events still say who decided.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::event::{EventKind, RunEvent};
use crate::ids::AgentId;

/// A person's answer to a tool call waiting for approval.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum ToolDecision {
    /// This call, once.
    AllowOnce,
    /// This call and every later call of the same tool in this run.
    AllowRun,
    /// Not this call: the agent is told it may not, and the run goes on.
    Deny,
}

impl ToolDecision {
    /// `allow_once`, `allow_run`, `deny`.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolDecision::AllowOnce => "allow_once",
            ToolDecision::AllowRun => "allow_run",
            ToolDecision::Deny => "deny",
        }
    }
}

/// Who answers a call waiting for approval.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Approvals {
    /// A person: the run waits for them.
    #[default]
    Person,
    /// Everything is allowed (`--approve-tools all`).
    All,
    /// Tools their server marks read-only are allowed, the rest denied
    /// (`--approve-tools read-only`).
    ReadOnly,
    /// Everything is denied (`--approve-tools none`).
    Nothing,
}

impl Approvals {
    /// The answer without a person (None: a person answers), and the words saying
    /// who decided.
    pub fn answer(self, read_only: bool) -> Option<(ToolDecision, &'static str)> {
        match self {
            Approvals::Person => None,
            Approvals::All => Some((ToolDecision::AllowOnce, "allowed by --approve-tools all")),
            Approvals::ReadOnly if read_only => Some((ToolDecision::AllowOnce, "allowed by --approve-tools read-only")),
            Approvals::ReadOnly => Some((ToolDecision::Deny, "denied by --approve-tools read-only: it can change things")),
            Approvals::Nothing => Some((ToolDecision::Deny, "denied by --approve-tools none")),
        }
    }
}

/// A tool call waiting for approval, as its event said.
#[derive(Clone, Debug, PartialEq)]
pub struct Pending {
    pub agent: AgentId,
    pub call_id: String,
    pub name: String,
    pub arguments: serde_json::Value,
}

/// The person's answer to the call `call_id`.
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    pub call_id: String,
    pub decision: ToolDecision,
    pub reason: Option<String>,
}

/// The call a run waits on, if any: the last one asked about and not yet answered.
pub fn pending(events: &[RunEvent]) -> Option<Pending> {
    let mut waiting: Option<Pending> = None;
    for event in events {
        match &event.kind {
            EventKind::ToolApprovalRequested { agent, call_id, name, arguments } => {
                waiting =
                    Some(Pending { agent: agent.clone(), call_id: call_id.clone(), name: name.clone(), arguments: arguments.clone() });
            }
            EventKind::ToolApproval { call_id, .. } if waiting.as_ref().is_some_and(|w| &w.call_id == call_id) => waiting = None,
            _ => {}
        }
    }
    waiting
}

/// The tools a person allowed for the rest of the run so far.
pub fn allowed_for_run(events: &[RunEvent]) -> HashSet<String> {
    let mut asked = std::collections::HashMap::new();
    let mut allowed = HashSet::new();
    for event in events {
        match &event.kind {
            EventKind::ToolApprovalRequested { call_id, name, .. } => {
                asked.insert(call_id.clone(), name.clone());
            }
            EventKind::ToolApproval { call_id, decision: ToolDecision::AllowRun, .. } => {
                if let Some(name) = asked.get(call_id) {
                    allowed.insert(name.clone());
                }
            }
            _ => {}
        }
    }
    allowed
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn events(kinds: Vec<EventKind>) -> Vec<RunEvent> {
        crate::run::event::numbered(kinds)
    }

    fn asked(call_id: &str, name: &str) -> EventKind {
        EventKind::ToolApprovalRequested { agent: AgentId::from("w"), call_id: call_id.into(), name: name.into(), arguments: json!({}) }
    }

    fn answered(call_id: &str, decision: ToolDecision) -> EventKind {
        EventKind::ToolApproval { call_id: call_id.into(), decision, reason: None }
    }

    #[test]
    fn the_last_call_asked_about_and_not_answered_waits() {
        assert_eq!(pending(&[]), None);
        let one = events(vec![asked("call-3", "files.write_file")]);
        assert_eq!(pending(&one).map(|p| p.call_id), Some("call-3".into()));
        let done = events(vec![asked("call-3", "files.write_file"), answered("call-3", ToolDecision::Deny)]);
        assert_eq!(pending(&done), None);
        let again = events(vec![asked("call-3", "a.b"), answered("call-3", ToolDecision::AllowRun), asked("call-9", "a.c")]);
        assert_eq!(pending(&again).map(|p| p.name), Some("a.c".into()));
        assert_eq!(allowed_for_run(&again), HashSet::from(["a.b".to_owned()]));
    }

    #[test]
    fn without_a_person_the_flag_decides_and_says_so() {
        assert_eq!(Approvals::Person.answer(true), None);
        assert_eq!(Approvals::All.answer(false).map(|a| a.0), Some(ToolDecision::AllowOnce));
        assert_eq!(Approvals::ReadOnly.answer(true).map(|a| a.0), Some(ToolDecision::AllowOnce));
        assert_eq!(Approvals::ReadOnly.answer(false).map(|a| a.0), Some(ToolDecision::Deny));
        assert_eq!(Approvals::Nothing.answer(true).map(|a| a.0), Some(ToolDecision::Deny));
    }
}
