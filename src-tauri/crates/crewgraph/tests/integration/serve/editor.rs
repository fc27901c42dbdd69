//! The editor's routes over HTTP: a crew opened for editing, checked as it is
//! edited, saved (and refused when it changed on disk, when a new name exists, or
//! when the name leads out of the crews folder), its YAML, an agent's appended
//! instructions, signal names, the recent list, and a run in Simulate mode with a
//! script file of the crews folder.

use reqwest::StatusCode;
use serde_json::{json, Value};

use super::{TestServer, SECRET};

async fn edit(server: &TestServer, crew: &str) -> Value {
    let answer = server.get(&format!("/crews/{crew}/edit")).await;
    assert_eq!(answer.status, StatusCode::OK, "{answer:?}");
    answer.json
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crew_opens_for_editing_named_relative_to_the_crews_folder() {
    let server = TestServer::start().await;
    let exam = edit(&server, "exam.yaml").await;
    assert_eq!(exam["path"], json!("exam.yaml"));
    assert_eq!(exam["document"]["path"], json!("exam.yaml"));
    assert_eq!(exam["layout"], json!("file"));
    assert_eq!(exam["spec"]["name"], json!(server.get("/crews/exam.yaml").await.json["name"]));
    assert!(exam["disk"].as_str().is_some_and(|d| !d.is_empty()));
    assert_eq!(server.get("/crews/exam.yaml/disk").await.json, exam["disk"]);

    let broken = edit(&server, "broken.yaml").await;
    let files: Vec<&Value> =
        broken["document"]["problems"].as_array().unwrap().iter().map(|p| &p["diagnostic"]["location"]["file"]).collect();
    assert!(!files.is_empty() && files.iter().all(|f| *f == "broken.yaml"), "{files:?}");

    let folder = edit(&server, "go-quiz").await;
    assert_eq!(folder["layout"], json!("directory"));
    server.get("/crews/link.yaml/edit").await.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
    server.get("/crews/..%2Fsecret.yaml/edit").await.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
    server.get("/crews/gone.yaml/edit").await.assert_error(StatusCode::NOT_FOUND, "not_found");

    let recent = server.get("/editor/recent").await.json;
    let names: Vec<&str> = recent.as_array().unwrap().iter().map(|r| r["path"].as_str().unwrap()).collect();
    assert_eq!(names, ["go-quiz", "broken.yaml", "exam.yaml"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edit_is_checked_and_saved_and_a_stale_or_outside_save_is_refused() {
    let server = TestServer::start().await;
    let exam = edit(&server, "exam.yaml").await;
    let mut spec = exam["spec"].clone();
    spec["entry_point"] = json!("nobody");
    let checked = server.post("/editor/check", json!({"path": "exam.yaml", "spec": spec})).await;
    assert_eq!(checked.status, StatusCode::OK, "{checked:?}");
    assert_eq!(checked.json["valid"], json!(false));
    assert!(checked.json["problems"].to_string().contains("nobody"), "{checked:?}");
    assert_eq!(checked.json["path"], json!("exam.yaml"));
    server.post("/editor/check", json!({"spec": 42})).await.assert_error(StatusCode::BAD_REQUEST, "invalid_input");

    // Saved as a new file, then changed by another program: the next save is refused.
    spec["entry_point"] = exam["spec"]["entry_point"].clone();
    spec["name"] = json!("Exam, copied");
    let save = |path: &str, disk: Value| json!({"path": path, "layout": "file", "spec": spec, "positions": {"teacher": {"x": 10.0, "y": 20.0}}, "disk": disk});
    let saved = server.post("/editor/save", save("copy.yaml", Value::Null)).await;
    assert_eq!(saved.status, StatusCode::OK, "{saved:?}");
    assert_eq!(saved.json["path"], json!("copy.yaml"));
    assert_eq!(saved.json["document"]["valid"], json!(true));
    let file = server.fixture.crews().join("copy.yaml");
    assert!(std::fs::read_to_string(&file).unwrap().contains("Exam, copied"));
    let reopened = edit(&server, "copy.yaml").await;
    assert_eq!(reopened["positions"]["teacher"], json!({"x": 10.0, "y": 20.0}));

    let exists = server.post("/editor/save", save("copy.yaml", Value::Null)).await;
    exists.assert_error(StatusCode::CONFLICT, "conflict");
    assert!(exists.json["message"].as_str().unwrap().contains("'copy.yaml'"), "names it as the client did: {exists:?}");
    std::fs::write(&file, std::fs::read_to_string(&file).unwrap().replace("Exam, copied", "Changed elsewhere")).unwrap();
    server.post("/editor/save", save("copy.yaml", saved.json["disk"].clone())).await.assert_error(StatusCode::CONFLICT, "conflict");
    assert!(std::fs::read_to_string(&file).unwrap().contains("Changed elsewhere"), "the other program's change is kept");

    for outside in ["../escape.yaml", "/tmp/escape.yaml", "link.yaml", "missing/escape.yaml"] {
        let refused = server.post("/editor/save", json!({"path": outside, "layout": "file", "spec": spec, "overwrite": true})).await;
        refused.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
    }
    assert!(!server.fixture.dir.path().join("escape.yaml").exists());
    assert_eq!(std::fs::read_to_string(server.fixture.dir.path().join("secret.yaml")).unwrap(), SECRET);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn yaml_instructions_and_signal_names_come_from_the_engine() {
    let server = TestServer::start().await;
    let spec = edit(&server, "ping-pong.yaml").await["spec"].clone();
    let yaml = server.post("/editor/yaml", json!({"spec": spec})).await;
    assert_eq!(yaml.status, StatusCode::OK);
    assert!(yaml.json.as_str().unwrap().contains("name: Ping pong"), "{yaml:?}");
    let instructions = server.post("/editor/instructions", json!({"spec": spec, "agent": "ping"})).await;
    assert!(instructions.json.as_str().unwrap().contains("[END]"), "{instructions:?}");
    assert_eq!(server.post("/editor/signal-name", json!({"name": "[READY]"})).await.json, Value::Null);
    assert!(server.post("/editor/signal-name", json!({"name": "READY]"})).await.json.as_str().unwrap().contains("square brackets"));
    server.post("/editor/yaml", json!({"spec": spec, "extra": 1})).await.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_takes_a_script_file_of_the_crews_folder_and_nothing_outside_it() {
    let server = TestServer::start().await;
    let scripts = server.get("/crews/exam.yaml/scripts").await;
    assert_eq!(scripts.json, json!(["scripts/exam.yaml"]));
    assert_eq!(server.get("/crews/ping-pong.yaml/scripts").await.json, json!([]));

    let started = server.post("/runs", json!({"crew": "exam.yaml", "input": "Start the exam", "script_file": "scripts/exam.yaml"})).await;
    assert_eq!(started.status, StatusCode::ACCEPTED, "{started:?}");
    let id = started.json["run_id"].as_str().unwrap().to_owned();
    assert_eq!(server.settled(&id).await["status"], json!("terminated"));

    let start = |body: Value| server.post("/runs", body);
    start(json!({"crew": "exam.yaml", "input": "go", "script_file": "../secret.yaml"}))
        .await
        .assert_error(StatusCode::BAD_REQUEST, "invalid_input");
    start(json!({"crew": "exam.yaml", "input": "go", "script_file": "scripts/gone.yaml"}))
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    let both = start(json!({"crew": "exam.yaml", "input": "go", "script_file": "scripts/exam.yaml", "script": "replies: {}"})).await;
    both.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
}
