//! One started tool server: the child process or the HTTP session, initialized, with
//! what it says between answers (progress, a changed tool list) heard.
//!
//! A child gets the environment a program needs to run (`PATH`, `HOME`, the
//! locale …) and the `env` of its declaration — not the rest of Crewgraph's
//! environment, where model keys may be. Its standard error goes to a log file of
//! its own, never into a run's events. It leads a process group of its own, is killed
//! with the group when dropped, and on Linux is told to stop when Crewgraph dies.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crewgraph_engine::crew::{ServerTransport, ToolServer};
use crewgraph_engine::run::{ServerTool, ToolOutput, ToolProgress};
use process_wrap::tokio::{CommandWrap, KillOnDrop};
use reqwest::header::{HeaderName, HeaderValue};
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelledNotification, CancelledNotificationParam, ClientCapabilities, ClientConfig,
    ClientNotification, ClientRequest, Implementation, ProgressNotificationParam, ProgressToken, ServerResult,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RoleClient, RunningService, ServiceError, ServiceExt};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::ClientHandler;
use serde_json::Value;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::output::output;
use crate::values::{resolve, Resolved};

/// What a server's process inherits from Crewgraph's environment.
const PASSED_ON: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "TERM",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "TMPDIR",
    "TZ",
    "XDG_RUNTIME_DIR",
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
    "XDG_DATA_HOME",
    "SYSTEMROOT",
    "WINDIR",
    "APPDATA",
    "LOCALAPPDATA",
    "USERPROFILE",
    "PROGRAMFILES",
    "TEMP",
    "TMP",
    "COMSPEC",
    "PATHEXT",
];

/// A started, initialized server.
pub struct Connection {
    service: RunningService<RoleClient, Listener>,
    listener: Listener,
    /// Its secrets, blanked out of what it says.
    values: Resolved,
    /// Where its standard error goes (a child's).
    pub log: Option<PathBuf>,
    /// A call found the connection gone (before the SDK may have noticed).
    gone: AtomicBool,
}

/// Hears what a server says between answers.
#[derive(Clone, Default)]
pub struct Listener(Arc<Heard>);

#[derive(Default)]
struct Heard {
    /// Calls waiting for progress, by their progress token.
    progress: Mutex<HashMap<ProgressToken, mpsc::UnboundedSender<ToolProgress>>>,
    /// How many times the server said its tool list changed.
    changes: AtomicU64,
}

impl ClientHandler for Listener {
    fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _: NotificationContext<RoleClient>,
    ) -> impl std::future::Future<Output = ()> + Send + '_ {
        if let Some(sender) = self.0.progress.lock().ok().and_then(|calls| calls.get(&params.progress_token).cloned()) {
            let _ = sender.send(ToolProgress { progress: params.progress, total: params.total, message: params.message });
        }
        std::future::ready(())
    }

    fn on_tool_list_changed(&self, _: NotificationContext<RoleClient>) -> impl std::future::Future<Output = ()> + Send + '_ {
        // The SDK empties its kept tool list itself; the count is for whoever shows it.
        self.0.changes.fetch_add(1, Ordering::Relaxed);
        std::future::ready(())
    }

    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(ClientCapabilities::default(), Implementation::new("crewgraph", env!("CARGO_PKG_VERSION")))
    }
}

/// Starts `server` and initializes it (no time limit here: the caller sets one).
/// Err is why, in words, without the server's name (the caller adds it).
pub async fn start(server: &ToolServer, logs: &Path) -> Result<Connection, String> {
    let listener = Listener::default();
    match &server.transport {
        ServerTransport::Stdio { command, args, env, cwd } => {
            let values = resolve(&server.name, "the environment variable", env)?;
            let log = log_file(logs, &server.name)?;
            let mut child = tokio::process::Command::new(command);
            child.args(args).env_clear().stdin(Stdio::piped()).stdout(Stdio::piped());
            for name in PASSED_ON {
                if let Some(value) = std::env::var_os(name) {
                    child.env(name, value);
                }
            }
            for (name, value) in &values.pairs {
                child.env(name, value.expose());
            }
            if let Some(cwd) = cwd {
                child.current_dir(cwd);
            }
            crewgraph_llm::local::die_with_parent(&mut child);
            let mut wrapped = CommandWrap::from(child);
            wrapped.wrap(KillOnDrop);
            #[cfg(unix)]
            wrapped.wrap(process_wrap::tokio::ProcessGroup::leader());
            let stderr = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&log)
                .map_err(|e| format!("could not start: its log {} cannot be written ({e})", log.display()))?;
            let (transport, _) = TokioChildProcess::builder(wrapped).stderr(stderr).spawn().map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => format!("could not start: the command '{command}' was not found (is it installed?)"),
                std::io::ErrorKind::PermissionDenied => format!("could not start: '{command}' may not be run ({e})"),
                _ => format!("could not start '{command}': {e}"),
            })?;
            let service = listener.clone().serve(transport).await.map_err(|e| {
                let said = last_lines(&log);
                format!("did not start as an MCP server: {}{said}", values.hide(&initialize_error(&e.to_string())))
            })?;
            Ok(Connection { service, listener, values, log: Some(log), gone: AtomicBool::new(false) })
        }
        ServerTransport::Http { url, headers } => {
            let values = resolve(&server.name, "the header", headers)?;
            let mut config = StreamableHttpClientTransportConfig::with_uri(url.as_str());
            let mut custom = HashMap::new();
            for (name, value) in &values.pairs {
                if name.eq_ignore_ascii_case("authorization") {
                    if let Some(token) = value.expose().strip_prefix("Bearer ") {
                        config = config.auth_header(token.to_owned());
                        continue;
                    }
                }
                let header =
                    HeaderName::from_bytes(name.as_bytes()).map_err(|_| format!("has a header name that cannot be sent: '{name}'"))?;
                let value =
                    HeaderValue::from_str(value.expose()).map_err(|_| format!("has a value of the header {name} that cannot be sent"))?;
                custom.insert(header, value);
            }
            let client = reqwest::Client::builder()
                .user_agent(concat!("crewgraph/", env!("CARGO_PKG_VERSION")))
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .map_err(|e| format!("could not be reached: {e}"))?;
            let transport = StreamableHttpClientTransport::with_client(client, config.custom_headers(custom));
            let service = listener
                .clone()
                .serve(transport)
                .await
                .map_err(|e| format!("did not answer as an MCP server at {url}: {}", values.hide(&initialize_error(&e.to_string()))))?;
            Ok(Connection { service, listener, values, log: None, gone: AtomicBool::new(false) })
        }
    }
}

impl Connection {
    /// The connection has ended (the process exited, the session closed).
    pub fn is_closed(&self) -> bool {
        self.gone.load(Ordering::Relaxed) || self.service.is_closed()
    }

    /// How many times the server said its tool list changed.
    pub fn list_changes(&self) -> u64 {
        self.listener.0.changes.load(Ordering::Relaxed)
    }

    /// Every tool of the server (all pages; kept by the SDK until the list changes).
    pub async fn tools(&self) -> Result<Vec<ServerTool>, String> {
        let tools = self.service.peer().list_all_tools().await.map_err(|e| self.failed("did not list its tools", e))?;
        Ok(tools
            .into_iter()
            .map(|tool| ServerTool {
                name: tool.name.to_string(),
                description: tool.description.map(|d| d.to_string()).unwrap_or_default(),
                parameters: Value::Object((*tool.input_schema).clone()),
                read_only: tool.annotations.and_then(|a| a.read_only_hint).unwrap_or(false),
            })
            .collect())
    }

    /// Calls `tool` within `server`'s timeout, passing progress on; cancelling tells
    /// the server (`notifications/cancelled`).
    pub async fn call(
        &self,
        server: &ToolServer,
        tool: &str,
        arguments: &Value,
        progress: &(dyn Fn(ToolProgress) + Send + Sync),
        cancel: &CancellationToken,
    ) -> Result<ToolOutput, String> {
        let mut params = CallToolRequestParams::new(tool.to_owned());
        params.arguments = arguments.as_object().cloned();
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let peer = self.service.peer();
        let options = PeerRequestOptions::with_timeout(server.timeout);
        let handle = peer.send_cancellable_request(request, options).await.map_err(|e| self.failed("could not be asked", e))?;
        let (id, token) = (handle.id.clone(), handle.progress_token.clone());
        let (tx, mut heard) = mpsc::unbounded_channel();
        if let Ok(mut calls) = self.listener.0.progress.lock() {
            calls.insert(token.clone(), tx);
        }
        let answer = handle.await_response();
        tokio::pin!(answer);
        let result = loop {
            tokio::select! {
                biased;
                _ = cancel.cancelled() => {
                    let notice = CancelledNotification::new(CancelledNotificationParam::new(
                        Some(id.clone()),
                        Some("the run was stopped".to_owned()),
                    ));
                    let _ = peer.send_notification(ClientNotification::CancelledNotification(notice)).await;
                    break Err("was stopped: the run was stopped".to_owned());
                }
                Some(p) = heard.recv() => progress(p),
                answer = &mut answer => break match answer {
                    Ok(ServerResult::CallToolResult(result)) => output(&result),
                    Ok(ServerResult::InputRequiredResult(_)) => {
                        Err("asked for more input in the middle of the call, which Crewgraph cannot give yet".to_owned())
                    }
                    Ok(ServerResult::CreateTaskResult(_)) => {
                        Err("answered with a task to follow later, which Crewgraph does not follow yet".to_owned())
                    }
                    Ok(_) => Err("answered with something that is not a tool's result".to_owned()),
                    Err(e) => Err(self.failed(&format!("failed in {tool}"), e)),
                },
            }
        };
        // The server's last words may still be on their way to `heard`: the SDK hands
        // each notification to a task of its own, so the answer can come first. What
        // is there by now, or once those tasks had their turn, is passed on.
        for _ in 0..4 {
            while let Ok(p) = heard.try_recv() {
                progress(p);
            }
            tokio::task::yield_now().await;
        }
        while let Ok(p) = heard.try_recv() {
            progress(p);
        }
        if let Ok(mut calls) = self.listener.0.progress.lock() {
            calls.remove(&token);
        }
        result.map(|out| ToolOutput { text: self.values.hide(&out.text), ..out }).map_err(|e| self.values.hide(&e))
    }

    /// Stops the server: the session closes, the child and its group are killed.
    pub async fn stop(mut self) {
        let _ = self.service.close_with_timeout(std::time::Duration::from_secs(2)).await;
    }

    /// A failure of the connection in words: a timeout, a stop, or what the server said.
    fn failed(&self, doing: &str, error: ServiceError) -> String {
        if matches!(error, ServiceError::TransportClosed | ServiceError::TransportSend(_)) {
            self.gone.store(true, Ordering::Relaxed);
        }
        let said = self.log.as_deref().map(last_lines).unwrap_or_default();
        self.values.hide(&match error {
            ServiceError::Timeout { timeout } => format!("did not answer within {}", seconds(timeout)),
            ServiceError::TransportClosed => format!("stopped ({doing}){said}"),
            ServiceError::McpError(data) => format!("{doing}: it said \"{}\"", data.message),
            ServiceError::UnexpectedResponse => format!("{doing}: it answered something that does not fit the question"),
            other => format!("{doing}: {other}"),
        })
    }
}

/// The log file of the server `name` in `logs` (made if missing).
fn log_file(logs: &Path, name: &str) -> Result<PathBuf, String> {
    std::fs::create_dir_all(logs).map_err(|e| format!("could not start: its log folder {} cannot be made ({e})", logs.display()))?;
    Ok(logs.join(format!("{name}.log")))
}

/// The last lines a child wrote to its log, as `; its log (PATH) ends: …`.
fn last_lines(log: &Path) -> String {
    let Ok(text) = std::fs::read_to_string(log) else { return String::new() };
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.is_empty() {
        return format!("; its log ({}) is empty", log.display());
    }
    let tail = lines[lines.len().saturating_sub(3)..].join(" / ");
    let tail: String = tail.chars().take(400).collect();
    format!("; its log ({}) ends: {tail}", log.display())
}

/// What went wrong while initializing, without the SDK's message dumps.
fn initialize_error(said: &str) -> String {
    if said.starts_with("connection closed") {
        "it stopped before it answered".to_owned()
    } else if said.starts_with("expect initialized") {
        "it did not answer MCP's 'initialize' as an MCP server does".to_owned()
    } else if said.starts_with("no compatible protocol version") {
        "it speaks no version of MCP Crewgraph speaks".to_owned()
    } else {
        said.chars().take(300).collect()
    }
}

/// `60s`, `1.5s`.
pub fn seconds(duration: std::time::Duration) -> String {
    if duration.subsec_millis() == 0 {
        format!("{}s", duration.as_secs())
    } else {
        format!("{:.1}s", duration.as_secs_f64())
    }
}
