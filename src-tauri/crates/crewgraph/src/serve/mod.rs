//! # `crewgraph serve`: the API over HTTP + server-sent events
//!
//! The second transport of [`crate::api`] (DESIGN.md §1, §10): every operation of
//! [`Api`] as JSON over HTTP, each run's events as server-sent events that a client
//! can resume with `Last-Event-ID`, the OpenAPI document at `/openapi.json`, and
//! the built web UI at `/` for a browser. The handlers only parse, call the API and
//! shape the answer; what they do is the API's.
//!
//! How a request flows: [`routes`] (every operation's route made from its declaration,
//! [`crate::api::operations`]) reads it into the operation's request → [`Api`], which
//! reaches only the crews folder ([`crate::api::Reach`]) → an answer, or an
//! [`HttpError`], always `{code, message}`. Around them: `auth` (the bearer
//! token, compared in constant time), a body limit, and `error::json_errors`, which
//! gives the framework's own errors (405, 413 …) the same JSON shape. Runs go on in
//! the background ([`crate::api::LiveRuns`]); [`shutdown`] says how they stop.
//!
//! Safe by default: it listens on loopback; another address needs a token
//! ([`ServeError::NeedsToken`]); CORS is closed (no CORS headers at all, so a page of
//! another origin cannot read answers); bodies are limited ([`DEFAULT_BODY_LIMIT`]),
//! and so is the time to send a request's head, a request's whole time
//! ([`DEFAULT_REQUEST_TIMEOUT`]) and the connections one client may hold
//! ([`listen`]); crews are reached only inside the crews folder; no answer holds an
//! API key.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use crewgraph::api::Api;
//! use crewgraph::serve::{ServeConfig, Server};
//! let server = Server::bind(Api::new("crews"), ServeConfig::new("127.0.0.1:0".parse()?)).await?;
//! println!("listening on http://{}", server.local_addr());
//! server.run(crewgraph::serve::shutdown::signals()).await?;
//! # Ok(()) }
//! ```

mod auth;
mod error;
mod json;
pub mod listen;
pub mod openai;
mod openapi;
pub mod routes;
pub mod shutdown;
mod state;
mod ui;

use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crewgraph_engine::RunId;
use tokio::sync::Notify;

use crate::api::Api;

pub use crate::api::CrewsRoot;
pub use error::HttpError;

/// The largest request body taken (1 MiB): a crew, an agent or a script is far smaller.
pub const DEFAULT_BODY_LIMIT: usize = 1024 * 1024;

/// How long open requests may take to finish once the server is stopping.
pub const DEFAULT_DRAIN: Duration = Duration::from_secs(10);

/// The longest one request may take, its body included (not an answer's stream of
/// events, which goes on as long as its run).
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// How the server is set up.
#[derive(Clone, Debug)]
pub struct ServeConfig {
    /// Where it listens (port 0: any free port).
    pub addr: SocketAddr,
    /// The bearer token every API route then wants; needed for a non-loopback address.
    pub token: Option<String>,
    /// The built web UI to serve at `/` (None: no UI).
    pub ui_dir: Option<PathBuf>,
    /// The largest request body taken, in bytes.
    pub body_limit: usize,
    /// How long open requests may take to finish once the server is stopping.
    pub drain: Duration,
    /// The longest one request may take, its body included.
    pub request_timeout: Duration,
    /// What a connection may take: the time to send a request's head, and how many
    /// connections one client address may hold.
    pub connections: listen::Limits,
}

impl ServeConfig {
    /// Listens on `addr`, no token, the default limits, and the built UI
    /// (`ui/dist`) from the current folder or else the source tree the binary was
    /// built in.
    pub fn new(addr: SocketAddr) -> Self {
        Self {
            addr,
            token: None,
            ui_dir: ui::default_dir(),
            body_limit: DEFAULT_BODY_LIMIT,
            drain: DEFAULT_DRAIN,
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
            connections: listen::Limits::default(),
        }
    }
}

/// Why the server does not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// A non-loopback address without a token: anyone who can reach it could run crews.
    #[error(
        "refusing to listen on {0} without a token: anyone who can reach that address could use this server. \
         Give one with --token (or $CREWGRAPH_TOKEN), or listen on loopback (127.0.0.1)"
    )]
    NeedsToken(SocketAddr),
    /// `--token ''`.
    #[error("the token is empty: give a real one (a long random string), or none on loopback")]
    EmptyToken,
    /// The crews folder is missing or not a folder.
    #[error("the crews folder '{path}' cannot be served: {reason} (give one with --crews DIR)")]
    CrewsFolder { path: String, reason: String },
    /// The address cannot be bound (in use, not ours, …).
    #[error("cannot listen on {addr}: {reason}")]
    Bind { addr: SocketAddr, reason: String },
}

/// Checks the address and token together: loopback, or a non-empty token.
pub fn check_exposure(addr: SocketAddr, token: Option<&str>) -> Result<(), ServeError> {
    match token {
        Some(token) if token.trim().is_empty() => Err(ServeError::EmptyToken),
        None if !addr.ip().is_loopback() => Err(ServeError::NeedsToken(addr)),
        _ => Ok(()),
    }
}

/// A bound server, not answering yet.
pub struct Server {
    listener: tokio::net::TcpListener,
    app: axum::Router,
    api: Api,
    drain: Duration,
    connections: listen::Limits,
    /// Cancelled when the server stops: ends the MCP sessions of `/mcp`.
    stop: tokio_util::sync::CancellationToken,
}

/// How a server stopped.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stopped {
    /// The runs it interrupted (resumable).
    pub interrupted: Vec<RunId>,
    /// False when open requests were still going at the end of the drain time.
    pub drained: bool,
}

impl Server {
    /// Checks the setup and binds the address. The crews folder is `api`'s.
    pub async fn bind(api: Api, config: ServeConfig) -> Result<Server, ServeError> {
        check_exposure(config.addr, config.token.as_deref())?;
        let crews_dir = api.crews_dir().display().to_string();
        let api = api.within_crews_folder().map_err(|e| ServeError::CrewsFolder { path: crews_dir, reason: e.to_string() })?;
        let listener =
            tokio::net::TcpListener::bind(config.addr).await.map_err(|e| ServeError::Bind { addr: config.addr, reason: e.to_string() })?;
        let token = config.token.as_deref().map(auth::Token::new);
        let limits = routes::Limits { body: config.body_limit, request_time: config.request_timeout };
        let stop = tokio_util::sync::CancellationToken::new();
        let app = routes::app(api.clone(), token, config.ui_dir.as_deref(), limits, stop.clone());
        Ok(Server { listener, app, api, drain: config.drain, connections: config.connections, stop })
    }

    /// Where it listens.
    pub fn local_addr(&self) -> SocketAddr {
        self.listener.local_addr().unwrap_or_else(|_| SocketAddr::from(([127, 0, 0, 1], 0)))
    }

    /// Answers until `shutdown` resolves, then stops as [`shutdown`] describes.
    pub async fn run(self, shutdown: impl Future<Output = ()> + Send + 'static) -> std::io::Result<Stopped> {
        let Server { listener, app, api, drain, connections, stop } = self;
        let interrupted = Arc::new(Mutex::new(Vec::new()));
        let stopping = Arc::new(Notify::new());
        let graceful = {
            let (interrupted, stopping) = (interrupted.clone(), stopping.clone());
            async move {
                shutdown.await;
                stopping.notify_one();
                stop.cancel();
                let ids = api.interrupt_runs().await;
                *interrupted.lock().unwrap_or_else(|p| p.into_inner()) = ids;
            }
        };
        let serving = listen::serve(listener, app, connections, graceful);
        let drained = tokio::select! {
            () = serving => true,
            _ = async { stopping.notified().await; tokio::time::sleep(drain).await } => false,
        };
        let interrupted = std::mem::take(&mut *interrupted.lock().unwrap_or_else(|p| p.into_inner()));
        Ok(Stopped { interrupted, drained })
    }
}
