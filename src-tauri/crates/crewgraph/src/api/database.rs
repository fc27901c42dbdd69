//! Which database Crewgraph keeps its runs, settings and crew revisions in — the
//! same for the window, the CLI and the server: the one given (`--db PATH`), else
//! `$CREWGRAPH_DB`, else `crewgraph.db` in the OS data folder.

use std::path::{Path, PathBuf};

use crewgraph_store::SqliteStore;

use super::{ApiError, ApiErrorCode};

/// The database path: `given`, else `$CREWGRAPH_DB`, else the default.
pub fn database_path(given: Option<&Path>) -> Result<PathBuf, ApiError> {
    if let Some(path) = given.map(Path::to_path_buf).or_else(|| std::env::var_os("CREWGRAPH_DB").map(PathBuf::from)) {
        return Ok(path);
    }
    SqliteStore::default_path().map_err(|e| ApiError::new(ApiErrorCode::Store, e.to_string()))
}
