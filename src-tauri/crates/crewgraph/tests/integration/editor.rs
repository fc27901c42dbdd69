//! Editing crews through the API (the window's editor): open → save round trips of
//! every example (file and Go-engine directory), live checks of edited specs, saves
//! that refuse to clobber a file changed on disk, atomic writes, directory saves,
//! revisions, positions and recent crews in a real SQLite store.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crewgraph::api::{Api, ApiErrorCode, CheckCrew, EditableCrew, Position, SaveCrew};
use crewgraph_engine::crew::CrewLayout;
use crewgraph_store::SqliteStore;
use serde_json::{json, Value};

use crate::support::{block_on, copy_dir, repo_root};

fn api(dir: &Path) -> (Api, Arc<SqliteStore>) {
    let store = Arc::new(SqliteStore::open(dir.join("crewgraph.db")).unwrap());
    (Api::new(dir).with_sqlite(store.clone()), store)
}

fn save_of(opened: &EditableCrew, path: &Path) -> SaveCrew {
    SaveCrew {
        path: path.display().to_string(),
        layout: opened.layout,
        spec: opened.spec.clone().expect("a spec"),
        positions: BTreeMap::new(),
        disk: Some(opened.disk.clone()),
        overwrite: false,
    }
}

/// What a crew means, without where it was read from: agents, signals, graph, problems' messages.
fn meaning(document: &crewgraph::api::CrewDocument) -> Value {
    let mut value = serde_json::to_value(document).unwrap();
    let map = value.as_object_mut().unwrap();
    map.remove("path");
    let problems: Vec<String> = document.problems.iter().map(|p| p.diagnostic.message.clone()).collect();
    map.insert("problems".into(), json!(problems));
    value
}

#[test]
fn every_example_saved_without_edits_means_the_same_and_reopens_with_the_same_spec() {
    let sandbox = tempfile::tempdir().unwrap();
    let (api, _) = api(sandbox.path());
    let crews = repo_root().join("crews");
    for entry in fs::read_dir(&crews).unwrap() {
        let path = entry.unwrap().path();
        let is_crew = path.extension().is_some_and(|e| e == "yaml") || path.join("crew.yaml").is_file();
        if !is_crew {
            continue;
        }
        let copy = sandbox.path().join(path.file_name().unwrap());
        if path.is_dir() {
            copy_dir(&path, &copy);
        } else {
            fs::copy(&path, &copy).unwrap();
        }
        let opened = block_on(api.edit_crew(&copy));
        assert!(opened.document.valid, "{}: {:?}", path.display(), opened.document.problems);
        // The live check of the unedited spec says what opening the files said.
        let check = CheckCrew { path: Some(copy.display().to_string()), spec: opened.spec.clone().unwrap() };
        let mut checked = api.check_crew(&check).unwrap();
        checked.layout = opened.document.layout;
        assert_eq!(meaning(&checked), meaning(&opened.document), "{}", path.display());
        let saved = block_on(api.save_crew(&save_of(&opened, &copy))).unwrap();
        assert_eq!(meaning(&saved.document), meaning(&opened.document), "{}", path.display());
        let reopened = block_on(api.edit_crew(&copy));
        assert_eq!(reopened.spec, opened.spec, "{}", path.display());
        assert_eq!(reopened.layout, opened.layout);
        // Saving again changes nothing on disk.
        let again = block_on(api.save_crew(&save_of(&reopened, &copy))).unwrap();
        assert_eq!(again.disk, saved.disk, "{}", path.display());
    }
}

#[test]
fn a_go_directory_is_saved_as_a_directory_and_removed_agents_lose_their_files() {
    let sandbox = tempfile::tempdir().unwrap();
    let (api, _) = api(sandbox.path());
    let quiz = sandbox.path().join("go-quiz");
    copy_dir(&repo_root().join("crews/go-quiz"), &quiz);
    let opened = block_on(api.edit_crew(&quiz));
    assert_eq!(opened.layout, CrewLayout::Directory);
    let mut spec = opened.spec.clone().unwrap();
    let agents = spec["agents"].as_array_mut().unwrap();
    let removed = agents.pop().unwrap()["id"].as_str().unwrap().to_owned();
    agents.push(json!({"id": "timekeeper", "name": "Timekeeper", "is_terminal": true}));
    let save = SaveCrew { spec, ..save_of(&opened, &quiz) };
    let saved = block_on(api.save_crew(&save)).unwrap();

    assert!(!quiz.join(format!("agents/{removed}.yaml")).exists(), "the removed agent's file stays");
    assert_eq!(fs::read_to_string(quiz.join("agents/timekeeper.yaml")).unwrap(), "id: timekeeper\nname: Timekeeper\nis_terminal: true\n");
    let listing = fs::read_to_string(quiz.join("crew.yaml")).unwrap();
    let listed: Vec<&str> = listing.lines().filter_map(|line| line.strip_prefix("- ")).collect();
    assert_eq!(listed, ["quizmaster", "contestant", "scorekeeper", "timekeeper"], "{listing}");
    assert_ne!(removed, "timekeeper");
    // Numbers stay numbers for the Go engine.
    assert!(listing.contains("timeout_seconds: 20\n"), "{listing}");
    assert!(saved.document.agents.iter().any(|a| a.id == "timekeeper"));
    let leftovers: Vec<_> =
        fs::read_dir(&quiz).unwrap().filter_map(|e| e.ok()).filter(|e| e.file_name().to_string_lossy().ends_with(".tmp")).collect();
    assert!(leftovers.is_empty(), "temporary files left behind");
}

#[test]
fn an_edit_is_checked_by_the_engine_and_problems_point_at_the_edge() {
    let (api, _) = api(tempfile::tempdir().unwrap().path());
    let spec = json!({
        "name": "Two", "entry_point": "a",
        "agents": [{"id": "a"}, {"id": "b", "is_terminal": true}],
        "signals": [{"name": "[GO]", "behavior": "route"}],
        "routing": {"signals": {"a": [{"signal": "[GO]", "target": "b"}, {"signal": "[MISSING]", "target": "b"}]}}
    });
    let document = api.check_crew(&CheckCrew { path: Some("two.yaml".into()), spec }).unwrap();
    assert!(!document.valid);
    let unknown = document.problems.iter().find(|p| p.diagnostic.message.contains("[MISSING]")).expect("the unknown signal");
    assert_eq!(unknown.diagnostic.message, "signal '[MISSING]' is not registered (unknown signal)");
    assert!(document.graph.edges.iter().any(|e| e.id == "rule:a:0:agent:b"));
    assert!(unknown.targets.iter().all(|t| t == "agent:a" || t.starts_with("rule:a:1")), "{:?}", unknown.targets);

    let error = api.check_crew(&CheckCrew { path: None, spec: json!(["not", "a", "crew"]) }).unwrap_err();
    assert_eq!(error.code, ApiErrorCode::InvalidInput);
    assert!(error.message.contains("not a list"), "{}", error.message);
}

#[test]
fn a_file_changed_on_disk_is_not_overwritten_unless_the_person_says_so() {
    let sandbox = tempfile::tempdir().unwrap();
    let (api, _) = api(sandbox.path());
    let exam = sandbox.path().join("exam.yaml");
    fs::copy(repo_root().join("crews/exam.yaml"), &exam).unwrap();
    let opened = block_on(api.edit_crew(&exam));
    fs::write(&exam, fs::read_to_string(&exam).unwrap() + "\n# edited elsewhere\n").unwrap();
    assert_ne!(api.crew_disk(&exam), opened.disk);

    let error = block_on(api.save_crew(&save_of(&opened, &exam))).unwrap_err();
    assert_eq!(error.code, ApiErrorCode::Conflict);
    assert!(error.message.contains("changed by another program"), "{}", error.message);
    assert!(fs::read_to_string(&exam).unwrap().contains("# edited elsewhere"), "the other program's change was lost");

    let overwrite = SaveCrew { overwrite: true, ..save_of(&opened, &exam) };
    block_on(api.save_crew(&overwrite)).unwrap();
    assert!(!fs::read_to_string(&exam).unwrap().contains("# edited elsewhere"));

    // Save As onto an existing file asks first, too.
    let new = SaveCrew { disk: None, ..save_of(&opened, &exam) };
    assert_eq!(block_on(api.save_crew(&new)).unwrap_err().code, ApiErrorCode::Conflict);
    // A file deleted while open is simply written again.
    fs::remove_file(&exam).unwrap();
    block_on(api.save_crew(&save_of(&opened, &exam))).unwrap();
    assert!(exam.is_file());
}

#[test]
fn a_failed_save_leaves_the_crew_as_it_was_and_no_temporary_file() {
    let sandbox = tempfile::tempdir().unwrap();
    let (api, _) = api(sandbox.path());
    let quiz = sandbox.path().join("go-quiz");
    copy_dir(&repo_root().join("crews/go-quiz"), &quiz);
    let before = fs::read_to_string(quiz.join("crew.yaml")).unwrap();
    let opened = block_on(api.edit_crew(&quiz));
    // Something in the way of the new agent's file (even root cannot write over it).
    fs::create_dir_all(quiz.join("agents/judge.yaml/inside")).unwrap();
    let mut spec = opened.spec.clone().unwrap();
    spec["agents"].as_array_mut().unwrap().push(json!({"id": "judge", "is_terminal": true}));
    let error = block_on(api.save_crew(&SaveCrew { spec, ..save_of(&opened, &quiz) })).unwrap_err();
    let blocked = format!("cannot save over the folder '{}'", quiz.join("agents/judge.yaml").display());
    assert_eq!((error.code, error.message), (ApiErrorCode::InvalidInput, blocked));
    assert_eq!(fs::read_to_string(quiz.join("crew.yaml")).unwrap(), before, "crew.yaml changed although the save failed");
    let temporary: Vec<_> = fs::read_dir(quiz.join("agents"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(temporary.is_empty(), "temporary files left behind");
}

#[test]
fn a_file_that_is_not_a_crew_opens_with_its_text_and_problems() {
    let sandbox = tempfile::tempdir().unwrap();
    let (api, _) = api(sandbox.path());
    let broken = sandbox.path().join("broken.yaml");
    fs::write(&broken, "name: [unclosed\n").unwrap();
    let opened = block_on(api.edit_crew(&broken));
    assert!(opened.spec.is_none());
    assert_eq!(opened.text.as_deref(), Some("name: [unclosed\n"));
    assert!(!opened.document.parsed);
    assert!(opened.document.problems[0].diagnostic.to_string().starts_with(&format!("{}:", broken.display())));

    let invalid = sandbox.path().join("invalid.yaml");
    fs::write(&invalid, "name: X\nentry_point: nobody\nagents:\n  - id: a\n    is_terminal: true\n").unwrap();
    let opened = block_on(api.edit_crew(&invalid));
    assert!(opened.spec.is_some() && opened.text.is_none());
    assert_eq!(opened.document.problems[0].diagnostic.message, "entry_point 'nobody' is not an agent");
}

#[test]
fn saves_keep_revisions_positions_and_the_recent_list() {
    let sandbox = tempfile::tempdir().unwrap();
    let (api, store) = api(sandbox.path());
    let exam = sandbox.path().join("exam.yaml");
    fs::copy(repo_root().join("crews/exam.yaml"), &exam).unwrap();
    let opened = block_on(api.edit_crew(&exam));
    assert!(opened.positions.is_empty());
    let positions = BTreeMap::from([("agent:teacher".to_owned(), Position { x: 10.5, y: -3.0 })]);
    let first = block_on(api.save_crew(&SaveCrew { positions: positions.clone(), ..save_of(&opened, &exam) })).unwrap();
    assert_eq!(first.revision, Some(1));

    let mut spec = opened.spec.clone().unwrap();
    spec["description"] = json!("Changed.");
    let save = SaveCrew { spec, positions: positions.clone(), disk: Some(first.disk.clone()), ..save_of(&opened, &exam) };
    let second = block_on(api.save_crew(&save)).unwrap();
    assert_eq!(second.revision, Some(2));
    let revisions = block_on(store.crew_revisions(&std::path::absolute(&exam).unwrap().display().to_string())).unwrap();
    assert_eq!(revisions.len(), 2);
    assert!(revisions[1].yaml.contains("description: Changed."));

    let reopened = block_on(api.edit_crew(&exam));
    assert_eq!(reopened.positions, positions);
    let other = sandbox.path().join("other.yaml");
    fs::copy(&exam, &other).unwrap();
    block_on(api.edit_crew(&other));
    let recent: Vec<PathBuf> = block_on(api.recent_crews()).into_iter().map(|r| PathBuf::from(r.path)).collect();
    assert_eq!(recent, [std::path::absolute(&other).unwrap(), std::path::absolute(&exam).unwrap()]);
}

#[test]
fn signal_names_are_checked_as_they_are_typed() {
    let (api, _) = api(tempfile::tempdir().unwrap().path());
    for good in ["[DONE]", "[KẾT_THÚC]", "[route executor]", "review-ready"] {
        assert_eq!(api.check_signal_name(good), None, "{good}");
    }
    for bad in ["[]", "[END", "END]", "[a]b]", "[x!]"] {
        let message = api.check_signal_name(bad).unwrap_or_else(|| panic!("{bad} passed"));
        assert!(message.starts_with(&format!("invalid signal format '{bad}'")), "{message}");
    }
    assert!(api.check_signal_name("  ").unwrap().contains("needs a name"));
}

#[test]
fn the_agent_form_shows_what_the_engine_appends_about_signals() {
    let (api, _) = api(tempfile::tempdir().unwrap().path());
    let spec = json!({"name": "Two", "entry_point": "a",
        "agents": [{"id": "a"}, {"id": "b", "is_terminal": true}],
        "routing": {"signals": {"a": [{"signal": "[GO]", "target": "b", "description": "the work is ready"}]}}});
    let text = api.agent_instructions(&spec, "a").unwrap().expect("instructions for a");
    assert!(text.contains("[GO]"), "{text}");
    assert_eq!(api.agent_instructions(&spec, "b").unwrap(), None);
}

/// The exam's crew as the editor holds it.
fn exam_spec(api: &Api) -> Value {
    let path = repo_root().join("crews/exam.yaml");
    block_on(api.edit_crew(&path)).spec.expect("the exam opens for editing")
}

#[test]
fn an_agent_tried_in_simulate_answers_from_the_script_and_says_where_a_run_would_go() {
    let dir = tempfile::tempdir().unwrap();
    let (api, _) = api(dir.path());
    let spec = exam_spec(&api);
    let script = &crewgraph::api::ScriptSource::Text(
        "replies:\n  teacher: [\"What is 1/2 + 1/4? [QUESTION]\", \"Well done, that is all. [END_EXAM]\"]\n".into(),
    );
    let mut chat = vec![crewgraph::api::TryMessage { from_agent: false, text: "Please begin.".into() }];
    let first = block_on(api.try_agent(&spec, "teacher", &chat, None, Some(script))).unwrap();
    assert_eq!(first.reply, "What is 1/2 + 1/4? [QUESTION]");
    assert_eq!(first.next, "[QUESTION] — the group exam_round would start working");
    chat.push(crewgraph::api::TryMessage { from_agent: true, text: first.reply });
    chat.push(crewgraph::api::TryMessage { from_agent: false, text: "3/4".into() });
    let second = block_on(api.try_agent(&spec, "teacher", &chat, None, Some(script))).unwrap();
    assert_eq!((second.reply.as_str(), second.next.as_str()), ("Well done, that is all. [END_EXAM]", "[END_EXAM] — the run would end"));
    chat.push(crewgraph::api::TryMessage { from_agent: true, text: second.reply });
    chat.push(crewgraph::api::TryMessage { from_agent: false, text: "Again?".into() });
    let out = block_on(api.try_agent(&spec, "teacher", &chat, None, Some(script))).unwrap();
    assert_eq!(out.problem.as_deref(), Some("the script has no more replies for Teacher"), "said in the chat, not an error");

    let unknown = block_on(api.try_agent(&spec, "nobody", &chat, None, Some(script))).unwrap_err();
    assert_eq!((unknown.code, unknown.message.as_str()), (ApiErrorCode::InvalidInput, "the crew has no agent 'nobody'"));
    let unanswered = [crewgraph::api::TryMessage { from_agent: true, text: "hello".into() }];
    let error = block_on(api.try_agent(&spec, "teacher", &unanswered, None, Some(script))).unwrap_err();
    assert_eq!(error.message, "write something to Teacher first");

    // The crew's own script file, through the operation the window calls.
    use crewgraph::api::operations::TryAgent;
    use crewgraph::api::Operation;
    let file = repo_root().join("crews/scripts/exam.yaml").display().to_string();
    let first_of_file = std::fs::read_to_string(&file).unwrap();
    let request = |script_file: Option<String>, script: Option<String>| TryAgent {
        spec: spec.clone(),
        agent: "teacher".into(),
        messages: vec![crewgraph::api::TryMessage { from_agent: false, text: "Please begin.".into() }],
        model: None,
        script,
        script_file,
    };
    let tried = block_on(TryAgent::call(request(Some(file.clone()), None), &api)).unwrap();
    assert!(tried.reply.ends_with("[QUESTION]") && first_of_file.contains(tried.reply.trim_end_matches(" [QUESTION]")), "{}", tried.reply);
    let both = block_on(TryAgent::call(request(Some(file), Some("replies: {}".into())), &api)).unwrap_err();
    assert_eq!(both.code, ApiErrorCode::InvalidInput);
}

#[test]
fn an_agent_tried_on_the_local_model_ends_with_one_of_its_signals() {
    let dir = tempfile::tempdir().unwrap();
    let (api, _) = api(dir.path());
    let spec = exam_spec(&api);
    let chat = [crewgraph::api::TryMessage { from_agent: false, text: "Please begin.".into() }];
    let tried = block_on(api.try_agent(&spec, "teacher", &chat, None, None)).unwrap();
    assert_eq!(tried.problem, None);
    assert!(tried.reply.ends_with("[QUESTION]") || tried.reply.ends_with("[END_EXAM]"), "{}", tried.reply);
    assert!(tried.next.starts_with("[QUESTION] — ") || tried.next.starts_with("[END_EXAM] — "), "{}", tried.next);
    assert!(tried.usage.is_some_and(|u| u.output_tokens > 0), "the local model says what it used");
}
