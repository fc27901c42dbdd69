//! Crash safety, for real (issue 3, "Tests"; DESIGN.md §4 "every step is written to
//! the store before the next begins", §8): `crewgraph run --json` runs as a child
//! process on a script whose replies take time, and is killed with SIGKILL — no
//! chance to clean up — once it has printed a chosen line. Then, through the CLI:
//!
//! - the database is intact (SQLite's integrity check) and `runs` lists the run as
//!   `running`;
//! - `replay` holds every line the dead process printed, byte for byte, with the same
//!   seqs, contiguous from 0 — and never half a step;
//! - `resume` finishes the run from its last stored step, its first event continuing
//!   the stored seqs, and the final replay is one gap-free trace ending in `run_finished`.
//!
//! A printed line is only a promise if it survives the crash: the CLI prints a step
//! once the store has it, so these tests fail if it printed early, if a step were
//! stored in pieces, or if resume started over or skipped a step.

use std::os::unix::process::ExitStatusExt;
use std::time::Duration;

use crate::e2e::{assert_contiguous, example, instant, kind, now, parse, remaining, run_id, script, seq, slow, Reply, Sandbox, Spawned};

/// How long an ordinary reply takes while a run is to be killed: long enough that
/// the kill lands while a step is in flight, short enough to keep the tests quick.
const STEP_MS: u64 = 800;

/// The last reply of a run about to be killed takes this long, so the run cannot
/// have finished by the time the kill lands, however busy the machine is.
const LAST_MS: u64 = 60_000;

/// crews/research-loop.yaml walked as its shipped script walks it (researcher →
/// writer → editor → judge → back to the writer → editor, by fallback → judge), each
/// reply taking time.
fn research_replies() -> Vec<(&'static str, Vec<Reply>)> {
    vec![
        ("researcher", vec![slow("Five facts about city bees, with sources. [NOTES_READY]", STEP_MS)]),
        (
            "writer",
            vec![
                slow("Draft 1: Bees in the city ... [DRAFT_READY]", STEP_MS),
                slow("Draft 2, with a clearer introduction. [DRAFT_READY]", STEP_MS),
            ],
        ),
        ("editor", vec![slow("Edited draft 1. [EDITED]", STEP_MS), slow("Edited draft 2, tightened.", STEP_MS)]),
        (
            "judge",
            vec![
                slow("The introduction is unclear; rewrite it. [REVISE]", STEP_MS),
                slow("Clear, and every fact is backed. [APPROVED]", LAST_MS),
            ],
        ),
    ]
}

/// crews/exam.yaml for two questions, the second round of the parallel group
/// (student and reporter side by side) slow — well inside the group's 30 s timeout.
fn exam_replies() -> Vec<(&'static str, Vec<Reply>)> {
    vec![
        (
            "teacher",
            vec![
                now("Question 1: what is 1/2 + 1/4? [QUESTION]"),
                now("Well done. Question 2: what is 2/3 of 9? [QUESTION]"),
                now("Both right: your score is 2/2. That is the end of the exam. [END_EXAM]"),
            ],
        ),
        ("student", vec![now("1/2 is 2/4, and 2/4 + 1/4 = 3/4."), slow("9 divided by 3 is 3, times 2 is 6.", 20_000)]),
        ("reporter", vec![now("0.75 is 3/4: right. Score: 1/1"), slow("Right again. Score: 2/2", 20_000)]),
    ]
}

/// What a killed run left in the database.
struct Killed {
    id: String,
    /// What the process printed before it died.
    printed: Vec<String>,
    /// `replay --json` right after the crash.
    stored: Vec<String>,
}

/// Starts `crewgraph run CREW --json` on `replies`, lets `until` read its output to
/// the kill point, kills it with SIGKILL, and checks what the crash left.
fn run_and_kill(sandbox: &Sandbox, crew: &str, replies: &[(&str, Vec<Reply>)], until: impl FnOnce(&mut Spawned)) -> Killed {
    let script_path = sandbox.write("script.yaml", &script(replies));
    let mut child = sandbox.spawn(&["run", crew, "--input", "Go", "--script", script_path.to_str().unwrap(), "--json"]);
    until(&mut child);
    child.kill9();
    let (status, stderr) = child.finish();
    // The kill landed mid-run: had the run ended first, the process would have exited.
    assert_eq!(status.signal(), Some(libc::SIGKILL), "crewgraph was killed mid-run, not finished: {status:?} {stderr}");
    let printed = child.printed.clone();
    assert!(!printed.is_empty(), "the run printed its start before it was killed");
    assert_eq!(kind(&printed[0]), "run_started");
    let id = run_id(&printed[0]);
    let stored = check_crash_left_a_sound_prefix(sandbox, &id, &printed);
    Killed { id, printed, stored }
}

/// After a crash: the file is intact, the run is `running`, and its stored events
/// are every printed line (byte for byte) plus whole steps at most, seqs from 0.
fn check_crash_left_a_sound_prefix(sandbox: &Sandbox, id: &str, printed: &[String]) -> Vec<String> {
    sandbox.assert_database_is_sound();
    assert_eq!(sandbox.status(id), "running", "a run whose process died is still running (resumable), not lost");
    let stored = sandbox.replay(id);
    assert_contiguous(&stored, "the events stored before the crash");
    assert!(
        stored.len() >= printed.len() && stored[..printed.len()] == printed[..],
        "every line printed before the crash is stored, same seq, same bytes\nprinted: {printed:#?}\nstored: {stored:#?}"
    );
    // A step is stored whole or not at all: every agent that started has answered,
    // and the last stored event is where a step ends, not in the middle of one.
    let count = |t: &str| stored.iter().filter(|l| kind(l) == t).count();
    assert_eq!(count("agent_started"), count("agent_response"), "no half step is stored: {stored:#?}");
    let last = kind(stored.last().unwrap());
    assert!(
        ["run_started", "handoff", "parallel_finished"].contains(&last.as_str()),
        "the stored events end where a step ends, not with {last}"
    );
    assert_eq!(count("run_finished"), 0, "a killed run has not finished");
    stored
}

/// Resumes the killed run with the replies it has not used (given at once) and
/// checks the whole trace; returns the final replay.
fn resume_to_the_end(sandbox: &Sandbox, killed: &Killed, replies: &[(&str, Vec<Reply>)], ends: &str) -> Vec<String> {
    let rest = instant(&remaining(replies, &killed.stored));
    let rest_path = sandbox.write("rest.yaml", &script(&rest));
    let resumed = sandbox.cg(&["resume", &killed.id, "--script", rest_path.to_str().unwrap(), "--json"]);
    assert_eq!(resumed.code, 0, "the resume finishes the run: {}\n{}", resumed.stderr, resumed.stdout);
    let new: Vec<String> = resumed.stdout.lines().map(str::to_owned).collect();
    assert_eq!(seq(&new[0]), killed.stored.len() as u64, "the resume's first event continues the stored seqs");
    assert!(
        new.iter().any(|l| kind(l) == "warning" && parse(l)["message"].as_str().unwrap().contains("interrupted")),
        "the resume says the run was interrupted: {new:#?}"
    );
    let resumed_event = new.iter().find(|l| kind(l) == "resumed").expect("a resumed event");
    assert_eq!(parse(resumed_event)["input"], "", "an interrupted run goes on without new input");
    let all = sandbox.replay(&killed.id);
    assert_eq!(all, [killed.stored.clone(), new].concat(), "the final trace is what was stored, then what the resume printed");
    assert_complete(&all, ends);
    assert_eq!(sandbox.status(&killed.id), ends);
    sandbox.assert_database_is_sound();
    all
}

/// One complete run: seqs 0.. without gaps, one start first, one finish last.
fn assert_complete(all: &[String], ends: &str) {
    assert_contiguous(all, "the final trace");
    let kinds: Vec<String> = all.iter().map(|l| kind(l)).collect();
    assert_eq!(kinds.iter().filter(|k| *k == "run_started").count(), 1, "one start");
    assert_eq!(kinds.iter().filter(|k| *k == "run_finished").count(), 1, "one finish");
    assert_eq!(kinds[0], "run_started");
    let last = parse(all.last().unwrap());
    assert_eq!((last["type"].as_str(), last["status"].as_str()), (Some("run_finished"), Some(ends)));
    let ids: std::collections::BTreeSet<String> = all.iter().map(|l| run_id(l)).collect();
    assert_eq!(ids.len(), 1, "every event is the one run's");
}

/// Which agents answered, in order (to check a resumed run did each turn once).
fn turns(all: &[String]) -> Vec<String> {
    all.iter().filter(|l| kind(l) == "agent_response").map(|l| parse(l)["agent"].as_str().unwrap().to_owned()).collect()
}

const RESEARCH_TURNS: [&str; 7] = ["researcher", "writer", "editor", "judge", "writer", "editor", "judge"];

#[test]
fn killed_after_its_first_line_a_run_keeps_its_start_and_resumes_from_the_entry_point() {
    let sandbox = Sandbox::new();
    let replies = research_replies();
    let killed = run_and_kill(&sandbox, &example("research-loop.yaml"), &replies, |child| child.read_lines(1));
    // Only the run's start was reported; the researcher's turn was in flight.
    assert_eq!(killed.printed.len(), 1);
    let all = resume_to_the_end(&sandbox, &killed, &replies, "terminated");
    assert_eq!(turns(&all), RESEARCH_TURNS, "each turn happens once: the lost turn again, none twice");
}

#[test]
fn killed_after_its_third_line_a_run_keeps_the_printed_step_and_resumes_after_it() {
    let sandbox = Sandbox::new();
    let replies = research_replies();
    let killed = run_and_kill(&sandbox, &example("research-loop.yaml"), &replies, |child| child.read_lines(3));
    // Line 3 belongs to the researcher's step, printed whole once it was stored.
    assert!(turns(&killed.stored).starts_with(&["researcher".to_owned()]));
    let all = resume_to_the_end(&sandbox, &killed, &replies, "terminated");
    assert_eq!(turns(&all), RESEARCH_TURNS);
}

#[test]
fn killed_after_its_sixth_line_a_run_loses_no_printed_line() {
    let sandbox = Sandbox::new();
    let replies = research_replies();
    let killed = run_and_kill(&sandbox, &example("research-loop.yaml"), &replies, |child| child.read_lines(6));
    assert!(killed.printed.len() >= 6);
    let all = resume_to_the_end(&sandbox, &killed, &replies, "terminated");
    assert_eq!(turns(&all), RESEARCH_TURNS);
}

#[test]
fn killed_after_the_judge_sent_the_draft_back_a_run_resumes_inside_its_loop() {
    let sandbox = Sandbox::new();
    let replies = research_replies();
    let killed = run_and_kill(&sandbox, &example("research-loop.yaml"), &replies, |child| {
        child.read_until(|l| kind(l) == "handoff" && parse(l)["from"] == "judge");
    });
    // Stored: the first four turns; the writer's second draft was in flight.
    assert!(turns(&killed.stored).starts_with(&RESEARCH_TURNS[..4].iter().map(|s| s.to_string()).collect::<Vec<_>>()));
    let all = resume_to_the_end(&sandbox, &killed, &replies, "terminated");
    assert_eq!(turns(&all), RESEARCH_TURNS);
    // The handoff count goes on from the stored one, it does not restart at 0.
    let counts: Vec<u64> = all.iter().filter(|l| kind(l) == "handoff").map(|l| parse(l)["handoff_count"].as_u64().unwrap()).collect();
    assert_eq!(counts, (1..=counts.len() as u64).collect::<Vec<_>>());
}

#[test]
fn killed_while_a_parallel_group_works_a_run_loses_only_the_step_in_flight() {
    let sandbox = Sandbox::new();
    let replies = exam_replies();
    let killed = run_and_kill(&sandbox, &example("exam.yaml"), &replies, |child| {
        // The first round is stored and printed; the teacher's second question comes
        // at once and the second round (20 s a member) starts. The short pause only
        // places the kill inside that round; the checks hold wherever it lands.
        child.read_until(|l| kind(l) == "parallel_finished");
        std::thread::sleep(Duration::from_millis(300));
    });
    assert_eq!(turns(&killed.stored), ["teacher", "student", "reporter"], "one whole round is stored, the second not at all");
    let all = resume_to_the_end(&sandbox, &killed, &replies, "terminated");
    assert_eq!(turns(&all), ["teacher", "student", "reporter", "teacher", "student", "reporter", "teacher"]);
    // Both rounds are whole in the final trace: started, then finished with both members.
    let finished: Vec<serde_json::Value> = all.iter().filter(|l| kind(l) == "parallel_finished").map(|l| parse(l)).collect();
    assert_eq!(finished.len(), 2);
    for round in finished {
        assert_eq!(round["finished"], serde_json::json!(["student", "reporter"]));
    }
}

#[test]
fn a_resume_killed_in_its_turn_is_resumed_again_and_the_trace_stays_whole() {
    let sandbox = Sandbox::new();
    let replies = research_replies();
    let first = run_and_kill(&sandbox, &example("research-loop.yaml"), &replies, |child| child.read_lines(3));

    // Resume, slow again, and kill the resume once it has printed its first step.
    let rest = remaining(&replies, &first.stored);
    let rest_path = sandbox.write("rest-slow.yaml", &script(&rest));
    let mut resume = sandbox.spawn(&["resume", &first.id, "--script", rest_path.to_str().unwrap(), "--json"]);
    resume.read_lines(1);
    resume.kill9();
    let (status, stderr) = resume.finish();
    assert_eq!(status.signal(), Some(libc::SIGKILL), "the resume was killed mid-run: {stderr}");
    let printed = [first.stored.clone(), resume.printed.clone()].concat();
    let stored = check_crash_left_a_sound_prefix(&sandbox, &first.id, &printed);
    assert!(stored.len() > first.stored.len(), "the resume's first step is stored");

    let second = Killed { id: first.id.clone(), printed, stored };
    let all = resume_to_the_end(&sandbox, &second, &replies, "terminated");
    assert_eq!(turns(&all), RESEARCH_TURNS);
    let interrupted = all.iter().filter(|l| kind(l) == "warning" && l.contains("interrupted")).count();
    assert_eq!(interrupted, 2, "each resume after a crash says so");
}
