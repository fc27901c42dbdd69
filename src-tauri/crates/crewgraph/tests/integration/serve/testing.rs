//! `POST /crews/{crew}/test`: a crew's route coverage over HTTP — the Simulate
//! scenarios of a crew of the crews folder (no model called), its report as JSON;
//! a probes text with problems refused at `probes:LINE:COL`; a broken crew, a crew
//! outside the folder and a probes file that is not there refused in words.

use reqwest::StatusCode;
use serde_json::json;

use super::TestServer;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crew_s_routes_are_tested_over_http_and_bad_requests_are_refused_in_words() {
    let server = TestServer::start().await;
    let answer = server.post("/crews/exam.yaml/test", json!({})).await;
    assert_eq!(answer.status, StatusCode::OK, "{answer:?}");
    assert_eq!((answer.json["mode"].as_str(), answer.json["passed"].as_bool()), (Some("scenarios"), Some(true)), "{answer:?}");
    assert_eq!(answer.json["runs"], 3);
    let arrows: Vec<&str> = answer.json["arrows"].as_array().unwrap().iter().map(|a| a["id"].as_str().unwrap()).collect();
    assert_eq!(arrows, ["rule:teacher:0:group:exam_round", "rule:teacher:1:end", "next:exam_round:agent:teacher"]);
    // A test's runs are not kept.
    assert_eq!(server.get("/runs").await.json, json!([]));

    // Probes with problems: each at probes:LINE:COL, before anything runs.
    let refused = server.post("/crews/exam.yaml/test", json!({"probes": "probes:\n  - input: Hi\n    final_agent: ghost\n"})).await;
    refused.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
    assert!(refused.json["message"].as_str().unwrap().starts_with("probes:3:18: 'ghost' is not an agent of this crew"), "{refused:?}");
    let both = server.post("/crews/exam.yaml/test", json!({"probes": "probes: [Hi]", "probes_file": "p.yaml"})).await;
    both.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
    let model_alone = server.post("/crews/exam.yaml/test", json!({"model": "local"})).await;
    model_alone.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
    let missing = server.post("/crews/exam.yaml/test", json!({"probes_file": "nowhere.yaml"})).await;
    assert_eq!(missing.json["code"], "not_found", "{missing:?}");

    // A broken crew, and one outside the crews folder.
    let broken = server.post("/crews/broken.yaml/test", json!({})).await;
    assert_eq!(broken.json["code"], "invalid_crew", "{broken:?}");
    assert!(broken.json["message"].as_str().unwrap().contains("broken.yaml:"), "named as the server names crews: {broken:?}");
    let outside = server.post("/crews/..%2Fsecret.yaml/test", json!({})).await;
    assert!(outside.status.is_client_error(), "{outside:?}");
    assert!(!outside.text.contains("the secret crew"), "{outside:?}");
}
