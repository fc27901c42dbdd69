//! [`TracedSink`]: the [`EventSink`] a traced run emits to. It hands every event
//! on to the host's own sink first (the window, the server's watchers, the
//! terminal), then keeps a copy — and that is all the run's thread does for its
//! trace: the copies go to the [`Exporter`]'s bounded queue together, once the
//! step they belong to is committed (or [`CHUNK`] of them are kept), and the fold
//! into spans, their encoding and sending happen on the exporter's threads. A
//! full queue never makes the run wait: the events are dropped and counted, and
//! the leg's trace is cut there (its spans end where the queued events stop, as an
//! interrupted leg's do). Without content capture the copy leaves out what the
//! person and the agents wrote ([`for_spans`]), so that text never leaves the
//! run's thread. When the leg ends without `run_finished` (its host stopped it),
//! dropping the sink tells the exporter, which ends the leg's open spans where it
//! stood.

use std::sync::{Arc, Mutex};

use crewgraph_engine::run::{EventKind, EventSink, RunEvent};
use crewgraph_engine::RunId;

use crate::crew::{CrewFacts, Prepared};
use crate::export::{Exporter, LegId};

/// The events a sink keeps at most before it hands them on, committed or not.
const CHUNK: usize = 256;

/// A run leg's sink that also traces it.
pub struct TracedSink {
    inner: Arc<dyn EventSink>,
    exporter: Arc<Exporter>,
    leg: LegId,
    capture_content: bool,
    kept: Mutex<Kept>,
}

/// The copies not handed on yet.
#[derive(Default)]
struct Kept {
    events: Vec<RunEvent>,
    /// The leg's first event is copied (with its run id; the others need none).
    begun: bool,
    /// Some events could not be queued: the leg's trace stops there.
    cut: bool,
}

impl TracedSink {
    /// Events go to `inner`, and the spans of a run of the crew `facts` describes to
    /// `exporter`; prompt and reply text too with `capture_content`.
    pub fn new(inner: Arc<dyn EventSink>, exporter: Arc<Exporter>, facts: &CrewFacts, capture_content: bool) -> Self {
        let leg = exporter.open_leg(Arc::new(Prepared::new(facts)), capture_content);
        TracedSink { inner, exporter, leg, capture_content, kept: Mutex::new(Kept::default()) }
    }

    fn hand_on(&self, kept: &mut Kept) {
        if !kept.events.is_empty() {
            let events = std::mem::take(&mut kept.events);
            kept.cut = !self.exporter.events(self.leg, events);
        }
    }
}

impl EventSink for TracedSink {
    fn emit(&self, event: &RunEvent) {
        self.inner.emit(event);
        if !shown(&event.kind) {
            return;
        }
        let mut kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        if kept.cut {
            self.exporter.dropped_events(1);
            return;
        }
        let first = !std::mem::replace(&mut kept.begun, true);
        kept.events.push(for_spans(event, self.capture_content, first));
        if kept.events.len() >= CHUNK {
            self.hand_on(&mut kept);
        }
    }

    fn committed(&self, seq: u64) {
        self.inner.committed(seq);
        let mut kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        self.hand_on(&mut kept);
    }
}

impl Drop for TracedSink {
    fn drop(&mut self) {
        let mut kept = std::mem::take(self.kept.get_mut().unwrap_or_else(|p| p.into_inner()));
        if !kept.cut {
            self.hand_on(&mut kept);
        }
        self.exporter.end_leg(self.leg);
    }
}

/// Whether a span shows events of this kind (not tokens, a tool's progress,
/// breakpoints set).
fn shown(kind: &EventKind) -> bool {
    !matches!(kind, EventKind::Token { .. } | EventKind::ToolProgress { .. } | EventKind::BreakpointsSet { .. })
}

/// What of `event` (one [`shown`]) its spans need: without `capture_content`, the event with
/// the run's input, replies, tool arguments and results (but an error's message)
/// and a router's reasoning left out. The run id only on the leg's `first` event:
/// the fold reads it there ([`crate::RunSpans::event`]).
pub(crate) fn for_spans(event: &RunEvent, capture_content: bool, first: bool) -> RunEvent {
    let kind = match &event.kind {
        _ if capture_content => event.kind.clone(),
        EventKind::RunStarted { crew, .. } => EventKind::RunStarted { crew: crew.clone(), input: String::new() },
        EventKind::AgentResponse { agent, usage, .. } => {
            EventKind::AgentResponse { agent: agent.clone(), content: String::new(), usage: *usage }
        }
        EventKind::ToolCall { agent, name, .. } => {
            EventKind::ToolCall { agent: agent.clone(), name: name.clone(), arguments: serde_json::Value::Null }
        }
        EventKind::ToolResult { agent, name, result } => {
            let result = if result.starts_with("error: ") { result.clone() } else { String::new() };
            EventKind::ToolResult { agent: agent.clone(), name: name.clone(), result }
        }
        EventKind::ToolApprovalRequested { agent, call_id, name, .. } => EventKind::ToolApprovalRequested {
            agent: agent.clone(),
            call_id: call_id.clone(),
            name: name.clone(),
            arguments: serde_json::Value::Null,
        },
        EventKind::RoutingDecision { strategy, candidates, chosen, .. } => EventKind::RoutingDecision {
            strategy: *strategy,
            candidates: candidates.clone(),
            chosen: chosen.clone(),
            reasoning: None,
            tokens: None,
        },
        EventKind::Resumed { agent, .. } => EventKind::Resumed { agent: agent.clone(), input: String::new() },
        other => other.clone(),
    };
    let run_id = if first { event.run_id.clone() } else { RunId::from(String::new()) };
    RunEvent { kind, run_id, seq: event.seq, timestamp: event.timestamp }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crewgraph_engine::{AgentId, RunId};

    fn event(kind: EventKind) -> RunEvent {
        RunEvent { kind, run_id: RunId::from("run-1"), seq: 3, timestamp: crewgraph_engine::run::Timestamp(5) }
    }

    #[test]
    fn without_content_capture_no_text_leaves_the_run_thread() {
        let agent = AgentId::from("teacher");
        let reply = event(EventKind::AgentResponse { agent: agent.clone(), content: "a secret".into(), usage: None });
        let kept = for_spans(&reply, false, false);
        assert!(matches!(&kept.kind, EventKind::AgentResponse { content, .. } if content.is_empty()), "{kept:?}");
        assert_eq!((kept.seq, kept.timestamp), (3, crewgraph_engine::run::Timestamp(5)), "ids and times are the event's own");
        assert_eq!(for_spans(&reply, true, true), reply, "with capture, all of it");
        assert!(kept.run_id.as_str().is_empty(), "the run id goes with the leg's first event only");
        // A tool's error is its span's status, so its message is kept.
        let failed = event(EventKind::ToolResult { agent: agent.clone(), name: "calc".into(), result: "error: no such file".into() });
        assert_eq!(for_spans(&failed, false, true), failed);
        assert!(!shown(&EventKind::Token { agent, text: "a".into() }), "no span shows tokens");
    }
}
