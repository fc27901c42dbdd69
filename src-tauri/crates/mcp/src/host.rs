//! The tool servers of one process: each started on first use, shared by every run
//! (and the window's checks), restarted once if it dies, stopped when the host is
//! dropped or [`McpHost::stop`]ped. A server is known by its whole declaration, so
//! two crews naming different programs `files` get two servers.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use async_trait::async_trait;
use crewgraph_engine::crew::ToolServer;
use crewgraph_engine::run::{ServerTool, ToolHost, ToolOutput, ToolProgress};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::connection::{seconds, start, Connection};

/// The longest a server may take to start and answer `initialize`.
pub const START_LIMIT: Duration = Duration::from_secs(30);

/// Starts, keeps and calls tool servers.
pub struct McpHost {
    logs: PathBuf,
    slots: Mutex<HashMap<String, Arc<Slot>>>,
}

/// One server's place: its connection once started, and whether it was restarted.
#[derive(Default)]
struct Slot {
    running: tokio::sync::Mutex<Running>,
    /// The names of its tools when last asked, and the connection's count of changed
    /// lists then (a listing is stale once the server says its list changed).
    /// Weak: stopping the server takes its connection whole.
    listed: Mutex<Option<Listed>>,
}

/// A listing: the connection it came from, its count of changed lists then, the names.
type Listed = (Weak<Connection>, u64, Vec<String>);

#[derive(Default)]
struct Running {
    connection: Option<Arc<Connection>>,
    /// It died once and was started again.
    restarted: bool,
}

impl McpHost {
    /// A host whose servers write their standard error to `<logs>/<server>.log`.
    pub fn new(logs: impl Into<PathBuf>) -> Self {
        McpHost { logs: logs.into(), slots: Mutex::new(HashMap::new()) }
    }

    /// Where the servers' logs go.
    pub fn logs(&self) -> &Path {
        &self.logs
    }

    /// Stops every server started so far.
    pub async fn stop(&self) {
        let slots: Vec<Arc<Slot>> = self.slots.lock().map(|mut slots| slots.drain().map(|(_, s)| s).collect()).unwrap_or_default();
        for slot in slots {
            if let Some(connection) = slot.running.lock().await.connection.take() {
                if let Ok(connection) = Arc::try_unwrap(connection) {
                    connection.stop().await;
                }
            }
        }
    }

    /// The names of the tools `server` listed when last asked, when it still runs
    /// and has not said its list changed since; None otherwise. Starts nothing and
    /// asks nothing: for checking a crew while it is edited.
    pub fn listed(&self, server: &ToolServer) -> Option<Vec<String>> {
        let slot = self.slots.lock().ok()?.get(&format!("{:?}", server))?.clone();
        let listed = slot.listed.lock().ok()?;
        let (connection, changes, names) = listed.as_ref()?;
        let connection = connection.upgrade()?;
        (!connection.is_closed() && connection.list_changes() == *changes).then(|| names.clone())
    }

    /// The slot of `server`, made on first use.
    fn slot(&self, server: &ToolServer) -> Result<Arc<Slot>, String> {
        let mut slots = self.slots.lock().map_err(|_| named(server, "cannot be reached (a defect: the list of servers broke)"))?;
        Ok(slots.entry(format!("{:?}", server)).or_default().clone())
    }

    /// The running connection to `server`, started (or restarted once) as needed.
    async fn connection(&self, server: &ToolServer, cancel: &CancellationToken) -> Result<Arc<Connection>, String> {
        let slot = self.slot(server)?;
        let mut running = slot.running.lock().await;
        if let Some(connection) = &running.connection {
            if !connection.is_closed() {
                return Ok(connection.clone());
            }
            if running.restarted {
                return Err(named(server, "stopped again after it was restarted once, so it is not started a third time"));
            }
            tracing::warn!(server = %server.name, "tool server stopped; starting it again");
            running.restarted = true;
            running.connection = None;
        }
        let limit = START_LIMIT.min(server.timeout.max(Duration::from_secs(1)));
        let started = tokio::select! {
            _ = cancel.cancelled() => return Err(named(server, "was not started: the run was stopped")),
            started = tokio::time::timeout(limit, start(server, &self.logs)) => started,
        };
        let connection = match started {
            Err(_) => {
                let log = self.logs.join(format!("{}.log", server.name));
                let log = if log.exists() { format!(" (its log: {})", log.display()) } else { String::new() };
                return Err(named(server, &format!("did not answer MCP's 'initialize' within {}{log}", seconds(limit))));
            }
            Ok(Err(why)) => return Err(named(server, &why)),
            Ok(Ok(connection)) => Arc::new(connection),
        };
        running.connection = Some(connection.clone());
        Ok(connection)
    }
}

#[async_trait]
impl ToolHost for McpHost {
    async fn tools(&self, server: &ToolServer, cancel: &CancellationToken) -> Result<Vec<ServerTool>, String> {
        let mut connection = self.connection(server, cancel).await?;
        // Asking for the list changes nothing, so a server found gone is started
        // again (its one restart) and asked once more.
        for attempt in 0..2 {
            let changes = connection.list_changes();
            let listed = tokio::select! {
                _ = cancel.cancelled() => return Err(named(server, "was not asked for its tools: the run was stopped")),
                listed = tokio::time::timeout(server.timeout, connection.tools()) => listed,
            };
            match listed {
                Err(_) => return Err(named(server, &format!("did not list its tools within {}", seconds(server.timeout)))),
                Ok(Ok(tools)) => {
                    if let Ok(mut listed) = self.slot(server)?.listed.lock() {
                        *listed = Some((Arc::downgrade(&connection), changes, tools.iter().map(|t| t.name.clone()).collect()));
                    }
                    return Ok(tools);
                }
                Ok(Err(why)) if attempt == 0 && connection.is_closed() => {
                    tracing::warn!(server = %server.name, "tool server gone when asked for its tools ({why}); starting it again");
                    connection = self.connection(server, cancel).await?;
                }
                Ok(Err(why)) => return Err(named(server, &why)),
            }
        }
        Err(named(server, "did not list its tools"))
    }

    async fn call(
        &self,
        server: &ToolServer,
        tool: &str,
        arguments: &Value,
        progress: &(dyn Fn(ToolProgress) + Send + Sync),
        cancel: &CancellationToken,
    ) -> Result<ToolOutput, String> {
        let connection = self.connection(server, cancel).await?;
        connection.call(server, tool, arguments, progress, cancel).await.map_err(|why| named(server, &why))
    }
}

/// `the tool server 'files' <what>`.
fn named(server: &ToolServer, what: &str) -> String {
    format!("the tool server '{}' {what}", server.name)
}
