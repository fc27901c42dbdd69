//! The `crew_revisions` table: each distinct version of a crew's text that was
//! run or saved, numbered 1, 2, 3 … per crew. A revision is known by its
//! fingerprint: saving text whose fingerprint the crew already has returns that
//! revision's number instead of adding one (also when the crew went A → B → A).
//!
//! A version the crew has already is found by one read that locks nothing
//! ([`FOUND`]) — what nearly every run's start finds, so runs of one crew started at
//! once on many machines do not wait for each other. A new version is saved in one
//! transaction that first locks the crew's row ([`super::crews::ENSURE`]): two
//! programs saving versions of one crew at once take turns, so neither a number nor
//! a fingerprint is kept twice.

use crewgraph_engine::run::{CrewRevision, NewCrewRevision, StoreError, Timestamp};

use super::crews;
use super::runs::get;
use crate::error::{from_sql_int, to_sql_int, Fault};
use crate::store::PostgresStore;

pub(crate) const V1: &str = "
CREATE TABLE crew_revisions (
    crew        bigint NOT NULL REFERENCES crews (id) ON DELETE CASCADE,
    revision    bigint NOT NULL,   -- 1, 2, 3 … per crew
    name        text NOT NULL,
    yaml        text NOT NULL,
    fingerprint text NOT NULL,
    saved_at    bigint NOT NULL,   -- ms since the epoch
    PRIMARY KEY (crew, revision),
    UNIQUE (crew, fingerprint)
);
";

const KNOWN: &str = "SELECT revision FROM crew_revisions WHERE crew = $1 AND fingerprint = $2";

/// The revision of the crew at `$1` with fingerprint `$2`, read without a lock.
const FOUND: &str = "
SELECT r.revision FROM crew_revisions r JOIN crews c ON c.id = r.crew WHERE c.path = $1 AND r.fingerprint = $2";

const ADD: &str = "
INSERT INTO crew_revisions (crew, revision, name, yaml, fingerprint, saved_at)
SELECT $1, coalesce(max(revision), 0) + 1, $2, $3, $4, $5 FROM crew_revisions WHERE crew = $1
RETURNING revision";

const LIST: &str = "
SELECT r.revision, r.name, r.yaml, r.fingerprint, r.saved_at
FROM crew_revisions r JOIN crews c ON c.id = r.crew
WHERE c.path = $1 ORDER BY r.revision";

impl PostgresStore {
    /// Saves a version of a crew and returns its revision number: a new one for a
    /// fingerprint the crew has not had, the existing one otherwise.
    pub async fn save_crew_revision(&self, new: &NewCrewRevision) -> Result<u32, StoreError> {
        let saved = async {
            let saved_at = to_sql_int(new.saved_at.0, "the save time")?;
            let mut client = self.client().await?;
            let found = client.prepare_cached(FOUND).await?;
            if let Some(row) = client.query_opt(&found, &[&new.path, &new.fingerprint]).await? {
                return from_sql_int(get(&row, 0)?, "a revision number");
            }
            let transaction = client.transaction().await?;
            let crew: i64 = get(&transaction.query_one(crews::ENSURE, &[&new.path]).await?, 0)?;
            let revision: i64 = match transaction.query_opt(KNOWN, &[&crew, &new.fingerprint]).await? {
                Some(row) => get(&row, 0)?,
                None => get(&transaction.query_one(ADD, &[&crew, &new.name, &new.yaml, &new.fingerprint, &saved_at]).await?, 0)?,
            };
            transaction.commit().await?;
            from_sql_int(revision, "a revision number")
        };
        saved.await.map_err(|fault: Fault| fault.describe(&format!("save a revision of the crew {}", new.path), self.place()))
    }

    /// The revisions of the crew at `path`, oldest first; empty for a crew never saved.
    pub async fn crew_revisions(&self, path: &str) -> Result<Vec<CrewRevision>, StoreError> {
        let read = async {
            let mut revisions = Vec::new();
            for row in self.query(LIST, &[&path]).await? {
                revisions.push(CrewRevision {
                    revision: from_sql_int(get(&row, 0)?, "a revision number")?,
                    name: get(&row, 1)?,
                    yaml: get(&row, 2)?,
                    fingerprint: get(&row, 3)?,
                    saved_at: Timestamp(from_sql_int(get(&row, 4)?, "a save time")?),
                });
            }
            Ok(revisions)
        };
        read.await.map_err(|fault: Fault| fault.describe(&format!("read the revisions of the crew {path}"), self.place()))
    }
}
