//! A run's events folded into spans ([`RunSpans`]): pure, the same for a run going
//! on now and for one read back from the store, because every time comes from the
//! events themselves and every id from the run's id and the events' `seq`
//! ([`crate::ids`]).
//!
//! The tree of one run leg (a start, or a resume):
//!
//! ```text
//! invoke_workflow <crew>                  the leg: from its first event to run_finished
//! ├── chat <model>                        an agent's turn: agent_started → agent_response
//! │   ├── execute_tool <tool>             tool_call → tool_result
//! │   └── (event) crewgraph.handoff       signal, level, reason, from, to
//! └── route <strategy>                    a router's decision (scoring, llm, gatekeeper)
//! ```
//!
//! A turn span is handed on only once what followed its reply is known (its signal,
//! its handoff: events of the turn's span), that is at the next turn or the run's
//! end. Errors are span statuses: a failed run's leg and the turn it failed in, a
//! tool whose result is an error. Prompt and reply text (the run's input, the
//! replies, tool arguments and results, a router's reasoning) is there only with
//! `capture_content`.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crewgraph_engine::crew::Strategy;
use crewgraph_engine::run::{EventKind, RunEvent, RunStatus, Timestamp};
use opentelemetry::trace::{Event, SpanContext, SpanId, SpanKind, Status, TraceFlags, TraceId, TraceState};
use opentelemetry::{Array, InstrumentationScope, KeyValue, StringValue, Value};
use opentelemetry_sdk::trace::{SpanData, SpanEvents, SpanLinks};

use crate::crew::{CrewFacts, Prepared};
use crate::ids::{span_id_of, trace_id_of};
use crate::names;

/// A span begun and not yet handed on.
#[derive(Debug)]
struct Open {
    id: SpanId,
    parent: SpanId,
    kind: SpanKind,
    name: Cow<'static, str>,
    start: Timestamp,
    attributes: Vec<KeyValue>,
    events: Vec<Event>,
    status: Status,
    /// The agent whose turn or tool call it is.
    agent: Option<String>,
    /// A tool span's tool.
    tool: Option<String>,
}

/// A closed turn held until what followed its reply is known.
#[derive(Debug)]
struct Held {
    span: Open,
    end: Timestamp,
    /// The signal its reply matched, not yet told by a handoff.
    signal: Option<(String, &'static str, &'static str)>,
}

/// One run leg's events folded into spans.
#[derive(Debug)]
pub struct RunSpans {
    facts: Arc<Prepared>,
    capture_content: bool,
    scope: InstrumentationScope,
    run_id: String,
    trace_id: TraceId,
    leg: Option<Open>,
    turns: Vec<Open>,
    tools: Vec<Open>,
    held: Option<Held>,
    /// The latest event's time: where a routing decision starts, and where an
    /// interrupted leg's spans end.
    last: Timestamp,
    finished: bool,
}

fn time(at: Timestamp) -> SystemTime {
    UNIX_EPOCH + Duration::from_millis(at.millis())
}

fn strategy_name(strategy: Strategy) -> &'static str {
    Strategy::ALL.iter().find(|(s, _)| *s == strategy).map_or("signals", |(_, name)| name)
}

/// The failure a final status is, if it is one.
fn failure(status: RunStatus, error: Option<&str>) -> Option<String> {
    match status {
        RunStatus::Running | RunStatus::Terminated | RunStatus::Completed | RunStatus::Paused | RunStatus::Cancelled => None,
        RunStatus::Failed => Some(error.unwrap_or("the run failed").to_owned()),
        other => Some(error.map_or_else(|| format!("the run ended {}", other.as_str()), str::to_owned)),
    }
}

fn messages(role: &str, text: &str) -> String {
    serde_json::json!([{"role": role, "parts": [{"type": "text", "content": text}]}]).to_string()
}

impl RunSpans {
    /// The spans of a run of the crew `facts` describes; with `capture_content`,
    /// prompt and reply text goes into them too.
    pub fn new(facts: &CrewFacts, capture_content: bool) -> Self {
        Self::prepared(Arc::new(Prepared::new(facts)), capture_content)
    }

    pub(crate) fn prepared(facts: Arc<Prepared>, capture_content: bool) -> Self {
        RunSpans {
            facts,
            capture_content,
            scope: InstrumentationScope::builder("crewgraph").with_version(env!("CARGO_PKG_VERSION")).build(),
            run_id: String::new(),
            trace_id: TraceId::INVALID,
            leg: None,
            turns: Vec::new(),
            tools: Vec::new(),
            held: None,
            last: Timestamp(0),
            finished: false,
        }
    }

    /// Folds in one event; spans that it finishes go to `out`. The run's id is
    /// read from the leg's first event (the others' is not looked at).
    pub fn event(&mut self, event: &RunEvent, out: &mut dyn FnMut(SpanData)) {
        if self.finished {
            return;
        }
        if self.leg.is_none() {
            self.open_leg(event);
        }
        let at = event.timestamp;
        match &event.kind {
            EventKind::RunStarted { input, .. } => {
                if self.capture_content {
                    if let Some(leg) = &mut self.leg {
                        leg.attributes.push(KeyValue::new(names::INPUT_MESSAGES, messages("user", input)));
                    }
                }
            }
            EventKind::AgentStarted { agent, step } => {
                self.hand_on_held(out);
                let prepared = self.facts.agent(agent.as_str());
                let mut attributes = Vec::with_capacity(prepared.attributes.len() + 5);
                attributes.extend(prepared.attributes.iter().cloned());
                attributes.push(KeyValue::new(names::CONVERSATION, self.run_id.clone()));
                attributes.push(KeyValue::new(names::STEP, i64::from(*step)));
                let span = self.open(event.seq, SpanKind::Client, Cow::Owned(prepared.span_name.clone()), at, attributes);
                self.turns.push(Open { agent: Some(agent.as_str().to_owned()), ..span });
            }
            EventKind::AgentResponse { agent, content, usage } => {
                if let Some(index) = self.turns.iter().position(|t| t.agent.as_deref() == Some(agent.as_str())) {
                    let mut turn = self.turns.remove(index);
                    if let Some(usage) = usage {
                        turn.attributes.push(KeyValue::new(names::INPUT_TOKENS, i64::from(usage.input_tokens)));
                        turn.attributes.push(KeyValue::new(names::OUTPUT_TOKENS, i64::from(usage.output_tokens)));
                        if let Some(cost) = usage.cost_usd {
                            turn.attributes.push(KeyValue::new(names::COST, cost));
                        }
                    }
                    if self.capture_content {
                        turn.attributes.push(KeyValue::new(names::OUTPUT_MESSAGES, messages("assistant", content)));
                    }
                    turn.status = Status::Ok;
                    self.hand_on_held(out);
                    self.held = Some(Held { span: turn, end: at, signal: None });
                }
            }
            EventKind::ToolCall { agent, name, arguments } => {
                let parent = self.turn_of(agent.as_str()).map(|t| t.id);
                let mut attributes = vec![
                    KeyValue::new(names::OPERATION, "execute_tool"),
                    KeyValue::new(names::TOOL_NAME, name.clone()),
                    KeyValue::new(names::AGENT_NAME, agent.as_str().to_owned()),
                    KeyValue::new(names::CONVERSATION, self.run_id.clone()),
                ];
                if self.capture_content {
                    attributes.push(KeyValue::new(names::TOOL_ARGUMENTS, arguments.to_string()));
                }
                let mut span = self.open(event.seq, SpanKind::Internal, Cow::Owned(format!("execute_tool {name}")), at, attributes);
                if let Some(parent) = parent {
                    span.parent = parent;
                }
                self.tools.push(Open { agent: Some(agent.as_str().to_owned()), tool: Some(name.clone()), ..span });
            }
            EventKind::ToolResult { agent, name, result } => {
                let found =
                    self.tools.iter().position(|t| t.agent.as_deref() == Some(agent.as_str()) && t.tool.as_deref() == Some(name.as_str()));
                if let Some(index) = found {
                    let mut tool = self.tools.remove(index);
                    if self.capture_content {
                        tool.attributes.push(KeyValue::new(names::TOOL_RESULT, result.clone()));
                    }
                    tool.status = match result.strip_prefix("error: ") {
                        Some(why) => {
                            tool.attributes.push(KeyValue::new(names::ERROR_TYPE, "tool_error"));
                            Status::error(why.to_owned())
                        }
                        None => Status::Ok,
                    };
                    out(self.data(tool, at));
                }
            }
            EventKind::ToolApprovalRequested { agent, call_id, name, .. } => {
                let attributes = vec![
                    KeyValue::new(names::TOOL_NAME, name.clone()),
                    KeyValue::new(names::TOOL_CALL_ID, call_id.clone()),
                    KeyValue::new(names::AGENT, agent.as_str().to_owned()),
                ];
                self.note(Some(agent.as_str()), "crewgraph.tool_approval_requested", at, attributes);
            }
            EventKind::ToolApproval { call_id, decision, .. } => {
                let decision = serde_json::to_value(decision).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default();
                let attributes =
                    vec![KeyValue::new(names::TOOL_CALL_ID, call_id.clone()), KeyValue::new("crewgraph.tool.decision", decision)];
                self.note(None, "crewgraph.tool_approval", at, attributes);
            }
            EventKind::SignalMatched { agent, signal, level, behavior, .. } => {
                if let Some(held) = self.held.as_mut().filter(|h| h.span.agent.as_deref() == Some(agent.as_str())) {
                    held.signal = Some((signal.to_string(), level.as_str(), behavior.as_str()));
                } else {
                    let attributes = vec![
                        KeyValue::new(names::SIGNAL, signal.to_string()),
                        KeyValue::new(names::LEVEL, level.as_str()),
                        KeyValue::new(names::BEHAVIOR, behavior.as_str()),
                    ];
                    self.note(Some(agent.as_str()), "crewgraph.signal_matched", at, attributes);
                }
            }
            EventKind::RouteMissed { agent, candidates } => {
                let found: Vec<StringValue> = candidates.iter().map(|c| StringValue::from(c.found.clone())).collect();
                let attributes = vec![KeyValue::new("crewgraph.route_missed.found", Value::Array(Array::String(found)))];
                self.note(Some(agent.as_str()), "crewgraph.route_missed", at, attributes);
            }
            EventKind::Handoff { from, to, reason, handoff_count } => {
                let mut attributes = vec![
                    KeyValue::new(names::FROM, from.as_str().to_owned()),
                    KeyValue::new(names::TO, to.clone()),
                    KeyValue::new(names::REASON, reason.clone()),
                    KeyValue::new(names::COUNT, i64::from(*handoff_count)),
                ];
                let held = self.held.as_mut().filter(|h| h.span.agent.as_deref() == Some(from.as_str()));
                match held {
                    Some(held) => {
                        if let Some((signal, level, behavior)) = held.signal.take() {
                            attributes.push(KeyValue::new(names::SIGNAL, signal));
                            attributes.push(KeyValue::new(names::LEVEL, level));
                            attributes.push(KeyValue::new(names::BEHAVIOR, behavior));
                        }
                        held.span.events.push(Event::new("crewgraph.handoff", time(at), attributes, 0));
                    }
                    None => self.note(None, "crewgraph.handoff", at, attributes),
                }
            }
            EventKind::RoutingDecision { strategy, candidates, chosen, reasoning, .. } => {
                let strategy = strategy_name(*strategy);
                let mut attributes = vec![
                    KeyValue::new(names::STRATEGY, strategy),
                    KeyValue::new(names::CHOSEN, chosen.clone()),
                    KeyValue::new(names::CONVERSATION, self.run_id.clone()),
                ];
                if let Some(candidates) = candidates {
                    let list = candidates.iter().map(|c| StringValue::from(format!("{}:{}", c.agent, c.score))).collect();
                    attributes.push(KeyValue::new(names::CANDIDATES, Value::Array(Array::String(list))));
                }
                if let (true, Some(reasoning)) = (self.capture_content, reasoning) {
                    attributes.push(KeyValue::new(names::REASONING, reasoning.clone()));
                }
                let start = self.last;
                let mut span = self.open(event.seq, SpanKind::Internal, Cow::Owned(format!("route {strategy}")), start, attributes);
                span.status = Status::Ok;
                out(self.data(span, at));
            }
            EventKind::ParallelStarted { group, agents } => {
                let agents = agents.iter().map(|a| StringValue::from(a.as_str().to_owned())).collect();
                let attributes =
                    vec![KeyValue::new(names::GROUP, group.clone()), KeyValue::new(names::AGENTS, Value::Array(Array::String(agents)))];
                self.note(None, "crewgraph.parallel_started", at, attributes);
            }
            EventKind::ParallelFinished { group, timed_out, .. } => {
                let late = timed_out.iter().map(|a| StringValue::from(a.as_str().to_owned())).collect();
                let attributes = vec![
                    KeyValue::new(names::GROUP, group.clone()),
                    KeyValue::new("crewgraph.timed_out", Value::Array(Array::String(late))),
                ];
                self.note(None, "crewgraph.parallel_finished", at, attributes);
            }
            EventKind::HistoryTrimmed { agent, dropped } => {
                let attributes = vec![KeyValue::new("crewgraph.history.dropped", i64::from(*dropped))];
                self.note(Some(agent.as_str()), "crewgraph.history_trimmed", at, attributes);
            }
            EventKind::Paused { agent, breakpoint, .. } => {
                let attributes =
                    vec![KeyValue::new(names::AGENT, agent.as_str().to_owned()), KeyValue::new("crewgraph.breakpoint", *breakpoint)];
                self.note(None, "crewgraph.paused", at, attributes);
            }
            EventKind::Resumed { agent, input } => {
                let mut attributes = vec![KeyValue::new(names::AGENT, agent.as_str().to_owned())];
                if self.capture_content {
                    attributes.push(KeyValue::new(names::INPUT_MESSAGES, messages("user", input)));
                }
                self.note(None, "crewgraph.resumed", at, attributes);
            }
            EventKind::Warning { message } => {
                self.note(None, "crewgraph.warning", at, vec![KeyValue::new(names::MESSAGE, message.clone())]);
            }
            EventKind::LoopDetected { agents, repeats } => {
                let agents = agents.iter().map(|a| StringValue::from(a.as_str().to_owned())).collect();
                let attributes = vec![
                    KeyValue::new(names::AGENTS, Value::Array(Array::String(agents))),
                    KeyValue::new("crewgraph.repeats", i64::from(*repeats)),
                ];
                self.note(None, "crewgraph.loop_detected", at, attributes);
            }
            EventKind::RunFinished { status, final_agent, error, handoffs, steps } => {
                let failed = failure(*status, error.as_deref());
                if let Some(leg) = &mut self.leg {
                    leg.attributes.push(KeyValue::new(names::STATUS, status.as_str()));
                    leg.attributes.push(KeyValue::new(names::HANDOFFS, i64::from(*handoffs)));
                    leg.attributes.push(KeyValue::new(names::STEPS, i64::from(*steps)));
                    if let Some(agent) = final_agent {
                        leg.attributes.push(KeyValue::new(names::FINAL_AGENT, agent.as_str().to_owned()));
                    }
                    leg.status = match &failed {
                        Some(why) => {
                            leg.attributes.push(KeyValue::new(names::ERROR_TYPE, status.as_str()));
                            Status::error(why.clone())
                        }
                        None if matches!(status, RunStatus::Terminated | RunStatus::Completed) => Status::Ok,
                        None => Status::Unset,
                    };
                }
                // A turn still open failed with the run (its model call did).
                let unfinished = failed.map(|why| (status.as_str(), why));
                self.close_all(at, unfinished, out);
            }
            EventKind::Token { .. } | EventKind::ToolProgress { .. } | EventKind::BreakpointsSet { .. } => {}
        }
        self.last = at;
    }

    /// Ends every span still open where the leg stands (its last event): what an
    /// interrupted leg (stopped with its host) leaves.
    pub fn interrupt(&mut self, out: &mut dyn FnMut(SpanData)) {
        if self.finished || self.leg.is_none() {
            return;
        }
        if let Some(leg) = &mut self.leg {
            leg.attributes.push(KeyValue::new(names::STATUS, "interrupted"));
        }
        let at = self.last;
        self.close_all(at, None, out);
    }

    /// The leg has ended (`run_finished`, or interrupted): no event adds to it.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// The run's trace (invalid before its first event).
    pub fn trace_id(&self) -> TraceId {
        self.trace_id
    }

    fn open_leg(&mut self, event: &RunEvent) {
        self.run_id = event.run_id.as_str().to_owned();
        self.trace_id = trace_id_of(&self.run_id);
        let leg = if matches!(event.kind, EventKind::RunStarted { .. }) { "start" } else { "resume" };
        let attributes = vec![
            KeyValue::new(names::OPERATION, "invoke_workflow"),
            KeyValue::new(names::WORKFLOW_NAME, self.facts.crew.clone()),
            KeyValue::new(names::CREW, self.facts.crew.clone()),
            KeyValue::new(names::CONVERSATION, self.run_id.clone()),
            KeyValue::new(names::RUN_ID, self.run_id.clone()),
            KeyValue::new(names::LEG, leg),
        ];
        let mut span = self.open(event.seq, SpanKind::Internal, Cow::Owned(self.facts.workflow_span.clone()), event.timestamp, attributes);
        span.parent = SpanId::INVALID;
        self.leg = Some(span);
    }

    fn open(&self, seq: u64, kind: SpanKind, name: Cow<'static, str>, start: Timestamp, attributes: Vec<KeyValue>) -> Open {
        Open {
            id: span_id_of(&self.run_id, seq),
            parent: self.leg.as_ref().map_or(SpanId::INVALID, |leg| leg.id),
            kind,
            name,
            start,
            attributes,
            events: Vec::new(),
            status: Status::Unset,
            agent: None,
            tool: None,
        }
    }

    fn turn_of(&self, agent: &str) -> Option<&Open> {
        self.turns.iter().rev().find(|t| t.agent.as_deref() == Some(agent))
    }

    /// An event on the span of `agent`'s turn (open, or just closed) when there is
    /// one, else on the leg's.
    fn note(&mut self, agent: Option<&str>, name: &'static str, at: Timestamp, attributes: Vec<KeyValue>) {
        let event = Event::new(name, time(at), attributes, 0);
        if let Some(agent) = agent {
            if let Some(turn) = self.turns.iter_mut().rev().find(|t| t.agent.as_deref() == Some(agent)) {
                turn.events.push(event);
                return;
            }
            if let Some(held) = self.held.as_mut().filter(|h| h.span.agent.as_deref() == Some(agent)) {
                held.span.events.push(event);
                return;
            }
        }
        if let Some(leg) = &mut self.leg {
            leg.events.push(event);
        }
    }

    fn hand_on_held(&mut self, out: &mut dyn FnMut(SpanData)) {
        if let Some(mut held) = self.held.take() {
            if let Some((signal, level, behavior)) = held.signal.take() {
                let attributes = vec![
                    KeyValue::new(names::SIGNAL, signal),
                    KeyValue::new(names::LEVEL, level),
                    KeyValue::new(names::BEHAVIOR, behavior),
                ];
                held.span.events.push(Event::new("crewgraph.signal_matched", time(held.end), attributes, 0));
            }
            out(self.data(held.span, held.end));
        }
    }

    /// Ends the leg at `at`, and every span in it still open; `failed`: the error
    /// type and message the open ones failed with.
    fn close_all(&mut self, at: Timestamp, failed: Option<(&'static str, String)>, out: &mut dyn FnMut(SpanData)) {
        self.hand_on_held(out);
        let open: Vec<Open> = self.tools.drain(..).chain(self.turns.drain(..)).collect();
        for mut span in open {
            if let Some((kind, why)) = &failed {
                span.attributes.push(KeyValue::new(names::ERROR_TYPE, *kind));
                span.status = Status::error(why.clone());
            }
            out(self.data(span, at));
        }
        if let Some(leg) = self.leg.take() {
            out(self.data(leg, at));
        }
        self.finished = true;
    }

    fn data(&self, span: Open, end: Timestamp) -> SpanData {
        let mut events = SpanEvents::default();
        events.events = span.events;
        SpanData {
            span_context: SpanContext::new(self.trace_id, span.id, TraceFlags::SAMPLED, false, TraceState::default()),
            parent_span_id: span.parent,
            parent_span_is_remote: false,
            span_kind: span.kind,
            name: span.name,
            start_time: time(span.start),
            end_time: time(end.max(span.start)),
            attributes: span.attributes,
            dropped_attributes_count: 0,
            events,
            links: SpanLinks::default(),
            status: span.status,
            instrumentation_scope: self.scope.clone(),
        }
    }
}
