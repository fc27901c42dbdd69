//! The `calculator` tool on what a model may send it (issue 23): a short sum, and the
//! longest expressions it reads — 9,999 minus signs and 4,999 nested parentheses,
//! which aborted the process before (evalexpr recursed, and 20,000 signs took 3 s
//! in a release build). One pass over the text: time grows with its length alone.
//! `make bench`; figures in BENCHMARKS.md.

use std::hint::black_box;

use crewgraph_engine::run::calculator::calculate;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

fn calculator(c: &mut Criterion) {
    let cases = [
        ("a sum a model writes", "(1/2 + 1/4) * 3".to_owned()),
        ("1,000 minus signs", format!("{}1", "-".repeat(999))),
        ("9,999 minus signs", format!("{}1", "-".repeat(9_999))),
        ("4,999 nested parentheses", format!("{}1{}", "(".repeat(4_999), ")".repeat(4_999))),
        ("5,000 terms", format!("{}1", "1+".repeat(4_999))),
    ];
    let mut group = c.benchmark_group("calculator");
    for (name, expression) in &cases {
        group.throughput(Throughput::Bytes(expression.len() as u64));
        group.bench_function(*name, |b| b.iter(|| calculate(black_box(expression))));
    }
    group.finish();
}

criterion_group!(benches, calculator);
criterion_main!(benches);
