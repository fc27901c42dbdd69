//! Why a reply did not route: when none of an agent's rules matched its reply, the
//! places in it that came close, ranked (the `route_missed` event, `crewgraph match
//! --explain`, the window's "did you mean" hint). Four kinds, each a reason a person
//! can act on:
//!
//! - **misspelt**: a bracket span within two edits of one of the agent's signals
//!   after normalization (`[QUESTON]` for `[QUESTION]`; a short name allows fewer);
//! - **no brackets**: the words of one of its signals written without brackets
//!   (`QUESTION:`, `ready for review`);
//! - **not this agent's**: a registered signal the reply holds, but none of this
//!   agent's arrows uses it (another agent's, or a built-in one);
//! - **not allowed**: a registered signal the agent may not emit (`allowed_agents`).
//!
//! The search runs only after a reply that did not route, and costs one pass over
//! the reply's words and brackets; its bound (≤ 20 µs for 2 KB against 200 signals)
//! is in the `near_miss` benchmark.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::matcher::{ReplyMatches, Spelling};
use super::name::{inner, normalize};
use crate::crew::Crew;

/// The most candidates one reply reports.
pub const MAX_CANDIDATES: usize = 5;

/// Why a place of the reply came close to a signal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum MissKind {
    /// A bracket span a few edits from the signal.
    Misspelt,
    /// The signal's words without their brackets.
    NoBrackets,
    /// A registered signal none of this agent's arrows uses.
    NotThisAgents,
    /// A registered signal this agent may not emit.
    NotAllowed,
}

/// One place of a reply that came close to a signal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct NearMiss {
    /// The signal it came close to (for `not_this_agents` and `not_allowed`: the
    /// signal it is).
    pub signal: String,
    /// What the reply has, as written: `[QUESTON]`, `QUESTION`.
    pub found: String,
    pub kind: MissKind,
    /// Edits between the two after normalization (0 but for `misspelt`).
    pub distance: u32,
}

impl NearMiss {
    /// What happened, in words, after the agent's name: "wrote \[QUESTON\]: did you
    /// mean \[QUESTION\]?".
    pub fn words(&self) -> String {
        let (found, signal) = (&self.found, &self.signal);
        match self.kind {
            MissKind::Misspelt => format!("wrote {found}: did you mean {signal}?"),
            MissKind::NoBrackets => format!("wrote {found} without brackets: the signal is {signal}"),
            MissKind::NotThisAgents => format!("wrote {found}, but none of its arrows uses {signal}"),
            MissKind::NotAllowed => format!("wrote {found}, but it may not send {signal}"),
        }
    }
}

/// The places of `reply` (whose registered signals are `found`) that came close to a
/// signal of `agent`'s rules, best first, at most [`MAX_CANDIDATES`].
pub fn near_misses(crew: &Crew, agent: &str, reply: &str, found: &ReplyMatches) -> Vec<NearMiss> {
    let rules = crew.rules_of(agent);
    let mut own: Vec<(&str, &Spelling)> = rules
        .iter()
        .filter_map(|rule| rule.signal_index)
        .flat_map(|index| crew.matcher.spellings(index).iter().map(move |spelling| (crew.signals.get(index).name.as_str(), spelling)))
        .collect();
    // By length, so a span is measured only against spellings within two of its own.
    own.sort_by_key(|(_, spelling)| spelling.chars.len());
    let mut candidates = Vec::new();

    // Registered signals the reply holds that none of this agent's rules uses.
    for m in found.iter() {
        if rules.iter().any(|rule| rule.signal_index == Some(m.signal)) {
            continue;
        }
        let def = crew.signals.get(m.signal);
        let kind = if def.allows(agent) { MissKind::NotThisAgents } else { MissKind::NotAllowed };
        let written = reply.get(m.start..m.end).unwrap_or(def.name.as_str());
        candidates.push(NearMiss { signal: def.name.to_string(), found: written.to_owned(), kind, distance: 0 });
    }

    // Bracket spans a few edits from one of its signals.
    let bytes = reply.as_bytes();
    let mut open = None;
    let mut spans = Vec::new();
    for pos in memchr::memchr2_iter(b'[', b']', bytes) {
        if bytes[pos] == b'[' {
            open = Some(pos);
        } else if let Some(start) = open.take() {
            spans.push((start, pos + 1));
        }
    }
    let shortest = own.first().map_or(0, |(_, s)| s.chars.len());
    let longest = own.last().map_or(0, |(_, s)| s.chars.len());
    for &(start, end) in &spans {
        let written = &reply[start..end];
        // Normalizing never lengthens: a span too short (in bytes) or too long (four
        // bytes a character at most) to be within two edits is not looked at.
        let bytes = written.len() - 2;
        if bytes + 2 < shortest || bytes > (longest + 2) * 4 || found.iter().any(|m| m.start == start) {
            continue;
        }
        let normalized: Vec<char> = normalize(inner(written)).chars().collect();
        if normalized.len() > longest + 2 {
            continue;
        }
        let Some(pattern) = Pattern::new(&normalized) else { continue };
        let from = own.partition_point(|(_, s)| s.chars.len() + 2 < normalized.len());
        // The closest spellings only (several when they tie).
        let mut closest: Vec<&str> = Vec::new();
        let mut best = u32::MAX;
        for (signal, spelling) in own[from..].iter().take_while(|(_, s)| s.chars.len() <= normalized.len() + 2) {
            let allowed = allowed_edits(spelling.chars.len()).min(best);
            match pattern.distance(&spelling.chars, allowed).filter(|d| *d > 0) {
                Some(distance) if distance < best => {
                    best = distance;
                    closest.clear();
                    closest.push(signal);
                }
                Some(_) if closest.len() < MAX_CANDIDATES && !closest.contains(signal) => closest.push(signal),
                _ => {}
            }
        }
        for signal in closest {
            candidates.push(NearMiss { signal: signal.to_owned(), found: written.to_owned(), kind: MissKind::Misspelt, distance: best });
        }
    }

    // A signal's words without brackets: the reply's words outside brackets, once.
    // Most words are ruled out by their first letter and length alone.
    let firsts: Vec<(&str, &str, &str)> = own
        .iter()
        .map(|(signal, spelling)| (*signal, &*spelling.normalized, spelling.normalized.split(' ').next().unwrap_or_default()))
        .collect();
    let mut starts = [false; 128];
    let mut lengths = 0u64;
    let mut open_start = false;
    for (_, _, first) in &firsts {
        match first.bytes().next() {
            Some(b) if b.is_ascii() => starts[b as usize] = true,
            _ => open_start = true,
        }
        lengths |= 1 << first.len().min(63);
    }
    let words = words_outside(reply, &spans);
    let mut folded = String::new();
    for (i, &(start, end)) in words.iter().enumerate() {
        let head = reply.as_bytes()[start];
        let word = &reply[start..end];
        let may = !head.is_ascii()
            || open_start
            || (starts[head.to_ascii_lowercase() as usize] && (!word.is_ascii() || lengths & (1 << word.len().min(63)) != 0));
        if !may || !word_key(word, &mut folded) {
            continue;
        }
        for (signal, spelling, _) in firsts.iter().filter(|(_, _, first)| *first == folded) {
            let Some(last) = phrase_end(reply, &words[i..], spelling) else { continue };
            // One word is a signal's only when it is written as one: in capitals, or
            // ending its line or followed by a colon ("QUESTION:", "…all done. Done.");
            // not "Edited the draft".
            if spelling.contains(' ') || written_as_a_signal(&reply[start..last], &reply[last..]) {
                candidates.push(NearMiss {
                    signal: (*signal).to_owned(),
                    found: reply[start..last].to_owned(),
                    kind: MissKind::NoBrackets,
                    distance: 0,
                });
            }
        }
    }

    candidates.sort_by_key(|c| (c.kind, c.distance));
    let mut seen = Vec::new();
    candidates.retain(|c| {
        let key = (c.signal.clone(), c.found.clone());
        let new = !seen.contains(&key);
        seen.push(key);
        new
    });
    candidates.truncate(MAX_CANDIDATES);
    candidates
}

/// `word` as [`normalize`] writes it, into `into`; false when it is empty.
fn word_key(word: &str, into: &mut String) -> bool {
    into.clear();
    if word.is_ascii() {
        into.extend(word.chars().map(|c| c.to_ascii_lowercase()));
    } else {
        into.push_str(&normalize(word));
    }
    !into.is_empty()
}

/// Where the phrase `spelling` (normalized words) ends in the reply, when `words`
/// (from its first word on) spell it; None otherwise.
fn phrase_end(reply: &str, words: &[(usize, usize)], spelling: &str) -> Option<usize> {
    let mut key = String::new();
    let mut end = None;
    let mut parts = spelling.split(' ');
    for &(start, stop) in words {
        let Some(part) = parts.next() else { break };
        if !word_key(&reply[start..stop], &mut key) || key != part {
            return None;
        }
        end = Some(stop);
    }
    if parts.next().is_some() {
        return None;
    }
    end
}

/// Whether one word `written`, followed by `after`, stands as a signal would.
fn written_as_a_signal(written: &str, after: &str) -> bool {
    let capitals = written.chars().any(char::is_alphabetic) && !written.chars().any(char::is_lowercase);
    let rest_of_line = after.split('\n').next().unwrap_or_default();
    capitals || after.starts_with(':') || rest_of_line.trim_start_matches(['.', '!', ' ', '\t', '\r']).is_empty()
}

/// How many edits a misspelling of a signal of `chars` characters may have: one for
/// a short name, two from eight characters on, none for one or two characters.
fn allowed_edits(chars: usize) -> u32 {
    match chars {
        0..=2 => 0,
        3..=7 => 1,
        _ => 2,
    }
}

/// A bracket span's characters as the pattern of Myers' bit-parallel edit distance:
/// for each character, the bit set of the places it holds (at most 64 places).
struct Pattern {
    len: usize,
    ascii: [u64; 128],
    other: Vec<(char, u64)>,
}

impl Pattern {
    fn new(chars: &[char]) -> Option<Pattern> {
        if chars.is_empty() || chars.len() > 64 {
            return None;
        }
        let mut pattern = Pattern { len: chars.len(), ascii: [0; 128], other: Vec::new() };
        for (i, c) in chars.iter().enumerate() {
            match pattern.ascii.get_mut(*c as usize) {
                Some(bits) => *bits |= 1 << i,
                None => match pattern.other.iter_mut().find(|(o, _)| o == c) {
                    Some((_, bits)) => *bits |= 1 << i,
                    None => pattern.other.push((*c, 1 << i)),
                },
            }
        }
        Some(pattern)
    }

    fn places(&self, c: char) -> u64 {
        match self.ascii.get(c as usize) {
            Some(bits) => *bits,
            None => self.other.iter().find(|(o, _)| *o == c).map_or(0, |(_, bits)| *bits),
        }
    }

    /// The edit distance of the pattern and `text` when it is at most `limit`
    /// (Myers 1999, in Hyyrö's form for the whole of both strings).
    fn distance(&self, text: &[char], limit: u32) -> Option<u32> {
        if self.len.abs_diff(text.len()) > limit as usize {
            return None;
        }
        let last = 1u64 << (self.len - 1);
        let mut pv: u64 = if self.len == 64 { !0 } else { (1 << self.len) - 1 };
        let mut mv: u64 = 0;
        let mut score = self.len as u32;
        for (at, c) in text.iter().enumerate() {
            let eq = self.places(*c);
            let xv = eq | mv;
            let xh = ((eq & pv).wrapping_add(pv) ^ pv) | eq;
            let mut ph = mv | !(xh | pv);
            let mut mh = pv & xh;
            if ph & last != 0 {
                score += 1;
            } else if mh & last != 0 {
                score -= 1;
            }
            ph = (ph << 1) | 1;
            mh <<= 1;
            pv = mh | !(xv | ph);
            mv = ph & xv;
            // Each character left lowers the score by one at most.
            if score > limit + (text.len() - at - 1) as u32 {
                return None;
            }
        }
        Some(score).filter(|d| *d <= limit)
    }
}

/// The byte ranges of the reply's words outside bracket spans (runs of letters,
/// digits and combining marks: `_`, `-` and spaces separate, as normalization says).
fn words_outside(reply: &str, spans: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let mut words = Vec::new();
    let mut span = spans.iter().peekable();
    let mut start = None;
    for (at, c) in reply.char_indices() {
        while span.peek().is_some_and(|(_, end)| *end <= at) {
            span.next();
        }
        let inside = span.peek().is_some_and(|(from, end)| *from <= at && at < *end);
        let part_of_word = !inside && (c.is_alphanumeric() || unicode_normalization::char::is_combining_mark(c));
        match (part_of_word, start) {
            (true, None) => start = Some(at),
            (false, Some(from)) => {
                words.push((from, at));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(from) = start {
        words.push((from, reply.len()));
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::load_str;

    const CREW: &str = r#"entry_point: student
signals:
  - { name: "[QUESTION]", behavior: route, aliases: ["[QUERY]"] }
  - { name: "[READY FOR REVIEW]", behavior: route }
  - { name: "[GRADE]", behavior: route, allowed_agents: [teacher] }
  - { name: "[HINT]", behavior: route }
agents:
  - { id: student, system_prompt: ask }
  - { id: teacher, system_prompt: teach, is_terminal: true }
routing:
  signals:
    student:
      - { signal: "[QUESTION]", target: teacher }
      - { signal: "[READY FOR REVIEW]", target: teacher }
    teacher:
      - { signal: "[HINT]", target: student }
      - { signal: "[GRADE]", target: student }
"#;

    fn misses(reply: &str) -> Vec<(String, String, MissKind, u32)> {
        let loaded = load_str("crew.yaml", CREW);
        assert!(loaded.is_valid(), "{:?}", loaded.diagnostics);
        let crew = loaded.crew.unwrap();
        near_misses(&crew, "student", reply, &crew.matcher.scan(reply))
            .into_iter()
            .map(|m| (m.signal, m.found, m.kind, m.distance))
            .collect()
    }

    fn miss(signal: &str, found: &str, kind: MissKind, distance: u32) -> (String, String, MissKind, u32) {
        (signal.into(), found.into(), kind, distance)
    }

    #[test]
    fn a_misspelt_signal_is_found_with_its_distance() {
        assert_eq!(misses("What is 2+2? [QUESTON]"), [miss("[QUESTION]", "[QUESTON]", MissKind::Misspelt, 1)]);
        assert_eq!(misses("[ Redy for reviw ]"), [miss("[READY FOR REVIEW]", "[ Redy for reviw ]", MissKind::Misspelt, 2)]);
        // An alias is a spelling of its signal: a misspelling of it points to the signal.
        assert_eq!(misses("[QUERRY]"), [miss("[QUESTION]", "[QUERRY]", MissKind::Misspelt, 1)]);
        assert!(misses("[QUEST]").is_empty(), "three edits is too far");
    }

    #[test]
    fn the_words_without_brackets_are_found_as_written() {
        assert_eq!(misses("QUESTION: what is 2+2?"), [miss("[QUESTION]", "QUESTION", MissKind::NoBrackets, 0)]);
        assert_eq!(misses("It is ready for review now."), [miss("[READY FOR REVIEW]", "ready for review", MissKind::NoBrackets, 0)]);
        assert!(misses("It is ready for a review.").is_empty());
        assert_eq!(misses("My question is below.\nAll asked, question"), [miss("[QUESTION]", "question", MissKind::NoBrackets, 0)]);
        assert!(misses("My question is: why?").is_empty(), "a word of the sentence is no signal");
    }

    #[test]
    fn a_signal_of_another_agent_or_one_it_may_not_emit_is_said_so() {
        assert_eq!(misses("Here is a hint [HINT]"), [miss("[HINT]", "[HINT]", MissKind::NotThisAgents, 0)]);
        assert_eq!(misses("Graded. [grade]"), [miss("[GRADE]", "[grade]", MissKind::NotAllowed, 0)]);
    }

    #[test]
    fn candidates_are_ranked_and_counted() {
        let found = misses("[QUESTON] [HINT] question");
        assert_eq!(found.iter().map(|m| m.2).collect::<Vec<_>>(), [MissKind::Misspelt, MissKind::NoBrackets, MissKind::NotThisAgents]);
        let many = "[QUESTON] ".repeat(3) + "[QUESTIN] [QUESTIO] [UESTION] [QUESTONN] [QESTION]";
        assert_eq!(misses(&many).len(), MAX_CANDIDATES);
        assert!(misses("Nothing close here.").is_empty());
    }

    #[test]
    fn the_bit_parallel_distance_agrees_with_the_whole_table_and_counts_characters() {
        let distance = |a: &str, b: &str, limit| {
            let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
            match Pattern::new(&a) {
                Some(pattern) => pattern.distance(&b, limit),
                None => Some(b.len() as u32).filter(|d| *d <= limit),
            }
        };
        assert_eq!(distance("kết thúc", "ket thuc", 2), Some(2));
        assert_eq!(distance("abcdef", "uvwxyz", 2), None);
        assert_eq!(distance("same", "same", 0), Some(0));
        // The band gives what the whole table gives, within the limit.
        for (a, b, d) in
            [("question", "queston", 1), ("queston", "question", 1), ("abc", "cab", 2), ("ready", "redy", 1), ("", "ab", 2), ("xy", "", 2)]
        {
            assert_eq!(distance(a, b, 2), Some(d), "{a} / {b}");
        }
        assert_eq!(distance("abcd", "dcba", 2), None, "four edits");
        // Every pair of short strings over two letters: the band agrees with the whole table.
        let all: Vec<String> = (0..6)
            .flat_map(|n| (0..1u32 << n).map(move |bits| (0..n).map(|i| if bits >> i & 1 == 1 { 'a' } else { 'b' }).collect()))
            .collect();
        for a in &all {
            for b in &all {
                let whole = full_distance(a, b);
                for limit in 0..3 {
                    assert_eq!(distance(a, b, limit), Some(whole).filter(|d| *d <= limit), "{a:?} / {b:?} within {limit}");
                }
            }
        }
    }

    /// The edit distance by the whole table.
    fn full_distance(a: &str, b: &str) -> u32 {
        let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
        let mut table = vec![vec![0u32; b.len() + 1]; a.len() + 1];
        for (i, row) in table.iter_mut().enumerate() {
            row[0] = i as u32;
        }
        for (j, cell) in table[0].iter_mut().enumerate() {
            *cell = j as u32;
        }
        for i in 1..=a.len() {
            for j in 1..=b.len() {
                table[i][j] = (table[i - 1][j - 1] + u32::from(a[i - 1] != b[j - 1])).min(table[i - 1][j] + 1).min(table[i][j - 1] + 1);
            }
        }
        table[a.len()][b.len()]
    }
}
