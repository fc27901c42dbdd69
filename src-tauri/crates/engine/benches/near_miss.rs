//! Why a reply did not route, on its bound (issue 18: ≤ 20 µs): a 2 KB reply, with
//! citations in brackets and one misspelt signal, against an agent whose rules use
//! 200 signals; and the same reply with nothing close. `make bench`; figures in
//! BENCHMARKS.md.

use std::hint::black_box;

use crewgraph_engine::load_str;
use crewgraph_engine::signal::near_misses;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

const REPLY_BYTES: usize = 2048;
const SIGNALS: usize = 200;

/// A crew whose `writer` has one rule for each of `SIGNALS` signals.
fn crew() -> crewgraph_engine::Crew {
    let mut yaml = String::from(
        "entry_point: writer\nagents:\n  - { id: writer }\n  - { id: reader, is_terminal: true }\nrouting:\n  signals:\n    writer:\n",
    );
    for i in 0..SIGNALS {
        yaml.push_str(&format!("      - {{ signal: \"[READY FOR STEP {i}]\", target: reader }}\n"));
    }
    let loaded = load_str("bench.yaml", &yaml);
    assert!(loaded.is_valid(), "{:?}", loaded.diagnostics);
    loaded.crew.expect("the crew")
}

/// `REPLY_BYTES` of prose with citations, ending with `tail`.
fn reply(tail: &str) -> String {
    let prose = "Fractions were used in ancient Egypt [1] and later in India [2]; the student found a common denominator. ";
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

fn near_miss(c: &mut Criterion) {
    let crew = crew();
    let mut group = c.benchmark_group("near_miss_200_signals_2kb");
    group.throughput(Throughput::Bytes(REPLY_BYTES as u64));
    for (name, text) in [("misspelt", reply("Done. [READY FOR STEP 1O7]")), ("nothing_close", reply("Done."))] {
        assert_eq!(text.len(), REPLY_BYTES);
        let found = crew.matcher.scan(&text);
        let misses = near_misses(&crew, "writer", &text, &found);
        assert_eq!(misses.is_empty(), name == "nothing_close", "{name}: {misses:?}");
        group.bench_function(name, |b| b.iter(|| near_misses(&crew, "writer", black_box(&text), black_box(&found))));
    }
    group.finish();
}

criterion_group!(benches, near_miss);
criterion_main!(benches);
