//! Which database the CLI uses: `--db PATH`, else `$CREWGRAPH_DB`, else
//! `crewgraph.db` in the OS data directory.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crewgraph::api::Api;
use crewgraph_store::SqliteStore;

/// The database path: `--db`, else `$CREWGRAPH_DB`, else the default.
pub fn database_path(db: Option<&Path>) -> Result<PathBuf, String> {
    crewgraph::api::database_path(db).map_err(|e| e.message)
}

/// The API over the chosen database, creating it when missing (crews are not listed
/// by the CLI, so the crews folder is the current one).
pub fn open_api(db: Option<&Path>) -> Result<Api, String> {
    let path = database_path(db)?;
    let store = Arc::new(SqliteStore::open(&path).map_err(|e| format!("{e} (database {})", path.display()))?);
    Ok(Api::new("crews").with_sqlite(store))
}

/// The API over the chosen database if it exists: commands that only read
/// (`runs`, `replay`) do not create one.
pub fn open_existing(db: Option<&Path>) -> Result<Option<Api>, String> {
    let path = database_path(db)?;
    // A path that can never hold a database (under a file) is an error, not "no runs":
    // opening it says why.
    let impossible = path.ancestors().skip(1).any(|a| a.is_file());
    if !path.exists() && !impossible {
        return Ok(None);
    }
    open_api(Some(&path)).map(Some)
}

/// What a long-lived command (`serve`, `mcp`) holds: the database's path and store,
/// and a runtime for its tasks; or why it cannot start, in words.
pub fn open_host(db: Option<&Path>) -> Result<(PathBuf, Arc<SqliteStore>, tokio::runtime::Runtime), String> {
    let path = database_path(db)?;
    let store = SqliteStore::open(&path).map_err(|e| format!("{e} (database {})", path.display()))?;
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(|e| format!("cannot start: {e}"))?;
    Ok((path, Arc::new(store), runtime))
}
