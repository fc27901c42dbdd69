//! [`QueueError`]: what can go wrong with the queue, in a person's words — the
//! address as `host:port` (never a password), what Crewgraph was doing, and why,
//! never the Redis client's own types.

use redis::RedisError;

/// Why the queue could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum QueueError {
    /// The address is not one Crewgraph can use.
    #[error("{0}")]
    BadAddress(String),
    /// The queue could not be reached (nothing listening, no answer in time, the
    /// connection lost): worth trying again a little later.
    #[error("the queue at {address} could not be reached to {doing}: {why}")]
    Unreachable { address: String, doing: &'static str, why: String },
    /// The queue answered with a refusal.
    #[error("the queue at {address} refused to {doing}: {why}")]
    Refused { address: String, doing: &'static str, why: String },
}

impl QueueError {
    /// Whether trying again later may succeed (the queue was out of reach).
    pub fn is_unreachable(&self) -> bool {
        matches!(self, QueueError::Unreachable { .. })
    }

    /// `err`, met while `doing` something with the queue at `address`.
    pub(crate) fn from_redis(address: &str, doing: &'static str, err: &RedisError) -> QueueError {
        let address = address.to_owned();
        let unreachable = |why: &str| QueueError::Unreachable { address: address.clone(), doing, why: why.to_owned() };
        if err.is_connection_refusal() {
            unreachable("nothing is listening there (is redis-server running?)")
        } else if err.is_timeout() {
            unreachable("it did not answer in time")
        } else if err.is_io_error() || err.is_connection_dropped() || err.is_unrecoverable_error() {
            unreachable("the connection was lost")
        } else {
            let why = match (err.code(), err.detail()) {
                (Some(code), Some(detail)) => format!("{code} {detail}"),
                (_, Some(detail)) => detail.to_owned(),
                (Some(code), None) => code.to_owned(),
                (None, None) => "it gave no reason".to_owned(),
            };
            QueueError::Refused { address, doing, why }
        }
    }
}
