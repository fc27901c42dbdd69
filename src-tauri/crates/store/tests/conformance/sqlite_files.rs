//! SQLite only: the database as a file — it survives reopening; a file that is not
//! a database, another program's database, one from a newer Crewgraph, a locked
//! one and an unwritable place each fail with the error a person can act on.

use std::path::Path;
use std::time::{Duration, Instant};

use crewgraph_engine::run::{RunStore, StoreError};
use crewgraph_store::{SqliteStore, StoreOptions};

use crate::support::{open_sqlite, quick, reply, temp_dir, write_at_once, Run};

/// A second connection to the file, as another program would open it.
pub fn other_program(path: &Path) -> rusqlite::Connection {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.busy_timeout(Duration::from_secs(5)).unwrap();
    conn
}

#[tokio::test]
async fn data_survives_reopening_the_file() {
    let dir = temp_dir();
    let path = dir.path().join("nested").join("folder").join("crewgraph.db");
    let mut run = Run::new("run-kept", 1_795_000_000_000);
    {
        let store = open_sqlite(&path);
        run.create(&store).await.unwrap();
        for turn in 0..5 {
            let step = run.handoff(&format!("turn {turn}: {}", reply(240)));
            run.append(&store, step).await.unwrap();
        }
        store.set_setting("theme", &serde_json::json!("dark")).await.unwrap();
    }
    assert!(path.exists(), "the file and its folders were created");
    let store = open_sqlite(&path);
    run.assert_stored(&store).await;
    assert_eq!(store.list_runs().await.unwrap().len(), 1);
    assert_eq!(store.setting("theme").await.unwrap(), Some(serde_json::json!("dark")));
    // The reopened store goes on from the stored seq and history, not from zero.
    let step = run.handoff("after reopening");
    run.append(&store, step).await.unwrap();
    run.assert_stored(&store).await;
}

#[tokio::test]
async fn a_run_stored_before_contexts_were_kept_says_it_has_none() {
    let dir = temp_dir();
    let path = dir.path().join("crewgraph.db");
    let mut run = Run::new("run-old", 1_795_000_000_000);
    let store = open_sqlite(&path);
    run.create(&store).await.unwrap();
    let step = run.handoff("an old turn");
    run.append(&store, step).await.unwrap();
    // As a Crewgraph from before the column left every step.
    other_program(&path).execute("UPDATE steps SET contexts = NULL", []).unwrap();
    assert_eq!(store.contexts(run.id()).await.unwrap(), None);
    run.assert_stored(&store).await;
}

#[tokio::test]
async fn a_new_file_is_in_wal_mode_with_a_table_per_kind_of_record() {
    let dir = temp_dir();
    let path = dir.path().join("crewgraph.db");
    let _store = open_sqlite(&path);
    let conn = other_program(&path);
    let mode: String = conn.pragma_query_value(None, "journal_mode", |row| row.get(0)).unwrap();
    assert_eq!(mode, "wal");
    let mut tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
        .unwrap()
        .query_map([], |row| row.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    tables.sort();
    assert_eq!(tables, ["crew_revisions", "crews", "runs", "runtime_agents", "settings", "steps"]);
}

#[tokio::test]
async fn opening_a_file_that_is_not_a_database_is_corrupt_and_leaves_it_alone() {
    let dir = temp_dir();
    let path = dir.path().join("notes.db");
    let text = "These are my notes, not a database.\n".repeat(200);
    std::fs::write(&path, &text).unwrap();
    match SqliteStore::open_with(&path, &quick()) {
        Err(StoreError::Corrupt(message)) => {
            assert!(message.contains(&path.display().to_string()), "the message names the file: {message}");
            assert!(message.contains("not a SQLite database"), "{message}");
        }
        other => panic!("expected Corrupt, got {other:?}"),
    }
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text, "the file is not touched");
}

#[tokio::test]
async fn opening_another_programs_database_is_corrupt_and_adds_no_tables() {
    let dir = temp_dir();
    let path = dir.path().join("other.db");
    other_program(&path).execute_batch("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine');").unwrap();
    match SqliteStore::open_with(&path, &quick()) {
        Err(StoreError::Corrupt(message)) => assert!(message.contains("not a Crewgraph database"), "{message}"),
        other => panic!("expected Corrupt, got {other:?}"),
    }
    let tables: i64 = other_program(&path).query_row("SELECT count(*) FROM sqlite_schema", [], |row| row.get(0)).unwrap();
    assert_eq!(tables, 1, "only the other program's table");
}

#[tokio::test]
async fn a_database_from_a_newer_crewgraph_is_refused_with_a_clear_message() {
    let dir = temp_dir();
    let path = dir.path().join("crewgraph.db");
    drop(open_sqlite(&path));
    other_program(&path).pragma_update(None, "user_version", 99).unwrap();
    match SqliteStore::open_with(&path, &quick()) {
        Err(StoreError::Corrupt(message)) => assert!(message.contains("newer version of Crewgraph"), "{message}"),
        other => panic!("expected Corrupt, got {other:?}"),
    }
}

#[tokio::test]
async fn a_write_while_another_program_holds_the_lock_is_busy_within_the_timeout() {
    let dir = temp_dir();
    let path = dir.path().join("crewgraph.db");
    let store = open_sqlite(&path);
    let mut first = Run::new("run-before", 1_795_000_000_000);
    first.create(&store).await.unwrap();

    let holder = other_program(&path);
    holder.execute_batch("BEGIN IMMEDIATE; INSERT INTO settings (key, value) VALUES ('held', 'true');").unwrap();
    let mut run = Run::new("run-blocked", 1_795_000_000_100);
    let started = Instant::now();
    match run.create(&store).await {
        Err(StoreError::Busy(message)) => assert!(message.contains(&path.display().to_string()), "{message}"),
        other => panic!("expected Busy, got {other:?}"),
    }
    let waited = started.elapsed();
    assert!(waited >= quick().busy_timeout / 2, "it waited for the lock first ({waited:?})");
    assert!(waited < Duration::from_secs(3), "it gave up about when the timeout said ({waited:?})");
    // Reads go on beside the held write lock (WAL).
    first.assert_stored(&store).await;

    holder.execute_batch("ROLLBACK").unwrap();
    run.create(&store).await.unwrap();
    run.assert_stored(&store).await;
}

#[tokio::test]
async fn opening_a_database_another_program_locked_is_busy() {
    let dir = temp_dir();
    let path = dir.path().join("crewgraph.db");
    let holder = other_program(&path);
    holder.execute_batch("BEGIN EXCLUSIVE; CREATE TABLE wip (x); ").unwrap();
    let started = Instant::now();
    let options = StoreOptions { busy_timeout: Duration::from_millis(100) };
    match SqliteStore::open_with(&path, &options) {
        Err(StoreError::Busy(message)) => assert!(message.contains(&path.display().to_string()), "{message}"),
        other => panic!("expected Busy, got {other:?}"),
    }
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[tokio::test]
async fn a_path_under_a_regular_file_is_io_naming_the_file() {
    let dir = temp_dir();
    let blocker = dir.path().join("not-a-folder");
    std::fs::write(&blocker, "a file where a folder should be").unwrap();
    let path = blocker.join("crewgraph").join("crewgraph.db");
    match SqliteStore::open_with(&path, &quick()) {
        Err(StoreError::Io(message)) => {
            assert!(message.contains("not-a-folder"), "the message names the place: {message}");
            assert!(message.contains("crewgraph.db"), "and the database: {message}");
        }
        other => panic!("expected Io, got {other:?}"),
    }
}

#[cfg(unix)]
#[tokio::test]
async fn a_read_only_folder_is_io() {
    use std::os::unix::fs::PermissionsExt;
    let dir = temp_dir();
    let folder = dir.path().join("read-only");
    std::fs::create_dir(&folder).unwrap();
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o555)).unwrap();
    let writable_anyway = std::fs::write(folder.join("probe"), "x").is_ok();
    let path = folder.join("crewgraph.db");
    let result = SqliteStore::open_with(&path, &quick());
    if writable_anyway {
        // Root ignores permissions: the folder is writable, so nothing can fail here.
        eprintln!("note: running as a user who may write a read-only folder (root?); the read-only assertion is skipped");
        assert!(result.is_ok(), "{result:?}");
    } else {
        match result {
            Err(StoreError::Io(message)) => assert!(message.contains(&path.display().to_string()), "{message}"),
            other => panic!("expected Io, got {other:?}"),
        }
    }
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[tokio::test]
async fn the_default_path_is_crewgraph_db_in_the_data_directory() {
    let path = SqliteStore::default_path().unwrap();
    let data = dirs::data_dir().unwrap();
    assert_eq!(path, data.join("crewgraph").join("crewgraph.db"));
}

/// A store dropped while runs are written finishes what it was asked first: every
/// answered write is in the file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_answered_write_is_in_the_file_after_the_store_closes() {
    let dir = temp_dir();
    let path = dir.path().join("crewgraph.db");
    let store = std::sync::Arc::new(open_sqlite(&path));
    let runs = write_at_once(store.clone(), 20, 10, |i| format!("run-{i}"), |_, turn| format!("turn {turn}")).await;
    drop(store);
    let store = open_sqlite(&path);
    for run in &runs {
        run.assert_stored(&store).await;
    }
}

#[tokio::test]
async fn a_damaged_row_reads_as_corrupt_naming_the_run_not_a_panic() {
    let dir = temp_dir();
    let path = dir.path().join("crewgraph.db");
    let store = open_sqlite(&path);
    let mut run = Run::new("run-damaged", 1_795_000_000_000);
    run.create(&store).await.unwrap();
    let step = run.handoff("fine");
    run.append(&store, step).await.unwrap();

    let other = other_program(&path);
    // Event 3 is the second of step 1, whose events are seqs 2 to 4.
    other
        .execute("UPDATE steps SET events = json_set(events, '$[1][1]', json('{\"type\":\"no_such_event\"}')) WHERE step = 1", [])
        .unwrap();
    match store.events(run.id(), None).await {
        Err(StoreError::Corrupt(message)) => {
            assert!(message.contains("event 3 of run 'run-damaged'"), "{message}");
            assert!(message.contains(&path.display().to_string()), "{message}");
        }
        other => panic!("expected Corrupt, got {other:?}"),
    }
    assert_eq!(store.events(run.id(), Some(3)).await.map(|e| e.len()), Ok(1), "the events after it still read");

    other.execute("UPDATE steps SET history = 'not json' WHERE step = 1", []).unwrap();
    assert!(matches!(store.load_run(run.id()).await, Err(StoreError::Corrupt(_))));
    other.execute("UPDATE runs SET status = 'sleeping'", []).unwrap();
    match store.list_runs().await {
        Err(StoreError::Corrupt(message)) => assert!(message.contains("'sleeping'"), "{message}"),
        other => panic!("expected Corrupt, got {other:?}"),
    }
}
