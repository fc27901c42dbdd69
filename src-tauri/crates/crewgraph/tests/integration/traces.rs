//! Every crew in `crews/` runs under its script in `crews/scripts/`, walking its
//! routes, and its whole event trace is snapshot-tested (insta). The clock and the
//! ids are injected, so a trace is the same bytes on every run: a change in what a
//! run does shows up as a reviewed diff of its trace. The tools are real (the file
//! desk's reads go through the filesystem server), but a call that asks is answered
//! as `--approve-tools read-only` answers it: denied, so no test writes into the
//! repository (the file desk's write, allowed, is `file_desk.rs`'s).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crewgraph::api::{Api, RunOptions, ScriptSource};
use crewgraph_engine::run::{Approvals, CollectingSink, MemoryStore, RunStatus, RunStore, SequentialIds, SteppingClock};
use tokio_util::sync::CancellationToken;

use crate::runner::{trace, START};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..").canonicalize().expect("the repository")
}

/// The example crews: YAML files and folders with a crew.yaml (not the scripts).
fn example_crews() -> Vec<PathBuf> {
    let mut crews: Vec<PathBuf> = std::fs::read_dir(repo().join("crews"))
        .expect("crews/ exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml") || p.join("crew.yaml").is_file())
        .collect();
    crews.sort();
    crews
}

fn name(crew: &Path) -> String {
    crew.file_stem().expect("a name").to_string_lossy().into_owned()
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

async fn run_example(crew: &Path) -> (RunStatus, String, Vec<crewgraph_engine::run::RunEvent>, Vec<crewgraph_engine::run::RunEvent>) {
    let name = name(crew);
    let script = repo().join("crews/scripts").join(format!("{name}.yaml"));
    assert!(script.is_file(), "crews/{name} has no script crews/scripts/{name}.yaml to run it under");
    let store = Arc::new(MemoryStore::new());
    let api = Api::new(repo().join("crews"))
        .with_store(store.clone())
        .with_time(Arc::new(SteppingClock::new(START, 1)), Arc::new(SequentialIds::default()));
    let sink = Arc::new(CollectingSink::default());
    let options = RunOptions {
        script: Some(ScriptSource::File(script)),
        model: None,
        requested_agent: None,
        approvals: Approvals::ReadOnly,
        ..RunOptions::default()
    };
    let outcome = api
        .start_run(crew, input(&name), &options, sink.clone(), &CancellationToken::new())
        .await
        .unwrap_or_else(|e| panic!("crews/{name} does not start: {e}"));
    let stored = store.events(&outcome.run_id, None).await.expect("stored");
    (outcome.status, name, sink.events(), stored)
}

#[tokio::test]
async fn every_example_crew_runs_its_script_to_the_end_and_its_trace_is_stable() {
    let crews = example_crews();
    assert!(crews.len() >= 6, "the six examples of issue 2: {crews:?}");
    for crew in crews {
        let (status, name, events, stored) = run_example(&crew).await;
        // A script that walks the routes ends the run the way the crew means to end.
        assert!(matches!(status, RunStatus::Terminated | RunStatus::Completed), "crews/{name} ended {status:?}: {}", trace(&events));
        // Everything the sink saw is in the store, in the same order.
        assert_eq!(stored, events, "crews/{name}: the store holds every event");
        let seqs: Vec<u64> = events.iter().map(|e| e.seq).collect();
        assert_eq!(seqs, (0..events.len() as u64).collect::<Vec<_>>(), "crews/{name}: seq has no gaps");
        insta::assert_snapshot!(format!("trace_{}", name.replace('-', "_")), trace(&events));
    }
}

#[tokio::test]
async fn the_same_run_twice_gives_the_same_bytes() {
    let crew = repo().join("crews/exam.yaml");
    let (_, _, first, _) = run_example(&crew).await;
    let (_, _, second, _) = run_example(&crew).await;
    assert_eq!(trace(&first), trace(&second));
}
