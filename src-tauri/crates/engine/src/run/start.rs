//! How a run begins (DESIGN.md §4): its record and first step — the `run_started`
//! event, the breakpoints it was given, the person's input in its history — built by
//! [`Run::starting`] and stored before the first agent's turn. [`start_run`] then
//! drives it in the same process; [`super::queued::open_start`] stores it for another
//! process to drive.

use tokio_util::sync::CancellationToken;

use super::driver::{check_deps, CrewSource, Run, RunDeps, RunOutcome};
use super::error::RunError;
use super::event::EventKind;
use super::message::Message;
use super::store::{RunRecord, RunSnapshot};
use crate::crew::Crew;
use crate::ids::AgentId;

/// Starts a run of `crew` (which must have validated without errors) on `input`
/// and drives it until it ends or pauses.
pub async fn start_run(
    crew: &Crew,
    source: &CrewSource,
    input: &str,
    deps: &RunDeps,
    cancel: &CancellationToken,
) -> Result<RunOutcome, RunError> {
    start_run_for(crew, source, input, None, deps, cancel).await
}

/// [`start_run`] with an agent the person asked for (`requested_agent_id`): under
/// the `scoring` strategy it wins the supervisor's decision when it is a candidate.
pub async fn start_run_for(
    crew: &Crew,
    source: &CrewSource,
    input: &str,
    requested: Option<&AgentId>,
    deps: &RunDeps,
    cancel: &CancellationToken,
) -> Result<RunOutcome, RunError> {
    let (mut run, record) = Run::starting(crew, source, input, requested, deps, cancel)?;
    run.notices();
    let first = run.take_step();
    deps.store.create_run(&record, &first).await?;
    deps.sink.committed_events(first.events);
    run.lease = super::lease::take_lease(&run.id, deps).await?;
    run.drive().await
}

impl<'a> Run<'a> {
    /// A new run of `crew` on `input`, with the events of its start and the person's
    /// input in its history, and the record it is stored with — nothing stored yet.
    pub(crate) fn starting(
        crew: &'a Crew,
        source: &CrewSource,
        input: &str,
        requested: Option<&AgentId>,
        deps: &'a RunDeps,
        cancel: &'a CancellationToken,
    ) -> Result<(Run<'a>, RunRecord), RunError> {
        if crew.agent(crew.entry_point.as_str()).is_none() {
            return Err(RunError::NoEntryPoint(crew.entry_point.clone()));
        }
        check_deps(crew, deps)?;
        let id = deps.ids.run_id();
        let now = deps.clock.now();
        let record = RunRecord {
            id: id.clone(),
            crew_name: crew.name.clone(),
            crew_path: source.path.clone(),
            crew_fingerprint: source.fingerprint.clone(),
            input: input.to_owned(),
            created_at: now,
            forked_from: deps.fork.as_ref().map(|fork| fork.from.clone()),
        };
        let snapshot = RunSnapshot::starting(crew.entry_point.clone(), now);
        let mut run = Run::new(crew, deps, cancel, id, snapshot, Vec::new());
        run.requested = requested.cloned();
        run.event(EventKind::RunStarted { crew: crew.name.clone(), input: input.to_owned() });
        if let Some(before) = deps.breaks.before.clone().filter(|b| !b.is_empty()) {
            run.event(EventKind::BreakpointsSet { agents: before.clone() });
            run.breakpoints = before;
        }
        run.step_once = deps.breaks.step;
        run.add(Message::user(input));
        Ok((run, record))
    }
}
