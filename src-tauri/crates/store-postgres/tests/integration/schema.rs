//! Migrations: versioned in code, applied once in one transaction, their count
//! kept in `schema_version`; a database from a newer Crewgraph, or with another
//! program's tables, is refused and left as it was.

use crewgraph_engine::run::{RunStore, StoreError};
use crewgraph_store_postgres::{testing, PostgresStore, SCHEMA_VERSION};

/// Runs `sql` on the database at `url`, outside the store.
async fn execute(url: &str, sql: &str) {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls).await.unwrap();
    let connection = tokio::spawn(connection);
    client.batch_execute(sql).await.unwrap();
    drop(client);
    connection.await.unwrap().unwrap();
}

async fn version(url: &str) -> i32 {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(connection);
    client.query_one("SELECT version FROM schema_version", &[]).await.unwrap().get(0)
}

#[tokio::test]
async fn a_new_database_gets_every_migration_once() {
    let url = testing::shared().database("migrations").await.unwrap();
    let store = PostgresStore::connect(&url).await.unwrap();
    assert_eq!(version(&url).await, SCHEMA_VERSION as i32);
    drop(store);
    // Opening again applies nothing (it would fail: the tables exist).
    let again = PostgresStore::connect(&url).await.unwrap();
    assert!(again.list_runs().await.unwrap().is_empty());
    assert_eq!(version(&url).await, SCHEMA_VERSION as i32);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn programs_opening_a_new_database_at_once_all_succeed() {
    let url = testing::shared().database("at_once").await.unwrap();
    let opens: Vec<_> = (0..4)
        .map(|_| {
            tokio::spawn({
                let url = url.clone();
                async move { PostgresStore::connect(&url).await.map(|_| ()) }
            })
        })
        .collect();
    for open in opens {
        assert_eq!(open.await.unwrap(), Ok(()), "the advisory lock makes the others wait for the first");
    }
    assert_eq!(version(&url).await, SCHEMA_VERSION as i32);
}

#[tokio::test]
async fn a_database_from_a_newer_crewgraph_is_refused_untouched() {
    let url = testing::shared().database("newer").await.unwrap();
    drop(PostgresStore::connect(&url).await.unwrap());
    execute(&url, "UPDATE schema_version SET version = 99").await;
    match PostgresStore::connect(&url).await {
        Err(StoreError::Corrupt(text)) => {
            assert!(text.contains("newer Crewgraph"), "{text}");
            assert!(text.contains("schema version 99"), "{text}");
            assert!(text.contains("update Crewgraph"), "says what to do: {text}");
        }
        other => panic!("expected Corrupt, got {other:?}"),
    }
    assert_eq!(version(&url).await, 99, "left as it was");
}

#[tokio::test]
async fn another_programs_runs_table_is_refused() {
    let url = testing::shared().database("foreign").await.unwrap();
    execute(&url, "CREATE TABLE runs (id integer)").await;
    match PostgresStore::connect(&url).await {
        Err(StoreError::Corrupt(text)) => assert!(text.contains("did not make"), "{text}"),
        other => panic!("expected Corrupt, got {other:?}"),
    }
    let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(connection);
    let tables: i64 = client.query_one("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'", &[]).await.unwrap().get(0);
    assert_eq!(tables, 1, "nothing was added beside it (the version table was rolled back too)");
}
