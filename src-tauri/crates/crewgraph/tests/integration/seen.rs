//! What an agent saw (issue 18, item 2), end to end through the CLI with the scripted
//! provider: `crewgraph context RUN --step N` shows a turn's exact instructions
//! (with the signal paragraph), the messages shown and those its `context_budget`
//! cut; its JSON carries the same; a step without a turn, an unknown run and a run
//! recorded before contexts were kept are each said in words.

use crate::e2e::{parse, Sandbox};

const CREW: &str = r#"name: Drill
entry_point: teacher
agents:
  - id: teacher
    system_prompt: Ask one short question about fractions.
    context_budget: 160
  - id: student
    system_prompt: Answer it.
routing:
  signals:
    teacher:
      - { signal: "[QUESTION]", target: student }
      - { signal: "[END]", target: "" }
    student:
      - { signal: "[ANSWER]", target: teacher }
"#;

fn script() -> String {
    let long = "and here is a long explanation of how the fractions were added, step by step, with every detail spelled out";
    format!(
        "replies:\n  teacher:\n    - \"Question 1: 1/2 + 1/4? [QUESTION]\"\n    - \"Question 2: 1/3 + 1/3? [QUESTION]\"\n    - \"Done. [END]\"\n  \
         student:\n    - \"3/4, {long}. [ANSWER]\"\n    - \"2/3, {long}. [ANSWER]\"\n"
    )
}

#[test]
fn a_turn_shows_its_instructions_what_it_was_shown_and_what_the_budget_cut() {
    let sandbox = Sandbox::new();
    let crew = sandbox.write("drill.yaml", CREW);
    let script = sandbox.write("replies.yaml", &script());
    let ran = sandbox.cg(&["run", crew.to_str().unwrap(), "--input", "Drill me.", "--script", script.to_str().unwrap(), "--json"]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let events: Vec<serde_json::Value> = ran.lines().into_iter().map(parse).collect();
    let id = events[0]["run_id"].as_str().unwrap().to_owned();
    let last_teacher_step =
        events.iter().filter(|e| e["type"] == "agent_started" && e["agent"] == "teacher").filter_map(|e| e["step"].as_u64()).max().unwrap();

    let seen = sandbox.cg(&["context", &id, "--step", &last_teacher_step.to_string(), "--json"]);
    assert_eq!(seen.code, 0, "{}", seen.stderr);
    let seen = parse(seen.lines()[0]);
    let call = &seen["calls"][0];
    assert_eq!(call["agent"], "teacher");
    let prompt = call["system_prompt"].as_str().unwrap();
    assert!(prompt.starts_with("Ask one short question about fractions."), "{prompt}");
    assert!(prompt.contains("[QUESTION]") && prompt.contains("[END]"), "the signal paragraph is part of it: {prompt}");
    let shown: Vec<&str> = call["messages"].as_array().unwrap().iter().map(|m| m["content"].as_str().unwrap()).collect();
    assert_eq!(shown[0], "Drill me.", "the person's request is always shown");
    assert!(shown.last().unwrap().starts_with("2/3"), "the latest answer is shown: {shown:?}");
    assert!(!call["cut"].as_array().unwrap().is_empty(), "the budget of 160 tokens cut the first answer: {call}");
    assert!(call["tokens"].as_u64().unwrap() <= 160, "{call}");

    // The same as text.
    let text = sandbox.cg(&["context", &id, "--step", &last_teacher_step.to_string()]);
    assert!(text.stdout.starts_with(&format!("Step {last_teacher_step} · teacher · call 1 of 1\n")), "{}", text.stdout);
    assert!(text.stdout.contains("  cut by the context window: "), "{}", text.stdout);
    assert!(text.stdout.contains("    [person] Drill me."), "{}", text.stdout);

    // A step without a turn, and an unknown run, in words.
    let nowhere = sandbox.cg(&["context", &id, "--step", "99"]);
    assert_eq!(nowhere.code, 1);
    assert!(
        nowhere.stderr.contains(&format!("run '{id}' has no turn at step 99 (its agents' turns are steps 1 to ")),
        "{}",
        nowhere.stderr
    );
    let unknown = sandbox.cg(&["context", "run-nobody", "--step", "1"]);
    assert_eq!(unknown.code, 1);
    assert!(unknown.stderr.contains("run-nobody"), "{}", unknown.stderr);

    // A run recorded by a Crewgraph from before contexts were kept.
    rusqlite::Connection::open(sandbox.db()).unwrap().execute("UPDATE steps SET contexts = NULL", []).unwrap();
    let old = sandbox.cg(&["context", &id, "--step", "1"]);
    assert_eq!(old.code, 1);
    assert!(old.stderr.contains("was recorded before Crewgraph kept what each agent was given"), "{}", old.stderr);
}
