//! Runs executed by another process than the one that was asked (docs/scale-out.md):
//! an API node stores the step that **opens** a leg — a new run's first step, a
//! resume with the person's answer, a person's decision on a tool call — together
//! with how the leg is to be executed ([`super::StepRecord::options`], opaque to the
//! engine), and only then hands the run to a queue. A worker then **goes on** from
//! that stored step ([`continue_run`]) exactly as the leg would have gone on in the
//! process that opened it: the same events, in the same order, with the same seqs.
//!
//! The store is the truth: a run opened so is `running` and held by nobody, so it
//! is one of [`super::RunStore::runnable`]'s, and a sweeper enqueues it again should
//! its queue entry be lost. A worker that died mid-leg leaves the run `running`
//! with its lease running out; the next worker to go on with it says so (a
//! `warning` and a `resumed` event, as `crewgraph resume` of an interrupted run
//! does) and goes on from the last stored step.
//!
//! The notices of how a run is made (the local model standing in for a missing
//! one) are the executor's: they are emitted when the leg goes on, not when it
//! opens — in the same place of the run's events as a process that did both.

use tokio_util::sync::CancellationToken;

use super::approval::Answer;
use super::driver::{CrewSource, Run, RunDeps, RunOutcome};
use super::error::RunError;
use super::event::{EventKind, RunEvent, RunStatus};
use super::resume::{answering, reopen, resuming, INTERRUPTED};
use crate::crew::Crew;
use crate::ids::{AgentId, RunId};

/// Stores a new run's first step with how it is to be executed (`options`), for
/// another executor to go on with it; the run's id. Nothing is executed here.
pub async fn open_start(
    crew: &Crew,
    source: &CrewSource,
    input: &str,
    requested: Option<&AgentId>,
    deps: &RunDeps,
    options: String,
) -> Result<RunId, RunError> {
    let cancel = CancellationToken::new();
    let (mut run, record) = Run::starting(crew, source, input, requested, deps, &cancel)?;
    let mut first = run.take_step();
    first.options = Some(options);
    deps.store.create_run(&record, &first).await?;
    deps.sink.committed_events(first.events);
    Ok(record.id)
}

/// Stores the opening of a resume of paused run `id` (see [`super::resume_run`])
/// with how the leg is to be executed, for another executor to go on with it. A run
/// that is running (queued, executed, or opened by another resume a moment ago) is
/// refused ([`RunError::NotResumable`]): of two resumes of one paused run, one
/// opens it.
pub async fn open_resume(
    crew: &Crew,
    source: &CrewSource,
    id: &RunId,
    input: Option<&str>,
    deps: &RunDeps,
    options: String,
) -> Result<(), RunError> {
    let cancel = CancellationToken::new();
    let run = resuming(crew, source, id, input, &[RunStatus::Paused], deps, &cancel).await?;
    stand_by(run, options).await
}

/// Stores a person's answer to the tool call paused run `id` waits on (see
/// [`super::answer_tool_call`]) with how the leg is to be executed, for another
/// executor to go on with it; refused as [`open_resume`] refuses.
pub async fn open_answer(
    crew: &Crew,
    source: &CrewSource,
    id: &RunId,
    answer: Answer,
    deps: &RunDeps,
    options: String,
) -> Result<(), RunError> {
    let cancel = CancellationToken::new();
    let run = answering(crew, source, id, answer, &[RunStatus::Paused], deps, &cancel).await?;
    stand_by(run, options).await
}

/// Stores an opened leg's step and lets the run go: `running`, held by nobody.
async fn stand_by(mut run: Run<'_>, options: String) -> Result<(), RunError> {
    let mut step = run.take_step();
    step.options = Some(options);
    let stored = run.deps.store.append_step(&step).await;
    if let Some(lease) = run.lease.take() {
        lease.release().await;
    }
    stored?;
    run.deps.sink.committed_events(step.events);
    Ok(())
}

/// Goes on with run `id`, whose leg another process opened (or whose executor
/// stopped mid-leg), from its last stored step, until it ends or pauses. Only a
/// `running` run goes on: one that is paused or has ended is refused
/// ([`RunError::NotResumable`]), and one another executor holds is refused
/// ([`RunError::Leased`]) — its queue entry is stale, or a duplicate.
/// `requested`: under `scoring`, the agent the person asked for when the run
/// started.
pub async fn continue_run(
    crew: &Crew,
    source: &CrewSource,
    id: &RunId,
    requested: Option<&AgentId>,
    deps: &RunDeps,
    cancel: &CancellationToken,
) -> Result<RunOutcome, RunError> {
    let (mut run, _, events) = reopen(crew, source, id, None, &[RunStatus::Running], deps, cancel).await?;
    let opening = Opening::of(&events);
    run.requested = requested.cloned();
    if opening.begun {
        run.event(EventKind::Warning { message: INTERRUPTED.into() });
        run.event(EventKind::Resumed { agent: run.snapshot.current_agent.clone(), input: String::new() });
    } else {
        run.released = opening.released;
        run.answer = opening.answer;
    }
    run.notices();
    run.drive().await
}

/// What the last opened leg of a run left for its executor, read from its events.
#[derive(Debug, Default, PartialEq)]
struct Opening {
    /// A step of the leg was stored after its opening: its executor stopped mid-leg.
    begun: bool,
    /// The leg resumed a pause before an agent's turn: that agent's turn comes now.
    released: bool,
    /// The person's answer to the tool call the run waited on, not yet acted on.
    answer: Option<Answer>,
}

impl Opening {
    fn of(events: &[RunEvent]) -> Opening {
        let Some(at) = events.iter().rposition(|e| matches!(e.kind, EventKind::RunStarted { .. } | EventKind::Resumed { .. })) else {
            return Opening::default();
        };
        let begun = events[at + 1..].iter().any(|e| !matches!(e.kind, EventKind::Warning { .. } | EventKind::BreakpointsSet { .. }));
        if begun {
            return Opening { begun, ..Opening::default() };
        }
        let before = &events[..at];
        let answer = match before.last().map(|e| &e.kind) {
            Some(EventKind::ToolApproval { call_id, decision, reason }) => {
                Some(Answer { call_id: call_id.clone(), decision: *decision, reason: reason.clone() })
            }
            _ => None,
        };
        let released = matches!(events[at].kind, EventKind::Resumed { .. }) && answer.is_none() && super::breakpoints::held(before);
        Opening { begun, released, answer }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::approval::ToolDecision;
    use crate::run::Timestamp;

    fn events(kinds: Vec<EventKind>) -> Vec<RunEvent> {
        kinds
            .into_iter()
            .enumerate()
            .map(|(i, kind)| RunEvent { kind, run_id: RunId::from("r"), seq: i as u64, timestamp: Timestamp(0) })
            .collect()
    }

    fn agent(name: &str) -> AgentId {
        AgentId::from(name)
    }

    #[test]
    fn a_new_run_goes_on_from_its_start_with_nothing_left_over() {
        let started = events(vec![
            EventKind::RunStarted { crew: "c".into(), input: "go".into() },
            EventKind::BreakpointsSet { agents: vec![agent("b")] },
        ]);
        assert_eq!(Opening::of(&started), Opening::default());
    }

    #[test]
    fn a_leg_with_a_turn_stored_after_its_opening_was_interrupted() {
        let begun = events(vec![
            EventKind::RunStarted { crew: "c".into(), input: "go".into() },
            EventKind::AgentStarted { agent: agent("a"), step: 1 },
        ]);
        assert_eq!(Opening::of(&begun), Opening { begun: true, ..Opening::default() });
    }

    #[test]
    fn a_resume_of_a_pause_before_a_turn_releases_that_turn() {
        let resumed = events(vec![
            EventKind::RunStarted { crew: "c".into(), input: "go".into() },
            EventKind::Paused { agent: agent("a"), signal: None, breakpoint: true },
            EventKind::Resumed { agent: agent("a"), input: String::new() },
        ]);
        assert_eq!(Opening::of(&resumed), Opening { released: true, ..Opening::default() });
        let answered = events(vec![
            EventKind::RunStarted { crew: "c".into(), input: "go".into() },
            EventKind::Paused { agent: agent("a"), signal: Some("ASK".into()), breakpoint: false },
            EventKind::Resumed { agent: agent("a"), input: "yes".into() },
        ]);
        assert_eq!(Opening::of(&answered), Opening::default());
    }

    #[test]
    fn a_decision_on_a_tool_call_is_handed_to_the_leg_that_goes_on() {
        let decided = events(vec![
            EventKind::RunStarted { crew: "c".into(), input: "go".into() },
            EventKind::ToolApprovalRequested {
                agent: agent("a"),
                call_id: "call-1".into(),
                name: "files.write".into(),
                arguments: serde_json::json!({}),
            },
            EventKind::ToolApproval { call_id: "call-1".into(), decision: ToolDecision::Deny, reason: Some("no".into()) },
            EventKind::Resumed { agent: agent("a"), input: String::new() },
        ]);
        let answer = Answer { call_id: "call-1".into(), decision: ToolDecision::Deny, reason: Some("no".into()) };
        assert_eq!(Opening::of(&decided), Opening { answer: Some(answer), ..Opening::default() });
    }
}
