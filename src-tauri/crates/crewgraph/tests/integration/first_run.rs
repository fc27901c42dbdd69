//! A person's first real run (issue 22): the example crews a new user is likely to
//! run first, on the built-in local model (the real llama-server with SmolLM2 of
//! `make deps`), with no model configured, through the binary. Each ends in a final
//! status other than `failed` or `signal_failure`, no request is larger than the
//! model's context window, line signals are forced as bracket signals are, and a
//! history longer than an agent's budget is trimmed, said, and the run goes on.
//!
//! A 135M model's choices vary, so the checks are on shapes that must hold whatever
//! it writes, never on its words.

use std::time::Duration;

use crate::e2e::{parse, Sandbox};
use crate::support::repo_root;

/// A run on a small local model can take minutes on a busy machine.
const RUN_LIMIT: Duration = Duration::from_secs(600);
/// The local model's context window (SmolLM2 was trained for 8,192 tokens).
const WINDOW: u64 = 8192;

/// One local-model run at a time: each starts a llama-server of its own, and two
/// side by side on a 2-core machine make both too slow for the crews' time limits.
pub(crate) static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Runs `crew` on the local model with `input`; its events, one JSON value each.
fn run_locally(sandbox: &Sandbox, crew: &str, input: &str) -> Vec<serde_json::Value> {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let db = sandbox.db();
    let output = crate::support::crewgraph()
        .current_dir(repo_root())
        .args(["run", crew, "--input", input, "--json", "--db", db.to_str().unwrap()])
        .timeout(RUN_LIMIT)
        .output()
        .expect("crewgraph runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let events: Vec<serde_json::Value> = stdout.lines().map(parse).collect();
    let last = events.last().unwrap_or_else(|| panic!("no events: {}", String::from_utf8_lossy(&output.stderr)));
    assert_eq!(last["type"], "run_finished", "the run ended: {stdout}");
    let status = last["status"].as_str().unwrap_or_default();
    assert!(!matches!(status, "failed" | "signal_failure"), "{crew} ended {status}: {}", last["error"]);
    for reply in events.iter().filter(|e| e["type"] == "agent_response") {
        let read = reply["usage"]["input_tokens"].as_u64().expect("the local model reports usage");
        assert!(read + reply["usage"]["output_tokens"].as_u64().unwrap_or(0) <= WINDOW, "a request fit the window: {reply}");
        assert!(!reply["content"].as_str().unwrap_or_default().trim().is_empty(), "no empty reply is kept: {reply}");
    }
    events
}

#[test]
fn the_exam_runs_to_a_final_status_on_the_local_model() {
    let sandbox = Sandbox::new();
    let events = run_locally(&sandbox, "crews/exam.yaml", "Please begin.");
    // The teacher may end the exam at once ([END_EXAM]); once it asks, the round runs.
    let asked = events.iter().any(|e| e["type"] == "signal_matched" && e["signal"] == "[QUESTION]");
    assert!(!asked || events.iter().any(|e| e["type"] == "parallel_finished"), "a question started the exam round");
}

#[test]
fn the_code_review_pipeline_is_routed_by_line_signals_on_the_local_model() {
    let sandbox = Sandbox::new();
    let events = run_locally(&sandbox, "crews/code-review.yaml", "Task T-1: add a logout button to the page header.");
    let first = events.iter().find(|e| e["type"] == "signal_matched").expect("the developer's reply ended with a signal");
    assert_eq!((first["agent"].as_str(), first["level"].as_str()), (Some("developer"), Some("pattern")), "{first}");
    let replies: Vec<&serde_json::Value> = events.iter().filter(|e| e["type"] == "agent_response").collect();
    let matched = events.iter().filter(|e| e["type"] == "signal_matched").count();
    assert_eq!(matched, replies.len(), "every reply ended with one of its agent's line signals");
}

#[test]
fn a_history_longer_than_an_agents_budget_is_trimmed_and_the_run_goes_on() {
    let sandbox = Sandbox::new();
    let exam = std::fs::read_to_string(repo_root().join("crews/exam.yaml")).unwrap();
    let tight = exam
        .replace("max_handoffs: 12", "max_handoffs: 4")
        .replace("    model: default\n    temperature: 0.3\n", "    model: default\n    temperature: 0.3\n    context_budget: 250\n");
    assert_ne!(tight, exam, "the teacher got a budget");
    let crew = sandbox.write("tight-exam.yaml", &tight);
    let events = run_locally(&sandbox, crew.to_str().unwrap(), "Please begin.");
    let mut teacher_turns = 0;
    let mut trimmed_before_reply = false;
    for event in &events {
        match (event["type"].as_str(), event["agent"].as_str()) {
            (Some("agent_started"), Some("teacher")) => {
                teacher_turns += 1;
                trimmed_before_reply = false;
            }
            (Some("history_trimmed"), Some("teacher")) => trimmed_before_reply = true,
            (Some("agent_response"), Some("teacher")) if teacher_turns > 1 => {
                assert!(trimmed_before_reply, "the teacher's turn {teacher_turns} saw a trimmed history: {event}");
            }
            _ => {}
        }
    }
}

#[test]
fn the_local_model_calls_a_tool_server_s_tool_through_structured_output() {
    // SmolLM2 has no tool calling of its own: the call comes as the JSON its grammar
    // holds it to, and the real mcp-server-time answers it.
    let sandbox = Sandbox::new();
    let time = repo_root().join(".tools/mcp/venv/bin/mcp-server-time");
    assert!(time.exists(), "{} is missing: run scripts/install-mcp-servers.sh (make test does)", time.display());
    let crew = format!(
        "name: Clock desk\nentry_point: clock\ntools:\n  servers:\n    clock:\n      command: {}\n      args: [--local-timezone, UTC]\n\
         agents:\n  - id: clock\n    role: Tells the time\n    system_prompt: You tell the time in the city you are asked about, with your tool.\n\
         \x20   temperature: 0\n    tools: [clock.get_current_time]\n    is_terminal: true\n",
        time.display()
    );
    let crew = sandbox.write("clock.yaml", &crew);
    let events = run_locally(&sandbox, crew.to_str().unwrap(), "What time is it in Paris?");
    let call = events.iter().find(|e| e["type"] == "tool_call").unwrap_or_else(|| panic!("no tool call: {events:#?}"));
    assert_eq!(call["name"], "clock.get_current_time", "{call}");
    assert!(call["arguments"]["timezone"].is_string(), "arguments of the tool's shape: {call}");
    let result = events.iter().find(|e| e["type"] == "tool_result").expect("the server answered");
    assert!(!result["result"].as_str().unwrap_or_default().contains("unknown tool"), "{result}");
    let reply = events.iter().rev().find(|e| e["type"] == "agent_response").expect("then a reply");
    assert!(!reply["content"].as_str().unwrap_or_default().contains("\"tool\""), "the reply is words, not JSON: {reply}");
}
