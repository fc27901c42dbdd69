//! The tables beside the runs — crew revisions, runtime agents, settings — with
//! the same promises as the SQLite store's (`crewgraph-store`'s `sqlite_tables`
//! tests), and what several programs sharing one database add: saves of one crew
//! at once take turns.

use crewgraph_engine::ids::{AgentId, RunId};
use crewgraph_engine::run::{CrewRevision, NewCrewRevision, RunRecord, RunSnapshot, RunStore, StepRecord, Timestamp};
use crewgraph_store_postgres::{testing, PostgresStore};
use serde_json::json;

async fn store(test: &str) -> PostgresStore {
    let url = testing::shared().database(test).await.unwrap();
    PostgresStore::connect(&url).await.unwrap()
}

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
    let store = store("revisions_again").await;
    let quiz = "crews/quiz.yaml";
    assert_eq!(store.save_crew_revision(&version(quiz, "A", 10)).await, Ok(1));
    assert_eq!(store.save_crew_revision(&version(quiz, "A", 20)).await, Ok(1), "same fingerprint, same revision");
    assert_eq!(store.save_crew_revision(&version(quiz, "B", 30)).await, Ok(2));
    assert_eq!(store.save_crew_revision(&version(quiz, "A", 40)).await, Ok(1), "back to A is A's revision");
    assert_eq!(store.save_crew_revision(&version(quiz, "C", 50)).await, Ok(3));
    let expected = |revision, yaml: &str, saved_at| CrewRevision {
        revision,
        name: format!("crew of {quiz}"),
        yaml: yaml.into(),
        fingerprint: format!("fp:{yaml}"),
        saved_at: Timestamp(saved_at),
    };
    assert_eq!(store.crew_revisions(quiz).await.unwrap(), vec![expected(1, "A", 10), expected(2, "B", 30), expected(3, "C", 50)]);
}

#[tokio::test]
async fn revisions_are_numbered_per_crew() {
    let store = store("revisions_per_crew").await;
    assert_eq!(store.save_crew_revision(&version("crews/a.yaml", "A", 1)).await, Ok(1));
    assert_eq!(store.save_crew_revision(&version("crews/b.yaml", "A", 2)).await, Ok(1), "the same text in another crew");
    assert_eq!(store.save_crew_revision(&version("crews/b.yaml", "B", 3)).await, Ok(2));
    assert_eq!(store.crew_revisions("crews/a.yaml").await.unwrap().len(), 1);
    assert!(store.crew_revisions("crews/never.yaml").await.unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn saves_of_one_crew_at_once_take_turns() {
    let store = std::sync::Arc::new(store("revisions_at_once").await);
    // Ten programs save ten texts, each twice, all at once.
    let saves: Vec<_> = (0..20)
        .map(|i| {
            let store = store.clone();
            tokio::spawn(async move { store.save_crew_revision(&version("crews/busy.yaml", &format!("text {}", i % 10), i)).await })
        })
        .collect();
    for save in saves {
        save.await.unwrap().unwrap();
    }
    let revisions = store.crew_revisions("crews/busy.yaml").await.unwrap();
    let numbers: Vec<u32> = revisions.iter().map(|r| r.revision).collect();
    assert_eq!(numbers, (1..=10).collect::<Vec<_>>(), "one revision per text, numbered without gaps or repeats");
}

#[tokio::test]
async fn a_run_lists_the_revision_of_its_crew_it_ran() {
    let store = store("run_revision").await;
    store.save_crew_revision(&version("crews/desk.yaml", "one", 1)).await.unwrap();
    store.save_crew_revision(&version("crews/desk.yaml", "two", 2)).await.unwrap();
    for (id, fingerprint, path) in
        [("run-2", "fp:two", "crews/desk.yaml"), ("run-x", "fp:never", "crews/desk.yaml"), ("run-o", "fp:one", "crews/other.yaml")]
    {
        let record = RunRecord {
            id: RunId::from(id),
            crew_name: "Desk".into(),
            crew_path: Some(path.into()),
            crew_fingerprint: fingerprint.into(),
            input: "hi".into(),
            created_at: Timestamp(1),
            forked_from: None,
        };
        let first = StepRecord {
            run_id: record.id.clone(),
            events: Vec::new(),
            history: Vec::new(),
            snapshot: RunSnapshot::starting(AgentId::from("a"), Timestamp(1)),
            contexts: Vec::new(),
            options: None,
        };
        store.create_run(&record, &first).await.unwrap();
    }
    let runs = store.list_runs().await.unwrap();
    let revision = |id: &str| runs.iter().find(|r| r.id.as_str() == id).unwrap().crew_revision;
    assert_eq!(revision("run-2"), Some(2), "the revision with the run's fingerprint");
    assert_eq!(revision("run-x"), None, "a version never kept as a revision");
    assert_eq!(revision("run-o"), None, "the same fingerprint in another crew is not this run's");
}

#[tokio::test]
async fn runtime_agents_are_kept_per_crew_in_the_order_first_added() {
    let store = store("runtime_agents").await;
    let crew = "crews/quiz.yaml";
    for (id, prompt) in [("writer", "Write."), ("critic", "Criticise."), ("editor", "Edit.")] {
        store.put_runtime_agent(crew, &AgentId::from(id), &json!({"id": id, "prompt": prompt})).await.unwrap();
    }
    store.put_runtime_agent("crews/other.yaml", &AgentId::from("writer"), &json!({"other": true})).await.unwrap();
    // Replacing an agent keeps its place.
    store.put_runtime_agent(crew, &AgentId::from("writer"), &json!({"id": "writer", "prompt": "Write more."})).await.unwrap();

    let agents = store.runtime_agents(crew).await.unwrap();
    let ids: Vec<&str> = agents.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, ["writer", "critic", "editor"]);
    assert_eq!(agents[0].1, json!({"id": "writer", "prompt": "Write more."}));

    assert_eq!(store.remove_runtime_agent(crew, &AgentId::from("critic")).await, Ok(true));
    assert_eq!(store.remove_runtime_agent(crew, &AgentId::from("critic")).await, Ok(false), "already gone");
    assert_eq!(store.remove_runtime_agent("crews/never.yaml", &AgentId::from("writer")).await, Ok(false));
    let ids: Vec<String> = store.runtime_agents(crew).await.unwrap().into_iter().map(|(id, _)| id.to_string()).collect();
    assert_eq!(ids, ["writer", "editor"]);
    assert_eq!(store.runtime_agents("crews/other.yaml").await.unwrap().len(), 1, "other crews keep theirs");
    assert!(store.runtime_agents("crews/never.yaml").await.unwrap().is_empty());
}

#[tokio::test]
async fn settings_hold_any_json_value_and_the_last_one_set_wins() {
    let url = testing::shared().database("settings").await.unwrap();
    {
        let store = PostgresStore::connect(&url).await.unwrap();
        assert_eq!(store.setting("model").await, Ok(None));
        store.set_setting("model", &json!("gpt-4o-mini")).await.unwrap();
        store.set_setting("model", &json!("claude")).await.unwrap();
        store.set_setting("limits", &json!({"handoffs": 5, "tools": [1, 2.5, null], "note": "nul \u{0} kept"})).await.unwrap();
    }
    let store = PostgresStore::connect(&url).await.unwrap();
    assert_eq!(store.setting("model").await, Ok(Some(json!("claude"))));
    assert_eq!(store.setting("limits").await, Ok(Some(json!({"handoffs": 5, "tools": [1, 2.5, null], "note": "nul \u{0} kept"}))));
    assert_eq!(store.setting("never").await, Ok(None));
}
