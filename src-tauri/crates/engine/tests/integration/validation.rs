//! The errors of DESIGN.md §3, each with its exact wording and the position of the
//! offending word; all errors of a file reported together; values of the wrong kind
//! named by their full path. Expected positions come from the YAML text ([`pos`]).

use crewgraph_engine::Problem;

use crate::support::{all, at, at_nth, errors, fixture_listing, fixture_text, load, load_fixture, pos_in, pos_nth, warnings};

/// `NAME:LINE:COL: message` for the `nth` occurrence of `needle` in fixture `name`.
fn in_fixture(name: &str, needle: &str, nth: usize, message: &str) -> String {
    format!("{name}:{}: {message}", pos_nth(&fixture_text(name), needle, nth))
}

/// [`in_fixture`] at `part` of the `nth` occurrence of `needle`.
fn in_fixture_part(name: &str, needle: &str, nth: usize, part: &str, message: &str) -> String {
    format!("{name}:{}: {message}", pos_in(&fixture_text(name), needle, nth, part))
}

// ---- the bad input of issue 2 that still parses into a crew ----

#[test]
fn missing_entry_point_is_reported_and_the_crew_is_still_drawn() {
    let loaded = load_fixture("missing_entry_point.yaml");
    // A missing key has no position of its own: the start of the file.
    assert_eq!(fixture_listing(&loaded), ["missing_entry_point.yaml:1:1: missing required field 'entry_point'"]);
    assert!(!loaded.is_valid());
    assert_eq!(loaded.crew.unwrap().agents.len(), 1, "the window can still draw the agents");
}

#[test]
fn unknown_target_is_reported_at_the_target() {
    let name = "unknown_target.yaml";
    let message = "signal '[NEXT]' targets unknown agent 'unknown_agent'";
    let expected = in_fixture_part(name, "target: unknown_agent", 0, "unknown_agent", message);
    assert_eq!(fixture_listing(&load_fixture(name)), [expected]);
}

#[test]
fn duplicate_agent_id_is_reported_at_the_second_id_and_the_first_agent_is_kept() {
    let name = "duplicate_agent_ids.yaml";
    let loaded = load_fixture(name);
    let expected = in_fixture_part(name, "- id: teacher", 1, "teacher", "duplicate agent id 'teacher'");
    assert_eq!(fixture_listing(&loaded), [expected]);
    let crew = loaded.crew.unwrap();
    let ids: Vec<_> = crew.agents.iter().map(|a| a.id.as_str()).collect();
    assert_eq!(ids, ["teacher", "student"]);
    assert!(crew.agents[0].is_terminal, "the first teacher is the one kept");
}

#[test]
fn every_invalid_signal_format_of_design_is_refused_where_declared_and_where_used() {
    let name = "invalid_signal_formats.yaml";
    let formats = ["[]", "END", "[END", "END]"];
    let declared = formats.iter().map(|f| in_fixture_at(name, &format!("- name: \"{f}\""), 0, "\"", f));
    let used = formats.iter().map(|f| in_fixture_at(name, &format!("- signal: \"{f}\""), 0, "\"", f));
    let expected: Vec<String> = declared.chain(used).collect();
    assert_eq!(fixture_listing(&load_fixture(name)), expected);
}

/// The expectation for signal `signal`'s invalid format, at `part` of `needle`.
fn in_fixture_at(name: &str, needle: &str, nth: usize, part: &str, signal: &str) -> String {
    format!("{name}:{}: invalid signal format '{signal}'", pos_in(&fixture_text(name), needle, nth, part))
}

#[test]
fn termination_signal_with_a_target_is_an_error_in_a_strict_registry() {
    let name = "terminate_with_target.yaml";
    // Occurrences: the comment has none; 0 is the agent id, 1 [HAND_IN]'s target, 2 [END]'s.
    let message = "termination signal '[END]' must have empty target, got 'other_agent'";
    assert_eq!(fixture_listing(&load_fixture(name)), [in_fixture(name, "other_agent", 2, message)]);
}

#[test]
fn signal_an_agent_may_not_emit_is_reported_at_the_rule_signal() {
    let name = "not_allowed_to_emit.yaml";
    let message = "agent 'reporter' is not allowed to emit signal '[QUESTION]'";
    // 0: the declaration, 1: the teacher's rule, 2: the reporter's rule.
    assert_eq!(fixture_listing(&load_fixture(name)), [in_fixture(name, "\"[QUESTION]\"", 2, message)]);
}

#[test]
fn parallel_group_naming_an_unknown_agent_is_reported_at_the_member() {
    let name = "group_unknown_agent.yaml";
    let loaded = load_fixture(name);
    let message = "parallel group 'exam_round' names unknown agent 'ghost'";
    assert_eq!(fixture_listing(&loaded), [in_fixture(name, "ghost", 0, message)]);
    // The known member stays, so the group frame can still be drawn.
    assert_eq!(loaded.crew.unwrap().group("exam_round").unwrap().agents, ["student"]);
}

#[test]
fn unknown_keys_are_warnings_and_the_crew_stays_valid() {
    let name = "unknown_keys.yaml";
    let loaded = load_fixture(name);
    assert!(loaded.is_valid(), "unknown keys must not stop a crew");
    assert_eq!(
        fixture_listing(&loaded),
        [
            in_fixture(name, "colour", 0, "warning: unknown key 'colour' (ignored)"),
            in_fixture(name, "favourite_food", 0, "warning: unknown key 'favourite_food' (ignored)"),
            in_fixture(name, "strateggy", 0, "warning: unknown key 'strateggy' (ignored)"),
        ]
    );
    assert!(loaded.diagnostics.iter().all(|d| !d.is_error()));
}

// ---- the other messages of DESIGN.md §3, one crew each ----

#[test]
fn unknown_signal_in_a_strict_registry() {
    let yaml = r#"entry_point: a
agents:
  - id: a
    is_terminal: true
signals:
  - name: "[KNOWN]"
routing:
  signals:
    a:
      - { signal: "[UNKNOWN]", target: a }
"#;
    let expected = at(yaml, "\"[UNKNOWN]\"", "signal '[UNKNOWN]' is not registered (unknown signal)");
    assert_eq!(errors(&load(yaml)), [expected]);
}

#[test]
fn routing_signal_without_a_target_is_reported_at_the_signal() {
    // Strict: in an implicit registry an empty target makes the rule a terminate one.
    let yaml = "entry_point: a\nagents:\n  - id: a\n    is_terminal: true\nsignals: []\nrouting:\n  signals:\n    a:\n      - signal: \"[NEXT]\"\n";
    assert_eq!(errors(&load(yaml)), [at(yaml, "\"[NEXT]\"", "routing signal '[NEXT]' needs a target")]);
}

#[test]
fn target_outside_a_signals_valid_targets_lists_them_in_order() {
    let yaml = r#"entry_point: y
agents:
  - id: y
    is_terminal: true
  - id: a
  - id: b
signals:
  - name: "[X]"
    valid_targets: [a, b]
routing:
  signals:
    y:
      - { signal: "[X]", target: y }
"#;
    let message = "signal '[X]' target 'y' is not one of its valid targets: a, b";
    assert_eq!(errors(&load(yaml)), [at(yaml, "y }", message)]);
}

#[test]
fn entry_point_that_is_not_an_agent_is_reported_at_its_value() {
    let yaml = "name: Exam\nentry_point: x\nagents:\n  - id: a\n    is_terminal: true\n";
    assert_eq!(errors(&load(yaml)), [at(yaml, "x\n", "entry_point 'x' is not an agent")]);
}

#[test]
fn two_signal_names_equal_after_normalization_are_refused_at_the_second() {
    let yaml = r#"entry_point: a
agents:
  - id: a
    is_terminal: true
signals:
  - name: "[A_B]"
  - name: "[a b]"
"#;
    let message = "signals '[A_B]' and '[a b]' are the same after normalization";
    assert_eq!(errors(&load(yaml)), [at(yaml, "\"[a b]\"", message)]);
}

#[test]
fn handoff_target_that_is_not_an_agent_is_reported_at_the_target() {
    let yaml = "entry_point: a\nagents:\n  - id: a\n    handoff_targets: [b, x]\n  - id: b\n    is_terminal: true\n";
    let loaded = load(yaml);
    assert_eq!(errors(&loaded), [at(yaml, "x]", "handoff target 'x' of agent 'a' is not an agent")]);
    // The good target is kept: the fallback edge to b is still drawn.
    assert_eq!(loaded.crew.unwrap().agent("a").unwrap().handoff_targets, ["b"]);
}

// ---- all errors of a file at once ----

#[test]
fn every_error_of_a_file_is_reported_in_one_load_in_file_order() {
    let name = "many_errors.yaml";
    let loaded = load_fixture(name);
    let expected = [
        in_fixture(name, "principal", 0, "entry_point 'principal' is not an agent"),
        in_fixture(name, "ghost", 0, "handoff target 'ghost' of agent 'teacher' is not an agent"),
        in_fixture_part(name, "- id: student", 1, "student", "duplicate agent id 'student'"),
        in_fixture(name, "\"[a b]\"", 0, "signals '[A_B]' and '[a b]' are the same after normalization"),
        in_fixture(name, "\"[]\"", 0, "invalid signal format '[]'"),
        in_fixture(name, "\"END\"", 0, "invalid signal format 'END'"),
        in_fixture(name, "\"[END\"", 0, "invalid signal format '[END'"),
        in_fixture(name, "\"END]\"", 0, "invalid signal format 'END]'"),
        in_fixture(name, "\"[UNKNOWN]\"", 0, "signal '[UNKNOWN]' is not registered (unknown signal)"),
        in_fixture(name, "unknown_agent", 0, "signal '[NEXT]' targets unknown agent 'unknown_agent'"),
        in_fixture(name, "other_agent", 0, "termination signal '[END]' must have empty target, got 'other_agent'"),
        in_fixture(name, "\"[NEXT]\"", 1, "routing signal '[NEXT]' needs a target"),
        in_fixture_part(
            name,
            "target: teacher",
            0,
            "teacher",
            "signal '[QUESTION]' target 'teacher' is not one of its valid targets: student, reporter",
        ),
        in_fixture(name, "\"[QUESTION]\"", 2, "agent 'reporter' is not allowed to emit signal '[QUESTION]'"),
        in_fixture_part(name, "target: teacher", 1, "teacher", "termination signal '[GRADE]' must have empty target, got 'teacher'"),
        in_fixture(name, "x]", 0, "parallel group 'exam_round' names unknown agent 'x'"),
    ];
    assert_eq!(fixture_listing(&loaded), expected);
    assert!(loaded.crew.is_some(), "a crew with errors is still built for the window");
}

#[test]
fn many_errors_listing_with_plain_words() {
    // The whole listing is the point here: what the CLI prints and what the window says.
    let loaded = load_fixture("many_errors.yaml");
    let listing: Vec<String> = fixture_listing(&loaded)
        .into_iter()
        .zip(&loaded.diagnostics)
        .map(|(line, diagnostic)| format!("{line}\n    {}", diagnostic.plain))
        .collect();
    insta::assert_snapshot!(listing.join("\n"));
}

// ---- values of the wrong kind ----

/// Regression: a wrong value under an id-keyed section (`routing.signals.<agent>`,
/// `parallel_groups.<group>` …) was named `routing.signals` and placed at the
/// section's first colon, not at the value.
#[test]
fn wrong_kind_of_value_under_routing_signals_names_the_agent_and_points_at_the_value() {
    let yaml = r#"entry_point: a
agents:
  - id: a
  - id: b
    is_terminal: true
routing:
  signals:
    a:
      - { signal: "[NEXT]", target: b }
    b:
      - signal: [oops]
"#;
    let message = "'routing.signals.b[0].signal' should be text, not a list";
    assert_eq!(all(&load(yaml)), [at(yaml, "[oops]", message)]);
}

#[test]
fn rules_written_as_one_text_instead_of_a_list_name_the_agent() {
    let yaml = "entry_point: a\nagents:\n  - id: a\nrouting:\n  signals:\n    a: \"[END]\"\n";
    let message = "'routing.signals.a' should be a list, not the text \"[END]\"";
    assert_eq!(all(&load(yaml)), [at(yaml, "\"[END]\"", message)]);
}

#[test]
fn wrong_kind_of_value_in_a_parallel_group_names_the_group() {
    let yaml =
        "entry_point: a\nagents:\n  - id: a\nrouting:\n  parallel_groups:\n    first:\n      agents: [a]\n    second:\n      agents: a\n";
    let message = "'routing.parallel_groups.second.agents' should be a list, not the text \"a\"";
    assert_eq!(all(&load(yaml)), [format!("crew.yaml:{}: {message}", pos_in(yaml, "agents: a\n", 0, "a\n"))]);
}

#[test]
fn non_boolean_agent_behaviour_names_the_agent_and_the_key() {
    let yaml = "entry_point: a\nagents:\n  - id: a\n  - id: b\nrouting:\n  agent_behaviors:\n    a: { is_terminal: true }\n    b: { is_terminal: sure }\n";
    let message = "'routing.agent_behaviors.b.is_terminal' must be true or false, not 'sure'";
    assert_eq!(all(&load(yaml)), [at(yaml, "sure", message)]);
}

#[test]
fn wrong_kind_of_value_in_an_agent_names_the_agent_by_index() {
    let yaml = "entry_point: a\nagents:\n  - id: a\n    temperature: hot\n";
    assert_eq!(all(&load(yaml)), [at(yaml, "hot", "'agents[0].temperature' must be a number, not 'hot'")]);
    let problem = &load(yaml).diagnostics[0].problem;
    assert_eq!(*problem, Problem::WrongType { field: "agents[0].temperature".into(), detail: "must be a number, not 'hot'".into() });
}

#[test]
fn warnings_alone_do_not_make_a_crew_invalid() {
    let yaml = "entry_point: a\nagents:\n  - id: a\n    is_terminal: true\n  - id: lonely\n    is_terminal: true\n";
    let loaded = load(yaml);
    assert!(loaded.is_valid());
    assert_eq!(warnings(&loaded), [at_nth(yaml, "lonely", 0, "warning: agent 'lonely' is not reached by any route")]);
}

#[test]
fn negative_numbers_are_refused_naming_the_value() {
    let yaml = "entry_point: a\nmax_handoffs: -1\nsettings:\n  timeout_seconds: -5\nagents:\n  - id: a\n    is_terminal: true\n";
    let found = all(&load(yaml));
    assert!(found.iter().any(|m| m.contains("'max_handoffs'") && m.contains("-1")), "{found:?}");
    for message in &found {
        for rust in ["u32", "u64", "i64", "struct ", "enum ", "mappingping"] {
            assert!(!message.contains(rust), "{message}");
        }
    }
}

#[test]
fn a_mapping_where_a_value_belongs_is_said_without_rust_names() {
    let yaml = "entry_point: a\ntools: fetch\nagents:\n  - id: a\n    is_terminal: true\n    primary: gpt\n";
    for message in all(&load(yaml)) {
        assert!(!message.contains("File") && !message.contains("struct") && !message.contains("mappingping"), "{message}");
        assert!(message.contains("should be a mapping"), "{message}");
    }
}

#[test]
fn the_quoted_text_null_as_a_target_is_an_unknown_agent_not_the_end() {
    let yaml = "entry_point: a\nagents:\n  - id: a\n  - id: b\nrouting:\n  signals:\n    a:\n      - { signal: \"[DONE]\", target: null }\n      - { signal: \"[NEXT]\", target: \"null\" }\n      - { signal: \"[GO]\", target: b }\n";
    assert_eq!(errors(&load(yaml)), [at(yaml, "\"null\"", "signal '[NEXT]' targets unknown agent 'null'")]);
}

#[test]
fn the_same_signal_twice_in_one_agents_rules_is_a_warning_without_a_registry() {
    let yaml = "entry_point: a\nagents:\n  - id: a\n  - id: b\n    is_terminal: true\nrouting:\n  signals:\n    a:\n      - { signal: \"[NEXT]\", target: b }\n      - { signal: \"[NEXT]\", target: a }\n";
    let loaded = load(yaml);
    assert!(loaded.is_valid(), "{:?}", all(&loaded));
    let message = "warning: agent 'a' has signal '[NEXT]' in two rules (0 and 1); only one of them can ever fire";
    assert!(warnings(&loaded).contains(&at_nth(yaml, "\"[NEXT]\"", 1, message)), "{:?}", warnings(&loaded));
}
