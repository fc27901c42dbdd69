//! A run's trace id and its spans' ids, derived from the run's id and the `seq` of
//! the event that opened each span (FNV-1a, stable across builds and processes):
//! every leg of a run — started in the window, resumed by `crewgraph resume` — lands
//! in one trace, and a span made twice from the same stored events gets the same id.

use opentelemetry::trace::{SpanId, TraceId};

const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const PRIME: u64 = 0x0000_0100_0000_01b3;

fn fnv(seed: u64, parts: &[&[u8]]) -> u64 {
    let mut hash = OFFSET ^ seed;
    for part in parts {
        for byte in *part {
            hash ^= u64::from(*byte);
            hash = hash.wrapping_mul(PRIME);
        }
        // A separator, so ("ab", "c") and ("a", "bc") differ.
        hash ^= 0xff;
        hash = hash.wrapping_mul(PRIME);
    }
    hash
}

/// The trace of run `run_id` (never the invalid all-zero id).
pub fn trace_id_of(run_id: &str) -> TraceId {
    let high = fnv(1, &[run_id.as_bytes()]);
    let low = fnv(2, &[run_id.as_bytes()]) | 1;
    TraceId::from(((u128::from(high)) << 64) | u128::from(low))
}

/// The span opened by event `seq` of run `run_id` (never the invalid id).
pub fn span_id_of(run_id: &str, seq: u64) -> SpanId {
    SpanId::from(fnv(3, &[run_id.as_bytes(), &seq.to_le_bytes()]) | 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_stable_and_distinct() {
        assert_eq!(trace_id_of("run-1"), trace_id_of("run-1"), "every leg of a run is one trace");
        assert_ne!(trace_id_of("run-1"), trace_id_of("run-2"));
        assert_ne!(span_id_of("run-1", 0), span_id_of("run-1", 1));
        assert_ne!(span_id_of("run-1", 0), span_id_of("run-2", 0));
        assert_ne!(trace_id_of(""), TraceId::INVALID);
    }
}
