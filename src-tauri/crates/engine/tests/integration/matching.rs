//! Matching signals in replies, exactly as DESIGN.md §3 words it: `exact`, then
//! `case_insensitive` (Unicode case folding), then `normalized` (each bracket span,
//! NFC + folded + `_`/`-`/whitespace as one separator, trimmed), else `none`; and a
//! crew's matcher reporting every signal of one reply in one scan.

use crewgraph_engine::signal::matcher::InvalidSignalFormat;
use crewgraph_engine::signal::{match_signal, MatchLevel};
use unicode_normalization::UnicodeNormalization;

use crate::support::valid;

fn level(signal: &str, reply: &str) -> MatchLevel {
    match_signal(signal, reply).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn exact_is_the_signal_text_byte_for_byte() {
    assert_eq!(level("[END]", "Task complete. [END]"), MatchLevel::Exact);
    assert_eq!(level("[END_EXAM]", "[END_EXAM]"), MatchLevel::Exact);
    assert_eq!(level("[KẾT_THÚC]", "Xong rồi[KẾT_THÚC]!"), MatchLevel::Exact);
    assert_eq!(level("[A B]", "x [A B] y"), MatchLevel::Exact, "spaces are part of a name");
}

#[test]
fn case_insensitive_folds_unicode_case_not_only_ascii() {
    assert_eq!(level("[END]", "done [end]"), MatchLevel::CaseInsensitive);
    assert_eq!(level("[END]", "done [eNd]"), MatchLevel::CaseInsensitive);
    assert_eq!(level("[KẾT_THÚC]", "xong [kết_thúc]"), MatchLevel::CaseInsensitive);
    assert_eq!(level("[CÂU_HỎI]", "[Câu_Hỏi]"), MatchLevel::CaseInsensitive);
    // Full folding: ß folds to "ss", so [STRASSE] and [straße] are the same word.
    assert_eq!(level("[STRASSE]", "[straße]"), MatchLevel::CaseInsensitive);
    assert_eq!(level("[straße]", "[STRASSE]"), MatchLevel::CaseInsensitive);
    // Final sigma folds like sigma (lower-casing alone would not make these equal).
    assert_eq!(level("[ΟΔΟΣ]", "[οδος]"), MatchLevel::CaseInsensitive);
    // The Kelvin sign K (U+212A) folds to k.
    assert_eq!(level("[OK]", "[o\u{212a}]"), MatchLevel::CaseInsensitive);
}

#[test]
fn normalized_treats_underscore_hyphen_and_whitespace_as_one_separator() {
    // DESIGN.md §3's own examples.
    assert_eq!(level("[KẾT_THÚC]", "[ Kết  Thúc ]"), MatchLevel::Normalized);
    assert_eq!(level("[ROUTE_EXECUTOR]", "[ route   executor ]"), MatchLevel::Normalized);
    assert_eq!(level("[END]", "[_END_]"), MatchLevel::Normalized);
    // Any mix of separators is one separator; tabs and newlines are whitespace.
    assert_eq!(level("[ROUTE_EXECUTOR]", "[route-_- executor]"), MatchLevel::Normalized);
    assert_eq!(level("[ROUTE_EXECUTOR]", "[ROUTE\n\tEXECUTOR]"), MatchLevel::Normalized);
    assert_eq!(level("[route executor]", "[ROUTE-EXECUTOR]"), MatchLevel::Normalized);
    // DESIGN.md §12: seed 000's counter-example matches now.
    assert_eq!(level("[ROUTE_EXECUTOR]", "[ ROUTE  EXECUTOR ]"), MatchLevel::Normalized);
}

#[test]
fn normalized_is_not_a_fuzzy_match() {
    // A separator splits a word; it cannot be removed to join one.
    assert_eq!(level("[END]", "[EN D]"), MatchLevel::None);
    assert_eq!(level("[ROUTE_EXECUTOR]", "[ROUTEEXECUTOR]"), MatchLevel::None);
    assert_eq!(level("[END]", "ENDING [ENDS]"), MatchLevel::None);
    // A signal is bracketed: the bare word is not the signal.
    assert_eq!(level("[END]", "THE END"), MatchLevel::None);
    assert_eq!(level("[END]", ""), MatchLevel::None);
}

#[test]
fn decomposed_text_matches_at_the_normalized_level_after_nfc() {
    let decomposed: String = "[KẾT_THÚC]".nfd().collect();
    assert_ne!(decomposed, "[KẾT_THÚC]", "the test needs a really decomposed reply");
    // Not byte-equal and not equal after folding alone: NFC is what makes them equal.
    assert_eq!(level("[KẾT_THÚC]", &decomposed), MatchLevel::Normalized);
    // A decomposed signal matches a composed reply the same way.
    assert_eq!(level(&decomposed, "[KẾT_THÚC]"), MatchLevel::Normalized);
    // And composed Vietnamese stays distinct from its unaccented spelling.
    assert_eq!(level("[KẾT_THÚC]", "[KET_THUC]"), MatchLevel::None);
}

#[test]
fn a_bracket_span_runs_from_a_bracket_to_the_next_closing_one_with_no_bracket_between() {
    // `[note [ end ]` holds the span `[ end ]` (DESIGN.md §3).
    assert_eq!(level("[END]", "[note [ end ]"), MatchLevel::Normalized);
    assert_eq!(level("[END]", "[[END]]"), MatchLevel::Exact);
    assert_eq!(level("[END]", "[ end"), MatchLevel::None, "an unclosed bracket holds no span");
    assert_eq!(level("[END]", "end ]"), MatchLevel::None);
    assert_eq!(level("[END]", "] end ["), MatchLevel::None);
    // `[a] end]`: the span is `[a]`; ` end]` is not one.
    assert_eq!(level("[END]", "[a] end]"), MatchLevel::None);
}

#[test]
fn the_best_level_anywhere_in_the_reply_wins() {
    // A weaker form first and the exact one later: exact.
    assert_eq!(level("[END]", "[ end ] ... [end] ... [END]"), MatchLevel::Exact);
    assert_eq!(level("[END]", "[ end ] ... [end]"), MatchLevel::CaseInsensitive);
}

#[test]
fn every_invalid_signal_format_of_design_is_refused_with_its_message() {
    for bad in ["[]", "END", "[END", "END]", "[A.B]", "[[END]]", ""] {
        let error = match_signal(bad, "[END] END [] [A.B]").unwrap_err();
        assert_eq!(error, InvalidSignalFormat(bad.to_owned()));
        assert_eq!(error.to_string(), format!("invalid signal format '{bad}'"));
    }
}

const CREW: &str = r#"entry_point: a
agents:
  - id: a
routing:
  signals:
    a:
      - { signal: "[QUESTION]", target: a }
      - { signal: "[KẾT_THÚC]", target: "" }
      - { signal: "[ROUTE_EXECUTOR]", target: a }
      - { signal: "[DONE]", target: "" }
      - { signal: "[NEVER]", target: "" }
"#;

#[test]
fn one_scan_reports_every_signal_of_the_crew_with_its_level_and_place() {
    let crew = valid(CREW);
    let reply = "[question] first. Then [ROUTE_EXECUTOR], then [ kết thúc ] and [Done]. [NEXT_TIME]";
    let found = crew.matcher.scan(reply);
    let seen: Vec<(String, MatchLevel, &str)> =
        found.iter().map(|m| (crew.signals.get(m.signal).name.to_string(), m.level, &reply[m.start..m.end])).collect();
    // In reply order, each once; built-ins the crew did not use are found too.
    assert_eq!(
        seen,
        [
            ("[QUESTION]".to_owned(), MatchLevel::CaseInsensitive, "[question]"),
            ("[ROUTE_EXECUTOR]".to_owned(), MatchLevel::Exact, "[ROUTE_EXECUTOR]"),
            ("[KẾT_THÚC]".to_owned(), MatchLevel::Normalized, "[ kết thúc ]"),
            ("[DONE]".to_owned(), MatchLevel::CaseInsensitive, "[Done]"),
        ]
    );
}

#[test]
fn scan_reports_a_signals_best_level_at_its_first_place_at_that_level() {
    let crew = valid(CREW);
    let reply = "[done] [ DONE ] [DONE] [DONE]";
    let found = crew.matcher.scan(reply);
    let done = found.get(crew.signals.lookup("[DONE]").unwrap()).unwrap();
    assert_eq!(done.level, MatchLevel::Exact);
    assert_eq!(done.start, reply.find("[DONE]").unwrap(), "the first exact occurrence");
    assert_eq!(found.iter().count(), 1, "one entry per signal, not per occurrence");
}

#[test]
fn scan_agrees_with_match_signal_for_each_signal_of_the_crew() {
    let crew = valid(CREW);
    let replies = ["", "[NEVER]", "[never] [ kết-thúc ]", "[[QUESTION] [ route executor ]", "[DONE [ROUTE_EXECUTOR]]"];
    for reply in replies {
        let found = crew.matcher.scan(reply);
        for (index, def) in crew.signals.iter() {
            let alone = level(def.name.as_str(), reply);
            let together = found.get(index).map_or(MatchLevel::None, |m| m.level);
            // Compiling all signals together must not change any one signal's answer.
            assert_eq!(together, alone, "{} in {reply:?}", def.name);
        }
    }
}

#[test]
fn aliases_match_as_their_signal_does_from_an_entry_a_rule_or_for_a_built_in() {
    let crew = valid(
        r#"entry_point: a
signals:
  - { name: "[QUESTION]", behavior: route, aliases: ["[QUESTON]"] }
agents:
  - { id: a }
  - { id: b, is_terminal: true }
routing:
  signals:
    a:
      - { signal: "[QUESTION]", target: b, aliases: ["[ASKING]"] }
      - { signal: "[END]", target: "", aliases: ["[ENDE]"] }
"#,
    );
    let found = |reply: &str| -> Vec<(String, MatchLevel)> {
        crew.matcher.scan(reply).iter().map(|m| (crew.signals.get(m.signal).name.to_string(), m.level)).collect()
    };
    assert_eq!(found("ok [QUESTON]"), [("[QUESTION]".to_owned(), MatchLevel::Exact)]);
    assert_eq!(found("ok [asking]"), [("[QUESTION]".to_owned(), MatchLevel::CaseInsensitive)]);
    // A built-in the crew does not declare takes its rule's aliases too.
    assert_eq!(found("bye [ ende ]"), [("[END]".to_owned(), MatchLevel::Normalized)]);
}
