//! The API on PostgreSQL (issue 20): one database for runs, crew revisions,
//! runtime agents and settings (`Api::with_postgres`), on a real server the tests
//! start themselves. A run made through one API is seen whole — its summary, its
//! revision, its events — by a second API on the same database, as a second
//! machine would see it.

use std::fs;
use std::sync::Arc;

use crewgraph::api::Api;
use crewgraph_engine::run::{EventKind, NullSink, RunStatus};
use crewgraph_store_postgres::{testing, PostgresStore};
use tokio_util::sync::CancellationToken;

use crate::support::{block_on, scripted};

const DESK: &str = "\
name: Desk
entry_point: writer
max_handoffs: 6
agents:
  - id: writer
    name: Writer
    system_prompt: Write the piece. End with [READY].
  - id: editor
    name: Editor
    is_terminal: true
routing:
  signals:
    writer:
      - { signal: '[READY]', target: editor }
    editor:
      - { signal: '[DONE]', target: '' }
";

const SCRIPT: &str = "\
replies:
  writer:
    - 'A short piece. [READY]'
  editor:
    - 'Good. [DONE]'
";

#[test]
fn a_run_through_one_api_is_seen_whole_by_another_on_the_same_database() {
    let sandbox = tempfile::tempdir().unwrap();
    let desk = sandbox.path().join("desk.yaml");
    let script = sandbox.path().join("script.yaml");
    fs::write(&desk, DESK).unwrap();
    fs::write(&script, SCRIPT).unwrap();
    block_on(async {
        let url = testing::shared().database("api").await.unwrap();
        let here = Api::new(sandbox.path()).with_postgres(Arc::new(PostgresStore::connect(&url).await.unwrap()));
        let options = scripted(&script.display().to_string());
        let outcome = here.start_run(&desk, "Write about bees", &options, Arc::new(NullSink), &CancellationToken::new()).await.unwrap();
        assert_eq!(outcome.status, RunStatus::Terminated);

        // Another machine: its own API and its own connections to the same database.
        let there = Api::new(sandbox.path()).with_postgres(Arc::new(PostgresStore::connect(&url).await.unwrap()));
        let listed = there.list_runs().await.unwrap();
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].status, RunStatus::Terminated);
        assert_eq!(listed[0].crew_revision, Some(1), "the run kept its crew as revision 1 before it started, and records it");
        let revisions = there.list_revisions(&desk).await.unwrap();
        assert_eq!(revisions.len(), 1);
        assert_eq!(revisions[0].runs.len(), 1, "the revision lists the run made of it");
        let events = there.run_events(&listed[0].id, None).await.unwrap();
        let seqs: Vec<u64> = events.iter().map(|e| e.seq).collect();
        assert_eq!(seqs, (0..events.len() as u64).collect::<Vec<_>>(), "every event, in order, once");
        assert!(matches!(events.first().map(|e| &e.kind), Some(EventKind::RunStarted { .. })));
        assert!(matches!(events.last().map(|e| &e.kind), Some(EventKind::RunFinished { status: RunStatus::Terminated, .. })));
        let detail = there.run_detail(&listed[0].id).await.unwrap();
        assert_eq!(detail.run.crew_revision, Some(1));
    });
}
