//! The signal matcher on its hot path: 20 registered signals against 2 KB replies —
//! a miss, an exact hit, a case-insensitive hit, a normalized hit — and the same
//! miss with 1, 20 and 200 signals, which must cost the same (one pass over the
//! reply, never one per signal). `make bench`; figures in BENCHMARKS.md.

use std::hint::black_box;

use crewgraph_engine::signal::registry::builtins;
use crewgraph_engine::signal::{Behavior, SignalDef, SignalMatcher, SignalOrigin, SignalRegistry};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

const REPLY_BYTES: usize = 2048;

/// A registry of `n` signals: the eleven built-ins, then crew signals.
fn registry(n: usize) -> SignalRegistry {
    let mut registry = SignalRegistry::new();
    for def in builtins().into_iter().take(n) {
        registry.insert(def);
    }
    let mut i = 0;
    while registry.len() < n {
        registry.insert(SignalDef::new(format!("[CREW_SIGNAL_{i}]"), Behavior::Route, SignalOrigin::Declared));
        i += 1;
    }
    registry
}

/// `REPLY_BYTES` of prose (with `tail` at the end), like a model's answer.
fn reply(tail: &str, prose: &str) -> String {
    let mut text = String::with_capacity(REPLY_BYTES);
    while text.len() + prose.len() + tail.len() < REPLY_BYTES {
        text.push_str(prose);
    }
    while text.len() + tail.len() < REPLY_BYTES {
        text.push(' ');
    }
    text.push_str(tail);
    text
}

const PROSE: &str = "The student added the two fractions by finding a common denominator, which is four, \
and then summed the numerators to get three quarters. ";
/// Prose with bracketed citations, so the bracket pass has spans to look at.
const CITED: &str = "Fractions were used in ancient Egypt [1] and later in India [2]; see the notes [a]. ";

fn hot_path(c: &mut Criterion) {
    let matcher = SignalMatcher::new(&registry(20));
    let cases = [
        ("miss", reply("", PROSE)),
        ("miss_with_citations", reply("", CITED)),
        ("exact_hit", reply("Well done. [END_EXAM]", PROSE)),
        ("case_insensitive_hit", reply("Well done. [end_exam]", PROSE)),
        ("normalized_hit", reply("Well done. [ End  Exam ]", PROSE)),
    ];
    let mut group = c.benchmark_group("matcher_20_signals_2kb");
    group.throughput(Throughput::Bytes(REPLY_BYTES as u64));
    for (name, text) in &cases {
        assert_eq!(text.len(), REPLY_BYTES);
        group.bench_function(*name, |b| b.iter(|| matcher.scan(black_box(text))));
    }
    group.finish();
}

fn scaling(c: &mut Criterion) {
    let text = reply("", CITED);
    let mut group = c.benchmark_group("matcher_miss_by_signal_count");
    group.throughput(Throughput::Bytes(REPLY_BYTES as u64));
    for n in [1, 20, 200] {
        let matcher = SignalMatcher::new(&registry(n));
        group.bench_with_input(BenchmarkId::from_parameter(n), &text, |b, text| b.iter(|| matcher.scan(black_box(text))));
    }
    group.finish();
}

criterion_group!(benches, hot_path, scaling);
criterion_main!(benches);
