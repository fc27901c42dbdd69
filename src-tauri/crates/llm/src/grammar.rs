//! GBNF grammars (llama.cpp's constrained decoding) that make a reply end so that a
//! rule of its agent matches: "some text, then one of the agent's endings" — a
//! bracket signal written as it is, or a last line its pattern signal's regular
//! expression matches (`READY_FOR_REVIEW: T-42`).
//!
//! A pattern is parsed by `regex-syntax` (the parser of the `regex` crate the matcher
//! uses, so both read it alike) and its syntax tree written out as GBNF: literals as
//! strings, classes as character classes, repetitions bounded (an unbounded `\S+`
//! gets at most [`MAX_REPEAT`] more), anchors and word boundaries left out (the line
//! is the reply's last, on a line of its own). A pattern that uses what GBNF cannot
//! say is left out of the grammar, and its agent is only told to write it.

use crewgraph_engine::run::Ending;
use regex_syntax::hir::{Class, Hir, HirKind};

/// The most characters of text before the ending: a small model must come to its
/// signal within about seventy tokens (left alone, SmolLM2 rarely stops before the
/// limit, and its later sentences only repeat the first ones).
pub const MAX_BODY_CHARS: usize = 280;
/// The most repeats an unbounded repetition of a pattern gets (`+`, `*`, `{2,}`).
pub const MAX_REPEAT: u32 = 48;

/// A grammar for "some text of at most `body_chars` characters without brackets,
/// then one of `endings`"; None when no ending can be written in GBNF.
pub fn ending_grammar(endings: &[Ending], body_chars: usize) -> Option<String> {
    let (alternatives, lines) = ending_alternatives(endings, "\"\\n\"");
    if alternatives.is_empty() {
        return None;
    }
    let mut grammar = format!(
        "root ::= body ending\nbody ::= [^\\[\\]] [^\\[\\]]{{0,{}}}\nending ::= {}\n",
        body_chars.max(1) - 1,
        alternatives.join(" | ")
    );
    for (i, line) in lines.iter().enumerate() {
        grammar.push_str(&format!("line{i} ::= {line}\n"));
    }
    Some(grammar)
}

/// The ways a reply may end, as GBNF expressions: each bracket signal as it is, each
/// line signal as `newline` (the GBNF for a line break: a real one, or the escaped
/// `\n` inside a JSON string) then the rule `line<i>`, whose bodies come second. A
/// pattern GBNF cannot say is left out.
pub fn ending_alternatives(endings: &[Ending], newline: &str) -> (Vec<String>, Vec<String>) {
    let mut alternatives = Vec::new();
    let mut lines = Vec::new();
    for ending in endings {
        match ending {
            Ending::Signal(text) => alternatives.push(literal(text)),
            Ending::Line(pattern) => {
                if let Some(line) = pattern_rule(pattern) {
                    alternatives.push(format!("{newline} line{}", lines.len()));
                    lines.push(line);
                }
            }
        }
    }
    (alternatives, lines)
}

/// The GBNF expression for a line `pattern` matches (multi-line mode, as the matcher
/// reads it); None when the pattern does not parse or says what GBNF cannot.
pub fn pattern_rule(pattern: &str) -> Option<String> {
    let hir = regex_syntax::ParserBuilder::new().multi_line(true).build().parse(pattern).ok()?;
    let rule = expression(&hir)?;
    (!rule.trim().is_empty() && rule != "\"\"").then_some(rule)
}

fn expression(hir: &Hir) -> Option<String> {
    Some(match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => "\"\"".to_owned(),
        HirKind::Literal(literal) => bytes_literal(&literal.0),
        HirKind::Class(class) => class_rule(class)?,
        HirKind::Capture(capture) => format!("({})", expression(&capture.sub)?),
        HirKind::Concat(parts) => {
            let parts: Vec<String> =
                parts.iter().filter(|p| !matches!(p.kind(), HirKind::Look(_))).map(expression).collect::<Option<_>>()?;
            if parts.is_empty() {
                "\"\"".to_owned()
            } else {
                parts.join(" ")
            }
        }
        HirKind::Alternation(branches) => {
            format!("({})", branches.iter().map(expression).collect::<Option<Vec<_>>>()?.join(" | "))
        }
        HirKind::Repetition(repetition) => {
            if matches!(repetition.sub.kind(), HirKind::Look(_)) {
                return Some("\"\"".to_owned());
            }
            let sub = expression(&repetition.sub)?;
            let min = repetition.min.min(MAX_REPEAT);
            let max = repetition.max.unwrap_or(u32::MAX).min(min.saturating_add(MAX_REPEAT)).max(min);
            match (min, max) {
                (0, 0) => "\"\"".to_owned(),
                (1, 1) => format!("({sub})"),
                (0, 1) => format!("({sub})?"),
                (min, max) if min == max => format!("({sub}){{{min}}}"),
                (min, max) => format!("({sub}){{{min},{max}}}"),
            }
        }
    })
}

/// Inclusive ranges of code points (or bytes).
type Ranges = Vec<(u32, u32)>;

/// A character class in GBNF: the class itself or its complement, whichever is
/// shorter (`\S` is a few ranges negated, not hundreds listed).
fn class_rule(class: &Class) -> Option<String> {
    let (ranges, negated): (Ranges, Ranges) = match class {
        Class::Unicode(class) => {
            let mut complement = class.clone();
            complement.negate();
            (
                class.ranges().iter().map(|r| (u32::from(r.start()), u32::from(r.end()))).collect(),
                complement.ranges().iter().map(|r| (u32::from(r.start()), u32::from(r.end()))).collect(),
            )
        }
        Class::Bytes(class) => {
            let mut complement = class.clone();
            complement.negate();
            (
                class.ranges().iter().map(|r| (u32::from(r.start()), u32::from(r.end()))).collect(),
                complement.ranges().iter().map(|r| (u32::from(r.start()), u32::from(r.end()))).collect(),
            )
        }
    };
    if ranges.is_empty() {
        return None; // a class that matches nothing
    }
    let write = |ranges: &[(u32, u32)]| -> String {
        ranges
            .iter()
            .map(|&(start, end)| if start == end { class_char(start) } else { format!("{}-{}", class_char(start), class_char(end)) })
            .collect()
    };
    Some(if negated.len() < ranges.len() && !negated.is_empty() {
        format!("[^{}]", write(&negated))
    } else {
        format!("[{}]", write(&ranges))
    })
}

/// One character inside a GBNF class: plain when it cannot be mistaken, escaped otherwise.
fn class_char(c: u32) -> String {
    match char::from_u32(c) {
        Some(ch) if ch.is_ascii_alphanumeric() || matches!(ch, ' ' | '_' | ':' | '.' | ',' | '/' | '#' | '@' | '=') => ch.to_string(),
        _ if c <= 0xFF => format!("\\x{c:02X}"),
        _ if c <= 0xFFFF => format!("\\u{c:04X}"),
        _ => format!("\\U{c:08X}"),
    }
}

/// A literal's bytes as a GBNF string (text as text, other bytes escaped).
fn bytes_literal(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) => literal(text),
        Err(_) => format!("\"{}\"", bytes.iter().map(|b| format!("\\x{b:02X}")).collect::<String>()),
    }
}

/// `text` as a GBNF string literal.
pub fn literal(text: &str) -> String {
    let mut literal = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => literal.push_str("\\\""),
            '\\' => literal.push_str("\\\\"),
            '\n' => literal.push_str("\\n"),
            '\r' => literal.push_str("\\r"),
            '\t' => literal.push_str("\\t"),
            c if c.is_control() => literal.push_str(&format!("\\x{:02X}", c as u32)),
            c => literal.push(c),
        }
    }
    literal.push('"');
    literal
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bracket_signals_are_literals_after_a_body_without_brackets() {
        let grammar =
            ending_grammar(&[Ending::Signal("[QUESTION]".into()), Ending::Signal("[SAY \"HI\"]".into())], MAX_BODY_CHARS).unwrap();
        assert_eq!(
            grammar,
            "root ::= body ending\nbody ::= [^\\[\\]] [^\\[\\]]{0,279}\nending ::= \"[QUESTION]\" | \"[SAY \\\"HI\\\"]\"\n"
        );
    }

    #[test]
    fn a_line_signal_is_its_pattern_on_a_last_line_of_its_own() {
        let grammar =
            ending_grammar(&[Ending::Line(r"^READY_FOR_REVIEW:\s*(\S+)".into()), Ending::Line("^SEEKING_CLARIFICATION$".into())], 100)
                .unwrap();
        assert!(grammar.contains("ending ::= \"\\n\" line0 | \"\\n\" line1\n"), "{grammar}");
        let line0 = grammar.lines().find(|l| l.starts_with("line0 ::= ")).unwrap();
        assert!(line0.starts_with("line0 ::= \"READY_FOR_REVIEW:\" ("), "{line0}");
        assert!(line0.contains("{0,48}") && line0.contains("{1,49}"), "unbounded repeats are bounded: {line0}");
        assert!(line0.contains("[^"), "\\S is written as a negated class: {line0}");
        assert!(grammar.contains("line1 ::= \"SEEKING_CLARIFICATION\"\n"), "anchors are left out: {grammar}");
    }

    #[test]
    fn alternatives_classes_and_case_folding_are_written_out() {
        assert_eq!(pattern_rule("^HEALTH_AUDIT: (HEALTHY|UNHEALTHY)$").unwrap(), "\"HEALTH_AUDIT: \" ((\"HEALTHY\" | \"UNHEALTHY\"))");
        assert_eq!(pattern_rule(r"^T-\d{3}$").unwrap().matches("{3}").count(), 1);
        let folded = pattern_rule("(?i)^done$").unwrap();
        assert!(folded.contains("[Dd]") || folded.contains("[D"), "{folded}");
        assert_eq!(pattern_rule("^(").as_deref(), None, "a pattern that does not parse");
        assert_eq!(pattern_rule(r"^\b$").as_deref(), None, "a pattern of anchors alone says nothing to write");
    }

    #[test]
    fn every_example_crews_line_pattern_becomes_a_grammar() {
        for pattern in [
            r"^READY_FOR_REVIEW:\s*(\S+)",
            "^SEEKING_CLARIFICATION$",
            r"^REVIEW_PASSED:\s*(\S+)",
            r"^REVIEW_FAILED:\s*(\S+)",
            r"^AUDIT_PASSED:\s*(\S+)",
            r"^AUDIT_FAILED:\s*(\S+)",
        ] {
            assert!(pattern_rule(pattern).is_some(), "{pattern}");
        }
    }

    #[test]
    fn no_writable_ending_is_no_grammar() {
        assert_eq!(ending_grammar(&[], MAX_BODY_CHARS), None);
        assert_eq!(ending_grammar(&[Ending::Line("^(".into())], MAX_BODY_CHARS), None);
    }
}
