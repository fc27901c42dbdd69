//! Bad input to `run` and `resume` (issue 3, "Bad input"; DESIGN.md §11): each gets
//! a clear message on stderr that says what and where, a non-zero exit, never a
//! panic — and nothing stored is lost or changed by the refusal.

use std::path::PathBuf;

use crate::e2e::{assert_contiguous, cg_in, example, kind, now, parse, run_id, script, slow, Sandbox};
use crate::support::fixtures;

/// A crew that asks the person something and waits ([WAIT] pauses), then passes on.
const ASK_CREW: &str = r#"version: "1.0"
name: Ask and wait
entry_point: asker
signals: []
agents:
  - { id: asker, system_prompt: "Ask the person which colour they want, then pass on." }
  - { id: finisher, system_prompt: "Confirm the colour.", is_terminal: true }
routing:
  signals:
    asker:
      - { signal: "[WAIT]", target: "" }
      - { signal: "[NEXT]", target: finisher }
"#;

/// Runs ASK_CREW (written to the sandbox) until it pauses; returns the crew file and the run id.
fn paused_run(sandbox: &Sandbox) -> (PathBuf, String) {
    let crew = sandbox.write("crew.yaml", ASK_CREW);
    let first = sandbox.write("ask.yaml", &script(&[("asker", vec![now("Which colour? [WAIT]")])]));
    let run = sandbox.cg(&["run", crew.to_str().unwrap(), "--input", "Paint the shed", "--script", first.to_str().unwrap(), "--json"]);
    assert_eq!(run.code, 0, "a paused run is not a failure: {}", run.stderr);
    let last = parse(run.lines().last().unwrap());
    assert_eq!(last["status"], "paused");
    (crew, run_id(run.lines()[0]))
}

/// The replies that finish ASK_CREW after the pause.
fn answer_script(sandbox: &Sandbox) -> PathBuf {
    sandbox.write("answer.yaml", &script(&[("asker", vec![now("Blue it is. [NEXT]")]), ("finisher", vec![now("Blue, done.")])]))
}

/// Asserts `crewgraph` refused: exit 1, nothing on stdout, and `stderr` says `what`.
fn assert_refused(run: &crate::support::Run, what: &[&str]) {
    assert_eq!(run.code, 1, "refused with exit 1: {run:?}");
    assert!(run.stdout.is_empty(), "a refusal prints no events: {}", run.stdout);
    for words in what {
        assert!(run.stderr.contains(words), "stderr says {words:?}: {}", run.stderr);
    }
}

// ---- the run request ----

#[test]
fn an_empty_input_is_refused_as_the_window_and_the_server_refuse_it() {
    let sandbox = Sandbox::new();
    let replies = script(&[("teacher", vec![now("Q [QUESTION]")])]);
    let replies = sandbox.write("replies.yaml", &replies);
    let run = sandbox.cg(&["run", &example("exam.yaml"), "--input", "  ", "--script", replies.to_str().unwrap()]);
    assert_refused(&run, &["the input is empty: write what the crew is asked to do"]);
    assert!(sandbox.runs().is_empty(), "nothing was started");
}

// ---- scripts ----

#[test]
fn a_script_naming_an_agent_the_crew_lacks_is_refused_at_its_place() {
    let sandbox = Sandbox::new();
    let bad = sandbox.write("ghost.yaml", "replies:\n  teacher: [\"Q [QUESTION]\"]\n  ghost: [\"boo\"]\n");
    let run = sandbox.cg(&["run", &example("exam.yaml"), "--input", "Go", "--script", bad.to_str().unwrap()]);
    assert_refused(&run, &[&format!("{}:3:3:", bad.display()), "agent 'ghost'", "the crew does not have"]);
    // Refused before it started: no run was stored.
    assert!(sandbox.runs().is_empty());
}

#[test]
fn a_script_that_runs_out_fails_the_run_naming_the_agent_and_keeps_its_events() {
    let sandbox = Sandbox::new();
    let short = sandbox.write(
        "short.yaml",
        &script(&[("teacher", vec![now("Q1 [QUESTION]")]), ("student", vec![now("3/4")]), ("reporter", vec![now("Right")])]),
    );
    let run = sandbox.cg(&["run", &example("exam.yaml"), "--input", "Go", "--script", short.to_str().unwrap(), "--json"]);
    assert_eq!(run.code, 1, "a failed run exits 1 (DESIGN.md §10)");
    // The failure is said on stderr too, where a person sees it when --json goes to a file.
    assert!(run.stderr.contains("failed") && run.stderr.contains("'teacher'"), "stderr names the agent: {}", run.stderr);
    let printed: Vec<String> = run.stdout.lines().map(str::to_owned).collect();
    let last = parse(printed.last().unwrap());
    assert_eq!(last["status"], "failed");
    assert!(last["error"].as_str().unwrap().contains("no reply left for agent 'teacher'"), "{last}");
    let id = run_id(&printed[0]);
    let listed = sandbox.runs();
    assert_eq!(listed[0]["status"], "failed");
    assert!(listed[0]["error"].as_str().unwrap().contains("'teacher'"), "runs shows why it failed");
    // Every event up to the failure is stored: the first round, the teacher's next turn.
    assert_eq!(sandbox.replay(&id), printed);
    assert_contiguous(&printed, "a failed run");
}

#[test]
fn a_malformed_script_is_refused_at_its_place() {
    let sandbox = Sandbox::new();
    let crew = example("exam.yaml");
    let cases: [(&str, &str, &[&str]); 4] = [
        ("unclosed.yaml", "replies:\n  teacher: [unclosed\n", &[":3:1:", "not a valid script", "YAML syntax error"]),
        ("misspelt.yaml", "replies:\n  teacher: [{ contents: hi }]\n", &[":2:15:", "unknown key 'contents'"]),
        ("empty.yaml", "\n", &[":1:1:", "the script is empty"]),
        ("list.yaml", "- a\n- b\n", &[":1:1:", "a script must be a mapping with `replies:`"]),
    ];
    for (name, text, says) in cases {
        let path = sandbox.write(name, text);
        let run = sandbox.cg(&["run", &crew, "--input", "Go", "--script", path.to_str().unwrap()]);
        let mut expected = vec![path.to_str().unwrap()];
        expected.extend(says);
        assert_refused(&run, &expected);
    }
    let missing = sandbox.path("nowhere.yaml");
    let run = sandbox.cg(&["run", &crew, "--input", "Go", "--script", missing.to_str().unwrap()]);
    assert_refused(&run, &[missing.to_str().unwrap(), "cannot read the script"]);
    assert!(sandbox.runs().is_empty(), "no bad script started a run");
}

// ---- crews ----

#[test]
fn a_crew_file_with_errors_does_not_run_and_says_every_error_where_validate_does() {
    let sandbox = Sandbox::new();
    let any_script = sandbox.write("s.yaml", &script(&[("a", vec![now("hi")])]));
    for fixture in ["unknown_target.yaml", "many_errors.yaml", "malformed_unclosed_quote.yaml", "duplicate_agent_ids.yaml"] {
        let crew = fixtures().join(fixture);
        let crew = crew.to_str().unwrap();
        let validate = cg_in(&fixtures(), &["validate", crew]);
        assert_eq!(validate.code, 1, "{fixture} has errors");
        let run = sandbox.cg(&["run", crew, "--input", "Go", "--script", any_script.to_str().unwrap()]);
        assert_refused(&run, &["the crew has errors and cannot run"]);
        // The same errors, with the same FILE:LINE:COL, as `crewgraph validate` gives.
        for error in validate.lines() {
            assert!(run.stderr.contains(error), "{fixture}: run says {error:?}: {}", run.stderr);
        }
    }
    let run =
        sandbox.cg(&["run", sandbox.path("missing.yaml").to_str().unwrap(), "--input", "Go", "--script", any_script.to_str().unwrap()]);
    assert_refused(&run, &["missing.yaml", "cannot open"]);
    assert!(sandbox.runs().is_empty());
}

// ---- resume ----

#[test]
fn a_crew_changed_between_pause_and_resume_goes_on_with_a_warning_that_says_so() {
    let sandbox = Sandbox::new();
    let (crew, id) = paused_run(&sandbox);
    std::fs::write(&crew, ASK_CREW.replace("Confirm the colour.", "Confirm the colour, politely.")).unwrap();
    let before = sandbox.replay(&id);
    let run = sandbox.cg(&["resume", &id, "--input", "Blue", "--script", answer_script(&sandbox).to_str().unwrap(), "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines: Vec<String> = run.stdout.lines().map(str::to_owned).collect();
    let warning = parse(&lines[0]);
    assert_eq!(warning["type"], "warning", "the first thing the resume says is that the crew changed");
    assert!(warning["message"].as_str().unwrap().contains("the crew changed"), "{warning}");
    assert_eq!(kind(&lines[1]), "resumed");
    assert_eq!(parse(&lines[1])["input"], "Blue");
    assert_eq!(parse(lines.last().unwrap())["status"], "completed");
    // The warning is part of the run's record, not only of this terminal.
    let all = sandbox.replay(&id);
    assert_eq!(all, [before, lines].concat());
    assert_contiguous(&all, "a resumed run");
}

#[test]
fn a_resume_with_the_whole_runs_script_goes_on_after_the_replies_already_used() {
    // The same rule as the server's script_file and the window's Resume: the script
    // starts with what the run used, so that is skipped, not asked again.
    let sandbox = Sandbox::new();
    let (_, id) = paused_run(&sandbox);
    let whole = sandbox.write(
        "whole.yaml",
        &script(&[("asker", vec![now("Which colour? [WAIT]"), now("Blue it is. [NEXT]")]), ("finisher", vec![now("Blue, done.")])]),
    );
    let run = sandbox.cg(&["resume", &id, "--input", "Blue", "--script", whole.to_str().unwrap(), "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(parse(run.lines().last().unwrap())["status"], "completed", "{}", run.stdout);
    assert!(!run.stdout.contains("Which colour?"), "the question is not asked again: {}", run.stdout);
}

#[test]
fn an_unchanged_crew_resumes_without_a_warning() {
    let sandbox = Sandbox::new();
    let (_, id) = paused_run(&sandbox);
    let run = sandbox.cg(&["resume", &id, "--input", "Blue", "--script", answer_script(&sandbox).to_str().unwrap(), "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!run.stdout.lines().any(|l| kind(l) == "warning"), "nothing changed, nothing to warn about: {}", run.stdout);
}

#[test]
fn a_crew_broken_or_missing_its_agent_since_the_pause_is_refused_and_the_run_stays_paused() {
    let sandbox = Sandbox::new();
    let (crew, id) = paused_run(&sandbox);
    let answer = answer_script(&sandbox);
    let before = sandbox.replay(&id);
    let resume = |sandbox: &Sandbox| sandbox.cg(&["resume", &id, "--input", "Blue", "--script", answer.to_str().unwrap()]);

    std::fs::write(&crew, ASK_CREW.replace("target: finisher", "target: nobody")).unwrap();
    assert_refused(&resume(&sandbox), &["the crew has errors and cannot run", "crew.yaml:12:", "unknown agent 'nobody'"]);

    std::fs::remove_file(&crew).unwrap();
    assert_refused(&resume(&sandbox), &["crew.yaml", "cannot open"]);

    // The paused agent renamed away: the run cannot go on where it stopped.
    let renamed = ASK_CREW
        .replace("entry_point: asker", "entry_point: greeter")
        .replace("id: asker", "id: greeter")
        .replace("    asker:", "    greeter:");
    std::fs::write(&crew, renamed).unwrap();
    let finisher_only = sandbox.write("finisher.yaml", &script(&[("finisher", vec![now("Blue, done.")])]));
    let run = sandbox.cg(&["resume", &id, "--input", "Blue", "--script", finisher_only.to_str().unwrap()]);
    assert_refused(&run, &["was at agent 'asker'", "does not have any more"]);

    // None of that touched the run: still paused, same events, and resumable once the crew is back.
    assert_eq!(sandbox.status(&id), "paused");
    assert_eq!(sandbox.replay(&id), before);
    std::fs::write(&crew, ASK_CREW).unwrap();
    let run = resume(&sandbox);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(sandbox.status(&id), "completed");
}

#[test]
fn resuming_a_paused_run_without_an_answer_is_refused_and_it_stays_paused() {
    let sandbox = Sandbox::new();
    let (_, id) = paused_run(&sandbox);
    let answer = answer_script(&sandbox);
    for input in [None, Some(""), Some("   ")] {
        let mut args = vec!["resume", id.as_str(), "--script", answer.to_str().unwrap()];
        if let Some(input) = input {
            args.extend(["--input", input]);
        }
        let run = sandbox.cg(&args);
        assert_refused(&run, &["paused", "--input"]);
        assert_eq!(sandbox.status(&id), "paused", "the refusal leaves the run waiting for its answer");
    }
}

#[test]
fn resuming_a_finished_run_is_refused_and_changes_nothing() {
    let sandbox = Sandbox::new();
    let (_, id) = paused_run(&sandbox);
    let answer = answer_script(&sandbox);
    assert_eq!(sandbox.cg(&["resume", &id, "--input", "Blue", "--script", answer.to_str().unwrap()]).code, 0);
    let before = sandbox.replay(&id);
    let run = sandbox.cg(&["resume", &id, "--input", "Red", "--script", answer.to_str().unwrap()]);
    assert_refused(&run, &[&id, "is completed and cannot be resumed"]);
    assert_eq!(sandbox.replay(&id), before);
    assert_eq!(sandbox.status(&id), "completed");
}

#[test]
fn a_run_id_that_does_not_exist_is_an_error_for_resume_and_replay() {
    let sandbox = Sandbox::new();
    let (_, _) = paused_run(&sandbox);
    let answer = answer_script(&sandbox);
    let resume = sandbox.cg(&["resume", "run-does-not-exist", "--input", "x", "--script", answer.to_str().unwrap()]);
    assert_refused(&resume, &["there is no run 'run-does-not-exist'"]);
    for json in [true, false] {
        let mut args = vec!["replay", "run-does-not-exist"];
        if json {
            args.push("--json");
        }
        assert_refused(&sandbox.cg(&args), &["there is no run 'run-does-not-exist'"]);
    }
}

#[test]
fn a_run_simulated_up_to_a_pause_resumes_on_a_model_when_no_script_is_given() {
    // Once, a resume without --script was refused (there were no models yet); now it
    // goes on with the local model, which must end the asker's reply with a signal.
    let sandbox = Sandbox::new();
    let (_, id) = paused_run(&sandbox);
    let run = sandbox.cg(&["resume", &id, "--input", "Blue", "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let signal = run.lines().into_iter().map(parse).find(|e| e["type"] == "signal_matched").expect("the local model's reply routed");
    assert!(matches!(signal["signal"].as_str(), Some("[WAIT]" | "[NEXT]")), "{signal}");
    assert!(matches!(sandbox.status(&id).as_str(), "paused" | "completed"));
}

#[test]
fn a_run_started_from_a_relative_crew_path_resumes_from_another_folder() {
    // Regression: the run stored the crew path as typed ("crew.yaml"), so a resume
    // from any other folder could not find the crew.
    let sandbox = Sandbox::new();
    let dir = sandbox.dir.path();
    std::fs::write(dir.join("crew.yaml"), ASK_CREW).unwrap();
    std::fs::write(dir.join("ask.yaml"), script(&[("asker", vec![now("Which colour? [WAIT]")])])).unwrap();
    let db = sandbox.db();
    let run = cg_in(dir, &["run", "crew.yaml", "--input", "Paint", "--script", "ask.yaml", "--json", "--db", db.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let id = run_id(run.lines()[0]);
    let elsewhere = tempfile::tempdir().unwrap();
    let answer = answer_script(&sandbox);
    let resumed = cg_in(
        elsewhere.path(),
        &["resume", &id, "--input", "Blue", "--script", answer.to_str().unwrap(), "--json", "--db", db.to_str().unwrap()],
    );
    assert_eq!(resumed.code, 0, "{}", resumed.stderr);
    assert!(!resumed.stdout.contains("the crew changed"), "the same crew is not reported as changed: {}", resumed.stdout);
    assert_eq!(sandbox.status(&id), "completed");
}

#[test]
fn two_resumes_of_one_paused_run_at_the_same_moment_one_wins_the_other_is_told() {
    // Started together, both may read the run as paused; only one may go on with it.
    // Several rounds, so that both orders of the race come up.
    for round in 0..4 {
        let sandbox = Sandbox::new();
        let (_, id) = paused_run(&sandbox);
        let answer = sandbox
            .write("answer.yaml", &script(&[("asker", vec![slow("Blue it is. [NEXT]", 300)]), ("finisher", vec![now("Blue, done.")])]));
        let stored = sandbox.replay(&id);
        let args = ["resume", id.as_str(), "--input", "Blue", "--script", answer.to_str().unwrap(), "--json"];
        let mut first = sandbox.spawn(&args);
        let mut second = sandbox.spawn(&args);
        let (a, a_err) = first.finish();
        let (b, b_err) = second.finish();
        let outcomes = [(a.code(), &a_err, &first.printed), (b.code(), &b_err, &second.printed)];
        let won: Vec<_> = outcomes.iter().filter(|o| o.0 == Some(0)).collect();
        let lost: Vec<_> = outcomes.iter().filter(|o| o.0 != Some(0)).collect();
        assert_eq!((won.len(), lost.len()), (1, 1), "round {round}: exactly one resume wins: {a_err} / {b_err}");
        let (code, stderr, _) = lost[0];
        assert_eq!(*code, Some(1), "round {round}");
        assert!(stderr.contains("already being resumed"), "round {round}: the loser is told why: {stderr}");
        // The run holds the stored events and then each step once, as printed by the
        // process that stored it (the loser prints nothing, unless it stored a step
        // before the other took over).
        let all = sandbox.replay(&id);
        assert_eq!(all, [stored, lost[0].2.clone(), won[0].2.clone()].concat(), "round {round}");
        assert_contiguous(&all, "a run resumed twice at once");
        assert_eq!(sandbox.status(&id), "completed");
    }
}
