//! The seam of the `llm` and `gatekeeper` strategies (DESIGN.md §5): after each
//! agent's turn a [`RouteDecider`] is shown a [`DecisionContext`] — the person's
//! request, the workflow so far, the agent's output, the catalog of agents it may
//! choose from, the iteration count — and answers with a [`Decision`]:
//! `{workflow_complete, reasoning, next_agent, next_instruction}` (a gatekeeper adds
//! `confidence`).
//!
//! Two deciders exist: [`super::llm::LlmRouter`] (a router model with structured
//! output, here in the engine) and the gatekeeper, an HTTP client the binaries wire
//! in (the engine makes no network calls). Both parse answers with [`parse`]; the
//! run loop then [`check`]s the decision against the crew, so both strategies refuse
//! the same things: an agent the crew does not have, and the supervisor (the entry
//! point, which takes only the person's request and is never routed back to).
//!
//! ```
//! use crewgraph_engine::routing::decider::{parse, DecideError};
//!
//! let decision = parse(r#"{"workflow_complete": false, "reasoning": "needs polish",
//!                         "next_agent": "editor", "next_instruction": "Polish the draft"}"#).unwrap();
//! assert_eq!(decision.next_agent.as_deref(), Some("editor"));
//! assert!(matches!(parse("Sure! Next the editor."), Err(DecideError::Invalid { .. })));
//! ```

use async_trait::async_trait;
use serde::Serialize;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::crew::Crew;
use crate::ids::AgentId;
use crate::run::Timestamp;

/// The most characters of an agent's reply kept as its action summary.
pub const ACTION_CHARS: usize = 120;

/// One agent turn of the workflow so far, as a router sees it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WorkflowStep {
    pub agent_id: AgentId,
    /// A short summary of what it did: the first line of its reply, cut at
    /// [`ACTION_CHARS`] characters.
    pub action: String,
    /// When its reply came.
    pub timestamp: Timestamp,
}

impl WorkflowStep {
    /// The step of `agent`, which replied `reply` at `timestamp`.
    pub fn new(agent: &AgentId, reply: &str, timestamp: Timestamp) -> Self {
        WorkflowStep { agent_id: agent.clone(), action: action_summary(reply), timestamp }
    }
}

/// The first non-empty line of `reply`, its whitespace collapsed, at most
/// [`ACTION_CHARS`] characters (and `…` when cut).
pub fn action_summary(reply: &str) -> String {
    let line = reply.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("(no reply)");
    let words = line.split_whitespace().collect::<Vec<_>>().join(" ");
    match words.char_indices().nth(ACTION_CHARS) {
        Some((cut, _)) => format!("{}…", &words[..cut]),
        None => words,
    }
}

/// An agent a router may choose, as the catalog shows it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CatalogEntry {
    pub agent_id: AgentId,
    pub name: String,
    pub role: String,
    pub description: String,
    /// The agent's tags (the seed's name for them).
    pub capabilities: Vec<String>,
}

/// The catalog of `crew`: every agent but the entry point (the supervisor, which is
/// never routed to), in crew order.
pub fn catalog(crew: &Crew) -> Vec<CatalogEntry> {
    crew.agents
        .iter()
        .filter(|a| a.id != crew.entry_point)
        .map(|a| CatalogEntry {
            agent_id: a.id.clone(),
            name: a.name.clone(),
            role: a.role.clone(),
            description: if a.description.is_empty() { a.objective.clone() } else { a.description.clone() },
            capabilities: a.tags.clone(),
        })
        .collect()
}

/// Everything a router is shown to decide after one agent's turn.
#[derive(Clone, Debug, PartialEq)]
pub struct DecisionContext {
    /// The person's request, as the run was started with it.
    pub original_query: String,
    /// Every agent turn so far, oldest first; the last one is `current_agent`'s.
    pub workflow_history: Vec<WorkflowStep>,
    /// The agent that just worked.
    pub current_agent: AgentId,
    /// Its whole reply.
    pub current_output: String,
    /// The agents it may hand the work to.
    pub available_agents: Vec<CatalogEntry>,
    /// This decision's number, from 1.
    pub iteration: u32,
    /// The most decisions the run makes (`routing.max_iterations`).
    pub max_iterations: u32,
}

/// A router's answer, parsed.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    pub workflow_complete: bool,
    pub reasoning: Option<String>,
    pub next_agent: Option<String>,
    pub next_instruction: Option<String>,
    /// The gatekeeper's confidence, when it gives one.
    pub confidence: Option<f64>,
    /// The answer as it came, kept for the events when it is refused.
    pub raw: String,
}

/// A decision refused: the answer as it came, and why. Shown to the router when it
/// is asked again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejected {
    pub raw: String,
    pub problem: String,
}

/// Why a router gave no usable decision.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum DecideError {
    /// It answered, but not with a decision (not JSON, a field missing or of the
    /// wrong type). Asked once more, then the run fails with `raw` kept.
    #[error("{problem}")]
    Invalid { raw: String, problem: String },
    /// It could not be reached or refused to answer (after its own retries).
    #[error("{0}")]
    Unavailable(String),
    /// The run was cancelled while it was asked.
    #[error("cancelled")]
    Cancelled,
}

/// Decides what happens after an agent's turn.
#[async_trait]
pub trait RouteDecider: Send + Sync {
    /// The decision for `context`. When `rejected` is given, the previous answer
    /// for this same context was refused for its `problem`: a decider that can, shows
    /// it that (a router model gets it as a message; a gatekeeper is simply asked
    /// again). Must stop promptly with [`DecideError::Cancelled`] once `cancel`
    /// fires. Parsing is the decider's ([`parse`]); checking the choice against the
    /// crew is the run loop's ([`check`]).
    async fn decide(
        &self,
        context: &DecisionContext,
        rejected: Option<&Rejected>,
        cancel: &CancellationToken,
    ) -> Result<Decision, DecideError>;
}

/// Parses a router's answer: one JSON object with a boolean `workflow_complete`;
/// unless it is true, a non-empty `next_agent` and `next_instruction`; `reasoning`
/// and `confidence` when given. Nothing is dug out of surrounding text: the whole
/// answer must be the object.
pub fn parse(raw: &str) -> Result<Decision, DecideError> {
    let invalid = |problem: String| DecideError::Invalid { raw: raw.to_owned(), problem };
    let value: Value = serde_json::from_str(raw.trim()).map_err(|e| invalid(format!("the answer is not JSON ({e})")))?;
    let Value::Object(object) = value else {
        return Err(invalid("the answer is JSON but not an object".into()));
    };
    let text = |key: &str| -> Result<Option<String>, DecideError> {
        match object.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.trim().to_owned())),
            Some(other) => Err(invalid(format!("`{key}` must be text, not {other}"))),
        }
    };
    let workflow_complete = match object.get("workflow_complete") {
        Some(Value::Bool(done)) => *done,
        None | Some(Value::Null) => return Err(invalid("`workflow_complete` is missing (it must be true or false)".into())),
        Some(other) => return Err(invalid(format!("`workflow_complete` must be true or false, not {other}"))),
    };
    let reasoning = text("reasoning")?;
    let next_agent = text("next_agent")?;
    let next_instruction = text("next_instruction")?;
    let confidence = match object.get("confidence") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => n.as_f64(),
        Some(other) => return Err(invalid(format!("`confidence` must be a number, not {other}"))),
    };
    if !workflow_complete {
        if next_agent.is_none() {
            return Err(invalid("`next_agent` is missing: a decision that does not complete the workflow must name the next agent".into()));
        }
        if next_instruction.is_none() {
            return Err(invalid("`next_instruction` is missing: the next agent needs to be told what to do".into()));
        }
    }
    Ok(Decision { workflow_complete, reasoning, next_agent, next_instruction, confidence, raw: raw.to_owned() })
}

/// What a checked decision leads to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Next {
    /// The request is satisfied: the run ends `completed`.
    Complete,
    /// `agent` works next on `instruction`.
    Agent { agent: AgentId, instruction: String },
}

/// Checks `decision` against `crew`: the agent it names must be one of the crew's,
/// and not the supervisor (the entry point). The problem, in words, otherwise.
pub fn check(crew: &Crew, decision: &Decision) -> Result<Next, String> {
    if decision.workflow_complete {
        return Ok(Next::Complete);
    }
    let (Some(agent), Some(instruction)) = (&decision.next_agent, &decision.next_instruction) else {
        return Err("the decision names no next agent or no instruction".into());
    };
    let choices = || catalog(crew).iter().map(|c| c.agent_id.to_string()).collect::<Vec<_>>().join(", ");
    if *agent == crew.entry_point.as_str() {
        return Err(format!(
            "`next_agent` names '{agent}', the supervisor, which takes only the person's request and cannot be handed work (choose one of: {})",
            choices()
        ));
    }
    match crew.agent(agent) {
        Some(found) => Ok(Next::Agent { agent: found.id.clone(), instruction: instruction.clone() }),
        None => Err(format!("`next_agent` names '{agent}', which is not an agent of this crew (choose one of: {})", choices())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::load_str;

    fn crew() -> Crew {
        let loaded = load_str(
            "crew.yaml",
            "name: c\nentry_point: lead\nrouting: { strategy: llm }\nagents:\n  - { id: lead }\n  - { id: writer, role: Writes, tags: [prose] }\n  - { id: editor, description: Polishes }\n",
        );
        assert!(loaded.is_valid(), "{:#?}", loaded.diagnostics);
        loaded.crew.unwrap()
    }

    fn problem(raw: &str) -> String {
        match parse(raw) {
            Err(DecideError::Invalid { problem, raw: kept }) => {
                assert_eq!(kept, raw, "the raw answer is kept as it came");
                problem
            }
            other => panic!("{raw} parsed: {other:?}"),
        }
    }

    #[test]
    fn a_complete_decision_needs_no_agent() {
        let decision = parse(r#"{"workflow_complete": true, "reasoning": "done", "next_agent": null, "next_instruction": null}"#).unwrap();
        assert!(decision.workflow_complete);
        assert_eq!(check(&crew(), &decision), Ok(Next::Complete));
    }

    #[test]
    fn a_gatekeeper_answer_with_confidence_and_no_reasoning_parses() {
        let decision =
            parse(r#"{"workflow_complete": false, "next_agent": "editor", "next_instruction": "Polish it", "confidence": 0.95}"#).unwrap();
        assert_eq!((decision.reasoning, decision.confidence), (None, Some(0.95)));
        assert_eq!(
            check(&crew(), &parse(&decision.raw).unwrap()),
            Ok(Next::Agent { agent: AgentId::from("editor"), instruction: "Polish it".into() })
        );
    }

    #[test]
    fn malformed_answers_say_what_is_wrong() {
        assert!(problem("Next: the editor").starts_with("the answer is not JSON"));
        assert!(
            problem("```json\n{\"workflow_complete\": true}\n```").starts_with("the answer is not JSON"),
            "no digging JSON out of text"
        );
        assert_eq!(problem("[1, 2]"), "the answer is JSON but not an object");
        assert!(problem(r#"{"next_agent": "editor"}"#).contains("`workflow_complete` is missing"));
        assert!(problem(r#"{"workflow_complete": "no"}"#).contains("must be true or false"));
        assert!(problem(r#"{"workflow_complete": false, "next_instruction": "x"}"#).contains("`next_agent` is missing"));
        assert!(problem(r#"{"workflow_complete": false, "next_agent": "editor", "next_instruction": "  "}"#)
            .contains("`next_instruction` is missing"));
        assert!(problem(r#"{"workflow_complete": false, "next_agent": 3, "next_instruction": "x"}"#).contains("`next_agent` must be text"));
        assert!(problem(r#"{"workflow_complete": true, "confidence": "high"}"#).contains("`confidence` must be a number"));
    }

    #[test]
    fn an_unknown_agent_or_the_supervisor_is_refused_with_the_choices() {
        let crew = crew();
        let unknown = parse(r#"{"workflow_complete": false, "next_agent": "judge", "next_instruction": "x"}"#).unwrap();
        let why = check(&crew, &unknown).unwrap_err();
        assert!(why.contains("'judge', which is not an agent of this crew") && why.contains("writer, editor"), "{why}");
        let supervisor = parse(r#"{"workflow_complete": false, "next_agent": "lead", "next_instruction": "x"}"#).unwrap();
        let why = check(&crew, &supervisor).unwrap_err();
        assert!(why.contains("'lead', the supervisor"), "{why}");
    }

    #[test]
    fn the_catalog_leaves_out_the_supervisor() {
        let ids: Vec<String> = catalog(&crew()).iter().map(|c| c.agent_id.to_string()).collect();
        assert_eq!(ids, ["writer", "editor"]);
        assert_eq!(catalog(&crew())[0].capabilities, ["prose"]);
    }

    #[test]
    fn actions_are_the_first_line_cut_short() {
        assert_eq!(action_summary("\n  Wrote the   draft.\nMore."), "Wrote the draft.");
        let long = "word ".repeat(100);
        let action = action_summary(&long);
        assert_eq!(action.chars().count(), ACTION_CHARS + 1);
        assert!(action.ends_with('…'));
        assert_eq!(action_summary(""), "(no reply)");
    }
}
