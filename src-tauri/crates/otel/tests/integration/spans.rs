//! The fold of a run's events into spans, without a collector: the tree, names,
//! attributes, statuses, times, and what content capture adds.

use crewgraph_engine::run::{EventKind, RunEvent, RunStatus, Timestamp, Usage};
use crewgraph_engine::signal::{Behavior, MatchLevel};
use crewgraph_engine::{AgentId, RunId, SignalName};
use crewgraph_otel::{trace_id_of, AgentFacts, CrewFacts, RunSpans};
use opentelemetry::trace::{SpanId, Status};
use opentelemetry::Value;
use opentelemetry_sdk::trace::SpanData;

pub(crate) fn facts() -> CrewFacts {
    let agent =
        |id: &str, name: &str| AgentFacts { id: id.into(), name: name.into(), model: "gpt-4o-mini".into(), provider: "openai".into() };
    CrewFacts { name: "Exam".into(), agents: vec![agent("teacher", "Teacher"), agent("student", "Student")] }
}

pub(crate) fn at(kinds: Vec<(u64, EventKind)>) -> Vec<RunEvent> {
    kinds
        .into_iter()
        .enumerate()
        .map(|(seq, (ms, kind))| RunEvent {
            kind,
            run_id: RunId::from("run-7"),
            seq: seq as u64,
            timestamp: Timestamp(1_800_000_000_000 + ms),
        })
        .collect()
}

fn fold(events: &[RunEvent], capture: bool) -> Vec<SpanData> {
    let mut spans = RunSpans::new(&facts(), capture);
    let mut out = Vec::new();
    for event in events {
        spans.event(event, &mut |span| out.push(span));
    }
    spans.interrupt(&mut |span| out.push(span));
    out
}

fn attr<'a>(span: &'a SpanData, key: &str) -> Option<&'a Value> {
    span.attributes.iter().find(|kv| kv.key.as_str() == key).map(|kv| &kv.value)
}

fn named<'a>(spans: &'a [SpanData], name: &str) -> &'a SpanData {
    spans
        .iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("no span {name}: {:?}", spans.iter().map(|s| &s.name).collect::<Vec<_>>()))
}

pub(crate) fn exam() -> Vec<RunEvent> {
    let (teacher, student) = (AgentId::from("teacher"), AgentId::from("student"));
    at(vec![
        (0, EventKind::RunStarted { crew: "Exam".into(), input: "Start the exam".into() }),
        (1, EventKind::AgentStarted { agent: teacher.clone(), step: 1 }),
        (2, EventKind::ToolCall { agent: teacher.clone(), name: "calculator".into(), arguments: serde_json::json!({"expression": "6*7"}) }),
        (5, EventKind::ToolResult { agent: teacher.clone(), name: "calculator".into(), result: "42".into() }),
        (
            9,
            EventKind::AgentResponse {
                agent: teacher.clone(),
                content: "What is 6*7? [QUESTION]".into(),
                usage: Some(Usage { input_tokens: 120, output_tokens: 14, cost_usd: None }),
            },
        ),
        (
            9,
            EventKind::SignalMatched {
                agent: teacher.clone(),
                signal: SignalName::from("[QUESTION]"),
                level: MatchLevel::Exact,
                behavior: Behavior::Route,
                target: Some("student".into()),
                payload: None,
            },
        ),
        (
            10,
            EventKind::Handoff {
                from: teacher.clone(),
                to: "student".into(),
                reason: "signal [QUESTION] (exact)".into(),
                handoff_count: 1,
            },
        ),
        (11, EventKind::AgentStarted { agent: student.clone(), step: 2 }),
        (20, EventKind::AgentResponse { agent: student.clone(), content: "42 [END]".into(), usage: None }),
        (21, EventKind::RunFinished { status: RunStatus::Terminated, final_agent: Some(student), error: None, handoffs: 1, steps: 2 }),
    ])
}

#[test]
fn a_run_is_a_workflow_span_with_a_chat_span_per_turn_and_a_tool_span_inside_its_turn() {
    let spans = fold(&exam(), false);
    assert_eq!(spans.len(), 4, "the run, two turns, one tool call");
    let run = named(&spans, "invoke_workflow Exam");
    let teacher =
        spans.iter().find(|s| attr(s, "gen_ai.agent.name") == Some(&Value::from("Teacher")) && s.name == "chat gpt-4o-mini").unwrap();
    let tool = named(&spans, "execute_tool calculator");
    assert_eq!(run.parent_span_id, SpanId::INVALID, "the run is the root");
    assert_eq!(teacher.parent_span_id, run.span_context.span_id());
    assert_eq!(tool.parent_span_id, teacher.span_context.span_id(), "a tool call is inside the turn that asked for it");
    assert!(spans.iter().all(|s| s.span_context.trace_id() == trace_id_of("run-7")), "one trace per run");

    assert_eq!(attr(teacher, "gen_ai.operation.name"), Some(&Value::from("chat")));
    assert_eq!(attr(teacher, "gen_ai.request.model"), Some(&Value::from("gpt-4o-mini")));
    assert_eq!(attr(teacher, "gen_ai.provider.name"), Some(&Value::from("openai")));
    assert_eq!(attr(teacher, "gen_ai.usage.input_tokens"), Some(&Value::I64(120)));
    assert_eq!(attr(teacher, "gen_ai.usage.output_tokens"), Some(&Value::I64(14)));
    assert_eq!(attr(tool, "gen_ai.operation.name"), Some(&Value::from("execute_tool")));
    assert_eq!(attr(tool, "gen_ai.tool.name"), Some(&Value::from("calculator")));
    assert_eq!(attr(run, "crewgraph.run.status"), Some(&Value::from("terminated")));
    assert_eq!(run.status, Status::Ok);

    let handoff =
        teacher.events.iter().find(|e| e.name == "crewgraph.handoff").expect("the handoff is an event of the turn that handed off");
    let value = |key: &str| handoff.attributes.iter().find(|kv| kv.key.as_str() == key).map(|kv| kv.value.clone());
    assert_eq!(value("crewgraph.signal"), Some(Value::from("[QUESTION]")));
    assert_eq!(value("crewgraph.signal.level"), Some(Value::from("exact")));
    assert_eq!(value("crewgraph.handoff.reason"), Some(Value::from("signal [QUESTION] (exact)")));
    assert_eq!(value("crewgraph.handoff.to"), Some(Value::from("student")));
}

#[test]
fn span_times_are_the_events_own() {
    let spans = fold(&exam(), false);
    let ms = |t: std::time::SystemTime| t.duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64 - 1_800_000_000_000;
    let tool = named(&spans, "execute_tool calculator");
    assert_eq!((ms(tool.start_time), ms(tool.end_time)), (2, 5));
    let run = named(&spans, "invoke_workflow Exam");
    assert_eq!((ms(run.start_time), ms(run.end_time)), (0, 21));
    let teacher = spans.iter().find(|s| attr(s, "gen_ai.agent.id") == Some(&Value::from("teacher"))).unwrap();
    assert_eq!((ms(teacher.start_time), ms(teacher.end_time)), (1, 9), "a turn ends with its reply");
}

#[test]
fn the_same_events_make_the_same_spans() {
    let ids = |spans: Vec<SpanData>| spans.iter().map(|s| (s.span_context.span_id(), s.parent_span_id)).collect::<Vec<_>>();
    assert_eq!(ids(fold(&exam(), false)), ids(fold(&exam(), false)), "a stored run traced again is the same tree");
}

#[test]
fn prompt_and_reply_text_only_with_content_capture() {
    let without = fold(&exam(), false);
    let text_keys = ["gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.tool.call.arguments", "gen_ai.tool.call.result"];
    for span in &without {
        for key in text_keys {
            assert!(attr(span, key).is_none(), "{key} on {} without capture", span.name);
        }
        assert!(!format!("{:?}", span.attributes).contains("6*7"), "no reply text anywhere");
    }
    let with = fold(&exam(), true);
    let run = named(&with, "invoke_workflow Exam");
    assert!(attr(run, "gen_ai.input.messages").unwrap().as_str().contains("Start the exam"));
    let tool = named(&with, "execute_tool calculator");
    assert_eq!(attr(tool, "gen_ai.tool.call.result"), Some(&Value::from("42")));
    let student = with.iter().find(|s| attr(s, "gen_ai.agent.id") == Some(&Value::from("student"))).unwrap();
    assert!(attr(student, "gen_ai.output.messages").unwrap().as_str().contains("42 [END]"));
}

#[test]
fn a_failed_run_marks_its_run_and_its_unfinished_turn_as_errors() {
    let teacher = AgentId::from("teacher");
    let events = at(vec![
        (0, EventKind::RunStarted { crew: "Exam".into(), input: "go".into() }),
        (1, EventKind::AgentStarted { agent: teacher.clone(), step: 1 }),
        (2, EventKind::ToolCall { agent: teacher.clone(), name: "fetch".into(), arguments: serde_json::json!({}) }),
        (3, EventKind::ToolResult { agent: teacher.clone(), name: "fetch".into(), result: "error: nothing answers".into() }),
        (
            4,
            EventKind::RunFinished {
                status: RunStatus::Failed,
                final_agent: Some(teacher),
                error: Some("the model is down".into()),
                handoffs: 0,
                steps: 1,
            },
        ),
    ]);
    let spans = fold(&events, false);
    assert_eq!(named(&spans, "invoke_workflow Exam").status, Status::error("the model is down"));
    assert_eq!(named(&spans, "chat gpt-4o-mini").status, Status::error("the model is down"));
    assert_eq!(named(&spans, "execute_tool fetch").status, Status::error("nothing answers"), "a tool's error result");
}

#[test]
fn an_interrupted_leg_ends_its_open_spans_where_it_stood() {
    let events: Vec<RunEvent> = exam().into_iter().take(3).collect();
    let spans = fold(&events, false);
    assert_eq!(spans.len(), 3, "the tool call, the turn and the run, all ended");
    assert_eq!(attr(named(&spans, "invoke_workflow Exam"), "crewgraph.run.status"), Some(&Value::from("interrupted")));
}

#[test]
fn a_resumed_leg_is_a_second_root_in_the_same_trace() {
    let events = at(vec![
        (0, EventKind::Resumed { agent: AgentId::from("student"), input: "go on".into() }),
        (1, EventKind::RunFinished { status: RunStatus::Completed, final_agent: None, error: None, handoffs: 0, steps: 0 }),
    ]);
    let spans = fold(&events, false);
    let run = named(&spans, "invoke_workflow Exam");
    assert_eq!(attr(run, "crewgraph.run.leg"), Some(&Value::from("resume")));
    assert_eq!(run.span_context.trace_id(), trace_id_of("run-7"));
}
