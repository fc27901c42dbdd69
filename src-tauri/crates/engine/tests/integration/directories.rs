//! The Go engine's crew directories (DESIGN.md §2): `crew.yaml` lists agent ids and
//! each agent lives in `agents/<id>.yaml`. Problems in an agent file are reported in
//! that file, at its own lines, and a missing agent file at its entry in `crew.yaml`.

use std::fs;
use std::path::Path;

use crewgraph_engine::crew::CrewLayout;
use crewgraph_engine::load_path;
use tempfile::TempDir;

use crate::support::{fixture, fixture_listing, fixture_text, listing, pos, pos_in};

/// A crew directory in a temporary folder, from `(relative path, text)` pairs.
fn crew_dir(files: &[(&str, &str)]) -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let path = dir.path().join(name);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
    dir
}

/// The diagnostics of the crew directory `dir`, files relative to it.
fn problems(dir: &Path) -> Vec<String> {
    listing(&load_path(dir), dir)
}

const TWO_AGENTS: &str =
    "name: Pair\nentry_point: a\nagents:\n  - a\n  - b\nrouting:\n  signals:\n    a:\n      - { signal: \"[NEXT]\", target: b }\n";
const AGENT_A: &str = "id: a\nname: A\n";
const AGENT_B: &str = "id: b\nname: B\nis_terminal: true\n";

#[test]
fn agent_file_missing_from_a_crew_directory_is_reported_at_its_entry_in_crew_yaml() {
    let path = fixture("crew_dir_missing_agent_file");
    let loaded = load_path(&path);
    let text = fixture_text("crew_dir_missing_agent_file/crew.yaml");
    let message = "agent file for 'student' is missing: expected agents/student.yaml";
    let expected = format!("crew_dir_missing_agent_file/crew.yaml:{}: {message}", pos_in(&text, "- student", 0, "student"));
    // Exactly this: the stand-in for the missing agent draws no unreachable/no-way-out warnings.
    assert_eq!(fixture_listing(&loaded), [expected]);
    let crew = loaded.crew.unwrap();
    assert_eq!(crew.layout, CrewLayout::Directory);
    let ids: Vec<_> = crew.agents.iter().map(|a| a.id.as_str()).collect();
    assert_eq!(ids, ["teacher", "student"], "the missing agent keeps its place on the canvas");
    let read: Vec<_> = loaded.files.iter().map(|f| f.strip_prefix(&path).unwrap().to_owned()).collect();
    assert_eq!(read, [Path::new("crew.yaml"), Path::new("agents/teacher.yaml")]);
}

#[test]
fn a_complete_crew_directory_loads_its_agents_from_their_files() {
    let dir = crew_dir(&[("crew.yaml", TWO_AGENTS), ("agents/a.yaml", AGENT_A), ("agents/b.yaml", AGENT_B)]);
    let loaded = load_path(dir.path());
    assert_eq!(listing(&loaded, dir.path()), Vec::<String>::new());
    let crew = loaded.crew.unwrap();
    assert_eq!(crew.agent("a").unwrap().name, "A");
    assert!(crew.agent("b").unwrap().is_terminal, "fields come from the agent file");
}

#[test]
fn syntax_error_in_an_agent_file_is_reported_in_that_file() {
    let broken = "id: b\n  name: B\n";
    let dir = crew_dir(&[("crew.yaml", TWO_AGENTS), ("agents/a.yaml", AGENT_A), ("agents/b.yaml", broken)]);
    let expected = format!("agents/b.yaml:{}: YAML syntax error: mapping values are not allowed in this context", pos(broken, ": B"));
    assert_eq!(problems(dir.path()), [expected]);
}

#[test]
fn agent_file_whose_id_disagrees_with_crew_yaml_is_reported_at_its_id() {
    let dir = crew_dir(&[("crew.yaml", TWO_AGENTS), ("agents/a.yaml", AGENT_A), ("agents/b.yaml", "id: bee\nis_terminal: true\n")]);
    assert_eq!(problems(dir.path()), ["agents/b.yaml:1:5: agent file says id 'bee', but crew.yaml lists 'b'"]);
}

#[test]
fn agent_file_is_found_by_its_id_when_its_file_name_differs() {
    // The Go engine keys agent files by their `id:` field, not by their names.
    let dir = crew_dir(&[("crew.yaml", TWO_AGENTS), ("agents/first.yaml", AGENT_A), ("agents/second.yml", AGENT_B)]);
    let loaded = load_path(dir.path());
    assert_eq!(listing(&loaded, dir.path()), Vec::<String>::new());
    assert_eq!(loaded.crew.unwrap().agent("a").unwrap().name, "A");
}

#[test]
fn agent_file_problems_name_the_agent_file_and_its_own_fields() {
    let agent = "id: b\nis_terminal: true\ntemperature: warm\n";
    let dir = crew_dir(&[("crew.yaml", TWO_AGENTS), ("agents/a.yaml", AGENT_A), ("agents/b.yaml", agent)]);
    // Inside an agent file the field is `temperature`, not `agents[1].temperature`.
    assert_eq!(problems(dir.path()), [format!("agents/b.yaml:{}: 'temperature' must be a number, not 'warm'", pos(agent, "warm"))]);
}

#[test]
fn unknown_key_in_an_agent_file_is_a_warning_there_and_go_keys_are_accepted() {
    let agent = "id: b\nis_terminal: true\ncost_limits: { daily_usd: 2 }\nmood: calm\n";
    let dir = crew_dir(&[("crew.yaml", TWO_AGENTS), ("agents/a.yaml", AGENT_A), ("agents/b.yaml", agent)]);
    let loaded = load_path(dir.path());
    assert!(loaded.is_valid());
    assert_eq!(listing(&loaded, dir.path()), [format!("agents/b.yaml:{}: warning: unknown key 'mood' (ignored)", pos(agent, "mood"))]);
}

#[test]
fn problems_are_listed_crew_yaml_first_then_agent_files_in_crew_order() {
    let crew = TWO_AGENTS.replace("entry_point: a", "entry_point: z");
    let dir = crew_dir(&[
        ("crew.yaml", crew.as_str()),
        ("agents/a.yaml", "id: a\ntemperature: 9\n"),
        ("agents/b.yaml", "id: b\nis_terminal: maybe\n"),
    ]);
    assert_eq!(
        problems(dir.path()),
        [
            "crew.yaml:2:14: entry_point 'z' is not an agent",
            "agents/a.yaml:2:14: agent 'a' temperature 9 is out of range (0 to 2)",
            "agents/b.yaml:2:14: 'is_terminal' must be true or false, not 'maybe'",
        ]
    );
}

#[test]
fn agent_listed_twice_in_crew_yaml_is_a_duplicate_id() {
    let crew = TWO_AGENTS.replace("  - b\n", "  - b\n  - a\n");
    let dir = crew_dir(&[("crew.yaml", crew.as_str()), ("agents/a.yaml", AGENT_A), ("agents/b.yaml", AGENT_B)]);
    assert_eq!(problems(dir.path()), [format!("crew.yaml:{}: duplicate agent id 'a'", pos_in(&crew, "  - a\n", 1, "a"))]);
}

#[test]
fn oversized_agent_file_is_refused_and_the_others_still_load() {
    let mut huge = String::from("id: b\nsystem_prompt: |\n");
    while huge.len() < 3 * 1024 * 1024 {
        huge.push_str("  Repeat after me.\n");
    }
    let dir = crew_dir(&[("crew.yaml", TWO_AGENTS), ("agents/a.yaml", AGENT_A), ("agents/b.yaml", &huge)]);
    let loaded = load_path(dir.path());
    assert_eq!(listing(&loaded, dir.path()), ["agents/b.yaml:1:1: crew file is too large (3.0 MB; the limit is 2.0 MB)"]);
    assert_eq!(loaded.crew.unwrap().agent("a").unwrap().name, "A");
}

#[test]
fn crew_yml_is_accepted_like_crew_yaml() {
    let dir = crew_dir(&[("crew.yml", TWO_AGENTS), ("agents/a.yaml", AGENT_A), ("agents/b.yaml", AGENT_B)]);
    let loaded = load_path(dir.path());
    assert!(loaded.is_valid(), "{:?}", listing(&loaded, dir.path()));
    assert_eq!(loaded.files[0], dir.path().join("crew.yml"));
}

#[test]
fn crew_yaml_named_directly_loads_the_same_crew_as_its_directory() {
    let dir = crew_dir(&[("crew.yaml", TWO_AGENTS), ("agents/a.yaml", AGENT_A), ("agents/b.yaml", AGENT_B)]);
    let from_file = load_path(&dir.path().join("crew.yaml"));
    assert!(from_file.is_valid(), "{:?}", listing(&from_file, dir.path()));
    let crew = from_file.crew.unwrap();
    assert_eq!(crew.layout, CrewLayout::Directory);
    assert!(crew.agent("b").unwrap().is_terminal);
}

/// Regression: an id such as `../outside` in crew.yaml made the loader read
/// `agents/../outside.yaml`, a file outside the crew's `agents/` folder.
#[test]
fn agent_id_that_is_a_path_never_reads_a_file_outside_agents() {
    let dir = crew_dir(&[
        ("crew/crew.yaml", "name: Escape\nentry_point: a\nagents:\n  - a\n  - ../outside\n"),
        ("crew/agents/a.yaml", "id: a\nis_terminal: true\n"),
        ("crew/outside.yaml", "id: ../outside\nname: Should never be read\n"),
    ]);
    let crew_path = dir.path().join("crew");
    let loaded = load_path(&crew_path);
    assert!(loaded.files.iter().all(|f| !f.ends_with("outside.yaml")), "read a file outside agents/: {:?}", loaded.files);
    let text = fs::read_to_string(crew_path.join("crew.yaml")).unwrap();
    let message = "agent id '../outside' may only contain letters, digits, '_', '-' and '.'";
    assert_eq!(listing(&loaded, &crew_path), [format!("crew.yaml:{}: {message}", pos(&text, "../outside"))]);
}

#[test]
fn a_crew_files_program_servers_start_in_its_folder_and_a_relative_cwd_is_taken_from_there() {
    use crewgraph_engine::crew::ServerTransport;
    let crew = "entry_point: a\nagents:\n  - id: a\n    is_terminal: true\n    tools: [files.*, deeper.*, fixed.*]\n\
                tools:\n  servers:\n    files:\n      command: node\n      args: [server.js, notes]\n    \
                deeper:\n      command: node\n      cwd: notes/inner\n    fixed:\n      command: node\n      cwd: /tmp\n";
    let dir = crew_dir(&[("desk.yaml", crew)]);
    let loaded = load_path(&dir.path().join("desk.yaml"));
    let crew = loaded.crew.expect("the crew loads");
    let cwds: Vec<String> = crew
        .tool_servers
        .iter()
        .map(|server| match &server.transport {
            ServerTransport::Stdio { cwd, .. } => cwd.clone().expect("every program server gets a folder"),
            ServerTransport::Http { .. } => unreachable!("only program servers here"),
        })
        .collect();
    let folder = dir.path().display().to_string();
    assert_eq!(cwds, [folder.clone(), format!("{folder}/notes/inner"), "/tmp".to_owned()]);
}
