//! A parallel group's turn (DESIGN.md §4, step 4.3): its members run concurrently,
//! each seeing the history so far and each with the group's timeout; their own
//! signals are not acted on (they are not told any). Their replies join the history
//! as one message, `name: reply` per member in group order.
//!
//! `wait_for_all: true` waits for every member up to the timeout, and a member that
//! times out or fails fails the run; `false` goes on at the timeout (or as soon as
//! all finished) with the members that finished, recording the others. When the
//! replies are typed by the person (Simulate by hand), the time is the person's and
//! no timeout runs.
//!
//! Members are futures polled together in this task; they report progress over a
//! channel, which the driver turns into events, so a run's events stay one ordered
//! stream.

use futures_util::stream::{FuturesUnordered, StreamExt};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::approval::{Approvals, ToolDecision};
use super::context::{self, Bounds, Fitter};
use super::driver::{asked_again_words, Run, TOKEN_WINDOW};
use super::event::{EventKind, RunStatus};
use super::llm::{LlmError, LlmRequest, Usage};
use super::message::{Message, ToolCall};
use super::tools::Tools;
use crate::crew::{policy_of, Agent, ParallelGroup, PolicyRule, ToolPolicy};
use crate::ids::GroupId;

/// What a member reports while it works.
enum Update {
    Started,
    Token(String),
    Trimmed(u32),
    ToolCall(ToolCall),
    ToolResult(String, String),
    ToolProgress(String, super::tool_host::ToolProgress),
    Warning(String),
}

/// How a member ended.
enum Ended {
    Replied(String, Option<Usage>),
    Failed(String),
    Cancelled,
    TimedOut,
}

/// Runs `group` inside the current step. False when the run ended instead.
pub(crate) async fn run(run: &mut Run<'_>, group: &ParallelGroup) -> bool {
    let crew = run.crew;
    let members: Vec<&Agent> = group.agents.iter().filter_map(|id| crew.agent(id.as_str())).collect();
    run.event(EventKind::ParallelStarted { group: group.id.to_string(), agents: members.iter().map(|a| a.id.clone()).collect() });
    let (tx, mut rx) = mpsc::unbounded_channel::<(usize, Update)>();
    let stop = run.cancel.child_token();
    // Typed replies take a person's time, which no group timeout counts.
    let timeout = (!run.deps.llm.typed_by_a_person()).then_some(group.timeout);
    let mut working: FuturesUnordered<_> = members
        .iter()
        .enumerate()
        .map(|(i, agent)| {
            let member = Member {
                index: i,
                agent,
                history: run.history.clone(),
                llm: run.deps.llm.clone(),
                tools: run.tools.clone(),
                fitter: run.fitter.clone(),
                bounds: Bounds::of(agent, &crew.settings),
                max_rounds: crew.settings.max_tool_rounds,
                crew_rules: &crew.tool_policy,
                approvals: run.deps.approvals,
                group: &group.id,
                tx: tx.clone(),
                cancel: stop.clone(),
            };
            async move {
                let ended = match timeout {
                    Some(timeout) => tokio::time::timeout(timeout, member.work()).await.unwrap_or(Ended::TimedOut),
                    None => member.work().await,
                };
                (i, ended)
            }
        })
        .collect();
    drop(tx);

    let mut replies: Vec<Option<String>> = vec![None; members.len()];
    let mut missing = Vec::new();
    let mut progress = Progress { pending: vec![String::new(); members.len()], since: vec![Instant::now(); members.len()] };
    let mut failure = None;
    loop {
        tokio::select! {
            biased;
            Some((i, update)) = rx.recv() => progress.apply(run, &members, i, update),
            next = working.next() => {
                let Some((i, ended)) = next else { break };
                // A member can finish in the very poll that sent its progress: report
                // that progress first, so its events stay in order.
                while let Ok((j, update)) = rx.try_recv() {
                    progress.apply(run, &members, j, update);
                }
                let agent = members[i].id.clone();
                progress.flush(run, &members, i);
                match ended {
                    Ended::Replied(reply, usage) => {
                        run.event(EventKind::AgentResponse { agent, content: reply.clone(), usage });
                        replies[i] = Some(reply);
                    }
                    Ended::Cancelled => {
                        failure.get_or_insert((RunStatus::Cancelled, None));
                        stop.cancel();
                    }
                    Ended::TimedOut | Ended::Failed(_) if group.wait_for_all => {
                        let why = match ended {
                            Ended::Failed(error) => format!("member '{agent}' of parallel group '{}' failed: {error}", group.id),
                            _ => format!("member '{agent}' of parallel group '{}' did not finish within {:?}", group.id, group.timeout),
                        };
                        missing.push(agent);
                        failure.get_or_insert((RunStatus::Failed, Some(why)));
                        stop.cancel();
                    }
                    Ended::TimedOut => missing.push(agent),
                    Ended::Failed(error) => {
                        run.event(EventKind::Warning { message: format!("member '{agent}' of parallel group '{}' failed: {error}", group.id) });
                        missing.push(agent);
                    }
                }
            }
        }
    }
    let finished: Vec<_> = members.iter().zip(&replies).filter(|(_, r)| r.is_some()).map(|(a, _)| a.id.clone()).collect();
    let in_order: Vec<_> = members.iter().filter(|m| missing.contains(&m.id)).map(|m| m.id.clone()).collect();
    run.event(EventKind::ParallelFinished { group: group.id.to_string(), finished, timed_out: in_order });
    if let Some((status, error)) = failure {
        run.finish(status, error);
        return false;
    }
    let combined: Vec<String> =
        members.iter().zip(replies).filter_map(|(agent, reply)| reply.map(|r| format!("{}: {}", agent.name, r.trim()))).collect();
    if combined.is_empty() {
        run.event(EventKind::Warning { message: format!("no member of parallel group '{}' finished in time", group.id) });
    } else {
        run.add(Message::user(combined.join("\n\n")));
    }
    true
}

/// Members' streamed text waiting to become `token` events.
struct Progress {
    pending: Vec<String>,
    since: Vec<Instant>,
}

impl Progress {
    /// Turns one member's update into events.
    fn apply(&mut self, run: &mut Run<'_>, members: &[&Agent], i: usize, update: Update) {
        let agent = members[i].id.clone();
        match update {
            Update::Started => {
                run.snapshot.steps += 1;
                run.event(EventKind::AgentStarted { agent, step: run.snapshot.steps });
            }
            Update::Token(text) => {
                self.pending[i].push_str(&text);
                if self.since[i].elapsed() >= TOKEN_WINDOW {
                    self.flush(run, members, i);
                }
            }
            Update::ToolCall(call) => {
                self.flush(run, members, i);
                run.event(EventKind::ToolCall { agent, name: call.name, arguments: call.arguments });
            }
            Update::ToolProgress(name, p) => {
                run.event(EventKind::ToolProgress { agent, name, progress: p.progress, total: p.total, message: p.message })
            }
            Update::Trimmed(dropped) => run.event(EventKind::HistoryTrimmed { agent, dropped }),
            Update::ToolResult(name, result) => run.event(EventKind::ToolResult { agent, name, result }),
            Update::Warning(message) => run.event(EventKind::Warning { message }),
        }
    }

    /// Emits member `i`'s waiting text.
    fn flush(&mut self, run: &mut Run<'_>, members: &[&Agent], i: usize) {
        if !self.pending[i].is_empty() {
            run.event(EventKind::Token { agent: members[i].id.clone(), text: std::mem::take(&mut self.pending[i]) });
            self.since[i] = Instant::now();
        }
    }
}

/// One member at work, with what it needs and nothing borrowed from the run.
struct Member<'a> {
    index: usize,
    agent: &'a Agent,
    history: Vec<Message>,
    llm: std::sync::Arc<dyn super::llm::LlmClient>,
    tools: Tools,
    fitter: std::sync::Arc<Fitter>,
    bounds: Bounds,
    max_rounds: u32,
    /// The crew's tool rules (the agent's are on it).
    crew_rules: &'a [PolicyRule],
    /// Who answers a call whose tool asks: no person can be waited for here.
    approvals: Approvals,
    group: &'a GroupId,
    tx: mpsc::UnboundedSender<(usize, Update)>,
    cancel: CancellationToken,
}

impl Member<'_> {
    fn say(&self, update: Update) {
        let _ = self.tx.send((self.index, update));
    }

    /// Whether a call may be made. A run waits for a person only between steps, so in a
    /// group a tool that asks is allowed or denied by `--approve-tools`, else denied.
    fn permitted(&self, call: &ToolCall) -> Result<(), String> {
        if !self.tools.lists(self.agent, &call.name) {
            return Ok(()); // Not its tool: the call answers so.
        }
        let facts = self.tools.facts(&call.name);
        match policy_of(&facts.name, facts.builtin, facts.read_only, &self.agent.tool_policy, self.crew_rules) {
            ToolPolicy::Allow => Ok(()),
            ToolPolicy::Deny => Err(format!("this crew does not allow {} to be called", facts.name)),
            ToolPolicy::Ask => match self.approvals.answer(facts.read_only) {
                Some((ToolDecision::Deny, words)) => Err(format!("the call was not allowed ({words})")),
                Some((_, words)) => {
                    self.say(Update::Warning(format!("{}'s call of {}: {words}", self.agent.id, facts.name)));
                    Ok(())
                }
                None => Err(format!(
                    "{} asks for a person's approval, which cannot be waited for inside the parallel group '{}'; \
                     allow it for {} (tool_policy) to use it there",
                    facts.name, self.group, self.agent.id
                )),
            },
        }
    }

    async fn work(mut self) -> Ended {
        self.say(Update::Started);
        let system = self.agent.system_prompt.clone();
        let specs = match self.tools.specs(self.agent, &self.cancel).await {
            Ok(specs) => specs,
            Err(_) if self.cancel.is_cancelled() => return Ended::Cancelled,
            Err(error) => return Ended::Failed(error),
        };
        let model = self.agent.model_spec();
        let mut rounds = 0;
        let mut used = None;
        let mut asked_again = false;
        let mut start = 1;
        loop {
            let fit = match self.fitter.fit(model.as_ref(), &system, &self.history, self.bounds, start).await {
                Ok(fit) => fit,
                Err(unfit) => return Ended::Failed(unfit.to_string()),
            };
            start = fit.start;
            if fit.dropped > 0 {
                self.say(Update::Trimmed(fit.dropped));
            }
            let request = LlmRequest {
                model: model.as_ref(),
                tools: &specs,
                temperature: self.agent.temperature,
                max_tokens: self.agent.max_tokens,
                ..LlmRequest::new(&self.agent.id, &system, fit.messages)
            };
            let tx = self.tx.clone();
            let index = self.index;
            let on_token = move |text: &str| {
                let _ = tx.send((index, Update::Token(text.to_owned())));
            };
            let reply = match self.llm.complete(&request, &on_token, &self.cancel).await {
                Ok(reply) => reply,
                Err(LlmError::Cancelled) => return Ended::Cancelled,
                Err(LlmError::ContextOverflow { said, window }) if self.bounds.squeeze.is_none() => {
                    self.say(Update::Warning(context::squeezing(&self.agent.id, &said)));
                    let sent = fit.tokens.unwrap_or_else(|| context::estimated(&system, fit.messages));
                    self.bounds = self.bounds.squeezed(sent, window);
                    continue;
                }
                Err(LlmError::ContextOverflow { said, .. }) => {
                    return Ended::Failed(context::overflow(fit.dropped, fit.messages.len(), &said))
                }
                Err(error) => return Ended::Failed(error.to_string()),
            };
            used = Usage::add(used, reply.usage);
            if reply.is_empty() && !asked_again {
                asked_again = true;
                self.say(Update::Warning(asked_again_words(&self.agent.id)));
                continue;
            }
            if reply.tool_calls.is_empty() || rounds >= self.max_rounds {
                return Ended::Replied(reply.content, used);
            }
            let mut asked = Message::agent(&self.agent.id, reply.content);
            asked.tool_calls = reply.tool_calls.clone();
            self.history.push(asked);
            // Every call of the reply is announced, then each is made (as in a turn of the run).
            for call in &reply.tool_calls {
                self.say(Update::ToolCall(ToolCall { name: self.tools.display(&call.name), ..call.clone() }));
            }
            for call in reply.tool_calls {
                let name = self.tools.display(&call.name);
                let (tx, index) = (self.tx.clone(), self.index);
                let heard = name.clone();
                let progress = move |p: super::tool_host::ToolProgress| {
                    let _ = tx.send((index, Update::ToolProgress(heard.clone(), p)));
                };
                let called = match self.permitted(&call) {
                    Ok(()) => self.tools.call(self.agent, &call, &progress, &self.cancel).await,
                    Err(why) => Err(why),
                };
                let result = match called {
                    Ok(result) => result,
                    Err(error) => {
                        self.say(Update::Warning(format!("{}'s call of {name}: {error}", self.agent.id)));
                        format!("error: {error}")
                    }
                };
                if self.cancel.is_cancelled() {
                    return Ended::Cancelled;
                }
                self.say(Update::ToolResult(name, result.clone()));
                self.history.push(Message::tool(&self.agent.id, &call, result));
            }
            rounds += 1;
        }
    }
}
