//! The fuzz targets' bodies: one function per target, each taking the fuzzer's bytes
//! and asserting what must hold for any input. The same file is the library of the
//! `fuzz/` crate (whose `fuzz_targets/*.rs` are one-line `fuzz_target!` wrappers)
//! and a module of crewgraph's integration tests (`tests/integration/fuzz_corpora.rs`
//! includes it with `#[path]`), which runs every committed corpus and regression
//! input through it: the fuzzer and `make test` check exactly the same code.
//!
//! What each target reads, in the order a run meets it:
//!
//! - [`loader`]: a crew file's YAML ([`crewgraph_engine::load_str`]) — a crew or
//!   problems, every one inside the text; a valid crew draws as a graph.
//! - [`matcher`]: `signal\ncontent`, as `crewgraph match` takes them — the level
//!   found is the best level a plain reading of DESIGN.md §3 finds.
//! - [`script`]: a Simulate script ([`crewgraph_llm::Script::parse`]), played back
//!   by the scripted model.
//! - [`calculator`]: the `calculator` tool's expression.
//! - [`openai_stream`] and [`anthropic_stream`]: a provider's streamed body (its
//!   server-sent events, cut into network reads as the first byte says), read the
//!   way the providers' `send` reads it — the reply's text is exactly the tokens
//!   streamed.
//! - [`router_answer`] and [`gatekeeper_answer`]: a routing decision as the router
//!   model or the gatekeeper service gives it, parsed and checked against a crew.
//! - [`recording`]: a run recording's JSON ([`crewgraph::api::read_recording`]) — a
//!   recording read back is written and read again unchanged.
//!
//! ```no_run
//! // fuzz/fuzz_targets/calculator.rs
//! // libfuzzer_sys::fuzz_target!(|data: &[u8]| crewgraph_fuzz::calculator(data));
//! crewgraph_fuzz::calculator(b"(1 + 2) * 3");
//! ```

use std::convert::Infallible;
use std::sync::{Arc, Mutex, OnceLock};

use async_trait::async_trait;
use crewgraph_engine::routing::decider::{check, DecideError, Decision, DecisionContext, Next, RouteDecider};
use crewgraph_engine::routing::llm::LlmRouter;
use crewgraph_engine::run::history::Visible;
use crewgraph_engine::run::{LlmClient, LlmError, LlmReply, LlmRequest, TokenSink, ToolSpec};
use crewgraph_engine::signal::name::{fold, inner, normalize};
use crewgraph_engine::signal::registry::builtins;
use crewgraph_engine::signal::{Behavior, MatchLevel, SignalDef, SignalMatcher, SignalOrigin, SignalRegistry};
use crewgraph_engine::{AgentId, Crew};
use crewgraph_llm::http::{provider_message, Limits, Transport};
use eventsource_stream::Eventsource;
use futures_util::{FutureExt, StreamExt};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

/// A crew file: loaded from text, it gives a crew or problems (never a panic), and
/// every problem's line and column lie inside the text. A valid crew draws as a
/// graph, and scanning the text itself with its matcher finds signals inside it.
pub fn loader(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let loaded = crewgraph_engine::load_str("crew.yaml", &text);
    for diagnostic in &loaded.diagnostics {
        if let Some(location) = &diagnostic.location {
            assert_eq!(location.file, "crew.yaml", "{diagnostic:?}");
            assert_inside(&text, location.line as usize, location.column as usize, &diagnostic.message);
        }
    }
    assert!(loaded.crew.is_some() || loaded.errors().next().is_some(), "no crew and no error");
    if let Some(crew) = loaded.crew.as_ref().filter(|_| loaded.is_valid()) {
        let view = crewgraph_engine::graph::CrewGraph::build(crew).view(crew);
        for edge in &view.edges {
            for end in [&edge.source, &edge.target] {
                assert!(view.nodes.iter().any(|n| &n.id == end), "edge {} ends at {end}, which is not drawn", edge.id);
            }
        }
        for found in crew.matcher.scan(&text).iter() {
            assert!(found.start <= found.end && text.get(found.start..found.end).is_some(), "{found:?} is not inside the text");
        }
    }
}

/// `crewgraph match`: the first line is the signal, the rest the reply. The level
/// reported is the best one found by reading DESIGN.md §3 plainly — every bracket
/// span of the reply compared with the signal exactly, case-folded and normalized —
/// and the crew matcher (every built-in signal compiled with it) agrees.
pub fn matcher(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let (signal, content) = text.split_once('\n').unwrap_or((&text, ""));
    let Ok(result) = crewgraph::api::match_signal(signal, content) else {
        assert!(!crewgraph_engine::signal::name::is_bracket_name(signal), "{signal:?} is a signal, yet refused");
        return;
    };
    let expected = plain_level(signal, content);
    assert_eq!(result.level, expected, "signal {signal:?} in {content:?}");
    assert_eq!(result.matched, expected != MatchLevel::None);
    if result.level == MatchLevel::Exact {
        assert!(content.contains(signal));
    }

    let mut registry = SignalRegistry::new();
    for def in builtins() {
        registry.insert(def);
    }
    let index = match registry.lookup(signal) {
        Some(index) => index,
        None => registry.insert(SignalDef::new(signal, Behavior::Route, SignalOrigin::Declared)).expect("a new name is inserted"),
    };
    let scanned = SignalMatcher::new(&registry).scan(content);
    let level = scanned.get(index).map_or(MatchLevel::None, |m| m.level);
    if registry.get(index).origin == SignalOrigin::Declared {
        assert_eq!(level, expected, "the crew matcher and `crewgraph match` disagree on {signal:?} in {content:?}");
    }
    for found in scanned.iter() {
        assert!(content.get(found.start..found.end).is_some(), "{found:?} is not inside the reply");
    }
}

/// DESIGN.md §3 read plainly: the best level over every bracket span (`[`, then the
/// next `]` with no bracket between).
fn plain_level(signal: &str, content: &str) -> MatchLevel {
    let (folded, normalized) = (fold(signal), normalize(inner(signal)));
    let mut best = MatchLevel::None;
    let bytes = content.as_bytes();
    for (start, _) in content.match_indices('[') {
        let Some(offset) = bytes[start + 1..].iter().position(|&b| b == b'[' || b == b']') else { break };
        let end = start + 1 + offset;
        if bytes[end] != b']' {
            continue;
        }
        let span = &content[start..=end];
        let level = if span == signal {
            MatchLevel::Exact
        } else if fold(span) == folded {
            MatchLevel::CaseInsensitive
        } else if normalize(inner(span)) == normalized {
            MatchLevel::Normalized
        } else {
            MatchLevel::None
        };
        best = best.min(level);
    }
    best
}

/// A Simulate script: parsed or refused at a line and column inside the text; a
/// parsed one plays back: each agent's replies (the example crew's agents, the
/// router, and any other the script names) until none is left, every reply that
/// streams at once being exactly its tokens. A reply with a delay is polled once,
/// which starts its wait, and dropped.
pub fn script(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let script = match crewgraph_llm::Script::parse("script.yaml", &text) {
        Ok(script) => script,
        Err(error) => {
            assert_eq!(error.file, "script.yaml");
            assert_inside(&text, error.line, error.column, &error.message);
            return;
        }
    };
    let mut agents: Vec<String> = exam().agents.iter().map(|a| a.id.to_string()).collect();
    agents.push(crewgraph_engine::routing::llm::ROUTER_AGENT.into());
    if let Err(errors) = script.check(exam()) {
        for error in errors {
            assert_inside(&text, error.line, error.column, &error.message);
            let named = error.message.split('\'').nth(1).expect("the error names the agent");
            agents.push(named.to_owned());
        }
    }
    let model = crewgraph_llm::ScriptedLlm::new(&script);
    let _time = runtime().enter();
    for agent in agents.iter().map(|a| AgentId::from(a.as_str())) {
        for _ in 0..MAX_REPLIES {
            let tokens = Mutex::new(String::new());
            let on_token: TokenSink<'_> = &|piece: &str| tokens.lock().expect("one thread").push_str(piece);
            let request = LlmRequest::new(&agent, "", Visible::all(&[]));
            match model.complete(&request, on_token, &CancellationToken::new()).now_or_never() {
                None => {} // waiting out its delay_ms
                Some(Ok(reply)) => assert_eq!(reply.content, *tokens.lock().expect("one thread"), "streamed otherwise than written"),
                Some(Err(LlmError::NoScriptFor(_) | LlmError::ScriptExhausted(_))) => break,
                Some(Err(error)) => assert!(!error.to_string().is_empty()),
            }
        }
    }
}

/// The most replies of one agent a script target plays.
const MAX_REPLIES: usize = 64;

/// The `calculator` tool: a value written as a number that reads back as itself, or
/// a reason in words.
pub fn calculator(data: &[u8]) {
    let expression = String::from_utf8_lossy(data);
    match crewgraph_engine::run::calculator::calculate(&expression) {
        Ok(value) => {
            let number: f64 = value.parse().unwrap_or_else(|e| panic!("{expression:?} gave {value:?}, not a number: {e}"));
            assert!(number.is_finite(), "{expression:?} gave {value:?}");
            assert_eq!(
                crewgraph_engine::run::calculator::calculate(&value).as_deref(),
                Ok(value.as_str()),
                "the value of {expression:?} does not read back as itself"
            );
        }
        Err(why) => assert!(!why.trim().is_empty(), "{expression:?} refused without a reason"),
    }
}

/// An OpenAI-compatible `chat/completions` stream, read as `OpenAiClient::send`
/// reads it: the reply's text is exactly the tokens streamed, and every tool call
/// has a name and JSON arguments.
pub fn openai_stream(data: &[u8]) {
    let tokens = Mutex::new(String::new());
    let on_token: TokenSink<'_> = &|piece: &str| tokens.lock().expect("one thread").push_str(piece);
    let mut reply = crewgraph_llm::openai::Reply::default();
    let read = read_events(data, |event| {
        if event.data.trim() == "[DONE]" {
            return Ok(false);
        }
        if event.data.trim().is_empty() {
            return Ok(true);
        }
        let chunk: Value = serde_json::from_str(&event.data).map_err(|e| e.to_string())?;
        if chunk.get("error").is_some() {
            return Err(provider_message(&event.data));
        }
        reply.take(&chunk, on_token);
        Ok(true)
    });
    if read.is_ok() {
        check_reply(reply.finish_into(transport()), &tokens.lock().expect("one thread"), None);
    }
}

/// An Anthropic Messages stream, read as `AnthropicClient::complete` reads it; the
/// first byte's lowest bit asks for a structured answer (a forced tool), whose input
/// is then the reply's text.
pub fn anthropic_stream(data: &[u8]) {
    const SCHEMA: &str = "route_decision";
    let structured = data.first().is_some_and(|b| b & 1 == 1).then_some(SCHEMA);
    let tokens = Mutex::new(String::new());
    let on_token: TokenSink<'_> = &|piece: &str| tokens.lock().expect("one thread").push_str(piece);
    let mut reply = crewgraph_llm::anthropic::Reply::default();
    let read = read_events(data, |event| {
        if event.data.trim().is_empty() {
            return Ok(true);
        }
        let data: Value = serde_json::from_str(&event.data).map_err(|e| e.to_string())?;
        let kind = if event.event.is_empty() || event.event == "message" { data["type"].as_str().unwrap_or("") } else { &event.event };
        match kind {
            "error" => Err(provider_message(&event.data)),
            "message_stop" => Ok(false),
            _ => {
                reply.take(kind, &data, on_token);
                Ok(true)
            }
        }
    });
    if read.is_ok() {
        check_reply(reply.finish_into(transport(), structured), &tokens.lock().expect("one thread"), structured);
    }
}

/// A router model's answer, through the `llm` strategy's own decider: a decision
/// that parses is well formed, and checking it against the crew names one of its
/// agents (never the supervisor) or says why not.
pub fn router_answer(data: &[u8]) {
    let answer = String::from_utf8_lossy(data).into_owned();
    let router = LlmRouter::new(Arc::new(Answering(answer.clone())), None);
    let decided = router
        .decide(&context(), None, &CancellationToken::new())
        .now_or_never()
        .expect("a router whose model answers at once decides at once");
    check_decision(&answer, decided, router_crew());
}

/// A gatekeeper service's answer: its body's bytes read as the gatekeeper client
/// reads them (lossy UTF-8), parsed and checked as the router's.
pub fn gatekeeper_answer(data: &[u8]) {
    let answer = String::from_utf8_lossy(data).into_owned();
    let decided = crewgraph_engine::routing::decider::parse(&answer);
    check_decision(&answer, decided, gatekeeper_crew());
}

/// What the local model writes when it is offered tools (`tool_json::read`): at most
/// one call, of a tool that was offered, with an object of arguments and no words
/// beside it; otherwise words (an answer, or the text as it came).
pub fn tool_json(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let tools = [
        ToolSpec {
            name: "clock__get_current_time".into(),
            description: "The time".into(),
            parameters: serde_json::json!({"type": "object", "properties": {"timezone": {"type": "string"}}, "required": ["timezone"]}),
        },
        ToolSpec { name: "calculator".into(), description: "Arithmetic".into(), parameters: serde_json::json!({"type": "object"}) },
    ];
    let (content, calls) = crewgraph_llm::tool_json::read(&text, &tools, "call_local_1");
    assert!(calls.len() <= 1, "one call at most: {calls:?}");
    for call in &calls {
        assert!(tools.iter().any(|t| t.name == call.name), "a tool that was not offered: {}", call.name);
        assert!(call.arguments.is_object(), "arguments are an object: {}", call.arguments);
        assert_eq!(call.id, "call_local_1");
        assert!(content.is_empty(), "a call comes without words: {content:?}");
    }
}

/// A run recording: read whole or refused in words; one read back is written as
/// Export writes it and reads again as the same recording.
pub fn recording(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    match crewgraph::api::read_recording("run.json", &text) {
        Ok(recording) => {
            assert!(!recording.events.is_empty());
            let written = serde_json::to_string_pretty(&recording).expect("a recording encodes as JSON");
            let again = crewgraph::api::read_recording("run.json", &written)
                .unwrap_or_else(|e| panic!("a recording written back is refused: {e:?}"));
            assert_eq!(again, recording, "a recording changes when written and read again");
        }
        Err(error) => assert!(error.message.starts_with("'run.json' "), "{}", error.message),
    }
}

// ---- shared checks and fixtures ----

/// `line:column` (from 1, column in characters) points into `text` or just past
/// the end of a line. Lines end as YAML ends them: `\n`, `\r\n` or `\r`.
fn assert_inside(text: &str, line: usize, column: usize, what: &str) {
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let lines: Vec<&str> = text.split('\n').collect();
    assert!(line >= 1 && line <= lines.len(), "'{what}' at line {line}, but the text has {} lines", lines.len());
    let width = lines[line - 1].chars().count();
    assert!(column >= 1 && column <= width + 1, "'{what}' at {line}:{column}, but line {line} has {width} characters");
}

/// Feeds a body of server-sent events to `on_event` the way a provider reads its
/// stream: in network reads of the size the first byte's upper seven bits say (0 =
/// the body in one read), until `on_event` says stop (`Ok(false)`) or fails, or the
/// body ends.
fn read_events(data: &[u8], mut on_event: impl FnMut(&eventsource_stream::Event) -> Result<bool, String>) -> Result<(), String> {
    let (first, body) = data.split_first().map_or((0, data), |(&first, body)| (first, body));
    let read_size = match usize::from(first >> 1) {
        0 => body.len().max(1),
        size => size,
    };
    let reads = body.chunks(read_size).map(|read| Ok::<Vec<u8>, Infallible>(read.to_vec()));
    let mut events = futures_util::stream::iter(reads).eventsource();
    while let Some(event) = events.next().now_or_never().expect("a body in memory is read at once") {
        let event = event.map_err(|e| e.to_string())?;
        if !on_event(&event)? {
            break;
        }
    }
    Ok(())
}

/// What every provider's reply must be: its text the tokens streamed (or, when
/// structured, the forced tool's input as JSON), its tool calls named with JSON
/// arguments and ids.
fn check_reply(reply: Result<LlmReply, LlmError>, tokens: &str, structured: Option<&str>) {
    match reply {
        Ok(reply) => {
            match structured {
                None => assert_eq!(reply.content, tokens, "the reply is not the tokens streamed"),
                Some(_) => {
                    serde_json::from_str::<Value>(&reply.content).expect("a structured answer is JSON");
                }
            }
            for call in &reply.tool_calls {
                assert!(!call.name.is_empty() && !call.id.is_empty(), "{call:?}");
                assert!(Some(call.name.as_str()) != structured, "the forced tool is the answer, not a call");
            }
        }
        Err(error) => assert!(!error.to_string().is_empty()),
    }
}

/// A parsed decision is well formed, and checking it names an agent of the crew.
fn check_decision(answer: &str, decided: Result<Decision, DecideError>, crew: &Crew) {
    match decided {
        Ok(decision) => {
            assert_eq!(decision.raw, answer, "the raw answer is kept as it came");
            for text in [&decision.reasoning, &decision.next_agent, &decision.next_instruction].into_iter().flatten() {
                assert!(!text.is_empty() && text.trim() == text, "{text:?} is kept untrimmed or empty");
            }
            if !decision.workflow_complete {
                assert!(decision.next_agent.is_some() && decision.next_instruction.is_some(), "{decision:?}");
            }
            match check(crew, &decision) {
                Ok(Next::Complete) => assert!(decision.workflow_complete),
                Ok(Next::Agent { agent, instruction }) => {
                    assert!(crew.agent(agent.as_str()).is_some() && agent != crew.entry_point, "{agent} cannot be routed to");
                    assert_eq!(Some(instruction), decision.next_instruction);
                }
                Err(why) => assert!(!why.is_empty()),
            }
        }
        Err(DecideError::Invalid { raw, problem }) => {
            assert_eq!(raw, answer, "the raw answer is kept as it came");
            assert!(!problem.is_empty());
        }
        Err(other) => panic!("an answer in hand cannot make {other:?}"),
    }
}

/// A model that answers every request with the same text, at once.
struct Answering(String);

#[async_trait]
impl LlmClient for Answering {
    async fn complete(&self, _: &LlmRequest<'_>, _: TokenSink<'_>, _: &CancellationToken) -> Result<LlmReply, LlmError> {
        Ok(LlmReply { content: self.0.clone(), tool_calls: Vec::new(), usage: None })
    }
}

/// The situation a router decides on: the lead planned, the writer and editor wait.
fn context() -> DecisionContext {
    let crew = router_crew();
    DecisionContext {
        original_query: "A polished note on bees".into(),
        workflow_history: Vec::new(),
        current_agent: AgentId::from("lead"),
        current_output: "Plan: research, then write.".into(),
        available_agents: crewgraph_engine::routing::decider::catalog(crew),
        iteration: 1,
        max_iterations: 10,
    }
}

/// A crew of the example crews, to check scripts against.
fn exam() -> &'static Crew {
    static CREW: OnceLock<Crew> = OnceLock::new();
    CREW.get_or_init(|| crew(include_str!("../../crews/exam.yaml")))
}

fn router_crew() -> &'static Crew {
    static CREW: OnceLock<Crew> = OnceLock::new();
    CREW.get_or_init(|| crew(&desk("routing: { strategy: llm }")))
}

fn gatekeeper_crew() -> &'static Crew {
    static CREW: OnceLock<Crew> = OnceLock::new();
    CREW.get_or_init(|| crew(&desk("routing: { strategy: gatekeeper, gatekeeper: { url: \"http://127.0.0.1:9/decide\" } }")))
}

/// The note desk of the routing tests, under `routing`.
fn desk(routing: &str) -> String {
    format!(
        "name: Note desk\nentry_point: lead\n{routing}\nagents:\n  - {{ id: lead, name: Lead, role: Plans the work }}\n  \
         - {{ id: writer, name: Writer, role: Writes short notes, tags: [prose] }}\n  \
         - {{ id: editor, name: Editor, role: Polishes notes, tags: [editing] }}\n"
    )
}

fn crew(yaml: &str) -> Crew {
    let loaded = crewgraph_engine::load_str("crew.yaml", yaml);
    assert!(loaded.is_valid(), "{:#?}", loaded.diagnostics);
    loaded.crew.expect("a valid crew")
}

/// A runtime with a clock, for the scripted model's waits; made once.
fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| tokio::runtime::Builder::new_current_thread().enable_time().build().expect("a runtime"))
}

/// The transport errors name; made once (it sets up an HTTP client).
fn transport() -> &'static Transport {
    static TRANSPORT: OnceLock<Transport> = OnceLock::new();
    TRANSPORT.get_or_init(|| Transport::new("fuzz".into(), Limits::default()).expect("an HTTP client"))
}
