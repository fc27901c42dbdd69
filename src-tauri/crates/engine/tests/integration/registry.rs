//! The signal registry of DESIGN.md §3: strict registries (a `signals:` section) and
//! implicit ones (none, as in every Go-engine crew), the built-in signals and how a
//! crew's own signal shadows one, `allowed_agents`, and pattern signals.

use crewgraph_engine::crew::Target;
use crewgraph_engine::signal::{Behavior, MatchLevel, SignalOrigin};

use crate::support::{all, at, at_nth, errors, load, valid};

const BUILTINS: [(&str, Behavior); 11] = [
    ("[END]", Behavior::Terminate),
    ("[END_EXAM]", Behavior::Terminate),
    ("[DONE]", Behavior::Terminate),
    ("[STOP]", Behavior::Terminate),
    ("[NEXT]", Behavior::Route),
    ("[QUESTION]", Behavior::Route),
    ("[ANSWER]", Behavior::Route),
    ("[OK]", Behavior::Route),
    ("[ERROR]", Behavior::Route),
    ("[RETRY]", Behavior::Route),
    ("[WAIT]", Behavior::Pause),
];

#[test]
fn a_crew_with_no_signals_still_has_every_builtin_of_design_section_2() {
    let crew = valid("entry_point: a\nagents:\n  - id: a\n    is_terminal: true\n");
    for (name, behavior) in BUILTINS {
        let def = crew.signals.by_name(name).unwrap_or_else(|| panic!("{name} is built in"));
        assert_eq!((def.behavior, def.origin), (behavior, SignalOrigin::Builtin), "{name}");
    }
    assert_eq!(crew.signals.len(), BUILTINS.len(), "nothing else is registered");
}

// ---- strict registries ----

#[test]
fn strict_registry_accepts_declared_and_builtin_signals_and_nothing_else() {
    let yaml = r#"entry_point: a
agents:
  - id: a
  - id: b
    is_terminal: true
signals:
  - name: "[HAND_OVER]"
routing:
  signals:
    a:
      - { signal: "[HAND_OVER]", target: b }
      - { signal: "[QUESTION]", target: b }
      - { signal: "[HANDOVER]", target: b }
"#;
    // [HANDOVER] is neither declared nor built in (names are exact, not fuzzy).
    let message = "signal '[HANDOVER]' is not registered (unknown signal)";
    assert_eq!(all(&load(yaml)), [at(yaml, "\"[HANDOVER]\"", message)]);
    let crew = load(yaml).crew.unwrap();
    assert!(crew.routing.strict_signals);
    assert_eq!(crew.signals.by_name("[HAND_OVER]").unwrap().origin, SignalOrigin::Declared);
    // A declared signal without behavior: routes.
    assert_eq!(crew.signals.by_name("[HAND_OVER]").unwrap().behavior, Behavior::Route);
}

#[test]
fn strict_registry_checks_each_rule_against_its_signals_behaviour() {
    let yaml = r#"entry_point: a
agents:
  - id: a
  - id: b
    is_terminal: true
signals:
  - name: "[FAN_OUT]"
    behavior: parallel
  - name: "[SHOUT]"
    behavior: broadcast
routing:
  signals:
    a:
      - { signal: "[FAN_OUT]", target: b }
      - { signal: "[NEXT]", target: [a, b] }
      - { signal: "[SHOUT]", target: [a, b] }
      - { signal: "[WAIT]", target: "" }
      - { signal: "[WAIT]", target: b }
  parallel_groups:
    pair: { agents: [a, b] }
"#;
    let loaded = load(yaml);
    assert_eq!(
        errors(&loaded),
        [
            at(yaml, "b }", "parallel signal '[FAN_OUT]' must target a parallel group, got 'b'"),
            at(yaml, "b] }", "only broadcast signals can have several targets; '[NEXT]' has 2"),
            // Both [WAIT] rules check out, but only the first can ever pause the run.
            at_nth(yaml, "\"[WAIT]\"", 1, "agent 'a' has signal '[WAIT]' in two rules (3 and 4); only one of them can ever fire"),
        ]
    );
    let crew = loaded.crew.unwrap();
    let rules = crew.rules_of("a");
    let shout = rules.iter().find(|r| r.signal == "[SHOUT]").unwrap();
    assert_eq!(shout.behavior, Behavior::Broadcast);
    assert_eq!(shout.targets, [Target::Agent("a".into()), Target::Agent("b".into())]);
    // A pause may name the agent to resume with, or nobody.
    let waits: Vec<_> = rules.iter().filter(|r| r.signal == "[WAIT]").map(|r| r.targets.clone()).collect();
    assert_eq!(waits, [vec![], vec![Target::Agent("b".into())]]);
}

#[test]
fn declared_behaviour_must_be_one_of_the_five() {
    let yaml = "entry_point: a\nagents:\n  - id: a\n    is_terminal: true\nsignals:\n  - name: \"[X]\"\n    behavior: teleport\n";
    let message = "signal '[X]' has unknown behavior 'teleport' (route, terminate, pause, parallel or broadcast)";
    assert_eq!(errors(&load(yaml)), [at(yaml, "teleport", message)]);
}

#[test]
fn the_same_signal_declared_twice_is_an_error_at_the_second() {
    let yaml = "entry_point: a\nagents:\n  - id: a\n    is_terminal: true\nsignals:\n  - name: \"[X]\"\n  - name: \"[X]\"\n";
    assert_eq!(errors(&load(yaml)), [at_nth(yaml, "\"[X]\"", 1, "signal '[X]' is registered twice")]);
}

#[test]
fn empty_allowed_agents_means_any_agent_as_an_omitted_one_does() {
    let yaml = r#"entry_point: a
agents:
  - id: a
  - id: b
signals:
  - name: "[PASS]"
    allowed_agents: []
routing:
  signals:
    a:
      - { signal: "[PASS]", target: b }
    b:
      - { signal: "[PASS]", target: a }
      - { signal: "[END]", target: "" }
"#;
    let crew = valid(yaml);
    assert!(crew.signals.by_name("[PASS]").unwrap().allowed_agents.is_empty());
    // The twin: naming one agent restricts the others.
    let restricted = yaml.replace("allowed_agents: []", "allowed_agents: [a]");
    let message = "agent 'b' is not allowed to emit signal '[PASS]'";
    assert_eq!(errors(&load(&restricted)), [at_nth(&restricted, "\"[PASS]\"", 2, message)]);
}

#[test]
fn allowed_agents_and_valid_targets_must_name_real_agents_or_groups() {
    let yaml = r#"entry_point: a
agents:
  - id: a
    is_terminal: true
signals:
  - name: "[X]"
    allowed_agents: [a, nobody]
    valid_targets: [a, nowhere]
"#;
    assert_eq!(
        errors(&load(yaml)),
        [
            at(yaml, "nobody", "signal '[X]' allows unknown agent 'nobody'"),
            at(yaml, "nowhere", "signal '[X]' lists unknown valid target 'nowhere'"),
        ]
    );
}

// ---- implicit registries ----

#[test]
fn implicit_registry_takes_each_behaviour_from_the_rules_target() {
    let yaml = r#"entry_point: a
agents:
  - id: a
  - id: b
    is_terminal: true
routing:
  signals:
    a:
      - { signal: "[TO_B]", target: b }
      - { signal: "[FINISHED]", target: "" }
      - { signal: "[BOTH]", target: pair }
      - { signal: "[TELL_ALL]", target: [a, b] }
  parallel_groups:
    pair: { agents: [a, b] }
"#;
    let crew = valid(yaml);
    assert!(!crew.routing.strict_signals);
    for (name, behavior) in [
        ("[TO_B]", Behavior::Route),
        ("[FINISHED]", Behavior::Terminate),
        ("[BOTH]", Behavior::Parallel),
        ("[TELL_ALL]", Behavior::Broadcast),
    ] {
        let def = crew.signals.by_name(name).unwrap_or_else(|| panic!("{name} registered implicitly"));
        assert_eq!((def.origin, def.behavior), (SignalOrigin::Implicit, behavior), "{name}");
    }
}

#[test]
fn implicit_rule_overrides_a_builtins_behaviour_and_other_builtins_stay_defaults() {
    // Go-engine crews use [END] as an ordinary route; only the strict registry objects.
    let yaml = "entry_point: a\nagents:\n  - id: a\n  - id: b\n    is_terminal: true\nrouting:\n  signals:\n    a:\n      - { signal: \"[END]\", target: b }\n";
    let crew = valid(yaml);
    let end = crew.signals.by_name("[END]").unwrap();
    assert_eq!((end.origin, end.behavior), (SignalOrigin::Implicit, Behavior::Route));
    assert_eq!(crew.rules_of("a")[0].targets, [Target::Agent("b".into())]);
    let done = crew.signals.by_name("[DONE]").unwrap();
    assert_eq!((done.origin, done.behavior), (SignalOrigin::Builtin, Behavior::Terminate));

    let strict = yaml.replace("routing:", "signals: []\nrouting:");
    let message = "termination signal '[END]' must have empty target, got 'b'";
    assert_eq!(errors(&load(&strict)), [at(&strict, "b }", message)]);
}

#[test]
fn implicit_rules_whose_names_collide_after_normalization_are_refused() {
    let yaml = r#"entry_point: a
agents:
  - id: a
  - id: b
    is_terminal: true
routing:
  signals:
    a:
      - { signal: "[GO_ON]", target: b }
    b:
      - { signal: "[go on]", target: a }
"#;
    let message = "signals '[GO_ON]' and '[go on]' are the same after normalization";
    assert_eq!(errors(&load(yaml)), [at(yaml, "\"[go on]\"", message)]);
}

// ---- built-ins shadowed by the crew ----

#[test]
fn crew_signal_with_a_builtins_exact_name_replaces_it() {
    let yaml = "entry_point: a\nagents:\n  - id: a\n  - id: b\n    is_terminal: true\nsignals:\n  - name: \"[END]\"\n    behavior: route\nrouting:\n  signals:\n    a:\n      - { signal: \"[END]\", target: b }\n";
    let crew = valid(yaml);
    let end = crew.signals.by_name("[END]").unwrap();
    assert_eq!((end.origin, end.behavior), (SignalOrigin::Declared, Behavior::Route));
    assert_eq!(crew.signals.iter().filter(|(_, d)| d.name == "[END]").count(), 1);
}

#[test]
fn crew_signal_equal_to_a_builtin_after_normalization_shadows_it() {
    let yaml = r#"entry_point: a
agents:
  - id: a
signals:
  - name: "[end]"
    behavior: terminate
routing:
  signals:
    a:
      - { signal: "[end]", target: "" }
"#;
    let crew = valid(yaml);
    assert!(crew.signals.by_name("[END]").is_none(), "two names equal after normalization cannot both be registered");
    // So a reply's "[END]" is the crew's [end], found case-insensitively, and nothing else.
    let found = crew.matcher.scan("All done. [END]");
    let matches: Vec<_> = found.iter().map(|m| (crew.signals.get(m.signal).name.to_string(), m.level)).collect();
    assert_eq!(matches, [("[end]".to_owned(), MatchLevel::CaseInsensitive)]);
    // And a strict rule that names the shadowed built-in is unknown.
    let stale = yaml.replace("signal: \"[end]\"", "signal: \"[END]\"");
    assert_eq!(errors(&load(&stale)), [at(&stale, "\"[END]\"", "signal '[END]' is not registered (unknown signal)")]);
}

// ---- pattern signals ----

const PATTERNS: &str = r#"entry_point: dev
agents:
  - id: dev
  - id: critic
    is_terminal: true
signals:
  - name: review-ready
    pattern: '^READY_FOR_REVIEW:\s*(\S+)'
    allowed_agents: [dev]
  - name: stuck
    pattern: '^STUCK$'
    behavior: pause
routing:
  signals:
    dev:
      - { signal: review-ready, target: critic }
      - { signal: stuck, target: "" }
"#;

#[test]
fn pattern_signal_matches_at_a_line_start_and_carries_its_first_group_as_payload() {
    let crew = valid(PATTERNS);
    let ready = crew.signals.lookup("review-ready").unwrap();
    let stuck = crew.signals.lookup("stuck").unwrap();
    let reply = "Done with the change.\nREADY_FOR_REVIEW:   PR-7\nSTUCK\n";
    let found = crew.matcher.scan(reply);
    let ready_match = found.get(ready).expect("review-ready found");
    assert_eq!((ready_match.level, ready_match.payload.as_deref()), (MatchLevel::Pattern, Some("PR-7")));
    let stuck_match = found.get(stuck).expect("stuck found: one scan reports every signal");
    assert_eq!((stuck_match.level, stuck_match.payload.as_deref()), (MatchLevel::Pattern, None));
    assert!(crew.matcher.scan("not at the start: READY_FOR_REVIEW: 1").get(ready).is_none());
    assert_eq!(crew.rules_of("dev")[1].behavior, Behavior::Pause);
}

#[test]
fn invalid_regex_is_reported_at_the_pattern() {
    let yaml = PATTERNS.replace(r"'^STUCK$'", r"'^STUCK(\d+'");
    let loaded = load(&yaml);
    assert_eq!(errors(&loaded), [at(&yaml, r"'^STUCK(\d+'", "signal 'stuck' has an invalid pattern: unclosed group")]);
    // The rest of the crew still matches: one bad pattern does not break the matcher.
    let crew = loaded.crew.unwrap();
    let found = crew.matcher.scan("READY_FOR_REVIEW: 9\nSTUCK(1");
    let names: Vec<_> = found.iter().map(|m| crew.signals.get(m.signal).name.to_string()).collect();
    assert_eq!(names, ["review-ready"]);
}

/// Regression: the rule naming a signal whose regex does not compile was reported
/// a second time as `invalid signal format 'stuck'`, blaming a valid name.
#[test]
fn rule_naming_a_pattern_signal_with_a_broken_regex_reports_only_the_regex() {
    let yaml = PATTERNS.replace(r"'^STUCK$'", "'('");
    assert_eq!(errors(&load(&yaml)), [at(&yaml, "'('", "signal 'stuck' has an invalid pattern: unclosed group")]);
}

#[test]
fn pattern_signal_needs_a_plain_name() {
    let yaml = PATTERNS.replace("name: stuck", "name: \"[stuck]\"");
    let message = "pattern signal name '[stuck]' must be a plain name (letters, digits, '_' or '-')";
    let loaded = load(&yaml);
    let errors = errors(&loaded);
    assert_eq!(errors[0], at(&yaml, "\"[stuck]\"", message));
}

/// Regression: a rule using a declared signal refused for colliding with another
/// was also reported as `not registered (unknown signal)`.
#[test]
fn rule_using_a_signal_refused_for_a_collision_reports_only_the_collision() {
    let yaml = r#"entry_point: a
agents:
  - id: a
  - id: b
    is_terminal: true
signals:
  - name: "[GO_ON]"
  - name: "[go on]"
routing:
  signals:
    a:
      - { signal: "[go on]", target: b }
"#;
    let message = "signals '[GO_ON]' and '[go on]' are the same after normalization";
    assert_eq!(errors(&load(yaml)), [at(yaml, "\"[go on]\"", message)]);
}
