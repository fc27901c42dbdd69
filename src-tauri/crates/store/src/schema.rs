//! The schema's versions, in order. Each table's file holds its own migrations
//! (`V1`, later `V2` …); this list says in which order they ran, and its length is
//! the schema version SQLite keeps in the file (`user_version`, through
//! `rusqlite_migration`).
//!
//! To change a table: add a migration beside it and append it here. Never edit a
//! migration that has shipped: files out there already ran it.
//!
//! Before the first release the list was replaced once: development builds kept
//! events and history messages in tables of their own (`events`, `history`; nine
//! versions). Such a file is refused by name rather than mistaken for one from a
//! newer Crewgraph.

use rusqlite::Connection;
use rusqlite_migration::{Migrations, M};

use crate::error::Fault;
use crate::tables::{crew_revisions, crews, runs, runtime_agents, settings, steps};

/// Marks a file as Crewgraph's (`PRAGMA application_id`): "Crew" in ASCII.
pub(crate) const APPLICATION_ID: i64 = 0x4372_6577;

/// Version 1 marks the file; its tables follow.
const MARK: &str = "PRAGMA application_id = 1131570551;";

fn migrations() -> Migrations<'static> {
    Migrations::new(vec![
        M::up(MARK),
        M::up(crews::V1),
        M::up(crew_revisions::V1),
        M::up(runtime_agents::V1),
        M::up(settings::V1),
        M::up(runs::V1),
        M::up(steps::V1),
        M::up(runs::V2),
        M::up(runs::V3),
        M::up(steps::V2),
        M::up(runs::V4),
        M::up(runs::V5),
        M::up(runs::V6),
    ])
}

/// Brings the file to the latest schema, in one transaction.
pub(crate) fn migrate(conn: &mut Connection) -> Result<(), Fault> {
    let migrations = migrations();
    if is_pre_release(conn)? {
        return Err(Fault::Unreadable(
            "it was written by a development build of Crewgraph, whose layout this version does not read; \
             move the file away and Crewgraph starts a new one"
                .into(),
        ));
    }
    let error = match migrations.to_latest(conn) {
        Ok(()) => return Ok(()),
        // Another program migrated the file between our reading its version and
        // our taking the lock: it is up to date all the same.
        Err(_) if matches!(migrations.pending_migrations(conn), Ok(0)) => return Ok(()),
        Err(error) => error,
    };
    match error {
        rusqlite_migration::Error::RusqliteError { err, .. } => Err(Fault::Sqlite(err)),
        rusqlite_migration::Error::MigrationDefinition(rusqlite_migration::MigrationDefinitionError::DatabaseTooFarAhead) => {
            Err(Fault::Unreadable("it was written by a newer version of Crewgraph; update Crewgraph to open it".into()))
        }
        rusqlite_migration::Error::InvalidUserVersion => Err(Fault::Unreadable("its schema version was changed by another program".into())),
        other => Err(Fault::Unreadable(format!("its tables cannot be brought up to date: {other}"))),
    }
}

/// Whether the file has the layout of development builds (an `events` table).
fn is_pre_release(conn: &Connection) -> Result<bool, Fault> {
    let found: i64 =
        conn.query_row("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN ('events', 'history')", [], |row| row.get(0))?;
    Ok(found > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_migrations_are_valid_and_mark_the_file() {
        assert!(migrations().validate().is_ok());
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn).unwrap();
        let id: i64 = conn.pragma_query_value(None, "application_id", |row| row.get(0)).unwrap();
        assert_eq!(id, APPLICATION_ID);
        assert_eq!(format!("{APPLICATION_ID}"), MARK.trim_start_matches("PRAGMA application_id = ").trim_end_matches(';'));
    }

    #[test]
    fn a_file_of_the_development_layout_is_refused_by_name() {
        let mut conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(&format!(
            "{MARK} CREATE TABLE events (run INTEGER); CREATE TABLE history (run INTEGER); PRAGMA user_version = 9;"
        ))
        .unwrap();
        match migrate(&mut conn) {
            Err(Fault::Unreadable(message)) => assert!(message.contains("development build"), "{message}"),
            other => panic!("expected Unreadable, got {other:?}"),
        }
    }

    #[test]
    fn migrating_twice_changes_nothing() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn).unwrap();
        migrate(&mut conn).unwrap();
        let version: i64 = conn.pragma_query_value(None, "user_version", |row| row.get(0)).unwrap();
        assert_eq!(version, 13, "one version per migration, applied once");
    }

    #[test]
    fn runs_stored_before_token_counts_list_with_none_used() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrations().to_version(&mut conn, 7).unwrap();
        conn.execute_batch(
            "INSERT INTO runs (id, crew_name, crew_fingerprint, input, created_at, status, current_agent, handoffs, steps,
                               next_seq, strikes, recent, history_len, updated_at, stored_steps)
             VALUES ('run-old', 'Old', 'f', 'hi', 1, 'completed', 'a', 0, 1, 3, 0, '[]', 1, 2, 1);",
        )
        .unwrap();
        migrate(&mut conn).unwrap();
        let runs = crate::tables::runs::list(&conn).unwrap();
        assert_eq!(runs[0].id.as_str(), "run-old");
        assert_eq!(runs[0].tokens, crewgraph_engine::run::Usage::default());
    }

    #[test]
    fn runs_stored_before_leases_existed_are_held_by_nobody_and_can_be_leased() {
        use crewgraph_engine::run::{Lease, LeaseOutcome, Timestamp};
        let mut conn = Connection::open_in_memory().unwrap();
        migrations().to_version(&mut conn, 11).unwrap();
        conn.execute_batch(
            "INSERT INTO runs (id, crew_name, crew_fingerprint, input, created_at, status, current_agent, handoffs, steps,
                               next_seq, strikes, recent, history_len, updated_at, stored_steps)
             VALUES ('run-old', 'Old', 'f', 'hi', 1, 'running', 'a', 0, 1, 3, 0, '[]', 1, 2, 1);",
        )
        .unwrap();
        migrate(&mut conn).unwrap();
        let id = crewgraph_engine::ids::RunId::from("run-old");
        let mine = Lease { owner: "worker-a".into(), expires_at: Timestamp(1_500) };
        assert_eq!(
            crate::tables::runs::lease(&conn, &id, "worker-a", Timestamp(1_000), 500).unwrap(),
            Some(LeaseOutcome::Granted(mine.clone()))
        );
        assert_eq!(crate::tables::runs::lease(&conn, &id, "worker-b", Timestamp(1_200), 500).unwrap(), Some(LeaseOutcome::Held(mine)));
    }

    #[test]
    fn runs_stored_before_revisions_were_recorded_get_the_revision_of_their_fingerprint() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrations().to_version(&mut conn, 8).unwrap();
        conn.execute_batch(
            "INSERT INTO crews (id, path) VALUES (1, '/crews/desk.yaml');
             INSERT INTO crew_revisions (crew, revision, name, yaml, fingerprint, saved_at)
             VALUES (1, 1, 'Desk', 'name: Desk', 'f1', 1), (1, 2, 'Desk', 'name: Desk 2', 'f2', 2);",
        )
        .unwrap();
        for (id, fingerprint, path) in
            [("run-2", "f2", "/crews/desk.yaml"), ("run-x", "fx", "/crews/desk.yaml"), ("run-o", "f1", "/crews/other.yaml")]
        {
            conn.execute(
                "INSERT INTO runs (id, crew_name, crew_path, crew_fingerprint, input, created_at, status, current_agent, handoffs, steps,
                                   next_seq, strikes, recent, history_len, updated_at, stored_steps)
                 VALUES (?1, 'Desk', ?3, ?2, 'hi', 1, 'completed', 'a', 0, 1, 3, 0, '[]', 1, 2, 1)",
                [id, fingerprint, path],
            )
            .unwrap();
        }
        migrate(&mut conn).unwrap();
        let runs = crate::tables::runs::list(&conn).unwrap();
        let revision = |id: &str| runs.iter().find(|r| r.id.as_str() == id).unwrap().crew_revision;
        assert_eq!(revision("run-2"), Some(2), "the revision with the run's fingerprint");
        assert_eq!(revision("run-x"), None, "a version never kept as a revision");
        assert_eq!(revision("run-o"), None, "the same fingerprint in another crew is not this run's");
    }
}
