//! Crewgraph's work queue across machines (issue 20, docs/scale-out.md): which runs
//! are to be executed, carried by a Redis stream and read by a consumer group — so
//! each entry goes to one worker, stays pending until that worker acknowledges it,
//! and is claimed by another worker when its reader went quiet for longer than a
//! lease ([`RedisQueue::reclaim`], `XAUTOCLAIM`).
//!
//! The queue holds work, never state: an entry names a run and what to do with it
//! ([`Job`]); the run itself — its status, steps and events — is in the store, which
//! is the truth. A worker that reads an entry for a run that is already final
//! acknowledges it and drops it; a run that is runnable in the store but in no
//! stream (a crash between the store's commit and the enqueue, a Redis that lost
//! its data) is enqueued again by a sweeper. That is why nothing here persists:
//! losing the queue loses no run.
//!
//! - [`address`]: what a queue address may be, and how it is named in messages.
//! - [`job`]: a stream entry's fields, written and read.
//! - [`queue`]: [`RedisQueue`] — enqueue, acknowledge, reclaim.
//! - [`consumer`]: [`Consumer`] — one worker's reads of new entries, on a
//!   connection of its own (a blocking read holds its connection).
//! - [`channels`]: what machines tell each other without keeping it (a run's live
//!   events, a request to cancel a run), on Redis pub/sub.
//! - [`error`]: [`QueueError`], in a person's words.
//! - `testing` (feature): a real `redis-server` for tests.
//!
//! ```no_run
//! # async fn example() -> Result<(), crewgraph_queue::QueueError> {
//! use std::time::Duration;
//! use crewgraph_queue::{Job, JobKind, RedisQueue};
//! let queue = RedisQueue::connect("redis://127.0.0.1:6379").await?;
//! queue.enqueue(&Job { run_id: "run-1".into(), kind: JobKind::Start }).await?;
//! let mut worker = queue.consumer("worker-a").await?;
//! for delivery in worker.next(10, Duration::from_secs(2)).await? {
//!     // … execute the run delivery.job names …
//!     queue.ack(&delivery.id).await?;
//! }
//! # Ok(()) }
//! ```

pub mod address;
pub mod channels;
pub mod consumer;
pub mod error;
pub mod job;
pub mod queue;
#[cfg(feature = "testing")]
pub mod testing;

pub use channels::{run_channel, Listener, Listening, Publisher, CONTROL};
pub use consumer::Consumer;
pub use error::QueueError;
pub use job::{BadEntry, Delivery, EntryId, Job, JobKind};
pub use queue::{RedisQueue, GROUP, STREAM};
