//! Tools from MCP servers as the engine sees them (`docs/tools.md`): a [`ToolHost`]
//! lists the tools of a [`ToolServer`] and calls them. The host process implements
//! it (the `crewgraph-mcp` crate, on the official MCP SDK), as it implements
//! [`super::tools::HttpFetch`] for `http_get`: the engine starts no process and opens
//! no connection itself.
//!
//! Everything a server says is untrusted: its tool names and descriptions go to the
//! model as they are, but its results are capped, and a server's failure is an error
//! in words naming the server.

use async_trait::async_trait;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::crew::ToolServer;

/// One tool a server offers.
#[derive(Clone, Debug, PartialEq)]
pub struct ServerTool {
    /// Its name on the server (`read_text_file`).
    pub name: String,
    pub description: String,
    /// The JSON schema of its arguments, as the server gave it.
    pub parameters: Value,
    /// The server says it changes nothing (`readOnlyHint`).
    pub read_only: bool,
}

/// What a call gave back.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolOutput {
    /// The result as the agent sees it (text; images and resources named).
    pub text: String,
    /// The server said the call failed (`isError`): the text says why.
    pub is_error: bool,
}

/// A server's word on a long call (`notifications/progress`).
#[derive(Clone, Debug, PartialEq)]
pub struct ToolProgress {
    pub progress: f64,
    pub total: Option<f64>,
    pub message: Option<String>,
}

/// Lists and calls the tools of MCP servers. Errors are sentences naming the server.
#[async_trait]
pub trait ToolHost: Send + Sync {
    /// The tools `server` offers now (every page of `tools/list`), starting it when
    /// it is not running yet.
    async fn tools(&self, server: &ToolServer, cancel: &CancellationToken) -> Result<Vec<ServerTool>, String>;

    /// Calls `tool` of `server` with `arguments` (an object), within the server's
    /// timeout; `progress` hears the server's progress notifications. Cancelling
    /// tells the server (`notifications/cancelled`).
    async fn call(
        &self,
        server: &ToolServer,
        tool: &str,
        arguments: &Value,
        progress: &(dyn Fn(ToolProgress) + Send + Sync),
        cancel: &CancellationToken,
    ) -> Result<ToolOutput, String>;
}
