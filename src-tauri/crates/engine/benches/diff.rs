//! Two revisions of a 1,000-agent crew compared (issue 18: at most 50 ms): the
//! crew `tests/e2e/generate-crew.mjs` makes (three signal edges per agent), each
//! agent with a few lines of instructions, and a second revision with agents added,
//! removed and renamed, routes pointed elsewhere and instructions rewritten.
//!
//! - `diff`: the pure comparison of the two specs ([`diff`]), words and hunks included;
//! - `diff, every prompt changed`: the same with all 1,000 instructions rewritten;
//! - `whole comparison`: what `diff_revisions` does from the stored texts: both read
//!   back into specs, compared, checked and drawn as graphs, and overlaid.
//!
//! `cargo bench -p crewgraph-engine --bench diff`; figures in BENCHMARKS.md.

use std::hint::black_box;

use crewgraph_engine::file::diff::diff;
use crewgraph_engine::file::spec::{from_texts, to_yaml};
use crewgraph_engine::graph::overlay::overlay;
use crewgraph_engine::graph::CrewGraph;
use crewgraph_engine::load::load_spec_value;
use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::{json, Value};

const AGENTS: usize = 1000;

/// The generated crew of `tests/e2e/generate-crew.mjs`, with instructions.
fn crew() -> Value {
    let agents: Vec<Value> = (0..AGENTS)
        .map(|i| {
            json!({
                "id": format!("agent_{i}"),
                "name": format!("Agent {i}"),
                "role": "Works on one part of the job",
                "tags": ["bench", format!("part{}", i % 10)],
                "system_prompt": format!(
                    "You are agent {i}. You work on part {} of the job.\nRead what the agent before you wrote.\nAdd your part in a few sentences.\nEnd with [NEXT] when it is done, [SKIP] to pass it on, [DOWN] to send it below.\n",
                    i % 10
                ),
            })
        })
        .collect();
    let mut signals = serde_json::Map::new();
    for i in 0..AGENTS {
        let last = if i == AGENTS - 1 {
            json!({"signal": "[DONE]", "target": ""})
        } else {
            json!({"signal": "[DOWN]", "target": format!("agent_{}", (i + 12) % AGENTS)})
        };
        signals.insert(
            format!("agent_{i}"),
            json!([
                {"signal": "[NEXT]", "target": format!("agent_{}", (i + 1) % AGENTS)},
                {"signal": "[SKIP]", "target": format!("agent_{}", (i + 2) % AGENTS)},
                last,
            ]),
        );
    }
    json!({"version": "1.0", "name": "Generated 1000", "entry_point": "agent_0", "max_handoffs": 50,
        "agents": agents, "routing": {"signals": signals}})
}

/// A later revision: 20 agents added, 20 removed (and their routes), 50 renamed,
/// 50 routes pointed elsewhere, 50 instructions rewritten (every one with `all_prompts`).
fn revised(before: &Value, all_prompts: bool) -> Value {
    let mut after = before.clone();
    let agents = after["agents"].as_array_mut().unwrap();
    for (i, agent) in agents.iter_mut().enumerate() {
        if i % 20 == 3 {
            agent["name"] = json!(format!("Agent {i}, renamed"));
        }
        if all_prompts || i % 20 == 7 {
            let prompt = agent["system_prompt"].as_str().unwrap().replace("a few sentences", "one short paragraph");
            agent["system_prompt"] = json!(prompt);
        }
    }
    let removed: Vec<String> = (0..20).map(|k| format!("agent_{}", 500 + k * 7)).collect();
    agents.retain(|a| !removed.iter().any(|r| a["id"] == json!(r)));
    for k in 0..20 {
        agents.push(json!({"id": format!("new_{k}"), "name": format!("New {k}"), "system_prompt": "A new helper.\nEnd with [NEXT].\n"}));
    }
    let signals = after["routing"]["signals"].as_object_mut().unwrap();
    for r in &removed {
        signals.remove(r);
    }
    for i in (0..AGENTS).step_by(20) {
        if let Some(rules) = signals.get_mut(&format!("agent_{i}")) {
            rules[1]["target"] = json!(format!("new_{}", (i / 20) % 20));
        }
    }
    after
}

fn bench(c: &mut Criterion) {
    let before = crew();
    let after = revised(&before, false);
    let every = revised(&before, true);
    let changes = diff(&before, &after);
    assert!(changes.sentences.len() > 150, "the revision changes many things: {}", changes.sentences.len());

    let mut group = c.benchmark_group("revision diff, 1,000 agents");
    group.sample_size(20);
    group.bench_function("diff", |b| b.iter(|| diff(black_box(&before), black_box(&after))));
    group.bench_function("diff, every prompt changed", |b| b.iter(|| diff(black_box(&before), black_box(&every))));

    // As `diff_revisions` does it, from the revisions' stored text.
    let texts = |spec: &Value| vec![("crew.yaml".to_owned(), to_yaml(spec).unwrap())];
    let (old_text, new_text) = (texts(&before), texts(&after));
    let graph = |spec: &Value| {
        let crew = load_spec_value("revision", spec).unwrap().crew.unwrap();
        CrewGraph::build(&crew).view(&crew)
    };
    group.bench_function("reading both revisions' text back into specs", |b| {
        b.iter(|| (from_texts(black_box(&old_text)).unwrap(), from_texts(black_box(&new_text)).unwrap()))
    });
    group.bench_function("drawing both as graphs (load_spec_value, graph view)", |b| {
        b.iter(|| (graph(black_box(&before)), graph(black_box(&after))))
    });
    let (old_graph, new_graph) = (graph(&before), graph(&after));
    group.bench_function("overlaying the two graphs", |b| {
        b.iter(|| overlay(black_box(&old_graph), black_box(&new_graph), black_box(&changes)))
    });
    group.bench_function("whole comparison (read, diff, graphs, overlay)", |b| {
        b.iter(|| {
            let (old, new) = (from_texts(black_box(&old_text)).unwrap(), from_texts(black_box(&new_text)).unwrap());
            let changes = diff(&old, &new);
            overlay(&graph(&old), &graph(&new), &changes)
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
