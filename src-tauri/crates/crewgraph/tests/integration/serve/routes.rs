//! Every route of the server, its happy path and its errors, each answer checked for
//! its status and shape: what the API does is tested elsewhere; here, that HTTP
//! carries it faithfully (names relative to the crews folder, statuses that fit,
//! `{code, message}` errors, no key in any answer).

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use super::{assert_contiguous, messages, ping_pong, Setup, TestServer, LIMIT};
use std::time::{Duration, Instant};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_answers_ok() {
    let server = TestServer::start().await;
    let answer = server.get("/health").await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.json, json!({"status": "ok"}));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openapi_document_lists_every_route_with_its_methods_and_the_bearer_token() {
    let server = TestServer::start().await;
    let answer = server.get("/openapi.json").await;
    assert_eq!(answer.status, StatusCode::OK);
    let paths = answer.json["paths"].as_object().expect("paths");
    let expected = [
        ("/health", vec!["get"]),
        ("/openapi.json", vec!["get"]),
        ("/crews", vec!["get"]),
        ("/crews/{crew}", vec!["get"]),
        ("/crews/{crew}/validation", vec!["get"]),
        ("/crews/{crew}/route", vec!["post"]),
        ("/crews/{crew}/test", vec!["post"]),
        ("/crews/{crew}/explain", vec!["post"]),
        ("/crews/{crew}/agents", vec!["get", "post"]),
        ("/crews/{crew}/agents/{id}", vec!["delete"]),
        ("/match", vec!["post"]),
        ("/models", vec!["get"]),
        ("/models/{name}", vec!["put", "delete"]),
        ("/models/{name}/default", vec!["post"]),
        ("/models/{name}/check", vec!["post"]),
        ("/model-servers", vec!["get", "put"]),
        ("/model-servers/found", vec!["get"]),
        ("/runs", vec!["get", "post"]),
        ("/runs/{id}", vec!["get"]),
        ("/runs/{id}/context", vec!["get"]),
        ("/runs/{id}/fork", vec!["post"]),
        ("/runs/live", vec!["get"]),
        ("/runs/{id}/resume", vec!["post"]),
        ("/runs/{id}/approvals/{call_id}", vec!["post"]),
        ("/runs/{id}/cancel", vec!["post"]),
        ("/runs/{id}/reply", vec!["post"]),
        ("/runs/{id}/step", vec!["post"]),
        ("/runs/{id}/recording", vec!["get"]),
        ("/recordings/check", vec!["post"]),
        ("/runs/{id}/events", vec!["get"]),
        ("/crews/{crew}/edit", vec!["get"]),
        ("/crews/{crew}/disk", vec!["get"]),
        ("/crews/{crew}/scripts", vec!["get"]),
        ("/editor/check", vec!["post"]),
        ("/editor/save", vec!["post"]),
        ("/editor/yaml", vec!["post"]),
        ("/editor/instructions", vec!["post"]),
        ("/editor/signal-name", vec!["post"]),
        ("/editor/recent", vec!["get"]),
        ("/editor/try-agent", vec!["post"]),
        ("/crews/{crew}/revisions", vec!["get"]),
        ("/crews/{crew}/revisions/diff", vec!["get"]),
        ("/crews/{crew}/revisions/spec", vec!["get"]),
        ("/gatekeeper", vec!["post"]),
        ("/tool-servers", vec!["get"]),
        ("/tool-servers/{name}", vec!["put", "delete"]),
        ("/tool-servers/import", vec!["post"]),
        ("/tool-servers/{name}/check", vec!["post"]),
        ("/tools", vec!["post"]),
        ("/import/crewai", vec!["post"]),
        ("/traces", vec!["get", "put"]),
    ];
    assert_eq!(paths.len(), expected.len(), "documented: {:?}", paths.keys().collect::<Vec<_>>());
    for (path, methods) in expected {
        let item = paths.get(path).unwrap_or_else(|| panic!("{path} is documented"));
        for method in methods {
            assert!(item.get(method).is_some(), "{method} {path} is documented");
        }
    }
    assert_eq!(answer.json["components"]["securitySchemes"]["bearer"]["scheme"], json!("bearer"));
    assert_eq!(paths["/health"]["get"]["security"], json!([{}]), "/health needs no token");
    for schema in ["ApiError", "ApiErrorCode", "ProblemView", "AgentView", "ModelRequest", "Replies"] {
        assert!(answer.json["components"]["schemas"].get(schema).is_some(), "schema {schema} is generated");
    }
    // Each operation's request and answer, from its declaration.
    let start = &paths["/runs"]["post"];
    assert_eq!(start["operationId"], json!("start_run"));
    let body = serde_json::to_string(&start["requestBody"]).unwrap();
    for field in ["crew", "input", "agent", "#/components/schemas/Replies"] {
        assert!(body.contains(field), "POST /runs takes {field}: {body}");
    }
    assert!(start["responses"]["202"]["content"]["application/json"]["schema"]["properties"]["run_id"].is_object());
    let resume = serde_json::to_string(&paths["/runs/{id}/resume"]["post"]).unwrap();
    assert!(resume.contains("\"in\":\"path\"") && !resume.contains("\"id\":{"), "the run's id is the path's, not the body's: {resume}");
    let check = &paths["/models"]["get"]["parameters"][0];
    assert_eq!((check["name"].as_str(), check["in"].as_str()), (Some("check"), Some("query")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crews_are_listed_and_named_relative_to_the_crews_folder() {
    let server = TestServer::start().await;
    let answer = server.get("/crews").await;
    assert_eq!(answer.status, StatusCode::OK);
    let names: Vec<&str> = answer.json.as_array().unwrap().iter().map(|c| c["path"].as_str().unwrap()).collect();
    for name in ["exam.yaml", "go-quiz", "ping-pong.yaml", "broken.yaml"] {
        assert!(names.contains(&name), "{name} in {names:?}");
    }
    assert!(!answer.text.contains(server.fixture.dir.path().to_str().unwrap()), "no server path leaks: {}", answer.text);
    // A symbolic link out of the folder is not one of its crews, as everywhere else.
    assert!(!names.contains(&"link.yaml"), "{names:?}");
    assert!(!answer.text.contains("the secret crew"), "the linked file leaked: {}", answer.text);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crew_opens_with_its_graph_and_a_broken_one_with_its_problems() {
    let server = TestServer::start().await;
    let exam = server.get("/crews/exam.yaml").await;
    assert_eq!(exam.status, StatusCode::OK);
    assert_eq!(exam.json["path"], json!("exam.yaml"));
    assert_eq!(exam.json["valid"], json!(true));
    assert!(exam.json["graph"]["nodes"].as_array().is_some_and(|n| !n.is_empty()));

    let folder = server.get("/crews/go-quiz").await;
    assert_eq!(folder.status, StatusCode::OK);
    assert_eq!(folder.json["layout"], json!("directory"));

    let broken = server.get("/crews/broken.yaml").await;
    assert_eq!(broken.status, StatusCode::OK, "a broken crew opens, its problems say why");
    assert_eq!(broken.json["valid"], json!(false));
    let problem = &broken.json["problems"][0]["diagnostic"];
    assert_eq!(problem["message"], json!("entry_point 'nobody' is not an agent"));
    assert_eq!(problem["location"]["file"], json!("broken.yaml"), "files are named relative to the crews folder");

    server.get("/crews/nope.yaml").await.assert_error(StatusCode::NOT_FOUND, "not_found");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn validation_lists_every_diagnostic_with_its_place() {
    let server = TestServer::start().await;
    let valid = server.get("/crews/exam.yaml/validation").await;
    assert_eq!(valid.status, StatusCode::OK);
    assert_eq!(valid.json["valid"], json!(true));
    assert_eq!(valid.json["errors"], json!(0));

    let broken = server.get("/crews/broken.yaml/validation").await;
    assert_eq!(broken.status, StatusCode::OK);
    assert_eq!(broken.json["valid"], json!(false));
    assert_eq!(broken.json["errors"], json!(1));
    let diagnostic = &broken.json["diagnostics"][0];
    assert_eq!(diagnostic["severity"], json!("error"));
    assert_eq!(diagnostic["location"]["file"], json!("broken.yaml"));
    assert_eq!(diagnostic["location"]["line"], json!(3));

    server.get("/crews/missing/validation").await.assert_error(StatusCode::NOT_FOUND, "not_found");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_scoring_router_says_where_a_query_goes() {
    let server = TestServer::start().await;
    let answer = server.post("/crews/support-triage.yaml/route", json!({"query": "I was charged twice on my invoice"})).await;
    assert_eq!(answer.status, StatusCode::OK, "{answer:?}");
    assert_eq!(answer.json["chosen"], json!("billing"));
    assert!(answer.json["tokens"].as_array().unwrap().contains(&json!("invoice")));

    server.post("/crews/support-triage.yaml/route", json!({"query": "  "})).await.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
    server.post("/crews/broken.yaml/route", json!({"query": "hello"})).await.assert_error(StatusCode::UNPROCESSABLE_ENTITY, "invalid_crew");
    server.post("/crews/support-triage.yaml/route", json!({"qeury": "typo"})).await.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
    server.post("/crews/gone.yaml/route", json!({"query": "hello"})).await.assert_error(StatusCode::NOT_FOUND, "not_found");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runtime_agents_are_added_listed_and_removed() {
    let server = TestServer::start().await;
    let agent = "id: lore_keeper\nname: Lore keeper\ndescription: Knows the old stories.\ntags: [lore, history]\nsystem_prompt: You know the lore.\n";
    let added = server.post("/crews/support-triage.yaml/agents", json!({"yaml": agent})).await;
    assert_eq!(added.status, StatusCode::CREATED, "{added:?}");
    assert_eq!(added.json["id"], json!("lore_keeper"));

    let listed = server.get("/crews/support-triage.yaml/agents").await;
    assert_eq!(listed.status, StatusCode::OK);
    assert_eq!(listed.json.as_array().unwrap().len(), 1);
    let routed = server.post("/crews/support-triage.yaml/route", json!({"query": "tell me the old lore and history"})).await;
    assert_eq!(routed.json["chosen"], json!("lore_keeper"), "a runtime agent takes part in routing at once");

    server.post("/crews/support-triage.yaml/agents", json!({"yaml": agent})).await.assert_error(StatusCode::CONFLICT, "conflict");
    let bad = server.post("/crews/support-triage.yaml/agents", json!({"yaml": "name: no id\n"})).await;
    bad.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
    server.post("/crews/broken.yaml/agents", json!({"yaml": agent})).await.assert_error(StatusCode::UNPROCESSABLE_ENTITY, "invalid_crew");

    let removed = server.call(Method::DELETE, "/crews/support-triage.yaml/agents/lore_keeper", None).await;
    assert_eq!(removed.status, StatusCode::NO_CONTENT);
    assert!(removed.text.is_empty());
    server
        .call(Method::DELETE, "/crews/support-triage.yaml/agents/lore_keeper", None)
        .await
        .assert_error(StatusCode::NOT_FOUND, "not_found");
    let own = server.call(Method::DELETE, "/crews/support-triage.yaml/agents/billing", None).await;
    own.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
    assert_eq!(server.get("/crews/support-triage.yaml/agents").await.json, json!([]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signals_match_at_their_level_and_a_malformed_signal_is_refused() {
    let server = TestServer::start().await;
    let answer = server.post("/match", json!({"signal": "[KẾT_THÚC]", "content": "Xong [ Kết  Thúc ]"})).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.json, json!({"matched": true, "level": "normalized"}));
    let none = server.post("/match", json!({"signal": "[END]", "content": "nothing here"})).await;
    assert_eq!(none.json, json!({"matched": false, "level": "none"}));
    server.post("/match", json!({"signal": "[]", "content": "x"})).await.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
    server.post("/match", json!({"signal": "[END]"})).await.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn models_are_added_made_default_and_removed_and_no_answer_holds_a_key() {
    const KEY: &str = "sk-serve-test-secret-0123456789";
    std::env::set_var("CREWGRAPH_SERVE_TEST_KEY_API_KEY", KEY);
    let server = TestServer::start().await;
    let listed = server.get("/models").await;
    assert_eq!(listed.status, StatusCode::OK);
    assert_eq!(listed.json[0]["name"], json!("local"), "the built-in model comes first");

    // A user name or password in the address is refused, without repeating it.
    let body = json!({
        "provider": "openai", "model": "gpt-4o-mini", "key_name": "serve_test_key",
        "base_url": "https://user:sk-in-url@llm.example/v1",
    });
    let refused = server.call(Method::PUT, "/models/fast", Some(body)).await;
    refused.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
    assert!(refused.text.contains("user name or password") && !refused.text.contains("sk-in-url"), "{}", refused.text);
    let body = json!({
        "provider": "openai", "model": "gpt-4o-mini", "key_name": "serve_test_key",
        "base_url": "https://llm.example/v1?api-key=sk-in-query",
    });
    let put = server.call(Method::PUT, "/models/fast", Some(body)).await;
    assert_eq!(put.status, StatusCode::NO_CONTENT, "{put:?}");
    assert_eq!(server.post("/models/fast/default", json!(null)).await.status, StatusCode::NO_CONTENT);
    let listed = server.get("/models").await;
    let fast = listed.json.as_array().unwrap().iter().find(|m| m["name"] == json!("fast")).unwrap().clone();
    assert_eq!(fast["default"], json!(true));
    assert_eq!(fast["key"], json!("environment"), "where the key comes from, never the key");
    for secret in [KEY, "sk-in-url", "sk-in-query"] {
        assert!(!listed.text.contains(secret), "an answer holds a secret: {}", listed.text);
    }

    let unknown = server.call(Method::PUT, "/models/x", Some(json!({"provider": "skynet"}))).await;
    unknown.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
    let bad_name = server.call(Method::PUT, "/models/has%20space", Some(json!({"provider": "local"}))).await;
    bad_name.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
    let sent_key = server.call(Method::PUT, "/models/y", Some(json!({"provider": "openai", "model": "m", "key": "sk-x"}))).await;
    sent_key.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
    server.post("/models/nope/default", json!(null)).await.assert_error(StatusCode::NOT_FOUND, "not_found");

    assert_eq!(server.call(Method::DELETE, "/models/fast", None).await.status, StatusCode::NO_CONTENT);
    server.call(Method::DELETE, "/models/fast", None).await.assert_error(StatusCode::NOT_FOUND, "not_found");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_starts_is_listed_and_its_events_replay_as_stored() {
    let server = TestServer::start().await;
    let script = std::fs::read_to_string(crate::support::repo_root().join("crews/scripts/exam.yaml")).unwrap();
    let started = server.post("/runs", json!({"crew": "exam.yaml", "input": "Start the exam", "script": script})).await;
    assert_eq!(started.status, StatusCode::ACCEPTED, "{started:?}");
    let id = started.json["run_id"].as_str().unwrap().to_owned();
    assert_eq!(started.json["events"], json!(format!("/runs/{id}/events")));
    assert_eq!(started.headers["location"], format!("/runs/{id}").as_str());

    let run = server.settled(&id).await;
    assert_eq!(run["status"], json!("terminated"));
    let detail = server.get(&format!("/runs/{id}")).await;
    assert_eq!(detail.json["crew"], json!("exam.yaml"));
    assert_eq!(detail.json["live"], json!(false));
    let listed = server.get("/runs").await;
    assert_eq!(listed.json[0]["id"], json!(id));

    let stored = server.stored_events(&id).await;
    let seqs: Vec<u64> = stored.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
    assert_contiguous(&seqs);
    assert_eq!(stored.last().unwrap()["type"], json!("run_finished"));
    let replayed = messages(server.watch(&id, None).await, None).await;
    assert_eq!(replayed.iter().map(|m| m.data.clone()).collect::<Vec<_>>(), stored, "SSE replays the stored events");
    assert!(replayed.iter().all(|m| m.event == "message" && m.id == m.seq().to_string()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_that_cannot_start_says_why_with_a_fitting_status() {
    let server = TestServer::start().await;
    let script = json!({"replies": {"ping": ["[END]"]}});
    let start = |body: Value| server.post("/runs", body);
    start(json!({"crew": "broken.yaml", "input": "go", "script": script}))
        .await
        .assert_error(StatusCode::UNPROCESSABLE_ENTITY, "invalid_crew");
    start(json!({"crew": "gone.yaml", "input": "go", "script": script})).await.assert_error(StatusCode::NOT_FOUND, "not_found");
    start(json!({"crew": "ping-pong.yaml", "input": " ", "script": script})).await.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
    let unknown_agent = start(json!({"crew": "ping-pong.yaml", "input": "go", "script": {"replies": {"ghost": ["boo"]}}})).await;
    unknown_agent.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
    assert!(unknown_agent.json["message"].as_str().unwrap().contains("ghost"), "{unknown_agent:?}");
    start(json!({"crew": "ping-pong.yaml", "input": "go", "script": 42})).await.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
    start(json!({"crew": "ping-pong.yaml", "input": "go", "script": "replies: ["}))
        .await
        .assert_error(StatusCode::BAD_REQUEST, "invalid_input");
    assert_eq!(server.get("/runs").await.json, json!([]), "nothing was stored");
    server.get("/runs/run-nope").await.assert_error(StatusCode::NOT_FOUND, "not_found");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_run_is_cancelled_and_ends_cancelled_with_its_events() {
    let server = TestServer::start().await;
    let id = server.start_run("ping-pong.yaml", "go", ping_pong(50, 200, 3)).await;
    let detail = server.get(&format!("/runs/{id}")).await;
    assert_eq!(detail.json["live"], json!(true));
    assert_eq!(server.get("/runs/live").await.json, json!([id]), "the runs going on here");
    let cancelled = server.post(&format!("/runs/{id}/cancel"), json!(null)).await;
    assert_eq!(cancelled.status, StatusCode::ACCEPTED, "{cancelled:?}");
    let run = server.settled(&id).await;
    assert_eq!(run["status"], json!("cancelled"));
    assert_eq!(server.get("/runs/live").await.json, json!([]), "none goes on now");
    let stored = server.stored_events(&id).await;
    assert_eq!(stored.last().unwrap()["status"], json!("cancelled"));

    server.post(&format!("/runs/{id}/cancel"), json!(null)).await.assert_error(StatusCode::CONFLICT, "conflict");
    server.post("/runs/run-nope/cancel", json!(null)).await.assert_error(StatusCode::NOT_FOUND, "not_found");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paused_run_is_resumed_with_an_answer_and_a_finished_one_is_not() {
    let server = TestServer::start().await;
    let id = server.start_run("ask.yaml", "hello", json!({"replies": {"asker": ["What is your name?"]}})).await;
    assert_eq!(server.settled(&id).await["status"], json!("paused"));
    server.post(&format!("/runs/{id}/cancel"), json!(null)).await.assert_error(StatusCode::CONFLICT, "conflict");

    let script = json!({"replies": {"asker": ["Hello, Ada. [END]"]}});
    let without_answer = server.post(&format!("/runs/{id}/resume"), json!({"script": script})).await;
    without_answer.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
    let resumed = server.post(&format!("/runs/{id}/resume"), json!({"input": "Ada", "script": script})).await;
    assert_eq!(resumed.status, StatusCode::ACCEPTED, "{resumed:?}");
    assert_eq!(server.settled(&id).await["status"], json!("terminated"));

    let again = server.post(&format!("/runs/{id}/resume"), json!({"input": "Ada", "script": script})).await;
    again.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
    server.post("/runs/run-nope/resume", json!({"input": "x"})).await.assert_error(StatusCode::NOT_FOUND, "not_found");
    let seqs: Vec<u64> = server.stored_events(&id).await.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
    assert_contiguous(&seqs);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_clients_resuming_one_paused_run_at_once_one_wins_the_other_gets_409() {
    let server = TestServer::start().await;
    let id = server.start_run("ask.yaml", "hello", json!({"replies": {"asker": ["What is your name?"]}})).await;
    assert_eq!(server.settled(&id).await["status"], json!("paused"));
    // The winner's reply takes a while, so the loser arrives while it is going on.
    let script = json!({"replies": {"asker": [{"content": "Hello. [END]", "delay_ms": 1000}]}});
    let path = format!("/runs/{id}/resume");
    let (a, b) = tokio::join!(
        server.post(&path, json!({"input": "Ada", "script": script})),
        server.post(&path, json!({"input": "Grace", "script": script})),
    );
    let mut statuses = [a.status, b.status];
    statuses.sort();
    assert_eq!(statuses, [StatusCode::ACCEPTED, StatusCode::CONFLICT], "{a:?} {b:?}");
    let loser = if a.status == StatusCode::CONFLICT { &a } else { &b };
    loser.assert_error(StatusCode::CONFLICT, "conflict");
    assert_eq!(server.settled(&id).await["status"], json!("terminated"));
    let resumed = server.stored_events(&id).await.into_iter().filter(|e| e["type"] == json!("resumed")).count();
    assert_eq!(resumed, 1, "only the winner resumed it");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_of_an_unknown_run_are_404_and_a_bad_last_event_id_is_400() {
    let server = TestServer::start().await;
    let answer = super::Answer::read(server.watch("run-nope", None).await).await;
    answer.assert_error(StatusCode::NOT_FOUND, "not_found");
    let bad = server.http.get(server.url("/runs/run-nope/events")).header("last-event-id", "seven").send().await.unwrap();
    super::Answer::read(bad).await.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_web_ui_is_served_at_the_root_and_its_files_need_no_token() {
    let ui = tempfile::tempdir().unwrap();
    std::fs::create_dir(ui.path().join("assets")).unwrap();
    std::fs::write(ui.path().join("index.html"), "<!doctype html><title>Crewgraph</title>").unwrap();
    std::fs::write(ui.path().join("assets/app.js"), "console.log('crewgraph')").unwrap();
    let setup = Setup { ui_dir: Some(ui.path().to_path_buf()), token: Some("ui-test-token-0123456789".into()), ..Setup::default() };
    let server = TestServer::start_with(setup).await;

    let page = server.get("/").await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.headers["content-type"].to_str().unwrap().starts_with("text/html"));
    assert!(page.text.contains("<title>Crewgraph</title>"));
    let script = server.get("/assets/app.js").await;
    assert_eq!(script.status, StatusCode::OK);
    assert!(script.headers["content-type"].to_str().unwrap().contains("javascript"));
    // The data behind it still wants the token; what is not a file is a JSON 404.
    server.get("/crews").await.assert_error(StatusCode::UNAUTHORIZED, "unauthorized");
    server.get("/assets/missing.js").await.assert_error(StatusCode::NOT_FOUND, "not_found");
    server.call(Method::POST, "/index.html", None).await.assert_error(StatusCode::NOT_FOUND, "not_found");
    server.get("/..%2F..%2Fetc%2Fpasswd").await.assert_error(StatusCode::NOT_FOUND, "not_found");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_with_typed_replies_waits_for_each_agent_s_reply_typed_by_the_person() {
    let server = TestServer::start().await;
    let started = server.post("/runs", json!({"crew": "ping-pong.yaml", "input": "go", "typed": true})).await;
    assert_eq!(started.status, StatusCode::ACCEPTED, "{started:?}");
    let id = started.json["run_id"].as_str().unwrap().to_owned();
    let path = format!("/runs/{id}/reply");
    let reply = |agent: &str, text: &str| server.post(&path, json!({"agent": agent, "text": text}));
    // Ping's turn waits; pong's reply, typed early, waits for pong's turn.
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    assert_eq!(server.get(&format!("/runs/{id}")).await.json["live"], json!(true), "the run waits for the person");
    assert_eq!(reply("pong", "Pong. [NEXT]").await.status, StatusCode::NO_CONTENT);
    assert_eq!(reply("ping", "Ping. [NEXT]").await.status, StatusCode::NO_CONTENT);
    reply("ping", " ").await.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
    assert_eq!(reply("ping", "Done. [END]").await.status, StatusCode::NO_CONTENT);
    assert_eq!(server.settled(&id).await["status"], json!("terminated"));
    let said: Vec<Value> =
        server.stored_events(&id).await.into_iter().filter(|e| e["type"] == "agent_response").map(|e| e["content"].clone()).collect();
    assert_eq!(said, [json!("Ping. [NEXT]"), json!("Pong. [NEXT]"), json!("Done. [END]")]);

    reply("ping", "too late").await.assert_error(StatusCode::CONFLICT, "conflict");
    let both = server.post("/runs", json!({"crew": "ping-pong.yaml", "input": "go", "typed": true, "script": {"replies": {}}})).await;
    both.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scripted_run_at_step_pace_waits_for_next_before_each_turn_and_readable_streams_word_by_word() {
    let server = TestServer::start().await;
    let script = json!({"replies": {"ping": ["Ping one. [NEXT]", "Done now. [END]"], "pong": ["Pong two words. [NEXT]"]}});
    let started = server.post("/runs", json!({"crew": "ping-pong.yaml", "input": "go", "script": script, "pace": "step"})).await;
    assert_eq!(started.status, StatusCode::ACCEPTED, "{started:?}");
    let id = started.json["run_id"].as_str().unwrap().to_owned();
    let step = format!("/runs/{id}/step");
    async fn replies(server: &TestServer, id: &str) -> usize {
        server.stored_events(id).await.into_iter().filter(|e| e["type"] == "agent_response").count()
    }
    for turn in 1..=3 {
        // The turn waits: however long, no reply comes without Next.
        let waited = Instant::now();
        while waited.elapsed() < Duration::from_millis(300) {
            assert_eq!(replies(&server, &id).await, turn - 1, "turn {turn} came before Next");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert_eq!(server.post(&step, json!({})).await.status, StatusCode::NO_CONTENT);
        let deadline = Instant::now() + LIMIT;
        while replies(&server, &id).await < turn {
            assert!(Instant::now() < deadline, "turn {turn} never came after Next");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    assert_eq!(server.settled(&id).await["status"], json!("terminated"));
    server.post(&step, json!({})).await.assert_error(StatusCode::CONFLICT, "conflict");

    // Readable: the reply's words come as tokens of their own, a word-time apart.
    let script = json!({"replies": {"ping": ["One two three four five six. [END]"]}});
    let started = server.post("/runs", json!({"crew": "ping-pong.yaml", "input": "go", "script": script, "pace": "readable"})).await;
    let id = started.json["run_id"].as_str().unwrap().to_owned();
    server.settled(&id).await;
    let events = server.stored_events(&id).await;
    let tokens: Vec<&Value> = events.iter().filter(|e| e["type"] == "token").collect();
    assert!(tokens.len() >= 3, "the words streamed apart, not at once: {tokens:?}");
    // A pace without a script is refused in words.
    let paced = server.post("/runs", json!({"crew": "ping-pong.yaml", "input": "go", "pace": "readable"})).await;
    paced.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
    assert!(paced.json["message"].as_str().unwrap().contains("a pace is for a scripted run"), "{paced:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_downloads_as_a_recording_that_checks_back_and_a_cut_one_is_refused() {
    let server = TestServer::start().await;
    let id = server.start_run("ask.yaml", "hello", json!({"replies": {"asker": ["What is your name?"]}})).await;
    server.settled(&id).await;
    let recording = server.get(&format!("/runs/{id}/recording")).await;
    assert_eq!(recording.status, StatusCode::OK);
    assert_eq!(recording.headers["content-disposition"], format!("attachment; filename=\"{id}.json\"").as_str());
    assert_eq!(recording.json["format"], json!("crewgraph-run-recording"));
    assert_eq!(recording.json["crew"], json!("ask.yaml"), "named relative to the crews folder");
    assert_eq!(recording.json["events"], json!(server.stored_events(&id).await));

    let checked = server.post("/recordings/check", json!({"name": "mine.json", "text": recording.text})).await;
    assert_eq!(checked.status, StatusCode::OK, "{checked:?}");
    assert_eq!(checked.json, recording.json);
    let cut = server.post("/recordings/check", json!({"name": "mine.json", "text": &recording.text[..recording.text.len() - 40]})).await;
    cut.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
    assert!(cut.json["message"].as_str().unwrap().contains("'mine.json' ends early"), "{cut:?}");
    server.get("/runs/run-nope/recording").await.assert_error(StatusCode::NOT_FOUND, "not_found");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_s_fields_come_from_its_address_its_query_on_a_get_and_its_body_else() {
    let server = TestServer::start().await;
    // A GET's query fills the request (a boolean read as one) …
    assert_eq!(server.get("/models?check=false").await.status, StatusCode::OK);
    server.get("/models?check=maybe").await.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
    // … a POST's does not: its fields are its body's.
    let answer = server.post("/runs?crew=exam.yaml", json!({"input": "Start the exam"})).await;
    answer.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
    assert!(answer.json["message"].as_str().unwrap().contains("crew"), "{:?}", answer.json);
    // A field of the address is not given again in the body.
    let twice = server.post("/runs/run-1/reply", json!({"id": "run-2", "agent": "a", "text": "hi"})).await;
    twice.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
    assert!(twice.json["message"].as_str().unwrap().contains("part of the address"), "{:?}", twice.json);
}
