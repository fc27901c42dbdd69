//! The `scoring` strategy (DESIGN.md §5, seed 002): the supervisor hands the
//! request to the specialist whose words and tags share most with it.
//!
//! Text is lowercased, stripped of diacritics (NFD, combining marks dropped) and
//! split on anything not a letter or digit; the request's *tokens* are its words of
//! 3+ characters. A specialist scores +1 for each distinct request token contained
//! in its objective, name, description and tags (substring containment: `the`
//! counts inside `mathematics`), and +2 for each tag equal to a request token; a
//! multi-word tag (`second-war`) gets the +2 when its words appear consecutively
//! among the request's words (short ones included). The highest score wins, ties go
//! to the agent listed first, and no score above 0 means `finalize`.

use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

use crate::crew::{Agent, Crew};
use crate::ids::AgentId;

/// The router's answer: who, and every candidate's score.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scored {
    /// The winner; None means `finalize` (nobody scored above 0).
    pub chosen: Option<AgentId>,
    /// Every candidate in crew order with its score.
    pub candidates: Vec<(AgentId, u32)>,
    /// The request's tokens (distinct, in order).
    pub tokens: Vec<String>,
}

/// Lowercase, no diacritics, split on anything not a letter or digit.
pub fn words(text: &str) -> Vec<String> {
    let folded: String = text.to_lowercase().nfd().filter(|c| !is_combining_mark(*c)).collect();
    folded.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_owned).collect()
}

/// The distinct words of 3+ characters, in order of first appearance.
pub fn tokens(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for word in words(text) {
        if word.chars().count() >= 3 && !out.contains(&word) {
            out.push(word);
        }
    }
    out
}

/// The candidates: every agent but the supervisor (the entry point) and the finalizer.
pub fn candidates(crew: &Crew) -> impl Iterator<Item = &Agent> {
    crew.agents
        .iter()
        .filter(move |a| a.id != crew.entry_point && crew.routing.finalizer.as_ref() != Some(&a.id))
}

/// Scores one agent against the request's tokens and words.
pub fn score(agent: &Agent, tokens: &[String], request_words: &[String]) -> u32 {
    let text = words(&format!("{} {} {} {}", agent.objective, agent.name, agent.description, agent.tags.join(" "))).join(" ");
    let contained = tokens.iter().filter(|t| text.contains(t.as_str())).count() as u32;
    let tag_bonus: u32 = agent
        .tags
        .iter()
        .map(|tag| {
            let tag_words = words(tag);
            let hit = match tag_words.as_slice() {
                [] => false,
                [one] => tokens.contains(one),
                many => request_words.windows(many.len()).any(|w| w == many),
            };
            if hit { 2 } else { 0 }
        })
        .sum();
    contained + tag_bonus
}

/// Picks the specialist for `request`; `requested` (an agent the person asked for)
/// wins when it is a candidate.
pub fn route(crew: &Crew, request: &str, requested: Option<&AgentId>) -> Scored {
    let tokens = tokens(request);
    let request_words = words(request);
    let candidates: Vec<(AgentId, u32)> =
        candidates(crew).map(|a| (a.id.clone(), score(a, &tokens, &request_words))).collect();
    let requested = requested.filter(|r| candidates.iter().any(|(id, _)| id == *r)).cloned();
    let best = candidates.iter().filter(|(_, s)| *s > 0).fold(None::<&(AgentId, u32)>, |best, c| match best {
        Some(b) if b.1 >= c.1 => Some(b),
        _ => Some(c),
    });
    Scored { chosen: requested.or_else(|| best.map(|(id, _)| id.clone())), candidates, tokens }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::load_str;

    fn crew() -> Crew {
        let yaml = r#"
entry_point: sup
routing: { strategy: scoring }
agents:
  - { id: sup, name: Supervisor }
  - { id: math, name: Mathematician, objective: "Solve algebra and geometry", tags: [math, algebra] }
  - { id: history, name: Historian, description: "Wars and empires", tags: [history, second-war] }
  - { id: poet, name: Poet, objective: "Write poems", tags: [poetry, creative] }
"#;
        load_str("c.yaml", yaml).crew.unwrap()
    }

    #[test]
    fn tokens_are_lowercase_without_diacritics_three_characters_or_more() {
        assert_eq!(tokens("Ôn tập: Đại số, hình học? OK"), ["tap", "đai", "hinh", "hoc"]);
        assert_eq!(words("Second-War"), ["second", "war"]);
    }

    #[test]
    fn tags_and_words_decide_and_substrings_count() {
        let crew = crew();
        let scored = route(&crew, "Help me with an algebra problem", None);
        assert_eq!(scored.chosen.as_deref(), Some("math"));
        // "algebra" is contained (+1) and a tag (+2).
        assert_eq!(scored.candidates[0], (AgentId::from("math"), 3));
    }

    #[test]
    fn multi_word_tags_match_consecutive_words_short_ones_included() {
        let crew = crew();
        let scored = route(&crew, "what happened in the second war", None);
        assert_eq!(scored.chosen.as_deref(), Some("history"));
        let history = scored.candidates.iter().find(|(id, _)| id == "history").unwrap().1;
        assert!(history >= 2, "the two-word tag scores +2: {history}");
    }

    #[test]
    fn nothing_above_zero_means_finalize_and_ties_go_to_the_first_listed() {
        let crew = crew();
        assert_eq!(route(&crew, "zzz qqq", None).chosen, None);
        let tie = route(&crew, "poetry algebra", None);
        assert_eq!(tie.chosen.as_deref(), Some("math"), "{:?}", tie.candidates);
    }

    #[test]
    fn the_supervisor_is_never_a_candidate_and_a_requested_agent_wins() {
        let crew = crew();
        let scored = route(&crew, "supervisor", None);
        assert!(scored.candidates.iter().all(|(id, _)| id != "sup"));
        assert_eq!(route(&crew, "algebra", Some(&AgentId::from("poet"))).chosen.as_deref(), Some("poet"));
        assert_eq!(route(&crew, "algebra", Some(&AgentId::from("nobody"))).chosen.as_deref(), Some("math"));
    }
}
