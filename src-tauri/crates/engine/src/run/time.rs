//! Time and ids, injected so a run's event trace is byte-stable in tests: a
//! [`Clock`] gives [`Timestamp`]s, an [`IdSource`] gives run ids.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::ids::RunId;

/// A moment, in milliseconds since the Unix epoch. Serialized as RFC 3339
/// (`2026-11-22T10:15:00.000Z`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(pub u64);

impl Timestamp {
    /// Milliseconds since the epoch.
    pub fn millis(self) -> u64 {
        self.0
    }

    /// The time from `earlier` to this moment (zero if `earlier` is later).
    pub fn since(self, earlier: Timestamp) -> Duration {
        Duration::from_millis(self.0.saturating_sub(earlier.0))
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let time = UNIX_EPOCH + Duration::from_millis(self.0);
        write!(f, "{}", humantime::format_rfc3339_millis(time))
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        let time = humantime::parse_rfc3339(&text).map_err(serde::de::Error::custom)?;
        let millis = time.duration_since(UNIX_EPOCH).map_err(serde::de::Error::custom)?.as_millis();
        Ok(Timestamp(millis as u64))
    }
}

impl ts_rs::TS for Timestamp {
    type WithoutGenerics = Self;
    type OptionInnerType = Self;
    fn name(_: &ts_rs::Config) -> String {
        "string".into()
    }
    fn inline(_: &ts_rs::Config) -> String {
        "string".into()
    }
}

/// Where a run gets the time from.
pub trait Clock: Send + Sync {
    /// Now.
    fn now(&self) -> Timestamp;
}

/// The system clock.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        let since = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
        Timestamp(since.as_millis() as u64)
    }
}

/// A clock for tests: starts at a fixed moment and advances by `step` each reading.
#[derive(Debug)]
pub struct SteppingClock {
    next: AtomicU64,
    step: u64,
}

impl SteppingClock {
    /// Starts at `start`, advancing `step_ms` per reading.
    pub fn new(start: Timestamp, step_ms: u64) -> Self {
        Self { next: AtomicU64::new(start.0), step: step_ms }
    }
}

impl Clock for SteppingClock {
    fn now(&self) -> Timestamp {
        Timestamp(self.next.fetch_add(self.step, Ordering::Relaxed))
    }
}

/// Where new run ids come from.
pub trait IdSource: Send + Sync {
    /// A run id not used before.
    fn run_id(&self) -> RunId;
}

/// Random run ids (`run-` and 16 hex digits from the system's randomness).
#[derive(Clone, Copy, Debug, Default)]
pub struct RandomIds;

impl IdSource for RandomIds {
    fn run_id(&self) -> RunId {
        use std::hash::{BuildHasher, Hasher};
        // RandomState is seeded from the OS once per process; mixing in the time and a
        // counter makes every id of the process distinct.
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u64(SystemClock.now().0);
        hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
        hasher.write_u32(std::process::id());
        RunId::new(format!("run-{:016x}", hasher.finish()))
    }
}

/// Ids for tests: `run-1`, `run-2`, …
#[derive(Debug, Default)]
pub struct SequentialIds(AtomicU64);

impl IdSource for SequentialIds {
    fn run_id(&self) -> RunId {
        RunId::new(format!("run-{}", self.0.fetch_add(1, Ordering::Relaxed) + 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_read_and_write_rfc3339_with_milliseconds() {
        let t = Timestamp(1_795_000_000_123);
        let json = serde_json::to_string(&t).unwrap();
        assert_eq!(json, "\"2026-11-18T11:06:40.123Z\"");
        assert_eq!(serde_json::from_str::<Timestamp>(&json).unwrap(), t);
    }

    #[test]
    fn random_ids_do_not_repeat() {
        let ids: std::collections::HashSet<_> = (0..1000).map(|_| RandomIds.run_id()).collect();
        assert_eq!(ids.len(), 1000);
    }
}
