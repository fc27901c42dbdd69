//! # crewgraph
//!
//! The one API that both of Crewgraph's hosts call — the desktop window (through
//! thin Tauri commands) and the HTTP + SSE server ([`serve`], `crewgraph serve`) —
//! and the `crewgraph` command line. Everything a window can do is a method of [`api::Api`]; the
//! types it returns cross to the UI as generated TypeScript (`ui/src/bindings`).
//!
//! ```no_run
//! use crewgraph::api::Api;
//! let api = Api::new("crews");
//! for crew in api.list_crews().unwrap() {
//!     println!("{} — {} agents, {} errors", crew.name, crew.agents, crew.errors);
//! }
//! ```

pub mod api;
pub mod mcp_server;
pub mod serve;
pub mod worker;
