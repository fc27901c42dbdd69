//! `crewgraph worker`: executes runs from a Redis queue, keeping them in a
//! PostgreSQL database shared with the API nodes (see [`crewgraph::worker`] and
//! docs/scale-out.md). It says what it works on (stderr) and, with `--health`,
//! where its health check listens (stdout: `crewgraph worker: health at
//! http://ADDR/health`); on SIGTERM or Ctrl-C it stops taking runs, lets each leg
//! finish the step it is in, hands those runs back to the queue, and exits 0.
//! Without a queue or a store it refuses to start (exit 2); one it cannot reach or
//! use stops it (exit 1), saying which and why — never a password.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use crewgraph::api::Cluster;
use crewgraph::serve::shutdown;
use crewgraph::worker::{default_id, health, Worker, WorkerConfig};
use crewgraph_queue::RedisQueue;
use crewgraph_store_postgres::PostgresStore;
use tokio_util::sync::CancellationToken;

use super::store::Backing;
use super::terminal::{say, tell};

/// What `worker` is given.
pub struct WorkerArgs {
    pub queue: Option<String>,
    pub store: Option<String>,
    pub concurrency: usize,
    pub id: Option<String>,
    pub health: Option<SocketAddr>,
    pub crews: PathBuf,
    pub drain: Duration,
    pub lease: Duration,
}

/// `--queue`, else `$CREWGRAPH_QUEUE`; `--store`, else `$CREWGRAPH_STORE`.
fn address(given: Option<String>, variable: &str) -> Option<String> {
    given.or_else(|| std::env::var(variable).ok()).filter(|url| !url.trim().is_empty())
}

pub fn run(args: WorkerArgs) -> ExitCode {
    let Some(queue_url) = address(args.queue, "CREWGRAPH_QUEUE") else {
        tell!("crewgraph worker: it needs the queue to take runs from: --queue redis://HOST:PORT (or $CREWGRAPH_QUEUE)");
        return ExitCode::from(2);
    };
    let Some(store_url) = address(args.store, "CREWGRAPH_STORE") else {
        tell!("crewgraph worker: it needs the database the runs are kept in: --store postgres://USER@HOST:PORT/DATABASE (or $CREWGRAPH_STORE)");
        return ExitCode::from(2);
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => return fail(&format!("cannot start: {error}")),
    };
    let id = args.id.unwrap_or_else(default_id);
    let outcome = runtime.block_on(async {
        let store = Arc::new(PostgresStore::connect(&store_url).await.map_err(|e| e.to_string())?);
        let queue = RedisQueue::connect(&queue_url).await.map_err(|e| e.to_string())?;
        let cluster = Cluster::new(queue);
        let api = Backing::Postgres(store.clone()).api(&args.crews);
        let config = WorkerConfig { id: id.clone(), concurrency: args.concurrency, drain: args.drain, lease: args.lease };
        let worker = Worker::new(api, cluster.clone(), config);
        let stopping = CancellationToken::new();
        if let Some(addr) = args.health {
            let checked = health::Checked {
                cluster: cluster.clone(),
                store: store.clone(),
                running: worker.running(),
                executed: worker.executed(),
                worker: id.clone(),
            };
            let stopped = stopping.clone();
            let local = health::serve(addr, checked, async move { stopped.cancelled().await })
                .await
                .map_err(|e| format!("cannot listen on {addr} for health checks: {e}"))?;
            say!("crewgraph worker: health at http://{local}/health");
        }
        let crews = std::path::absolute(&args.crews).unwrap_or(args.crews.clone());
        tell!(
            "crewgraph worker {id}: runs from the queue at {}, kept in {}, crews in {}, up to {} at once",
            cluster.queue().address(),
            store.describe(),
            crews.display(),
            args.concurrency
        );
        let _ = std::io::stdout().flush();
        let stopped = worker.run(shutdown::signals()).await;
        stopping.cancel();
        Ok::<_, String>(stopped)
    });
    runtime.shutdown_timeout(Duration::from_secs(5));
    match outcome {
        Ok(stopped) => {
            tell!(
                "crewgraph worker {id}: stopped ({} leg(s) executed, {} handed back to the queue, {} dropped where they stood)",
                stopped.executed,
                stopped.handed_back,
                stopped.dropped
            );
            ExitCode::SUCCESS
        }
        Err(error) => fail(&error),
    }
}

fn fail(error: &str) -> ExitCode {
    tell!("crewgraph worker: {error}");
    ExitCode::FAILURE
}
