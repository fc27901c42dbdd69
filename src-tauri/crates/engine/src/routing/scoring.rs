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
//!
//! [`ScoringIndex`] makes a decision cheap on a crew of a thousand agents: their
//! texts are cut into substrings once, so each request token is one hash lookup.

use std::collections::{HashMap, HashSet};

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
    tokens_of(&words(text))
}

fn tokens_of(words: &[String]) -> Vec<String> {
    let mut seen: HashSet<&str> = HashSet::new();
    words.iter().filter(|w| w.chars().count() >= 3 && seen.insert(w.as_str())).cloned().collect()
}

/// The candidates: every agent but the supervisor (the entry point) and the finalizer.
pub fn candidates(crew: &Crew) -> impl Iterator<Item = &Agent> {
    crew.agents.iter().filter(move |a| a.id != crew.entry_point && crew.routing.finalizer.as_ref() != Some(&a.id))
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
            if hit {
                2
            } else {
                0
            }
        })
        .sum();
    contained + tag_bonus
}

/// Picks the specialist for `request`; `requested` (an agent the person asked for)
/// wins when it is a candidate. Indexes the crew first: to decide many times on one
/// crew, keep a [`ScoringIndex`].
pub fn route(crew: &Crew, request: &str, requested: Option<&AgentId>) -> Scored {
    ScoringIndex::new(crew).route(request, requested)
}

/// Words longer than this are not cut into substrings (a 64-character word has
/// about 2,000); a request token is looked for in them directly.
const LONGEST_INDEXED_WORD: usize = 64;

/// The candidates' texts and tags, indexed so that a decision costs one hash lookup
/// per request token instead of a search of every candidate's text: every substring
/// of 3+ characters of every word of a candidate's text maps to the candidates whose
/// text holds it. Scores are those of [`score`], exactly.
#[derive(Clone, Debug, Default)]
pub struct ScoringIndex {
    /// The candidates, in crew order.
    agents: Vec<AgentId>,
    /// Substring → the candidates whose text contains it (each once, ascending).
    contained: HashMap<String, Vec<u32>>,
    /// Words too long to index, with their candidate.
    long_words: Vec<(String, u32)>,
    /// One-word tag → its candidates (once per time the tag is listed).
    tags: HashMap<String, Vec<u32>>,
    /// Multi-word tags by their first word: the words after it, and the candidate.
    phrases: HashMap<String, Vec<(Vec<String>, u32)>>,
}

/// A decision before it is dressed for people: scores by candidate number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    /// The winner's number among [`ScoringIndex::agents`]; None means `finalize`.
    pub chosen: Option<usize>,
    /// Each candidate's score, in crew order.
    pub scores: Vec<u32>,
    /// The request's tokens (distinct, in order).
    pub tokens: Vec<String>,
}

impl ScoringIndex {
    /// Indexes the candidates of `crew` (every agent but the supervisor and the finalizer).
    pub fn new(crew: &Crew) -> Self {
        let mut index = ScoringIndex::default();
        for (number, agent) in candidates(crew).enumerate() {
            let number = number as u32;
            index.agents.push(agent.id.clone());
            let text = words(&format!("{} {} {} {}", agent.objective, agent.name, agent.description, agent.tags.join(" ")));
            for word in text {
                let chars: Vec<(usize, char)> = word.char_indices().collect();
                if chars.len() > LONGEST_INDEXED_WORD {
                    index.long_words.push((word, number));
                    continue;
                }
                for start in 0..chars.len() {
                    for end in start + 3..=chars.len() {
                        let to = chars.get(end).map_or(word.len(), |(at, _)| *at);
                        let list = index.contained.entry(word[chars[start].0..to].to_owned()).or_default();
                        if list.last() != Some(&number) {
                            list.push(number);
                        }
                    }
                }
            }
            for tag in &agent.tags {
                match words(tag).as_slice() {
                    [] => {}
                    [one] => index.tags.entry(one.clone()).or_default().push(number),
                    [first, rest @ ..] => index.phrases.entry(first.clone()).or_default().push((rest.to_vec(), number)),
                }
            }
        }
        index
    }

    /// The candidates, in crew order.
    pub fn agents(&self) -> &[AgentId] {
        &self.agents
    }

    /// Picks the specialist for `request` (see [`route`]).
    pub fn route(&self, request: &str, requested: Option<&AgentId>) -> Scored {
        let decision = self.decide(request);
        let requested = requested.filter(|r| self.agents.contains(r)).cloned();
        Scored {
            chosen: requested.or_else(|| decision.chosen.map(|i| self.agents[i].clone())),
            candidates: self.agents.iter().cloned().zip(decision.scores).collect(),
            tokens: decision.tokens,
        }
    }

    /// Scores every candidate for `request` and picks the highest (the first listed
    /// among equals; None when nobody scored above 0).
    pub fn decide(&self, request: &str) -> Decision {
        let request_words = words(request);
        let tokens = tokens_of(&request_words);
        let mut scores = vec![0u32; self.agents.len()];
        // The token last counted for each candidate: a token counts once per candidate.
        let mut counted = vec![usize::MAX; self.agents.len()];
        for (t, token) in tokens.iter().enumerate() {
            for &agent in self.contained.get(token).into_iter().flatten() {
                counted[agent as usize] = t;
                scores[agent as usize] += 1;
            }
            for (word, agent) in &self.long_words {
                if counted[*agent as usize] != t && word.contains(token.as_str()) {
                    counted[*agent as usize] = t;
                    scores[*agent as usize] += 1;
                }
            }
            for &agent in self.tags.get(token).into_iter().flatten() {
                scores[agent as usize] += 2;
            }
        }
        if !self.phrases.is_empty() {
            // Each multi-word tag scores once, however often its words appear.
            let mut found: HashSet<(&str, usize)> = HashSet::new();
            for (at, word) in request_words.iter().enumerate() {
                for (n, (rest, agent)) in self.phrases.get(word).into_iter().flatten().enumerate() {
                    let follows = request_words.get(at + 1..at + 1 + rest.len()).is_some_and(|w| w == rest.as_slice());
                    if follows && found.insert((word.as_str(), n)) {
                        scores[*agent as usize] += 2;
                    }
                }
            }
        }
        let mut chosen = None;
        for (i, score) in scores.iter().enumerate() {
            if *score > 0 && chosen.is_none_or(|c: usize| scores[c] < *score) {
                chosen = Some(i);
            }
        }
        Decision { chosen, scores, tokens }
    }
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

    /// The naive scoring of the rules, agent by agent, to check the index against.
    fn naive(crew: &Crew, request: &str) -> Vec<(AgentId, u32)> {
        let (tokens, request_words) = (tokens(request), words(request));
        candidates(crew).map(|a| (a.id.clone(), score(a, &tokens, &request_words))).collect()
    }

    proptest::proptest! {
        #[test]
        fn the_index_scores_exactly_as_the_rules_say(
            agents in proptest::collection::vec(("[a-zé ]{0,30}", proptest::collection::vec("[a-z]{1,6}( [a-z]{2,5})?", 0..4), "[a-z]{60,80}"), 1..6),
            request in "[a-zé ]{0,60}( [a-z]{60,70})?",
        ) {
            let mut yaml = String::from("entry_point: sup\nrouting: { strategy: scoring }\nagents:\n  - { id: sup }\n");
            for (i, (objective, tags, long)) in agents.iter().enumerate() {
                let long = if i % 2 == 0 { long.as_str() } else { "" };
                yaml.push_str(&format!("  - {{ id: a{i}, objective: \"{objective} {long}\", tags: {tags:?} }}\n"));
            }
            let crew = load_str("c.yaml", &yaml).crew.unwrap();
            let indexed = route(&crew, &request, None);
            proptest::prop_assert_eq!(indexed.candidates, naive(&crew, &request));
        }
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
