//! Connecting: every way it can fail is a `StoreError` a person can act on — it
//! names the server (`host:port`), says what to check, and never shows a password
//! or the driver's types.

use std::time::Duration;

use crewgraph_engine::run::{RunStore, StoreError};
use crewgraph_store_postgres::testing::{self, PostgresServer};
use crewgraph_store_postgres::{PostgresOptions, PostgresStore};

fn quick() -> PostgresOptions {
    PostgresOptions { connect_timeout: Duration::from_secs(5), wait_timeout: Duration::from_secs(5), ..PostgresOptions::default() }
}

async fn refused(url: &str) -> String {
    match PostgresStore::connect_with(url, &quick()).await {
        Err(StoreError::Io(text)) => text,
        other => panic!("expected Io for {url}, got {other:?}"),
    }
}

/// No Rust type name or debug output reaches a person.
fn assert_in_words(text: &str) {
    for internal in ["Error {", "kind:", "tokio_postgres", "PoolError", "Some(", "DbError"] {
        assert!(!text.contains(internal), "'{internal}' in: {text}");
    }
}

#[tokio::test]
async fn an_address_that_is_not_postgres_is_refused_before_connecting() {
    let text = refused("sqlite:///home/me/crewgraph.db").await;
    assert!(text.contains("is not a PostgreSQL address"), "{text}");
    assert!(text.contains("postgres://"), "shows what an address looks like: {text}");
    let text = refused("postgres://crew:hunter2@db.example:port/runs").await;
    assert!(!text.contains("hunter2"), "never the password: {text}");
    assert_in_words(&text);
}

#[tokio::test]
async fn a_port_nothing_listens_on_is_io_naming_host_and_port() {
    // A port that was free a moment ago: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let text = refused(&format!("postgres://crew@127.0.0.1:{port}/crewgraph")).await;
    assert!(text.contains(&format!("127.0.0.1:{port}")), "{text}");
    assert!(text.contains("nothing answers"), "{text}");
    assert!(text.contains("'crewgraph'"), "names the database: {text}");
    assert_in_words(&text);
}

#[tokio::test]
async fn a_missing_database_and_an_unknown_user_are_refused_in_words() {
    let server = testing::shared();
    let text = refused(&server.url("no_such_database")).await;
    assert!(text.contains("has no such database"), "{text}");
    assert!(text.contains("createdb no_such_database"), "says what to do: {text}");
    assert_in_words(&text);
    let url = format!("postgres://ghost@127.0.0.1:{}/postgres", server.port());
    let text = refused(&url).await;
    assert!(text.contains("refused the login"), "{text}");
    assert!(text.contains("ghost"), "the server's own words name the user: {text}");
    assert_in_words(&text);
}

#[tokio::test]
async fn a_server_that_stops_under_the_store_is_io_naming_it() {
    // A server of its own: this test stops it.
    let mut server = PostgresServer::start().unwrap();
    let url = server.database("stops").await.unwrap();
    let store = PostgresStore::connect_with(&url, &quick()).await.unwrap();
    assert!(store.list_runs().await.unwrap().is_empty());
    server.stop();
    match store.list_runs().await {
        Err(StoreError::Io(text)) => {
            assert!(text.contains(&format!("127.0.0.1:{}", server.port())), "{text}");
            assert!(text.contains("list the runs"), "says what failed: {text}");
            assert_in_words(&text);
        }
        other => panic!("expected Io, got {other:?}"),
    }
}

#[tokio::test]
async fn the_store_names_its_database_without_the_password() {
    let url = testing::shared().database("named").await.unwrap();
    let store = PostgresStore::connect(&url).await.unwrap();
    let name = store.describe();
    assert!(name.starts_with("the PostgreSQL database 'named_"), "{name}");
    assert!(name.ends_with(&format!("at 127.0.0.1:{}", testing::shared().port())), "{name}");
}
