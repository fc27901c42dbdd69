//! `POST /import/crewai`: a CrewAI project's files, uploaded as text, made into a
//! crew (nothing saved); a project that cannot be read refused in words, each error
//! at its `file:line:col`.

use reqwest::StatusCode;
use serde_json::json;

use super::TestServer;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crewai_project_uploaded_as_text_comes_back_as_a_crew_and_bad_ones_are_refused_in_words() {
    let server = TestServer::start().await;
    let agents = "researcher:\n  role: Researcher\n  goal: Find facts about {topic}\n  backstory: You dig.\n  tools: [SerperDevTool]\n";
    let tasks =
        "research_task:\n  description: Research {topic}.\n  expected_output: Ten facts.\n  agent: researcher\n  human_input: true\n";
    let request =
        json!({"files": [{"name": "config/agents.yaml", "text": agents}, {"name": "config/tasks.yaml", "text": tasks}], "name": "facts"});
    let answer = server.post("/import/crewai", request).await;
    assert_eq!(answer.status, StatusCode::OK, "{answer:?}");
    assert_eq!((answer.json["name"].as_str(), answer.json["file_name"].as_str()), (Some("Facts"), Some("facts.yaml")));
    assert_eq!(answer.json["process"], "sequential");
    assert_eq!(answer.json["inputs"], json!(["topic"]));
    assert_eq!(answer.json["spec"]["entry_point"], "researcher");
    let warning = &answer.json["warnings"][0];
    assert_eq!(
        (warning["location"]["file"].as_str(), warning["location"]["line"].as_u64(), warning["severity"].as_str()),
        (Some("config/agents.yaml"), Some(5), Some("warning"))
    );
    assert!(answer.json["yaml"].as_str().unwrap().contains("behavior: pause"), "{answer:?}");

    let unknown = server
        .post(
            "/import/crewai",
            json!({"files": [{"name": "agents.yaml", "text": agents}, {"name": "tasks.yaml", "text": "t:\n  agent: writer\n"}]}),
        )
        .await;
    unknown.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
    assert!(unknown.json["message"].as_str().unwrap().starts_with("tasks.yaml:2:10: error: task 't' is for agent 'writer'"), "{unknown:?}");
    let missing = server.post("/import/crewai", json!({"files": [{"name": "agents.yaml", "text": agents}]})).await;
    missing.assert_error(StatusCode::BAD_REQUEST, "invalid_input");
    assert!(missing.json["message"].as_str().unwrap().starts_with("no tasks.yaml among the files"), "{missing:?}");
}
