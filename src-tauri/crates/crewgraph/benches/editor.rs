//! The editor's live validation: one edit of a generated crew of 1,000 agents and
//! 3,000 signal edges re-checked by the engine (`Api::check_crew`: the spec taken as
//! the YAML tree it stands for, validated, drawn as a graph with every problem
//! placed), next to the slower way through YAML text (written, then loaded) that
//! saving takes, so a regression shows where it is. Target: ≤ 16 ms per check (issue 5).
//! `make bench`; figures in BENCHMARKS.md.

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use crewgraph::api::{Api, CheckCrew};
use crewgraph_engine::file::spec;
use crewgraph_engine::load::{load_spec_value, load_str};
use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::{json, Value};

const AGENTS: usize = 1_000;

/// A crew of `AGENTS` agents in a ring, each with three signal edges (next,
/// the one after, and a shared terminate), a role, tags and a short prompt.
fn generated_crew() -> Value {
    let agents: Vec<Value> = (0..AGENTS)
        .map(|i| {
            json!({"id": format!("agent_{i}"), "name": format!("Agent {i}"), "role": "Works on one part of the job",
                "tags": ["bench", format!("part{}", i % 10)],
                "system_prompt": "You are one of many agents. Do your part, then pass the work on.\nSay [NEXT] or [SKIP] or [DONE]."})
        })
        .collect();
    let rules: serde_json::Map<String, Value> = (0..AGENTS)
        .map(|i| {
            let rules = json!([
                {"signal": "[NEXT]", "target": format!("agent_{}", (i + 1) % AGENTS)},
                {"signal": "[SKIP]", "target": format!("agent_{}", (i + 2) % AGENTS)},
                {"signal": "[DONE]", "target": ""}
            ]);
            (format!("agent_{i}"), rules)
        })
        .collect();
    json!({"version": "1.0", "name": "Generated", "entry_point": "agent_0", "max_handoffs": 50,
        "agents": agents, "routing": {"signals": rules}})
}

fn bench(c: &mut Criterion) {
    let api = Api::new("crews");
    let crew = generated_crew();
    let check = CheckCrew { path: Some("generated.yaml".into()), spec: crew.clone() };
    let document = api.check_crew(&check).expect("checks");
    assert!(document.valid, "{:?}", document.problems.first());
    assert_eq!(document.graph.edges.iter().filter(|e| e.rule.is_some()).count(), 3 * AGENTS);
    let yaml = spec::to_yaml(&crew).expect("yaml");

    let mut group = c.benchmark_group("edit_check_1000_agents_3000_edges");
    group.sample_size(20);
    group.bench_function("check_crew", |b| b.iter(|| api.check_crew(&check).expect("checks")));
    group.bench_function("spec_to_yaml", |b| b.iter(|| spec::to_yaml(&crew).expect("yaml")));
    group.bench_function("load_spec_value", |b| b.iter(|| load_spec_value("generated.yaml", &crew).expect("loads")));
    group.bench_function("load_str_of_yaml_text", |b| b.iter(|| load_str("generated.yaml", &yaml)));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
