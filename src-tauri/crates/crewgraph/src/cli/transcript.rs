//! How a run reads on a terminal: who worked, what they said, who handed to whom
//! and why — or, with `--json`, every event as one JSON line (DESIGN.md §7). The
//! [`Printer`] is the CLI's event sink: it prints a step only once the store has
//! it, so nothing printed can be lost to a crash.

use std::io::Write;
use std::sync::Mutex;

use crewgraph_engine::run::{EventKind, EventSink, RunEvent, RunStatus, ToolDecision};

/// Prints events as a transcript or as JSON lines.
pub struct Printer {
    json: bool,
    waiting: Mutex<Vec<RunEvent>>,
    /// The call the run waits on for approval (since its request was printed).
    approval: Mutex<Option<String>>,
    /// The run paused before an agent's turn (a breakpoint), not for an answer.
    held: Mutex<bool>,
    /// What a command going on with the run must say again (` --script PATH`), so
    /// the hints printed at a pause are whole.
    again: String,
}

impl Printer {
    /// A printer; `json` for JSON lines.
    pub fn new(json: bool) -> Self {
        Self { json, waiting: Mutex::new(Vec::new()), approval: Mutex::new(None), held: Mutex::new(false), again: String::new() }
    }

    /// The same, its hints naming `again` (` --script crews/scripts/x.yaml`) too.
    pub fn going_on_with(mut self, again: String) -> Self {
        self.again = again;
        self
    }

    /// Prints events at once (replay of stored events).
    pub fn print_all(&self, events: &[RunEvent]) {
        let stdout = std::io::stdout();
        let mut out = stdout.lock();
        for event in events {
            self.write(&mut out, event);
        }
        let _ = out.flush();
    }

    fn write(&self, out: &mut impl Write, event: &RunEvent) {
        if self.json {
            if let Ok(line) = serde_json::to_string(event) {
                let _ = writeln!(out, "{line}");
            }
        } else {
            let mut approval = self.approval.lock().unwrap_or_else(|e| e.into_inner());
            let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
            match &event.kind {
                EventKind::ToolApprovalRequested { call_id, .. } => *approval = Some(call_id.clone()),
                EventKind::ToolApproval { .. } => *approval = None,
                EventKind::Paused { breakpoint, .. } => *held = *breakpoint,
                EventKind::Resumed { .. } => *held = false,
                _ => {}
            }
            let again = &self.again;
            let text = match (&event.kind, approval.as_deref()) {
                (EventKind::RunFinished { status: RunStatus::Paused, .. }, None) if *held => describe(event).map(|text| {
                    let cut = text.find("\n  resume with:").unwrap_or(text.len());
                    format!(
                        "{}\n  go on: crewgraph resume {}{again}   (--input \"…\" to tell it something first; --step: one turn, then pause again)",
                        &text[..cut],
                        event.run_id
                    )
                }),
                (EventKind::RunFinished { status: RunStatus::Paused, .. }, Some(call_id)) => describe(event).map(|text| {
                    let cut = text.find("\n  resume with:").unwrap_or(text.len());
                    format!("{}\n  allow it: crewgraph approve {} {call_id}{again}   (or --allow-run, or --deny)", &text[..cut], event.run_id)
                }),
                (EventKind::RunFinished { status: RunStatus::Paused, .. }, None) if !again.is_empty() => {
                    describe(event).map(|text| text.replace("--input \"…\"", &format!("--input \"…\"{again}")))
                }
                _ => describe(event),
            };
            if let Some(text) = text {
                let _ = writeln!(out, "{}", super::terminal::safe(&text));
            }
        }
    }
}

impl EventSink for Printer {
    fn emit(&self, event: &RunEvent) {
        if let Ok(mut waiting) = self.waiting.lock() {
            waiting.push(event.clone());
        }
    }

    fn committed(&self, seq: u64) {
        let ready: Vec<RunEvent> = match self.waiting.lock() {
            Ok(mut waiting) => {
                let split = waiting.iter().position(|e| e.seq > seq).unwrap_or(waiting.len());
                waiting.drain(..split).collect()
            }
            Err(_) => return,
        };
        self.print_all(&ready);
    }
}

/// Indents every line of `text` by `by` spaces.
fn indent(text: &str, by: usize) -> String {
    let pad = " ".repeat(by);
    text.trim_end().lines().map(|l| format!("{pad}{l}")).collect::<Vec<_>>().join("\n")
}

/// One event as transcript lines (None for events the transcript leaves out).
pub fn describe(event: &RunEvent) -> Option<String> {
    Some(match &event.kind {
        EventKind::RunStarted { crew, input } => format!("Run {} of \"{crew}\"\n  input: {input}", event.run_id),
        EventKind::AgentStarted { agent, step } => format!("\n[{step}] {agent}"),
        EventKind::Token { .. } => return None,
        EventKind::ToolCall { name, arguments, .. } => format!("    tool {name} {arguments}"),
        EventKind::ToolResult { name, result, .. } => format!("    tool {name} answered: {}", result.lines().next().unwrap_or("")),
        EventKind::ToolApprovalRequested { agent, name, arguments, call_id } => {
            format!("    ? {agent} asks to call {name} {arguments} ({call_id})")
        }
        EventKind::ToolApproval { decision, reason, .. } => {
            let words = match decision {
                ToolDecision::AllowOnce => "allowed once",
                ToolDecision::AllowRun => "allowed for the rest of the run",
                ToolDecision::Deny => "denied",
            };
            let why = reason.as_ref().map(|r| format!(" ({r})")).unwrap_or_default();
            format!("    {words}{why}")
        }
        EventKind::ToolProgress { name, progress, total, message, .. } => {
            let of = total.map(|t| format!(" of {t}")).unwrap_or_default();
            let said = message.as_ref().map(|m| format!(": {m}")).unwrap_or_default();
            format!("    tool {name} at {progress}{of}{said}")
        }
        EventKind::AgentResponse { content, .. } => indent(content, 4),
        EventKind::SignalMatched { signal, level, behavior, target, payload, .. } => {
            let target = target.as_ref().map(|t| format!(" → {t}")).unwrap_or_default();
            let payload = payload.as_ref().map(|p| format!(" carrying {p}")).unwrap_or_default();
            format!("    signal {signal} ({}, {}){target}{payload}", level.as_str(), behavior.as_str())
        }
        EventKind::RouteMissed { agent, candidates } => {
            let said: Vec<String> = candidates.iter().map(|near| format!("    ? {agent} {}", near.words())).collect();
            said.join("\n")
        }
        EventKind::Handoff { from, to, reason, handoff_count } => {
            format!("  {from} → {to} because {reason} (handoff {handoff_count})")
        }
        EventKind::RoutingDecision { chosen, candidates, reasoning, .. } => {
            let scores = candidates
                .as_ref()
                .map(|c| c.iter().map(|c| format!("{} {}", c.agent, c.score)).collect::<Vec<_>>().join(", "))
                .map(|s| format!(" (scores: {s})"))
                .unwrap_or_default();
            let why = reasoning.as_ref().map(|r| format!(": {r}")).unwrap_or_default();
            format!("  router chose {chosen}{scores}{why}")
        }
        EventKind::ParallelStarted { group, agents } => {
            format!("  group {group} starts: {}", agents.iter().map(|a| a.as_str()).collect::<Vec<_>>().join(", "))
        }
        EventKind::ParallelFinished { group, finished, timed_out } => {
            let list = |agents: &[crewgraph_engine::AgentId]| agents.iter().map(|a| a.as_str()).collect::<Vec<_>>().join(", ");
            let late = if timed_out.is_empty() { String::new() } else { format!("; did not finish: {}", list(timed_out)) };
            format!("  group {group} done: {}{late}", list(finished))
        }
        EventKind::HistoryTrimmed { agent, dropped } => format!("    ({dropped} older messages left out of what {agent} sees)"),
        EventKind::Paused { agent, breakpoint: true, .. } => format!("  paused before {agent}'s turn"),
        EventKind::Paused { agent, signal, .. } => {
            let why = signal.as_ref().map(|s| format!(" on {s}")).unwrap_or_default();
            format!("  paused at {agent}{why}: the crew waits for your answer")
        }
        EventKind::BreakpointsSet { agents } if agents.is_empty() => "  pauses before no agent now".to_owned(),
        EventKind::BreakpointsSet { agents } => {
            format!("  pauses before each turn of: {}", agents.iter().map(|a| a.as_str()).collect::<Vec<_>>().join(", "))
        }
        EventKind::Resumed { agent, input } if input.is_empty() => format!("  resumed with {agent}"),
        EventKind::Resumed { agent, input } => format!("  resumed with {agent}: {input}"),
        EventKind::Warning { message } => format!("  ! {message}"),
        EventKind::LoopDetected { agents, .. } => {
            format!("  ! loop: {} keep repeating themselves", agents.iter().map(|a| a.as_str()).collect::<Vec<_>>().join(" → "))
        }
        EventKind::RunFinished { status, final_agent, error, handoffs, steps } => {
            let last = final_agent.as_ref().map(|a| format!(" · last agent {a}")).unwrap_or_default();
            let error = error.as_ref().map(|e| format!("\n  error: {e}")).unwrap_or_default();
            let hint = if *status == RunStatus::Paused {
                format!("\n  resume with: crewgraph resume {} --input \"…\"", event.run_id)
            } else {
                String::new()
            };
            format!("\n■ {}{last} · {handoffs} handoffs · {steps} steps{error}{hint}", status.as_str())
        }
    })
}
