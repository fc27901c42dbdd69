//! [`RedisQueue`]: the stream of runs to execute ([`STREAM`]) and the consumer
//! group of workers reading it ([`GROUP`]), on one connection that reconnects by
//! itself (the client's connection manager) — every call is one attempt; a caller
//! that meets [`QueueError::is_unreachable`] tries again later, with backoff.
//!
//! - **Enqueue** (`XADD`): one entry per job, after the run's row is committed in
//!   the store (the store is the truth; see the crate's overview).
//! - **Acknowledge** (`XACK`, then `XDEL`): the entry leaves the group's pending
//!   list and the stream, so neither grows with the runs done.
//! - **Reclaim** (`XAUTOCLAIM`): entries a worker read and did not acknowledge for
//!   longer than the lease go to the worker asking — how a dead worker's runs are
//!   taken over.
//! - The group is made at connect (`XGROUP CREATE … MKSTREAM`), and again whenever
//!   a read finds it gone (a Redis restarted without its data).

use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::streams::{StreamAutoClaimOptions, StreamAutoClaimReply};
use redis::AsyncCommands;

use crate::address::{self, Address};
use crate::consumer::Consumer;
use crate::error::QueueError;
use crate::job::{Delivery, EntryId, Job};

/// The stream's key.
pub const STREAM: &str = "crewgraph:runs";
/// The workers' consumer group.
pub const GROUP: &str = "crewgraph:workers";

/// How long connecting may take.
const CONNECT: Duration = Duration::from_secs(5);
/// How long one command may take.
const ANSWER: Duration = Duration::from_secs(10);
/// How many entries one read of the stream's range takes.
const PAGE: usize = 1000;

/// The queue of runs to execute, on one Redis server.
#[derive(Clone)]
pub struct RedisQueue {
    client: redis::Client,
    /// `host:port`, for messages.
    shown: String,
    connection: ConnectionManager,
}

impl std::fmt::Debug for RedisQueue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisQueue").field("address", &self.shown).finish_non_exhaustive()
    }
}

impl RedisQueue {
    /// Connects to the queue at `url` (`redis://host:port`) and makes sure its
    /// stream and group exist.
    pub async fn connect(url: &str) -> Result<RedisQueue, QueueError> {
        let Address { client, shown } = address::parse(url)?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(CONNECT))
            .set_response_timeout(Some(ANSWER))
            .set_number_of_retries(2)
            .set_max_delay(Duration::from_secs(1));
        let connecting = client.get_connection_manager_with_config(config);
        let connection = match tokio::time::timeout(CONNECT + ANSWER, connecting).await {
            Ok(Ok(connection)) => connection,
            Ok(Err(err)) => return Err(QueueError::from_redis(&shown, "connect", &err)),
            Err(_) => return Err(QueueError::Unreachable { address: shown, doing: "connect", why: "it did not answer in time".into() }),
        };
        let queue = RedisQueue { client, shown, connection };
        queue.make_group().await?;
        Ok(queue)
    }

    /// `host:port` of the queue, as messages name it.
    pub fn address(&self) -> &str {
        &self.shown
    }

    /// Adds `job` to the stream: some worker of the group will be handed it.
    pub async fn enqueue(&self, job: &Job) -> Result<EntryId, QueueError> {
        let mut connection = self.connection.clone();
        let id: String = connection.xadd(STREAM, "*", &job.fields()).await.map_err(|err| self.error("add a run", &err))?;
        Ok(EntryId(id))
    }

    /// Acknowledges the entry `id`: done with (its run final or paused, or nothing
    /// to do). It leaves the pending list and the stream.
    pub async fn ack(&self, id: &EntryId) -> Result<(), QueueError> {
        let mut connection = self.connection.clone();
        let _: (i64, i64) = redis::pipe()
            .xack(STREAM, GROUP, &[&id.0])
            .xdel(STREAM, &[&id.0])
            .query_async(&mut connection)
            .await
            .map_err(|err| self.error("acknowledge a run", &err))?;
        Ok(())
    }

    /// Hands `consumer` at most `count` entries that other workers read and did not
    /// acknowledge within `lease` (their worker died or hangs), oldest first.
    pub async fn reclaim(&self, consumer: &str, lease: Duration, count: usize) -> Result<Vec<Delivery>, QueueError> {
        let mut connection = self.connection.clone();
        let mut claimed = Vec::new();
        let mut start = "0-0".to_owned();
        while claimed.len() < count {
            let options = StreamAutoClaimOptions::default().count(count - claimed.len());
            let reply: StreamAutoClaimReply =
                match connection.xautoclaim_options(STREAM, GROUP, consumer, lease.as_millis() as u64, &start, options).await {
                    Ok(reply) => reply,
                    Err(err) if err.code() == Some("NOGROUP") => {
                        self.make_group().await?;
                        return Ok(claimed);
                    }
                    Err(err) => return Err(self.error("take over runs of a silent worker", &err)),
                };
            claimed.extend(reply.claimed.iter().map(Delivery::of));
            if reply.next_stream_id == "0-0" {
                break;
            }
            start = reply.next_stream_id;
        }
        Ok(claimed)
    }

    /// How many entries were handed to workers and not acknowledged yet.
    pub async fn pending(&self) -> Result<usize, QueueError> {
        let mut connection = self.connection.clone();
        let summary: redis::Value = redis::cmd("XPENDING")
            .arg(STREAM)
            .arg(GROUP)
            .query_async(&mut connection)
            .await
            .map_err(|err| self.error("count pending runs", &err))?;
        match summary {
            redis::Value::Array(items) => Ok(items.first().and_then(|n| redis::from_redis_value_ref::<usize>(n).ok()).unwrap_or(0)),
            _ => Ok(0),
        }
    }

    /// How many entries the stream holds (waiting or pending).
    pub async fn queued(&self) -> Result<usize, QueueError> {
        let mut connection = self.connection.clone();
        connection.xlen(STREAM).await.map_err(|err| self.error("count queued runs", &err))
    }

    /// The runs the stream names now (entries waiting, or handed to a worker and not
    /// acknowledged), read in pages: what a sweeper leaves alone.
    pub async fn queued_runs(&self) -> Result<std::collections::HashSet<String>, QueueError> {
        let mut connection = self.connection.clone();
        let mut runs = std::collections::HashSet::new();
        let mut start = "-".to_owned();
        loop {
            let page: redis::streams::StreamRangeReply =
                connection.xrange_count(STREAM, &start, "+", PAGE).await.map_err(|err| self.error("list the queued runs", &err))?;
            let Some(last) = page.ids.last().map(|entry| entry.id.clone()) else { break };
            let full = page.ids.len() == PAGE;
            runs.extend(page.ids.iter().filter_map(|entry| Delivery::of(entry).job.ok()).map(|job| job.run_id));
            if !full {
                break;
            }
            // The next page starts after the last id read (an exclusive range).
            start = format!("({last}");
        }
        Ok(runs)
    }

    /// Whether the queue answers (for health checks).
    pub async fn ping(&self) -> Result<(), QueueError> {
        let mut connection = self.connection.clone();
        redis::cmd("PING").query_async::<String>(&mut connection).await.map(drop).map_err(|err| self.error("answer a ping", &err))
    }

    /// A worker's reader of new entries, named `name` in the group (a worker's id:
    /// the entries it reads are pending under that name until acknowledged).
    pub async fn consumer(&self, name: &str) -> Result<Consumer, QueueError> {
        Consumer::open(self.clone(), name).await
    }

    /// Makes the stream and the group when they do not exist yet.
    pub(crate) async fn make_group(&self) -> Result<(), QueueError> {
        let mut connection = self.connection.clone();
        match connection.xgroup_create_mkstream::<_, _, _, ()>(STREAM, GROUP, "0").await {
            Ok(()) => Ok(()),
            Err(err) if err.code() == Some("BUSYGROUP") => Ok(()),
            Err(err) => Err(self.error("make the workers' group", &err)),
        }
    }

    /// The shared connection (it reconnects by itself).
    pub(crate) fn connection(&self) -> ConnectionManager {
        self.connection.clone()
    }

    pub(crate) fn client(&self) -> &redis::Client {
        &self.client
    }

    pub(crate) fn error(&self, doing: &'static str, err: &redis::RedisError) -> QueueError {
        QueueError::from_redis(&self.shown, doing, err)
    }
}
