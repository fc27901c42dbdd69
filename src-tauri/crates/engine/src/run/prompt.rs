//! What an agent is told about its signals under the `signals` strategy
//! (DESIGN.md §4, step 2): a short paragraph drawn from its routing rules, appended
//! to its system prompt, so a person who draws an edge never has to edit a prompt;
//! and the reminder `on_no_signal: reprompt` sends after a reply without a signal.

use super::llm::Ending;
use crate::crew::{Crew, Rule, Target};
use crate::signal::{Behavior, SignalDef};

/// The system prompt of `agent`, with its signal instructions when it has rules.
pub fn system_prompt(crew: &Crew, agent: &str) -> String {
    let base = crew.agent(agent).map(|a| a.system_prompt.trim_end().to_owned()).unwrap_or_default();
    match signal_instructions(crew, agent) {
        Some(instructions) if base.is_empty() => instructions,
        Some(instructions) => format!("{base}\n\n{instructions}"),
        None => base,
    }
}

/// The paragraph listing the agent's signals, or None when it has no rules.
pub fn signal_instructions(crew: &Crew, agent: &str) -> Option<String> {
    let rules = crew.rules_of(agent);
    if rules.is_empty() {
        return None;
    }
    let mut text = String::from(
        "When you have done your part, end your reply with one of these signals, written exactly as shown, \
         to say what happens next:\n",
    );
    for rule in rules {
        let def = rule.signal_index.map(|i| crew.signals.get(i));
        text.push_str(&format!("- {}: {}\n", how_to_write(rule, def), what_it_does(crew, rule, def)));
    }
    text.push_str("Use only these signals, and only one of them.");
    Some(text)
}

/// How `agent`'s replies may end so that one of its rules matches, for a model that
/// can be made to end with one of them: its bracket signals as written
/// (`[QUESTION]`) and its pattern signals as the line their pattern matches. Empty
/// when the agent has no rules.
pub fn ending_signals(crew: &Crew, agent: &str) -> Vec<Ending> {
    let mut endings: Vec<Ending> = Vec::new();
    for rule in crew.rules_of(agent) {
        let ending = match rule.signal_index.and_then(|i| crew.signals.get(i).pattern.as_ref()) {
            Some(pattern) => Ending::Line(pattern.as_str().to_owned()),
            None => Ending::Signal(rule.signal.to_string()),
        };
        if !endings.contains(&ending) {
            endings.push(ending);
        }
    }
    endings
}

/// The reminder after a reply without a signal (`on_no_signal: reprompt`).
pub fn reminder(crew: &Crew, agent: &str) -> String {
    let signals: Vec<String> =
        crew.rules_of(agent).iter().map(|rule| how_to_write(rule, rule.signal_index.map(|i| crew.signals.get(i)))).collect();
    format!(
        "Your last reply did not end with a signal, so the crew cannot tell what comes next. \
         Reply again, and end your reply with one of: {}.",
        signals.join(", ")
    )
}

fn how_to_write(rule: &Rule, def: Option<&SignalDef>) -> String {
    match def.and_then(|d| d.pattern.as_deref()) {
        Some(pattern) => format!("a line `{}`", pattern_example(pattern)),
        None => rule.signal.to_string(),
    }
}

fn what_it_does(crew: &Crew, rule: &Rule, def: Option<&SignalDef>) -> String {
    let name = |target: &Target| match target {
        Target::Agent(id) => crew.agent(id.as_str()).map_or_else(|| id.to_string(), |a| a.name.clone()),
        Target::Group(id) => format!("the group {id}"),
    };
    let targets: Vec<String> = rule.targets.iter().map(name).collect();
    let action = match rule.behavior {
        Behavior::Terminate => "ends the work".to_owned(),
        Behavior::Pause => "asks the person for input and waits".to_owned(),
        Behavior::Route => format!("hands the work to {}", targets.join(", ")),
        Behavior::Parallel => format!("starts {} working side by side", targets.join(", ")),
        Behavior::Broadcast => format!("sends your reply to {}", targets.join(" and ")),
    };
    let meaning = if rule.description.is_empty() { def.map(|d| d.description.as_str()).unwrap_or("") } else { &rule.description };
    if meaning.is_empty() {
        action
    } else {
        format!("{meaning} ({action})")
    }
}

/// A line a pattern signal matches, for the instructions: anchors dropped,
/// whitespace classes as one space, capture groups as `<value>`.
fn pattern_example(pattern: &str) -> String {
    let mut text = pattern.trim_start_matches('^').trim_end_matches('$').to_owned();
    for (from, to) in [(r"\s*", " "), (r"\s+", " "), (r"\s", " "), (r"\:", ":")] {
        text = text.replace(from, to);
    }
    let mut out = String::new();
    let mut depth = 0;
    for c in text.chars() {
        match c {
            '(' => {
                if depth == 0 {
                    out.push_str("<value>");
                }
                depth += 1;
            }
            ')' if depth > 0 => depth -= 1,
            _ if depth > 0 => {}
            c => out.push(c),
        }
    }
    let out = out.replace("  ", " ");
    out.trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::load_str;

    #[test]
    fn instructions_come_from_the_rules_in_words() {
        let crew = load_str(
            "c.yaml",
            r#"
entry_point: t
agents:
  - { id: t, name: Teacher, system_prompt: "You teach." }
  - { id: s, name: Student }
signals:
  - { name: "[QUESTION]", behavior: route, description: asks a question }
  - { name: review-ready, pattern: '^READY_FOR_REVIEW:\s*(\S+)', behavior: route }
routing:
  signals:
    t:
      - { signal: "[QUESTION]", target: s }
      - { signal: review-ready, target: s }
      - { signal: "[END]", target: "" }
"#,
        )
        .crew
        .unwrap();
        let prompt = system_prompt(&crew, "t");
        assert!(prompt.starts_with("You teach.\n\nWhen you have done your part"), "{prompt}");
        assert!(prompt.contains("- [QUESTION]: asks a question (hands the work to Student)"), "{prompt}");
        assert!(prompt.contains("- a line `READY_FOR_REVIEW: <value>`: hands the work to Student"), "{prompt}");
        assert!(prompt.contains("- [END]: The work is finished (ends the work)"), "{prompt}");
        assert_eq!(system_prompt(&crew, "s"), "", "an agent without rules gets no instructions");
        assert!(reminder(&crew, "t").ends_with("one of: [QUESTION], a line `READY_FOR_REVIEW: <value>`, [END]."));
        assert_eq!(
            ending_signals(&crew, "t"),
            [Ending::Signal("[QUESTION]".into()), Ending::Line(r"^READY_FOR_REVIEW:\s*(\S+)".into()), Ending::Signal("[END]".into())],
            "a pattern signal ends the reply as the line it matches"
        );
        assert!(ending_signals(&crew, "s").is_empty());
    }

    #[test]
    fn ending_signals_are_the_bracket_signals_of_the_rules() {
        let crew = load_str(
            "c.yaml",
            r#"
entry_point: t
agents: [{ id: t }, { id: s }]
routing:
  signals:
    t: [{ signal: "[QUESTION]", target: s }, { signal: "[END]", target: "" }]
"#,
        )
        .crew
        .unwrap();
        assert_eq!(ending_signals(&crew, "t"), [Ending::Signal("[QUESTION]".into()), Ending::Signal("[END]".into())]);
    }

    #[test]
    fn pattern_examples_read_like_the_line_to_write() {
        assert_eq!(pattern_example(r"^REVIEW_PASSED:\s*(\S+)"), "REVIEW_PASSED: <value>");
        assert_eq!(pattern_example(r"^SEEKING_CLARIFICATION$"), "SEEKING_CLARIFICATION");
        assert_eq!(pattern_example(r"^HEALTH_AUDIT: (HEALTHY|UNHEALTHY)$"), "HEALTH_AUDIT: <value>");
    }
}
