//! One conformance suite for the engine's `RouteDecider` seam (STYLE.md habit 12):
//! the router model's decider ([`LlmRouter`], its answers from a script through a
//! recording model), the gatekeeper's ([`GatekeeperClient`], over HTTP against the
//! test gatekeeper of `gatekeeper.rs`) and the scripted gatekeeper of Simulate mode
//! ([`ScriptedGatekeeper`], its answers under a script's `gatekeeper:`) go through
//! the same cases — a good answer, a
//! complete one, an unknown agent or the supervisor (parsed, then refused by the
//! run's check), malformed answers (refused with the answer kept as it came), the
//! context and a refused answer reaching the backend, a backend that fails, one
//! that answers too late, and cancellation. Each decider is a [`Subject`] that
//! primes its backend with a [`Backend`] behaviour; a case that cannot apply to one
//! is declared with its reason in its `deciders!` line and shows as an ignored test.
//!
//! To add a decider: a subject here, and a `deciders!` line declaring every case.

use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use crewgraph::api::{GatekeeperClient, ScriptedGatekeeper};
use crewgraph_engine::routing::decider::{self, catalog, DecideError, DecisionContext, Next, Rejected, RouteDecider, WorkflowStep};
use crewgraph_engine::routing::llm::{LlmRouter, ROUTER_AGENT};
use crewgraph_engine::{AgentId, Crew};
use crewgraph_llm::scripted::GATEKEEPER;
use crewgraph_llm::{Script, ScriptedLlm};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::gatekeeper::{complete, route, Answer, Gatekeeper};
use crate::routed::{script, Recording};
use crate::runner::{crew, START};

/// The longest a case may take before it fails as hung.
const LIMIT: Duration = Duration::from_secs(30);

/// The crew every decision is about: a lead (the supervisor) and two agents.
const DESK: &str = r#"
name: Desk
entry_point: lead
routing: { strategy: llm }
agents:
  - { id: lead, name: Lead, role: Plans the work }
  - { id: writer, name: Writer, role: Writes short notes, tags: [prose] }
  - { id: editor, name: Editor, role: Polishes notes, tags: [editing] }
"#;

const REQUEST: &str = "A polished three-line note on bees";
const LEAD_SAID: &str = "Plan: the writer drafts, the editor polishes.";

/// What a decider's backend (the router model, the gatekeeper service) does with a request.
#[derive(Clone, Debug)]
pub enum Backend {
    /// Answers this text.
    Says(String),
    /// Fails (the provider's error, the service's 500).
    Fails,
    /// Answers only after the decider's own time limit.
    Late,
    /// Does not answer while the case lasts.
    Hangs,
}

/// A decider ready for one case.
pub struct Primed {
    decider: Arc<dyn RouteDecider>,
    /// What the decider sent its backend, one text per request.
    sent: Box<dyn Fn() -> Vec<String> + Send + Sync>,
    /// Words the failure of a [`Backend::Fails`] backend contains.
    failed_words: String,
}

/// A decider under test.
#[async_trait]
pub trait Subject: Sync {
    /// The decider, its backend behaving as `backend`.
    async fn prime(&self, backend: Backend) -> Primed;
}

/// [`LlmRouter`] asking the scripted model, as a Simulate run's router does.
pub struct RouterModel;

#[async_trait]
impl Subject for RouterModel {
    async fn prime(&self, backend: Backend) -> Primed {
        let reply = match backend {
            Backend::Says(text) => serde_json::to_string(&text).expect("text"),
            Backend::Fails => json!({"error": "the router model is unavailable"}).to_string(),
            Backend::Late | Backend::Hangs => json!({"content": "thinking very slowly", "delay_ms": 600_000}).to_string(),
        };
        // The script's one reply, written as JSON (which YAML reads as it is).
        let text = script(&[(ROUTER_AGENT, Vec::new())]) + &format!("    - {reply}\n");
        let model = Arc::new(Recording::new(ScriptedLlm::new(&Script::parse("router.yaml", &text).expect("the router's script"))));
        let asked = model.clone();
        Primed {
            decider: Arc::new(LlmRouter::new(model, None)),
            sent: Box::new(move || {
                let requests = asked.of(ROUTER_AGENT);
                requests.iter().map(|r| r.messages.iter().map(|m| m.content.as_str()).collect::<Vec<_>>().join("\n")).collect()
            }),
            failed_words: "scripted: the router model is unavailable".into(),
        }
    }
}

/// [`GatekeeperClient`] asking the test gatekeeper over HTTP, without retries.
pub struct GatekeeperService;

#[async_trait]
impl Subject for GatekeeperService {
    async fn prime(&self, backend: Backend) -> Primed {
        let timeout = match backend {
            Backend::Late => Duration::from_millis(300),
            _ => Duration::from_secs(60),
        };
        let gatekeeper = Gatekeeper::start(move |_, _| match &backend {
            Backend::Says(text) => Answer::ok(text.clone()),
            Backend::Fails => Answer { delay: Duration::ZERO, status: 500, body: "boom: database down".into() },
            Backend::Late => Answer { delay: Duration::from_secs(3), ..Answer::ok(complete()) },
            Backend::Hangs => Answer { delay: Duration::from_secs(120), ..Answer::ok(complete()) },
        });
        let config = crewgraph_engine::crew::Gatekeeper { url: gatekeeper.url.clone(), timeout, retries: 0, token_env: None };
        let client = GatekeeperClient::connect(&config).await.expect("a loopback gatekeeper connects");
        let failed_words = format!("{} answered 500 Internal Server Error: boom: database down (1 try)", gatekeeper.url);
        Primed {
            decider: Arc::new(client),
            sent: Box::new(move || gatekeeper.seen().into_iter().map(|seen| seen.body.to_string()).collect()),
            failed_words,
        }
    }
}

/// [`ScriptedGatekeeper`] answering from a script's `gatekeeper:` entries, as a
/// Simulate run of a gatekeeper crew does; what it was asked is kept as the JSON a
/// service would have been sent.
pub struct ScriptedService;

#[async_trait]
impl Subject for ScriptedService {
    async fn prime(&self, backend: Backend) -> Primed {
        let entry = match backend {
            Backend::Says(text) => serde_json::to_string(&text).expect("text"),
            Backend::Fails => json!({"error": "the gatekeeper is down"}).to_string(),
            Backend::Late | Backend::Hangs => json!({"content": complete(), "delay_ms": 600_000}).to_string(),
        };
        // The script's one answer, written as JSON (which YAML reads as it is).
        let text = script(&[(GATEKEEPER, Vec::new())]) + &format!("    - {entry}\n");
        let script = Script::parse("gatekeeper.yaml", &text).expect("the gatekeeper's script");
        let decider = Arc::new(ScriptedGatekeeper::from_script(&script).expect("the script answers for the gatekeeper"));
        let asked = decider.clone();
        Primed {
            decider,
            sent: Box::new(move || asked.asked().iter().map(ToString::to_string).collect()),
            failed_words: "scripted: the gatekeeper is down".into(),
        }
    }
}

/// One line per subject: its module name, the subject, and every case in order,
/// each bare (it applies) or with the reason it cannot.
macro_rules! deciders {
    ($module:ident = $subject:expr;
     good_answer $(: $good:literal)?,
     complete_answer $(: $complete:literal)?,
     unknown_agent $(: $unknown:literal)?,
     malformed_answers $(: $malformed:literal)?,
     context_and_refusal_reach_the_backend $(: $context:literal)?,
     failing_backend $(: $failing:literal)?,
     late_backend $(: $late:literal)?,
     cancellation $(: $cancel:literal)? $(,)?) => {
        mod $module {
            use super::*;
            deciders!(@case $subject, good_answer $(, $good)?);
            deciders!(@case $subject, complete_answer $(, $complete)?);
            deciders!(@case $subject, unknown_agent $(, $unknown)?);
            deciders!(@case $subject, malformed_answers $(, $malformed)?);
            deciders!(@case $subject, context_and_refusal_reach_the_backend $(, $context)?);
            deciders!(@case $subject, failing_backend $(, $failing)?);
            deciders!(@case $subject, late_backend $(, $late)?);
            deciders!(@case $subject, cancellation $(, $cancel)?);
        }
    };
    (@case $subject:expr, $case:ident) => {
        #[tokio::test]
        async fn $case() {
            tokio::time::timeout(LIMIT, super::$case(&$subject)).await.expect("the case did not end in time");
        }
    };
    (@case $subject:expr, $case:ident, $reason:literal) => {
        #[test]
        #[ignore = $reason]
        fn $case() {
            // Not applicable to this decider, for the reason above: shown, never passed.
        }
    };
}

fn desk() -> Crew {
    crew(DESK)
}

/// The decision after the lead's first turn.
fn context(crew: &Crew) -> DecisionContext {
    DecisionContext {
        original_query: REQUEST.into(),
        workflow_history: vec![WorkflowStep::new(&AgentId::from("lead"), LEAD_SAID, START)],
        current_agent: AgentId::from("lead"),
        current_output: LEAD_SAID.into(),
        available_agents: catalog(crew),
        iteration: 1,
        max_iterations: 10,
    }
}

/// Asks `subject`'s decider, its backend saying `answer`, for the first decision.
async fn decide_on(subject: &dyn Subject, answer: &str) -> Result<decider::Decision, DecideError> {
    let primed = subject.prime(Backend::Says(answer.to_owned())).await;
    primed.decider.decide(&context(&desk()), None, &CancellationToken::new()).await
}

async fn good_answer(subject: &dyn Subject) {
    let answer = route("writer", "Write a three-line note on bees.", "A draft comes first.");
    let decision = decide_on(subject, &answer).await.expect("a good answer is a decision");
    assert!(!decision.workflow_complete);
    assert_eq!(decision.next_agent.as_deref(), Some("writer"));
    assert_eq!(decision.next_instruction.as_deref(), Some("Write a three-line note on bees."));
    assert_eq!(decision.reasoning.as_deref(), Some("A draft comes first."));
    assert_eq!(decision.raw, answer, "the answer is kept as it came");
    assert_eq!(decision, decider::parse(&answer).unwrap(), "read as the shared parser reads it");
    let next = decider::check(&desk(), &decision);
    assert_eq!(next, Ok(Next::Agent { agent: AgentId::from("writer"), instruction: "Write a three-line note on bees.".into() }));
}

async fn complete_answer(subject: &dyn Subject) {
    let decision = decide_on(subject, &complete()).await.expect("a complete answer is a decision");
    assert!(decision.workflow_complete);
    assert_eq!(decider::check(&desk(), &decision), Ok(Next::Complete));
}

async fn unknown_agent(subject: &dyn Subject) {
    // Parsing takes any name; refusing one the crew does not have is the run's check.
    let judge = decide_on(subject, &route("judge", "Judge it.", "A judge should look.")).await.expect("it parses");
    let why = decider::check(&desk(), &judge).expect_err("judge is not in the crew");
    assert!(why.contains("'judge', which is not an agent of this crew (choose one of: writer, editor)"), "{why}");
    let lead = decide_on(subject, &route("lead", "Plan again.", "Back to the start.")).await.expect("it parses");
    let why = decider::check(&desk(), &lead).expect_err("the supervisor is never routed to");
    assert!(why.contains("'lead', the supervisor"), "{why}");
}

async fn malformed_answers(subject: &dyn Subject) {
    for answer in [
        "<html>busy</html>",
        "",
        "Sure! Next the editor.",
        "```json\n{\"workflow_complete\": true}\n```",
        "[1, 2]",
        r#"{"workflow_complete": "yes"}"#,
        r#"{"workflow_complete": false, "next_agent": "writer"}"#,
        r#"{"workflow_complete": false, "next_agent": 3, "next_instruction": "x"}"#,
    ] {
        let refused = decide_on(subject, answer).await;
        let expected = decider::parse(answer).expect_err("the answer is malformed");
        assert_eq!(refused, Err(expected), "{answer:?}: refused as the shared parser refuses it, the answer kept as it came");
    }
}

async fn context_and_refusal_reach_the_backend(subject: &dyn Subject) {
    let primed = subject.prime(Backend::Says(complete())).await;
    let refused = Rejected { raw: "Next: the judge".into(), problem: "the answer is not JSON (expected value at line 1 column 1)".into() };
    let decision = primed.decider.decide(&context(&desk()), Some(&refused), &CancellationToken::new()).await;
    assert!(decision.is_ok_and(|d| d.workflow_complete));
    let sent = (primed.sent)();
    assert_eq!(sent.len(), 1, "one request");
    for part in [REQUEST, LEAD_SAID, "writer", "editor", "Writes short notes", &refused.raw, &refused.problem] {
        assert!(sent[0].contains(part), "{part:?} reached the backend: {}", sent[0]);
    }
    assert!(!sent[0].contains("Plans the work"), "the supervisor is not offered: {}", sent[0]);
}

async fn failing_backend(subject: &dyn Subject) {
    let primed = subject.prime(Backend::Fails).await;
    match primed.decider.decide(&context(&desk()), None, &CancellationToken::new()).await {
        Err(DecideError::Unavailable(why)) => assert!(why.contains(&primed.failed_words), "{:?} in: {why}", primed.failed_words),
        other => panic!("a failing backend leaves the decider unavailable, got {other:?}"),
    }
}

async fn late_backend(subject: &dyn Subject) {
    let primed = subject.prime(Backend::Late).await;
    let started = Instant::now();
    match primed.decider.decide(&context(&desk()), None, &CancellationToken::new()).await {
        Err(DecideError::Unavailable(why)) => assert!(why.contains("did not answer within 300ms (1 try)"), "{why}"),
        other => panic!("a late backend leaves the decider unavailable, got {other:?}"),
    }
    assert!(started.elapsed() < Duration::from_secs(3), "it did not wait for the late answer: {:?}", started.elapsed());
}

async fn cancellation(subject: &dyn Subject) {
    let primed = subject.prime(Backend::Hangs).await;
    let cancel = CancellationToken::new();
    let context = context(&desk());
    let deciding = primed.decider.decide(&context, None, &cancel);
    tokio::pin!(deciding);
    // Cancelled once the backend has the request, while it thinks.
    let cancelled_at = loop {
        tokio::select! {
            early = &mut deciding => panic!("decided before it was cancelled: {early:?}"),
            _ = tokio::time::sleep(Duration::from_millis(10)) => {}
        }
        if !(primed.sent)().is_empty() {
            cancel.cancel();
            break Instant::now();
        }
    };
    assert_eq!(deciding.await, Err(DecideError::Cancelled));
    assert!(cancelled_at.elapsed() < Duration::from_secs(2), "it stopped {:?} after the cancellation", cancelled_at.elapsed());
}

deciders! { router_model = RouterModel;
    good_answer, complete_answer, unknown_agent, malformed_answers, context_and_refusal_reach_the_backend, failing_backend,
    late_backend: "the router model keeps no time limit of its own: its provider's limits are the LlmClient suite's (llm/tests/providers)",
    cancellation,
}

deciders! { gatekeeper = GatekeeperService;
    good_answer, complete_answer, unknown_agent, malformed_answers, context_and_refusal_reach_the_backend, failing_backend,
    late_backend, cancellation,
}

deciders! { scripted_gatekeeper = ScriptedService;
    good_answer, complete_answer, unknown_agent, malformed_answers, context_and_refusal_reach_the_backend, failing_backend,
    late_backend: "a script's answer keeps no time limit of its own: it comes after its delay_ms, as the script says",
    cancellation,
}
