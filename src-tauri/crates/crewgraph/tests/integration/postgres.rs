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

/// `crewgraph serve --store URL ARGS` as a child (see [`crate::serve::process::start`]).
fn serve_on_postgres(
    fixture: &crate::serve::Fixture,
    store: &str,
    args: &[&str],
) -> Result<(crate::serve::process::Served, String), (i32, String)> {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_crewgraph"));
    command
        .args(["serve", "--addr", "127.0.0.1:0", "--store", store, "--crews", fixture.crews().to_str().unwrap()])
        .args(args)
        .env_remove("CREWGRAPH_STORE");
    crate::serve::process::start(fixture, command)
}

#[test]
fn crewgraph_serve_with_store_keeps_its_runs_in_postgresql_for_every_machine() {
    let fixture = crate::serve::Fixture::new();
    block_on(async {
        let url = testing::shared().database("serve").await.unwrap();
        let (_served, addr) = serve_on_postgres(&fixture, &url, &[]).unwrap_or_else(|(code, stderr)| panic!("exit {code}: {stderr}"));
        let http = reqwest::Client::new();
        let script = serde_json::json!({"replies": {"writer": ["A short piece. [READY]"], "editor": ["Good. [DONE]"]}});
        std::fs::write(fixture.crews().join("desk.yaml"), DESK).unwrap();
        let started = http
            .post(format!("http://{addr}/runs"))
            .json(&serde_json::json!({"crew": "desk.yaml", "input": "Bees", "script": script}))
            .send()
            .await
            .unwrap();
        assert_eq!(started.status(), reqwest::StatusCode::ACCEPTED);
        let id = started.json::<serde_json::Value>().await.unwrap()["run_id"].as_str().unwrap().to_owned();
        let deadline = std::time::Instant::now() + crate::serve::LIMIT;
        loop {
            let detail: serde_json::Value = http.get(format!("http://{addr}/runs/{id}")).send().await.unwrap().json().await.unwrap();
            if detail["live"] == false {
                assert_eq!(detail["run"]["status"], "terminated", "{detail}");
                break;
            }
            assert!(std::time::Instant::now() < deadline, "the run never ended: {detail}");
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        // Another machine reads it from the database: every event, in order.
        let there = Api::new(fixture.crews()).with_postgres(Arc::new(PostgresStore::connect(&url).await.unwrap()));
        let events = there.run_events(&crewgraph_engine::RunId::from(id.as_str()), None).await.unwrap();
        assert_eq!(events.iter().map(|e| e.seq).collect::<Vec<_>>(), (0..events.len() as u64).collect::<Vec<_>>());
        assert!(matches!(events.last().map(|e| &e.kind), Some(EventKind::RunFinished { status: RunStatus::Terminated, .. })));
        assert!(!fixture.db().exists() && !fixture.dir.path().join("crewgraph.db").exists(), "no database file was made");
    });
}

#[test]
fn crewgraph_serve_says_in_words_when_its_postgresql_database_cannot_be_reached() {
    let fixture = crate::serve::Fixture::new();
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let Err((code, stderr)) = serve_on_postgres(&fixture, &format!("postgres://crew:hunter2@127.0.0.1:{port}/runs"), &[]) else {
        panic!("it served with no database")
    };
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.starts_with("crewgraph serve: "), "{stderr}");
    assert!(stderr.contains(&format!("127.0.0.1:{port}")), "names where: {stderr}");
    assert!(!stderr.contains("hunter2"), "never the password: {stderr}");
    // --store and --db are two answers to one question.
    let both = std::process::Command::new(env!("CARGO_BIN_EXE_crewgraph"))
        .args(["serve", "--store", "postgres://127.0.0.1/runs", "--db", "x.db"])
        .output()
        .unwrap();
    assert_eq!(both.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&both.stderr).contains("cannot be used with"), "{}", String::from_utf8_lossy(&both.stderr));
}

#[test]
fn two_servers_on_one_database_never_execute_one_run_at_once() {
    let fixture = crate::serve::Fixture::new();
    block_on(async {
        let url = testing::shared().database("two_servers").await.unwrap();
        let started = |result: Result<(crate::serve::process::Served, String), (i32, String)>| {
            result.unwrap_or_else(|(code, stderr)| panic!("exit {code}: {stderr}"))
        };
        let (_first, a) = started(serve_on_postgres(&fixture, &url, &[]));
        let (_second, b) = started(serve_on_postgres(&fixture, &url, &[]));
        let http = reqwest::Client::new();
        // A run of a few seconds on the first server.
        let script = crate::serve::ping_pong(60, 40, 2);
        let answer = http
            .post(format!("http://{a}/runs"))
            .json(&serde_json::json!({"crew": "ping-pong.yaml", "input": "go", "script": script}))
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), reqwest::StatusCode::ACCEPTED);
        let id = answer.json::<serde_json::Value>().await.unwrap()["run_id"].as_str().unwrap().to_owned();
        // The second sees it in the database, running — not going on there, so it
        // looks interrupted; asked to resume it, it is refused by the first's lease.
        let deadline = std::time::Instant::now() + crate::serve::LIMIT;
        let refused = loop {
            let detail: serde_json::Value = http.get(format!("http://{b}/runs/{id}")).send().await.unwrap().json().await.unwrap();
            // Once it has handed over at least once, its first leg surely holds the lease.
            if detail["run"]["status"] == "running" && detail["run"]["handoffs"].as_u64().unwrap_or(0) >= 1 {
                let resumed = http.post(format!("http://{b}/runs/{id}/resume")).json(&serde_json::json!({})).send().await.unwrap();
                break (resumed.status(), resumed.json::<serde_json::Value>().await.unwrap());
            }
            assert!(std::time::Instant::now() < deadline, "the second server never saw the run: {detail}");
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        };
        assert_eq!(refused.0, reqwest::StatusCode::CONFLICT, "{}", refused.1);
        assert_eq!(refused.1["code"], "conflict");
        let message = refused.1["message"].as_str().unwrap();
        assert!(message.starts_with(&format!("run '{id}' is being executed by crewgraph serve on ")), "{message}");
        assert!(message.ends_with("it can be taken over if that worker stops"), "{message}");
        // The first goes on to the end; every event stored once, in order.
        loop {
            let detail: serde_json::Value = http.get(format!("http://{a}/runs/{id}")).send().await.unwrap().json().await.unwrap();
            if detail["live"] == false {
                assert_eq!(detail["run"]["status"], "terminated", "{detail}");
                break;
            }
            assert!(std::time::Instant::now() < deadline + crate::serve::LIMIT, "the run never ended: {detail}");
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        let there = Api::new(fixture.crews()).with_postgres(Arc::new(PostgresStore::connect(&url).await.unwrap()));
        let events = there.run_events(&crewgraph_engine::RunId::from(id.as_str()), None).await.unwrap();
        assert_eq!(events.iter().map(|e| e.seq).collect::<Vec<_>>(), (0..events.len() as u64).collect::<Vec<_>>());
        assert_eq!(events.iter().filter(|e| matches!(e.kind, EventKind::RunStarted { .. })).count(), 1, "one leg");
    });
}
