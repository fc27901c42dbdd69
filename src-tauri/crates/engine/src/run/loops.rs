//! Loop detection (DESIGN.md §13): when the recent turns repeat a cycle of agents
//! (A→B→A→B…, or A→A) with replies that are the same or nearly so, the run says so
//! (`loop_detected`), and with `routing.on_loop: stop` ends instead of burning its
//! handoff budget. Under `llm` and `gatekeeper` the remembered text is the router's
//! instruction, and asking an agent for the same thing again is the loop ([`repeats`]).
//!
//! A reply is remembered as a bottom-k sketch of its (lowercased) words: the 16
//! smallest of their 32-bit hashes, 128 hex digits at most. For a reply of up to 16
//! distinct words that is its exact word set; for a longer one, an estimate of it.
//! Replies sharing 90 % of their words (Jaccard) count as the same. The run's stored
//! state stays small whatever the replies' length.

use std::collections::BTreeSet; // a fingerprint read back as its set of hashes

use super::store::Turn;
use crate::ids::AgentId;

/// The longest cycle looked for.
pub const MAX_PERIOD: usize = 3;
/// How many turns are remembered: two rounds of the longest cycle.
pub const WINDOW: usize = 2 * MAX_PERIOD;
/// How many word hashes a fingerprint keeps.
pub const SKETCH: usize = 16;
/// Replies whose words overlap at least this much (Jaccard) count as the same.
pub const SAME: f64 = 0.9;

/// The bottom-k sketch of a reply's words: the [`SKETCH`] smallest distinct word
/// hashes, ascending, as 8 hex digits each.
pub fn fingerprint(reply: &str) -> String {
    let mut hashes: Vec<u32> = reply.split_whitespace().map(|word| mix(word_hash(word)) as u32).collect();
    hashes.sort_unstable();
    hashes.dedup();
    hashes.truncate(SKETCH);
    let mut out = String::with_capacity(8 * hashes.len());
    for hash in hashes {
        use std::fmt::Write;
        let _ = write!(out, "{hash:08x}");
    }
    out
}

/// The hashes of a fingerprint.
fn hashes(fingerprint: &str) -> BTreeSet<u32> {
    fingerprint
        .as_bytes()
        .chunks(8)
        .filter_map(|chunk| std::str::from_utf8(chunk).ok().and_then(|hex| u32::from_str_radix(hex, 16).ok()))
        .collect()
}

/// splitmix64's finalizer: every output bit depends on every input bit.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// FNV-1a over the lowercased word. Stable across builds and machines, unlike the
/// standard hasher (fingerprints are stored with runs).
fn word_hash(word: &str) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for c in word.chars().flat_map(char::to_lowercase) {
        let mut buf = [0; 4];
        for byte in c.encode_utf8(&mut buf).bytes() {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    hash
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

/// When `turn` repeats one of `recent` — the same agent with the same or nearly the
/// same text — the agents from just after that earlier turn up to `turn`'s: the
/// cycle. (The `llm` and `gatekeeper` strategies remember each decision's agent and
/// instruction this way: a pair asked for again is a loop.)
pub fn repeats(recent: &[Turn], turn: &Turn) -> Option<Vec<AgentId>> {
    let at = recent.iter().rposition(|t| t.agent == turn.agent && similar(&t.reply, &turn.reply))?;
    Some(recent[at + 1..].iter().map(|t| t.agent.clone()).chain([turn.agent.clone()]).collect())
}

/// True when two replies share at least [`SAME`] of their words: from the bottom-k
/// of their union, the share found in both (exact when both are whole word sets).
fn similar(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let (a, b) = (hashes(a), hashes(b));
    let union: Vec<u32> = a.union(&b).take(SKETCH).copied().collect();
    let both = union.iter().filter(|h| a.contains(h) && b.contains(h)).count();
    !union.is_empty() && both as f64 / union.len() as f64 >= SAME
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
        let recent = [
            turn("a", "Question 1: what is one half of ten apples?"),
            turn("b", "Five apples, because ten divided by two is five."),
            turn("a", "Question 2: how many thirds make a whole cake?"),
            turn("b", "Three thirds make one whole cake."),
        ];
        assert_eq!(detect(&recent), None);
    }

    #[test]
    fn an_agent_repeating_itself_is_a_loop_of_one() {
        assert_eq!(detect(&[turn("a", "same"), turn("a", "same")]), Some(vec![AgentId::from("a")]));
    }

    #[test]
    fn nearly_the_same_reply_counts_and_different_ones_do_not() {
        let long = "the draft needs a clearer introduction and a better conclusion about the results of the study today";
        // 14 distinct words and one more: 14/15 = 93 % shared.
        assert!(similar(&fingerprint(long), &fingerprint(&format!("{long} please"))));
        assert!(similar(&fingerprint(long), &fingerprint(&long.to_uppercase())), "case does not count");
        let other = "the budget for next year is approved by the board after a long meeting on costs";
        assert!(!similar(&fingerprint(long), &fingerprint(other)));
    }

    /// Sentences of 8–20 words drawn from a small vocabulary (a fixed pseudo-random sequence).
    fn sentences(count: usize) -> Vec<String> {
        let vocabulary = [
            "the",
            "teacher",
            "asks",
            "a",
            "question",
            "about",
            "fractions",
            "student",
            "answers",
            "three",
            "quarters",
            "reporter",
            "keeps",
            "score",
            "draft",
            "is",
            "ready",
            "for",
            "review",
            "now",
            "judge",
            "approves",
            "article",
            "writer",
            "edits",
            "facts",
            "sources",
            "city",
            "bees",
            "honey",
        ];
        let mut seed: u64 = 42;
        let mut next = move || {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) as usize
        };
        (0..count).map(|_| (0..8 + next() % 13).map(|_| vocabulary[next() % vocabulary.len()]).collect::<Vec<_>>().join(" ")).collect()
    }

    #[test]
    fn replies_sharing_few_words_are_not_taken_for_the_same() {
        let replies = sentences(300);
        let mut same = 0;
        for (i, a) in replies.iter().enumerate() {
            for b in &replies[i + 1..] {
                let wa: std::collections::HashSet<&str> = a.split(' ').collect();
                let wb: std::collections::HashSet<&str> = b.split(' ').collect();
                let shared = wa.intersection(&wb).count() as f64 / wa.union(&wb).count() as f64;
                if shared < 0.75 && similar(&fingerprint(a), &fingerprint(b)) {
                    same += 1;
                }
            }
        }
        assert_eq!(same, 0, "of {} pairs", 300 * 299 / 2);
    }

    #[test]
    fn fingerprints_are_stable_across_builds() {
        // Stored with runs: the value must not change with the Rust version or the machine.
        assert_eq!(fingerprint("hello world"), fingerprint("Hello   WORLD"));
        assert_eq!(word_hash("hello"), 0xa430_d846_80aa_bd0b, "FNV-1a of 'hello'");
        assert_eq!(fingerprint("hello world hello").len(), 16, "two distinct words");
        assert_eq!(fingerprint("many different words here").len(), 32, "four distinct words");
    }

    #[test]
    fn long_replies_are_compared_by_their_sketches() {
        let words: Vec<String> = (0..60).map(|i| format!("word{i}")).collect();
        let reply = words.join(" ");
        let mut changed = words.clone();
        changed[30] = "different".into();
        assert!(similar(&fingerprint(&reply), &fingerprint(&changed.join(" "))), "59 of 61 words shared");
        let half: Vec<String> = (30..90).map(|i| format!("word{i}")).collect();
        assert!(!similar(&fingerprint(&reply), &fingerprint(&half.join(" "))), "a third shared");
    }

    #[test]
    fn a_pair_asked_for_again_repeats_with_the_agents_since() {
        let recent = [turn("writer", "Write the intro"), turn("editor", "Polish the intro")];
        assert_eq!(repeats(&recent, &turn("writer", "write the  intro")), Some(vec![AgentId::from("editor"), AgentId::from("writer")]));
        assert_eq!(repeats(&recent, &turn("editor", "Polish the intro")), Some(vec![AgentId::from("editor")]));
        assert_eq!(repeats(&recent, &turn("writer", "Write the conclusion")), None, "a new instruction");
        assert_eq!(repeats(&recent, &turn("judge", "Write the intro")), None, "another agent");
    }

    #[test]
    fn the_window_keeps_the_latest_turns() {
        let mut recent = Vec::new();
        for i in 0..20 {
            remember(&mut recent, turn("a", &i.to_string()));
        }
        assert_eq!(recent.len(), WINDOW);
        assert_eq!(recent.last().unwrap().reply, fingerprint("19"));
        assert_eq!(recent.first().unwrap().reply, fingerprint(&(20 - WINDOW).to_string()));
    }
}
