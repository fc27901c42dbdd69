//! Forking a stored run at one of its replies (issue 18, item 3), end to end
//! through the CLI with the scripted provider: the fork gives the turns before the
//! reply again from the stored run (its continuation script holds only what comes
//! after, so a model asked for a replayed turn would answer wrong), replaces the
//! reply, and runs on; it is listed as the first run's child. A seq that is no
//! reply, a changed crew file (then `--on-revision`), and the fork of a run killed
//! with SIGKILL mid-run.

use serde_json::Value;

use crate::e2e::{parse, Sandbox};

use crate::support::DRILL as CREW;

const WHOLE: &str =
    "replies:\n  teacher:\n    - \"Q1: 1/2 + 1/4? [QUESTION]\"\n    - \"Wrong, try again. [QUESTION]\"\n    - \"Done. [END]\"\n  \
                     student:\n    - \"5/4 [ANSWER]\"\n    - \"3/4 [ANSWER]\"\n";

/// What comes after the student's first reply, in a fork where it answered right.
const AFTER: &str = "replies:\n  teacher:\n    - \"Right. [END]\"\n";

fn replies(events: &[Value]) -> Vec<String> {
    events.iter().filter(|e| e["type"] == "agent_response").map(|e| e["content"].as_str().unwrap().to_owned()).collect()
}

#[test]
fn a_fork_gives_the_turns_before_again_replaces_the_reply_and_runs_on() {
    let sandbox = Sandbox::new();
    let crew = sandbox.write("drill.yaml", CREW);
    let (whole, after) = (sandbox.write("whole.yaml", WHOLE), sandbox.write("after.yaml", AFTER));
    let crew_path = crew.to_str().unwrap();
    let ran = sandbox.cg(&["run", crew_path, "--input", "Drill me.", "--script", whole.to_str().unwrap(), "--json"]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let first: Vec<Value> = ran.lines().into_iter().map(parse).collect();
    let id = first[0]["run_id"].as_str().unwrap().to_owned();
    let wrong = first.iter().find(|e| e["type"] == "agent_response" && e["agent"] == "student").unwrap();
    let at = wrong["seq"].as_u64().unwrap().to_string();

    let forked = sandbox.cg(&["fork", &id, "--at", &at, "--reply", "3/4 [ANSWER]", "--script", after.to_str().unwrap(), "--json"]);
    assert_eq!(forked.code, 0, "{}\n{}", forked.stdout, forked.stderr);
    let fork: Vec<Value> = forked.lines().into_iter().map(parse).collect();
    assert_eq!(replies(&fork), ["Q1: 1/2 + 1/4? [QUESTION]", "3/4 [ANSWER]", "Right. [END]"]);
    assert_eq!(fork.last().unwrap()["status"], "terminated");
    let fork_id = fork[0]["run_id"].as_str().unwrap().to_owned();
    assert_ne!(fork_id, id);
    // The replayed part is the stored run's, event for event (ids and times aside).
    let strip = |e: &Value| {
        let mut e = e.clone();
        for key in ["run_id", "timestamp"] {
            e.as_object_mut().unwrap().remove(key);
        }
        e
    };
    // (Up to the forked turn's start: its words are the person's from there.)
    let turn_start = first.iter().rfind(|e| e["type"] == "agent_started" && e["seq"].as_u64() < wrong["seq"].as_u64()).unwrap();
    let before: Vec<Value> = first.iter().take_while(|e| e["seq"].as_u64() <= turn_start["seq"].as_u64()).map(strip).collect();
    assert_eq!(fork.iter().take(before.len()).map(strip).collect::<Vec<_>>(), before);

    // Listed as the first run's child.
    let listed: Vec<Value> = sandbox.cg(&["runs", "--json"]).lines().into_iter().map(parse).collect();
    let child = listed.iter().find(|r| r["id"] == fork_id.as_str()).expect("the fork is listed");
    assert_eq!(child["forked_from"], serde_json::json!({"run_id": id, "seq": wrong["seq"]}));

    // A seq that is no reply, and one that does not exist, say where replies are.
    let no_reply = sandbox.cg(&["fork", &id, "--at", "0", "--reply", "x", "--script", after.to_str().unwrap()]);
    assert_eq!(no_reply.code, 1);
    assert!(
        no_reply.stderr.contains(&format!("event 0 of run '{id}' is no agent's reply (it is a run_started); its replies are at ")),
        "{}",
        no_reply.stderr
    );
    let nowhere = sandbox.cg(&["fork", &id, "--at", "999", "--reply", "x"]);
    assert!(nowhere.stderr.contains(&format!("run '{id}' has no event 999 (its events go from 0 to ")), "{}", nowhere.stderr);

    // The crew file changed since: refused, unless forked on the version it ran.
    std::fs::write(&crew, CREW.replace("system_prompt: Ask.", "system_prompt: Ask kindly.")).unwrap();
    let changed = sandbox.cg(&["fork", &id, "--at", &at, "--reply", "3/4 [ANSWER]", "--script", after.to_str().unwrap()]);
    assert_eq!(changed.code, 1);
    assert!(changed.stderr.contains("the crew file changed since run") && changed.stderr.contains("--on-revision"), "{}", changed.stderr);
    let on_revision =
        sandbox.cg(&["fork", &id, "--at", &at, "--reply", "3/4 [ANSWER]", "--on-revision", "--script", after.to_str().unwrap(), "--json"]);
    assert_eq!(on_revision.code, 0, "{}\n{}", on_revision.stdout, on_revision.stderr);
    let events: Vec<Value> = on_revision.lines().into_iter().map(parse).collect();
    assert_eq!(replies(&events), ["Q1: 1/2 + 1/4? [QUESTION]", "3/4 [ANSWER]", "Right. [END]"]);
}

#[test]
fn a_run_killed_mid_run_is_forked_from_what_it_stored() {
    let sandbox = Sandbox::new();
    let crew = sandbox.write("drill.yaml", CREW);
    // The student's second reply takes long: the kill lands while it is awaited.
    let slow = WHOLE.replace("    - \"3/4 [ANSWER]\"\n", "    - { content: \"3/4 [ANSWER]\", delay_ms: 600000 }\n");
    let script = sandbox.write("slow.yaml", &slow);
    let after = sandbox.write("after.yaml", AFTER);
    let mut child = sandbox.spawn(&["run", crew.to_str().unwrap(), "--input", "Drill me.", "--script", script.to_str().unwrap(), "--json"]);
    // Events are printed as their step is stored: the teacher's second handoff is
    // the last step stored before the slow reply.
    let line = child.read_until(|line| line.contains("\"handoff\"") && line.contains("\"handoff_count\":3"));
    let id = parse(&line)["run_id"].as_str().unwrap().to_owned();
    child.kill9();
    let _ = child.child.wait();
    let first: Vec<Value> = child.printed.iter().map(|l| parse(l)).collect();
    let wrong = first.iter().find(|e| e["type"] == "agent_response" && e["agent"] == "student").unwrap();
    let forked = sandbox.cg(&[
        "fork",
        &id,
        "--at",
        &wrong["seq"].as_u64().unwrap().to_string(),
        "--reply",
        "3/4 [ANSWER]",
        "--script",
        after.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(forked.code, 0, "{}\n{}", forked.stdout, forked.stderr);
    let fork: Vec<Value> = forked.lines().into_iter().map(parse).collect();
    assert_eq!(replies(&fork), ["Q1: 1/2 + 1/4? [QUESTION]", "3/4 [ANSWER]", "Right. [END]"]);
}
