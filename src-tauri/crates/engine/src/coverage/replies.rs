//! The replies a route-coverage scenario puts in agents' mouths: one that carries a
//! rule's signal (a bracket signal as written, a line signal as a line its pattern
//! matches), one that carries none, and the router's decisions under the `llm` and
//! `gatekeeper` strategies. Each names its turn, so no two replies of a scenario are
//! alike and loop detection (which looks for replies repeated word for word) stays
//! quiet. Whether a reply does what it was written for is not assumed here: the
//! planner asks the strategy's own decision ([`crate::routing::signals::decide`]).

use crate::crew::{Crew, Rule};

/// What one reply of a scenario is, before its turn number is known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Say {
    /// Ends with this text: a bracket signal, or a line on a line of its own.
    Signal { text: String, line: bool },
    /// Carries no signal.
    Plain,
    /// Work without routing: a group member's part, a specialist's answer, an agent's
    /// task under a router.
    Work,
}

impl Say {
    /// The reply of `agent` at turn `turn` of a scenario.
    pub fn render(&self, agent: &str, turn: u32) -> String {
        match self {
            Say::Signal { text, line: false } => format!("Route coverage, turn {turn}: {agent}'s reply. {text}"),
            Say::Signal { text, line: true } => format!("Route coverage, turn {turn}: {agent}'s reply.\n{text}"),
            Say::Plain => format!("Route coverage, turn {turn}: {agent}'s reply, without a signal."),
            Say::Work => format!("Route coverage, turn {turn}: {agent}'s part of the work."),
        }
    }
}

/// A reply that carries `rule`'s signal, or None when none could be written (a line
/// signal whose pattern no simple line matches).
pub fn signal_reply(crew: &Crew, rule: &Rule) -> Option<Say> {
    let pattern = rule.signal_index.and_then(|i| crew.signals.get(i).pattern.clone());
    let Some(pattern) = pattern else {
        return Some(Say::Signal { text: rule.signal.to_string(), line: false });
    };
    let matcher = regex::RegexBuilder::new(&pattern).multi_line(true).build().ok()?;
    line_candidates(&pattern).into_iter().find(|line| matcher.is_match(line)).map(|text| Say::Signal { text, line: true })
}

/// Lines that may match a line signal's pattern: its literal text with anchors
/// dropped, whitespace classes as one space and each capture group filled with a
/// value (a task id, a number, a word).
fn line_candidates(pattern: &str) -> Vec<String> {
    let mut text = pattern.trim_start_matches('^').trim_end_matches('$').to_owned();
    for (from, to) in [(r"\s*", " "), (r"\s+", " "), (r"\s", " "), (r"\:", ":"), (r"\-", "-"), (r"\.", ".")] {
        text = text.replace(from, to);
    }
    ["T-1", "1", "x"]
        .iter()
        .map(|value| {
            let mut out = String::new();
            let mut depth = 0;
            for c in text.chars() {
                match c {
                    '(' => {
                        if depth == 0 {
                            out.push_str(value);
                        }
                        depth += 1;
                    }
                    ')' if depth > 0 => depth -= 1,
                    _ if depth > 0 => {}
                    c => out.push(c),
                }
            }
            out.trim().to_owned()
        })
        .collect()
}

/// A router's (or gatekeeper's) decision giving the work to `agent`, as the JSON
/// text a router model answers with.
pub fn assign(decision: u32, agent: &str) -> String {
    serde_json::json!({
        "workflow_complete": false,
        "reasoning": format!("Route coverage: decision {decision} gives the work to {agent}."),
        "next_agent": agent,
        "next_instruction": format!("Route coverage step {decision} for {agent}."),
    })
    .to_string()
}

/// A decision that completes the work.
pub fn complete(decision: u32) -> String {
    serde_json::json!({
        "workflow_complete": true,
        "reasoning": format!("Route coverage: decision {decision} completes the work."),
        "next_agent": null,
        "next_instruction": null,
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::load_str;

    #[test]
    fn a_line_signal_gets_a_line_its_pattern_matches() {
        let crew = load_str(
            "c.yaml",
            "entry_point: a\nagents: [{id: a}, {id: b}]\nsignals:\n  - {name: ready, pattern: '^READY_FOR_REVIEW:\\s*(\\S+)', behavior: route}\n  - {name: n, pattern: '^TICKET\\s+(\\d+)$', behavior: route}\n  - {name: odd, pattern: '^[xyz]{7}$', behavior: route}\nrouting:\n  signals:\n    a: [{signal: ready, target: b}, {signal: n, target: b}, {signal: odd, target: b}]\n",
        )
        .crew
        .unwrap();
        let rules = crew.rules_of("a");
        assert_eq!(signal_reply(&crew, &rules[0]), Some(Say::Signal { text: "READY_FOR_REVIEW: T-1".into(), line: true }));
        assert_eq!(signal_reply(&crew, &rules[1]), Some(Say::Signal { text: "TICKET 1".into(), line: true }));
        assert_eq!(signal_reply(&crew, &rules[2]), None, "a character class is not written out");
    }

    #[test]
    fn replies_of_one_agent_differ_by_their_turn() {
        let say = Say::Signal { text: "[NEXT]".into(), line: false };
        assert_ne!(say.render("a", 1), say.render("a", 2));
        assert!(Say::Signal { text: "DONE".into(), line: true }.render("a", 1).ends_with("\nDONE"));
    }
}
