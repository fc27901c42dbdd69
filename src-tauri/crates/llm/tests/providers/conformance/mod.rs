//! One conformance suite for the engine's `LlmClient` seam (STYLE.md habit 12): every
//! provider is one [`Subject`] and goes through the same [`Case`] list — a plain
//! reply, a streamed one, a tool call round trip, structured output, cancellation,
//! `Retry-After`, a stream cut short. A subject declares every case, in the order of
//! the list, in its [`conformance!`] line: a case that cannot apply to it is written
//! with the reason (`retry_after: "…"`) and shows as an ignored test carrying that
//! reason, never as a pass; adding a case to the list breaks every line until each
//! subject declares it.
//!
//! The subjects:
//!
//! - [`wire`]: [`OpenAiClient`](crewgraph_llm::OpenAiClient) and
//!   [`AnthropicClient`](crewgraph_llm::AnthropicClient) over real HTTP against the
//!   fault server (`fault_server.rs`), which serves the answers each case scripts —
//!   so their replies are checked to the byte, and what they sent is checked too.
//!   [`wire_faults`] holds the HTTP faults both of them must survive, one list for both.
//! - [`real`]: the same two clients against a real llama-server (SmolLM2-135M), and
//!   the local model ([`LocalModel`](crewgraph_llm::LocalModel)); a real model's
//!   words vary, so its replies are checked for shape only.
//! - [`simulated`]: the scripted provider and typed replies.
//!
//! A subject [`prime`](Subject::prime)s a client for a case: with the case's answers
//! when it scripts its model ([`Primed::scripted`]), with worked examples to put
//! before the question when a small real model needs them ([`Primed::coaching`]).
//! The case then asks through the `LlmClient` trait only and checks the outcome.
//!
//! To add a provider: write its subject (a unit struct implementing [`Subject`]) in
//! the module of its kind, and one `conformance!` line declaring the seven cases.

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use crewgraph_engine::run::history::Visible;
use crewgraph_engine::run::{LlmClient, LlmError, LlmReply, LlmRequest, Message, OutputSchema, ToolCall, ToolSpec};
use crewgraph_engine::AgentId;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use crate::fault_server::FaultServer;

pub mod real;
pub mod simulated;
pub mod wire;
pub mod wire_faults;

/// The cases every provider is held to, in the order a subject declares them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Case {
    /// A short question: text, no tool calls, usage when the provider reports it.
    Plain,
    /// A longer reply arrives in several pieces that add up to the reply.
    Streamed,
    /// A tool is called, its result is sent back, and the model answers in words.
    ToolCallRoundTrip,
    /// The answer is one JSON value that fits the schema asked for.
    StructuredOutput,
    /// Cancelled mid-reply, the call stops promptly and says `Cancelled`.
    Cancellation,
    /// A 429 with `Retry-After` is waited out, then the reply comes.
    RetryAfter,
    /// A stream that breaks off mid-reply fails in words, after the pieces that came.
    CutStream,
}

/// One line per subject: its module name, the subject, and every case in the list's
/// order, each either bare (it applies) or with the reason it cannot.
macro_rules! conformance {
    ($module:ident = $subject:expr;
     plain $(: $plain:literal)?,
     streamed $(: $streamed:literal)?,
     tool_call_round_trip $(: $tool:literal)?,
     structured_output $(: $structured:literal)?,
     cancellation $(: $cancellation:literal)?,
     retry_after $(: $retry:literal)?,
     cut_stream $(: $cut:literal)? $(,)?) => {
        mod $module {
            use super::*;
            conformance!(@case $subject, plain, Plain $(, $plain)?);
            conformance!(@case $subject, streamed, Streamed $(, $streamed)?);
            conformance!(@case $subject, tool_call_round_trip, ToolCallRoundTrip $(, $tool)?);
            conformance!(@case $subject, structured_output, StructuredOutput $(, $structured)?);
            conformance!(@case $subject, cancellation, Cancellation $(, $cancellation)?);
            conformance!(@case $subject, retry_after, RetryAfter $(, $retry)?);
            conformance!(@case $subject, cut_stream, CutStream $(, $cut)?);
        }
    };
    (@case $subject:expr, $name:ident, $case:ident) => {
        #[tokio::test]
        async fn $name() {
            $crate::conformance::check(&$subject, $crate::conformance::Case::$case).await;
        }
    };
    (@case $subject:expr, $name:ident, $case:ident, $reason:literal) => {
        #[test]
        #[ignore = $reason]
        fn $name() {
            // Not applicable to this provider, for the reason above: shown, never passed.
        }
    };
}
pub(crate) use conformance;

/// A provider under test.
#[async_trait]
pub trait Subject: Sync {
    /// A client for `case`, primed with the case's answers when it scripts them.
    async fn prime(&self, case: Case) -> Primed;

    /// The longest one case may take before it fails as hung.
    fn limit(&self) -> Duration {
        Duration::from_secs(10)
    }

    /// A runtime of its own that every case of the subject runs on, when its client
    /// must outlive one test's runtime (the local model's one server process and the
    /// connections to it); None = the test's own.
    fn home(&self) -> Option<&'static tokio::runtime::Runtime> {
        None
    }
}

/// A client ready for one case, and what the case should expect of it.
pub struct Primed {
    pub client: Arc<dyn LlmClient>,
    /// The answers are the case's own (checked to the letter), not a real model's
    /// (checked for shape).
    pub scripted: bool,
    /// The provider reports token usage.
    pub reports_usage: bool,
    /// Messages put before the case's question: worked examples a small model copies.
    pub coaching: Vec<Message>,
    /// The words a failure must contain (a cut stream's).
    pub failure_words: Option<String>,
    /// Cancellation: when no piece of the reply will come (nobody typed it), cancel
    /// after this long instead of at the first piece.
    pub cancel_after: Option<Duration>,
    /// For the fault server's subjects: the server, and how its protocol carries a
    /// tool's result back (the round trip is checked at the wire too).
    pub wire: Option<(Arc<FaultServer>, wire::Protocol)>,
}

impl Primed {
    /// A primed client with nothing else to say.
    pub fn new(client: Arc<dyn LlmClient>, scripted: bool) -> Primed {
        Primed { client, scripted, reports_usage: false, coaching: Vec::new(), failure_words: None, cancel_after: None, wire: None }
    }
}

// ---- What each case asks, and what a subject that scripts its model answers ----

pub const PLAIN_QUESTION: &str = "What colour is the sky on a clear day?";
pub const PLAIN_REPLY: &str = "The sky is blue.";
pub const STREAMED_QUESTION: &str = "Name three fruits and say something about each.";
pub const STREAMED_PIECES: [&str; 3] = ["Apples are crisp.", " Pears are sweet.", " Plums are tart."];
pub const TOOL_QUESTION: &str = "What is 2+3?";
pub const TOOL_EXPRESSION: &str = "2+3";
pub const TOOL_RESULT: &str = "5";
pub const TOOL_ANSWER: &str = "2+3 is 5.";
pub const STRUCTURED_QUESTION: &str = "The writer finished a draft. Who should go next, the editor or the writer?";
pub const STRUCTURED_NEXT: &str = "editor";
pub const STRUCTURED_REASON: &str = "the draft needs a review";
pub const CANCEL_QUESTION: &str = "Write a long story about a lighthouse keeper, with many chapters.";
pub const CUT_QUESTION: &str = "Tell me a story.";
pub const CUT_PIECES: [&str; 3] = ["Once", " upon", " a time"];
/// What of [`CUT_PIECES`] arrives before the cut.
pub const CUT_RECEIVED: &str = "Once upon";

/// The calculator tool, its expression short so a small model's call must end.
pub fn calculator() -> ToolSpec {
    ToolSpec {
        name: "calculator".into(),
        description: "Evaluates an arithmetic expression".into(),
        parameters: json!({
            "type": "object",
            "properties": {"expression": {"type": "string", "maxLength": 16}},
            "required": ["expression"],
        }),
    }
}

/// Who should speak next, as a structured answer.
pub fn decision_schema() -> OutputSchema {
    OutputSchema {
        name: "decision".into(),
        description: "Who speaks next, and why".into(),
        schema: json!({
            "type": "object",
            "properties": {
                "next": {"type": "string", "enum": ["editor", "writer"]},
                "reason": {"type": "string", "maxLength": 60},
            },
            "required": ["next", "reason"],
            "additionalProperties": false,
        }),
    }
}

/// The structured answer a scripted subject gives.
pub fn structured_answer() -> Value {
    json!({"next": STRUCTURED_NEXT, "reason": STRUCTURED_REASON})
}

/// `agent`'s message calling `call`, with no text.
pub fn calling(agent: &AgentId, call: &ToolCall) -> Message {
    let mut message = Message::agent(agent, "");
    message.tool_calls = vec![call.clone()];
    message
}

// ---- Asking ----

/// What one call returned, the pieces it passed to `on_token`, and when.
pub struct Outcome {
    pub result: Result<LlmReply, LlmError>,
    pub pieces: Vec<String>,
    pub took: Duration,
}

impl Outcome {
    pub fn reply(&self) -> &LlmReply {
        self.result.as_ref().unwrap_or_else(|e| panic!("expected a reply, got the error: {e}"))
    }

    /// The failure's text (panics on a reply or another kind of error).
    pub fn failure(&self) -> &str {
        match &self.result {
            Err(LlmError::Failed(text)) => text,
            other => panic!("expected a failure, got {other:?}"),
        }
    }
}

/// Calls `client` with `request`, collecting the pieces.
pub async fn ask(client: &dyn LlmClient, request: &LlmRequest<'_>, cancel: &CancellationToken) -> Outcome {
    let pieces = Mutex::new(Vec::new());
    let on_token = |piece: &str| pieces.lock().expect("the pieces").push(piece.to_owned());
    let started = Instant::now();
    let result = client.complete(request, &on_token, cancel).await;
    Outcome { result, pieces: pieces.into_inner().expect("the pieces"), took: started.elapsed() }
}

/// Runs `case` against `subject` within the subject's limit, on its home runtime
/// when it has one (a failure there fails the test as if it happened here).
pub async fn check<S: Subject + 'static>(subject: &'static S, case: Case) {
    match subject.home() {
        Some(home) => {
            if let Err(failed) = home.spawn(run_case(subject, case)).await {
                std::panic::resume_unwind(failed.into_panic());
            }
        }
        None => run_case(subject, case).await,
    }
}

async fn run_case<S: Subject>(subject: &S, case: Case) {
    let primed = subject.prime(case).await;
    let run = async {
        match case {
            Case::Plain => plain(&primed).await,
            Case::Streamed => streamed(&primed).await,
            Case::ToolCallRoundTrip => tool_call_round_trip(&primed).await,
            Case::StructuredOutput => structured_output(&primed).await,
            Case::Cancellation => cancellation(&primed).await,
            Case::RetryAfter => retry_after(&primed).await,
            Case::CutStream => cut_stream(&primed).await,
        }
    };
    bounded(subject.limit(), run).await;
}

/// Runs `future`, failing when it takes longer than `limit` (a hang fails, too).
pub async fn bounded<F: Future>(limit: Duration, future: F) -> F::Output {
    tokio::time::timeout(limit, future).await.unwrap_or_else(|_| panic!("the case did not end within {limit:?}"))
}

/// A history of `primed`'s coaching, then `question`.
fn history(primed: &Primed, question: &str) -> Vec<Message> {
    let mut history = primed.coaching.clone();
    history.push(Message::user(question));
    history
}

/// A failure said in words: a sentence, with none of the HTTP client's internals.
pub fn assert_in_words(error: &str) {
    assert!(error.split_whitespace().count() >= 4, "a sentence, not a code: {error:?}");
    for internal in ["reqwest", "hyper", "Error {", "Kind(", "io::Error", "Os {"] {
        assert!(!error.contains(internal), "no client internals ({internal}): {error}");
    }
}

// ---- The cases ----

async fn plain(primed: &Primed) {
    let agent = AgentId::from("writer");
    let history = history(primed, PLAIN_QUESTION);
    let request = LlmRequest::new(&agent, "Answer in one short sentence.", Visible::all(&history));
    let outcome = ask(primed.client.as_ref(), &request, &CancellationToken::new()).await;
    let reply = outcome.reply();
    assert!(!reply.content.trim().is_empty(), "{reply:?}");
    assert!(reply.tool_calls.is_empty(), "{reply:?}");
    assert_eq!(outcome.pieces.concat(), reply.content, "what streamed is the reply");
    if primed.scripted {
        assert_eq!(reply.content, PLAIN_REPLY);
    }
    if primed.reports_usage {
        let usage = reply.usage.unwrap_or_else(|| panic!("usage is reported: {reply:?}"));
        assert!(usage.input_tokens > 0 && usage.output_tokens > 0, "{usage:?}");
    } else {
        assert_eq!(reply.usage, None, "a provider without usage claims none");
    }
}

async fn streamed(primed: &Primed) {
    let agent = AgentId::from("writer");
    let history = history(primed, STREAMED_QUESTION);
    let request = LlmRequest::new(&agent, "You are a helpful assistant.", Visible::all(&history));
    let outcome = ask(primed.client.as_ref(), &request, &CancellationToken::new()).await;
    let reply = outcome.reply();
    assert!(outcome.pieces.len() >= 3, "several pieces: {:?}", outcome.pieces);
    assert!(outcome.pieces.iter().all(|p| !p.is_empty()), "no empty piece: {:?}", outcome.pieces);
    assert_eq!(outcome.pieces.concat(), reply.content, "the pieces add up to the reply");
    if primed.scripted {
        assert_eq!(reply.content, STREAMED_PIECES.concat());
    }
}

async fn tool_call_round_trip(primed: &Primed) {
    let agent = AgentId::from("accountant");
    let tools = [calculator()];
    let history = history(primed, TOOL_QUESTION);
    let system = "You answer every question with the calculator tool.";
    let request = LlmRequest { tools: &tools, temperature: Some(0.0), ..LlmRequest::new(&agent, system, Visible::all(&history)) };
    let cancel = CancellationToken::new();
    let first = ask(primed.client.as_ref(), &request, &cancel).await;
    let first = first.reply();
    assert_eq!(first.tool_calls.len(), 1, "one tool call: {first:?}");
    let call = &first.tool_calls[0];
    assert_eq!(call.name, "calculator");
    assert!(!call.id.is_empty(), "the call has an id to answer it by");
    assert!(call.arguments.is_object(), "{:?}", call.arguments);
    if primed.scripted {
        assert_eq!(call.arguments, json!({"expression": TOOL_EXPRESSION}));
    }
    if primed.reports_usage {
        assert!(first.usage.is_some_and(|u| u.output_tokens > 0), "a turn that only calls a tool still reports usage: {first:?}");
    }

    let mut answered = history.clone();
    let mut asked = Message::agent(&agent, first.content.clone());
    asked.tool_calls = first.tool_calls.clone();
    answered.push(asked);
    answered.push(Message::tool(&agent, call, TOOL_RESULT));
    let request = LlmRequest { messages: Visible::all(&answered), ..request };
    let second = ask(primed.client.as_ref(), &request, &cancel).await;
    let reply = second.reply();
    assert!(!reply.content.trim().is_empty(), "a text answer after the tool's result: {reply:?}");
    assert!(reply.tool_calls.is_empty(), "{reply:?}");
    if primed.scripted {
        assert_eq!(reply.content, TOOL_ANSWER);
    }
    if let Some((server, protocol)) = &primed.wire {
        let requests = server.requests();
        assert_eq!(requests.len(), 2, "one request per turn");
        assert_eq!(
            protocol.tool_result(&requests[1].json(), &call.id).as_deref(),
            Some(TOOL_RESULT),
            "the result went back under the call's id"
        );
    }
}

async fn structured_output(primed: &Primed) {
    let agent = AgentId::from("router");
    let schema = decision_schema();
    let history = history(primed, STRUCTURED_QUESTION);
    let request = LlmRequest {
        schema: Some(&schema),
        temperature: Some(0.0),
        ..LlmRequest::new(&agent, "Decide who speaks next.", Visible::all(&history))
    };
    let outcome = ask(primed.client.as_ref(), &request, &CancellationToken::new()).await;
    let reply = outcome.reply();
    assert!(reply.tool_calls.is_empty(), "the answer is the text, not a call: {reply:?}");
    let answer: Value = serde_json::from_str(&reply.content).unwrap_or_else(|e| panic!("the answer is not JSON ({e}): {}", reply.content));
    let next = answer["next"].as_str().unwrap_or_else(|| panic!("no 'next' in {answer}"));
    assert!(["editor", "writer"].contains(&next), "{answer}");
    assert!(answer["reason"].is_string(), "{answer}");
    assert_eq!(answer.as_object().map(|o| o.len()), Some(2), "no property the schema does not allow: {answer}");
    if primed.scripted {
        assert_eq!(answer, structured_answer());
    }
}

async fn cancellation(primed: &Primed) {
    let agent = AgentId::from("writer");
    let history = history(primed, CANCEL_QUESTION);
    let request = LlmRequest::new(&agent, "You write long stories.", Visible::all(&history));
    let cancel = CancellationToken::new();
    let cancelled_at = Arc::new(Mutex::new(None::<Instant>));
    let stop = |at: &Mutex<Option<Instant>>| {
        at.lock().expect("the moment").get_or_insert_with(Instant::now);
        cancel.cancel();
    };
    if let Some(after) = primed.cancel_after {
        let (cancel, at) = (cancel.clone(), cancelled_at.clone());
        tokio::spawn(async move {
            tokio::time::sleep(after).await;
            at.lock().expect("the moment").get_or_insert_with(Instant::now);
            cancel.cancel();
        });
    }
    let on_token = |_: &str| stop(&cancelled_at);
    let result = primed.client.complete(&request, &on_token, &cancel).await;
    let returned = Instant::now();
    assert_eq!(result, Err(LlmError::Cancelled), "a cancelled call says so");
    assert_eq!(LlmError::Cancelled.to_string(), "cancelled");
    let cancelled_at = cancelled_at.lock().expect("the moment").expect("the call was cancelled (a first piece came, or the wait ended)");
    let lag = returned - cancelled_at;
    assert!(lag < Duration::from_secs(2), "returned {lag:?} after the cancellation");
}

async fn retry_after(primed: &Primed) {
    let agent = AgentId::from("writer");
    let history = history(primed, PLAIN_QUESTION);
    let request = LlmRequest::new(&agent, "Answer in one short sentence.", Visible::all(&history));
    let outcome = ask(primed.client.as_ref(), &request, &CancellationToken::new()).await;
    assert_eq!(outcome.reply().content, PLAIN_REPLY);
    // The backoff alone is ~10 ms: the second try waited for the server's 1 s.
    assert!(outcome.took >= Duration::from_millis(950), "retried after {:?}", outcome.took);
    if let Some((server, _)) = &primed.wire {
        assert_eq!(server.requests().len(), 2, "asked to wait, then asked again");
    }
}

async fn cut_stream(primed: &Primed) {
    let agent = AgentId::from("writer");
    let history = history(primed, CUT_QUESTION);
    let request = LlmRequest::new(&agent, "Tell stories.", Visible::all(&history));
    let outcome = ask(primed.client.as_ref(), &request, &CancellationToken::new()).await;
    let error = outcome.failure();
    assert_in_words(error);
    if let Some(words) = &primed.failure_words {
        assert!(error.contains(words.as_str()), "{words:?} in: {error}");
    }
    assert_eq!(outcome.pieces.concat(), CUT_RECEIVED, "the text before the cut reached on_token");
    if let Some((server, _)) = &primed.wire {
        assert_eq!(server.requests().len(), 1, "a broken stream is not retried (its text was already shown)");
    }
}
