//! Runs on many machines (docs/scale-out.md): an API whose runs are executed by
//! workers reading a queue ([`Cluster`]). It plays one of two parts:
//!
//! - an **API node** ([`Api::with_queue`]) opens each leg — stores a new run's first
//!   step, a resume's answer, a person's decision on a tool call, with how the leg
//!   is to be executed ([`LegOptions`]) — and only then adds the run to the queue.
//!   If the queue cannot take it, the run is kept all the same: it is runnable in
//!   the store, and a sweeper ([`Api::sweep`]) enqueues it. Runs a person drives
//!   turn by turn (typed replies, one turn at a time) stay on the node the person
//!   talks to.
//! - a **worker** ([`Api::as_worker`]) executes what the queue hands it
//!   ([`Api::execute_queued`]): the run's crew and options from the store, the
//!   engine's [`continue_run`], its lease held throughout.
//!
//! Both publish the live events of the legs they execute on the run's channel, so
//! a watcher on any API node follows any run ([`super::remote`]); a cancel reaches
//! the worker executing a run on the control channel.

use std::path::Path;
use std::sync::Arc;

use crewgraph_engine::run::{continue_run, open_answer, open_resume, open_start, Answer, NullSink, RunError, RunOutcome, RunStatus};
use crewgraph_engine::{AgentId, RunId};
use crewgraph_llm::Pace;
use crewgraph_queue::{run_channel, Job, JobKind, Listener, Publisher, RedisQueue, CONTROL};
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use super::{Api, ApiError, ApiErrorCode, RunOptions, ScriptSource};

/// The queue and the channels an API shares with the other machines.
#[derive(Debug)]
pub struct Cluster {
    queue: RedisQueue,
    publisher: Publisher,
    listener: Arc<Listener>,
}

impl Cluster {
    /// The cluster around `queue`; its publisher's and listener's tasks run on the
    /// current runtime.
    pub fn new(queue: RedisQueue) -> Arc<Cluster> {
        let publisher = Publisher::start(&queue);
        let listener = Listener::start(&queue);
        Arc::new(Cluster { queue, publisher, listener })
    }

    /// The queue of runs to execute.
    pub fn queue(&self) -> &RedisQueue {
        &self.queue
    }

    /// Where live messages are published.
    pub(crate) fn publisher(&self) -> &Publisher {
        &self.publisher
    }

    /// Where live messages are listened to.
    pub(crate) fn listener(&self) -> &Arc<Listener> {
        &self.listener
    }

    /// Publishes `events` of run `id`'s leg `leg` on the run's channel.
    pub(crate) fn publish_events<E: Serialize>(&self, leg: &str, id: &RunId, events: &[E]) {
        if let Ok(payload) = serde_json::to_string(&LegNews { leg, events }) {
            self.publisher.publish(run_channel(id.as_str()), payload);
        }
    }

    /// Asks whoever executes run `id` to publish again the events it has not stored
    /// yet, those after `after`: what a watcher that starts listening mid-step missed.
    pub(crate) fn ask_replay(&self, id: &RunId, after: Option<u64>) {
        let after = after.map_or_else(|| "-".to_owned(), |seq| seq.to_string());
        self.publisher.publish(CONTROL.to_owned(), format!("replay {id} {after}"));
    }
}

/// Which part an API plays in a cluster.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Part {
    /// It takes requests and hands runs to the queue.
    ApiNode,
    /// It executes the runs the queue hands it.
    Worker,
}

/// How a queued leg is to be executed, stored with the step that opens it (the
/// engine keeps it as text it does not read). Breakpoints are not here: the leg's
/// opening stored them as an event.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LegOptions {
    /// Simulate mode: the script's text (a script file is read when the leg opens,
    /// so the worker needs no copy of it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script: Option<String>,
    /// The model every agent uses instead of its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// `scoring`: the agent the person asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested_agent: Option<String>,
    #[serde(default)]
    pub pace: Pace,
    #[serde(default)]
    pub approvals: crewgraph_engine::run::Approvals,
    /// Go on for one turn, then pause before the next.
    #[serde(default)]
    pub step: bool,
}

impl LegOptions {
    /// The options of a leg a worker may execute; None for a leg a person drives
    /// turn by turn (typed replies, one turn at a time), which stays where it was asked.
    fn of(options: &RunOptions) -> Result<Option<LegOptions>, ApiError> {
        if options.typed.is_some() || options.stepper.is_some() || options.pace == Pace::Step {
            return Ok(None);
        }
        let script = match &options.script {
            None => None,
            Some(ScriptSource::Text(text)) => Some(text.clone()),
            Some(ScriptSource::File(path)) => Some(
                std::fs::read_to_string(path)
                    .map_err(|e| ApiError::new(ApiErrorCode::InvalidInput, format!("the script {} cannot be read: {e}", path.display())))?,
            ),
        };
        Ok(Some(LegOptions {
            script,
            model: options.model.clone(),
            requested_agent: options.requested_agent.clone(),
            pace: options.pace,
            approvals: options.approvals,
            step: options.breaks.step,
        }))
    }

    /// As text, for the store.
    fn text(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| "{}".to_owned())
    }

    /// The run options they stand for.
    fn options(&self) -> RunOptions {
        let mut options = RunOptions {
            script: self.script.clone().map(ScriptSource::Text),
            model: self.model.clone(),
            requested_agent: self.requested_agent.clone(),
            pace: self.pace,
            approvals: self.approvals,
            ..RunOptions::default()
        };
        options.breaks.step = self.step;
        options
    }
}

/// The live events of one leg, as published on the run's channel: which leg (a
/// watcher that sees another leg number seqs it saw already knows the first leg's
/// unstored events are lost), and its events.
#[derive(Debug, Serialize)]
pub(crate) struct LegNews<'a, E> {
    pub(crate) leg: &'a str,
    pub(crate) events: &'a [E],
}

/// [`LegNews`] as a watcher reads it.
#[derive(Debug, Deserialize)]
pub(crate) struct HeardNews {
    pub(crate) leg: String,
    pub(crate) events: Vec<crewgraph_engine::run::RunEvent>,
}

impl Api {
    /// This API is an API node of a cluster: it hands the runs it is asked to
    /// execute to `cluster`'s queue, and its watchers follow runs executed anywhere.
    pub fn with_queue(mut self, cluster: Arc<Cluster>) -> Self {
        self.cluster = Some((cluster, Part::ApiNode));
        self
    }

    /// This API is a worker of a cluster: it executes what `cluster`'s queue hands
    /// it ([`Api::execute_queued`]) and publishes the events.
    pub fn as_worker(mut self, cluster: Arc<Cluster>) -> Self {
        self.cluster = Some((cluster, Part::Worker));
        self
    }

    /// The cluster, when this API is an API node of one.
    pub(crate) fn api_node(&self) -> Option<&Arc<Cluster>> {
        self.cluster.as_ref().filter(|(_, part)| *part == Part::ApiNode).map(|(cluster, _)| cluster)
    }

    /// The cluster this API belongs to, whatever its part.
    pub fn cluster(&self) -> Option<&Arc<Cluster>> {
        self.cluster.as_ref().map(|(cluster, _)| cluster)
    }

    /// On an API node, a start a worker may execute: its first step stored, then the
    /// run queued. None when this API executes its runs itself, or the run is one a
    /// person drives turn by turn.
    pub(crate) async fn queue_start(&self, path: &Path, input: &str, options: &RunOptions) -> Result<Option<RunId>, ApiError> {
        let Some(cluster) = self.api_node().cloned() else { return Ok(None) };
        let Some(leg) = LegOptions::of(options)? else { return Ok(None) };
        let (crew, source) = self.crew_to_run(path).await?;
        let deps = self.deps(&crew, options, Arc::new(NullSink)).await?;
        let requested = options.requested_agent.as_deref().map(AgentId::from);
        let id = open_start(&crew, &source, input, requested.as_ref(), &deps, leg.text()).await?;
        enqueue(&cluster, &id, JobKind::Start).await;
        Ok(Some(id))
    }

    /// On an API node, a resume a worker may execute (see [`Api::queue_start`]).
    pub(crate) async fn queue_resume(&self, id: &RunId, input: Option<&str>, options: &RunOptions) -> Result<bool, ApiError> {
        let Some(cluster) = self.api_node().cloned() else { return Ok(false) };
        let Some(leg) = LegOptions::of(options)? else { return Ok(false) };
        let stored = self.stored_run(id).await?;
        if stored.snapshot.status == RunStatus::Running {
            return Err(going_on(id));
        }
        self.check_resumable(id, &stored, input).await?;
        let (crew, source, deps) = self.next_leg(id, &stored, options, Arc::new(NullSink)).await?;
        match open_resume(&crew, &source, id, input, &deps, leg.text()).await {
            // It was paused when read: another resume opened it (and a worker may
            // have ended it) between our reading and our claim.
            Err(RunError::NotResumable(..)) => return Err(going_on(id)),
            opened => super::runs::leg_outcome(id, opened, "another resume of it")?,
        };
        enqueue(&cluster, id, JobKind::Resume).await;
        Ok(true)
    }

    /// On an API node, a person's answer to a tool call, for a worker to go on with
    /// (see [`Api::queue_start`]).
    pub(crate) async fn queue_answer(&self, id: &RunId, answer: &Answer, options: &RunOptions) -> Result<bool, ApiError> {
        let Some(cluster) = self.api_node().cloned() else { return Ok(false) };
        let Some(leg) = LegOptions::of(options)? else { return Ok(false) };
        let stored = self.stored_run(id).await?;
        let (crew, source, deps) = self.next_leg(id, &stored, options, Arc::new(NullSink)).await?;
        match open_answer(&crew, &source, id, answer.clone(), &deps, leg.text()).await {
            Err(RunError::NotResumable(..)) => return Err(going_on(id)),
            opened => super::runs::leg_outcome(id, opened, "another answer or resume of it")?,
        };
        enqueue(&cluster, id, JobKind::Answer).await;
        Ok(true)
    }

    /// Executes the leg of run `id` the queue handed this worker, from the run's last
    /// stored step to its end or pause; its events go to the run's channel. Refused
    /// (`conflict`) when another executor holds the run or a leg of it goes on here;
    /// (`invalid_input`) when it is not running (paused, ended: a stale entry).
    pub async fn execute_queued(&self, id: &RunId) -> Result<RunOutcome, ApiError> {
        self.store()?;
        let slot = self.live.slot(Some(id))?;
        let (api, id, sink) = (self.clone(), id.clone(), self.leg_sink(&slot));
        let cancel = slot.cancel.clone();
        self.live.run_here(slot, async move { api.continue_queued(&id, sink, &cancel).await }).await
    }

    /// Goes on with queued run `id` as its stored options say.
    async fn continue_queued(
        &self,
        id: &RunId,
        sink: Arc<dyn crewgraph_engine::run::EventSink>,
        cancel: &CancellationToken,
    ) -> Result<RunOutcome, ApiError> {
        let stored = self.stored_run(id).await?;
        let leg: LegOptions = match stored.options.as_deref() {
            None => {
                return Err(ApiError::new(
                    ApiErrorCode::InvalidInput,
                    format!("run '{id}' was not queued for a worker (the process that started it executes it): resume it there"),
                ))
            }
            Some(text) => serde_json::from_str(text).map_err(|e| {
                ApiError::new(ApiErrorCode::InvalidInput, format!("run '{id}' was stored with options this Crewgraph cannot read: {e}"))
            })?,
        };
        let (crew, source, deps) = self.next_leg(id, &stored, &leg.options(), sink).await?;
        let requested = leg.requested_agent.as_deref().map(AgentId::from);
        let outcome = continue_run(&crew, &source, id, requested.as_ref(), &deps, cancel).await;
        super::runs::leg_outcome(id, outcome, "another executor")
    }

    /// On an API node, cancels run `id` going on elsewhere: ended `cancelled` here
    /// when it waits in the queue (nobody holds it), else the worker executing it
    /// is asked to. Ok(false) when the run is not going on at all.
    pub(crate) async fn cancel_queued(&self, id: &RunId) -> Result<bool, ApiError> {
        let Some(cluster) = self.api_node().cloned() else { return Ok(false) };
        let stored = self.stored_run(id).await?;
        if stored.snapshot.status != RunStatus::Running {
            return Ok(false);
        }
        if stored.options.is_none() {
            // Not queued: executed by the node that started it, if by anyone — ask it.
            cluster.publisher().publish(CONTROL.to_owned(), format!("cancel {id}"));
            return Ok(false);
        }
        let cancelled = CancellationToken::new();
        cancelled.cancel();
        match self.continue_queued(id, Arc::new(NullSink), &cancelled).await {
            Ok(_) => Ok(true),
            Err(error) if error.code == ApiErrorCode::Conflict => {
                cluster.publisher().publish(CONTROL.to_owned(), format!("cancel {id}"));
                Ok(true)
            }
            Err(error) => Err(error),
        }
    }

    /// Cancels the leg of run `id` going on here, if any (a cancel request from
    /// the control channel).
    pub fn cancel_here(&self, id: &RunId) -> bool {
        match self.live.get(id) {
            Some(slot) => {
                slot.cancel.cancel();
                true
            }
            None => false,
        }
    }

    /// Follows the control channel until the returned task is aborted: cancels the
    /// legs of this machine a person cancels elsewhere, and publishes again the
    /// unstored events of a leg of this machine a watcher elsewhere missed.
    pub async fn follow_control(&self) -> Option<tokio::task::JoinHandle<()>> {
        let cluster = self.cluster()?.clone();
        let mut listening = cluster.listener().listen(CONTROL).await;
        let api = self.clone();
        Some(tokio::spawn(async move {
            loop {
                let Some(message) = listening.next().await else { continue };
                let mut words = message.split(' ');
                match (words.next(), words.next(), words.next()) {
                    (Some("cancel"), Some(id), None) => {
                        api.cancel_here(&RunId::from(id));
                    }
                    (Some("replay"), Some(id), Some(after)) => {
                        let id = RunId::from(id);
                        if let Some(slot) = api.live.get(&id) {
                            let pending = slot.hub.pending_after(after.parse().ok());
                            let events: Vec<&crewgraph_engine::run::RunEvent> = pending.iter().map(AsRef::as_ref).collect();
                            if !events.is_empty() {
                                cluster.publish_events(&slot.leg, &id, &events);
                            }
                        }
                    }
                    _ => tracing::debug!("a control message Crewgraph does not know: {message}"),
                }
            }
        }))
    }

    /// On an API node, queues every run that is runnable in the store (running,
    /// held by nobody) and in no queue entry — a crash between the store's commit
    /// and the enqueue, a Redis that lost its data. The runs it queued.
    pub async fn sweep(&self) -> Result<Vec<RunId>, ApiError> {
        let Some(cluster) = self.api_node().cloned() else { return Ok(Vec::new()) };
        // The store first: a run created after this read is queued by its own node.
        let runnable = self.store()?.runnable().await?;
        if runnable.is_empty() {
            return Ok(Vec::new());
        }
        let queued = cluster.queue().queued_runs().await.map_err(queue_error)?;
        let mut swept = Vec::new();
        for id in runnable.into_iter().filter(|id| !queued.contains(id.as_str())) {
            cluster.queue().enqueue(&Job { run_id: id.to_string(), kind: JobKind::Start }).await.map_err(queue_error)?;
            swept.push(id);
        }
        Ok(swept)
    }
}

/// Adds run `id` to the queue. A queue out of reach loses nothing: the run is
/// runnable in the store, and the next sweep queues it.
async fn enqueue(cluster: &Cluster, id: &RunId, kind: JobKind) {
    if let Err(error) = cluster.queue().enqueue(&Job { run_id: id.to_string(), kind }).await {
        tracing::warn!(run = %id, "{error}; the run is kept and will be queued by the next sweep");
    }
}

/// Why a run that is running (or was resumed a moment ago) cannot be resumed on an
/// API node.
fn going_on(id: &RunId) -> ApiError {
    // Queued, or executed by a worker; one a worker dropped, the sweeper queues again.
    ApiError::new(
        ApiErrorCode::Conflict,
        format!("run '{id}' is going on, or was resumed a moment ago (queued, or executed by a worker): there is nothing to resume"),
    )
}

/// A queue failure in the API's words.
pub(crate) fn queue_error(error: crewgraph_queue::QueueError) -> ApiError {
    ApiError::new(ApiErrorCode::Store, error.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leg_options_keep_what_a_worker_needs_and_read_back_the_same() {
        let mut options = RunOptions {
            script: Some(ScriptSource::Text("replies: {}".into())),
            model: Some("local".into()),
            requested_agent: Some("critic".into()),
            pace: Pace::Readable,
            approvals: crewgraph_engine::run::Approvals::ReadOnly,
            ..RunOptions::default()
        };
        options.breaks.step = true;
        let leg = LegOptions::of(&options).unwrap().expect("a worker may execute it");
        let back: LegOptions = serde_json::from_str(&leg.text()).unwrap();
        assert_eq!(back, leg);
        let again = back.options();
        assert_eq!(
            (again.model, again.requested_agent, again.pace, again.approvals),
            (options.model, options.requested_agent, Pace::Readable, options.approvals)
        );
        assert_eq!(again.script, Some(ScriptSource::Text("replies: {}".into())));
        assert!(again.breaks.step);
    }

    #[test]
    fn a_leg_a_person_drives_turn_by_turn_stays_where_it_was_asked() {
        let typed = RunOptions { typed: Some(crewgraph_llm::TypedReplies::new()), ..RunOptions::default() };
        assert_eq!(LegOptions::of(&typed).unwrap(), None);
        let stepped = RunOptions { pace: Pace::Step, stepper: Some(crewgraph_llm::Stepper::new()), ..RunOptions::default() };
        assert_eq!(LegOptions::of(&stepped).unwrap(), None);
    }
}
