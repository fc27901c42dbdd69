//! The `crew_revisions` table: each distinct version of a crew's YAML that was
//! run or saved, numbered 1, 2, 3 … per crew. A revision is known by its
//! fingerprint: saving text whose fingerprint the crew already has returns that
//! revision's number instead of adding one (also when the crew went A → B → A).
//! The values are the engine's ([`NewCrewRevision`], [`CrewRevision`]), which the
//! PostgreSQL store takes and gives back too.

use crewgraph_engine::run::StoreError;
pub use crewgraph_engine::run::{CrewRevision, NewCrewRevision};
use rusqlite::{params, Connection, OptionalExtension};

use super::crews;
use super::runs::timestamp;
use crate::error::{to_sql_int, Fault};
use crate::store::SqliteStore;

pub(crate) const V1: &str = "
CREATE TABLE crew_revisions (
    crew        INTEGER NOT NULL REFERENCES crews (id) ON DELETE CASCADE,
    revision    INTEGER NOT NULL,   -- 1, 2, 3 … per crew
    name        TEXT NOT NULL,
    yaml        TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    saved_at    INTEGER NOT NULL,   -- ms since the epoch
    PRIMARY KEY (crew, revision),
    UNIQUE (crew, fingerprint)
);
";

fn save(conn: &Connection, new: &NewCrewRevision) -> Result<u32, Fault> {
    let crew = crews::ensure(conn, &new.path)?;
    let known: Option<u32> = conn
        .prepare_cached("SELECT revision FROM crew_revisions WHERE crew = ?1 AND fingerprint = ?2")?
        .query_row(params![crew, new.fingerprint], |row| row.get(0))
        .optional()?;
    if let Some(revision) = known {
        return Ok(revision);
    }
    let revision: u32 = conn
        .prepare_cached("SELECT coalesce(max(revision), 0) + 1 FROM crew_revisions WHERE crew = ?1")?
        .query_row([crew], |row| row.get(0))?;
    conn.prepare_cached("INSERT INTO crew_revisions (crew, revision, name, yaml, fingerprint, saved_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)")?
        .execute(params![crew, revision, new.name, new.yaml, new.fingerprint, to_sql_int(new.saved_at.0, "the save time")?])?;
    Ok(revision)
}

fn list(conn: &Connection, path: &str) -> Result<Vec<CrewRevision>, Fault> {
    let Some(crew) = crews::find(conn, path)? else { return Ok(Vec::new()) };
    let mut statement =
        conn.prepare_cached("SELECT revision, name, yaml, fingerprint, saved_at FROM crew_revisions WHERE crew = ?1 ORDER BY revision")?;
    let mut rows = statement.query([crew])?;
    let mut revisions = Vec::new();
    while let Some(row) = rows.next()? {
        revisions.push(CrewRevision {
            revision: row.get(0)?,
            name: row.get(1)?,
            yaml: row.get(2)?,
            fingerprint: row.get(3)?,
            saved_at: timestamp(row, 4, "a save time")?,
        });
    }
    Ok(revisions)
}

impl SqliteStore {
    /// Saves a version of a crew and returns its revision number: a new one for a
    /// fingerprint the crew has not had, the existing one otherwise.
    pub async fn save_crew_revision(&self, new: &NewCrewRevision) -> Result<u32, StoreError> {
        let new = new.clone();
        self.write(format!("save a revision of the crew {}", new.path), move |conn, _| save(conn, &new)).await
    }

    /// The revisions of the crew at `path`, oldest first; empty for a crew never saved.
    pub async fn crew_revisions(&self, path: &str) -> Result<Vec<CrewRevision>, StoreError> {
        let path = path.to_owned();
        self.read(format!("read the revisions of the crew {path}"), move |conn| list(conn, &path)).await
    }
}
