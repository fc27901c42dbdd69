//! A worker's health check (`crewgraph worker --health ADDR`): `GET /health`
//! answers 200 when the queue and the store both answer, 503 when either does not,
//! with what each said, how many runs the worker executes now and how many legs it
//! executed since it started:
//!
//! ```json
//! {"status":"ok","queue":"ok","store":"ok","running":3,"executed":120,"worker":"node-b:4121"}
//! ```
//!
//! Each check has two seconds; a load balancer or systemd's watchdog polls it.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::get;
use axum::{Json, Router};
use crewgraph_store_postgres::PostgresStore;
use serde::Serialize;

use crate::api::Cluster;

/// How long one check may take.
const CHECK: Duration = Duration::from_secs(2);

/// What the health check asks.
#[derive(Clone)]
pub struct Checked {
    pub cluster: Arc<Cluster>,
    pub store: Arc<PostgresStore>,
    pub running: Arc<AtomicUsize>,
    pub executed: Arc<AtomicUsize>,
    pub worker: String,
}

/// The answer to `GET /health`.
#[derive(Debug, Serialize)]
pub struct Health {
    /// `ok`, or `unavailable` when the queue or the store does not answer.
    pub status: &'static str,
    /// `ok`, or why the queue does not answer.
    pub queue: String,
    /// `ok`, or why the store does not answer.
    pub store: String,
    /// Runs the worker executes now.
    pub running: usize,
    /// Legs it executed to their end or pause since it started.
    pub executed: usize,
    pub worker: String,
}

async fn health(State(checked): State<Checked>) -> (StatusCode, Json<Health>) {
    let queue = match tokio::time::timeout(CHECK, checked.cluster.queue().ping()).await {
        Ok(Ok(())) => "ok".to_owned(),
        Ok(Err(error)) => error.to_string(),
        Err(_) => format!("the queue at {} did not answer within {} s", checked.cluster.queue().address(), CHECK.as_secs()),
    };
    let store = match tokio::time::timeout(CHECK, checked.store.ping()).await {
        Ok(Ok(())) => "ok".to_owned(),
        Ok(Err(error)) => error.to_string(),
        Err(_) => format!("{} did not answer within {} s", checked.store.describe(), CHECK.as_secs()),
    };
    let healthy = queue == "ok" && store == "ok";
    let answer = Health {
        status: if healthy { "ok" } else { "unavailable" },
        queue,
        store,
        running: checked.running.load(Ordering::Relaxed),
        executed: checked.executed.load(Ordering::Relaxed),
        worker: checked.worker,
    };
    (if healthy { StatusCode::OK } else { StatusCode::SERVICE_UNAVAILABLE }, Json(answer))
}

/// Serves `GET /health` on `addr` until `stop` completes; the address it listens on.
pub async fn serve(
    addr: SocketAddr,
    checked: Checked,
    stop: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<SocketAddr> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let local = listener.local_addr()?;
    let app = Router::new().route("/health", get(health)).with_state(checked);
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).with_graceful_shutdown(stop).await;
    });
    Ok(local)
}
