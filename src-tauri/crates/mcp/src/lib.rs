//! Tools from MCP servers for Crewgraph's runs (`docs/tools.md`).
//!
//! [`McpHost`] implements the engine's [`ToolHost`](crewgraph_engine::run::ToolHost)
//! on the official Rust SDK (`rmcp`): it starts a server on first use — a child
//! process speaking JSON-RPC on stdio, or a server at a URL over Streamable HTTP —
//! shares it between the runs of the process, lists its tools (every page; a
//! `notifications/tools/list_changed` empties the list kept), calls them within the
//! server's timeout, passes progress on and tells the server when a call is
//! cancelled, and stops the children with no orphan left.
//!
//! - [`values`]: environment variables and headers, with the keys they name
//!   resolved (secrets never leave this crate but to the server);
//! - [`connection`]: one started server;
//! - [`output`]: a tool's result as the agent sees it;
//! - [`host`]: the servers of a process, started once and restarted once.

pub mod connection;
pub mod host;
pub mod output;
pub mod values;

pub use host::McpHost;
