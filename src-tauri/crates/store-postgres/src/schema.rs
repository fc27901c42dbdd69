//! The schema's versions, in order, and how a database is brought to the latest.
//!
//! Each table's file holds its own migrations (`V1`, later `V2` …); [`MIGRATIONS`]
//! says in which order they run, and the number of those applied is kept in the
//! one-row table `schema_version`. At open, [`migrate`] applies the missing ones
//! in one transaction (PostgreSQL's DDL is transactional: all of them or none),
//! holding an advisory lock so that two programs opening a new database at once
//! wait for each other instead of both creating the tables. A database whose
//! version is past what this code knows was written by a newer Crewgraph, and is
//! refused rather than written to.
//!
//! To change a table: add a migration beside it and append it here. Never edit a
//! migration that has shipped: databases out there already ran it.

use deadpool_postgres::Object;

use crate::error::Fault;
use crate::tables::{crew_revisions, crews, events, runs, runtime_agents, settings, steps};

/// Every migration, in the order they run; the schema version is how many ran.
pub(crate) const MIGRATIONS: &[&str] =
    &[runs::V1, steps::V1, events::V1, crews::V1, crew_revisions::V1, runtime_agents::V1, settings::V1, runs::V2, runs::V3, runs::V4];

/// The key of the advisory lock held while migrating: "Crew" in ASCII.
const LOCK: i64 = 0x4372_6577;

const VERSION_TABLE: &str = "
CREATE TABLE IF NOT EXISTS schema_version (
    one     boolean PRIMARY KEY DEFAULT true CHECK (one),   -- a single row
    version integer NOT NULL                                 -- how many migrations ran
)";

/// Brings the database to the latest schema, in one transaction.
pub(crate) async fn migrate(client: &mut Object) -> Result<(), Fault> {
    migrate_to(client, MIGRATIONS).await
}

/// Brings the database to the end of `migrations` (the tests also use a shorter
/// or a longer list).
pub(crate) async fn migrate_to(client: &mut Object, migrations: &[&str]) -> Result<(), Fault> {
    let known = i32::try_from(migrations.len()).unwrap_or(i32::MAX);
    let transaction = client.transaction().await?;
    transaction.execute("SELECT pg_advisory_xact_lock($1)", &[&LOCK]).await?;
    transaction.batch_execute(VERSION_TABLE).await?;
    let version: Option<i32> = transaction.query_opt("SELECT version FROM schema_version", &[]).await?.map(|row| row.get(0));
    let version = match version {
        Some(version) => version,
        None => {
            let foreign: bool = transaction.query_one("SELECT to_regclass('runs') IS NOT NULL", &[]).await?.get(0);
            if foreign {
                return Err(Fault::Unreadable(
                    "it already has a table 'runs' that Crewgraph did not make; give Crewgraph a database of its own".into(),
                ));
            }
            0
        }
    };
    if version > known {
        return Err(Fault::Unreadable(format!(
            "it was brought to schema version {version} by a newer Crewgraph, and this one knows versions up to {known}; \
             update Crewgraph to use it"
        )));
    }
    let first = usize::try_from(version).unwrap_or(0);
    for migration in &migrations[first..] {
        transaction.batch_execute(migration).await?;
    }
    if version < known {
        transaction
            .execute(
                "INSERT INTO schema_version (one, version) VALUES (true, $1) ON CONFLICT (one) DO UPDATE SET version = excluded.version",
                &[&known],
            )
            .await?;
    }
    transaction.commit().await?;
    Ok(())
}
