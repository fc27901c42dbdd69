//! Why a reply did not route (issue 18, item 1), end to end through the CLI with
//! the scripted provider: a misspelt signal is a `route_missed` event naming what it
//! came close to, before `on_no_signal` acts (the whole trace snapshot-tested); the
//! same spelling given as an alias routes; `crewgraph match --explain` ranks the
//! same candidates for one reply.

use serde_json::Value;

use crate::e2e::{parse, Sandbox};
use crate::support::run_in;

const CREW: &str = r#"name: Quiz
entry_point: student
agents:
  - { id: student, system_prompt: Ask one question. }
  - { id: teacher, system_prompt: Answer it., is_terminal: true }
routing:
  on_no_signal: end
  signals:
    student:
      - { signal: "[QUESTION]", target: teacher }
"#;

const SCRIPT: &str = "replies:\n  student:\n    - \"What is 1/2 + 1/4? [QUESTON]\"\n  teacher:\n    - \"3/4.\"\n";

/// The run's events as JSON lines, ids and times left out.
fn run(sandbox: &Sandbox, crew: &str) -> Vec<Value> {
    let crew = sandbox.write("quiz.yaml", crew);
    let script = sandbox.write("replies.yaml", SCRIPT);
    let ran = sandbox.cg(&["run", crew.to_str().unwrap(), "--input", "Begin.", "--script", script.to_str().unwrap(), "--json"]);
    ran.lines()
        .into_iter()
        .map(parse)
        .map(|mut event| {
            if let Some(event) = event.as_object_mut() {
                for key in ["run_id", "timestamp", "usage"] {
                    event.remove(key);
                }
            }
            event
        })
        .filter(|event| event["type"] != "token")
        .collect()
}

#[test]
fn a_misspelt_signal_is_a_route_missed_event_before_the_run_ends_and_an_alias_routes_it() {
    let sandbox = Sandbox::new();
    let missed = run(&sandbox, CREW);
    let lines: Vec<String> = missed.iter().map(|e| e.to_string()).collect();
    insta::assert_snapshot!("route_missed_trace", lines.join("\n"));
    let at = missed.iter().position(|e| e["type"] == "route_missed").expect("a route_missed event");
    assert_eq!(missed[at]["candidates"][0]["kind"], "misspelt");
    assert_eq!(missed[at + 1]["type"], "run_finished", "emitted before on_no_signal ends the run");
    assert_eq!(missed[at + 1]["status"], "no_route");

    // The one-click fix, as a file says it: the spelling becomes an alias of the signal.
    let aliased = CREW
        .replace(r#"{ signal: "[QUESTION]", target: teacher }"#, r#"{ signal: "[QUESTION]", target: teacher, aliases: ["[QUESTON]"] }"#);
    let routed = run(&sandbox, &aliased);
    assert!(routed.iter().all(|e| e["type"] != "route_missed"), "{routed:#?}");
    let matched = routed.iter().find(|e| e["type"] == "signal_matched").expect("the alias matched");
    assert_eq!((matched["signal"].as_str(), matched["level"].as_str()), (Some("[QUESTION]"), Some("exact")));
    assert_eq!(routed.last().unwrap()["status"], "completed");

    // The same in a `signals:` entry; an alias that is no bracket name is an error at its place.
    let declared = format!("{CREW}signals:\n  - {{ name: \"[QUESTION]\", behavior: route, aliases: [\"[QUESTON]\", QUESTON] }}\n");
    let file = sandbox.write("declared.yaml", &declared);
    let checked = run_in(&sandbox.path(""), &["validate", file.to_str().unwrap()], "");
    assert_eq!(checked.code, 1, "{}", checked.stdout);
    let said = format!("{}{}", checked.stdout, checked.stderr);
    assert!(said.contains("declared.yaml:12:67: invalid signal format 'QUESTON'"), "{said}");
}

#[test]
fn match_explain_ranks_what_came_close_and_exits_1_when_nothing_routes() {
    let sandbox = Sandbox::new();
    let crew = sandbox.write("quiz.yaml", CREW);
    let crew = crew.to_str().unwrap();
    let cg = |args: &[&str]| run_in(&sandbox.path(""), args, "");
    let missed = cg(&["match", "--explain", "--crew", crew, "--agent", "student", "--content", "Here: [QUESTON]. QUESTION: why?"]);
    assert_eq!(missed.code, 1);
    assert_eq!(
        missed.stdout,
        "student's reply has none of its signals: the run ends: nowhere to go\n  \
         1. it wrote [QUESTON]: did you mean [QUESTION]? (1 edit)\n  \
         2. it wrote QUESTION without brackets: the signal is [QUESTION]\n"
    );
    let routed = cg(&["match", "--explain", "--crew", crew, "--agent", "student", "--content", "[ question ]"]);
    assert_eq!((routed.code, routed.stdout.as_str()), (0, "student's reply routes: [QUESTION] (normalized), the work goes to teacher\n"));
    let nobody = cg(&["match", "--explain", "--crew", crew, "--agent", "ghost", "--content", "x"]);
    assert_eq!((nobody.code, nobody.stderr.trim()), (2, "crewgraph: the crew has no agent 'ghost' (it has: student, teacher)"));
}
