//! The scoring router deciding for a crew of 1,000 registered specialists on a
//! 2 KB request (issue 4: at least 10,000 decisions a second on one core), with the
//! crew indexed once ([`ScoringIndex`]) as a run and `crewgraph route` do, and the
//! naive rule-by-rule scoring beside it for comparison. `make bench`; figures in
//! BENCHMARKS.md.

use std::hint::black_box;

use crewgraph_engine::load::load_str;
use crewgraph_engine::routing::scoring::{candidates, score, tokens, words, ScoringIndex};
use crewgraph_engine::Crew;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

const AGENTS: usize = 1000;
const REQUEST_BYTES: usize = 2048;

/// Words the agents and the request are made of (a deterministic mix).
const VOCABULARY: &[&str] = &[
    "algebra",
    "geometry",
    "history",
    "warcraft",
    "lore",
    "poetry",
    "music",
    "physics",
    "chemistry",
    "biology",
    "finance",
    "invoice",
    "refund",
    "shipping",
    "router",
    "network",
    "database",
    "kubernetes",
    "rust",
    "python",
    "painting",
    "novel",
    "empire",
    "battle",
    "strategy",
    "recipe",
    "garden",
    "travel",
    "weather",
    "contract",
    "tax",
    "medicine",
];

fn word(i: usize) -> &'static str {
    VOCABULARY[(i * 7 + i / 3) % VOCABULARY.len()]
}

/// A supervisor and `AGENTS` specialists, each with an objective, a description and tags.
fn crew() -> Crew {
    let mut yaml = String::from("entry_point: sup\nrouting: { strategy: scoring }\nagents:\n  - { id: sup }\n");
    for i in 0..AGENTS {
        yaml.push_str(&format!(
            "  - {{ id: s{i}, name: Specialist {i}, objective: \"Answers about {} and {} for team{i}\", description: \"Knows {} {} {}\", tags: [{}, \"{} {}\"] }}\n",
            word(i), word(i + 1), word(i + 2), word(i + 5), word(i + 9), word(i + 3), word(i + 4), word(i + 6)
        ));
    }
    let loaded = load_str("bench.yaml", &yaml);
    loaded.crew.expect("the bench crew loads")
}

/// `REQUEST_BYTES` of request text.
fn request() -> String {
    let mut text = String::new();
    let mut i = 0;
    while text.len() < REQUEST_BYTES {
        text.push_str(word(i * 5 + 1));
        text.push_str(if i % 9 == 8 { ". Please help with the " } else { " " });
        text.push_str(&format!("item{} ", i % 97));
        i += 1;
    }
    text.truncate(REQUEST_BYTES);
    text
}

fn bench(c: &mut Criterion) {
    let crew = crew();
    let request = request();
    let index = ScoringIndex::new(&crew);
    assert_eq!(index.agents().len(), AGENTS);
    let mut group = c.benchmark_group("scoring");
    group.throughput(Throughput::Elements(1));
    group.bench_function("decide/1000 agents, 2 KB request (indexed)", |b| b.iter(|| black_box(index.decide(black_box(&request)))));
    group.bench_function("route/1000 agents, 2 KB request (indexed, with the candidate list)", |b| {
        b.iter(|| black_box(index.route(black_box(&request), None)))
    });
    group.bench_function("decide/1000 agents, 2 KB request (naive)", |b| {
        b.iter(|| {
            let (tokens, request_words) = (tokens(&request), words(&request));
            black_box(candidates(&crew).map(|a| score(a, &tokens, &request_words)).max())
        })
    });
    group.bench_function("index/1000 agents", |b| b.iter(|| black_box(ScoringIndex::new(black_box(&crew)))));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
