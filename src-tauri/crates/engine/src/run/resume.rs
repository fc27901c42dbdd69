//! Going on with a stored run (DESIGN.md §4): a paused run with the person's answer,
//! an interrupted one from its last stored step, or one waiting for a tool call's
//! approval with the person's decision (`docs/tools.md`). Each leg first takes the
//! run's lease when it has an executor ([`super::lease`]), then claims the run, so
//! no two go on at once.

use tokio_util::sync::CancellationToken;

use super::approval::{self, Answer};
use super::breakpoints;
use super::driver::{check_deps, CrewSource, Run, RunDeps, RunOutcome};
use super::error::RunError;
use super::event::{EventKind, RunEvent, RunStatus};
use super::lease::take_lease;
use super::message::Message;
use super::store::StoreError;
use crate::crew::Crew;
use crate::ids::RunId;

/// Resumes a paused run with the person's `input` — or a run whose process
/// stopped mid-way (status still running), from its last stored step. A run waiting
/// for a tool call's approval is refused: it goes on with [`answer_tool_call`].
pub async fn resume_run(
    crew: &Crew,
    source: &CrewSource,
    id: &RunId,
    input: Option<&str>,
    deps: &RunDeps,
    cancel: &CancellationToken,
) -> Result<RunOutcome, RunError> {
    let mut run = resuming(crew, source, id, input, &[RunStatus::Paused, RunStatus::Running], deps, cancel).await?;
    run.notices();
    run.drive().await
}

/// A resume's leg, opened: the run (whose status must be one of `statuses`)
/// leased (when `deps` name an executor) and claimed, and the events that open the
/// leg emitted (not stored yet).
pub(crate) async fn resuming<'a>(
    crew: &'a Crew,
    source: &CrewSource,
    id: &RunId,
    input: Option<&str>,
    statuses: &[RunStatus],
    deps: &'a RunDeps,
    cancel: &'a CancellationToken,
) -> Result<Run<'a>, RunError> {
    let (mut run, from, _) = reopen(crew, source, id, None, statuses, deps, cancel).await?;
    if from == RunStatus::Running {
        run.event(EventKind::Warning { message: INTERRUPTED.into() });
    }
    let input = input.unwrap_or_default();
    run.event(EventKind::Resumed { agent: run.snapshot.current_agent.clone(), input: input.to_owned() });
    if !input.is_empty() {
        run.add(Message::user(input));
    }
    Ok(run)
}

/// What a leg going on with an interrupted run says first.
pub(crate) const INTERRUPTED: &str = "this run was interrupted; it goes on from its last stored step";

/// Goes on with a run waiting for a tool call's approval: `answer` allows the call
/// (once, or for the rest of the run) or denies it, and the agent's turn goes on.
pub async fn answer_tool_call(
    crew: &Crew,
    source: &CrewSource,
    id: &RunId,
    answer: Answer,
    deps: &RunDeps,
    cancel: &CancellationToken,
) -> Result<RunOutcome, RunError> {
    let mut run = answering(crew, source, id, answer, &[RunStatus::Paused, RunStatus::Running], deps, cancel).await?;
    run.notices();
    run.drive().await
}

/// An answer's leg, opened as [`resuming`] opens a resume's.
pub(crate) async fn answering<'a>(
    crew: &'a Crew,
    source: &CrewSource,
    id: &RunId,
    answer: Answer,
    statuses: &[RunStatus],
    deps: &'a RunDeps,
    cancel: &'a CancellationToken,
) -> Result<Run<'a>, RunError> {
    let (mut run, _, _) = reopen(crew, source, id, Some(&answer.call_id), statuses, deps, cancel).await?;
    run.event(EventKind::ToolApproval { call_id: answer.call_id.clone(), decision: answer.decision, reason: answer.reason.clone() });
    run.event(EventKind::Resumed { agent: run.snapshot.current_agent.clone(), input: String::new() });
    run.answer = Some(answer);
    Ok(run)
}

/// A stored run made ready to go on (leased to the leg's executor, if any, before
/// it is read, and claimed, so no other leg runs at once), and the status it was
/// stored with, which must be one of `statuses` (paused or running). `answering` is
/// the call a person answers: the run must wait on exactly that one; without it, the
/// run must wait on none. Also the run's stored events, as they were read. A leg
/// that does not go on lets the lease go at once.
pub(crate) async fn reopen<'a>(
    crew: &'a Crew,
    source: &CrewSource,
    id: &RunId,
    answering: Option<&str>,
    statuses: &[RunStatus],
    deps: &'a RunDeps,
    cancel: &'a CancellationToken,
) -> Result<(Run<'a>, RunStatus, Vec<RunEvent>), RunError> {
    check_deps(crew, deps)?;
    let lease = take_lease(id, deps).await?;
    match ready(crew, source, id, answering, statuses, deps, cancel).await {
        Ok((mut run, from, events)) => {
            run.lease = lease;
            Ok((run, from, events))
        }
        Err(error) => {
            if let Some(lease) = lease {
                lease.release().await;
            }
            Err(error)
        }
    }
}

/// [`reopen`] once the leg holds the run's lease (or needs none).
async fn ready<'a>(
    crew: &'a Crew,
    source: &CrewSource,
    id: &RunId,
    answering: Option<&str>,
    statuses: &[RunStatus],
    deps: &'a RunDeps,
    cancel: &'a CancellationToken,
) -> Result<(Run<'a>, RunStatus, Vec<RunEvent>), RunError> {
    let stored = deps.store.load_run(id).await?.ok_or_else(|| StoreError::NoSuchRun(id.clone()))?;
    let from = stored.snapshot.status;
    if !statuses.contains(&from) {
        return Err(RunError::NotResumable(id.clone(), from.as_str()));
    }
    if crew.agent(stored.snapshot.current_agent.as_str()).is_none() {
        return Err(RunError::AgentGone { run: id.clone(), agent: stored.snapshot.current_agent.clone() });
    }
    let events = deps.store.events(id, None).await?;
    let waiting = approval::pending(&events).filter(|_| from == RunStatus::Paused);
    match (answering, &waiting) {
        (None, Some(waiting)) => {
            return Err(RunError::AwaitsApproval { run: id.clone(), call_id: waiting.call_id.clone(), tool: waiting.name.clone() })
        }
        (Some(call_id), None) => return Err(RunError::NoSuchApproval { run: id.clone(), call_id: call_id.to_owned(), waiting: None }),
        (Some(call_id), Some(waiting)) if waiting.call_id != call_id => {
            return Err(RunError::NoSuchApproval { run: id.clone(), call_id: call_id.to_owned(), waiting: Some(waiting.call_id.clone()) })
        }
        _ => {}
    }
    // A paused run is claimed (of two resumes, one moves it); a running one is whose
    // lease this leg holds, or nobody's — a claim from running to running would move nothing.
    if from != RunStatus::Running && !deps.store.claim(id, &[from]).await? {
        return Err(RunError::Conflict(id.clone()));
    }
    let mut snapshot = stored.snapshot;
    snapshot.status = RunStatus::Running;
    snapshot.error = None;
    let mut run = Run::new(crew, deps, cancel, id.clone(), snapshot, stored.history);
    run.allowed_for_run = approval::allowed_for_run(&events);
    run.breakpoints = breakpoints::set_in(&events);
    run.released = from == RunStatus::Paused && breakpoints::held(&events);
    run.step_once = deps.breaks.step;
    if run.decider.is_some() {
        // The router is shown every turn so far, with its time: the stored events have them.
        run.workflow = super::routed::workflow(&events);
    }
    if let Some(before) = deps.breaks.before.clone().filter(|b| *b != run.breakpoints) {
        run.event(EventKind::BreakpointsSet { agents: before.clone() });
        run.breakpoints = before;
    }
    if stored.record.crew_fingerprint != source.fingerprint {
        run.event(EventKind::Warning { message: "the crew changed since this run stopped; it goes on with the crew as it is now".into() });
    }
    Ok((run, from, events))
}
