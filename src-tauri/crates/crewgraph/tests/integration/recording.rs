//! Run recordings: a stored run exported to one JSON file and read back whole, and
//! every way a recording can be broken refused with a message saying what and where
//! — cut off, from a newer Crewgraph, not a recording, another version's events,
//! events of two runs or with a gap — and an export that cannot be written leaves
//! nothing behind.

use std::sync::Arc;

use crewgraph::api::{read_recording, Api, RECORDING_VERSION};
use crewgraph_store::SqliteStore;
use serde_json::{json, Value};

use crate::support::{block_on, repo_root, scripted};

/// An API over a fresh database, with one finished Simulate run of the exam; its id.
fn recorded() -> (tempfile::TempDir, Api, crewgraph_engine::RunId) {
    let sandbox = tempfile::tempdir().unwrap();
    let store = Arc::new(SqliteStore::open(sandbox.path().join("crewgraph.db")).unwrap());
    let crews = repo_root().join("crews");
    let api = Api::new(crews.clone()).with_sqlite(store);
    let script = crews.join("scripts/exam.yaml").display().to_string();
    let id = block_on(async {
        let id = api.spawn_run(&crews.join("exam.yaml"), "Start the exam", scripted(&script)).await.unwrap();
        let mut watch = api.watch_run(&id, None).await.unwrap();
        while watch.next().await.is_some() {}
        id
    });
    (sandbox, api, id)
}

fn refused(text: &str) -> String {
    let error = read_recording("run.json", text).expect_err("refused");
    assert!(error.message.starts_with("'run.json' "), "names the file: {}", error.message);
    error.message
}

#[test]
fn a_run_exported_to_a_file_reads_back_with_every_event() {
    let (sandbox, api, id) = recorded();
    let path = sandbox.path().join("exam-run.json");
    block_on(api.export_run(&id, &path)).unwrap();
    let read = api.import_recording(&path).unwrap();
    let stored = block_on(api.run_events(&id, None)).unwrap();
    assert_eq!(read.events, stored);
    assert_eq!(read.run.id, id);
    assert_eq!(read.version, RECORDING_VERSION);
    assert!(read.crew.as_deref().is_some_and(|c| c.ends_with("exam.yaml")), "{:?}", read.crew);
    let leftovers: Vec<_> =
        std::fs::read_dir(sandbox.path()).unwrap().flatten().filter(|e| e.file_name().to_string_lossy().ends_with(".tmp")).collect();
    assert!(leftovers.is_empty());

    // A folder in the way: an error, and no half-written file.
    let folder = sandbox.path().join("a-folder");
    std::fs::create_dir(&folder).unwrap();
    assert!(block_on(api.export_run(&id, &folder)).is_err());
    assert!(block_on(api.export_run(&crewgraph_engine::RunId::from("run-nope"), &sandbox.path().join("x.json"))).is_err());
    assert!(!sandbox.path().join("x.json").exists());
    assert!(api.import_recording(&sandbox.path().join("missing.json")).unwrap_err().message.contains("cannot read the recording"));
}

#[test]
fn a_broken_recording_is_refused_saying_what_is_wrong() {
    let (_sandbox, api, id) = recorded();
    let recording = serde_json::to_value(block_on(api.run_recording(&id)).unwrap()).unwrap();
    let text = serde_json::to_string_pretty(&recording).unwrap();
    let with = |change: &dyn Fn(&mut Value)| {
        let mut changed = recording.clone();
        change(&mut changed);
        changed.to_string()
    };

    assert!(read_recording("run.json", &text).is_ok());
    assert!(refused(&text[..text.len() / 2]).contains("truncated"));
    assert!(refused(&with(&|r| r["version"] = json!(2))).contains("newer Crewgraph (recording version 2"));
    assert!(refused(&with(&|r| r["version"] = json!(0))).contains("version 0"));
    assert!(refused(r#"{"name": "Exam", "agents": []}"#).contains("not a Crewgraph run recording"));
    assert!(refused("version: 1.0\nname: a crew file").contains("not valid JSON at line 1"));
    let unknown = refused(&with(&|r| r["events"][3]["type"] = json!("teleported")));
    assert!(unknown.contains("event 4 ('teleported')"), "{unknown}");
    assert!(refused(&with(&|r| r["events"][2]["run_id"] = json!("run-other"))).contains("mixes runs: event 3"));
    let gap = refused(&with(&|r| {
        r["events"].as_array_mut().unwrap().remove(5);
    }));
    assert!(gap.contains("misses events: event 6 has seq 6, expected 5"), "{gap}");
    assert!(refused(&with(&|r| r["events"] = json!([]))).contains("no events"));
}
