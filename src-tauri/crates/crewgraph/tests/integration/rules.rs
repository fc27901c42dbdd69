//! One focused test per rule of the run loop (DESIGN.md §4, §13): the order of the
//! checks, the handoff limit, parallel groups (timeouts under both `wait_for_all`
//! values, no `next_agent`), broadcast, each `on_no_signal` mode, a target gone at
//! run time, tools, pause and resume, cancellation, history trimming and loops.

use crewgraph_engine::run::{resume_run, CrewSource, EventKind, Message, RunStatus, RunStore};
use crewgraph_engine::{AgentId, RunId};
use crewgraph_llm::{Script, ScriptedLlm};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

use crate::runner::{crew, run, run_with};

/// Two agents that hand the work back and forth on [NEXT]; `a` may also end it (the
/// engine's run-loop tests run the same crew).
const PING_PONG: &str = include_str!("../../../engine/tests/fixtures/ping_pong.yaml");

fn script(replies: &[(&str, &[&str])]) -> String {
    let mut text = String::from("replies:\n");
    for (agent, lines) in replies {
        text.push_str(&format!("  {agent}:\n"));
        for line in *lines {
            text.push_str(&format!("    - {}\n", serde_json::to_string(line).unwrap()));
        }
    }
    text
}

fn finished(ran: &crate::runner::Ran) -> (RunStatus, Option<String>) {
    match &ran.events.last().expect("events").kind {
        EventKind::RunFinished { status, error, .. } => (*status, error.clone()),
        other => panic!("the last event is {other:?}, not run_finished"),
    }
}

#[tokio::test]
async fn terminate_is_checked_before_pause_and_route() {
    let crew = crew(PING_PONG);
    let ran = run(&crew, &script(&[("a", &["[NEXT] or [WAIT]? No: [DONE]"])]), "go").await;
    assert_eq!(ran.outcome.status, RunStatus::Terminated);
    assert_eq!(ran.outcome.handoffs, 0);
}

#[tokio::test]
async fn pause_is_checked_before_route() {
    let crew = crew(PING_PONG);
    let ran = run(&crew, &script(&[("a", &["[NEXT], but first: [WAIT]"])]), "go").await;
    assert_eq!(ran.outcome.status, RunStatus::Paused);
}

#[tokio::test]
async fn the_default_limit_of_5_allows_at_most_4_transfers() {
    let crew = crew(PING_PONG);
    let ran = run(&crew, &script(&[("a", &["[NEXT]"; 9]), ("b", &["[NEXT]"; 9])]), "go").await;
    assert_eq!(ran.outcome.status, RunStatus::MaxHandoffs);
    assert_eq!(ran.outcome.handoffs, 4, "the fifth transfer is refused");
    assert_eq!(ran.of("handoff").len(), 4);
    assert_eq!(ran.outcome.steps, 5, "the agent whose transfer was refused took its turn");
    assert_eq!(finished(&ran), (RunStatus::MaxHandoffs, None));
}

#[tokio::test]
async fn max_handoffs_counts_every_transfer_including_routes_to_itself() {
    let yaml = PING_PONG
        .replace("name: Ping pong", "name: Self\nmax_handoffs: 3")
        .replace("      - { signal: \"[NEXT]\", target: b }", "      - { signal: \"[NEXT]\", target: a }");
    let ran = run(&crew(&yaml), &script(&[("a", &["again [NEXT]", "and again [NEXT]", "more [NEXT]"])]), "go").await;
    assert_eq!((ran.outcome.status, ran.outcome.handoffs), (RunStatus::MaxHandoffs, 2));
}

const GROUP: &str = r#"
name: Group
entry_point: lead
signals:
  - { name: "[GO]", behavior: parallel }
agents:
  - { id: lead, name: Lead }
  - { id: fast, name: Fast }
  - { id: slow, name: Slow }
routing:
  signals:
    lead:
      - { signal: "[GO]", target: team }
      - { signal: "[DONE]", target: "" }
  parallel_groups:
    team:
      agents: [fast, slow]
      timeout: 200ms
      wait_for_all: WAIT
"#;

fn group_script(slow_ms: u64) -> String {
    format!(
        "replies:\n  lead: [\"Start [GO]\", \"All done [DONE]\"]\n  fast: [\"fast answer\"]\n  slow: [{{ content: \"slow answer arrives late\", delay_ms: {slow_ms} }}]\n"
    )
}

#[tokio::test]
async fn a_group_runs_its_members_and_goes_back_to_the_emitter_without_next_agent() {
    let ran = run(&crew(&GROUP.replace("WAIT", "true")), &group_script(0), "go").await;
    assert_eq!(ran.outcome.status, RunStatus::Terminated);
    let started: Vec<_> = ran.of("agent_started").iter().map(|e| serde_json::to_value(&e.kind).unwrap()["agent"].clone()).collect();
    assert_eq!(started, ["lead", "fast", "slow", "lead"], "back to the lead after the group");
    // The members' replies join the history as one message, in group order.
    let stored = ran.store.load_run(&ran.outcome.run_id).await.unwrap().unwrap();
    let joined = stored.history.iter().find(|m| m.content.starts_with("Fast:")).expect("the group's message");
    assert_eq!(joined.content, "Fast: fast answer\n\nSlow: slow answer arrives late");
    // The group and the move back count as one transfer.
    assert_eq!(ran.outcome.handoffs, 1);
}

#[tokio::test]
async fn wait_for_all_fails_the_run_when_a_member_times_out() {
    let ran = run(&crew(&GROUP.replace("WAIT", "true")), &group_script(5_000), "go").await;
    let (status, error) = finished(&ran);
    assert_eq!(status, RunStatus::Failed);
    assert!(error.unwrap().contains("'slow' of parallel group 'team' did not finish within 200ms"));
    let done = &ran.of("parallel_finished")[0].kind;
    assert_eq!(serde_json::to_value(done).unwrap()["timed_out"], serde_json::json!(["slow"]));
    // Every event up to the failure is stored.
    assert_eq!(ran.stored().await, ran.events);
}

#[tokio::test]
async fn a_person_typing_the_members_replies_takes_longer_than_the_group_timeout_and_the_run_goes_on() {
    // Regression (issue 16): the fractions exam in Simulate by hand failed "did not
    // finish within 30s" while the person typed. Typed replies are the person's time.
    let typed = crewgraph_llm::TypedReplies::new();
    let (deps, _store, _sink) = crate::runner::deps_with(Arc::new(typed.clone()));
    let crew = crew(&GROUP.replace("WAIT", "true"));
    let person = tokio::spawn({
        let typed = typed.clone();
        async move {
            typed.reply(&AgentId::from("lead"), "Start [GO]");
            tokio::time::sleep(std::time::Duration::from_millis(600)).await; // three times the group's 200 ms
            typed.reply(&AgentId::from("fast"), "fast answer");
            typed.reply(&AgentId::from("slow"), "slow answer");
            typed.reply(&AgentId::from("lead"), "All done [DONE]");
        }
    });
    let outcome = crewgraph_engine::run::start_run(&crew, &CrewSource::default(), "go", &deps, &CancellationToken::new()).await.unwrap();
    person.await.unwrap();
    assert_eq!(outcome.status, RunStatus::Terminated, "{:?}", outcome.error);
}

#[tokio::test]
async fn without_wait_for_all_the_run_goes_on_with_the_members_that_finished() {
    let ran = run(&crew(&GROUP.replace("WAIT", "false")), &group_script(5_000), "go").await;
    assert_eq!(ran.outcome.status, RunStatus::Terminated);
    let done = serde_json::to_value(&ran.of("parallel_finished")[0].kind).unwrap();
    assert_eq!((done["finished"].clone(), done["timed_out"].clone()), (serde_json::json!(["fast"]), serde_json::json!(["slow"])));
    let stored = ran.store.load_run(&ran.outcome.run_id).await.unwrap().unwrap();
    assert!(stored.history.iter().any(|m| m.content == "Fast: fast answer"), "only the finished member joins the history");
}

#[tokio::test]
async fn a_group_goes_to_its_next_agent_when_it_names_one() {
    let yaml = GROUP.replace("WAIT", "true").replace("      timeout: 200ms", "      timeout: 200ms\n      next_agent: fast");
    let ran = run(
        &crew(&yaml),
        &format!("{}  \n", group_script(0).replace("fast: [\"fast answer\"]", "fast: [\"fast answer\", \"after the group\"]")),
        "go",
    )
    .await;
    let agents: Vec<_> = ran.of("agent_started").iter().map(|e| serde_json::to_value(&e.kind).unwrap()["agent"].clone()).collect();
    assert_eq!(agents[3], "fast", "after the group the work goes to next_agent");
}

#[tokio::test]
async fn broadcast_runs_each_target_once_and_returns_to_the_emitter() {
    let yaml = r#"
name: Broadcast
entry_point: boss
signals:
  - { name: "[TELL]", behavior: broadcast }
agents:
  - { id: boss }
  - { id: x }
  - { id: y }
routing:
  signals:
    boss:
      - { signal: "[TELL]", target: [x, y] }
      - { signal: "[DONE]", target: "" }
"#;
    let ran =
        run(&crew(yaml), &script(&[("boss", &["news [TELL]", "thanks [DONE]"]), ("x", &["noted"]), ("y", &["noted too"])]), "go").await;
    let agents: Vec<_> = ran.of("agent_started").iter().map(|e| serde_json::to_value(&e.kind).unwrap()["agent"].clone()).collect();
    assert_eq!(agents, ["boss", "x", "y", "boss"]);
    // Regression: a target without a signal fell back to another agent as if it routed on.
    assert_eq!((ran.outcome.status, ran.outcome.handoffs), (RunStatus::Terminated, 1));
}

#[tokio::test]
async fn a_broadcast_target_whose_signal_routes_on_takes_the_run_with_it() {
    let yaml = r#"
name: Broadcast
entry_point: boss
signals:
  - { name: "[TELL]", behavior: broadcast }
agents:
  - { id: boss }
  - { id: x }
  - { id: y, is_terminal: true }
routing:
  signals:
    boss:
      - { signal: "[TELL]", target: [x] }
    x:
      - { signal: "[NEXT]", target: y }
"#;
    let ran = run(&crew(yaml), &script(&[("boss", &["news [TELL]"]), ("x", &["over to y [NEXT]"]), ("y", &["done"])]), "go").await;
    let agents: Vec<_> = ran.of("agent_started").iter().map(|e| serde_json::to_value(&e.kind).unwrap()["agent"].clone()).collect();
    assert_eq!(agents, ["boss", "x", "y"]);
    assert_eq!((ran.outcome.status, ran.outcome.handoffs), (RunStatus::Completed, 2));
}

const NO_SIGNAL: &str = r#"
name: Quiet
entry_point: a
signals: []
agents:
  - { id: a, handoff_targets: [c] }
  - { id: b }
  - { id: c, is_terminal: true }
routing:
  on_no_signal: MODE
  signals:
    a:
      - { signal: "[NEXT]", target: b }
"#;

#[tokio::test]
async fn fallback_goes_to_the_handoff_target_and_says_why() {
    let ran = run(&crew(&NO_SIGNAL.replace("MODE", "fallback")), &script(&[("a", &["no signal"]), ("c", &["finished"])]), "go").await;
    assert_eq!(ran.outcome.status, RunStatus::Completed);
    let handoff = serde_json::to_value(&ran.of("handoff")[0].kind).unwrap();
    assert_eq!(handoff["to"], "c");
    assert!(handoff["reason"].as_str().unwrap().contains("fallback"));
}

#[tokio::test]
async fn reprompt_reminds_the_agent_and_gives_up_after_three_replies_without_a_signal() {
    let ran = run(&crew(&NO_SIGNAL.replace("MODE", "reprompt")), &script(&[("a", &["hm", "hm?", "hmm"])]), "go").await;
    assert_eq!(ran.outcome.status, RunStatus::SignalFailure);
    assert_eq!(ran.outcome.steps, 3);
    let stored = ran.store.load_run(&ran.outcome.run_id).await.unwrap().unwrap();
    let reminders = stored.history.iter().filter(|m| m.content.contains("did not end with a signal")).count();
    assert_eq!(reminders, 2, "asked again twice, then the third miss ends the run");
}

#[tokio::test]
async fn a_signal_after_a_reprompt_resets_the_strikes() {
    let ran =
        run(&crew(&NO_SIGNAL.replace("MODE", "reprompt")), &script(&[("a", &["hm", "hm?", "[NEXT]"]), ("b", &["[NEXT]"])]), "go").await;
    assert_eq!(ran.of("handoff").len(), 1, "the third reply had its signal");
}

#[tokio::test]
async fn on_no_signal_pause_and_end() {
    let paused = run(&crew(&NO_SIGNAL.replace("MODE", "pause")), &script(&[("a", &["hm"])]), "go").await;
    assert_eq!(paused.outcome.status, RunStatus::Paused);
    let ended = run(&crew(&NO_SIGNAL.replace("MODE", "end")), &script(&[("a", &["hm"])]), "go").await;
    assert_eq!(ended.outcome.status, RunStatus::NoRoute);
}

#[tokio::test]
async fn a_target_gone_at_run_time_is_a_warning_and_counts_as_no_match() {
    let mut crew = crew(&NO_SIGNAL.replace("MODE", "fallback"));
    crew.agents.retain(|a| a.id != "b");
    let ran = run(&crew, &script(&[("a", &["[NEXT]"]), ("c", &["done"])]), "go").await;
    let warning = serde_json::to_value(&ran.of("warning")[0].kind).unwrap();
    assert!(warning["message"].as_str().unwrap().contains("does not exist now"));
    assert_eq!(serde_json::to_value(&ran.of("handoff")[0].kind).unwrap()["to"], "c", "so the fallback applies");
}

#[tokio::test]
async fn tool_calls_run_and_an_unknown_tool_answers_with_an_error_and_a_warning() {
    let yaml = "name: Tools\nentry_point: a\nagents:\n  - { id: a, tools: [calculator], is_terminal: true }\n";
    let script = r#"replies:
  a:
    - { content: "Working.", tool_calls: [{ name: calculator, arguments: { expression: "2 * 21" } }, { name: teleport, arguments: {} }] }
    - "The answer is 42."
"#;
    let ran = run(&crew(yaml), script, "go").await;
    assert_eq!(ran.outcome.status, RunStatus::Completed);
    let results: Vec<_> = ran.of("tool_result").iter().map(|e| serde_json::to_value(&e.kind).unwrap()["result"].clone()).collect();
    assert_eq!(results[0], "42");
    assert!(results[1].as_str().unwrap().starts_with("error: unknown tool 'teleport'"));
    assert!(serde_json::to_value(&ran.of("warning")[0].kind).unwrap()["message"].as_str().unwrap().contains("teleport"));
    assert_eq!(ran.outcome.steps, 1, "tool rounds are part of one turn");
}

#[tokio::test]
async fn a_calculator_call_nested_thousands_deep_answers_the_agent_and_the_run_goes_on() {
    // A model's arguments alone used to overflow the worker's stack and abort the process.
    let yaml = "name: Tools\nentry_point: a\nagents:\n  - { id: a, tools: [calculator], is_terminal: true }\n";
    let deep = format!("{}1{}", "(-".repeat(3_000), ")".repeat(3_000));
    let huge = "9*".repeat(20_000) + "9";
    let script = format!(
        "replies:\n  a:\n    - {{ content: \"Working.\", tool_calls: [{{ name: calculator, arguments: {{ expression: \"{deep}\" }} }}, {{ name: calculator, arguments: {{ expression: \"{huge}\" }} }}] }}\n    - \"Done.\"\n"
    );
    let ran = run(&crew(yaml), &script, "go").await;
    assert_eq!(ran.outcome.status, RunStatus::Completed);
    let results: Vec<_> = ran.of("tool_result").iter().map(|e| serde_json::to_value(&e.kind).unwrap()["result"].clone()).collect();
    assert_eq!(results[0], "1");
    assert!(results[1].as_str().unwrap().contains("too long to calculate"), "{}", results[1]);
}

#[tokio::test]
async fn a_panic_inside_a_run_fails_that_run_with_its_events_kept() {
    struct Defective;
    #[async_trait::async_trait]
    impl crewgraph_engine::run::LlmClient for Defective {
        async fn complete(
            &self,
            _: &crewgraph_engine::run::LlmRequest<'_>,
            _: crewgraph_engine::run::TokenSink<'_>,
            _: &CancellationToken,
        ) -> Result<crewgraph_engine::run::LlmReply, crewgraph_engine::run::LlmError> {
            panic!("a defect in a provider")
        }
    }
    let (deps, store, sink) = crate::runner::deps_with(Arc::new(Defective));
    let source = CrewSource { path: None, fingerprint: "test".into() };
    let outcome = crewgraph_engine::run::start_run(&crew(PING_PONG), &source, "go", &deps, &CancellationToken::new()).await.unwrap();
    assert_eq!(outcome.status, RunStatus::Failed);
    let error = outcome.error.unwrap();
    assert!(error.contains("a defect in a provider") && error.contains("please report it"), "{error}");
    let stored = store.events(&outcome.run_id, None).await.unwrap();
    assert_eq!(stored.len(), sink.events().len(), "every event is kept");
    assert!(matches!(stored.last().unwrap().kind, EventKind::RunFinished { status: RunStatus::Failed, .. }));
    assert_eq!(stored.iter().map(|e| e.seq).collect::<Vec<_>>(), (0..stored.len() as u64).collect::<Vec<_>>());
}

#[tokio::test]
async fn a_paused_run_resumes_with_the_answer_in_its_history() {
    let crew = crew(PING_PONG);
    let ran = run(&crew, &script(&[("a", &["Which colour? [WAIT]"])]), "paint").await;
    assert_eq!(ran.outcome.status, RunStatus::Paused);
    let mut deps = ran.deps.clone();
    let more = Script::parse("more.yaml", &script(&[("a", &["Blue it is. [DONE]"])])).unwrap();
    deps.llm = Arc::new(ScriptedLlm::new(&more));
    let source = CrewSource { path: None, fingerprint: "test".into() };
    let id = ran.outcome.run_id.clone();
    let outcome = resume_run(&crew, &source, &id, Some("blue"), &deps, &CancellationToken::new()).await.unwrap();
    assert_eq!(outcome.status, RunStatus::Terminated);
    let stored = ran.store.load_run(&id).await.unwrap().unwrap();
    let contents: Vec<&str> = stored.history.iter().map(|m: &Message| m.content.as_str()).collect();
    assert_eq!(contents, ["paint", "Which colour? [WAIT]", "blue", "Blue it is. [DONE]"]);
    let events = ran.store.events(&id, None).await.unwrap();
    assert!(events.iter().any(|e| matches!(&e.kind, EventKind::Resumed { agent, input } if agent == "a" && input == "blue")));
    // Resuming a run that is not paused is refused.
    let again = resume_run(&crew, &source, &id, Some("x"), &deps, &CancellationToken::new()).await;
    assert!(again.unwrap_err().to_string().contains("is terminated and cannot be resumed"));
    let missing = resume_run(&crew, &source, &RunId::from("nope"), Some("x"), &deps, &CancellationToken::new()).await;
    assert!(missing.unwrap_err().to_string().contains("there is no run 'nope'"));
}

#[tokio::test]
async fn a_changed_crew_is_noted_when_a_run_resumes() {
    let crew = crew(PING_PONG);
    let ran = run(&crew, &script(&[("a", &["[WAIT]"])]), "go").await;
    let mut deps = ran.deps.clone();
    deps.llm = Arc::new(ScriptedLlm::new(&Script::parse("s.yaml", &script(&[("a", &["[DONE]"])])).unwrap()));
    let changed = CrewSource { path: None, fingerprint: "edited".into() };
    resume_run(&crew, &changed, &ran.outcome.run_id, Some("ok"), &deps, &CancellationToken::new()).await.unwrap();
    let events = ran.store.events(&ran.outcome.run_id, None).await.unwrap();
    assert!(events.iter().any(|e| matches!(&e.kind, EventKind::Warning { message } if message.contains("the crew changed"))));
}

#[tokio::test]
async fn cancelling_mid_reply_ends_the_run_cancelled_with_its_events_stored() {
    let crew = crew(PING_PONG);
    let slow = "replies:\n  a: [\"[NEXT]\"]\n  b: [{ content: \"a very slow reply indeed\", delay_ms: 60000 }]\n";
    let cancel = CancellationToken::new();
    let stop = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        stop.cancel();
    });
    let ran = run_with(&crew, slow, "go", &cancel).await;
    assert_eq!(ran.outcome.status, RunStatus::Cancelled);
    assert_eq!(ran.stored().await, ran.events, "every event up to the cancellation is stored");
    assert_eq!(ran.types().last(), Some(&"run_finished"));
}

#[tokio::test]
async fn a_script_that_runs_out_fails_the_run_naming_the_agent() {
    let ran = run(&crew(PING_PONG), &script(&[("a", &["[NEXT]"]), ("b", &["[NEXT]"])]), "go").await;
    let (status, error) = finished(&ran);
    assert_eq!(status, RunStatus::Failed);
    assert_eq!(error.as_deref(), Some("agent 'a': the script has no reply left for agent 'a'"));
    assert_eq!(ran.stored().await, ran.events);
}

#[tokio::test]
async fn a_long_history_is_trimmed_to_the_agents_budget_and_the_run_says_so() {
    let yaml = PING_PONG.replace("  - { id: b, name: B }", "  - { id: b, name: B, context_budget: 30 }");
    let long = "word ".repeat(40);
    let ran = run(
        &crew(&yaml),
        &script(&[("a", &[&format!("{long}[NEXT]"), &format!("{long}[NEXT]"), "[DONE]"]), ("b", &[&format!("{long}[NEXT]"), "[NEXT]"])]),
        "go",
    )
    .await;
    let trimmed = ran.of("history_trimmed");
    assert!(!trimmed.is_empty(), "b's budget of 30 tokens cannot hold the history");
    assert_eq!(serde_json::to_value(&trimmed[0].kind).unwrap()["agent"], "b");
}

#[tokio::test]
async fn a_loop_of_the_same_replies_is_reported_and_stopped_with_on_loop_stop() {
    let yaml = PING_PONG.replace("name: Ping pong", "name: Loop\nmax_handoffs: 20").replace("routing:\n", "routing:\n  on_loop: stop\n");
    let ran = run(&crew(&yaml), &script(&[("a", &["try again [NEXT]"; 6]), ("b", &["no [NEXT]"; 6])]), "go").await;
    assert_eq!(ran.outcome.status, RunStatus::LoopDetected);
    let found = serde_json::to_value(&ran.of("loop_detected")[0].kind).unwrap();
    assert_eq!(found["agents"], serde_json::json!(["a", "b"]));
    assert!(ran.outcome.handoffs < 19, "stopped long before the handoff budget ran out");
}

#[tokio::test]
async fn without_on_loop_stop_a_loop_is_only_reported() {
    let yaml = PING_PONG.replace("name: Ping pong", "name: Loop\nmax_handoffs: 8");
    let ran = run(&crew(&yaml), &script(&[("a", &["try again [NEXT]"; 6]), ("b", &["no [NEXT]"; 6])]), "go").await;
    assert!(!ran.of("loop_detected").is_empty());
    assert_eq!(ran.outcome.status, RunStatus::MaxHandoffs);
}

#[tokio::test]
async fn signal_instructions_are_appended_to_the_prompt_under_the_signals_strategy() {
    use crewgraph_engine::run::prompt::system_prompt;
    let crew = crew(PING_PONG);
    let prompt = system_prompt(&crew, "a");
    for signal in ["[NEXT]", "[DONE]", "[WAIT]"] {
        assert!(prompt.contains(signal), "{prompt}");
    }
    assert!(prompt.contains("hands the work to B"));
    let _ = AgentId::from("a");
}
