//! A gatekeeper service anyone can start: `crewgraph serve` answers gatekeeper
//! questions at `POST /gatekeeper` (DESIGN.md §5's shape, as
//! [`super::GatekeeperClient`] asks them), so a crew of the `gatekeeper` strategy
//! runs with nothing else installed (`crews/gatekeeper-desk.yaml` asks
//! `http://127.0.0.1:7878/gatekeeper`, serve's default address).
//!
//! It decides by keywords, deterministically: every available agent that has not
//! worked yet (no step of `workflow_history` is its) is scored against the words of
//! `original_query` and `current_output` as the `scoring` strategy scores a
//! specialist ([`scoring::score`]: +1 for each distinct word of 3+ letters found in
//! the agent's role, name, description and capabilities, +2 for each capability
//! that is one of those words); the highest score gets the work, the first listed
//! among equals. When no such agent scores above 0 — or this is the last decision
//! `max_iterations` allows — the workflow is complete. The instruction tells the
//! chosen agent its part and hands it the latest work (agents see nothing else).
//! A question asked again after a refused answer (`rejected`) gets the same answer.
//!
//! ```
//! use crewgraph::api::{decide_by_keywords, GatekeeperQuestion};
//!
//! let question: GatekeeperQuestion = serde_json::from_value(serde_json::json!({
//!     "original_query": "I was charged twice on my invoice",
//!     "workflow_history": [{"agent_id": "desk", "action": "A double charge.", "timestamp": "2026-11-28T10:00:00.000Z"}],
//!     "current_output": "A double charge.",
//!     "available_agents": [
//!         {"agent_id": "tech", "name": "Tech", "role": "Login problems", "capabilities": ["login"]},
//!         {"agent_id": "billing", "name": "Billing", "role": "Charges and refunds", "capabilities": ["invoice", "charge"]}
//!     ]
//! })).unwrap();
//! let answer = decide_by_keywords(&question);
//! assert_eq!(answer.next_agent.as_deref(), Some("billing"));
//! ```

use std::collections::HashSet;

use crewgraph_engine::crew::Agent;
use crewgraph_engine::routing::scoring;
use crewgraph_engine::AgentId;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;
use utoipa::ToSchema;

/// What a gatekeeper service is asked after an agent's turn (DESIGN.md §5).
#[derive(Clone, Debug, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct GatekeeperQuestion {
    /// The person's request.
    #[schema(example = "I was charged twice on my invoice and want a refund")]
    pub original_query: String,
    /// Every agent turn so far, oldest first.
    pub workflow_history: Vec<GatekeeperStep>,
    /// The agent that just worked.
    #[serde(default)]
    #[ts(optional)]
    pub current_agent: Option<String>,
    /// Its reply: text, or JSON when the reply was a JSON object or array.
    #[serde(default)]
    #[schema(value_type = Value)]
    #[ts(optional, type = "unknown")]
    pub current_output: Value,
    /// The agents the work may go to.
    pub available_agents: Vec<GatekeeperAgent>,
    /// This decision's number, from 1. (A signed 64-bit number, as the OpenAPI
    /// document says: the server takes exactly what the document allows.)
    #[serde(default)]
    #[ts(optional, as = "Option<f64>")]
    pub iteration: Option<i64>,
    /// The most decisions the run makes.
    #[serde(default)]
    #[ts(optional, as = "Option<f64>")]
    pub max_iterations: Option<i64>,
    /// The previous answer to this same question, refused by the run, and why.
    #[serde(default)]
    #[ts(optional)]
    pub rejected: Option<RefusedAnswer>,
}

/// One agent turn of the workflow so far.
#[derive(Clone, Debug, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct GatekeeperStep {
    #[schema(example = "desk")]
    pub agent_id: String,
    /// What it did: the first line of its reply.
    #[serde(default)]
    #[ts(optional)]
    pub action: Option<String>,
    /// When it replied (RFC 3339).
    #[serde(default)]
    #[ts(optional)]
    pub timestamp: Option<String>,
}

/// An agent the work may go to.
#[derive(Clone, Debug, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct GatekeeperAgent {
    #[schema(example = "billing")]
    pub agent_id: String,
    #[serde(default)]
    #[ts(optional)]
    pub name: Option<String>,
    #[serde(default)]
    #[ts(optional)]
    pub role: Option<String>,
    #[serde(default)]
    #[ts(optional)]
    pub description: Option<String>,
    /// Its tags.
    #[serde(default)]
    #[ts(optional)]
    pub capabilities: Option<Vec<String>>,
}

/// A refused answer, sent back with the question asked again.
#[derive(Clone, Debug, Deserialize, TS, ToSchema)]
#[serde(deny_unknown_fields)]
#[ts(export)]
pub struct RefusedAnswer {
    pub answer: String,
    pub problem: String,
}

/// The gatekeeper's decision.
#[derive(Clone, Debug, PartialEq, Serialize, TS, ToSchema)]
#[ts(export)]
pub struct GatekeeperAnswer {
    /// True when the work is done: the run ends `completed`.
    pub workflow_complete: bool,
    /// Who works next (null when complete).
    pub next_agent: Option<String>,
    /// What it is to do (null when complete).
    pub next_instruction: Option<String>,
    /// The chosen agent's share of all the scores, from 0 to 1 (1 when complete).
    pub confidence: f64,
    /// Why, with every candidate's score.
    pub reasoning: String,
}

/// The agent as the scoring strategy sees a specialist: its role stands in for the
/// objective (both say what it is for).
fn as_agent(candidate: &GatekeeperAgent) -> Agent {
    Agent {
        id: AgentId::from(candidate.agent_id.as_str()),
        name: candidate.name.clone().unwrap_or_default(),
        objective: candidate.role.clone().unwrap_or_default(),
        description: candidate.description.clone().unwrap_or_default(),
        tags: candidate.capabilities.clone().unwrap_or_default(),
        ..Agent::default()
    }
}

/// The agent's reply as text: JSON written out, nothing for null.
fn output_text(output: &Value) -> String {
    match output {
        Value::Null => String::new(),
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// Decides `question` by keywords (see the module overview).
pub fn decide_by_keywords(question: &GatekeeperQuestion) -> GatekeeperAnswer {
    let complete = |reasoning: String| GatekeeperAnswer {
        workflow_complete: true,
        next_agent: None,
        next_instruction: None,
        confidence: 1.0,
        reasoning,
    };
    if let (Some(iteration), Some(max)) = (question.iteration, question.max_iterations) {
        if iteration >= max {
            return complete(format!("This is decision {iteration} of at most {max}: the last, so the work ends here."));
        }
    }
    let output = output_text(&question.current_output);
    let text = format!("{}\n{}", question.original_query, output);
    let (tokens, words) = (scoring::tokens(&text), scoring::words(&text));
    let worked: HashSet<&str> = question.workflow_history.iter().map(|step| step.agent_id.as_str()).collect();
    let mut listed: HashSet<&str> = HashSet::new();
    let scored: Vec<(&GatekeeperAgent, u32)> = question
        .available_agents
        .iter()
        .filter(|a| !a.agent_id.trim().is_empty() && !worked.contains(a.agent_id.as_str()) && listed.insert(a.agent_id.as_str()))
        .map(|a| (a, scoring::score(&as_agent(a), &tokens, &words)))
        .collect();
    let scores = |leave_out: Option<&str>| -> String {
        let each: Vec<String> =
            scored.iter().filter(|(a, _)| Some(a.agent_id.as_str()) != leave_out).map(|(a, s)| format!("{} {s}", a.agent_id)).collect();
        if each.is_empty() {
            String::new()
        } else {
            format!(" ({})", each.join(", "))
        }
    };
    if scored.is_empty() {
        return complete("Every available agent has worked: the work is done.".into());
    }
    // The highest score; the first listed among equals.
    let (best, score) = scored.iter().fold(scored[0], |best, next| if next.1 > best.1 { *next } else { best });
    if score == 0 {
        return complete(format!(
            "No agent that has not worked yet shares a word with the request or the latest work{}: the work is done.",
            scores(None)
        ));
    }
    let total: u32 = scored.iter().map(|(_, s)| s).sum();
    let confidence = (f64::from(score) / f64::from(total) * 100.0).round() / 100.0;
    let role = best.role.as_deref().map(str::trim).filter(|r| !r.is_empty()).map(|r| format!(" ({r})")).unwrap_or_default();
    let mut instruction = format!("Do your part of the request{role}.");
    if !output.trim().is_empty() {
        let from = question.current_agent.as_deref().filter(|a| !a.trim().is_empty()).unwrap_or("the last agent");
        instruction.push_str(&format!("\n\nThe work so far, from {from}:\n{}", output.trim()));
    }
    GatekeeperAnswer {
        workflow_complete: false,
        next_agent: Some(best.agent_id.clone()),
        next_instruction: Some(instruction),
        confidence,
        reasoning: format!(
            "{} scores {score} on the words of the request and the latest work{}.",
            best.agent_id,
            scores(Some(best.agent_id.as_str()))
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn question(history: &[&str], output: &str, iteration: Option<i64>) -> GatekeeperQuestion {
        serde_json::from_value(json!({
            "original_query": "I was charged twice on my invoice and want a refund",
            "workflow_history": history.iter().map(|a| json!({"agent_id": a})).collect::<Vec<_>>(),
            "current_agent": history.last(),
            "current_output": output,
            "available_agents": [
                {"agent_id": "tech", "name": "Tech", "role": "Login trouble, error messages, crashes", "capabilities": ["login", "crash"]},
                {"agent_id": "billing", "name": "Billing", "role": "Invoices, refunds, charges", "capabilities": ["invoice", "refund"]}
            ],
            "iteration": iteration,
            "max_iterations": 4
        }))
        .unwrap()
    }

    #[test]
    fn the_best_scoring_agent_that_has_not_worked_gets_the_work_and_the_latest_work() {
        let answer = decide_by_keywords(&question(&["desk"], "A double charge.", Some(1)));
        assert_eq!(answer.next_agent.as_deref(), Some("billing"), "{answer:?}");
        assert!(!answer.workflow_complete);
        let instruction = answer.next_instruction.unwrap();
        assert_eq!(
            instruction,
            "Do your part of the request (Invoices, refunds, charges).\n\nThe work so far, from desk:\nA double charge."
        );
        assert!(answer.reasoning.starts_with("billing scores ") && answer.reasoning.contains("(tech 0)"), "{}", answer.reasoning);
        assert_eq!(answer.confidence, 1.0, "nobody else scored");
    }

    #[test]
    fn nobody_left_above_zero_or_the_last_decision_completes_the_workflow() {
        let answer = decide_by_keywords(&question(&["desk", "billing"], "Refunded.", Some(2)));
        assert!(answer.workflow_complete, "{answer:?}");
        assert_eq!((answer.next_agent, answer.next_instruction), (None, None));
        assert!(answer.reasoning.contains("(tech 0)"), "{}", answer.reasoning);
        let every = decide_by_keywords(&question(&["desk", "billing", "tech"], "Done.", Some(3)));
        assert_eq!(every.reasoning, "Every available agent has worked: the work is done.");
        let last = decide_by_keywords(&question(&["desk"], "A double charge.", Some(4)));
        assert!(last.workflow_complete && last.reasoning.contains("decision 4 of at most 4"), "{last:?}");
    }

    #[test]
    fn ties_go_to_the_first_listed_and_the_answer_is_what_the_engine_reads() {
        let mut tie = question(&["desk"], "", None);
        tie.original_query = "login invoice".into();
        let answer = decide_by_keywords(&tie);
        assert_eq!(answer.next_agent.as_deref(), Some("tech"), "{answer:?}");
        assert_eq!(answer.confidence, 0.5);
        assert_eq!(answer.next_instruction.as_deref(), Some("Do your part of the request (Login trouble, error messages, crashes)."));
        let raw = serde_json::to_string(&answer).unwrap();
        let decision = crewgraph_engine::routing::decider::parse(&raw).expect("the engine reads it");
        assert_eq!(decision.next_agent.as_deref(), Some("tech"));
    }
}
