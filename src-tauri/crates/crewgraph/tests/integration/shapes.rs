//! The output shapes of runs on the command line (DESIGN.md §7, §10), for every
//! example crew run through the real binary: `run --json` prints one JSON event per
//! line with `type` first and `run_id`, `seq`, `timestamp`, seqs from 0 without a
//! gap, `run_finished` last; `replay --json` prints exactly those lines again;
//! `runs --json` prints one object per run with its id, status, crew name and input.
//! Scripts and tools that read this output rely on these shapes.

use std::path::PathBuf;

use crate::e2e::{assert_contiguous, kind, parse, run_id, Sandbox};
use crate::support::repo_root;

/// The example crews (YAML files and crew folders of crews/), each with its script.
fn examples() -> Vec<(String, PathBuf, PathBuf)> {
    let crews = repo_root().join("crews");
    let mut found: Vec<(String, PathBuf, PathBuf)> = std::fs::read_dir(&crews)
        .expect("crews/")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml") || p.join("crew.yaml").is_file())
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            let script = crews.join("scripts").join(format!("{name}.yaml"));
            (name, p, script)
        })
        .collect();
    found.sort();
    assert!(found.len() >= 6, "the example crews: {found:?}");
    found
}

/// What each example is asked (the help desks need a billing question to pick billing).
fn input(crew: &str) -> &'static str {
    match crew {
        "support-triage" | "gatekeeper-desk" => "I was charged twice on my invoice and want a refund",
        "thi-van-dap" => "Bắt đầu bài thi.",
        "note-desk" => "Notes and a short summary on how bees make honey",
        "file-desk" => "Summarise the documents in the folder",
        _ => "Begin.",
    }
}

/// `2026-11-22T03:36:17.638Z`: UTC, to the millisecond.
fn is_timestamp(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() == 24
        && b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            10 => *c == b'T',
            13 | 16 => *c == b':',
            19 => *c == b'.',
            23 => *c == b'Z',
            _ => c.is_ascii_digit(),
        })
}

#[test]
fn every_example_crew_prints_well_formed_json_lines_that_replay_reproduces_exactly() {
    let sandbox = Sandbox::new();
    let mut ids = Vec::new();
    for (name, crew, script) in examples() {
        // A tool call that asks (the file desk's write) is denied, not waited for: the
        // run ends, and nothing is written into the repository.
        let args = ["run", crew.to_str().unwrap(), "--input", input(&name), "--script", script.to_str().unwrap(), "--json"];
        let run = sandbox.cg(&[&args[..], &["--approve-tools", "read-only"]].concat());
        assert_eq!(run.code, 0, "crews/{name}: {}", run.stderr);
        let lines: Vec<String> = run.stdout.lines().map(str::to_owned).collect();
        let id = run_id(&lines[0]);
        for line in &lines {
            // `type` is the first key, so a reader can dispatch on a prefix.
            assert!(line.starts_with("{\"type\":\""), "crews/{name}: type comes first: {line}");
            let event = parse(line);
            assert_eq!(event["run_id"], id.as_str(), "crews/{name}: one run id: {line}");
            assert!(event["seq"].is_u64(), "crews/{name}: a seq: {line}");
            assert!(event["timestamp"].as_str().is_some_and(is_timestamp), "crews/{name}: a timestamp: {line}");
        }
        assert_contiguous(&lines, &format!("crews/{name}"));
        let first = parse(&lines[0]);
        assert_eq!((first["type"].as_str(), first["input"].as_str()), (Some("run_started"), Some(input(&name))));
        let last = parse(lines.last().unwrap());
        assert_eq!(last["type"], "run_finished", "crews/{name}: the last line says how the run ended");
        assert!(["terminated", "completed"].contains(&last["status"].as_str().unwrap()), "crews/{name}: {last}");
        assert_eq!(lines.iter().filter(|l| kind(l) == "run_finished").count(), 1);

        // Replay prints the very same bytes: the stored events are the printed ones.
        assert_eq!(sandbox.replay(&id), lines, "crews/{name}: replay --json reproduces run --json");

        // runs --json: the run with its status and counts as run_finished gave them.
        let runs = sandbox.runs();
        let listed = runs.iter().find(|r| r["id"] == id.as_str()).expect("listed");
        assert_eq!(listed["status"], last["status"]);
        assert_eq!(listed["crew_name"], first["crew"]);
        assert_eq!(listed["input"], input(&name));
        assert_eq!((&listed["steps"], &listed["handoffs"]), (&last["steps"], &last["handoffs"]));
        ids.push(id);
    }
    // Newest first, one JSON object per line, every field a reader needs.
    let runs = sandbox.runs();
    let listed: Vec<&str> = runs.iter().map(|r| r["id"].as_str().unwrap()).collect();
    let newest_first: Vec<&str> = ids.iter().rev().map(String::as_str).collect();
    assert_eq!(listed, newest_first);
    for run in &runs {
        for key in ["id", "status", "crew_name", "input", "created_at", "updated_at", "steps", "handoffs"] {
            assert!(run.get(key).is_some_and(|v| !v.is_null()), "runs --json has {key}: {run}");
        }
        assert!(is_timestamp(run["created_at"].as_str().unwrap()));
    }
}

#[test]
fn the_transcript_of_a_replay_is_the_transcript_of_the_run() {
    let sandbox = Sandbox::new();
    let crew = repo_root().join("crews/exam.yaml");
    let script = repo_root().join("crews/scripts/exam.yaml");
    let run = sandbox.cg(&["run", crew.to_str().unwrap(), "--input", "Begin.", "--script", script.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let id = sandbox.runs()[0]["id"].as_str().unwrap().to_owned();
    assert!(run.stdout.starts_with(&format!("Run {id} of \"Fractions exam\"")), "{}", run.stdout);
    assert!(run.stdout.contains("teacher → exam_round because signal [QUESTION]"), "who handed to whom and why: {}", run.stdout);
    let replay = sandbox.cg(&["replay", &id]);
    assert_eq!(replay.code, 0);
    assert_eq!(replay.stdout, run.stdout, "a replay reads as the run did");
}

#[test]
fn runs_without_json_is_a_table_and_says_when_there_are_none() {
    let sandbox = Sandbox::new();
    let empty = sandbox.cg(&["runs"]);
    assert_eq!(empty.code, 0);
    assert!(empty.stdout.starts_with("No runs yet."), "{}", empty.stdout);
    let json = sandbox.cg(&["runs", "--json"]);
    assert_eq!((json.code, json.stdout.as_str()), (0, ""), "no runs: no lines, so a reader needs no special case");

    let crew = repo_root().join("crews/exam.yaml");
    let script = repo_root().join("crews/scripts/exam.yaml");
    assert_eq!(sandbox.cg(&["run", crew.to_str().unwrap(), "--input", "Begin.", "--script", script.to_str().unwrap()]).code, 0);
    let table = sandbox.cg(&["runs"]);
    let lines = table.lines();
    assert!(lines[0].starts_with("RUN") && lines[0].contains("STATUS"), "{}", table.stdout);
    let id = sandbox.runs()[0]["id"].as_str().unwrap().to_owned();
    assert!(lines[1].starts_with(&id) && lines[1].contains("terminated") && lines[1].contains("Fractions exam · Begin."), "{}", lines[1]);
}
