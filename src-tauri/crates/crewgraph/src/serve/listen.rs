//! The accept loop: HTTP/1.1 connections served by hyper with the limits a server on
//! a network needs against slow or greedy clients, which `axum::serve` does not set:
//!
//! - a client must send a request's head within [`Limits::header_read`] (a slowloris
//!   connection that dribbles its headers is closed);
//! - one client address holds at most [`Limits::per_client`] connections at once
//!   (more are closed as they arrive, so one client cannot use up the server);
//! - on shutdown it stops accepting, asks every connection to finish its request
//!   and waits for them (hyper-util's graceful shutdown).
//!
//! A request's total time (its body included) is limited by the router
//! ([`super::routes::app`]), where an answer can say so.
//!
//! What goes wrong with a connection is a `tracing` diagnostic, not an answer: a
//! failed accept is a warning, a connection closed over its client's share or
//! ended by an error (a timeout, a client gone) is at debug level
//! (`RUST_LOG=crewgraph=debug`).

use std::collections::HashMap;
use std::future::Future;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;

/// What a connection may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The longest a client may take to send a request's head.
    pub header_read: Duration,
    /// The most connections one client address may hold at once.
    pub per_client: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { header_read: Duration::from_secs(10), per_client: 64 }
    }
}

/// Serves `app` on `listener` until `shutdown` resolves, then drains the connections.
pub async fn serve(listener: TcpListener, app: Router, limits: Limits, shutdown: impl Future<Output = ()>) {
    let graceful = GracefulShutdown::new();
    let open = Arc::new(Mutex::new(HashMap::<IpAddr, usize>::new()));
    let mut builder = http1::Builder::new();
    builder.timer(TokioTimer::new()).header_read_timeout(limits.header_read);
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Out of file descriptors and the like: wait a little and go on,
                    // as hyper's own servers do.
                    tracing::warn!(%error, "cannot accept a connection; trying again in 50 ms");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let Some(slot) = ClientSlot::take(&open, peer.ip(), limits.per_client) else {
            tracing::debug!(%peer, most = limits.per_client, "closed a connection over its client's share");
            drop(stream); // over its share: closed at once
            continue;
        };
        let _ = stream.set_nodelay(true);
        let connection = builder.serve_connection(TokioIo::new(stream), TowerToHyperService::new(app.clone()));
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::debug!(%peer, %error, "connection ended by an error");
            }
            drop(slot);
        });
    }
    drop(listener);
    graceful.shutdown().await;
}

/// One open connection of a client address, counted until dropped.
struct ClientSlot {
    open: Arc<Mutex<HashMap<IpAddr, usize>>>,
    ip: IpAddr,
}

impl ClientSlot {
    /// A slot for `ip`, or None when it already holds `most` connections.
    fn take(open: &Arc<Mutex<HashMap<IpAddr, usize>>>, ip: IpAddr, most: usize) -> Option<ClientSlot> {
        let mut counts = open.lock().unwrap_or_else(|p| p.into_inner());
        let count = counts.entry(ip).or_default();
        if *count >= most {
            return None;
        }
        *count += 1;
        Some(ClientSlot { open: open.clone(), ip })
    }
}

impl Drop for ClientSlot {
    fn drop(&mut self) {
        let mut counts = self.open.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(count) = counts.get_mut(&self.ip) {
            *count -= 1;
            if *count == 0 {
                counts.remove(&self.ip);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_holds_at_most_its_share_and_gets_it_back_as_connections_close() {
        let open = Arc::new(Mutex::new(HashMap::new()));
        let ip: IpAddr = [127, 0, 0, 1].into();
        let first = ClientSlot::take(&open, ip, 2).unwrap();
        let _second = ClientSlot::take(&open, ip, 2).unwrap();
        assert!(ClientSlot::take(&open, ip, 2).is_none());
        assert!(ClientSlot::take(&open, [127, 0, 0, 2].into(), 2).is_some(), "another address has its own share");
        drop(first);
        assert!(ClientSlot::take(&open, ip, 2).is_some());
    }
}
