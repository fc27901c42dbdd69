//! Which database the CLI uses: `--db PATH`, else `$CREWGRAPH_DB`, else
//! `crewgraph.db` in the OS data directory.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crewgraph::api::Api;
use crewgraph_store::SqliteStore;

/// The API over the chosen database (crews are not listed by the CLI, so the crews
/// folder is the current one).
pub fn open_api(db: Option<&Path>) -> Result<Api, String> {
    let path = match db.map(Path::to_path_buf).or_else(|| std::env::var_os("CREWGRAPH_DB").map(PathBuf::from)) {
        Some(path) => path,
        None => SqliteStore::default_path().map_err(|e| e.to_string())?,
    };
    let store = SqliteStore::open(&path).map_err(|e| format!("{e} (database {})", path.display()))?;
    Ok(Api::new("crews").with_store(Arc::new(store)))
}
