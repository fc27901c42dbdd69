//! An agent's tool calls within its turn (DESIGN.md §6, `docs/tools.md`): each call
//! announced, its tool's policy applied — allowed, refused, or (for `ask`) answered by
//! the person, for the rest of the run, by `--approve-tools`, or waited for, which
//! stops the run `paused` at the call — then made, its server's progress passed on as
//! events, its result added to the history. A turn stopped at a call waiting for
//! approval is taken up here where it stopped.

use std::collections::HashSet;

use super::approval::{Answer, ToolDecision};
use super::driver::Run;
use super::event::{EventKind, RunStatus};
use super::message::{Message, Role, ToolCall};
use super::tool_host::ToolProgress;
use super::tools::ToolFacts;
use crate::crew::{policy_of, Agent, ToolPolicy};
use crate::ids::AgentId;

impl Run<'_> {
    /// The calls of `agent`'s last reply that have no result yet, with the reply's
    /// place in the history and each call's place in the reply: the turn stopped at
    /// one of them to wait for a person's approval. None otherwise.
    pub(crate) fn unfinished_calls(&self, agent: &AgentId) -> Option<(usize, Vec<(usize, ToolCall)>)> {
        let answered: Vec<&str> =
            self.history.iter().rev().take_while(|m| m.role == Role::Tool).filter_map(|m| m.tool_call_id.as_deref()).collect();
        let at = self.history.iter().rposition(|m| m.role != Role::Tool)?;
        let asked = &self.history[at];
        if asked.role != Role::Agent || asked.agent.as_ref() != Some(agent) {
            return None;
        }
        let calls: Vec<(usize, ToolCall)> =
            asked.tool_calls.iter().cloned().enumerate().filter(|(_, call)| !answered.contains(&call.id.as_str())).collect();
        (!calls.is_empty()).then_some((at, calls))
    }

    /// Makes the `calls` of `agent`'s reply at `asked` in the history, each result
    /// added to the history; `announce` first emits a `tool_call` event for each (a
    /// turn going on after an approval has them already). False when the run stopped
    /// instead: cancelled, or paused at a call waiting for approval.
    pub(crate) async fn run_calls(&mut self, agent: &Agent, asked: usize, calls: &[(usize, ToolCall)], announce: bool) -> bool {
        let agent_id = &agent.id;
        if announce {
            for (_, call) in calls {
                let name = self.tools.display(&call.name);
                self.event(EventKind::ToolCall { agent: agent_id.clone(), name, arguments: call.arguments.clone() });
            }
        }
        for (index, call) in calls {
            let facts = self.tools.facts(&call.name);
            let name = facts.name.clone();
            // Its id in the run, the same whenever the turn is taken up again.
            let call_id = format!("call-{asked}-{index}");
            let answer = self.answer.take_if(|answer| answer.call_id == call_id);
            // A forked run gives again what the stored run's call answered: the tool
            // is not called twice, nor asked about.
            let replayed = self.deps.fork.as_ref().and_then(|fork| fork.replay.result(agent_id, &call.id));
            let permission = match replayed {
                Some(result) => Permission::Replayed(result),
                None => self.permission(agent, call, &facts, &call_id, answer),
            };
            let result = match permission {
                Permission::Replayed(result) => result,
                Permission::Wait => {
                    self.snapshot.current_agent = agent_id.clone();
                    self.finish(RunStatus::Paused, None);
                    return false;
                }
                Permission::Refused(why) => {
                    self.event(EventKind::Warning { message: format!("{agent_id}'s call of {name}: {why}") });
                    format!("error: {why}")
                }
                Permission::Granted => match self.call_tool(agent, call, &name).await {
                    Ok(result) => result,
                    Err(error) => {
                        self.event(EventKind::Warning { message: format!("{agent_id}'s call of {name}: {error}") });
                        format!("error: {error}")
                    }
                },
            };
            if self.cancel.is_cancelled() {
                self.finish(RunStatus::Cancelled, None);
                return false;
            }
            self.event(EventKind::ToolResult { agent: agent_id.clone(), name, result: result.clone() });
            self.add(Message::tool(agent_id, call, result));
        }
        true
    }

    /// Whether a call may be made: its tool's policy, and for `ask` the person's
    /// answer (given, or for the rest of the run), the `--approve-tools` flag, or a
    /// wait for them (the request event emitted here).
    fn permission(&mut self, agent: &Agent, call: &ToolCall, facts: &ToolFacts, call_id: &str, answer: Option<Answer>) -> Permission {
        if !self.tools.lists(agent, &call.name) {
            // Not its tool: the call answers so, without asking anyone.
            return Permission::Granted;
        }
        let policy = policy_of(&facts.name, facts.builtin, facts.read_only, &agent.tool_policy, &self.crew.tool_policy);
        match policy {
            ToolPolicy::Allow => return Permission::Granted,
            ToolPolicy::Deny => return Permission::Refused(format!("this crew does not allow {} to be called", facts.name)),
            ToolPolicy::Ask => {}
        }
        if let Some(answer) = answer {
            return decided(answer.decision, answer.reason.as_deref(), &facts.name, &mut self.allowed_for_run);
        }
        if self.allowed_for_run.contains(&facts.name) {
            return Permission::Granted;
        }
        self.event(EventKind::ToolApprovalRequested {
            agent: agent.id.clone(),
            call_id: call_id.to_owned(),
            name: facts.name.clone(),
            arguments: call.arguments.clone(),
        });
        let Some((decision, words)) = self.deps.approvals.answer(facts.read_only) else { return Permission::Wait };
        self.event(EventKind::ToolApproval { call_id: call_id.to_owned(), decision, reason: Some(words.to_owned()) });
        decided(decision, Some(words), &facts.name, &mut self.allowed_for_run)
    }

    /// Calls a tool, turning what its server says of its progress into
    /// `tool_progress` events as it comes.
    async fn call_tool(&mut self, agent: &Agent, call: &ToolCall, name: &str) -> Result<String, String> {
        let tools = self.tools.clone();
        let cancel = self.cancel;
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<ToolProgress>();
        let progress = move |p: ToolProgress| {
            let _ = tx.send(p);
        };
        let result = tools.call(agent, call, &progress, cancel);
        tokio::pin!(result);
        loop {
            tokio::select! {
                biased;
                Some(p) = rx.recv() => self.event(EventKind::ToolProgress {
                    agent: agent.id.clone(),
                    name: name.to_owned(),
                    progress: p.progress,
                    total: p.total,
                    message: p.message,
                }),
                result = &mut result => return result,
            }
        }
    }
}

/// Whether a tool call may be made.
enum Permission {
    Granted,
    /// Not made; the agent is told why.
    Refused(String),
    /// The run waits for a person to answer.
    Wait,
    /// A forked run's call, answered as the stored run's was.
    Replayed(String),
}

/// A decision on a call of `tool`, remembered for the run when it is `allow_run`.
fn decided(decision: ToolDecision, reason: Option<&str>, tool: &str, allowed_for_run: &mut HashSet<String>) -> Permission {
    match decision {
        ToolDecision::AllowOnce => Permission::Granted,
        ToolDecision::AllowRun => {
            allowed_for_run.insert(tool.to_owned());
            Permission::Granted
        }
        ToolDecision::Deny => Permission::Refused(match reason.filter(|r| !r.trim().is_empty()) {
            Some(reason) => format!("the call was not allowed ({reason})"),
            None => "the call was not allowed".to_owned(),
        }),
    }
}
