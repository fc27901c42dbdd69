//! Every crew in `crews/` is a test fixture (STYLE.md habit 11): discovered at test
//! time, so a new example is covered the moment it is added. Each must load with no
//! problem at all and draw a connected graph; the special crews keep what makes them
//! special (Vietnamese signals, the Go directory layout, pattern signals, scoring).

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::PathBuf;
use std::time::Duration;

use crewgraph_engine::crew::{policy_of, CrewLayout, ModelSpec, ServerTransport, Strategy, Target, ToolPolicy};
use crewgraph_engine::graph::{CrewGraph, EdgeKind, GraphView, NodeKind};
use crewgraph_engine::signal::{Behavior, MatchLevel, SignalOrigin};
use crewgraph_engine::{load_path, Crew};
use unicode_normalization::UnicodeNormalization;

use crate::support::{crews_dir, listing};

/// Every crew of `crews/`, sorted: the YAML files and the folders holding a
/// crew.yaml, as the window offers them (`crews/scripts/` holds scripts, not crews).
fn example_paths() -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = fs::read_dir(crews_dir())
        .expect("crews/ is readable")
        .map(|entry| entry.expect("a readable entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "yaml") || path.join("crew.yaml").is_file())
        .collect();
    paths.sort();
    paths
}

fn load_example(name: &str) -> Crew {
    let path = crews_dir().join(name);
    let loaded = load_path(&path);
    assert!(loaded.is_valid(), "{name}: {:#?}", listing(&loaded, &crews_dir()));
    loaded.crew.unwrap()
}

fn view_of(crew: &Crew) -> GraphView {
    CrewGraph::build(crew).view(crew)
}

#[test]
fn the_crews_folder_holds_only_crews_and_at_least_the_six_of_issue_2() {
    let paths = example_paths();
    // Fewer would mean discovery looks in the wrong place and the tests below check nothing.
    assert!(paths.len() >= 6, "found only {paths:?}");
    for path in &paths {
        let is_yaml = matches!(path.extension().and_then(|e| e.to_str()), Some("yaml" | "yml"));
        let is_crew_dir = path.is_dir() && path.join("crew.yaml").is_file();
        // The window's start view skips anything else, so a stray file would be an example nobody sees.
        assert!(is_yaml || is_crew_dir, "{} is neither a crew file nor a crew directory", path.display());
    }
}

#[test]
fn every_example_crew_loads_without_errors_or_warnings() {
    for path in example_paths() {
        let loaded = load_path(&path);
        assert!(loaded.crew.is_some(), "{} did not parse", path.display());
        // Examples teach by example: even a warning would teach the wrong thing.
        assert_eq!(listing(&loaded, &crews_dir()), Vec::<String>::new(), "{}", path.display());
        // The crew file is read first (the CLI and the window rely on that order).
        let first = loaded.files.first().expect("at least the crew file was read");
        assert!(first.ends_with("crew.yaml") || *first == path, "{} read {first:?} first", path.display());
    }
}

#[test]
fn every_example_graph_draws_each_agent_once_with_consistent_edges() {
    for path in example_paths() {
        let name = path.display().to_string();
        let crew = load_path(&path).crew.unwrap();
        let view = view_of(&crew);
        let node_ids: HashSet<&str> = view.nodes.iter().map(|n| n.id.as_str()).collect();
        assert_eq!(node_ids.len(), view.nodes.len(), "{name}: node ids repeat");
        for agent in &crew.agents {
            let id = format!("agent:{}", agent.id);
            let drawn: Vec<_> = view.nodes.iter().filter(|n| n.id == id).collect();
            assert_eq!(drawn.len(), 1, "{name}: {id} drawn {} times", drawn.len());
            assert_eq!(drawn[0].kind, NodeKind::Agent);
            assert_eq!(drawn[0].label, agent.name, "{name}: the card shows the agent's name");
        }
        let agent_nodes = view.nodes.iter().filter(|n| n.kind == NodeKind::Agent).count();
        assert_eq!(agent_nodes, crew.agents.len(), "{name}: agent nodes that are no agent");
        assert!(!view.edges.is_empty(), "{name}: a crew without an edge cannot route");
        let edge_ids: HashSet<&str> = view.edges.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(edge_ids.len(), view.edges.len(), "{name}: edge ids repeat (React Flow needs unique keys)");
        for edge in &view.edges {
            assert!(node_ids.contains(edge.source.as_str()), "{name}: {} starts nowhere", edge.id);
            assert!(node_ids.contains(edge.target.as_str()), "{name}: {} ends nowhere", edge.id);
        }
        let entries: Vec<_> = view.nodes.iter().filter(|n| n.entry).map(|n| n.id.clone()).collect();
        assert_eq!(entries, [format!("agent:{}", crew.entry_point)], "{name}: exactly the entry point is marked");
    }
}

#[test]
fn every_example_agent_can_be_reached_from_the_entry_point_on_the_drawn_graph() {
    for path in example_paths() {
        let crew = load_path(&path).crew.unwrap();
        let view = view_of(&crew);
        // Edges, plus a group frame leading to the members drawn inside it.
        let mut next: HashMap<&str, Vec<&str>> = HashMap::new();
        for edge in &view.edges {
            next.entry(edge.source.as_str()).or_default().push(edge.target.as_str());
        }
        for node in &view.nodes {
            if let Some(parent) = &node.parent {
                next.entry(parent.as_str()).or_default().push(node.id.as_str());
            }
        }
        let entry = format!("agent:{}", crew.entry_point);
        let mut seen: HashSet<&str> = HashSet::new();
        let mut queue = vec![entry.as_str()];
        // Under `llm` and `gatekeeper` every agent's turn goes to the router, drawn as
        // the hub its assignments leave from (no arrow back from each agent).
        if matches!(crew.routing.strategy, Strategy::Llm | Strategy::Gatekeeper) {
            queue.extend(view.nodes.iter().filter(|n| n.kind == NodeKind::Router).map(|n| n.id.as_str()));
        }
        while let Some(node) = queue.pop() {
            if seen.insert(node) {
                queue.extend(next.get(node).into_iter().flatten());
            }
        }
        for agent in &crew.agents {
            let id = format!("agent:{}", agent.id);
            assert!(seen.contains(id.as_str()), "{}: {id} is drawn out of reach", path.display());
        }
    }
}

#[test]
fn vietnamese_signals_match_spaced_and_lowercased_replies_at_the_normalized_level() {
    let crew = load_example("thi-van-dap.yaml");
    let level = |signal: &str, reply: &str| {
        let index = crew.signals.lookup(signal).unwrap_or_else(|| panic!("{signal} is registered"));
        let found = crew.matcher.scan(reply);
        found.get(index).map(|m| (m.level, reply[m.start..m.end].to_owned()))
    };
    // DESIGN.md §3's own example, with the double space of a hurried typist.
    assert_eq!(level("[KẾT_THÚC]", "Cảm ơn em. [ Kết  Thúc ]"), Some((MatchLevel::Normalized, "[ Kết  Thúc ]".into())));
    assert_eq!(level("[CÂU_HỎI]", "[câu hỏi] Năm 938 có sự kiện gì?"), Some((MatchLevel::Normalized, "[câu hỏi]".into())));
    assert_eq!(level("[TRẢ_LỜI]", "Trận Bạch Đằng. [ trả-lời ]"), Some((MatchLevel::Normalized, "[ trả-lời ]".into())));
    // Text typed on a keyboard that decomposes diacritics is only equal after NFC.
    let decomposed: String = "Xong. [KẾT_THÚC]".nfd().collect();
    assert_eq!(level("[KẾT_THÚC]", &decomposed).map(|m| m.0), Some(MatchLevel::Normalized));
    // Better levels win when they apply.
    assert_eq!(level("[KẾT_THÚC]", "[KẾT_THÚC]").map(|m| m.0), Some(MatchLevel::Exact));
    assert_eq!(level("[KẾT_THÚC]", "[kết_thúc]").map(|m| m.0), Some(MatchLevel::CaseInsensitive));
    // A different word is not a match, however it is spaced.
    assert_eq!(level("[KẾT_THÚC]", "[ Kết  Quả ]"), None);

    let end = crew.signals.by_name("[KẾT_THÚC]").unwrap();
    assert_eq!(end.behavior, Behavior::Terminate);
    assert_eq!(end.allowed_agents, ["giao_vien"]);
    assert_eq!(crew.settings.language, "vi");
    assert_eq!(crew.settings.max_handoffs, 8, "top-level max_handoffs is kept");
}

#[test]
fn go_directory_crew_keeps_settings_models_group_and_defaults() {
    let crew = load_example("go-quiz");
    assert_eq!(crew.layout, CrewLayout::Directory, "saving must write the directory back, not one file");
    let ids: Vec<&str> = crew.agents.iter().map(|a| a.id.as_str()).collect();
    assert_eq!(ids, ["quizmaster", "contestant", "scorekeeper", "commentator"], "crew order is crew.yaml's order");

    assert_eq!(crew.settings.max_handoffs, 12, "settings.max_handoffs overrides the default 5");
    assert_eq!(crew.settings.max_rounds, 20);
    assert_eq!(crew.settings.timeout, Duration::from_secs(300));
    assert_eq!(crew.settings.language, "en");

    let quizmaster = crew.agent("quizmaster").unwrap();
    let local = |model: &str| ModelSpec {
        model: Some(model.into()),
        provider: Some("openai".into()),
        provider_url: Some("http://localhost:11434/v1".into()),
    };
    assert_eq!(quizmaster.primary, Some(local("default")));
    assert_eq!(quizmaster.backup, Some(local("fast")));
    assert_eq!(quizmaster.model_label(), Some("default"), "the card shows the primary model");
    assert!(quizmaster.backstory.contains("pub quizzes"), "backstory is read from the agent file");
    assert_eq!(crew.agent("commentator").unwrap().model_label(), Some("fast"));
    assert_eq!(crew.agent("commentator").unwrap().backup, None);
    assert_eq!(crew.agent("scorekeeper").unwrap().temperature, Some(0.0));

    let group = crew.group("after_answer").unwrap();
    assert_eq!(group.agents, ["scorekeeper", "commentator"]);
    // timeout_seconds on the group beats settings.parallel_timeout_seconds (30).
    assert_eq!(group.timeout, Duration::from_secs(20));
    assert!(!group.wait_for_all);
    assert_eq!(group.next_agent.as_ref().map(|a| a.as_str()), Some("quizmaster"));

    // routing.defaults is the Go engine's fallback: it becomes a handoff target.
    assert_eq!(crew.agent("contestant").unwrap().handoff_targets, ["quizmaster"]);
    assert!(crew.agent("quizmaster").unwrap().handoff_targets.is_empty());
}

#[test]
fn go_directory_crew_registers_its_rule_signals_implicitly() {
    let crew = load_example("go-quiz");
    assert!(!crew.routing.strict_signals, "a crew without signals: is implicit");
    let registered = |name: &str| {
        let def = crew.signals.by_name(name).unwrap_or_else(|| panic!("{name} is registered"));
        (def.origin, def.behavior)
    };
    // Each with the behaviour its rule's target implies (DESIGN.md §3).
    assert_eq!(registered("[QUESTION]"), (SignalOrigin::Implicit, Behavior::Route), "an agent target routes");
    assert_eq!(registered("[END_QUIZ]"), (SignalOrigin::Implicit, Behavior::Terminate), "an empty target ends");
    assert_eq!(registered("[ANSWER]"), (SignalOrigin::Implicit, Behavior::Parallel), "a group target is parallel");
    // Built-ins stay as defaults for the signals no rule mentions.
    assert_eq!(registered("[END]"), (SignalOrigin::Builtin, Behavior::Terminate));
    assert_eq!(registered("[WAIT]"), (SignalOrigin::Builtin, Behavior::Pause));

    let answer = &crew.rules_of("contestant")[0];
    assert_eq!(answer.behavior, Behavior::Parallel);
    assert_eq!(answer.targets, [Target::Group("after_answer".into())]);
}

#[test]
fn code_review_pattern_signals_carry_the_task_id_as_payload() {
    let crew = load_example("code-review.yaml");
    let reply = "Implemented the parser change.\nREADY_FOR_REVIEW: task-42\nThanks!";
    let found = crew.matcher.scan(reply);
    let ready = found.get(crew.signals.lookup("review-ready").unwrap()).expect("review-ready matched");
    assert_eq!(ready.level, MatchLevel::Pattern);
    assert_eq!(ready.payload.as_deref(), Some("task-42"));
    assert_eq!(&reply[ready.start..ready.end], "READY_FOR_REVIEW: task-42");
    // Only that signal: REVIEW_PASSED etc. are not in the reply.
    assert_eq!(found.iter().count(), 1);
    // `^` anchors each line: quoting the marker mid-sentence does not trigger it.
    assert!(crew.matcher.scan("I will write READY_FOR_REVIEW: 42 later").is_empty());
}

#[test]
fn support_triage_draws_scoring_edges_to_every_specialist_and_on_to_the_closer() {
    let crew = load_example("support-triage.yaml");
    assert_eq!(crew.routing.strategy, Strategy::Scoring);
    let view = view_of(&crew);
    let edges = |kind: EdgeKind| -> Vec<(String, String)> {
        let mut pairs: Vec<_> = view.edges.iter().filter(|e| e.kind == kind).map(|e| (e.source.clone(), e.target.clone())).collect();
        pairs.sort();
        pairs
    };
    let specialists = ["account", "billing", "shipping", "tech"];
    let expect = |from: &dyn Fn(&str) -> (String, String)| specialists.iter().map(|s| from(s)).collect::<Vec<_>>();
    assert_eq!(edges(EdgeKind::Score), expect(&|s| ("agent:triage".into(), format!("agent:{s}"))));
    assert_eq!(edges(EdgeKind::Finalize), expect(&|s| (format!("agent:{s}"), "agent:closer".into())));
    // The closer is terminal, so it finishes the run itself.
    assert_eq!(edges(EdgeKind::Terminal), [("agent:closer".to_owned(), "end".to_owned())]);
}

#[test]
fn exam_question_starts_the_parallel_round_that_returns_to_the_teacher() {
    let crew = load_example("exam.yaml");
    let question = &crew.rules_of("teacher")[0];
    // Declared `behavior: parallel` in a strict registry.
    assert_eq!(question.behavior, Behavior::Parallel);
    assert_eq!(question.targets, [Target::Group("exam_round".into())]);
    let group = crew.group("exam_round").unwrap();
    assert_eq!(group.timeout, Duration::from_secs(120), "2m, written as humantime");
    assert!(group.wait_for_all);
    let view = view_of(&crew);
    let parents: Vec<_> = view.nodes.iter().filter(|n| n.parent.as_deref() == Some("group:exam_round")).map(|n| n.id.as_str()).collect();
    assert_eq!(parents, ["agent:student", "agent:reporter"], "members are drawn inside the group frame");
    assert!(view.edges.iter().any(|e| e.source == "group:exam_round" && e.target == "agent:teacher" && e.kind == EdgeKind::GroupNext));
}

#[test]
fn research_loop_routes_back_from_the_judge_and_falls_back_from_the_editor() {
    let crew = load_example("research-loop.yaml");
    let view = view_of(&crew);
    let has = |source: &str, target: &str, kind: EdgeKind, label: &str| {
        view.edges.iter().any(|e| e.source == source && e.target == target && e.kind == kind && e.label == label)
    };
    // The loop that makes this crew interesting: judge → writer and judge → researcher.
    assert!(has("agent:judge", "agent:writer", EdgeKind::Signal, "[REVISE]"));
    assert!(has("agent:judge", "agent:researcher", EdgeKind::Signal, "[MORE_RESEARCH]"));
    assert!(has("agent:judge", "end", EdgeKind::Signal, "[APPROVED]"));
    // handoff_targets draws a fallback edge, distinct from the signal edge beside it.
    assert!(has("agent:editor", "agent:judge", EdgeKind::Fallback, "otherwise"));
    assert!(has("agent:editor", "agent:judge", EdgeKind::Signal, "[EDITED]"));
}

#[test]
fn the_routed_desks_keep_a_router_model_with_room_and_serves_own_gatekeeper() {
    let notes = load_example("note-desk.yaml");
    assert_eq!(notes.routing.strategy, Strategy::Llm);
    // The local model's 128 tokens cut most decisions off; a local run stays short.
    assert!(notes.routing.router_max_tokens.is_some_and(|m| m >= 256), "{:?}", notes.routing.router_max_tokens);
    assert!(notes.routing.max_iterations <= 4, "{}", notes.routing.max_iterations);
    let desk = load_example("gatekeeper-desk.yaml");
    assert_eq!(desk.routing.strategy, Strategy::Gatekeeper);
    let gatekeeper = desk.routing.gatekeeper.as_ref().expect("a gatekeeper");
    assert_eq!(gatekeeper.url, "http://127.0.0.1:7878/gatekeeper", "crewgraph serve's route at its default address");
    let view = view_of(&desk);
    assert!(view.nodes.iter().any(|n| n.kind == NodeKind::Router && n.label == "Gatekeeper"));
}

#[test]
fn the_file_desk_names_its_server_and_folder_relatively_and_its_write_asks() {
    let desk = load_example("file-desk.yaml");
    let [server] = desk.tool_servers.as_slice() else { panic!("one server: {:?}", desk.tool_servers) };
    let ServerTransport::Stdio { command, args, cwd, .. } = &server.transport else { panic!("a program: {server:?}") };
    // Relative paths from the crew's folder, so a clone anywhere runs it: the server
    // `scripts/install-mcp-servers.sh` installs, and the documents' folder beside the crew.
    assert_eq!(command, "node");
    assert_eq!(args[0], "../.tools/mcp/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
    assert_eq!(args[1..], ["file-desk"]);
    assert_eq!(cwd.as_deref().map(PathBuf::from), Some(crews_dir()), "it starts in the crew's folder");
    let folder = crews_dir().join("file-desk");
    let documents = fs::read_dir(&folder).unwrap().filter(|e| e.as_ref().unwrap().path().is_file()).count();
    assert!(documents >= 2, "documents to read in {}", folder.display());
    // write_file makes no folder: the one the summary goes to ships with the example.
    assert!(folder.join("summaries").is_dir());
    let tools = |id: &str| desk.agents.iter().find(|a| a.id.as_str() == id).unwrap().tools.clone();
    assert_eq!(tools("reader"), ["files.list_directory", "files.read_text_file"], "the reader only reads");
    assert_eq!(tools("writer"), ["files.write_file"]);
    // The server marks write_file as not read-only, so it would ask anyway; the rule says so where a person reads it.
    assert_eq!(policy_of("files.write_file", false, false, &[], &desk.tool_policy), ToolPolicy::Ask);
}
