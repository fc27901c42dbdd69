//! The scoring router and runtime agents through the binary (issue 4): `crewgraph
//! route` on seed 002's scenarios (technical, creative, logical; a runtime agent
//! with `warcraft` tags winning once added), diacritics, ties, nothing scoring →
//! `finalize`, a requested agent, an empty and a 1 MB query; `crewgraph agents`
//! adding, listing and removing runtime agents and refusing bad ones at
//! `file:line:col`; and a runtime agent taking part in a run that was paused before
//! it was added.

use serde_json::Value;

use crate::e2e::{now, parse, run_id, script, Sandbox};

/// Seed 002's built-in specialists under a supervisor, with a finalizer.
const CLEO: &str = r#"version: "1.0"
name: Cleo
entry_point: supervisor
agents:
  - { id: supervisor, name: Cleo Supervisor, description: Reads each request and hands it on }
  - id: technical
    name: Technical Specialist
    objective: Solve programming, software and infrastructure problems
    tags: [code, programming, software, debugging, python]
  - id: creative
    name: Creative Specialist
    objective: Write stories, poems and marketing copy
    tags: [writing, story, poem, creative]
  - id: logical
    name: Logical Specialist
    objective: Reason through logic puzzles and maths problems
    tags: [logic, puzzle, reasoning, math, matematicas]
  - { id: finalizer, name: Finalizer, objective: Write the final answer }
routing:
  strategy: scoring
  finalizer: finalizer
"#;

const LORE_AGENT: &str = r#"id: lore_keeper
name: Lore Keeper
description: Knows the history of game worlds
tags: [warcraft, wow, lore, second war]
"#;

fn route(sandbox: &Sandbox, crew: &str, query: &str, extra: &[&str]) -> Value {
    let mut args = vec!["route", "--crew", crew, "--query", query];
    args.extend(extra);
    let run = sandbox.cg(&args);
    assert_eq!(run.code, 0, "{query}: {}", run.stderr);
    assert_eq!(run.lines().len(), 1, "one JSON line: {}", run.stdout);
    assert!(run.stdout.starts_with(r#"{"chosen":"#) && run.stdout.contains(r#"],"tokens":["#), "the shape of DESIGN §10: {}", run.stdout);
    parse(run.lines()[0])
}

fn chosen(value: &Value) -> &str {
    value["chosen"].as_str().unwrap()
}

#[test]
fn seed_scenarios_route_to_the_specialist_whose_words_and_tags_match() {
    let sandbox = Sandbox::new();
    let crew = sandbox.write("cleo.yaml", CLEO);
    let crew = crew.to_str().unwrap();
    let technical = route(&sandbox, crew, "Help me debug this Python code", &[]);
    assert_eq!(chosen(&technical), "technical");
    assert_eq!(technical["tokens"], serde_json::json!(["help", "debug", "this", "python", "code"]));
    assert_eq!(
        technical["candidates"][0],
        serde_json::json!({"agent": "technical", "score": 7}),
        "code, debug, python contained (+3) and python, code tags (+4)"
    );
    let agents: Vec<&str> = technical["candidates"].as_array().unwrap().iter().map(|c| c["agent"].as_str().unwrap()).collect();
    assert_eq!(agents, ["technical", "creative", "logical"], "neither the supervisor nor the finalizer is a candidate");
    assert_eq!(chosen(&route(&sandbox, crew, "Write a short poem about the sea", &[])), "creative");
    assert_eq!(chosen(&route(&sandbox, crew, "Solve this logic puzzle for me", &[])), "logical");
}

#[test]
fn diacritics_ties_nothing_scoring_and_a_requested_agent() {
    let sandbox = Sandbox::new();
    let crew = sandbox.write("cleo.yaml", CLEO);
    let crew = crew.to_str().unwrap();
    let spanish = route(&sandbox, crew, "Ayuda con MATEMÁTICAS", &[]);
    assert_eq!(chosen(&spanish), "logical", "matemáticas folds to the tag matematicas");
    assert_eq!(spanish["tokens"], serde_json::json!(["ayuda", "con", "matematicas"]));
    let tie = route(&sandbox, crew, "story puzzle", &[]);
    assert_eq!(tie["candidates"][1]["score"], tie["candidates"][2]["score"]);
    assert_eq!(chosen(&tie), "creative", "a tie goes to the agent listed first");
    assert_eq!(chosen(&route(&sandbox, crew, "zzz qqq xx", &[])), "finalize");
    assert_eq!(chosen(&route(&sandbox, crew, "debug my code", &["--agent", "creative"])), "creative");
    assert_eq!(
        chosen(&route(&sandbox, crew, "debug my code", &["--agent", "nobody"])),
        "technical",
        "an unknown requested agent is ignored"
    );
}

#[test]
fn an_empty_query_is_refused_and_a_megabyte_query_is_routed() {
    let sandbox = Sandbox::new();
    let crew = sandbox.write("cleo.yaml", CLEO);
    let crew = crew.to_str().unwrap();
    let empty = sandbox.cg(&["route", "--crew", crew, "--query", "  "]);
    assert_eq!(empty.code, 1);
    assert!(empty.stderr.contains("the query is empty"), "{}", empty.stderr);
    let big = "please debug the python code of this poem ".repeat(1024 * 1024 / 43);
    assert!(big.len() > 1_000_000);
    // Passed as one argument: Linux allows up to 128 KB per argument, so through a file
    // and xargs would be needed for more; the API takes it directly instead.
    let api = crewgraph::api::Api::new("crews");
    let result = tokio::runtime::Runtime::new().unwrap().block_on(api.route(std::path::Path::new(crew), &big, None)).unwrap();
    assert_eq!(result.chosen, "technical");
    assert_eq!(result.tokens.len(), 7);
}

#[test]
fn a_runtime_agent_wins_its_queries_once_added_and_is_gone_once_removed() {
    let sandbox = Sandbox::new();
    let crew = sandbox.write("cleo.yaml", CLEO);
    let crew = crew.to_str().unwrap();
    let query = "Tell me about the Second War in Warcraft";
    assert_ne!(chosen(&route(&sandbox, crew, query, &[])), "lore_keeper");
    let agent = sandbox.write("lore.yaml", LORE_AGENT);
    let added = sandbox.cg(&["agents", "add", agent.to_str().unwrap(), "--crew", crew]);
    assert_eq!(added.code, 0, "{}", added.stderr);
    let routed = route(&sandbox, crew, query, &[]);
    assert_eq!(chosen(&routed), "lore_keeper", "{routed}");
    let listed = sandbox.cg(&["agents", "list", "--crew", crew, "--json"]);
    assert_eq!(parse(listed.lines()[0])["id"], "lore_keeper");
    assert_eq!(sandbox.cg(&["agents", "remove", "lore_keeper", "--crew", crew]).code, 0);
    assert_ne!(chosen(&route(&sandbox, crew, query, &[])), "lore_keeper");
    assert!(sandbox.cg(&["agents", "list", "--crew", crew, "--json"]).lines().is_empty());
}

#[test]
fn bad_runtime_agents_are_refused_saying_what_and_where() {
    let sandbox = Sandbox::new();
    let crew = sandbox.write("cleo.yaml", CLEO);
    let crew = crew.to_str().unwrap();
    let add = |name: &str, yaml: &str| {
        let file = sandbox.write(name, yaml);
        sandbox.cg(&["agents", "add", file.to_str().unwrap(), "--crew", crew])
    };
    assert_eq!(add("lore.yaml", LORE_AGENT).code, 0);
    for (name, yaml, message) in [
        ("again.yaml", LORE_AGENT, "a runtime agent 'lore_keeper' is already on this crew: remove it first"),
        ("noid.yaml", "name: Nobody\n", "the agent has no id"),
        ("blank.yaml", "id: '  '\n", "the agent has no id"),
        ("clash.yaml", "id: technical\n", "the id 'technical' clashes with the crew's own agent 'technical'"),
        ("finalize.yaml", "id: finalize\n", "the id 'finalize' is taken"),
        ("temp.yaml", "id: hot\ntemperature: 9\n", "temp.yaml:2:14:"),
        ("broken.yaml", "id: x\ntags: [a, b\n", "broken.yaml:"),
    ] {
        let refused = add(name, yaml);
        assert_eq!(refused.code, 1, "{name}");
        assert!(refused.stderr.contains(message), "{name}: {}", refused.stderr);
    }
    let own = sandbox.cg(&["agents", "remove", "technical", "--crew", crew]);
    assert_eq!(own.code, 1);
    assert!(own.stderr.contains("'technical' is one of the crew's own agents"), "{}", own.stderr);
    let unknown = sandbox.cg(&["agents", "remove", "nobody", "--crew", crew]);
    assert_eq!(unknown.code, 1);
    assert!(unknown.stderr.contains("the crew has no runtime agent 'nobody'"), "{}", unknown.stderr);
    let listed = sandbox.cg(&["agents", "list", "--crew", crew, "--json"]);
    assert_eq!(listed.lines().len(), 1, "only the good one was kept: {}", listed.stdout);
}

/// The asker pauses; with nothing to say afterwards it falls back to the first
/// other agent of the crew — and the crew has none until one is added.
const PAUSING_CREW: &str = r#"version: "1.0"
name: Pause then fall back
entry_point: asker
signals: []
agents:
  - { id: asker }
routing:
  on_no_signal: fallback
  signals:
    asker:
      - { signal: "[WAIT]", target: "" }
"#;

#[test]
fn a_runtime_agent_added_while_a_run_is_paused_takes_part_when_it_resumes() {
    let sandbox = Sandbox::new();
    let crew = sandbox.write("crew.yaml", PAUSING_CREW);
    let crew = crew.to_str().unwrap();
    let first = sandbox.write("first.yaml", &script(&[("asker", vec![now("Which colour? [WAIT]")])]));
    let run = sandbox.cg(&["run", crew, "--input", "Paint", "--script", first.to_str().unwrap(), "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let id = run_id(run.lines()[0]);
    assert_eq!(sandbox.status(&id), "paused");

    let helper = sandbox.write("helper.yaml", "id: helper\nis_terminal: true\nsystem_prompt: Finish the job.\n");
    assert_eq!(sandbox.cg(&["agents", "add", helper.to_str().unwrap(), "--crew", crew]).code, 0);
    let rest = sandbox.write("rest.yaml", &script(&[("asker", vec![now("Blue, noted.")]), ("helper", vec![now("Painted blue.")])]));
    let resumed = sandbox.cg(&["resume", &id, "--input", "Blue", "--script", rest.to_str().unwrap(), "--json"]);
    assert_eq!(resumed.code, 0, "{}", resumed.stderr);
    let events: Vec<Value> = resumed.lines().into_iter().map(parse).collect();
    assert!(
        events.iter().any(|e| e["type"] == "warning" && e["message"].as_str().unwrap().contains("the crew changed")),
        "adding an agent changed the crew"
    );
    let handoff = events.iter().find(|e| e["type"] == "handoff").expect("a handoff");
    assert_eq!((handoff["from"].as_str(), handoff["to"].as_str()), (Some("asker"), Some("helper")));
    let last = events.last().unwrap();
    assert_eq!((last["status"].as_str(), last["final_agent"].as_str()), (Some("completed"), Some("helper")));
}

#[test]
fn a_run_hands_the_work_to_the_agent_the_person_asked_for() {
    let sandbox = Sandbox::new();
    let crew = sandbox.write("cleo.yaml", CLEO);
    let crew = crew.to_str().unwrap();
    let replies = sandbox.write(
        "replies.yaml",
        &script(&[("technical", vec![now("Fixed.")]), ("creative", vec![now("A poem.")]), ("finalizer", vec![now("Done.")])]),
    );
    let replies = replies.to_str().unwrap();
    let handoffs = |agent: &str| -> Vec<Value> {
        let run = sandbox.cg(&["run", crew, "--input", "Help me debug this Python code", "--agent", agent, "--script", replies, "--json"]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.lines().into_iter().map(parse).filter(|e| e["type"] == "handoff" || e["type"] == "warning").collect()
    };
    let asked = handoffs("creative");
    assert_eq!((asked[0]["to"].as_str(), asked[0]["reason"].as_str()), (Some("creative"), Some("requested by the person")));
    let unknown = handoffs("nobody");
    assert!(unknown[0]["message"].as_str().unwrap().contains("the requested agent 'nobody' is not one of the specialists"), "{unknown:?}");
    assert_eq!((unknown[1]["to"].as_str(), unknown[1]["reason"].as_str()), (Some("technical"), Some("best score (7)")));
}

#[tokio::test]
async fn an_opened_crew_shows_its_runtime_agents_in_its_graph() {
    let sandbox = Sandbox::new();
    let crew = sandbox.write("cleo.yaml", CLEO);
    let store = std::sync::Arc::new(crewgraph_store::SqliteStore::open(sandbox.db()).unwrap());
    let api = crewgraph::api::Api::new("crews").with_agents(store);
    let added = api.register_agent(&crew, LORE_AGENT, "lore.yaml").await.unwrap();
    assert_eq!((added.id.as_str(), added.tags.len()), ("lore_keeper", 4));
    let document = serde_json::to_value(api.open_crew(&crew).await).unwrap();
    let text = document.to_string();
    assert!(text.contains("lore_keeper") && text.contains("Lore Keeper"), "the graph has the runtime agent: {text}");
    assert!(document["problems"].as_array().unwrap().is_empty(), "{}", document["problems"]);
}
