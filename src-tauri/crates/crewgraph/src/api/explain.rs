//! Why one reply of an agent would or would not route (`crewgraph match --explain`,
//! `POST /crews/{crew}/explain`): the signals of its rules the reply holds, at which
//! level, and where the work would go — or, when none routes, what came close
//! ([`crewgraph_engine::signal::near_miss`]), ranked as the `route_missed` event
//! ranks it.

use std::path::Path;

use crewgraph_engine::routing::signals::{decide, Next};
use crewgraph_engine::run::EventKind;
use crewgraph_engine::signal::{MatchLevel, NearMiss};
use crewgraph_engine::AgentId;
use serde::Serialize;
use ts_rs::TS;
use utoipa::ToSchema;

use super::{Api, ApiError, ApiErrorCode};

/// What a reply does under an agent's rules.
#[derive(Clone, Debug, PartialEq, Serialize, TS, ToSchema)]
#[ts(export)]
pub struct ReplyExplanation {
    /// The signal of its rules that routes the reply, when one does.
    pub signal: Option<String>,
    /// The level it matched at (`none` when no signal routes).
    #[schema(value_type = String)]
    pub level: MatchLevel,
    /// What happens next, in words: "the work goes to teacher", "the run ends: nowhere to go".
    pub next: String,
    /// When no signal routes: what came close, best first.
    #[schema(value_type = Vec<Object>)]
    pub candidates: Vec<NearMiss>,
}

impl Api {
    /// What `content`, as a reply of `agent`, does in the crew at `path`.
    pub async fn explain_reply(&self, path: &Path, agent: &str, content: &str) -> Result<ReplyExplanation, ApiError> {
        let loaded = self.load_crew(path).await?;
        let crew = loaded.crew.filter(|_| loaded.diagnostics.iter().all(|d| !d.is_error())).ok_or_else(|| {
            ApiError::new(ApiErrorCode::InvalidCrew, format!("{} has errors: fix them first (crewgraph validate)", path.display()))
        })?;
        let id = AgentId::from(agent.trim());
        if crew.agent(id.as_str()).is_none() {
            let known: Vec<&str> = crew.agents.iter().map(|a| a.id.as_str()).collect();
            return Err(ApiError::new(
                ApiErrorCode::InvalidInput,
                format!("the crew has no agent '{}' (it has: {})", agent.trim(), known.join(", ")),
            ));
        }
        let found = crew.matcher.scan(content);
        let decision = decide(&crew, &id, content, &found, 0);
        let mut explanation =
            ReplyExplanation { signal: None, level: MatchLevel::None, next: next_words(&decision.next), candidates: Vec::new() };
        for event in decision.events {
            match event {
                EventKind::SignalMatched { signal, level, .. } => {
                    explanation.signal = Some(signal.to_string());
                    explanation.level = level;
                }
                EventKind::RouteMissed { candidates, .. } => explanation.candidates = candidates,
                _ => {}
            }
        }
        Ok(explanation)
    }
}

/// What follows, in words.
fn next_words(next: &Next) -> String {
    match next {
        Next::End(status) => match status.as_str() {
            "terminated" | "completed" => "the run ends".to_owned(),
            "signal_failure" => "the run ends: too many replies without a signal".to_owned(),
            _ => "the run ends: nowhere to go".to_owned(),
        },
        Next::Pause { .. } => "the run waits for the person".to_owned(),
        Next::Route { to, reason } if reason.starts_with("no signal matched") => format!("the work goes to {to} (the fallback)"),
        Next::Route { to, .. } => format!("the work goes to {to}"),
        Next::Group { group, .. } => format!("the group {group} starts"),
        Next::Broadcast { targets, .. } => {
            format!("the reply goes to {}", targets.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(", "))
        }
        Next::Reprompt { .. } => "the agent is asked again, reminded of its signals".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_misspelt_signal_is_explained_and_a_right_one_routes() {
        let dir = tempfile::tempdir().unwrap();
        let crew = dir.path().join("quiz.yaml");
        std::fs::write(
            &crew,
            "entry_point: student\nagents:\n  - { id: student }\n  - { id: teacher, is_terminal: true }\nrouting:\n  on_no_signal: end\n  signals:\n    student:\n      - { signal: \"[QUESTION]\", target: teacher }\n",
        )
        .unwrap();
        let api = Api::new(dir.path());
        let missed = api.explain_reply(&crew, "student", "What is 2+2? [QUESTON]").await.unwrap();
        assert_eq!((missed.signal.as_deref(), missed.level, missed.next.as_str()), (None, MatchLevel::None, "the run ends: nowhere to go"));
        assert_eq!(missed.candidates[0].words(), "wrote [QUESTON]: did you mean [QUESTION]?");
        let routed = api.explain_reply(&crew, "student", "What is 2+2? [question]").await.unwrap();
        assert_eq!((routed.signal.as_deref(), routed.level), (Some("[QUESTION]"), MatchLevel::CaseInsensitive));
        assert_eq!((routed.next.as_str(), routed.candidates.len()), ("the work goes to teacher", 0));
        let nobody = api.explain_reply(&crew, "ghost", "hi").await.unwrap_err();
        assert_eq!(nobody.message, "the crew has no agent 'ghost' (it has: student, teacher)");
    }
}
