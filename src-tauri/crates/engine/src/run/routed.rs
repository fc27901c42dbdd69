//! A step under the `llm` and `gatekeeper` strategies (DESIGN.md §5, seed 004): the
//! current agent works on its task, blind to routing — its system prompt and one
//! message, the person's request (and, after the first turn, the router's
//! instruction); no signals, no catalog, no other agent's work. Then the run's
//! [`RouteDecider`] is shown the workflow and decides:
//!
//! - `workflow_complete` → the run ends `completed` with this agent last;
//! - otherwise the agent it names gets its instruction (`routing_decision`, then
//!   `handoff` with the router's reasoning as the reason).
//!
//! A decision that cannot be used — not JSON, a field missing, an agent the crew
//! does not have, the supervisor — is refused with a `warning` holding the raw
//! answer, and the router is asked once more with the problem; a second refusal
//! ends the run `failed`. `routing.max_iterations` bounds the decisions: the one
//! that reaches it may still complete the workflow, but its handoff is refused and
//! the run ends `max_handoffs` (the error says max_iterations was reached;
//! `max_handoffs` does not apply under these strategies). An agent asked for the
//! same thing again is a loop (`loop_detected`; `on_loop: stop` ends the run).

use super::driver::{Run, Sees};
use super::event::{EventKind, RunEvent, RunStatus};
use super::loops;
use super::message::{Message, Role};
use super::store::Turn;
use crate::crew::{OnLoop, Strategy};
use crate::routing::decider::{self, DecideError, Decision, DecisionContext, Next, Rejected, RouteDecider, WorkflowStep};

/// `routing_decision.chosen` when the router completes the workflow.
pub const COMPLETE: &str = "complete";
/// The most characters of a refused answer a `warning` keeps.
pub const WARNING_CHARS: usize = 4000;
/// The most characters of a refused answer the run's error keeps.
pub const ERROR_CHARS: usize = 500;

/// The workflow as the stored events tell it: each agent's reply, with its time.
pub(crate) fn workflow(events: &[RunEvent]) -> Vec<WorkflowStep> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::AgentResponse { agent, content, .. } => Some(WorkflowStep::new(agent, content, e.timestamp)),
            _ => None,
        })
        .collect()
}

/// The one message an agent gets after a handoff: the person's request and its task.
pub fn task(request: &str, instruction: &str) -> String {
    format!("Request: {}\n\nYour task: {}", request.trim(), instruction.trim())
}

/// How events name the decider.
fn router_name(strategy: Strategy) -> &'static str {
    match strategy {
        Strategy::Gatekeeper => "gatekeeper",
        _ => "router model",
    }
}

/// `text`, cut at `max` characters with a note of how much was left out.
fn shortened(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}… ({} more characters)", &text[..cut], text[cut..].chars().count()),
        None => text.to_owned(),
    }
}

/// The handoff's reason: the router's reasoning (or that it gave none), and the
/// gatekeeper's confidence.
fn reason(decision: &Decision, name: &str) -> String {
    let why = decision.reasoning.clone().unwrap_or_else(|| format!("the {name}'s decision (no reasoning given)"));
    match decision.confidence {
        Some(confidence) => format!("{why} (confidence {confidence})"),
        None => why,
    }
}

impl Run<'_> {
    /// The person's request: the run's first message.
    fn request(&self) -> String {
        self.history.iter().find(|m| m.role == Role::User).map(|m| m.content.clone()).unwrap_or_default()
    }

    /// One step: the current agent's turn, then the router's decision.
    pub(crate) async fn routed_step(&mut self) {
        let strategy = self.crew.routing.strategy;
        let name = router_name(strategy);
        let Some(decider) = self.decider.clone() else {
            self.finish(RunStatus::Failed, Some(format!("the crew's {name} is missing")));
            return;
        };
        let agent = self.snapshot.current_agent.clone();
        let Some(reply) = self.turn_seeing(&agent, Sees::Task).await else { return };
        self.workflow.push(WorkflowStep::new(&agent, &reply, self.deps.clock.now()));
        let request = self.request();
        let max = self.crew.routing.max_iterations;
        let context = DecisionContext {
            original_query: request.clone(),
            workflow_history: self.workflow.clone(),
            current_agent: agent.clone(),
            current_output: reply,
            available_agents: decider::catalog(self.crew),
            iteration: self.snapshot.handoffs + 1,
            max_iterations: max,
        };
        let Some((decision, next)) = self.decision(decider.as_ref(), &context, name).await else { return };
        let chosen = match &next {
            Next::Complete => COMPLETE.to_owned(),
            Next::Agent { agent, .. } => agent.to_string(),
        };
        self.event(EventKind::RoutingDecision { strategy, candidates: None, chosen, reasoning: decision.reasoning.clone(), tokens: None });
        let (to, instruction) = match next {
            Next::Complete => {
                self.finish(RunStatus::Completed, None);
                return;
            }
            Next::Agent { agent, instruction } => (agent, instruction),
        };
        let asked = Turn { agent: to.clone(), reply: loops::fingerprint(&instruction) };
        if let Some(cycle) = loops::repeats(&self.snapshot.recent, &asked) {
            self.snapshot.recent.clear();
            self.event(EventKind::LoopDetected { agents: cycle, repeats: 2 });
            if self.crew.routing.on_loop == OnLoop::Stop {
                self.finish(RunStatus::LoopDetected, None);
                return;
            }
        }
        loops::remember(&mut self.snapshot.recent, asked);
        if context.iteration >= max {
            self.finish(
                RunStatus::MaxHandoffs,
                Some(format!(
                    "max_iterations ({max}) reached: the {name} made {} decisions and still asked for more work ({to}: {})",
                    context.iteration,
                    shortened(&instruction, ERROR_CHARS)
                )),
            );
            return;
        }
        self.hand_off(&agent, to.as_str(), reason(&decision, name));
        self.add(Message::user(task(&request, &instruction)));
        self.snapshot.current_agent = to;
    }

    /// Asks `decider`, once more after a refused answer. None when the run ended
    /// instead (two refusals, the decider unreachable, cancellation).
    async fn decision(&mut self, decider: &dyn RouteDecider, context: &DecisionContext, name: &str) -> Option<(Decision, Next)> {
        let mut rejected: Option<Rejected> = None;
        loop {
            let refused = match decider.decide(context, rejected.as_ref(), self.cancel).await {
                Ok(decision) => match decider::check(self.crew, &decision) {
                    Ok(next) => return Some((decision, next)),
                    Err(problem) => Rejected { raw: decision.raw, problem },
                },
                Err(DecideError::Invalid { raw, problem }) => Rejected { raw, problem },
                Err(DecideError::Cancelled) => {
                    self.finish(RunStatus::Cancelled, None);
                    return None;
                }
                Err(DecideError::Unavailable(why)) => {
                    self.finish(RunStatus::Failed, Some(format!("the {name} gave no decision: {why}")));
                    return None;
                }
            };
            let last = rejected.is_some();
            self.event(EventKind::Warning {
                message: format!(
                    "the {name}'s decision was refused: {}{}. Its answer: {}",
                    refused.problem,
                    if last { "" } else { "; it is asked once more" },
                    shortened(&refused.raw, WARNING_CHARS)
                ),
            });
            if last {
                self.finish(
                    RunStatus::Failed,
                    Some(format!(
                        "the {name} gave no valid decision in two tries: {}. Its last answer: {}",
                        refused.problem,
                        shortened(&refused.raw, ERROR_CHARS)
                    )),
                );
                return None;
            }
            rejected = Some(refused);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_answers_are_cut_with_a_count() {
        assert_eq!(shortened("abcdef", 4), "abcd… (2 more characters)");
        assert_eq!(shortened("abc", 4), "abc");
    }

    #[test]
    fn an_agent_gets_the_request_and_its_task() {
        assert_eq!(task(" Bees? ", "Write a note\n"), "Request: Bees?\n\nYour task: Write a note");
    }
}
