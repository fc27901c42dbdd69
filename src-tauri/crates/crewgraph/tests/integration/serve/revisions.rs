//! A crew's revisions over HTTP: a run keeps its crew as a revision and lists under
//! it; two revisions compare; one reads back; a revision that does not exist, or one
//! of another crew, is refused with `{code, message}` in words.

use reqwest::StatusCode;
use serde_json::json;

use super::{ping_pong, TestServer};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_keeps_its_revision_and_revisions_compare_and_read_back() {
    let server = TestServer::start().await;
    let id = server.start_run("ping-pong.yaml", "go", ping_pong(2, 0, 1)).await;
    let run = server.settled(&id).await;
    assert_eq!(run["crew_revision"], json!(1), "{run}");

    let history = server.get("/crews/ping-pong.yaml/revisions").await;
    assert_eq!(history.status, StatusCode::OK, "{history:?}");
    assert_eq!(history.json[0]["revision"], json!(1));
    assert_eq!(history.json[0]["current"], json!(true));
    assert_eq!(history.json[0]["runs"][0]["id"], json!(id));
    assert_eq!(history.json[0]["runs"][0]["crew_path"], json!("ping-pong.yaml"), "named as the server names crews");

    let same = server.get("/crews/ping-pong.yaml/revisions/diff?from=1&to=1").await;
    assert_eq!(same.status, StatusCode::OK, "{same:?}");
    assert_eq!(same.json["changes"]["sentences"], json!([]));
    assert!(same.json["overlay"]["graph"]["nodes"].as_array().is_some_and(|n| !n.is_empty()));
    let spec = server.get("/crews/ping-pong.yaml/revisions/spec?revision=1").await;
    assert_eq!(spec.json["spec"]["name"], json!("Ping pong"), "{spec:?}");

    let missing = server.get("/crews/ping-pong.yaml/revisions/diff?from=1&to=3").await;
    missing.assert_error(StatusCode::NOT_FOUND, "not_found");
    assert!(missing.json["message"].as_str().unwrap().contains("has no revision 3"), "{missing:?}");
    let other = server.get("/crews/ping-pong.yaml/revisions/diff?from=1&to=1&to_crew=exam.yaml").await;
    other.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
    assert!(other.json["message"].as_str().unwrap().contains("only two revisions of the same crew"), "{other:?}");
    server.get("/crews/gone.yaml/revisions").await.assert_error(StatusCode::NOT_FOUND, "not_found");
    server.get("/crews/..%2Fsecret.yaml/revisions").await.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
}
