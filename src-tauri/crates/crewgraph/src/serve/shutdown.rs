//! Stopping well (SIGTERM, SIGINT / Ctrl-C): stop taking connections, interrupt the
//! runs going on — each stays `running` in the store with every stored step, so it
//! is resumable from there (`POST /runs/{id}/resume`, `crewgraph resume`), and its
//! watchers are told so (`event: interrupted`) — let open requests finish for a
//! while, then close the store, whose writer finishes every write it was given.
//!
//! Why interrupt rather than cancel: a cancelled run is over, and the person who
//! started it has lost it to a restart they did not ask for; an interrupted one goes
//! on where it stood once the server is back. The cost is the current step's unsaved
//! work, redone on resume.

use std::future::Future;

/// A future that resolves on SIGTERM or SIGINT. The handlers are in place when this
/// returns (before the server says it is listening): a signal that came earlier
/// would end the process without any of the above.
pub fn signals() -> impl Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let handlers = signal(SignalKind::terminate()).and_then(|t| Ok((t, signal(SignalKind::interrupt())?)));
        async move {
            match handlers {
                Ok((mut terminate, mut interrupt)) => {
                    tokio::select! {
                        _ = terminate.recv() => {}
                        _ = interrupt.recv() => {}
                    }
                }
                Err(_) => {
                    let _ = tokio::signal::ctrl_c().await;
                }
            }
        }
    }
    #[cfg(not(unix))]
    {
        async {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}
