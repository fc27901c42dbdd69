//! `POST /gatekeeper`: `crewgraph serve` as the gatekeeper service of a crew of the
//! `gatekeeper` strategy (the keyword gatekeeper, api/keyword_gatekeeper.rs). A
//! question as the run's client asks it gets a decision the engine reads; with nobody
//! left to give the work to, the workflow is complete; a malformed question is a 400
//! saying what is wrong. (A whole run with a `crewgraph serve` process as its
//! gatekeeper: `gatekeeper.rs`, through the binaries.)

use reqwest::StatusCode;
use serde_json::{json, Value};

use super::{Answer, TestServer};

/// A gatekeeper question as `GatekeeperClient` asks it: the desk has worked.
fn gatekeeper_question(available: Value) -> Value {
    json!({
        "original_query": "I was charged twice on my invoice and want a refund",
        "workflow_history": [{"agent_id": "desk", "action": "A double charge.", "timestamp": "2026-11-28T10:00:00.005Z"}],
        "current_agent": "desk",
        "current_output": "The customer was charged twice for one invoice.",
        "available_agents": available,
        "iteration": 1,
        "max_iterations": 4
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gatekeeper_route_picks_by_keywords_completes_with_nobody_left_and_refuses_malformed_questions_in_words() {
    let server = TestServer::start().await;
    let agents = json!([
        {"agent_id": "tech", "name": "Technical support", "role": "Login trouble, error messages, crashes", "description": "", "capabilities": ["login", "crash"]},
        {"agent_id": "billing", "name": "Billing", "role": "Invoices, refunds, charges", "description": "", "capabilities": ["invoice", "refund"]}
    ]);
    let answer = server.post("/gatekeeper", gatekeeper_question(agents)).await;
    assert_eq!(answer.status, StatusCode::OK, "{answer:?}");
    assert_eq!(answer.json["workflow_complete"], json!(false));
    assert_eq!(answer.json["next_agent"], json!("billing"));
    let instruction = answer.json["next_instruction"].as_str().unwrap();
    assert!(instruction.ends_with("The work so far, from desk:\nThe customer was charged twice for one invoice."), "{instruction}");
    assert!(answer.json["reasoning"].as_str().unwrap().contains("(tech 0)"), "every score is shown: {answer:?}");
    assert!(answer.json["confidence"].is_number());
    // What the engine reads: the run takes it as any gatekeeper's answer.
    let decision = crewgraph_engine::routing::decider::parse(&answer.text).expect("a decision the engine reads");
    assert_eq!(decision.next_agent.as_deref(), Some("billing"));

    // No agent to give the work to: the workflow is complete.
    let done = server.post("/gatekeeper", gatekeeper_question(json!([]))).await;
    assert_eq!(done.status, StatusCode::OK, "{done:?}");
    assert_eq!((done.json["workflow_complete"].clone(), done.json["next_agent"].clone()), (json!(true), Value::Null));

    // A malformed question: 400, saying what is wrong.
    let mut missing = gatekeeper_question(json!([]));
    missing.as_object_mut().unwrap().remove("available_agents");
    let refused = server.post("/gatekeeper", missing).await;
    refused.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
    assert!(refused.json["message"].as_str().unwrap().contains("available_agents"), "{refused:?}");
    let wrong = server.post("/gatekeeper", gatekeeper_question(json!("billing"))).await;
    wrong.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
    let text =
        server.http.post(server.url("/gatekeeper")).header("content-type", "application/json").body("who next?").send().await.unwrap();
    Answer::read(text).await.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
}
