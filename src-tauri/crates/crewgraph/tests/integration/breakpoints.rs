//! Stepping through a run (issue 18, item 6), end to end through the CLI with the
//! scripted provider: `--break-before AGENT` pauses the run before each of that
//! agent's turns, durably (each leg is its own process); `resume` gives the turn,
//! with words or without; `--step` goes on one turn and pauses before the next,
//! whoever has it; `--no-breaks` runs on to the end. An agent the crew lacks is
//! refused in words.

use serde_json::Value;

use crate::e2e::{parse, Sandbox};

use crate::support::DRILL as CREW;

const SCRIPT: &str = "replies:\n  teacher:\n    - \"Q1 [QUESTION]\"\n    - \"Q2 [QUESTION]\"\n    - \"Done. [END]\"\n  \
                      student:\n    - \"A1 [ANSWER]\"\n    - \"A2 [ANSWER]\"\n";

/// The events of one CLI leg.
fn leg(sandbox: &Sandbox, args: &[&str]) -> Vec<Value> {
    let ran = sandbox.cg(args);
    assert_eq!(ran.code, 0, "{args:?}: {}\n{}", ran.stdout, ran.stderr);
    ran.lines().into_iter().map(parse).collect()
}

/// Who worked in a leg, and where it stopped.
fn turns_and_end(events: &[Value]) -> (Vec<String>, String) {
    let turns = events.iter().filter(|e| e["type"] == "agent_started").map(|e| e["agent"].as_str().unwrap().to_owned()).collect();
    let last = events.last().unwrap();
    (turns, last["status"].as_str().unwrap_or_default().to_owned())
}

#[test]
fn a_run_pauses_before_an_agent_goes_on_with_resume_steps_one_turn_and_runs_on_without_breaks() {
    let sandbox = Sandbox::new();
    let crew = sandbox.write("drill.yaml", CREW);
    let script = sandbox.write("replies.yaml", SCRIPT);
    let (crew, script) = (crew.to_str().unwrap(), script.to_str().unwrap());

    let first = leg(&sandbox, &["run", crew, "--input", "Drill me.", "--script", script, "--break-before", "student", "--json"]);
    assert_eq!(first[1]["type"], "breakpoints_set");
    assert_eq!(first[1]["agents"], serde_json::json!(["student"]));
    let paused = first.iter().find(|e| e["type"] == "paused").expect("paused");
    assert_eq!((paused["agent"].as_str(), paused["breakpoint"].as_bool()), (Some("student"), Some(true)));
    assert_eq!(turns_and_end(&first), (vec!["teacher".to_owned()], "paused".to_owned()));
    let id = first[0]["run_id"].as_str().unwrap().to_owned();

    // Going on needs no words; the breakpoint stays: the student's next turn pauses again.
    let second = leg(&sandbox, &["resume", &id, "--script", script, "--json"]);
    assert_eq!(turns_and_end(&second), (vec!["student".to_owned(), "teacher".to_owned()], "paused".to_owned()));
    // Words given before the turn are the agent's to see.
    let third = leg(&sandbox, &["resume", &id, "--input", "Take your time.", "--step", "--script", script, "--json"]);
    assert_eq!(turns_and_end(&third), (vec!["student".to_owned()], "paused".to_owned()), "one turn, then a pause before the teacher");
    let resumed = third.iter().find(|e| e["type"] == "resumed").unwrap();
    assert_eq!(resumed["input"], "Take your time.");
    let last = leg(&sandbox, &["resume", &id, "--no-breaks", "--script", script, "--json"]);
    assert!(last.iter().any(|e| e["type"] == "breakpoints_set" && e["agents"] == serde_json::json!([])));
    assert_eq!(turns_and_end(&last), (vec!["teacher".to_owned()], "terminated".to_owned()));

    // The transcript says where it stopped and how to go on.
    let again = sandbox.cg(&["run", crew, "--input", "Drill me.", "--script", script, "--break-before", "teacher"]);
    assert!(again.stdout.contains("  paused before teacher's turn"), "{}", again.stdout);
    assert!(again.stdout.contains("go on: crewgraph resume ") && again.stdout.contains(&format!(" --script {script}")), "{}", again.stdout);

    let nobody = sandbox.cg(&["run", crew, "--input", "Drill me.", "--script", script, "--break-before", "ghost"]);
    assert_ne!(nobody.code, 0);
    assert!(nobody.stderr.contains("the crew has no agent 'ghost' to pause before (it has: teacher, student)"), "{}", nobody.stderr);
}
