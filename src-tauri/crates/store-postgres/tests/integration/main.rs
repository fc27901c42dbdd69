//! The PostgreSQL store's own tests, on a real server started by the tests
//! (`crewgraph_store_postgres::testing`). The `RunStore` contract itself is tested
//! by the shared conformance suite in `crewgraph-store` (its `postgres_store`
//! module); here is what only this store has:
//!
//! - [`connect`]: addresses that are not PostgreSQL's, servers that do not answer,
//!   refuse the login or lack the database, a server that stops under the store —
//!   each a `StoreError` in words, naming the host and port.
//! - [`schema`]: migrations applied once, by one of two programs opening a new
//!   database at once; a database from a newer Crewgraph, or another program's,
//!   refused untouched.
//! - [`tables`]: crew revisions, runtime agents and settings, as the SQLite store
//!   keeps them; saves of one crew at once take turns.

mod connect;
mod schema;
mod tables;
