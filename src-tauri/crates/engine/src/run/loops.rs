//! Loop detection (DESIGN.md §13): when the recent turns repeat a cycle of agents
//! (A→B→A→B…, or A→A) with replies that are the same or nearly so, the run says so
//! (`loop_detected`), and with `routing.on_loop: stop` ends instead of burning its
//! handoff budget.

use std::collections::HashSet;

use super::store::Turn;
use crate::ids::AgentId;

/// How many turns are remembered.
pub const WINDOW: usize = 8;
/// The longest cycle looked for.
pub const MAX_PERIOD: usize = 3;
/// Replies at least this similar (word overlap) count as the same.
pub const SIMILAR: f64 = 0.9;

/// The fingerprint of a reply: lowercase words, digits kept, at most 400 characters.
pub fn fingerprint(reply: &str) -> String {
    let words: Vec<String> = reply.split_whitespace().map(|w| w.to_lowercase()).collect();
    let mut text = words.join(" ");
    if let Some((cut, _)) = text.char_indices().nth(400) {
        text.truncate(cut);
    }
    text
}

/// Remembers `turn`, keeping the window short.
pub fn remember(recent: &mut Vec<Turn>, turn: Turn) {
    recent.push(turn);
    if recent.len() > WINDOW {
        recent.remove(0);
    }
}

/// The repeating cycle of agents, if the latest turns form one twice over with
/// near-identical replies.
pub fn detect(recent: &[Turn]) -> Option<Vec<AgentId>> {
    (1..=MAX_PERIOD).find_map(|period| {
        let n = recent.len();
        if n < 2 * period {
            return None;
        }
        let (earlier, later) = recent[n - 2 * period..].split_at(period);
        let repeats = earlier.iter().zip(later).all(|(a, b)| a.agent == b.agent && similar(&a.reply, &b.reply));
        repeats.then(|| later.iter().map(|t| t.agent.clone()).collect())
    })
}

/// Word-set overlap (Jaccard) of two fingerprints.
fn similar(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let a: HashSet<&str> = a.split(' ').collect();
    let b: HashSet<&str> = b.split(' ').collect();
    let union = a.union(&b).count();
    union > 0 && a.intersection(&b).count() as f64 / union as f64 >= SIMILAR
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn(agent: &str, reply: &str) -> Turn {
        Turn { agent: AgentId::from(agent), reply: fingerprint(reply) }
    }

    #[test]
    fn a_two_agent_cycle_with_the_same_replies_is_a_loop() {
        let recent = [turn("a", "Try again [NEXT]"), turn("b", "No. [NEXT]"), turn("a", "try again  [NEXT]"), turn("b", "No. [NEXT]")];
        assert_eq!(detect(&recent), Some(vec![AgentId::from("a"), AgentId::from("b")]));
    }

    #[test]
    fn the_same_agents_saying_new_things_are_not_a_loop() {
        let recent = [turn("a", "Question 1 about halves"), turn("b", "One half"), turn("a", "Question 2 about thirds"), turn("b", "One third")];
        assert_eq!(detect(&recent), None);
    }

    #[test]
    fn an_agent_repeating_itself_is_a_loop_of_one() {
        assert_eq!(detect(&[turn("a", "same"), turn("a", "same")]), Some(vec![AgentId::from("a")]));
    }

    #[test]
    fn nearly_the_same_reply_counts() {
        let long = "the draft needs a clearer introduction and a better conclusion about the results of the study today";
        let almost = format!("{long} please");
        assert!(similar(&fingerprint(long), &fingerprint(&almost)));
        assert!(!similar("the draft is good", "the draft is bad now"));
    }

    #[test]
    fn the_window_keeps_the_latest_turns() {
        let mut recent = Vec::new();
        for i in 0..20 {
            remember(&mut recent, turn("a", &i.to_string()));
        }
        assert_eq!(recent.len(), WINDOW);
        assert_eq!(recent.last().unwrap().reply, "19");
    }
}
