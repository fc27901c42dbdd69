//! [`TracedSink`]: the [`EventSink`] a traced run emits to. It hands every event
//! on to the host's own sink (the window, the server's watchers, the terminal) —
//! and that is all the run's thread does for its trace while a step runs. When
//! the step is stored, the run hands its events over
//! ([`EventSink::committed_events`]: it has no further use for them), and the
//! sink passes them whole to the [`Exporter`]'s bounded queue: no copy is made,
//! and the fold into spans, their encoding and sending happen on the exporter's
//! threads. So a trace holds what the store holds: a step that was never stored
//! is in neither. A full queue never makes the run wait: the events are dropped
//! and counted, and the leg's trace is cut there (its spans end where the queued
//! events stop, as an interrupted leg's do). Without content capture the fold
//! leaves out what the person and the agents wrote ([`crate::RunSpans`]): that
//! text is never put in a span. When the leg ends without `run_finished` (its
//! host stopped it), dropping the sink tells the exporter, which ends the leg's
//! open spans where it stood.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crewgraph_engine::run::{EventKind, EventSink, RunEvent};

use crate::crew::{CrewFacts, Prepared};
use crate::export::{Exporter, LegId};

/// A run leg's sink that also traces it.
pub struct TracedSink {
    inner: Arc<dyn EventSink>,
    exporter: Arc<Exporter>,
    leg: LegId,
    capture_content: bool,
    /// Some events could not be queued: the leg's trace stops there.
    cut: AtomicBool,
}

impl TracedSink {
    /// Events go to `inner`, and the spans of a run of the crew `facts` describes to
    /// `exporter`; prompt and reply text too with `capture_content`.
    pub fn new(inner: Arc<dyn EventSink>, exporter: Arc<Exporter>, facts: &CrewFacts, capture_content: bool) -> Self {
        let leg = exporter.open_leg(Arc::new(Prepared::new(facts)), capture_content);
        TracedSink { inner, exporter, leg, capture_content, cut: AtomicBool::new(false) }
    }
}

impl EventSink for TracedSink {
    fn emit(&self, event: &RunEvent) {
        self.inner.emit(event);
    }

    fn committed(&self, seq: u64) {
        self.inner.committed(seq);
    }

    /// The step's events go to the trace; `inner` hears [`EventSink::committed`].
    fn committed_events(&self, mut events: Vec<RunEvent>) {
        let Some(last) = events.last() else { return };
        self.inner.committed(last.seq);
        events.retain(|event| shown(&event.kind));
        if events.is_empty() {
            return;
        }
        if !self.capture_content {
            events.iter_mut().for_each(leave_out_content);
        }
        if self.cut.load(Ordering::Relaxed) {
            self.exporter.dropped_events(events.len() as u64);
        } else if !self.exporter.events(self.leg, events) {
            self.cut.store(true, Ordering::Relaxed);
        }
    }
}

impl Drop for TracedSink {
    fn drop(&mut self) {
        self.exporter.end_leg(self.leg);
    }
}

/// Whether a span shows events of this kind (not tokens, a tool's progress,
/// breakpoints set).
fn shown(kind: &EventKind) -> bool {
    !matches!(kind, EventKind::Token { .. } | EventKind::ToolProgress { .. } | EventKind::BreakpointsSet { .. })
}

/// Leaves out of `event` what the person and the agents wrote — the run's
/// input, replies, tool arguments and results (but an error's message: it is its
/// span's status), a router's reasoning — here, on the run's thread: that text
/// never leaves it, and the run's own heap takes its memory back at once.
fn leave_out_content(event: &mut RunEvent) {
    match &mut event.kind {
        EventKind::RunStarted { input, .. } | EventKind::Resumed { input, .. } => drop(std::mem::take(input)),
        EventKind::AgentResponse { content, .. } => drop(std::mem::take(content)),
        EventKind::ToolCall { arguments, .. } | EventKind::ToolApprovalRequested { arguments, .. } => {
            drop(std::mem::take(arguments));
        }
        EventKind::ToolResult { result, .. } if !result.starts_with("error: ") => drop(std::mem::take(result)),
        EventKind::RoutingDecision { reasoning, .. } => drop(reasoning.take()),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;
    use crate::ExportConfig;
    use crewgraph_engine::{AgentId, RunId};

    /// What the host's own sink heard.
    #[derive(Default)]
    struct Heard(Mutex<Vec<String>>);

    impl EventSink for Heard {
        fn emit(&self, event: &RunEvent) {
            self.0.lock().unwrap().push(format!("emit {}", event.seq));
        }
        fn committed(&self, seq: u64) {
            self.0.lock().unwrap().push(format!("committed {seq}"));
        }
    }

    #[test]
    fn the_hosts_sink_hears_every_event_and_each_stored_step_and_no_span_shows_tokens() {
        let exporter = Exporter::start(&ExportConfig::new("http://127.0.0.1:9")).unwrap();
        let heard = Arc::new(Heard::default());
        let sink = TracedSink::new(heard.clone(), exporter, &CrewFacts::default(), false);
        let agent = AgentId::from("teacher");
        let event = |seq, kind| RunEvent { kind, run_id: RunId::from("run-1"), seq, timestamp: crewgraph_engine::run::Timestamp(5) };
        let step = vec![
            event(0, EventKind::AgentStarted { agent: agent.clone(), step: 1 }),
            event(1, EventKind::Token { agent: agent.clone(), text: "a".into() }),
        ];
        for e in &step {
            sink.emit(e);
        }
        sink.committed_events(step);
        sink.committed_events(Vec::new());
        assert_eq!(*heard.0.lock().unwrap(), ["emit 0", "emit 1", "committed 1"], "an empty step tells nothing");
        assert!(!shown(&EventKind::Token { agent, text: "a".into() }), "no span shows tokens");
    }

    #[test]
    fn without_content_capture_no_text_leaves_the_run_thread() {
        let agent = AgentId::from("teacher");
        let event = |kind| RunEvent { kind, run_id: RunId::from("run-1"), seq: 3, timestamp: crewgraph_engine::run::Timestamp(5) };
        let mut reply = event(EventKind::AgentResponse { agent: agent.clone(), content: "a secret".into(), usage: None });
        leave_out_content(&mut reply);
        assert_eq!(reply, event(EventKind::AgentResponse { agent: agent.clone(), content: String::new(), usage: None }));
        let mut call = event(EventKind::ToolCall { agent: agent.clone(), name: "calc".into(), arguments: serde_json::json!({"a": 1}) });
        leave_out_content(&mut call);
        assert!(matches!(call.kind, EventKind::ToolCall { arguments: serde_json::Value::Null, .. }));
        // A tool's error is its span's status, so its message is kept.
        let failed = event(EventKind::ToolResult { agent, name: "calc".into(), result: "error: no such file".into() });
        let mut kept = failed.clone();
        leave_out_content(&mut kept);
        assert_eq!(kept, failed);
    }
}
