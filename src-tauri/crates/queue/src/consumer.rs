//! [`Consumer`]: one worker's reads of new entries (`XREADGROUP … >`). A read waits
//! for entries at most as long as asked (`BLOCK`), and a waiting read holds its
//! connection, so each consumer has a connection of its own, opened again on the
//! next read when it was lost (a Redis restart). A read that finds the group gone
//! makes it again and reads on.

use std::time::Duration;

use redis::aio::MultiplexedConnection;
use redis::streams::{StreamReadOptions, StreamReadReply};
use redis::{AsyncConnectionConfig, RedisError};

use crate::error::QueueError;
use crate::job::Delivery;
use crate::queue::{RedisQueue, GROUP, STREAM};

/// How long connecting may take.
const CONNECT: Duration = Duration::from_secs(5);
/// What a read may take beyond the time it waits for entries.
const SLACK: Duration = Duration::from_secs(10);

/// A worker's reader of the queue.
pub struct Consumer {
    queue: RedisQueue,
    name: String,
    connection: Option<MultiplexedConnection>,
}

impl Consumer {
    pub(crate) async fn open(queue: RedisQueue, name: &str) -> Result<Consumer, QueueError> {
        let mut consumer = Consumer { queue, name: name.to_owned(), connection: None };
        consumer.connected().await?;
        Ok(consumer)
    }

    /// Its name in the group.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// At most `max` entries no worker was handed yet, waiting up to `wait` for the
    /// first (none when none came). They are pending under this consumer's name
    /// until acknowledged.
    pub async fn next(&mut self, max: usize, wait: Duration) -> Result<Vec<Delivery>, QueueError> {
        let mut made_group = false;
        loop {
            let name = self.name.clone();
            let connection = self.connected().await?;
            match tokio::time::timeout(wait + SLACK, read(connection, &name, max, wait)).await {
                Ok(Ok(deliveries)) => return Ok(deliveries),
                // The stream and group are gone (a Redis restarted without its data).
                Ok(Err(err)) if err.code() == Some("NOGROUP") && !made_group => {
                    self.queue.make_group().await?;
                    made_group = true;
                }
                Ok(Err(err)) => return Err(self.lost(&err)),
                Err(_) => {
                    self.connection = None;
                    return Err(QueueError::Unreachable {
                        address: self.queue.address().to_owned(),
                        doing: "read runs to execute",
                        why: "it did not answer in time".into(),
                    });
                }
            }
        }
    }

    /// The connection, opened when there is none.
    async fn connected(&mut self) -> Result<&mut MultiplexedConnection, QueueError> {
        if self.connection.is_none() {
            // A read may wait as long as it is asked to: no answer timeout but the read's own.
            let config = AsyncConnectionConfig::new().set_connection_timeout(Some(CONNECT)).set_response_timeout(None);
            let opening = self.queue.client().get_multiplexed_async_connection_with_config(&config);
            let connection = match tokio::time::timeout(CONNECT + SLACK, opening).await {
                Ok(Ok(connection)) => connection,
                Ok(Err(err)) => return Err(self.queue.error("connect a worker", &err)),
                Err(_) => {
                    return Err(QueueError::Unreachable {
                        address: self.queue.address().to_owned(),
                        doing: "connect a worker",
                        why: "it did not answer in time".into(),
                    })
                }
            };
            self.connection = Some(connection);
        }
        Ok(self.connection.as_mut().expect("opened just above"))
    }

    /// `err` from a read; a connection it broke is opened again next time.
    fn lost(&mut self, err: &RedisError) -> QueueError {
        let error = self.queue.error("read runs to execute", err);
        if error.is_unreachable() {
            self.connection = None;
        }
        error
    }
}

/// One read of new entries for consumer `name`.
async fn read(connection: &mut MultiplexedConnection, name: &str, max: usize, wait: Duration) -> Result<Vec<Delivery>, RedisError> {
    let options = StreamReadOptions::default().group(GROUP, name).count(max.max(1)).block(wait.as_millis().max(1) as usize);
    let reply: Option<StreamReadReply> =
        redis::cmd("XREADGROUP").arg(&options).arg("STREAMS").arg(STREAM).arg(">").query_async(connection).await?;
    Ok(reply.into_iter().flat_map(|reply| reply.keys).flat_map(|key| key.ids).map(|entry| Delivery::of(&entry)).collect())
}
