//! SQLite only: the typed methods of the tables beside the runs — crew revisions,
//! runtime agents, settings.

use crewgraph_engine::ids::AgentId;
use crewgraph_engine::run::Timestamp;
use crewgraph_store::{CrewRevision, NewCrewRevision};
use serde_json::json;

use crate::support::{open_sqlite, temp_dir};

fn version(path: &str, yaml: &str, saved_at: u64) -> NewCrewRevision {
    NewCrewRevision {
        path: path.into(),
        name: format!("crew of {path}"),
        yaml: yaml.into(),
        fingerprint: format!("fp:{yaml}"),
        saved_at: Timestamp(saved_at),
    }
}

#[tokio::test]
async fn a_crew_text_saved_again_keeps_its_revision_number() {
    let dir = temp_dir();
    let store = open_sqlite(&dir.path().join("crewgraph.db"));
    let quiz = "crews/quiz.yaml";
    assert_eq!(store.save_crew_revision(&version(quiz, "A", 10)).await, Ok(1));
    assert_eq!(store.save_crew_revision(&version(quiz, "A", 20)).await, Ok(1), "same fingerprint, same revision");
    assert_eq!(store.save_crew_revision(&version(quiz, "B", 30)).await, Ok(2));
    assert_eq!(store.save_crew_revision(&version(quiz, "A", 40)).await, Ok(1), "back to A is A's revision");
    assert_eq!(store.save_crew_revision(&version(quiz, "C", 50)).await, Ok(3));
    let revisions = store.crew_revisions(quiz).await.unwrap();
    let expected = |revision, yaml: &str, saved_at| CrewRevision {
        revision,
        name: format!("crew of {quiz}"),
        yaml: yaml.into(),
        fingerprint: format!("fp:{yaml}"),
        saved_at: Timestamp(saved_at),
    };
    assert_eq!(revisions, vec![expected(1, "A", 10), expected(2, "B", 30), expected(3, "C", 50)]);
}

#[tokio::test]
async fn revisions_are_numbered_per_crew() {
    let dir = temp_dir();
    let store = open_sqlite(&dir.path().join("crewgraph.db"));
    assert_eq!(store.save_crew_revision(&version("crews/a.yaml", "A", 1)).await, Ok(1));
    assert_eq!(store.save_crew_revision(&version("crews/b.yaml", "A", 2)).await, Ok(1), "the same text in another crew");
    assert_eq!(store.save_crew_revision(&version("crews/b.yaml", "B", 3)).await, Ok(2));
    assert_eq!(store.crew_revisions("crews/a.yaml").await.unwrap().len(), 1);
    assert!(store.crew_revisions("crews/never.yaml").await.unwrap().is_empty());
}

#[tokio::test]
async fn runtime_agents_are_kept_per_crew_in_the_order_first_added() {
    let dir = temp_dir();
    let store = open_sqlite(&dir.path().join("crewgraph.db"));
    let crew = "crews/quiz.yaml";
    for (id, prompt) in [("writer", "Write."), ("critic", "Criticise."), ("editor", "Edit.")] {
        store.put_runtime_agent(crew, &AgentId::from(id), &json!({"id": id, "prompt": prompt})).await.unwrap();
    }
    store.put_runtime_agent("crews/other.yaml", &AgentId::from("writer"), &json!({"other": true})).await.unwrap();
    // Replacing an agent keeps its place.
    store.put_runtime_agent(crew, &AgentId::from("writer"), &json!({"id": "writer", "prompt": "Write more."})).await.unwrap();

    let agents = store.runtime_agents(crew).await.unwrap();
    let ids: Vec<&str> = agents.iter().map(|a| a.id.as_str()).collect();
    assert_eq!(ids, ["writer", "critic", "editor"]);
    assert_eq!(agents[0].agent, json!({"id": "writer", "prompt": "Write more."}));

    assert_eq!(store.remove_runtime_agent(crew, &AgentId::from("critic")).await, Ok(true));
    assert_eq!(store.remove_runtime_agent(crew, &AgentId::from("critic")).await, Ok(false), "already gone");
    assert_eq!(store.remove_runtime_agent("crews/never.yaml", &AgentId::from("writer")).await, Ok(false));
    let ids: Vec<String> = store.runtime_agents(crew).await.unwrap().into_iter().map(|a| a.id.to_string()).collect();
    assert_eq!(ids, ["writer", "editor"]);
    assert_eq!(store.runtime_agents("crews/other.yaml").await.unwrap().len(), 1, "other crews keep theirs");
    assert!(store.runtime_agents("crews/never.yaml").await.unwrap().is_empty());
}

#[tokio::test]
async fn settings_hold_any_json_value_and_the_last_one_set_wins() {
    let dir = temp_dir();
    let path = dir.path().join("crewgraph.db");
    {
        let store = open_sqlite(&path);
        assert_eq!(store.setting("model").await, Ok(None));
        store.set_setting("model", &json!("gpt-4o-mini")).await.unwrap();
        store.set_setting("model", &json!("claude")).await.unwrap();
        store.set_setting("limits", &json!({"handoffs": 5, "tools": [1, 2.5, null]})).await.unwrap();
    }
    let store = open_sqlite(&path);
    assert_eq!(store.setting("model").await, Ok(Some(json!("claude"))));
    assert_eq!(store.setting("limits").await, Ok(Some(json!({"handoffs": 5, "tools": [1, 2.5, null]}))));
    assert_eq!(store.setting("never").await, Ok(None));
}
