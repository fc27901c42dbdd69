//! Ctrl-C (issue 3, "Bad input"; DESIGN.md §4 "a run can be cancelled"): SIGINT to a
//! running `crewgraph run` stops the reply in flight, the run ends `cancelled`, and
//! every event up to the cancellation is stored and printed — the process exits by
//! itself, it is not killed by the signal.

use std::time::{Duration, Instant};

use crate::e2e::{assert_contiguous, example, kind, now, parse, run_id, script, slow, Reply, Sandbox, Spawned};

/// A reply far longer than any test waits: a run that exits early was interrupted.
const FOREVER_MS: u64 = 120_000;

/// A cancelled run must stop well before its reply would have ended.
const PROMPTLY: Duration = Duration::from_secs(30);

/// Starts `run CREW --json` on `replies`, reads up to the line `at` accepts, sends
/// SIGINT, and returns the child after it exited (status 0), with how long that took.
fn interrupt(sandbox: &Sandbox, crew: &str, replies: &[(&str, Vec<Reply>)], at: impl Fn(&str) -> bool) -> Spawned {
    let script_path = sandbox.write("script.yaml", &script(replies));
    let mut child = sandbox.spawn(&["run", crew, "--input", "Go", "--script", script_path.to_str().unwrap(), "--json"]);
    child.read_until(at);
    let sent = Instant::now();
    child.signal(libc::SIGINT);
    let (status, stderr) = child.finish();
    assert!(sent.elapsed() < PROMPTLY, "Ctrl-C stops the reply in flight instead of waiting it out ({:?})", sent.elapsed());
    // DESIGN.md §10: exit 0 unless the run failed — and a handled Ctrl-C is an exit, not a death by signal.
    assert_eq!(status.code(), Some(0), "crewgraph exits by itself after Ctrl-C: {status:?} {stderr}");
    child
}

/// The run ended `cancelled` and everything printed is what is stored.
fn assert_cancelled_and_kept(sandbox: &Sandbox, child: &Spawned) -> Vec<String> {
    let printed = &child.printed;
    let id = run_id(&printed[0]);
    let last = parse(printed.last().unwrap());
    assert_eq!((last["type"].as_str(), last["status"].as_str()), (Some("run_finished"), Some("cancelled")));
    assert_eq!(sandbox.status(&id), "cancelled", "runs lists the run as cancelled");
    let stored = sandbox.replay(&id);
    assert_eq!(&stored, printed, "every event up to the cancellation is stored, as printed");
    assert_contiguous(&stored, "a cancelled run");
    sandbox.assert_database_is_sound();
    stored
}

#[test]
fn ctrl_c_mid_reply_ends_the_run_cancelled_with_its_events_kept() {
    let sandbox = Sandbox::new();
    let replies = vec![
        ("researcher", vec![now("Five facts about city bees, with sources. [NOTES_READY]")]),
        ("writer", vec![slow("Draft 1: Bees in the city ... [DRAFT_READY]", FOREVER_MS)]),
    ];
    let child = interrupt(&sandbox, &example("research-loop.yaml"), &replies, |l| kind(l) == "handoff");
    let stored = assert_cancelled_and_kept(&sandbox, &child);
    // The researcher's step is whole; the writer had started when Ctrl-C came.
    let kinds: Vec<String> = stored.iter().map(|l| kind(l)).collect();
    assert!(kinds.contains(&"agent_response".to_owned()), "the researcher's reply is kept: {kinds:?}");
    let finished = parse(stored.last().unwrap());
    assert_eq!(finished["final_agent"], "writer", "the run was at the writer when it was cancelled");
    assert!(finished.get("error").is_none() || finished["error"].is_null(), "a cancellation is not an error");

    // A cancelled run is over: resuming it is refused, clearly, and changes nothing.
    let rest = sandbox.write("rest.yaml", &script(&[("writer", vec![now("Draft [DRAFT_READY]")])]));
    let id = run_id(&stored[0]);
    let resume = sandbox.cg(&["resume", &id, "--script", rest.to_str().unwrap()]);
    assert_eq!(resume.code, 1);
    assert!(resume.stderr.contains("cancelled and cannot be resumed"), "{}", resume.stderr);
    assert_eq!(sandbox.replay(&id), stored);
}

#[test]
fn ctrl_c_while_a_parallel_group_works_cancels_its_members_and_the_run() {
    let sandbox = Sandbox::new();
    let replies = vec![
        ("teacher", vec![now("Question 1: what is 1/2 + 1/4? [QUESTION]")]),
        ("student", vec![slow("1/2 is 2/4, and 2/4 + 1/4 = 3/4.", 20_000)]),
        ("reporter", vec![slow("Score: 1/1", 20_000)]),
    ];
    // Nothing but the start is printed before the group's step ends. The teacher's
    // question comes at once, then the group works (20 s a member, inside its 30 s
    // timeout); the short pause only places Ctrl-C inside the group.
    let child = interrupt(&sandbox, &example("exam.yaml"), &replies, |l| {
        let started = kind(l) == "run_started";
        if started {
            std::thread::sleep(Duration::from_millis(300));
        }
        started
    });
    let stored = assert_cancelled_and_kept(&sandbox, &child);
    let kinds: Vec<String> = stored.iter().map(|l| kind(l)).collect();
    if kinds.contains(&"parallel_started".to_owned()) {
        // The group is closed before the run ends, with no member counted as finished
        // (none answered) nor as timed out (they were stopped, not late).
        let closed = parse(&stored[stored.len() - 2]);
        assert_eq!(closed["type"], "parallel_finished", "{kinds:?}");
        assert_eq!(closed["finished"], serde_json::json!([]));
        assert_eq!(closed["timed_out"], serde_json::json!([]));
        assert!(!kinds.iter().skip_while(|k| *k != "parallel_started").any(|k| k == "agent_response"), "no member answered");
    }
}

#[test]
fn ctrl_c_in_the_transcript_ends_with_the_cancelled_line() {
    let sandbox = Sandbox::new();
    let script_path = sandbox.write(
        "script.yaml",
        &script(&[
            ("researcher", vec![now("Five facts about city bees, with sources. [NOTES_READY]")]),
            ("writer", vec![slow("Draft 1: Bees in the city ... [DRAFT_READY]", FOREVER_MS)]),
        ]),
    );
    let crew = example("research-loop.yaml");
    let mut child = sandbox.spawn(&["run", &crew, "--input", "Go", "--script", script_path.to_str().unwrap()]);
    child.read_until(|l| l.contains("researcher → writer"));
    child.signal(libc::SIGINT);
    let (status, stderr) = child.finish();
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(child.printed.iter().any(|l| l.starts_with("■ cancelled")), "the transcript says how the run ended: {:#?}", child.printed);
    let runs = sandbox.runs();
    assert_eq!(runs[0]["status"], "cancelled");
}
