//! Forking a stored run at one of its replies (issue 18, item 3; `crewgraph fork`,
//! `POST /runs/{id}/fork`): a new run of the same crew on the same input, whose turns
//! before the fork point are given again from the stored run — no model asked, no
//! tool called twice ([`crewgraph_engine::run::replay`]) — the reply at the fork
//! point replaced by the person's, and the rest run on the chosen model or in
//! Simulate. The new run is stored as the first's child (`forked_from`).
//!
//! What is refused, in words: a seq that is no reply of the run (the replies' seqs
//! are named), a run still going on, a crew routed by a model or a service (their
//! decisions are not replayed yet), and a crew file changed since the run (unless the
//! fork is made on the revision the run ran, `on_revision`).

use std::path::Path;
use std::sync::Arc;

use crewgraph_engine::crew::Strategy;
use crewgraph_engine::load::load_spec_value;
use crewgraph_engine::run::{
    start_run_for, EventKind, EventSink, Fork, ForkPoint, Message, Replay, Replaying, Role, RunOutcome, RunStatus,
};
use crewgraph_engine::{Crew, RunId};
use tokio_util::sync::CancellationToken;

use super::runs::replies_used;
use super::{Api, ApiError, ApiErrorCode, RunOptions};

/// Where to fork a run, and with what.
#[derive(Clone, Debug)]
pub struct ForkAt {
    /// The seq of the reply to replace (an `agent_response` event's).
    pub seq: u64,
    /// The reply the agent gives instead.
    pub reply: String,
    /// Fork on the revision of the crew the run ran, not the crew file as it is now.
    pub on_revision: bool,
}

impl Api {
    /// Forks run `id` at `at` and runs the fork to its end (or a pause); see the module.
    pub async fn fork_run(
        &self,
        id: &RunId,
        at: &ForkAt,
        options: &RunOptions,
        sink: Arc<dyn EventSink>,
        cancel: &CancellationToken,
    ) -> Result<RunOutcome, ApiError> {
        let stored = self.stored_run(id).await?;
        if stored.snapshot.status == RunStatus::Running && self.is_live(id) {
            return Err(ApiError::new(ApiErrorCode::Conflict, format!("run '{id}' is still going on: fork it once it has stopped")));
        }
        let events = self.store()?.events(id, None).await?;
        let Some(at_event) = events.iter().position(|e| e.seq == at.seq) else {
            let last = events.last().map_or(0, |e| e.seq);
            return Err(invalid(format!("run '{id}' has no event {} (its events go from 0 to {last}){}", at.seq, replies_hint(&events))));
        };
        let EventKind::AgentResponse { agent, .. } = &events[at_event].kind else {
            let what = events[at_event].kind.type_name();
            return Err(invalid(format!("event {} of run '{id}' is no agent's reply (it is a {what}){}", at.seq, replies_hint(&events))));
        };
        let nth = events[..=at_event].iter().filter(|e| matches!(&e.kind, EventKind::AgentResponse { agent: a, .. } if a == agent)).count();
        let fork = final_reply(&stored.history, agent.as_str(), nth).ok_or_else(|| {
            ApiError::new(ApiErrorCode::Store, format!("run '{id}' keeps no message for {agent}'s reply at event {}", at.seq))
        })?;
        let path = stored.record.crew_path.clone().ok_or_else(|| invalid(format!("run '{id}' does not say which crew file it ran")))?;
        let (crew, source) = self.crew_to_run(Path::new(&path)).await?;
        let (crew, source) = if source.fingerprint == stored.record.crew_fingerprint {
            (crew, source)
        } else if at.on_revision {
            let revision = self.revision_ran(&stored.record).await.ok_or_else(|| {
                invalid(format!("the crew file changed since run '{id}' ran, and the version it ran was not kept, so it cannot be forked"))
            })?;
            let kept = self.revision_spec(Path::new(&path), revision).await?;
            let loaded = load_spec_value(&path, &kept.spec).map_err(|e| invalid(e.to_string()))?;
            let crew = loaded.crew.filter(|_| loaded.diagnostics.iter().all(|d| !d.is_error())).ok_or_else(|| {
                ApiError::new(ApiErrorCode::InvalidCrew, format!("revision {revision} of the crew has errors and cannot run"))
            })?;
            (crew, crewgraph_engine::run::CrewSource { path: source.path, fingerprint: stored.record.crew_fingerprint.clone() })
        } else {
            let revision = self.revision_ran(&stored.record).await;
            let offer = match revision {
                Some(n) => format!(": fork it on the version it ran (revision {n}) with --on-revision (on_revision: true)"),
                None => " (and the version it ran was not kept)".to_owned(),
            };
            return Err(invalid(format!("the crew file changed since run '{id}' ran, so its replies may not fit it{offer}")));
        };
        refuse_routed(&crew)?;
        let mut options = options.clone();
        if options.script.is_some() {
            // A script that is the whole run's goes on after what the fork gives again.
            options.used_replies = Some(replies_used(&events[..=at_event]));
        }
        let mut deps = self.deps(&crew, &options, sink).await?;
        let replay = Arc::new(Replay::of(&stored.history, fork, &at.reply));
        deps.llm = Arc::new(Replaying { replay: replay.clone(), then: deps.llm.clone() });
        deps.fork = Some(Fork { from: ForkPoint { run_id: id.clone(), seq: at.seq }, replay });
        let requested = None;
        Ok(start_run_for(&crew, &source, &stored.record.input, requested, &deps, cancel).await?)
    }
}

fn invalid(message: String) -> ApiError {
    ApiError::new(ApiErrorCode::InvalidInput, message)
}

/// "; its replies are at 3, 8, 14" — where a fork can be made.
fn replies_hint(events: &[crewgraph_engine::run::RunEvent]) -> String {
    let seqs: Vec<String> =
        events.iter().filter(|e| matches!(e.kind, EventKind::AgentResponse { .. })).map(|e| e.seq.to_string()).collect();
    if seqs.is_empty() {
        "; it has no agent's reply to fork at".to_owned()
    } else {
        format!("; its replies are at {}", seqs.join(", "))
    }
}

/// The place in `history` of `agent`'s `nth` (from 1) final reply: a message of its
/// with no tool calls, or whose calls no later message answers (a reply used as it
/// was after too many rounds of tools).
fn final_reply(history: &[Message], agent: &str, nth: usize) -> Option<usize> {
    let answered = |at: usize, id: &str| history[at + 1..].iter().any(|m| m.role == Role::Tool && m.tool_call_id.as_deref() == Some(id));
    history
        .iter()
        .enumerate()
        .filter(|(at, m)| {
            m.role == Role::Agent
                && m.agent.as_ref().is_some_and(|a| a == agent)
                && (m.tool_calls.is_empty() || !m.tool_calls.iter().any(|c| answered(*at, &c.id)))
        })
        .nth(nth.checked_sub(1)?)
        .map(|(at, _)| at)
}

/// A crew whose routing a model or a service decides cannot be forked yet: its
/// decisions are not given again.
fn refuse_routed(crew: &Crew) -> Result<(), ApiError> {
    match crew.routing.strategy {
        Strategy::Llm | Strategy::Gatekeeper => Err(invalid(format!(
            "'{}' is routed by {}: forking a run of it is not possible yet (its routing decisions are not given again)",
            crew.name,
            if crew.routing.strategy == Strategy::Llm { "a model" } else { "a service" }
        ))),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crewgraph_engine::run::ToolCall;
    use crewgraph_engine::AgentId;

    #[test]
    fn the_nth_final_reply_skips_replies_that_asked_for_tools() {
        let teacher = AgentId::from("teacher");
        let call = ToolCall { id: "c1".into(), name: "calculator".into(), arguments: serde_json::json!({}) };
        let mut asks = Message::agent(&teacher, "");
        asks.tool_calls.push(call.clone());
        let history = vec![
            Message::user("Begin."),
            asks,
            Message::tool(&teacher, &call, "3/4"),
            Message::agent(&teacher, "Q1"),
            Message::agent(&AgentId::from("student"), "A1"),
            Message::agent(&teacher, "Q2"),
        ];
        assert_eq!(final_reply(&history, "teacher", 1), Some(3));
        assert_eq!(final_reply(&history, "teacher", 2), Some(5));
        assert_eq!(final_reply(&history, "student", 1), Some(4));
        assert_eq!(final_reply(&history, "teacher", 3), None);
        assert_eq!(final_reply(&history, "teacher", 0), None);
    }
}
