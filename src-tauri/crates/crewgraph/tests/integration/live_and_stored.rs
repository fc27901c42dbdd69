//! A run that is not live reads as its last leg left it. `GET /runs/{id}` once
//! answered `live: false` with the status still `running` — interrupted, to every
//! client, though the run had ended — when the leg stored its last step and left the
//! registry between the read of the run and the question whether it goes on (seen
//! rarely on a busy machine). Here that moment is forced: the store holds one read of
//! the run back, once it has read it, until the test has ended the leg — by its last
//! reply, by a pause, or by a cancel.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use crewgraph::api::operations::{GetRun, WhichRun};
use crewgraph::api::{Api, ApiError, Operation, RunDetail, RunOptions};
use crewgraph_engine::run::{RunEvent, RunRecord, RunStatus, RunStore, RunSummary, StepRecord, StoreError, StoredRun};
use crewgraph_engine::{AgentId, RunId};
use crewgraph_llm::TypedReplies;
use crewgraph_store::SqliteStore;
use tokio::sync::oneshot;

use crate::serve::{ASK, PING_PONG};

/// The longest a test waits for a leg to end.
const LIMIT: Duration = Duration::from_secs(60);

/// One read held back: it says when it has read, and answers when let go.
struct Hold {
    read: oneshot::Sender<()>,
    release: oneshot::Receiver<()>,
}

/// SQLite, whose next read of a run can be held back ([`HeldStore::hold_next_read`]).
struct HeldStore {
    inner: SqliteStore,
    hold: Mutex<Option<Hold>>,
}

impl HeldStore {
    /// The next `load_run` reads the run, says so on the receiver, and answers what it
    /// read only once the sender is told.
    fn hold_next_read(&self) -> (oneshot::Receiver<()>, oneshot::Sender<()>) {
        let (read, was_read) = oneshot::channel();
        let (let_go, release) = oneshot::channel();
        *self.hold.lock().unwrap() = Some(Hold { read, release });
        (was_read, let_go)
    }
}

#[async_trait]
impl RunStore for HeldStore {
    async fn create_run(&self, record: &RunRecord, first: &StepRecord) -> Result<(), StoreError> {
        self.inner.create_run(record, first).await
    }
    async fn append_step(&self, step: &StepRecord) -> Result<(), StoreError> {
        self.inner.append_step(step).await
    }
    async fn load_run(&self, id: &RunId) -> Result<Option<StoredRun>, StoreError> {
        let hold = self.hold.lock().unwrap().take();
        let run = self.inner.load_run(id).await;
        if let Some(hold) = hold {
            let _ = hold.read.send(());
            let _ = hold.release.await;
        }
        run
    }
    async fn list_runs(&self) -> Result<Vec<RunSummary>, StoreError> {
        self.inner.list_runs().await
    }
    async fn events(&self, id: &RunId, after: Option<u64>) -> Result<Vec<RunEvent>, StoreError> {
        self.inner.events(id, after).await
    }
    async fn claim(&self, id: &RunId, from: &[RunStatus]) -> Result<bool, StoreError> {
        self.inner.claim(id, from).await
    }
    async fn lease(&self, id: &RunId, owner: &str, ttl: std::time::Duration) -> Result<crewgraph_engine::run::LeaseOutcome, StoreError> {
        self.inner.lease(id, owner, ttl).await
    }
    async fn release(&self, id: &RunId, owner: &str) -> Result<bool, StoreError> {
        self.inner.release(id, owner).await
    }
    async fn contexts(&self, id: &RunId) -> Result<Option<Vec<crewgraph_engine::run::seen::AgentContext>>, StoreError> {
        self.inner.contexts(id).await
    }
    async fn runnable(&self) -> Result<Vec<RunId>, StoreError> {
        self.inner.runnable().await
    }
}

/// How the test ends the leg that waits for the person.
enum Ending {
    /// The person types this agent's reply.
    Reply(&'static str, &'static str),
    /// The person cancels the run.
    Cancel,
}

/// One run, as `GET /runs/{id}` and the window's `get_run` answer it.
async fn detail(api: &Api, id: &RunId) -> Result<RunDetail, ApiError> {
    GetRun::call(WhichRun { id: id.to_string() }, api).await
}

/// Starts a run of `crew` with typed replies, reads it while its leg waits for the
/// person, ends the leg (`ending`) before that read answers, and checks both answers:
/// the held one, and the next.
async fn a_leg_ends_while_its_run_is_read(crew: &str, ending: Ending, ended: RunStatus) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crew.yaml");
    std::fs::write(&path, crew).unwrap();
    let store = Arc::new(HeldStore { inner: SqliteStore::open(dir.path().join("crewgraph.db")).unwrap(), hold: Mutex::new(None) });
    let api = Api::new(dir.path()).with_store(store.clone());
    let typed = TypedReplies::new();
    let options = RunOptions { typed: Some(typed.clone()), ..RunOptions::default() };
    let id = api.spawn_run(&path, "go", options).await.unwrap();
    assert!(api.is_live(&id), "the leg waits for the person's reply");

    let (was_read, let_go) = store.hold_next_read();
    let asking = tokio::spawn({
        let (api, id) = (api.clone(), id.clone());
        async move { detail(&api, &id).await }
    });
    was_read.await.expect("the run is read");
    match ending {
        Ending::Reply(agent, text) => typed.reply(&AgentId::from(agent), text),
        Ending::Cancel => api.cancel_run(&id).await.unwrap(),
    }
    let deadline = Instant::now() + LIMIT;
    while api.is_live(&id) {
        assert!(Instant::now() < deadline, "the leg never ended");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let_go.send(()).unwrap();

    // Read while the leg went on, it may say so; what it must not say is that the run
    // is not live and still `running`: interrupted, resumable, which it is not.
    let held = asking.await.unwrap().unwrap();
    assert!(held.live || held.run.status == ended, "not live, yet {:?} (the run ended {ended:?})", held.run.status);
    let after = detail(&api, &id).await.unwrap();
    assert_eq!((after.live, after.run.status), (false, ended));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_read_as_its_last_step_lands_is_live_or_reads_as_it_ended() {
    a_leg_ends_while_its_run_is_read(PING_PONG, Ending::Reply("ping", "Done. [END]"), RunStatus::Terminated).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_read_as_it_pauses_is_live_or_reads_paused() {
    a_leg_ends_while_its_run_is_read(ASK, Ending::Reply("asker", "What is your name?"), RunStatus::Paused).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_read_as_it_is_cancelled_is_live_or_reads_cancelled() {
    a_leg_ends_while_its_run_is_read(PING_PONG, Ending::Cancel, RunStatus::Cancelled).await;
}
