//! `match_signal` and the compiled matcher against a naive reference written from
//! DESIGN.md §3's words, on random signals and replies drawn from a small alphabet
//! that makes the levels collide: brackets, `_`, `-`, spaces, `Ế K ế k`, a
//! decomposed `Ế`, `ß` and `SS` (which fold to the same text).
//!
//! The reference is deliberately slow and literal: level 1 is `contains`, level 2
//! folds the whole reply, level 3 looks at every `[` and the next `]` after it.

use crewgraph_engine::signal::{match_signal, Behavior, MatchLevel, SignalDef, SignalMatcher, SignalOrigin, SignalRegistry};
use proptest::prelude::*;
use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

// ---- the reference, from DESIGN.md §3 ----

/// "Format: `[NAME]`, at least one character inside, letters of any script, digits, `_`, `-` and spaces."
fn reference_is_valid(signal: &str) -> bool {
    let Some(inner) = signal.strip_prefix('[').and_then(|s| s.strip_suffix(']')) else { return false };
    !inner.is_empty() && inner.chars().all(|c| c.is_alphanumeric() || is_combining_mark(c) || matches!(c, '_' | '-' | ' '))
}

/// "case-folded (Unicode, not ASCII only)".
fn fold(text: &str) -> String {
    caseless::default_case_fold_str(text)
}

/// "Unicode NFC, case-folded, every run of whitespace, `_` or `-` turned into one
/// space, then trimmed".
fn normalize(text: &str) -> String {
    let composed: String = text.nfc().collect();
    fold(&composed).split(|c: char| c.is_whitespace() || c == '_' || c == '-').filter(|word| !word.is_empty()).collect::<Vec<_>>().join(" ")
}

/// "every bracketed span of the reply (from a `[` to the next `]` with no `[` between them)".
fn bracket_spans(reply: &str) -> Vec<&str> {
    let mut spans = Vec::new();
    for (open, _) in reply.match_indices('[') {
        let rest = &reply[open..];
        if let Some(close) = rest.find(']') {
            if !rest[1..close].contains('[') {
                spans.push(&rest[..=close]);
            }
        }
    }
    spans
}

fn without_brackets(span: &str) -> &str {
    &span[1..span.len() - 1]
}

/// "a signal matches a reply at the first level that succeeds".
fn reference_level(signal: &str, reply: &str) -> MatchLevel {
    if reply.contains(signal) {
        MatchLevel::Exact
    } else if fold(reply).contains(&fold(signal)) {
        MatchLevel::CaseInsensitive
    } else if bracket_spans(reply).into_iter().any(|span| normalize(without_brackets(span)) == normalize(without_brackets(signal))) {
        MatchLevel::Normalized
    } else {
        MatchLevel::None
    }
}

#[test]
fn the_reference_agrees_with_the_examples_of_design_section_3() {
    // The reference itself must be right before it can judge anything.
    assert_eq!(reference_level("[KẾT_THÚC]", "[ Kết  Thúc ]"), MatchLevel::Normalized);
    assert_eq!(reference_level("[ROUTE_EXECUTOR]", "[ route   executor ]"), MatchLevel::Normalized);
    assert_eq!(reference_level("[END]", "[_END_]"), MatchLevel::Normalized);
    assert_eq!(reference_level("[END]", "[note [ end ]"), MatchLevel::Normalized);
    assert_eq!(reference_level("[END]", "[end]"), MatchLevel::CaseInsensitive);
    assert_eq!(reference_level("[END]", "[END]"), MatchLevel::Exact);
    assert_eq!(reference_level("[END]", "[ENDS]"), MatchLevel::None);
    assert_eq!(bracket_spans("[note [ end ] x] [y"), ["[ end ]"]);
    assert!(!reference_is_valid("[]") && !reference_is_valid("END") && !reference_is_valid("[END") && !reference_is_valid("END]"));
}

// ---- random signals and replies ----

/// Characters a signal name may hold, chosen so that folding and normalizing matter.
const NAME_PIECES: &[&str] = &["Ế", "ế", "E\u{302}\u{301}", "K", "k", "ß", "SS", "s", "E", "e", "_", "-", " "];
/// Everything else a reply may hold: brackets, a dot, a tab, a newline.
const REPLY_PIECES: &[&str] = &["[", "]", "[", "]", ".", "\t", "\n", "x"];

fn signal() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(NAME_PIECES), 1..5).prop_map(|pieces| format!("[{}]", pieces.concat()))
}

/// A signal as a sloppy agent might write it: as is, re-cased, re-spaced, decomposed.
fn variant(signal: &str, how: u8) -> String {
    match how % 6 {
        0 => signal.to_owned(),
        1 => signal.to_lowercase(),
        2 => signal.to_uppercase(),
        3 => signal.replace('_', " ").replace('[', "[ ").replace(']', "- ]"),
        4 => signal.nfd().collect(),
        _ => signal.replace("ß", "SS").replace(' ', "_"),
    }
}

/// A reply: random pieces, with variants of `signals` mixed in so the levels are hit.
fn reply_with(signals: Vec<String>) -> impl Strategy<Value = (Vec<String>, String)> {
    let piece = prop_oneof![
        3 => prop::sample::select(NAME_PIECES).prop_map(str::to_owned),
        3 => prop::sample::select(REPLY_PIECES).prop_map(str::to_owned),
        2 => (0..signals.len(), any::<u8>()).prop_map({
            let signals = signals.clone();
            move |(index, how)| variant(&signals[index], how)
        }),
    ];
    prop::collection::vec(piece, 0..16).prop_map(move |pieces| (signals.clone(), pieces.concat()))
}

fn registry_of(signals: &[String]) -> SignalRegistry {
    let mut registry = SignalRegistry::new();
    for name in signals {
        registry.insert(SignalDef::new(name.as_str(), Behavior::Route, SignalOrigin::Declared));
    }
    registry
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn match_signal_agrees_with_the_reference(
        (signals, reply) in prop::collection::vec(signal(), 1..2).prop_flat_map(reply_with)
    ) {
        let signal = &signals[0];
        prop_assert_eq!(match_signal(signal, &reply).unwrap(), reference_level(signal, &reply), "{:?} in {:?}", signal, reply);
    }

    #[test]
    fn one_scan_of_many_signals_agrees_with_the_reference_for_each(
        (signals, reply) in prop::collection::vec(signal(), 1..6).prop_flat_map(reply_with)
    ) {
        let registry = registry_of(&signals);
        let found = SignalMatcher::new(&registry).scan(&reply);
        for (index, def) in registry.iter() {
            let level = found.get(index).map_or(MatchLevel::None, |m| m.level);
            prop_assert_eq!(level, reference_level(def.name.as_str(), &reply), "{} in {:?}", def.name, reply);
            if let Some(m) = found.get(index) {
                // The reported place holds text that matches at that level on its own.
                prop_assert_eq!(reference_level(def.name.as_str(), &reply[m.start..m.end]), m.level);
            }
        }
    }

    #[test]
    fn match_signal_refuses_exactly_the_names_the_reference_refuses(
        name in prop::collection::vec(prop::sample::select([NAME_PIECES, REPLY_PIECES].concat()), 0..6).prop_map(|p| p.concat()),
        wrap in any::<bool>(),
    ) {
        let candidate = if wrap { format!("[{name}]") } else { name };
        prop_assert_eq!(match_signal(&candidate, "[x]").is_ok(), reference_is_valid(&candidate), "{:?}", candidate);
    }
}
