//! The warnings of DESIGN.md §3 — a deprecated signal in use, an agent no route
//! reaches, an agent with no way out, an unknown tool, an unknown key — and the
//! settings that rightly silence them (`routing.agent_behaviors` counts as much as
//! the agent's own `is_terminal` / `wait_for_signal`, DESIGN.md §12).
//!
//! Each warning test has a twin without the cause, so it cannot pass by warning
//! about everything.

use crewgraph_engine::graph::{CrewGraph, EdgeKind};

use crate::support::{all, at, at_nth, load, valid, warnings};

#[test]
fn deprecated_signal_warns_where_a_rule_uses_it_not_where_it_is_declared() {
    let declared = r#"entry_point: a
agents:
  - id: a
  - id: b
    is_terminal: true
signals:
  - name: "[GO]"
    deprecated: "Use [NEXT] instead"
routing:
  signals:
    a:
      - { signal: "[NEXT]", target: b }
"#;
    let loaded = load(declared);
    assert!(loaded.is_valid());
    assert_eq!(all(&loaded), Vec::<String>::new(), "declaring a deprecated signal is not using it");

    let used = declared.replace("[NEXT]\", target", "[GO]\", target");
    let loaded = load(&used);
    assert!(loaded.is_valid(), "a deprecated signal still works");
    let message = "warning: signal '[GO]' is deprecated: Use [NEXT] instead";
    assert_eq!(all(&loaded), [at_nth(&used, "\"[GO]\"", 1, message)]);
}

#[test]
fn agent_no_route_reaches_is_unreachable() {
    let yaml = r#"entry_point: a
agents:
  - id: a
  - id: b
    is_terminal: true
  - id: island
    is_terminal: true
routing:
  signals:
    a:
      - { signal: "[NEXT]", target: b }
"#;
    assert_eq!(all(&load(yaml)), [at(yaml, "island", "warning: agent 'island' is not reached by any route")]);
    // The twin: a handoff target is a route too.
    let reached = yaml.replace("  - id: b\n", "  - id: b\n    handoff_targets: [island]\n");
    assert_eq!(all(&load(&reached)), Vec::<String>::new());
}

#[test]
fn group_members_and_group_next_agents_count_as_reached() {
    let crew = r#"entry_point: lead
agents:
  - id: lead
  - id: left
  - id: right
  - id: closer
    is_terminal: true
routing:
  signals:
    lead:
      - { signal: "[FAN_OUT]", target: pair }
  parallel_groups:
    pair:
      agents: [left, right]
      next_agent: closer
"#;
    // Members run inside the group (their own signals are not acted on there), so
    // they need no way out of their own; the closer is reached after the group.
    let loaded = load(crew);
    assert!(loaded.is_valid());
    assert_eq!(all(&loaded), Vec::<String>::new());
}

#[test]
fn agent_with_no_signal_no_handoff_and_not_terminal_has_no_way_out() {
    let yaml = r#"entry_point: a
agents:
  - id: a
  - id: stuck
routing:
  signals:
    a:
      - { signal: "[NEXT]", target: stuck }
      - { signal: "[END]", target: "" }
"#;
    let message = "warning: agent 'stuck' has no way out (no signal, no handoff target, not terminal)";
    assert_eq!(all(&load(yaml)), [at_nth(yaml, "stuck", 0, message)]);
    // Each way out silences it: a terminal flag, a handoff target, waiting, a rule.
    for fix in ["    is_terminal: true\n", "    handoff_targets: [a]\n", "    wait_for_signal: true\n"] {
        let fixed = yaml.replace("  - id: stuck\n", &format!("  - id: stuck\n{fix}"));
        assert_eq!(all(&load(&fixed)), Vec::<String>::new(), "{fix}");
    }
    let with_rule = format!("{yaml}    stuck:\n      - {{ signal: \"[DONE]\", target: \"\" }}\n");
    assert_eq!(all(&load(&with_rule)), Vec::<String>::new());
}

#[test]
fn is_terminal_and_wait_for_signal_in_agent_behaviors_count_like_the_agents_own() {
    let yaml = r#"entry_point: a
agents:
  - id: a
  - id: finisher
  - id: asker
routing:
  signals:
    a:
      - { signal: "[NEXT]", target: finisher }
      - { signal: "[QUESTION]", target: asker }
  agent_behaviors:
    finisher: { is_terminal: true }
    asker: { wait_for_signal: true }
"#;
    let loaded = load(yaml);
    // Without these behaviours both agents would have no way out (see the twin below).
    assert_eq!(all(&loaded), Vec::<String>::new());
    let crew = loaded.crew.unwrap();
    assert!(crew.agent("finisher").unwrap().is_terminal);
    assert!(!crew.agent("finisher").unwrap().wait_for_signal);
    assert!(crew.agent("asker").unwrap().wait_for_signal);
    assert!(!crew.agent("asker").unwrap().is_terminal);
    let view = CrewGraph::build(&crew).view(&crew);
    let edge = |source: &str, kind: EdgeKind| view.edges.iter().find(|e| e.source == source && e.kind == kind).map(|e| e.target.clone());
    assert_eq!(edge("agent:finisher", EdgeKind::Terminal).as_deref(), Some("end"));
    assert_eq!(edge("agent:asker", EdgeKind::Waits).as_deref(), Some("wait"));

    let twin = yaml.split("  agent_behaviors:").next().unwrap();
    let twin_warnings = warnings(&load(twin));
    assert_eq!(twin_warnings.len(), 2, "{twin_warnings:#?}");
    assert!(twin_warnings.iter().all(|w| w.contains("has no way out")));
}

#[test]
fn agent_behaviors_cannot_switch_off_what_the_agent_sets() {
    // Either place sets the flag (DESIGN.md §12); `false` in one does not undo `true` in the other.
    let yaml = "entry_point: a\nagents:\n  - id: a\n    is_terminal: true\nrouting:\n  agent_behaviors:\n    a: { is_terminal: false }\n";
    assert!(valid(yaml).agent("a").unwrap().is_terminal);
}

#[test]
fn unknown_tool_warns_and_builtin_or_server_tools_do_not() {
    let yaml = r#"entry_point: a
agents:
  - id: a
    is_terminal: true
    tools: [calculator, current_time, http_get, files.read, files/write, files, teleport]
tools:
  servers:
    files:
      command: mcp-files
"#;
    let loaded = load(yaml);
    assert!(loaded.is_valid());
    assert_eq!(all(&loaded), [at(yaml, "teleport", "warning: agent 'a' uses unknown tool 'teleport'")]);
    // A tool whose name merely starts like a server's is not that server's.
    let lookalike = yaml.replace("teleport", "filesystem");
    assert_eq!(all(&load(&lookalike)), [at(&lookalike, "filesystem", "warning: agent 'a' uses unknown tool 'filesystem'")]);
}

#[test]
fn unknown_keys_warn_at_every_depth_but_go_engine_settings_do_not() {
    let yaml = r#"entry_point: a
settings:
  config_mode: strict
  max_tokens_per_day: 100000
  colour: blue
agents:
  - id: a
    cost_limits: { daily: 1 }
    mood: calm
routing:
  signals:
    a:
      - { signal: "[END]", target: "", note: bye }
  parallel_groups:
    g:
      agents: [a]
      size: 2
"#;
    let loaded = load(yaml);
    assert!(loaded.is_valid());
    let expected: Vec<String> = ["colour", "mood", "note", "size"]
        .into_iter()
        .map(|key| at(yaml, &format!("{key}:"), &format!("warning: unknown key '{key}' (ignored)")))
        .collect();
    assert_eq!(warnings(&loaded), expected);
}

#[test]
fn an_agent_without_a_model_is_not_a_problem() {
    let crew = valid("entry_point: a\nagents:\n  - id: a\n    is_terminal: true\n");
    let agent = crew.agent("a").unwrap();
    assert_eq!(agent.model, None, "None means the default model");
    assert_eq!(agent.model_label(), None);
}

#[test]
fn route_warnings_apply_only_under_the_signals_strategy() {
    // Under scoring the supervisor picks specialists; no rule reaches them, rightly.
    let yaml = r#"entry_point: desk
agents:
  - id: desk
  - id: billing
    tags: [invoice]
  - id: tech
    tags: [crash]
routing:
  strategy: scoring
"#;
    let loaded = load(yaml);
    assert!(loaded.is_valid());
    assert_eq!(all(&loaded), Vec::<String>::new());
    let as_signals = yaml.replace("strategy: scoring", "strategy: signals");
    assert!(warnings(&load(&as_signals)).iter().any(|w| w.contains("agent 'billing' is not reached by any route")));
}

/// Regression: an agent reached only by a broadcast was warned to have "no way out",
/// though a broadcast target runs once and the run goes on with the agent that
/// broadcast (DESIGN.md §3).
#[test]
fn agent_reached_only_by_a_broadcast_needs_no_way_out() {
    let yaml = r#"entry_point: host
agents:
  - id: host
  - id: listener
  - id: note_taker
routing:
  signals:
    host:
      - { signal: "[ANNOUNCE]", target: [listener, note_taker] }
      - { signal: "[END]", target: "" }
"#;
    assert_eq!(all(&load(yaml)), Vec::<String>::new());
    // The twin: handed the run by a route, the listener would be stuck.
    let routed =
        yaml.replace("      - { signal: \"[END]\"", "      - { signal: \"[NEXT]\", target: listener }\n      - { signal: \"[END]\"");
    let message = "warning: agent 'listener' has no way out (no signal, no handoff target, not terminal)";
    assert_eq!(all(&load(&routed)), [at(&routed, "listener\n", message)]);
}

#[test]
fn tool_servers_are_read_with_their_environment_headers_and_timeout() {
    use crewgraph_engine::crew::{ServerTransport, ServerValue};
    let yaml = r#"entry_point: a
agents:
  - id: a
    is_terminal: true
    tools: [files.read_text_file, web.*]
tools:
  servers:
    files:
      command: npx
      args: [-y, "@modelcontextprotocol/server-filesystem", /tmp/notes]
      env:
        TOKEN: { key: files_token }
        PORT: 8080
      cwd: /tmp
      timeout: 10s
    web:
      url: https://example.org/mcp
      headers:
        Authorization: { key: web, prefix: "Bearer " }
"#;
    let crew = valid(yaml);
    let [files, web] = &crew.tool_servers[..] else { panic!("two servers: {:?}", crew.tool_servers) };
    assert_eq!(files.timeout, std::time::Duration::from_secs(10));
    let ServerTransport::Stdio { command, args, env, cwd } = &files.transport else { panic!("stdio") };
    assert_eq!((command.as_str(), args.len(), cwd.as_deref()), ("npx", 3, Some("/tmp")));
    assert_eq!(env[0], ("TOKEN".into(), ServerValue::Key { name: "files_token".into(), prefix: String::new() }));
    assert_eq!(env[1], ("PORT".into(), ServerValue::Text("8080".into())));
    let ServerTransport::Http { url, headers } = &web.transport else { panic!("http") };
    assert_eq!(url, "https://example.org/mcp");
    assert_eq!(headers[0].1, ServerValue::Key { name: "web".into(), prefix: "Bearer ".into() });
    assert_eq!(web.timeout, std::time::Duration::from_secs(60));
    assert_eq!(files.describe(), "npx -y @modelcontextprotocol/server-filesystem /tmp/notes");
}

#[test]
fn a_tool_server_that_cannot_be_started_or_reached_is_an_error_at_its_line() {
    let yaml = r#"entry_point: a
agents:
  - id: a
    is_terminal: true
tools:
  servers:
    "bad name":
      command: x
    both:
      command: x
      url: https://x.org/mcp
    creds:
      url: https://me:pw@x.org/mcp
    ftp:
      url: ftp://x.org/
    slow:
      command: x
      timeout: soon
    none:
      args: [x]
"#;
    assert_eq!(
        all(&load(yaml)),
        [
            at(yaml, "\"bad name\"", "tool server name 'bad name' may hold only letters, digits, '-' and '_'"),
            at(yaml, "both:", "tool server 'both' has both a command and a url; give one"),
            at(
                yaml,
                "https://me",
                "tools.servers.creds.url 'https://me:pw@x.org/mcp' is not an http:// or https:// address without a user or password"
            ),
            at(yaml, "ftp://", "tools.servers.ftp.url 'ftp://x.org/' is not an http:// or https:// address without a user or password"),
            at(yaml, "soon", "'tools.servers.slow.timeout' is not a duration: 'soon' (write it like 30s or 2m)"),
            at(yaml, "none:", "missing required field 'tools.servers.none.command'"),
        ]
    );
    let secret_slot = "entry_point: a\nagents:\n  - id: a\n    is_terminal: true\ntools:\n  servers:\n    s:\n      command: x\n      env:\n        T: [1]\n";
    let said = all(&load(secret_slot));
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(said[0].contains("should be a text, or {key: NAME}"), "{said:?}");
}
