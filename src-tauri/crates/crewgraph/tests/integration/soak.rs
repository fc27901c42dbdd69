//! Crash soak (issue 23): the example crews run under their scripts through the
//! binary, each `crewgraph run` killed with SIGKILL at a random moment and resumed
//! with `crewgraph resume --script` (the whole script: a resume skips the replies
//! the run has used), and half the resumes killed too, until a number of kills.
//!
//! After every kill: SQLite finds the file intact; the run is listed `running`
//! (or finished, when the kill came after its end); its stored events have seqs
//! 0, 1, 2 … without a gap or a repeat; the events stored before this process
//! started are unchanged; every line the dead process printed is stored, byte for
//! byte; and the stored events end where a step ends. When a run ends: its trace,
//! without what only a resume says (`resumed`, the "interrupted" warning) and without
//! ids, seqs and times, is the trace of the same run made without kills.
//!
//! `cargo test` makes a short pass ([`SHORT_KILLS`] kills); `make soak` a long one
//! (`SOAK_KILLS`, handed over as `CREWGRAPH_SOAK_KILLS`). Each pass prints its
//! seed; `CREWGRAPH_SOAK_SEED=N` makes the same choices again (crews, kill moments,
//! which resumes die). A kill moment is a time, so a replay lands near the same
//! events, not always on them.

use std::collections::BTreeMap;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::e2e::{assert_contiguous, example, kind, parse, Sandbox};
use crate::support::{seed_from, Rng};

/// Kills in the pass `cargo test` makes.
const SHORT_KILLS: usize = 8;

/// How long each scripted reply takes to stream, so a kill lands inside a run.
const REPLY_MS: u64 = 120;

/// After this many killed processes, a run's next resume is left to finish, so
/// every run ends however the kills fall.
const MAX_KILLS_PER_RUN: usize = 6;

/// The kinds of event a stored run may end with after a crash: each closes a step
/// (a step is stored whole or not at all).
const STEP_ENDS: [&str; 5] = ["run_started", "handoff", "parallel_finished", "resumed", "run_finished"];

/// The example crews the soak runs, with what each is asked.
const EXAMPLES: [(&str, &str); 6] = [
    ("research-loop.yaml", "Begin."),
    ("exam.yaml", "Begin."),
    ("code-review.yaml", "Begin."),
    ("support-triage.yaml", "I was charged twice on my invoice and want a refund"),
    ("thi-van-dap.yaml", "Bắt đầu bài thi."),
    ("go-quiz", "Begin."),
];

/// One example, ready to soak: its crew, its script with slow replies, and the
/// trace of a run of it made without kills.
struct Example {
    crew: String,
    input: &'static str,
    script: PathBuf,
    /// The uninterrupted run's events, as [`comparable`] makes them.
    reference: Vec<Value>,
    status: String,
    /// How long the uninterrupted run took (kill moments are drawn below it).
    took: Duration,
}

/// What a pass did, for its summary line.
#[derive(Default)]
struct Tally {
    runs: usize,
    resumes: usize,
    kills_of_runs: usize,
    kills_of_resumes: usize,
    /// Kills that came before the run was stored: it was started again.
    before_start: usize,
    /// Kills that came after the run had stored its end.
    after_end: usize,
    statuses: BTreeMap<String, usize>,
}

impl Tally {
    fn kills(&self) -> usize {
        self.kills_of_runs + self.kills_of_resumes
    }
}

#[test]
fn runs_killed_at_random_moments_and_resumed_lose_no_step_and_repeat_none() {
    let wanted = match std::env::var("CREWGRAPH_SOAK_KILLS") {
        Ok(text) => text.trim().parse().expect("CREWGRAPH_SOAK_KILLS is a number of kills"),
        Err(_) => SHORT_KILLS,
    };
    let seed = seed_from("CREWGRAPH_SOAK_SEED");
    println!("soak: seed {seed} (CREWGRAPH_SOAK_SEED={seed} makes the same choices), {wanted} kills");
    let started = Instant::now();
    let scripts = tempfile::tempdir().expect("a temp dir for the scripts");
    let examples: Vec<Example> = EXAMPLES.iter().map(|(crew, input)| prepare(scripts.path(), crew, input)).collect();

    let mut rng = Rng::new(seed);
    let mut tally = Tally::default();
    while tally.kills() < wanted {
        let example = &examples[rng.below(examples.len() as u64) as usize];
        soak_one(example, &mut rng, wanted - tally.kills(), &mut tally);
    }
    println!(
        "soak: seed {seed}: {} runs, {} resumes, {} kills ({} of runs, {} of resumes; {} before a run was stored, {} after it ended), \
         ends {:?}, in {:.1} s",
        tally.runs,
        tally.resumes,
        tally.kills(),
        tally.kills_of_runs,
        tally.kills_of_resumes,
        tally.before_start,
        tally.after_end,
        tally.statuses,
        started.elapsed().as_secs_f64()
    );
}

/// Writes the example's script with slow replies and makes the reference run.
fn prepare(dir: &Path, crew: &str, input: &'static str) -> Example {
    let name = crew.trim_end_matches(".yaml");
    let shipped = std::fs::read_to_string(crate::support::repo_root().join("crews/scripts").join(format!("{name}.yaml")))
        .expect("each example crew has a script in crews/scripts/");
    let slow = slowed(&shipped, REPLY_MS);
    crewgraph_llm::Script::parse("slowed", &slow).unwrap_or_else(|e| panic!("the slowed script of {name} reads: {e}\n{slow}"));
    let script = dir.join(format!("{name}.yaml"));
    std::fs::write(&script, &slow).expect("write the script");

    let sandbox = Sandbox::new();
    let crew = example(crew);
    let began = Instant::now();
    let run = sandbox.cg(&["run", &crew, "--input", input, "--script", script.to_str().unwrap(), "--json"]);
    let took = began.elapsed();
    let lines: Vec<String> = run.stdout.lines().map(str::to_owned).collect();
    assert!(!lines.is_empty(), "{name}: the run without kills printed its events: {}", run.stderr);
    let last = parse(lines.last().unwrap());
    assert_eq!(last["type"], "run_finished", "{name}: the run without kills ended: {}", run.stderr);
    let status = last["status"].as_str().unwrap().to_owned();
    assert_eq!(run.code, i32::from(status == "failed"), "{name}: {}", run.stderr);
    Example { crew, input, script, reference: comparable(&lines), status, took }
}

/// The script `text` with every reply taking `delay_ms` to stream. The shipped
/// scripts write one reply per `    - ` line, as text or as a `{ … }` mapping.
fn slowed(text: &str, delay_ms: u64) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let indent = line.len() - line.trim_start().len();
        match line.trim_start().strip_prefix("- ") {
            Some(reply) if indent >= 4 => {
                let pad = &line[..indent];
                match reply.strip_prefix('{') {
                    Some(rest) => out.push_str(&format!("{pad}- {{ delay_ms: {delay_ms},{rest}\n")),
                    None => out.push_str(&format!("{pad}- {{ content: {reply}, delay_ms: {delay_ms} }}\n")),
                }
            }
            _ => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

/// A trace as two runs of the same crew and script share it: the resumes' own
/// events left out; no run id, seq or time; inside a parallel group, each member's
/// events together in the group's order (members work side by side, so how their
/// events interleave depends on timing); and a reply's `token` events in a row
/// joined into one (how a stream is cut into tokens depends on timing too).
fn comparable(lines: &[String]) -> Vec<Value> {
    let mut plain: Vec<Value> = lines
        .iter()
        .map(|l| parse(l))
        .filter(|e| !said_by_a_resume(e))
        .map(|mut e| {
            let fields = e.as_object_mut().expect("an event is an object");
            for field in ["run_id", "seq", "timestamp"] {
                fields.remove(field);
            }
            e
        })
        .collect();
    let mut at = 0;
    while at < plain.len() {
        if plain[at]["type"] == "parallel_started" {
            let members: Vec<Value> = plain[at]["agents"].as_array().cloned().unwrap_or_default();
            let end = (at..plain.len()).find(|&i| plain[i]["type"] == "parallel_finished").unwrap_or(plain.len());
            plain[at + 1..end].sort_by_key(|e| members.iter().position(|m| *m == e["agent"]).unwrap_or(usize::MAX));
            at = end;
        }
        at += 1;
    }
    let mut events: Vec<Value> = Vec::new();
    for event in plain {
        if let Some(last) =
            events.last_mut().filter(|last| last["type"] == "token" && event["type"] == "token" && last["agent"] == event["agent"])
        {
            let text = format!("{}{}", last["text"].as_str().unwrap_or(""), event["text"].as_str().unwrap_or(""));
            last["text"] = Value::String(text);
            continue;
        }
        events.push(event);
    }
    events
}

/// What a resume after a crash adds: the `resumed` event without input, and the
/// warning that the run was interrupted.
fn said_by_a_resume(event: &Value) -> bool {
    match event["type"].as_str() {
        Some("resumed") => event["input"] == "",
        Some("warning") => event["message"].as_str().is_some_and(|m| m.contains("interrupted")),
        _ => false,
    }
}

/// One run of `example`, killed and resumed until it ends (at most `kills_left` kills).
fn soak_one(example: &Example, rng: &mut Rng, kills_left: usize, tally: &mut Tally) {
    let sandbox = Sandbox::new();
    let script = example.script.to_str().unwrap();
    let mut id: Option<String> = None;
    // The events stored when the current process started.
    let mut stored: Vec<String> = Vec::new();
    let mut kills = 0;
    // What happened so far, for a failure's message.
    let mut story: Vec<String> = vec![format!("crews/{}", Path::new(&example.crew).file_name().unwrap().to_string_lossy())];
    tally.runs += 1;
    loop {
        let args: Vec<&str> = match &id {
            None => vec!["run", example.crew.as_str(), "--input", example.input, "--script", script, "--json"],
            Some(id) => vec!["resume", id, "--script", script, "--json"],
        };
        if id.is_some() {
            tally.resumes += 1;
        }
        let mut child = sandbox.spawn(&args);
        // A fresh run is always killed; a resume, one time in two.
        let kill = kills < kills_left && kills < MAX_KILLS_PER_RUN && (id.is_none() || rng.chance(50));
        let mut moment = None;
        if kill {
            let at = Duration::from_millis(rng.below(example.took.as_millis() as u64 + 1));
            if !child.read_for(at) {
                child.kill9();
                moment = Some(at);
            }
        }
        let (status, stderr) = child.finish();
        let printed = child.printed.clone();
        let killed = status.signal() == Some(libc::SIGKILL);
        assert!(killed || status.code().is_some(), "{}: crewgraph died of {status:?}: {stderr}", story.join(" → "));
        story.push(format!(
            "{} {}",
            args[0],
            match moment {
                Some(at) if killed => format!("killed after {} ms, {} lines printed", at.as_millis(), printed.len()),
                _ => format!("ran to its end ({status}), {} lines printed", printed.len()),
            }
        ));
        let story_text = story.join(" → ");

        if !killed {
            if id.is_none() {
                id = Some(
                    printed.first().map(|l| crate::e2e::run_id(l)).unwrap_or_else(|| panic!("{story_text}: nothing printed: {stderr}")),
                );
            }
            let all = sandbox.replay(id.as_deref().unwrap());
            check_sound_prefix(&all, &stored, &printed, &story_text);
            assert_eq!(all[stored.len()..], printed[..], "{story_text}: a process that ran to its end printed every event it stored");
            check_the_end(example, &all, &story_text);
            let expected_code = i32::from(example.status == "failed");
            assert_eq!(status.code(), Some(expected_code), "{story_text}: {stderr}");
            *tally.statuses.entry(example.status.clone()).or_default() += 1;
            return;
        }

        kills += 1;
        if id.is_none() {
            tally.kills_of_runs += 1;
        } else {
            tally.kills_of_resumes += 1;
        }
        if !sandbox.db().exists() {
            assert!(printed.is_empty(), "{story_text}: lines were printed, yet no database was made");
            tally.before_start += 1;
            continue;
        }
        sandbox.assert_database_is_sound();
        let runs = sandbox.runs();
        if id.is_none() {
            match runs.as_slice() {
                [] => {
                    assert!(printed.is_empty(), "{story_text}: lines were printed, yet no run is stored: {printed:#?}");
                    tally.before_start += 1;
                    continue;
                }
                [run] => id = Some(run["id"].as_str().expect("a run id").to_owned()),
                more => panic!("{story_text}: one run was started, {} are stored: {more:#?}", more.len()),
            }
        }
        let id = id.as_deref().unwrap();
        let now = sandbox.replay(id);
        check_sound_prefix(&now, &stored, &printed, &story_text);
        let last = kind(now.last().expect("a stored run has its start"));
        assert!(STEP_ENDS.contains(&last.as_str()), "{story_text}: the stored events end inside a step, with {last}: {now:#?}");
        let listed = runs.iter().find(|r| r["id"] == id).map(|r| r["status"].as_str().unwrap_or("").to_owned());
        if last == "run_finished" {
            // The kill came after the run had stored its end: nothing to resume.
            tally.after_end += 1;
            assert_eq!(listed.as_deref(), Some(example.status.as_str()), "{story_text}: the listed status is the stored end");
            check_the_end(example, &now, &story_text);
            *tally.statuses.entry(example.status.clone()).or_default() += 1;
            return;
        }
        assert_eq!(listed.as_deref(), Some("running"), "{story_text}: a run whose process died is `running` (resumable), not lost");
        stored = now;
    }
}

/// After a process: the stored events are contiguous from seq 0, begin with the
/// events stored before the process started (unchanged), and go on with every line
/// the process printed.
fn check_sound_prefix(now: &[String], before: &[String], printed: &[String], story: &str) {
    assert_contiguous(now, story);
    assert!(now.len() >= before.len() && now[..before.len()] == before[..], "{story}: the events stored earlier are unchanged");
    let new = &now[before.len()..];
    assert!(
        new.len() >= printed.len() && new[..printed.len()] == printed[..],
        "{story}: every line printed is stored, same seq, same bytes\nprinted: {printed:#?}\nstored after the earlier events: {new:#?}"
    );
}

/// A finished run: one start, one end (the end the run without kills had), and,
/// without what the resumes added, the same events as the run without kills.
fn check_the_end(example: &Example, all: &[String], story: &str) {
    let kinds: Vec<String> = all.iter().map(|l| kind(l)).collect();
    assert_eq!(kinds.iter().filter(|k| *k == "run_started").count(), 1, "{story}: one start");
    assert_eq!(kinds.iter().filter(|k| *k == "run_finished").count(), 1, "{story}: one end");
    assert_eq!(kinds.last().map(String::as_str), Some("run_finished"), "{story}: the end is last");
    let got = comparable(all);
    if got != example.reference {
        let at = got.iter().zip(&example.reference).position(|(a, b)| a != b).unwrap_or(got.len().min(example.reference.len()));
        panic!(
            "{story}: the resumed run's trace differs from the run without kills at event {at} (resume notes left out)\n\
             with kills:    {}\nwithout kills: {}\n(with kills: {} events, without: {})",
            got.get(at).map(Value::to_string).unwrap_or_else(|| "(none)".into()),
            example.reference.get(at).map(Value::to_string).unwrap_or_else(|| "(none)".into()),
            got.len(),
            example.reference.len()
        );
    }
}
