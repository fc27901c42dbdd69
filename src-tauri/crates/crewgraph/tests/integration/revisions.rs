//! Revisions side by side (issue 18, item 4), end to end: saves and runs keep
//! revisions, each run records the revision it ran, the history lists them newest
//! first with what changed in words and their runs, two revisions compare (in words,
//! as line hunks, as one marked graph), a revision reads back for the editor to
//! restore, and bad requests (a revision that does not exist, revisions of two
//! different crews) are refused in words — through the API the window uses, and
//! through `crewgraph revisions` and `crewgraph diff`.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::sync::Arc;

use crewgraph::api::{Api, ApiErrorCode, SaveCrew};
use crewgraph_engine::crew::CrewLayout;
use crewgraph_engine::file::diff::Change;
use crewgraph_engine::run::{NullSink, RunStatus};
use crewgraph_store::SqliteStore;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use crate::support::{block_on, run_in, scripted};

const DESK: &str = "\
name: Desk
entry_point: writer
max_handoffs: 6
agents:
  - id: writer
    name: Writer
    system_prompt: |
      Write the piece.
      Keep it short.
      End with [READY].
  - id: editor
    name: Editor
    is_terminal: true
routing:
  signals:
    writer:
      - { signal: '[READY]', target: editor }
    editor:
      - { signal: '[REVISE]', target: writer }
      - { signal: '[DONE]', target: '' }
";

const SCRIPT: &str = "\
replies:
  writer:
    - 'A short piece. [READY]'
  editor:
    - 'Good. [DONE]'
";

fn api(dir: &Path) -> Api {
    let store = Arc::new(SqliteStore::open(dir.join("crewgraph.db")).unwrap());
    Api::new(dir).with_sqlite(store)
}

/// The desk's second version: a critic added, [REVISE] sent to it, the writer's
/// instructions changed.
fn with_critic(spec: &Value) -> Value {
    let mut spec = spec.clone();
    spec["agents"].as_array_mut().unwrap().push(json!({"id": "critic", "name": "Critic", "is_terminal": true}));
    spec["routing"]["signals"]["editor"][0]["target"] = json!("critic");
    spec["agents"][0]["system_prompt"] = json!("Write the piece.\nKeep it under 200 words.\nEnd with [READY].\n");
    spec
}

fn save(api: &Api, path: &Path, spec: Value, disk: &str) -> (Option<u32>, String) {
    let saved = block_on(api.save_crew(&SaveCrew {
        path: path.display().to_string(),
        layout: CrewLayout::File,
        spec,
        positions: BTreeMap::new(),
        disk: Some(disk.to_owned()),
        overwrite: false,
    }))
    .unwrap();
    (saved.revision, saved.disk)
}

fn run(api: &Api, path: &Path, script: &Path) -> RunStatus {
    let outcome = block_on(api.start_run(
        path,
        "Write about bees",
        &scripted(&script.display().to_string()),
        Arc::new(NullSink),
        &CancellationToken::new(),
    ))
    .unwrap();
    outcome.status
}

#[test]
fn saves_and_runs_keep_revisions_and_the_history_says_what_changed_with_the_runs_of_each() {
    let sandbox = tempfile::tempdir().unwrap();
    let api = api(sandbox.path());
    let desk = sandbox.path().join("desk.yaml");
    let script = sandbox.path().join("script.yaml");
    fs::write(&desk, DESK).unwrap();
    fs::write(&script, SCRIPT).unwrap();

    // A run of the crew as written keeps it as revision 1, and records it.
    assert_eq!(run(&api, &desk, &script), RunStatus::Terminated);
    let opened = block_on(api.edit_crew(&desk));
    let first = opened.spec.clone().unwrap();
    let (revision, disk) = save(&api, &desk, first.clone(), &opened.disk);
    assert_eq!(revision, Some(2), "the editor writes the file its own way: a new text, a new revision");
    let (revision, _) = save(&api, &desk, with_critic(&first), &disk);
    assert_eq!(revision, Some(3));
    assert_eq!(run(&api, &desk, &script), RunStatus::Terminated);
    assert_eq!(run(&api, &desk, &script), RunStatus::Terminated);

    let history = block_on(api.list_revisions(&desk)).unwrap();
    let numbers: Vec<u32> = history.iter().map(|r| r.revision).collect();
    assert_eq!(numbers, [3, 2, 1], "newest first");
    assert_eq!(
        history[0].changes,
        ["changed Writer's instructions", "added agent Critic", "Editor's route [REVISE] now goes to Critic (was Writer)"]
    );
    assert!(history[1].changes.is_empty(), "only how the file is written changed: {:?}", history[1].changes);
    assert_eq!((history[2].previous, history[1].previous), (None, Some(1)));
    let runs: Vec<usize> = history.iter().map(|r| r.runs.len()).collect();
    assert_eq!(runs, [2, 0, 1], "each run under the revision it ran");
    assert!(history[0].runs.iter().all(|r| r.status == RunStatus::Terminated && r.crew_revision == Some(3)));
    assert_eq!(history.iter().map(|r| r.current).collect::<Vec<_>>(), [true, false, false]);

    // The runs list and one run say the revision too.
    let listed = block_on(api.list_runs()).unwrap();
    assert_eq!(listed.iter().map(|r| r.crew_revision).collect::<Vec<_>>(), [Some(3), Some(3), Some(1)]);
    let detail = block_on(api.run_detail(&listed[2].id)).unwrap();
    assert_eq!(detail.run.crew_revision, Some(1));
}

#[test]
fn two_revisions_compare_in_words_hunks_and_one_marked_graph_and_one_reads_back_to_restore() {
    let sandbox = tempfile::tempdir().unwrap();
    let api = api(sandbox.path());
    let desk = sandbox.path().join("desk.yaml");
    fs::write(&desk, DESK).unwrap();
    let opened = block_on(api.edit_crew(&desk));
    let first = opened.spec.clone().unwrap();
    let (_, disk) = save(&api, &desk, first.clone(), &opened.disk);
    save(&api, &desk, with_critic(&first), &disk);

    let compared = block_on(api.diff_revisions(&desk, 1, 2, None)).unwrap();
    assert_eq!((compared.from, compared.to), (1, 2));
    let writer = compared.changes.agents.iter().find(|a| a.id == "writer").unwrap();
    assert_eq!(writer.change, Change::Changed);
    let hunk = &writer.fields[0].hunks[0];
    let lines: Vec<String> = hunk.lines.iter().map(|l| format!("{:?} {}", l.kind, l.text)).collect();
    assert_eq!(lines, ["Same Write the piece.", "Removed Keep it short.", "Added Keep it under 200 words.", "Same End with [READY]."]);
    let marks = &compared.overlay.marks;
    assert_eq!(marks.get("agent:critic"), Some(&Change::Added));
    assert_eq!(marks.get("agent:writer"), Some(&Change::Changed));
    assert!(compared.overlay.graph.edges.iter().any(|e| e.id.starts_with("removed:") && e.signal.as_deref() == Some("[REVISE]")));
    // Backwards, what was added is removed.
    let back = block_on(api.diff_revisions(&desk, 2, 1, None)).unwrap();
    assert_eq!(back.overlay.marks.get("agent:critic"), Some(&Change::Removed));
    assert!(back.changes.sentences.contains(&"removed agent Critic".to_owned()), "{:?}", back.changes.sentences);

    let restored = block_on(api.revision_spec(&desk, 1)).unwrap();
    assert_eq!(restored.spec, first, "revision 1 reads back as the spec that was saved");
    assert!(block_on(api.diff_revisions(&desk, 1, 1, None)).unwrap().changes.is_empty());
}

#[test]
fn a_revision_that_does_not_exist_and_revisions_of_two_crews_are_refused_in_words() {
    let sandbox = tempfile::tempdir().unwrap();
    let api = api(sandbox.path());
    let desk = sandbox.path().join("desk.yaml");
    let other = sandbox.path().join("other.yaml");
    fs::write(&desk, DESK).unwrap();
    fs::write(&other, DESK.replace("name: Desk", "name: Other")).unwrap();
    let opened = block_on(api.edit_crew(&desk));
    save(&api, &desk, opened.spec.clone().unwrap(), &opened.disk);

    let missing = block_on(api.diff_revisions(&desk, 1, 4, None)).unwrap_err();
    assert_eq!(missing.code, ApiErrorCode::NotFound);
    assert!(missing.message.ends_with("has no revision 4: its only revision is 1"), "{}", missing.message);
    let two_crews = block_on(api.diff_revisions(&desk, 1, 1, Some(&other))).unwrap_err();
    assert_eq!(two_crews.code, ApiErrorCode::InvalidInput);
    assert!(two_crews.message.contains("only two revisions of the same crew can be compared"), "{}", two_crews.message);
    assert!(two_crews.message.contains("other.yaml"), "names the other crew: {}", two_crews.message);
    let none = block_on(api.list_revisions(&other)).unwrap();
    assert!(none.is_empty(), "a crew never saved nor run has no revisions yet");
    let gone = block_on(api.list_revisions(&sandbox.path().join("gone.yaml"))).unwrap_err();
    assert_eq!(gone.code, ApiErrorCode::NotFound);
    let spec = block_on(api.revision_spec(&other, 1)).unwrap_err();
    assert!(spec.message.contains("no revision of it is kept yet: each save keeps one"), "{}", spec.message);
}

/// The CLI's output with what changes from run to run (times, run ids) masked.
fn masked(text: &str) -> String {
    text.lines()
        .map(|line| {
            let mut parts: Vec<String> = line.split(" · ").map(str::to_owned).collect();
            if parts[0].starts_with("Revision ") && parts.len() > 1 {
                parts[1] = "<time>".into();
            }
            if let Some(id) = parts[0].strip_prefix("  run ") {
                parts[0] = format!("  run <{}>", if id.starts_with("run-") { "id" } else { id });
            }
            parts.join(" · ")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_cli_lists_a_crews_revisions_and_compares_two() {
    let sandbox = tempfile::tempdir().unwrap();
    let dir = sandbox.path();
    fs::write(dir.join("desk.yaml"), DESK).unwrap();
    fs::write(dir.join("script.yaml"), SCRIPT).unwrap();
    let db = ["--db", "crewgraph.db"];
    let ran = run_in(dir, &[&["run", "desk.yaml", "--input", "Bees", "--script", "script.yaml"][..], &db].concat(), "");
    assert_eq!(ran.code, 0, "{ran:?}");
    let changed = DESK.replace("Keep it short.", "Keep it under 200 words.").replace("target: writer", "target: editor");
    fs::write(dir.join("desk.yaml"), changed).unwrap();
    let ran = run_in(dir, &[&["run", "desk.yaml", "--input", "Bees", "--script", "script.yaml"][..], &db].concat(), "");
    assert_eq!(ran.code, 0, "{ran:?}");

    let listed = run_in(dir, &[&["revisions", "desk.yaml"][..], &db].concat(), "");
    assert_eq!(listed.code, 0, "{listed:?}");
    insta::assert_snapshot!("cli_revisions", masked(&listed.stdout));
    let compared = run_in(dir, &[&["diff", "desk.yaml", "1", "2"][..], &db].concat(), "");
    assert_eq!(compared.code, 0, "{compared:?}");
    insta::assert_snapshot!("cli_diff", compared.stdout);
    let json = run_in(dir, &[&["diff", "desk.yaml", "1", "2", "--json"][..], &db].concat(), "");
    let answer: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(answer["overlay"]["marks"]["agent:writer"], json!("changed"));

    let missing = run_in(dir, &[&["diff", "desk.yaml", "1", "9"][..], &db].concat(), "");
    assert_eq!(missing.code, 1);
    assert_eq!(missing.stderr.trim(), "crewgraph: the crew 'desk.yaml' has no revision 9: its revisions are 1 to 2");
    fs::write(dir.join("other.yaml"), DESK).unwrap();
    let two_crews = run_in(dir, &[&["diff", "desk.yaml", "1", "2", "--to-crew", "other.yaml"][..], &db].concat(), "");
    assert_eq!(two_crews.code, 1);
    assert!(two_crews.stderr.contains("only two revisions of the same crew can be compared"), "{two_crews:?}");
}
