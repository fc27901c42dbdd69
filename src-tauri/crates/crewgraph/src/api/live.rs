//! Runs going on in the background of a long-lived host — the window and the HTTP
//! server alike, whose run operations ([`super::operations`]: start, resume, cancel)
//! come here: [`LiveRuns`], the registry of every run leg in progress — its task,
//! its [`CancellationToken`] and its [`EventHub`] — so that any client can start a
//! run and return at once, cancel it, or watch it ([`super::watch`]). The CLI runs
//! its one run to the end in the caller instead ([`Api::start_run`]).
//!
//! - [`Api::spawn_run`] starts a run on a task of its own and answers with the run's
//!   id once its first step is stored (so it is listed and watchable from then on);
//! - [`Api::spawn_resume`] does the same for a resume. One run has at most one leg
//!   in progress: a second resume of it is refused (`conflict`) here, and across
//!   processes by the store's claim;
//! - [`Api::cancel_run`] ends a run `cancelled` (the engine stores that step);
//! - [`Api::interrupt_runs`] stops every run where it stands without ending it: the
//!   store still says `running` and keeps every stored step, so the run is
//!   resumable (`crewgraph resume`, `POST /runs/{id}/resume`) from its last stored
//!   step — what the server does when it shuts down. The window does not: a run
//!   going on when it closes stays `running` in the store, resumable the same way.
//!
//! On an API node of a cluster, start, resume and answer hand the leg to the queue
//! instead ([`super::queued`]) unless a person drives it turn by turn; every leg
//! executed in a cluster publishes its events on the run's channel too.
//!
//! ```no_run
//! # async fn demo(api: crewgraph::api::Api) -> Result<(), crewgraph::api::ApiError> {
//! use crewgraph::api::{RunOptions, ScriptSource};
//! let options = RunOptions { script: Some(ScriptSource::Text("replies: {}".into())), ..RunOptions::default() };
//! let id = api.spawn_run("crews/exam.yaml".as_ref(), "Start the exam", options).await?;
//! api.cancel_run(&id).await?;
//! # Ok(()) }
//! ```

use std::collections::HashMap;
use std::future::Future;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use crewgraph_engine::run::{Answer, EventSink, RunEvent, RunOutcome, RunStatus};
use crewgraph_engine::{AgentId, RunId};
use crewgraph_llm::{Stepper, TypedReplies};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::hub::EventHub;
use super::queued::Cluster;
use super::{Api, ApiError, ApiErrorCode, ForkAt, RunOptions};

/// How far behind its run's events a watcher may fall before it is dropped, unless
/// the host says otherwise ([`Api::with_live_capacity`]).
pub const DEFAULT_LIVE_CAPACITY: usize = 1024;

/// The run legs in progress.
#[derive(Debug)]
pub struct LiveRuns {
    state: Mutex<Registry>,
    next_slot: AtomicU64,
    capacity: usize,
}

#[derive(Debug, Default)]
struct Registry {
    slots: HashMap<u64, Arc<RunSlot>>,
    by_run: HashMap<RunId, u64>,
    /// Interrupted: no new leg starts.
    closed: bool,
}

/// One leg in progress.
#[derive(Debug)]
pub(crate) struct RunSlot {
    number: u64,
    pub(crate) cancel: CancellationToken,
    pub(crate) hub: EventHub,
    id: OnceLock<RunId>,
    task: Mutex<Option<JoinHandle<()>>>,
    /// Told once: the leg is under way (Ok), or could not start (Err).
    ready: Mutex<Option<oneshot::Sender<Result<RunId, ApiError>>>>,
    /// Under way once its first step is stored (a start) or at its first event (a
    /// resume: the run already exists, and the claim succeeded).
    ready_on_first_event: bool,
    registry: std::sync::Weak<LiveRuns>,
    /// Simulate mode by hand: where the person's typed replies go.
    typed: OnceLock<TypedReplies>,
    /// A scripted run one turn at a time: where the person's **Next** goes.
    stepper: OnceLock<Stepper>,
    /// Its name among every leg of every machine (a cluster's watchers tell legs apart by it).
    pub(crate) leg: String,
}

impl RunSlot {
    /// Keeps what the person answers a leg's run through: typed replies, **Next**.
    fn hand(&self, options: &RunOptions) {
        if let Some(typed) = &options.typed {
            let _ = self.typed.set(typed.clone());
        }
        if let Some(stepper) = &options.stepper {
            let _ = self.stepper.set(stepper.clone());
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl LiveRuns {
    /// An empty registry; each leg's watchers may fall `capacity` events behind.
    pub fn new(capacity: usize) -> Arc<Self> {
        Arc::new(Self { state: Mutex::new(Registry::default()), next_slot: AtomicU64::new(1), capacity })
    }

    pub(crate) fn slot(self: &Arc<Self>, id: Option<&RunId>) -> Result<Arc<RunSlot>, ApiError> {
        let mut state = lock(&self.state);
        if state.closed {
            return Err(ApiError::new(ApiErrorCode::Conflict, "the server is shutting down: no run starts now"));
        }
        if let Some(id) = id {
            if state.by_run.contains_key(id) {
                return Err(ApiError::new(
                    ApiErrorCode::Conflict,
                    format!("run '{id}' is already going on (started or resumed by another request)"),
                ));
            }
        }
        let slot = Arc::new(RunSlot {
            number: self.next_slot.fetch_add(1, Ordering::Relaxed),
            cancel: CancellationToken::new(),
            hub: EventHub::new(self.capacity),
            id: OnceLock::new(),
            task: Mutex::new(None),
            ready: Mutex::new(None),
            ready_on_first_event: id.is_some(),
            registry: Arc::downgrade(self),
            typed: OnceLock::new(),
            stepper: OnceLock::new(),
            leg: leg_name(),
        });
        if let Some(id) = id {
            let _ = slot.id.set(id.clone());
            state.by_run.insert(id.clone(), slot.number);
        }
        state.slots.insert(slot.number, slot.clone());
        Ok(slot)
    }

    /// How far behind its run's events a watcher may fall.
    pub(crate) fn capacity(&self) -> usize {
        self.capacity
    }

    /// The leg of run `id` in progress, if any.
    pub(crate) fn get(&self, id: &RunId) -> Option<Arc<RunSlot>> {
        let state = lock(&self.state);
        state.by_run.get(id).and_then(|number| state.slots.get(number)).cloned()
    }

    /// The runs in progress.
    pub fn ids(&self) -> Vec<RunId> {
        lock(&self.state).by_run.keys().cloned().collect()
    }

    /// How many watchers follow the run `id` live now.
    pub fn watchers(&self, id: &RunId) -> usize {
        self.get(id).map_or(0, |slot| slot.hub.watchers())
    }

    fn name(&self, slot: &RunSlot, id: &RunId) {
        if slot.id.set(id.clone()).is_ok() {
            lock(&self.state).by_run.insert(id.clone(), slot.number);
        }
    }

    fn remove(&self, slot: &RunSlot) {
        let mut state = lock(&self.state);
        state.slots.remove(&slot.number);
        if let Some(id) = slot.id.get() {
            if state.by_run.get(id) == Some(&slot.number) {
                state.by_run.remove(id);
            }
        }
    }

    /// Runs `leg` on a task of its own, owned by `slot`; the answer says when it is
    /// under way or why it could not start.
    async fn spawn<F>(self: &Arc<Self>, slot: Arc<RunSlot>, leg: F) -> Result<RunId, ApiError>
    where
        F: Future<Output = Result<RunOutcome, ApiError>> + Send + 'static,
    {
        let (ready, under_way) = oneshot::channel();
        *lock(&slot.ready) = Some(ready);
        // The task waits for its handle to be kept, so an interrupt always finds it.
        let (go, gate) = oneshot::channel::<()>();
        let guard = LegGuard { slot: slot.clone(), finished: AtomicBool::new(false) };
        let task = tokio::spawn(async move {
            if gate.await.is_err() {
                return;
            }
            let outcome = leg.await;
            guard.slot.settle(outcome.as_ref().map(|o| o.run_id.clone()).map_err(Clone::clone));
            guard.finished.store(true, Ordering::Release);
        });
        *lock(&slot.task) = Some(task);
        let _ = go.send(());
        under_way
            .await
            .unwrap_or_else(|_| Err(ApiError::new(ApiErrorCode::Conflict, "the run stopped before it began (the server is shutting down)")))
    }

    /// Stops every leg where it stands (see the module's documentation) and waits
    /// for their tasks to end; no new leg starts afterwards. The runs it stopped.
    pub async fn interrupt(&self) -> Vec<RunId> {
        let slots: Vec<Arc<RunSlot>> = {
            let mut state = lock(&self.state);
            state.closed = true;
            state.slots.values().cloned().collect()
        };
        let mut stopped = Vec::new();
        for slot in slots {
            let task = lock(&slot.task).take();
            if let Some(task) = task {
                task.abort();
                let _ = task.await;
            }
            if let Some(id) = slot.id.get() {
                stopped.push(id.clone());
            }
        }
        stopped
    }
}

impl RunSlot {
    fn settle(&self, outcome: Result<RunId, ApiError>) {
        if let Some(ready) = lock(&self.ready).take() {
            let _ = ready.send(outcome);
        }
    }
}

/// The sink of a leg: names the leg after its run at the first event, publishes
/// every event to the hub (and, in a cluster, to the run's channel), and says when
/// the leg is under way.
pub(crate) struct LegSink {
    slot: Arc<RunSlot>,
    /// In a cluster: where the leg's events are published.
    news: Option<Arc<Cluster>>,
}

impl EventSink for LegSink {
    fn emit(&self, event: &RunEvent) {
        let slot = &self.slot;
        if slot.id.get().is_none() {
            if let Some(registry) = slot.registry.upgrade() {
                registry.name(slot, &event.run_id);
            }
        }
        slot.hub.publish(event);
        if let Some(cluster) = &self.news {
            cluster.publish_events(&slot.leg, &event.run_id, &[event]);
        }
        if slot.ready_on_first_event {
            slot.settle(Ok(event.run_id.clone()));
        }
    }

    fn committed(&self, seq: u64) {
        let slot = &self.slot;
        slot.hub.committed(seq);
        if let Some(id) = slot.id.get() {
            slot.settle(Ok(id.clone()));
        }
    }
}

/// Cleans up after a leg however its task ends: finished, failed, or aborted. It is
/// dropped once the leg's future is done — after the engine stored the leg's last
/// step (ended, paused or cancelled) — so a leg that is not in the registry any more
/// has its final state in the store ([`Api::is_live`]).
struct LegGuard {
    slot: Arc<RunSlot>,
    finished: AtomicBool,
}

impl Drop for LegGuard {
    fn drop(&mut self) {
        let finished = self.finished.load(Ordering::Acquire);
        // Out of the registry before the hub closes: a watcher that sees the leg end
        // (a pause) and resumes at once must not find it still going on.
        if let Some(registry) = self.slot.registry.upgrade() {
            registry.remove(&self.slot);
        }
        self.slot.hub.close(!finished);
        self.slot.settle(Err(ApiError::new(ApiErrorCode::Conflict, "the run was stopped before it began (the server is shutting down)")));
    }
}

impl LiveRuns {
    /// Runs `leg`, owned by `slot`, in the caller's task, to its end: what a worker
    /// does with each run the queue hands it.
    pub(crate) async fn run_here<F>(self: &Arc<Self>, slot: Arc<RunSlot>, leg: F) -> Result<RunOutcome, ApiError>
    where
        F: Future<Output = Result<RunOutcome, ApiError>>,
    {
        let guard = LegGuard { slot, finished: AtomicBool::new(false) };
        let outcome = leg.await;
        guard.slot.settle(outcome.as_ref().map(|o| o.run_id.clone()).map_err(Clone::clone));
        guard.finished.store(true, Ordering::Release);
        outcome
    }
}

impl Api {
    /// The sink of a leg owned by `slot`.
    pub(crate) fn leg_sink(&self, slot: &Arc<RunSlot>) -> Arc<LegSink> {
        Arc::new(LegSink { slot: slot.clone(), news: self.cluster().cloned() })
    }

    /// Lets watchers of a run fall `capacity` events behind before they are dropped
    /// (default [`DEFAULT_LIVE_CAPACITY`]). Call before any run starts.
    pub fn with_live_capacity(mut self, capacity: usize) -> Self {
        self.live = LiveRuns::new(capacity);
        self
    }

    /// The runs going on in this host.
    pub fn live_runs(&self) -> &Arc<LiveRuns> {
        &self.live
    }

    /// True while run `id` has a leg in progress in this host. A leg leaves only
    /// once its last step is stored (or it was stopped where it stood: interrupted),
    /// so ask this before reading the run from the store, never after: a run found
    /// not live then reads as its leg left it ([`Api::run_detail`]).
    pub fn is_live(&self, id: &RunId) -> bool {
        self.live.get(id).is_some()
    }

    /// Starts a run of the crew at `path` in the background; its id once its first
    /// step is stored. Errors are those of [`Api::start_run`] before it began.
    pub async fn spawn_run(&self, path: &Path, input: &str, options: RunOptions) -> Result<RunId, ApiError> {
        self.store()?;
        if let Some(id) = self.queue_start(path, input, &options).await? {
            return Ok(id);
        }
        let slot = self.live.slot(None)?;
        slot.hand(&options);
        let (api, path, input, sink) = (self.clone(), path.to_path_buf(), input.to_owned(), self.leg_sink(&slot));
        let cancel = slot.cancel.clone();
        self.live.spawn(slot, async move { api.start_run(&path, &input, &options, sink, &cancel).await }).await
    }

    /// Resumes run `id` in the background (see [`Api::resume_run`]); answers once it
    /// is under way. `conflict` when a leg of it is in progress already.
    pub async fn spawn_resume(&self, id: &RunId, input: Option<&str>, options: RunOptions) -> Result<RunId, ApiError> {
        self.store()?;
        if self.live.get(id).is_none() && self.queue_resume(id, input, &options).await? {
            return Ok(id.clone());
        }
        let slot = self.live.slot(Some(id))?;
        slot.hand(&options);
        let (api, id, input, sink) = (self.clone(), id.clone(), input.map(str::to_owned), self.leg_sink(&slot));
        let cancel = slot.cancel.clone();
        self.live.spawn(slot, async move { api.resume_run(&id, input.as_deref(), &options, sink, &cancel).await }).await
    }

    /// Goes on in the background with run `id`, waiting for a tool call's approval,
    /// with the person's `answer` (see [`Api::answer_tool_call`]); answers once it is
    /// under way. `conflict` when a leg of it is in progress already.
    pub async fn spawn_answer(&self, id: &RunId, answer: Answer, options: RunOptions) -> Result<RunId, ApiError> {
        self.store()?;
        if self.live.get(id).is_none() && self.queue_answer(id, &answer, &options).await? {
            return Ok(id.clone());
        }
        let slot = self.live.slot(Some(id))?;
        slot.hand(&options);
        let (api, id, sink) = (self.clone(), id.clone(), self.leg_sink(&slot));
        let cancel = slot.cancel.clone();
        self.live.spawn(slot, async move { api.answer_tool_call(&id, answer, &options, sink, &cancel).await }).await
    }

    /// Forks run `id` (see [`Api::fork_run`]) in the background; the new run's id
    /// once its first step is stored.
    pub async fn spawn_fork(&self, id: &RunId, at: ForkAt, options: RunOptions) -> Result<RunId, ApiError> {
        self.store()?;
        let slot = self.live.slot(None)?;
        slot.hand(&options);
        let (api, id, sink) = (self.clone(), id.clone(), self.leg_sink(&slot));
        let cancel = slot.cancel.clone();
        self.live.spawn(slot, async move { api.fork_run(&id, &at, &options, sink, &cancel).await }).await
    }

    /// Cancels run `id`, going on in this host: it ends `cancelled` at once (its
    /// events kept). `conflict` for a run that is not going on here.
    pub async fn cancel_run(&self, id: &RunId) -> Result<(), ApiError> {
        if let Some(slot) = self.live.get(id) {
            slot.cancel.cancel();
            return Ok(());
        }
        if self.cancel_queued(id).await? {
            return Ok(());
        }
        let stored = self.stored_run(id).await?;
        let why = match stored.snapshot.status {
            RunStatus::Running => "was interrupted and is not going on now (resume it to go on)".to_owned(),
            RunStatus::Paused => "is paused, waiting for an answer: there is nothing going on to cancel".to_owned(),
            status => format!("has ended ({})", status.as_str()),
        };
        Err(ApiError::new(ApiErrorCode::Conflict, format!("run '{id}' {why}")))
    }

    /// Simulate mode by hand: `agent`'s reply in run `id`, typed by the person (its
    /// turn now, or its next one). `conflict` for a run not going on here with typed
    /// replies.
    pub fn type_reply(&self, id: &RunId, agent: &str, text: &str) -> Result<(), ApiError> {
        if text.trim().is_empty() {
            return Err(ApiError::new(ApiErrorCode::InvalidInput, format!("the reply is empty: write what {agent} says")));
        }
        match self.live.get(id).and_then(|slot| slot.typed.get().cloned()) {
            Some(typed) => {
                typed.reply(&AgentId::from(agent), text);
                Ok(())
            }
            None => Err(ApiError::new(
                ApiErrorCode::Conflict,
                format!("run '{id}' is not going on with typed replies here: start it (or resume it) in Simulate mode, typing each reply"),
            )),
        }
    }

    /// A scripted run one turn at a time (`pace: step`): lets its next turn come.
    /// `conflict` for a run not going on here at that pace.
    pub fn step_run(&self, id: &RunId) -> Result<(), ApiError> {
        match self.live.get(id).and_then(|slot| slot.stepper.get().cloned()) {
            Some(stepper) => {
                stepper.next();
                Ok(())
            }
            None => Err(ApiError::new(
                ApiErrorCode::Conflict,
                format!("run '{id}' is not going on one turn at a time here: start it (or resume it) in Simulate mode with the step pace"),
            )),
        }
    }

    /// Stops every run going on in this host without ending it, so each can be
    /// resumed later from its last stored step (see [`LiveRuns::interrupt`]).
    pub async fn interrupt_runs(&self) -> Vec<RunId> {
        self.live.interrupt().await
    }
}

/// A name for a leg no other leg on any machine has (a watcher of its run's channel
/// tells legs apart by it).
fn leg_name() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u32(std::process::id());
    format!("{:016x}", hasher.finish())
}
