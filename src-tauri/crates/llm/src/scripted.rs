//! The `scripted` provider (DESIGN.md §6): replies taken from a YAML script, per
//! agent, in order — Crewgraph's Simulate mode (routing tried out without spending
//! tokens) and the deterministic model of the engine's tests. It streams each reply
//! word by word like a real provider, spreading a reply's `delay_ms` over its words.
//!
//! ```yaml
//! replies:
//!   teacher:
//!     - "Question 1: what is 1/2 + 1/4? [QUESTION]"
//!     - { content: "Let me check the time.", tool_calls: [{ name: current_time, arguments: {} }] }
//!     - "That is all. [END_EXAM]"
//!   student: ["3/4 [ANSWER]", { error: "provider unavailable" }]
//!   reporter: [{ content: "Score 1/1 [OK]", delay_ms: 200 }]
//! ```
//!
//! A reply is a string or a map with `content`, `tool_calls` (`[{name, arguments}]`),
//! `error` (the call fails with this message) and `delay_ms`. An agent with no reply
//! left fails the run with an error naming it. Under the `llm` strategy the router
//! model's answers are scripted under `router`; under the `gatekeeper` strategy the
//! gatekeeper service's under `gatekeeper` ([`GATEKEEPER`]: each reply's text one JSON
//! answer, which the run then takes instead of asking the service).

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use async_trait::async_trait;
use crewgraph_engine::crew::Strategy;
use crewgraph_engine::file::{is_null, Entries};
use crewgraph_engine::load::line_lengths;
use crewgraph_engine::routing::llm::ROUTER_AGENT;
use crewgraph_engine::run::{LlmClient, LlmError, LlmReply, LlmRequest, ToolCall};
use crewgraph_engine::{AgentId, Crew, Problem};
use marked_yaml::{Marker, Spanned};
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// A problem with a script, at its place in the file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}:{column}: {message}")]
pub struct ScriptError {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// One scripted reply.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ScriptedReply {
    pub content: String,
    pub tool_calls: Vec<(String, serde_json::Value)>,
    /// The call fails with this message.
    pub error: Option<String>,
    /// Spread over the reply's words as it streams.
    pub delay_ms: u64,
}

#[derive(Deserialize, Serialize)]
struct ScriptFile {
    replies: Entries<Spanned<String>, Vec<ReplyFile>>,
}

/// A reply as written: text, or a mapping.
#[derive(Serialize)]
#[serde(untagged)]
enum ReplyFile {
    Text(String),
    Map(ReplyMap),
}

#[derive(Deserialize, Serialize)]
struct ReplyMap {
    #[serde(default)]
    content: String,
    #[serde(default)]
    tool_calls: Vec<ToolCallFile>,
    error: Option<String>,
    #[serde(default)]
    delay_ms: u64,
}

#[derive(Deserialize, Serialize)]
struct ToolCallFile {
    name: String,
    #[serde(default)]
    arguments: serde_json::Value,
}

impl<'de> Deserialize<'de> for ReplyFile {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ReplyVisitor;
        impl<'de> Visitor<'de> for ReplyVisitor {
            type Value = ReplyFile;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a reply: text, or a mapping with content, tool_calls, error, delay_ms")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
                Ok(ReplyFile::Text(text.to_owned()))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                Ok(ReplyFile::Map(ReplyMap::deserialize(de::value::MapAccessDeserializer::new(map))?))
            }
        }
        deserializer.deserialize_any(ReplyVisitor)
    }
}

impl ReplyFile {
    fn into_reply(self) -> ScriptedReply {
        match self {
            ReplyFile::Text(content) => ScriptedReply { content, ..ScriptedReply::default() },
            ReplyFile::Map(m) => ScriptedReply {
                // `content: null` is no text and `error: null` no error, as YAML means them.
                content: if is_null(&m.content) { String::new() } else { m.content },
                tool_calls: m.tool_calls.into_iter().map(|c| (c.name, arguments(c.arguments))).collect(),
                error: m.error.filter(|e| !is_null(e)),
                delay_ms: m.delay_ms,
            },
        }
    }
}

/// Tool arguments as written; an empty value (`arguments:`) is an empty object.
fn arguments(value: serde_json::Value) -> serde_json::Value {
    match value {
        serde_json::Value::Null => serde_json::json!({}),
        serde_json::Value::String(s) if s.is_empty() => serde_json::json!({}),
        other => other,
    }
}

/// The name a script's answers for the gatekeeper service are under (the
/// `gatekeeper` strategy): each reply's `content` is one answer of the service,
/// `error` fails the decision as an unreachable service would, `delay_ms` waits.
pub const GATEKEEPER: &str = "gatekeeper";

/// The fields of a routing decision: met as keys of a reply, they are a decision
/// written as a YAML mapping instead of as text.
const DECISION_FIELDS: [&str; 5] = ["workflow_complete", "next_agent", "next_instruction", "reasoning", "confidence"];

/// The longest a reply's `delay_ms` is honoured: a day (more would overflow a clock).
pub const MAX_DELAY_MS: u64 = 24 * 60 * 60 * 1000;

/// A parsed script: each agent's replies in order, and where each agent is named.
#[derive(Clone, Debug, Default)]
pub struct Script {
    file: String,
    replies: Vec<(AgentId, Vec<ScriptedReply>, Marker)>,
}

/// What a run's agents already took from a script: per agent, how many replies its
/// turns used (one per reply that ended a turn, one per reply that asked for tools),
/// and the text of the replies that ended a turn, in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RepliesUsed {
    pub counts: HashMap<AgentId, usize>,
    pub said: HashMap<AgentId, Vec<String>>,
    /// Every reply each agent's turns used, in order: what ended a turn, and the tools
    /// a reply asked for (a turn stopped at a tool call waiting for approval has only
    /// these).
    pub order: HashMap<AgentId, Vec<UsedReply>>,
}

/// One reply a run used.
#[derive(Clone, Debug, PartialEq)]
pub enum UsedReply {
    /// A reply that ended a turn, with its text.
    Said(String),
    /// A reply that asked for tools, with their names (`server.tool` for a server's).
    Asked(Vec<String>),
}

/// A tool's name as events say it: `server.tool` for `server/tool` or the name a
/// model knows it by (`server__tool`).
fn dotted(name: &str) -> String {
    name.replacen("__", ".", 1).replacen('/', ".", 1)
}

impl Script {
    /// Fits the script of a resume to the run, by one rule for the window, the server
    /// and the CLI: when each agent's first replies are the ones the run already used
    /// (the script of the whole run), they are skipped; otherwise the script holds the
    /// replies from the resume point on. True when it skipped.
    pub fn resume_after(&mut self, used: &RepliesUsed) -> bool {
        if !self.repeats(used) {
            return false;
        }
        for (agent, replies, _) in &mut self.replies {
            let n = used.counts.get(agent).copied().unwrap_or(0).min(replies.len());
            replies.drain(..n);
        }
        true
    }

    /// Leaves out `agent`'s first `n` replies (those a try-out chat already used).
    pub fn skip_replies_of(&mut self, agent: &AgentId, n: usize) {
        if let Some((_, replies, _)) = self.replies.iter_mut().find(|(a, _, _)| a == agent) {
            replies.drain(..n.min(replies.len()));
        }
    }

    /// True when, for every agent that said something, the script's first replies
    /// hold what it said, in order (tool-call rounds in between).
    fn repeats(&self, used: &RepliesUsed) -> bool {
        self.repeats_in_order(used) || self.repeats_what_was_said(used)
    }

    /// True when each agent's first replies are, one for one, those the run used:
    /// the same text for a reply that ended a turn, the same tools for one that asked.
    fn repeats_in_order(&self, used: &RepliesUsed) -> bool {
        let mut compared = false;
        for (agent, order) in used.order.iter().filter(|(_, order)| !order.is_empty()) {
            let Some((_, replies, _)) = self.replies.iter().find(|(a, _, _)| a == agent) else { return false };
            let Some(first) = replies.get(..order.len()) else { return false };
            let same = first.iter().zip(order).all(|(reply, used)| match used {
                UsedReply::Said(text) => reply.tool_calls.is_empty() && reply.content.trim() == text.trim(),
                UsedReply::Asked(names) => {
                    let asked: Vec<String> = reply.tool_calls.iter().map(|(name, _)| dotted(name)).collect();
                    asked == names.iter().map(|n| dotted(n)).collect::<Vec<_>>()
                }
            });
            if !same {
                return false;
            }
            compared = true;
        }
        compared
    }

    fn repeats_what_was_said(&self, used: &RepliesUsed) -> bool {
        let mut compared = false;
        for (agent, said) in used.said.iter().filter(|(_, said)| !said.is_empty()) {
            let count = used.counts.get(agent).copied().unwrap_or(0);
            let Some((_, replies, _)) = self.replies.iter().find(|(a, _, _)| a == agent) else { return false };
            let Some(first) = replies.get(..count) else { return false };
            let mut contents = first.iter().map(|reply| reply.content.trim());
            if !said.iter().all(|text| contents.any(|content| content == text.trim())) {
                return false;
            }
            compared = true;
        }
        compared
    }

    /// Reads and parses a script file.
    pub fn load(path: &Path) -> Result<Script, ScriptError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| ScriptError {
            file: file.clone(),
            line: 1,
            column: 1,
            message: format!("cannot read the script: {e}"),
        })?;
        Script::parse(&file, &text)
    }

    /// Parses script text; `file` names it in errors. Unknown keys are errors here:
    /// a misspelt `contents:` would otherwise silently give an empty reply.
    pub fn parse(file: &str, text: &str) -> Result<Script, ScriptError> {
        if text.trim().is_empty() {
            return Err(ScriptError {
                file: file.to_owned(),
                line: 1,
                column: 1,
                message: "the script is empty; it needs a `replies:` mapping of agent ids to replies".into(),
            });
        }
        let (parsed, problems) = crewgraph_engine::load::parse_yaml::<ScriptFile>(file, text);
        if let Some(problem) = problems.first() {
            let location = problem.location.clone();
            let message = match &problem.problem {
                // A decision written as a YAML mapping: it is text (JSON) in quotes.
                Problem::UnknownKey { key } if DECISION_FIELDS.contains(&key.as_str()) => format!(
                    "unknown key '{key}': a router's or gatekeeper's answer is one JSON object written as text, in quotes \
                     ('{{\"workflow_complete\": true}}'), or as the `content` of a mapping"
                ),
                Problem::UnknownKey { key } => {
                    format!("unknown key '{key}': a reply is text, or a mapping with content, tool_calls, error and delay_ms")
                }
                Problem::NotAMapping | Problem::Empty => "a script must be a mapping with `replies:`".into(),
                _ => format!("not a valid script: {}", problem.message),
            };
            return Err(ScriptError {
                file: file.to_owned(),
                line: location.as_ref().map_or(1, |l| l.line as usize),
                column: location.as_ref().map_or(1, |l| l.column as usize),
                message,
            });
        }
        let Some(parsed) = parsed else {
            return Err(ScriptError { file: file.to_owned(), line: 1, column: 1, message: "not a valid script".into() });
        };
        let replies = parsed
            .replies
            .0
            .into_iter()
            .map(|(agent, replies)| {
                let marker = agent.span().start().copied().map_or_else(|| Marker::new(0, 0, 1, 1), |m| inside(text, m));
                (AgentId::from(agent.as_str()), replies.into_iter().map(ReplyFile::into_reply).collect(), marker)
            })
            .collect();
        Ok(Script { file: file.to_owned(), replies })
    }

    /// Errors for agents the script names that the crew does not have. Under the
    /// `llm` strategy the router model answers as `router`, and under the
    /// `gatekeeper` strategy the gatekeeper as [`GATEKEEPER`], so a script may name
    /// them (the gatekeeper's answers are decisions: they cannot call tools).
    pub fn check(&self, crew: &Crew) -> Result<(), Vec<ScriptError>> {
        let strategy = crew.routing.strategy;
        let decider = |agent: &AgentId| {
            (strategy == Strategy::Llm && agent.as_str() == ROUTER_AGENT)
                || (strategy == Strategy::Gatekeeper && agent.as_str() == GATEKEEPER)
        };
        let error = |marker: &Marker, message: String| ScriptError {
            file: self.file.clone(),
            line: marker.line(),
            column: marker.column(),
            message,
        };
        let mut errors = Vec::new();
        for (agent, replies, marker) in &self.replies {
            if crew.agent(agent.as_str()).is_none() && !decider(agent) {
                errors.push(error(marker, format!("the script names agent '{agent}', which the crew does not have")));
            } else if strategy == Strategy::Gatekeeper && agent.as_str() == GATEKEEPER && replies.iter().any(|r| !r.tool_calls.is_empty()) {
                errors.push(error(marker, "the gatekeeper's answers cannot call tools: each is one JSON decision".into()));
            }
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }

    /// The replies the script gives `agent` (or the router, or the gatekeeper), in
    /// order; None when it names it nowhere.
    pub fn replies_of(&self, agent: &str) -> Option<&[ScriptedReply]> {
        self.replies.iter().find(|(a, _, _)| a.as_str() == agent).map(|(_, replies, _)| replies.as_slice())
    }
}

/// `marker` moved inside `text`: the parser can place one past the last line, or
/// past the end of its line.
fn inside(text: &str, marker: Marker) -> Marker {
    let (line, column) = crewgraph_engine::report::inside(&line_lengths(text), marker.line() as u32, marker.column() as u32);
    Marker::new(marker.source(), marker.character(), line as usize, column as usize)
}

/// The scripted model: pops the next reply of the agent that asks.
#[derive(Debug, Default)]
pub struct ScriptedLlm {
    queues: Mutex<HashMap<AgentId, VecDeque<ScriptedReply>>>,
    calls: Mutex<u64>,
}

impl ScriptedLlm {
    /// A provider replaying `script`.
    pub fn new(script: &Script) -> Self {
        let queues = script.replies.iter().map(|(agent, replies, _)| (agent.clone(), replies.iter().cloned().collect())).collect();
        Self { queues: Mutex::new(queues), calls: Mutex::new(0) }
    }

    fn next_reply(&self, agent: &AgentId) -> Result<ScriptedReply, LlmError> {
        let mut queues = self.queues.lock().unwrap_or_else(|p| p.into_inner());
        let queue = queues.get_mut(agent).ok_or_else(|| LlmError::NoScriptFor(agent.clone()))?;
        queue.pop_front().ok_or_else(|| LlmError::ScriptExhausted(agent.clone()))
    }

    fn call_id(&self) -> String {
        let mut calls = self.calls.lock().unwrap_or_else(|p| p.into_inner());
        *calls += 1;
        format!("call-{calls}")
    }
}

/// A reply cut into the pieces it streams as: each word with the spaces after it.
fn pieces(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut in_space = false;
    for (i, c) in text.char_indices() {
        if c.is_whitespace() {
            in_space = true;
        } else if in_space {
            out.push(&text[start..i]);
            start = i;
            in_space = false;
        }
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

#[async_trait]
impl LlmClient for ScriptedLlm {
    async fn complete(
        &self,
        request: &LlmRequest<'_>,
        on_token: crewgraph_engine::run::llm::TokenSink<'_>,
        cancel: &CancellationToken,
    ) -> Result<LlmReply, LlmError> {
        let reply = self.next_reply(request.agent)?;
        let pieces = pieces(&reply.content);
        let delay = Duration::from_millis(reply.delay_ms.min(MAX_DELAY_MS));
        if pieces.is_empty() && !delay.is_zero() {
            wait_until(Instant::now() + delay, cancel).await?;
        }
        // Each word is due at its share of the delay from the start: a timer's
        // granularity (about a millisecond) is paid at most once per word that is
        // late, not added to every word, so `delay_ms` holds for long replies too.
        let start = Instant::now();
        let count = pieces.len().max(1) as u32;
        for (index, piece) in pieces.iter().enumerate() {
            let due = start + delay.mul_f64(f64::from(index as u32 + 1) / f64::from(count));
            if !delay.is_zero() && Instant::now() < due {
                wait_until(due, cancel).await?;
            } else if cancel.is_cancelled() {
                return Err(LlmError::Cancelled);
            }
            on_token(piece);
        }
        if let Some(error) = reply.error {
            return Err(LlmError::Failed(format!("scripted: {error}")));
        }
        let tool_calls = reply.tool_calls.into_iter().map(|(name, arguments)| ToolCall { id: self.call_id(), name, arguments }).collect();
        Ok(LlmReply { content: reply.content, tool_calls, usage: None })
    }
}

async fn wait_until(due: Instant, cancel: &CancellationToken) -> Result<(), LlmError> {
    tokio::select! {
        _ = tokio::time::sleep_until(due) => Ok(()),
        _ = cancel.cancelled() => Err(LlmError::Cancelled),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crewgraph_engine::run::history::Visible;

    const SCRIPT: &str = r#"replies:
  teacher:
    - "Question 1: what is 1/2 + 1/4? [QUESTION]"
    - { content: "Let me check the time.", tool_calls: [{ name: current_time, arguments: {} }] }
    - "That is all. [END_EXAM]"
  student: ["3/4 [ANSWER]", { error: "provider unavailable" }]
  reporter: [{ content: "Score 1/1 [OK]", delay_ms: 20 }]
"#;

    fn request(agent: &AgentId) -> LlmRequest<'_> {
        LlmRequest::new(agent, "", Visible::all(&[]))
    }

    #[tokio::test]
    async fn replies_come_in_order_per_agent_and_stream_word_by_word() {
        let llm = ScriptedLlm::new(&Script::parse("s.yaml", SCRIPT).unwrap());
        let cancel = CancellationToken::new();
        let streamed = Mutex::new(Vec::new());
        let on_token = |t: &str| streamed.lock().unwrap().push(t.to_owned());
        let first = llm.complete(&request(&AgentId::from("teacher")), &on_token, &cancel).await.unwrap();
        assert_eq!(first.content, "Question 1: what is 1/2 + 1/4? [QUESTION]");
        assert_eq!(streamed.lock().unwrap().concat(), first.content);
        assert_eq!(streamed.lock().unwrap()[0], "Question ");
        let second = llm.complete(&request(&AgentId::from("teacher")), &|_| {}, &cancel).await.unwrap();
        assert_eq!(
            second.tool_calls,
            vec![ToolCall { id: "call-1".into(), name: "current_time".into(), arguments: serde_json::json!({}) }]
        );
        let third = llm.complete(&request(&AgentId::from("teacher")), &|_| {}, &cancel).await.unwrap();
        assert!(third.content.ends_with("[END_EXAM]"));
        assert_eq!(
            llm.complete(&request(&AgentId::from("teacher")), &|_| {}, &cancel).await,
            Err(LlmError::ScriptExhausted(AgentId::from("teacher")))
        );
    }

    #[tokio::test]
    async fn errors_and_unknown_agents_fail_the_call() {
        let llm = ScriptedLlm::new(&Script::parse("s.yaml", SCRIPT).unwrap());
        let cancel = CancellationToken::new();
        assert!(llm.complete(&request(&AgentId::from("student")), &|_| {}, &cancel).await.is_ok());
        assert_eq!(
            llm.complete(&request(&AgentId::from("student")), &|_| {}, &cancel).await,
            Err(LlmError::Failed("scripted: provider unavailable".into()))
        );
        assert_eq!(
            llm.complete(&request(&AgentId::from("nobody")), &|_| {}, &cancel).await,
            Err(LlmError::NoScriptFor(AgentId::from("nobody")))
        );
    }

    #[tokio::test]
    async fn a_delay_can_be_cancelled() {
        let llm = ScriptedLlm::new(&Script::parse("s.yaml", "replies:\n  a: [{ content: 'slow reply here', delay_ms: 60000 }]\n").unwrap());
        let cancel = CancellationToken::new();
        cancel.cancel();
        assert_eq!(llm.complete(&request(&AgentId::from("a")), &|_| {}, &cancel).await, Err(LlmError::Cancelled));
    }

    #[test]
    fn bad_scripts_say_where() {
        let error = Script::parse("s.yaml", "replies:\n  a: [{ contents: x }]\n").unwrap_err();
        assert_eq!((error.line, error.file.as_str()), (2, "s.yaml"));
        assert!(error.message.contains("contents"), "{error}");
        assert_eq!((error.line, error.column), (2, 9), "at the unknown key");
        let error = Script::parse("s.yaml", "replies:\n  a: \"unclosed\n").unwrap_err();
        assert!(error.message.starts_with("not a valid script: YAML syntax error"), "{error}");
        let error = Script::parse("s.yaml", "replies:\n  a: [{ delay_ms: soon }]\n").unwrap_err();
        assert_eq!((error.line, error.column), (2, 19), "{error}");
        assert!(Script::parse("s.yaml", "  \n").unwrap_err().message.contains("empty"));
        // A missing field deep inside points at its mapping, not at `replies:`.
        let text = "replies:\n  b: [x]\n  a:\n    - one\n    - tool_calls: [{ arguments: {} }]\n";
        let error = Script::parse("s.yaml", text).unwrap_err();
        assert_eq!((error.line, error.column), (5, 20), "{error}");
        assert!(error.message.contains("'replies.a[1].tool_calls[0].name'"), "{error}");
    }

    #[tokio::test]
    async fn a_delay_too_long_for_any_clock_is_held_at_a_day_and_stops_on_cancel() {
        // Found by fuzzing: delay_ms u64::MAX overflowed the clock and panicked.
        for text in
            ["replies:\n  a: [{ content: x y, delay_ms: 18446744073709551615 }]\n", "replies:\n  a: [{ delay_ms: 18446744073709551615 }]\n"]
        {
            let llm = ScriptedLlm::new(&Script::parse("s.yaml", text).unwrap());
            let cancel = CancellationToken::new();
            let stop = cancel.clone();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(20)).await;
                stop.cancel();
            });
            assert_eq!(llm.complete(&request(&AgentId::from("a")), &|_| {}, &cancel).await, Err(LlmError::Cancelled));
        }
    }

    #[test]
    fn null_content_and_error_mean_none() {
        let script = Script::parse("s.yaml", "replies:\n  a: [{ content: null, error: null }, { content: ~, error: ~ }]\n").unwrap();
        let replies = &script.replies[0].1;
        assert!(replies.iter().all(|r| r.content.is_empty() && r.error.is_none()), "{replies:?}");
    }

    #[test]
    fn a_resume_after_a_tool_approval_skips_the_replies_that_asked_for_tools() {
        // A turn stopped at its second call waiting for approval: nothing said yet.
        let used = RepliesUsed {
            counts: [(AgentId::from("w"), 2)].into_iter().collect(),
            said: HashMap::new(),
            order: [(
                AgentId::from("w"),
                vec![UsedReply::Asked(vec!["files.write_file".into()]), UsedReply::Asked(vec!["files.write_file".into()])],
            )]
            .into_iter()
            .collect(),
        };
        let text = "replies:\n  w:\n    - { tool_calls: [{ name: files.write_file }] }\n    - { tool_calls: [{ name: files__write_file }] }\n    - Done.\n";
        let mut whole = Script::parse("s.yaml", text).unwrap();
        assert!(whole.resume_after(&used));
        assert_eq!(whole.replies[0].1.iter().map(|r| r.content.as_str()).collect::<Vec<_>>(), ["Done."]);
        let mut other = Script::parse("s.yaml", "replies:\n  w:\n    - { tool_calls: [{ name: calculator }] }\n    - Done.\n").unwrap();
        assert!(!other.resume_after(&used), "another tool: the script is the rest of the run");
    }

    #[test]
    fn a_resume_skips_what_a_whole_run_script_already_gave_and_keeps_a_rest_of_run_script() {
        let used = RepliesUsed {
            counts: [(AgentId::from("a"), 2)].into_iter().collect(),
            said: [(AgentId::from("a"), vec!["Which colour? [WAIT]".to_owned()])].into_iter().collect(),
            order: HashMap::new(),
        };
        // Two replies used: one asked for tools, one ended the turn with a question.
        let mut whole = Script::parse(
            "s.yaml",
            "replies:\n  a: [{ content: Checking, tool_calls: [{ name: calculator }] }, \"Which colour? [WAIT]\", \"Blue. [DONE]\"]\n",
        )
        .unwrap();
        assert!(whole.resume_after(&used));
        assert_eq!(whole.replies[0].1.iter().map(|r| r.content.as_str()).collect::<Vec<_>>(), ["Blue. [DONE]"]);
        let mut rest = Script::parse("s.yaml", "replies:\n  a: [\"Blue. [DONE]\"]\n").unwrap();
        assert!(!rest.resume_after(&used));
        assert_eq!(rest.replies[0].1.len(), 1);
    }

    #[test]
    fn a_script_may_answer_for_the_router_only_under_the_llm_strategy() {
        let script = Script::parse("s.yaml", "replies:\n  a: [hi]\n  router: ['{\"workflow_complete\": true}']\n").unwrap();
        let crew = |strategy: &str| {
            let loaded = crewgraph_engine::load_str(
                "c.yaml",
                &format!("name: c\nentry_point: a\nrouting: {{ strategy: {strategy} }}\nagents: [{{ id: a }}, {{ id: b }}]\n"),
            );
            loaded.crew.unwrap()
        };
        assert!(script.check(&crew("llm")).is_ok());
        let errors = script.check(&crew("signals")).unwrap_err();
        assert_eq!(errors.len(), 1);
        assert!(errors[0].message.contains("agent 'router', which the crew does not have"), "{}", errors[0]);
    }

    #[test]
    fn a_script_may_answer_for_the_gatekeeper_only_under_the_gatekeeper_strategy() {
        let text = "replies:\n  a: [hi]\n  gatekeeper: ['{\"workflow_complete\": true}', { error: down }]\n";
        let script = Script::parse("s.yaml", text).unwrap();
        let crew = |routing: &str| {
            let yaml = format!("name: c\nentry_point: a\nrouting: {routing}\nagents: [{{ id: a }}, {{ id: b }}]\n");
            crewgraph_engine::load_str("c.yaml", &yaml).crew.unwrap()
        };
        assert!(script.check(&crew("{ strategy: gatekeeper, gatekeeper: { url: 'http://127.0.0.1:9/' } }")).is_ok());
        for other in ["{ strategy: llm }", "{ strategy: signals }"] {
            let errors = script.check(&crew(other)).unwrap_err();
            assert!(errors[0].message.contains("agent 'gatekeeper', which the crew does not have"), "{other}: {}", errors[0]);
        }
        let answers = script.replies_of(GATEKEEPER).expect("the gatekeeper's answers");
        assert_eq!(answers[0].content, r#"{"workflow_complete": true}"#);
        assert_eq!(answers[1].error.as_deref(), Some("down"));
        assert!(script.replies_of("b").is_none());

        let tools = Script::parse("s.yaml", "replies:\n  gatekeeper: [{ tool_calls: [{ name: calculator }] }]\n").unwrap();
        let errors = tools.check(&crew("{ strategy: gatekeeper, gatekeeper: { url: 'http://127.0.0.1:9/' } }")).unwrap_err();
        assert_eq!((errors[0].line, errors[0].column), (2, 3), "{}", errors[0]);
        assert!(errors[0].message.contains("cannot call tools"), "{}", errors[0]);
    }

    #[test]
    fn a_decision_written_as_a_mapping_is_told_to_be_text() {
        let error = Script::parse("s.yaml", "replies:\n  gatekeeper:\n    - { workflow_complete: true }\n").unwrap_err();
        assert!(error.message.contains("a router's or gatekeeper's answer is one JSON object written as text, in quotes"), "{error}");
        assert_eq!(error.line, 3, "{error}");
    }

    #[test]
    fn pieces_keep_every_character() {
        assert_eq!(pieces("a  b\nc"), ["a  ", "b\n", "c"]);
        assert_eq!(pieces(""), Vec::<&str>::new());
    }
}
