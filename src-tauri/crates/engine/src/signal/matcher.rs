//! Finding a crew's signals in a reply, once, for all signals at the same time.
//!
//! A bracket signal (`[NAME]`) has no brackets inside its name, so every place where
//! it occurs in a reply — byte for byte, case-folded or normalized — is a *bracket
//! span*: a `[` followed by the next `]` with no `[` between them. The matcher
//! therefore walks the reply's brackets once (memchr) and looks each span up in three
//! hash tables compiled from the registry: exact text (level 1), case-folded text
//! (level 2) and normalized inner text (level 3). The cost is one pass over the reply
//! plus a little work per bracket span, whatever the number of signals. Pattern
//! (line) signals are compiled into one `RegexSet`, so they too cost one pass.
//!
//! For each signal the match reports the first level that succeeds (DESIGN.md §3),
//! the byte range of its first occurrence at that level, and for pattern signals the
//! first capture group as payload.

use std::collections::HashMap;

use regex::{Regex, RegexSet};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::name::{fold, inner, is_bracket_name, normalize, normalize_bounded};
use super::registry::{SignalIndex, SignalRegistry};

/// How a signal was found in a reply, best first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum MatchLevel {
    /// The reply contains the signal byte for byte.
    Exact,
    /// The case-folded reply contains the case-folded signal.
    CaseInsensitive,
    /// A bracket span of the reply equals the signal after normalization.
    Normalized,
    /// A pattern (line) signal's regular expression matched.
    Pattern,
    /// Not found.
    None,
}

impl MatchLevel {
    /// The name the CLI prints (`exact`, `case_insensitive`, `normalized`, `pattern`, `none`).
    pub fn as_str(self) -> &'static str {
        match self {
            MatchLevel::Exact => "exact",
            MatchLevel::CaseInsensitive => "case_insensitive",
            MatchLevel::Normalized => "normalized",
            MatchLevel::Pattern => "pattern",
            MatchLevel::None => "none",
        }
    }
}

/// One signal found in a reply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignalMatch {
    /// Which signal of the registry.
    pub signal: SignalIndex,
    /// The best level it matched at.
    pub level: MatchLevel,
    /// Byte offset of the first occurrence at that level.
    pub start: usize,
    /// Byte offset just past it.
    pub end: usize,
    /// A pattern signal's first capture group.
    pub payload: Option<String>,
}

/// Every signal found in one reply, one entry per signal.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReplyMatches {
    found: Vec<SignalMatch>,
}

impl ReplyMatches {
    /// The match of `signal`, if it was found.
    pub fn get(&self, signal: SignalIndex) -> Option<&SignalMatch> {
        self.found.iter().find(|m| m.signal == signal)
    }

    /// All matches, ordered by where they occur in the reply.
    pub fn iter(&self) -> impl Iterator<Item = &SignalMatch> {
        self.found.iter()
    }

    /// True when no signal was found.
    pub fn is_empty(&self) -> bool {
        self.found.is_empty()
    }

    fn record(&mut self, signal: SignalIndex, level: MatchLevel, start: usize, end: usize) {
        match self.found.iter_mut().find(|m| m.signal == signal) {
            // Spans are visited left to right, so an equal level is already the first.
            Some(existing) if existing.level <= level => {}
            Some(existing) => {
                existing.level = level;
                existing.start = start;
                existing.end = end;
            }
            None => self.found.push(SignalMatch { signal, level, start, end, payload: None }),
        }
    }
}

/// A registry's signals compiled for scanning replies.
#[derive(Clone, Debug, Default)]
pub struct SignalMatcher {
    exact: HashMap<Box<str>, Vec<SignalIndex>>,
    folded: HashMap<Box<str>, Vec<SignalIndex>>,
    normalized: HashMap<Box<str>, Vec<SignalIndex>>,
    max_exact: usize,
    max_folded: usize,
    max_normalized: usize,
    ends: SpanEnds,
    patterns: Option<PatternSet>,
    /// Each bracket signal's spellings (its name, then its aliases), normalized, by
    /// signal: what a near miss is measured against ([`super::near_miss`]).
    spellings: Vec<Vec<Spelling>>,
}

/// One spelling of a bracket signal, normalized, as text and as characters.
#[derive(Clone, Debug)]
pub struct Spelling {
    pub normalized: Box<str>,
    pub chars: Box<[char]>,
}

/// A prefilter on bracket spans. Whatever the level, a span matches a signal only
/// if their normalized forms begin and end with the same character; for a span
/// whose first and last significant characters are ASCII that character is just
/// their lowercase, so two 128-bit sets of the signals' first and last characters
/// rule out most spans (`[1]`, `[see note]`) before any folding or normalizing.
#[derive(Clone, Debug, Default)]
struct SpanEnds {
    first: u128,
    last: u128,
    /// Some signal normalizes to nothing, or starts or ends outside ASCII: the sets
    /// cannot rule a span out on that side.
    first_open: bool,
    last_open: bool,
}

impl SpanEnds {
    fn add(&mut self, normalized: &str) {
        match normalized.chars().next() {
            Some(c) if c.is_ascii() => self.first |= 1 << (c as u32),
            _ => self.first_open = true,
        }
        match normalized.chars().next_back() {
            Some(c) if c.is_ascii() => self.last |= 1 << (c as u32),
            _ => self.last_open = true,
        }
    }

    /// False when `inner` (a span without its brackets) cannot match any signal.
    fn may_match(&self, inner: &[u8]) -> bool {
        let significant = |b: &u8| !matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c | b'_' | b'-');
        if !self.first_open {
            if let Some(i) = inner.iter().position(significant) {
                let c = inner[i];
                // An ASCII character followed by a combining mark composes (NFC) into another.
                let composes = inner.get(i + 1).is_some_and(|next| !next.is_ascii());
                if c.is_ascii() && !composes && self.first & (1 << c.to_ascii_lowercase()) == 0 {
                    return false;
                }
            }
        }
        if !self.last_open {
            if let Some(i) = inner.iter().rposition(significant) {
                let c = inner[i];
                if c.is_ascii() && self.last & (1 << c.to_ascii_lowercase()) == 0 {
                    return false;
                }
            }
        }
        true
    }
}

#[derive(Clone, Debug)]
struct PatternSet {
    /// All patterns in one automaton; None when together they exceed the regex
    /// library's size limit (each is then tried on its own).
    set: Option<RegexSet>,
    each: Vec<(SignalIndex, Regex)>,
}

impl SignalMatcher {
    /// Compiles every signal of `registry`. Pattern signals whose regex does not
    /// compile are skipped (validation reports them).
    pub fn new(registry: &SignalRegistry) -> Self {
        let mut matcher = SignalMatcher::default();
        let mut patterns = Vec::new();
        for (index, def) in registry.iter() {
            match &def.pattern {
                Some(pattern) => {
                    if let Ok(regex) = Regex::new(&multi_line(pattern)) {
                        patterns.push((index, regex));
                    }
                }
                None => {
                    matcher.add_bracket(index, def.name.as_str());
                    for alias in &def.aliases {
                        matcher.add_bracket(index, alias.as_str());
                    }
                }
            }
        }
        if !patterns.is_empty() {
            let set = RegexSet::new(patterns.iter().map(|(_, regex)| regex.as_str())).ok();
            matcher.patterns = Some(PatternSet { set, each: patterns });
        }
        matcher
    }

    fn add_bracket(&mut self, index: SignalIndex, name: &str) {
        let folded = fold(name);
        let normalized = normalize(inner(name));
        self.max_exact = self.max_exact.max(name.len());
        self.max_folded = self.max_folded.max(folded.len());
        self.max_normalized = self.max_normalized.max(normalized.len());
        self.ends.add(&normalized);
        self.exact.entry(name.into()).or_default().push(index);
        self.folded.entry(folded.into()).or_default().push(index);
        if !normalized.is_empty() {
            let spelling = Spelling { chars: normalized.chars().collect(), normalized: normalized.as_str().into() };
            let at = index.0 as usize;
            if self.spellings.len() <= at {
                self.spellings.resize_with(at + 1, Vec::new);
            }
            self.spellings[at].push(spelling);
        }
        self.normalized.entry(normalized.into()).or_default().push(index);
    }

    /// The normalized spellings of a bracket signal (none for a pattern signal).
    pub fn spellings(&self, signal: SignalIndex) -> &[Spelling] {
        self.spellings.get(signal.0 as usize).map_or(&[], Vec::as_slice)
    }

    /// Scans `reply` once and returns every registered signal it contains.
    pub fn scan(&self, reply: &str) -> ReplyMatches {
        let mut matches = ReplyMatches::default();
        if !self.exact.is_empty() {
            self.scan_brackets(reply, &mut matches);
        }
        if let Some(patterns) = &self.patterns {
            let candidates: Vec<usize> = match &patterns.set {
                Some(set) => set.matches(reply).iter().collect(),
                None => (0..patterns.each.len()).collect(),
            };
            for i in candidates {
                let (signal, regex) = &patterns.each[i];
                if let Some(captures) = regex.captures(reply) {
                    let whole = captures.get(0).expect("group 0 always exists");
                    matches.found.push(SignalMatch {
                        signal: *signal,
                        level: MatchLevel::Pattern,
                        start: whole.start(),
                        end: whole.end(),
                        payload: captures.get(1).map(|m| m.as_str().to_owned()),
                    });
                }
            }
        }
        matches.found.sort_by_key(|m| (m.start, m.signal));
        matches
    }

    fn scan_brackets(&self, reply: &str, matches: &mut ReplyMatches) {
        let bytes = reply.as_bytes();
        let mut open = None;
        for pos in memchr::memchr2_iter(b'[', b']', bytes) {
            if bytes[pos] == b'[' {
                open = Some(pos);
            } else if let Some(start) = open.take() {
                // '[' and ']' are ASCII, so both ends are character boundaries.
                self.check_span(&reply[start..=pos], start, matches);
            }
        }
    }

    fn check_span(&self, span: &str, start: usize, matches: &mut ReplyMatches) {
        if !self.ends.may_match(&span.as_bytes()[1..span.len() - 1]) {
            return;
        }
        let end = start + span.len();
        if span.len() <= self.max_exact {
            if let Some(signals) = self.exact.get(span) {
                for &signal in signals {
                    matches.record(signal, MatchLevel::Exact, start, end);
                }
            }
        }
        // Case folding shrinks a character to no less than a third of its bytes.
        if span.len() <= self.max_folded.saturating_mul(3) {
            if let Some(signals) = self.folded.get(fold(span).as_str()) {
                for &signal in signals {
                    matches.record(signal, MatchLevel::CaseInsensitive, start, end);
                }
            }
        }
        if let Some(normalized) = normalize_bounded(inner(span), self.max_normalized) {
            if let Some(signals) = self.normalized.get(normalized.as_str()) {
                for &signal in signals {
                    matches.record(signal, MatchLevel::Normalized, start, end);
                }
            }
        }
    }
}

fn multi_line(pattern: &str) -> String {
    format!("(?m){pattern}")
}

/// Compiles a pattern signal's regex as the matcher will (multi-line mode), so
/// validation can report a bad pattern with the regex library's own message.
pub fn compile_pattern(pattern: &str) -> Result<Regex, regex::Error> {
    Regex::new(&multi_line(pattern))
}

/// The error for [`match_signal`]'s signal argument.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid signal format '{0}'")]
pub struct InvalidSignalFormat(pub String);

/// The level at which one bracket signal matches `content` (DESIGN.md §3), as
/// `crewgraph match` reports it.
pub fn match_signal(signal: &str, content: &str) -> Result<MatchLevel, InvalidSignalFormat> {
    if !is_bracket_name(signal) {
        return Err(InvalidSignalFormat(signal.to_owned()));
    }
    let mut matcher = SignalMatcher::default();
    matcher.add_bracket(SignalIndex(0), signal);
    let mut matches = ReplyMatches::default();
    matcher.scan_brackets(content, &mut matches);
    Ok(matches.found.first().map_or(MatchLevel::None, |m| m.level))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signal::registry::{builtins, Behavior, SignalDef, SignalOrigin};

    fn level(signal: &str, content: &str) -> MatchLevel {
        match_signal(signal, content).unwrap()
    }

    #[test]
    fn the_three_levels_of_design_section_3() {
        assert_eq!(level("[END]", "Task complete. [END]"), MatchLevel::Exact);
        assert_eq!(level("[END]", "Task complete. [end]"), MatchLevel::CaseInsensitive);
        assert_eq!(level("[KẾT_THÚC]", "Task complete. [ Kết Thúc ]"), MatchLevel::Normalized);
        assert_eq!(level("[ROUTE_EXECUTOR]", "go [ route   executor ] now"), MatchLevel::Normalized);
        assert_eq!(level("[END]", "[_END_]"), MatchLevel::Normalized);
        assert_eq!(level("[END]", "Nothing to see"), MatchLevel::None);
        assert_eq!(level("[END]", "ENDING [ENDS]"), MatchLevel::None);
    }

    #[test]
    fn exact_beats_weaker_levels_anywhere_in_the_reply() {
        // The weaker form comes first, the exact one later: exact wins.
        assert_eq!(level("[END]", "[end] and then [END]"), MatchLevel::Exact);
    }

    #[test]
    fn case_folding_is_unicode() {
        assert_eq!(level("[KẾT_THÚC]", "xong [kết_thúc]"), MatchLevel::CaseInsensitive);
        assert_eq!(level("[STRASSE]", "[straße]"), MatchLevel::CaseInsensitive);
    }

    #[test]
    fn decomposed_text_matches_only_when_normalized() {
        use unicode_normalization::UnicodeNormalization;
        let decomposed: String = "[KẾT_THÚC]".nfd().collect();
        assert_eq!(level("[KẾT_THÚC]", &decomposed), MatchLevel::Normalized);
    }

    #[test]
    fn bracket_spans_start_at_the_last_open_bracket() {
        // `[note [ end ]` holds the span `[ end ]`.
        assert_eq!(level("[END]", "[note [ end ]"), MatchLevel::Normalized);
        // An unclosed bracket never matches.
        assert_eq!(level("[END]", "[ end"), MatchLevel::None);
    }

    #[test]
    fn seed_000_spacing_now_matches_at_the_normalized_level() {
        // DESIGN.md §12: we follow seed 003, `_` and spaces are one separator.
        assert_eq!(level("[ROUTE_EXECUTOR]", "The decision is [ ROUTE  EXECUTOR ]"), MatchLevel::Normalized);
        assert_eq!(level("[ROUTE_EXECUTOR]", "Let me route to [ Route_Executor ] please"), MatchLevel::Normalized);
    }

    #[test]
    fn span_prefilter_never_hides_a_match() {
        // An ASCII letter followed by a combining mark composes into another letter.
        assert_eq!(level("[ÉND]", "[e\u{301}nd]"), MatchLevel::Normalized);
        assert_eq!(level("[ÉND]", "[E\u{301}ND]"), MatchLevel::Normalized);
        // Characters outside ASCII that fold into ASCII (the Kelvin sign folds to k).
        assert_eq!(level("[KILO]", "[\u{212A}ILO]"), MatchLevel::CaseInsensitive);
        assert_eq!(level("[\u{212A}ILO]", "[kilo]"), MatchLevel::CaseInsensitive);
        // Separators at either end do not count; a non-breaking space is whitespace.
        assert_eq!(level("[END]", "[\u{a0}end\u{a0}]"), MatchLevel::Normalized);
        assert_eq!(level("[END]", "[-_ end _-]"), MatchLevel::Normalized);
        // A signal that normalizes to nothing still matches a span of separators.
        assert_eq!(level("[_]", "[ - ]"), MatchLevel::Normalized);
    }

    #[test]
    fn span_prefilter_rules_out_spans_that_cannot_match() {
        let mut matcher = SignalMatcher::default();
        matcher.add_bracket(SignalIndex(0), "[END]");
        assert!(!matcher.ends.may_match(b"1"), "no signal starts with a digit");
        assert!(!matcher.ends.may_match(b"end of it"), "no signal ends with t");
        assert!(matcher.ends.may_match(b" End "), "first and last letters fit");
        assert!(matcher.ends.may_match("\u{212A}d".as_bytes()), "non-ASCII first letters are not judged");
    }

    #[test]
    fn patterns_too_big_to_combine_are_tried_one_by_one() {
        let each =
            vec![(SignalIndex(0), compile_pattern(r"^READY:\s*(\S+)").unwrap()), (SignalIndex(1), compile_pattern(r"^DONE$").unwrap())];
        let matcher = SignalMatcher { patterns: Some(PatternSet { set: None, each }), ..SignalMatcher::default() };
        let found = matcher.scan("work\nREADY: t-1\nDONE");
        let got: Vec<_> = found.iter().map(|m| (m.signal, m.payload.clone())).collect();
        assert_eq!(got, [(SignalIndex(0), Some("t-1".into())), (SignalIndex(1), None)]);
    }

    #[test]
    fn invalid_signals_are_refused() {
        for bad in ["[]", "END", "[END", "END]"] {
            assert_eq!(match_signal(bad, "END"), Err(InvalidSignalFormat(bad.into())));
        }
    }

    #[test]
    fn one_scan_reports_every_signal_with_its_position() {
        let mut registry = SignalRegistry::new();
        for def in builtins() {
            registry.insert(def);
        }
        let matcher = SignalMatcher::new(&registry);
        let reply = "Here is my answer. [answer] Also [ DONE ] and [QUESTION]";
        let found = matcher.scan(reply);
        let by_name = |name: &str| found.get(registry.lookup(name).unwrap()).cloned();
        let answer = by_name("[ANSWER]").unwrap();
        assert_eq!(answer.level, MatchLevel::CaseInsensitive);
        assert_eq!(&reply[answer.start..answer.end], "[answer]");
        assert_eq!(by_name("[DONE]").unwrap().level, MatchLevel::Normalized);
        assert_eq!(by_name("[QUESTION]").unwrap().level, MatchLevel::Exact);
        assert!(by_name("[END]").is_none());
        let order: Vec<_> = found.iter().map(|m| registry.get(m.signal).name.to_string()).collect();
        assert_eq!(order, ["[ANSWER]", "[DONE]", "[QUESTION]"]);
    }

    #[test]
    fn pattern_signals_carry_their_payload() {
        let mut registry = SignalRegistry::new();
        registry.insert(SignalDef {
            pattern: Some(r"^READY_FOR_REVIEW:\s*(\S+)".into()),
            ..SignalDef::new("review-ready", Behavior::Route, SignalOrigin::Declared)
        });
        let matcher = SignalMatcher::new(&registry);
        let found = matcher.scan("Implemented it.\nREADY_FOR_REVIEW: task-42\nthanks");
        let m = found.iter().next().unwrap();
        assert_eq!(m.level, MatchLevel::Pattern);
        assert_eq!(m.payload.as_deref(), Some("task-42"));
        // `^` anchors lines: mid-line text does not count.
        assert!(matcher.scan("not READY_FOR_REVIEW: 1").is_empty());
    }
}
