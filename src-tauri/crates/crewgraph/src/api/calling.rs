//! A crew called from another app — an MCP client (`crewgraph mcp`, `/mcp`) or a
//! program speaking the OpenAI protocol (`/v1/chat/completions`): one run, started
//! or resumed in the background of this host like any other (the window and
//! `GET /runs` see it), followed to its end or its pause, with what happens on the
//! way told as [`CallNews`] (each handoff in words, the tokens as they stream), and
//! its outcome in one [`CallOutcome`]: the final answer (the last agent's reply), the
//! run id and its status, and what a paused run waits for.
//!
//! Both outside doors take a crew by its name in the crews folder and a model by
//! its name, where `simulate` means the crew's own Simulate script
//! (`scripts/<crew>.yaml`): a person can try a crew from Claude Desktop or a script
//! without any model set up.

use std::collections::HashMap;
use std::path::Path;

use crewgraph_engine::run::{EventKind, RunEvent, RunStatus, Usage};
use crewgraph_engine::{AgentId, RunId};
use serde::Serialize;
use tokio_util::sync::CancellationToken;

use super::{Api, ApiError, ApiErrorCode, RunOptions, ScriptSource, WatchItem};

/// The model name that runs a crew in Simulate mode on its own script.
pub const SIMULATE: &str = "simulate";

/// How a paused run's answer to a chat app ends: `— Crewgraph run <id> waits for
/// your reply.` The next message of a conversation whose last answer ends so goes
/// on with that run ([`waiting_run`]).
pub const WAITS_PREFIX: &str = "— Crewgraph run ";
const WAITS_SUFFIX: &str = " waits for your reply.";

/// The run a chat app's earlier answer said waits for a reply.
pub fn waiting_run(answer: &str) -> Option<RunId> {
    let start = answer.rfind(WAITS_PREFIX)? + WAITS_PREFIX.len();
    let id = answer[start..].trim_end().strip_suffix(WAITS_SUFFIX)?;
    (!id.is_empty() && !id.contains(char::is_whitespace)).then(|| RunId::from(id))
}

/// A call's run, started (or resumed) and not yet followed.
#[derive(Clone, Debug)]
pub struct Call {
    pub id: RunId,
    /// The last event before this leg (a resume's), None for a new run.
    after: Option<u64>,
    path: Option<std::path::PathBuf>,
}

/// What happens in a called crew's run, as it happens.
#[derive(Clone, Debug, PartialEq)]
pub enum CallNews {
    /// The work moved from one agent to another (or to the end).
    Handoff {
        /// Said in words: "Teacher → Student because \[QUESTION\] (exact)".
        words: String,
        /// Handoffs so far in this run, this one included.
        count: u32,
    },
    /// An agent's turn began.
    TurnStarted { agent: String },
    /// Part of an agent's reply, as it streams.
    Token { agent: String, text: String },
}

/// What a paused run waits for.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Waiting {
    /// The agent waiting (its name, as its card says it).
    pub agent: String,
    /// `answer` (a person's words) or `approval` (a tool call to allow).
    pub kind: &'static str,
    /// What the agent last said, or the tool call waiting for approval.
    pub question: String,
}

/// How a called crew's run ended (or paused).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CallOutcome {
    pub run_id: String,
    /// `completed`, `terminated`, `paused`, `failed` … (a run's status).
    pub status: String,
    /// The last agent's reply (empty when no agent replied).
    pub answer: String,
    /// The agent whose reply it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub final_agent: Option<String>,
    /// Why the run failed, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// What a paused run waits for: go on with `resume_run`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waiting: Option<Waiting>,
    /// Handoffs in this leg of the run.
    pub handoffs: u32,
    /// The tokens the leg's agents used, when their providers said.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
}

/// How a caller goes on with a run that waits for a person: its own words for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GoOn {
    /// An MCP client: the `resume_run` tool.
    ResumeTool,
    /// A chat app: the next message of the conversation.
    NextMessage,
}

impl CallOutcome {
    /// True when the run did what it was for (completed or terminated by its crew).
    pub fn succeeded(&self) -> bool {
        matches!(self.status.as_str(), "completed" | "terminated")
    }

    /// The outcome in a person's words: the answer, or what went wrong, or what the
    /// run waits for and how to go on.
    pub fn in_words(&self, go_on: GoOn) -> String {
        if let Some(waiting) = &self.waiting {
            return match (waiting.kind, go_on) {
                ("approval", _) => format!(
                    "{} is waiting for a person to allow a tool call ({}): allow or deny it in Crewgraph (run {}).",
                    waiting.agent, waiting.question, self.run_id
                ),
                (_, GoOn::ResumeTool) => format!(
                    "{} is waiting for your answer (answer with resume_run, run_id \"{}\"):\n\n{}",
                    waiting.agent, self.run_id, waiting.question
                ),
                (_, GoOn::NextMessage) => {
                    format!("{}\n\n{}{}{WAITS_SUFFIX}", waiting.question, WAITS_PREFIX, self.run_id)
                }
            };
        }
        match (&self.error, self.succeeded()) {
            (_, true) => self.answer.clone(),
            (Some(error), false) => format!("The crew's run {} ended {}: {error}", self.run_id, self.status.replace('_', " ")),
            (None, false) => {
                let last = if self.answer.is_empty() { String::new() } else { format!("\n\nIts last reply:\n\n{}", self.answer) };
                format!("The crew's run {} ended {}.{last}", self.run_id, self.status.replace('_', " "))
            }
        }
    }
}

impl Api {
    /// The crew called `name` in the crews folder, for an outside caller: its path,
    /// or `not_found` naming the crews there are.
    pub fn called_crew(&self, name: &str) -> Result<std::path::PathBuf, ApiError> {
        // The file or folder itself, else its name without `.yaml`: no listing needed.
        let direct = [name.to_owned(), format!("{name}.yaml"), format!("{name}.yml")]
            .into_iter()
            .filter_map(|n| self.crew_path(&n).ok())
            .find(|p| p.exists() && outside_name(p) == outside_name(Path::new(name)));
        let path = direct.or_else(|| {
            let crews = self.list_crews().ok()?;
            crews
                .into_iter()
                .map(|c| std::path::PathBuf::from(c.path))
                .find(|p| crate::mcp_server::tools::tool_name(&outside_name(p)) == name)
        });
        path.ok_or_else(|| {
            let known: Vec<String> = self.list_crews().unwrap_or_default().iter().map(|c| outside_name(Path::new(&c.path))).collect();
            ApiError::new(ApiErrorCode::NotFound, format!("there is no crew '{name}' (the crews are: {})", known.join(", ")))
        })
    }

    /// The run options for a call on `model` (None: each agent's own model).
    pub fn call_options(&self, path: &Path, model: Option<&str>) -> Result<RunOptions, ApiError> {
        match model.map(str::trim).filter(|m| !m.is_empty()) {
            None => Ok(RunOptions::default()),
            Some(m) if m.eq_ignore_ascii_case(SIMULATE) => {
                let Some(script) = self.crew_scripts(path).into_iter().next() else {
                    return Err(ApiError::new(
                        ApiErrorCode::InvalidInput,
                        format!(
                            "the crew '{}' has no Simulate script (scripts/{}.yaml beside it): give a model instead",
                            outside_name(path),
                            outside_name(path)
                        ),
                    ));
                };
                Ok(RunOptions { script: Some(ScriptSource::File(script)), ..RunOptions::default() })
            }
            Some(m) => Ok(RunOptions { model: Some(m.to_owned()), ..RunOptions::default() }),
        }
    }

    /// Runs the crew at `path` on `input` to its end or pause, telling `news` what
    /// happens; `cancel` stops the run (it ends `cancelled`, its events kept).
    pub async fn call_crew(
        &self,
        path: &Path,
        input: &str,
        options: RunOptions,
        news: impl FnMut(CallNews),
        cancel: &CancellationToken,
    ) -> Result<CallOutcome, ApiError> {
        let call = self.begin_call(path, input, options).await?;
        self.follow_call(&call, news, cancel).await
    }

    /// Goes on with paused run `id` with `input`, like [`Api::call_crew`].
    pub async fn call_resume(
        &self,
        id: &RunId,
        input: &str,
        model: Option<&str>,
        news: impl FnMut(CallNews),
        cancel: &CancellationToken,
    ) -> Result<CallOutcome, ApiError> {
        let call = self.begin_resume(id, input, model).await?;
        self.follow_call(&call, news, cancel).await
    }

    /// Starts the run of a call: its id once its first step is stored, or why it
    /// cannot start (before anything is answered, so a caller can say so plainly).
    pub async fn begin_call(&self, path: &Path, input: &str, options: RunOptions) -> Result<Call, ApiError> {
        if input.trim().is_empty() {
            return Err(ApiError::new(ApiErrorCode::InvalidInput, "the input is empty: say what the crew should work on"));
        }
        let id = self.spawn_run(path, input, options).await?;
        Ok(Call { id, after: None, path: Some(path.to_path_buf()) })
    }

    /// Goes on with paused run `id` with `input`, its agents' replies from `model`
    /// as for a call (a Simulate run goes on with its script: the replies it used
    /// are skipped).
    pub async fn begin_resume(&self, id: &RunId, input: &str, model: Option<&str>) -> Result<Call, ApiError> {
        let stored = self.stored_run(id).await?;
        if stored.snapshot.status != RunStatus::Paused {
            return Err(ApiError::new(
                ApiErrorCode::Conflict,
                format!("run '{id}' is not waiting for an answer (it is {})", stored.snapshot.status.as_str().replace('_', " ")),
            ));
        }
        if input.trim().is_empty() {
            return Err(ApiError::new(ApiErrorCode::InvalidInput, "the answer is empty: say what the waiting agent should hear"));
        }
        let path = stored.record.crew_path.clone().map(std::path::PathBuf::from);
        let options = match &path {
            Some(p) => self.call_options(p, model)?,
            None => RunOptions { model: model.map(str::to_owned), ..RunOptions::default() },
        };
        let after = self.store()?.events(id, None).await?.last().map(|e| e.seq);
        self.spawn_resume(id, Some(input), options).await?;
        Ok(Call { id: id.clone(), after, path })
    }

    /// Follows a call's run to the end of its leg, telling `news` what happens;
    /// `cancel` stops the run.
    pub async fn follow_call(&self, call: &Call, news: impl FnMut(CallNews), cancel: &CancellationToken) -> Result<CallOutcome, ApiError> {
        self.follow_from(&call.id, call.after, call.path.as_deref(), news, cancel).await
    }

    /// Watches run `id` from after `after` to the end of its leg, cancelling it when
    /// `cancel` fires.
    async fn follow_from(
        &self,
        id: &RunId,
        after: Option<u64>,
        path: Option<&Path>,
        mut news: impl FnMut(CallNews),
        cancel: &CancellationToken,
    ) -> Result<CallOutcome, ApiError> {
        let mut reading = Reading::new(id);
        let mut names = Names::new(self, path);
        let mut last = after;
        let mut cancelled = false;
        loop {
            let mut watch = self.watch_run(id, last).await?;
            loop {
                let item = tokio::select! {
                    item = watch.next() => item,
                    () = cancel.cancelled(), if !cancelled => {
                        cancelled = true;
                        let _ = self.cancel_run(id).await;
                        continue;
                    }
                };
                match item {
                    Some(WatchItem::Event(event)) => {
                        last = Some(event.seq);
                        reading.read(&event, &mut names, &mut news).await;
                    }
                    Some(WatchItem::Lagged) => break,
                    Some(WatchItem::Interrupted { .. }) | None => return Ok(reading.outcome(&mut names).await),
                }
            }
        }
    }
}

/// A crew's name for outside callers: its file or folder name without `.yaml`.
pub fn outside_name(path: &Path) -> String {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    name.strip_suffix(".yaml").or_else(|| name.strip_suffix(".yml")).unwrap_or(&name).to_owned()
}

/// The agents' names as their cards say them, read from the crew at the first need.
struct Names<'a> {
    api: &'a Api,
    path: Option<&'a Path>,
    names: Option<HashMap<AgentId, String>>,
}

impl<'a> Names<'a> {
    fn new(api: &'a Api, path: Option<&'a Path>) -> Self {
        Self { api, path, names: None }
    }

    async fn of(&mut self, id: &str) -> String {
        if self.names.is_none() {
            let mut names = HashMap::new();
            if let Some(path) = self.path {
                if let Ok((crew, _)) = self.api.crew_to_run(path).await {
                    names.extend(crew.agents.iter().map(|a| (a.id.clone(), a.name.clone())));
                }
            }
            self.names = Some(names);
        }
        self.names.as_ref().and_then(|n| n.get(&AgentId::from(id))).cloned().unwrap_or_else(|| id.to_owned())
    }
}

/// The outcome, as a run's events tell it.
struct Reading {
    run_id: String,
    answer: String,
    final_agent: Option<String>,
    replied: Option<String>,
    status: Option<RunStatus>,
    error: Option<String>,
    paused: Option<(String, bool)>,
    approval: Option<String>,
    handoffs: u32,
    usage: Option<Usage>,
}

impl Reading {
    fn new(id: &RunId) -> Self {
        Self {
            run_id: id.to_string(),
            answer: String::new(),
            final_agent: None,
            replied: None,
            status: None,
            error: None,
            paused: None,
            approval: None,
            handoffs: 0,
            usage: None,
        }
    }

    async fn read(&mut self, event: &RunEvent, names: &mut Names<'_>, news: &mut impl FnMut(CallNews)) {
        match &event.kind {
            EventKind::AgentStarted { agent, .. } => news(CallNews::TurnStarted { agent: names.of(agent.as_str()).await }),
            EventKind::Token { agent, text } => news(CallNews::Token { agent: agent.to_string(), text: text.clone() }),
            EventKind::AgentResponse { agent, content, usage } => {
                self.usage = Usage::add(self.usage.take(), *usage);
                self.answer.clone_from(content);
                self.replied = Some(agent.to_string());
            }
            EventKind::Handoff { from, to, reason, handoff_count } => {
                self.handoffs += 1;
                let (from, to) = (names.of(from.as_str()).await, names.of(to).await);
                let words = format!("{from} → {to} because {reason}");
                news(CallNews::Handoff { words, count: *handoff_count });
            }
            EventKind::ToolApprovalRequested { name, arguments, .. } => {
                self.approval = Some(format!("{name} {arguments}"));
            }
            EventKind::Paused { agent, breakpoint, .. } => self.paused = Some((agent.to_string(), *breakpoint)),
            EventKind::Resumed { .. } => (self.paused, self.approval) = (None, None),
            EventKind::RunFinished { status, final_agent, error, .. } => {
                self.status = Some(*status);
                self.error.clone_from(error);
                self.final_agent = final_agent.as_ref().map(ToString::to_string);
            }
            _ => {}
        }
    }

    async fn outcome(self, names: &mut Names<'_>) -> CallOutcome {
        let status = self.status.unwrap_or(RunStatus::Running);
        let waiting = match (status, &self.paused, &self.approval) {
            (RunStatus::Paused, _, Some(call)) => Some(Waiting {
                agent: names.of(self.replied.as_deref().unwrap_or_default()).await,
                kind: "approval",
                question: format!("it asks to use the tool {call}"),
            }),
            (RunStatus::Paused, Some((agent, breakpoint)), None) => Some(Waiting {
                agent: names.of(agent).await,
                kind: "answer",
                question: if *breakpoint { "the run stopped before its turn".to_owned() } else { self.answer.clone() },
            }),
            _ => None,
        };
        let final_agent = match self.final_agent.or(self.replied) {
            Some(agent) => Some(names.of(&agent).await),
            None => None,
        };
        let error = match status {
            RunStatus::Running => Some("the server stopped before the run ended; it can be resumed".to_owned()),
            _ => self.error,
        };
        CallOutcome {
            run_id: self.run_id,
            status: status.as_str().to_owned(),
            answer: self.answer,
            final_agent,
            error,
            waiting,
            handoffs: self.handoffs,
            usage: self.usage,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paused() -> CallOutcome {
        CallOutcome {
            run_id: "run-7".into(),
            status: "paused".into(),
            answer: "Which city?".into(),
            final_agent: Some("Guide".into()),
            error: None,
            waiting: Some(Waiting { agent: "Guide".into(), kind: "answer", question: "Which city?".into() }),
            handoffs: 1,
            usage: None,
        }
    }

    #[test]
    fn a_chat_app_goes_on_with_the_run_its_last_answer_names() {
        let words = paused().in_words(GoOn::NextMessage);
        assert!(words.starts_with("Which city?"), "{words}");
        assert_eq!(waiting_run(&words), Some(RunId::from("run-7")));
        assert_eq!(waiting_run("Which city?"), None);
        assert_eq!(waiting_run("— Crewgraph run  waits for your reply."), None);
        assert_eq!(waiting_run("— Crewgraph run a b waits for your reply."), None);
    }

    #[test]
    fn an_mcp_client_is_told_to_use_resume_run() {
        let words = paused().in_words(GoOn::ResumeTool);
        assert!(words.contains("resume_run") && words.contains("run-7") && words.contains("Which city?"), "{words}");
    }

    #[test]
    fn a_failed_run_says_why_and_a_finished_one_gives_the_answer() {
        let mut outcome = paused();
        outcome.waiting = None;
        outcome.status = "failed".into();
        outcome.error = Some("the model is not set up".into());
        assert_eq!(outcome.in_words(GoOn::ResumeTool), "The crew's run run-7 ended failed: the model is not set up");
        outcome.status = "completed".into();
        outcome.error = None;
        assert_eq!(outcome.in_words(GoOn::NextMessage), "Which city?");
    }
}
