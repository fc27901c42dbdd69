//! Which database the CLI uses: `--db PATH`, else `$CREWGRAPH_DB`, else
//! `crewgraph.db` in the OS data directory — or, for `crewgraph serve`, a
//! PostgreSQL database shared with other machines (`--store postgres://…`, else
//! `$CREWGRAPH_STORE` when no `--db` is given; docs/scale-out.md).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crewgraph::api::Api;
use crewgraph_store::SqliteStore;
use crewgraph_store_postgres::PostgresStore;

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

/// Where a long-lived command keeps runs, settings, runtime agents and crew revisions.
pub enum Backing {
    /// A database file of this machine's own.
    File(PathBuf, Arc<SqliteStore>),
    /// A PostgreSQL database, shared with the other machines that open it.
    Postgres(Arc<PostgresStore>),
}

impl Backing {
    /// The API over it, on the crews of `crews`.
    pub fn api(&self, crews: &Path) -> Api {
        match self {
            Backing::File(_, store) => Api::new(crews).with_sqlite(store.clone()),
            Backing::Postgres(store) => {
                // Tool servers' logs stay on this machine, where the file database would be.
                let logs = SqliteStore::default_path().ok().and_then(|p| p.parent().map(|d| d.join("tool-logs")));
                let api = Api::new(crews).with_postgres(store.clone());
                match logs {
                    Some(logs) => api.with_tool_logs(logs),
                    None => api,
                }
            }
        }
    }

    /// How messages name it: "database PATH", or the PostgreSQL database and where it is.
    pub fn describe(&self) -> String {
        match self {
            Backing::File(path, _) => format!("database {}", path.display()),
            Backing::Postgres(store) => store.describe(),
        }
    }
}

/// What `serve` holds: where it keeps runs — `store` (a `postgres://` address),
/// else `$CREWGRAPH_STORE` when no `db` is given, else the database file — and a
/// runtime for its tasks (the PostgreSQL store's connections live on it); or why
/// it cannot start, in words.
pub fn open_serve_host(db: Option<&Path>, store: Option<&str>) -> Result<(Backing, tokio::runtime::Runtime), String> {
    let from_env = || if db.is_none() { std::env::var("CREWGRAPH_STORE").ok().filter(|url| !url.trim().is_empty()) } else { None };
    let Some(url) = store.map(str::to_owned).or_else(from_env) else {
        let (path, store, runtime) = open_host(db)?;
        return Ok((Backing::File(path, store), runtime));
    };
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(|e| format!("cannot start: {e}"))?;
    let store = runtime.block_on(PostgresStore::connect(&url)).map_err(|e| e.to_string())?;
    Ok((Backing::Postgres(Arc::new(store)), runtime))
}
