//! `crewgraph import crewai DIR_OR_FILES [--out FILE]` (issue 19 §3), run as a person
//! runs it: a CrewAI project folder (laid out as `crewai create crew` lays it out)
//! printed as a crew file that `crewgraph validate` accepts, its warnings on stderr
//! as `FILE:LINE:COL: warning: …`; the files named one by one; `--out` written whole;
//! a project that cannot be read exits 1 with each error at its place, and leaves
//! `--out` as it was. Projects are the engine's fixtures (`fixtures/crewai/`).

use std::fs;

use predicates::prelude::*;

use crate::support::{fixtures, run_in, run_on_fixtures};

#[test]
fn a_project_folder_prints_a_crew_that_validates_and_its_warnings_on_stderr() {
    let run = run_on_fixtures(&["import", "crewai", "crewai/latest_ai_development"]);
    assert_eq!(run.code, 0, "{run:#?}");
    assert!(run.stdout.starts_with("# Imported from a CrewAI project"), "{}", run.stdout);
    assert!(run.stdout.contains("name: Latest ai development"), "named after the project's folder: {}", run.stdout);
    let shape =
        predicate::str::is_match(r"^crewai/latest_ai_development/src/latest_ai_development/[a-z./_]+:\d+:\d+: warning: .+$").unwrap();
    let warnings: Vec<&str> = run.stderr.lines().filter(|l| l.contains(": warning: ")).collect();
    assert_eq!(warnings.len(), 2, "{}", run.stderr);
    for line in &warnings {
        assert!(shape.eval(line), "{line:?} is not FILE:LINE:COL: warning: message");
    }
    assert!(warnings[0].starts_with("crewai/latest_ai_development/src/latest_ai_development/config/tasks.yaml:18:3: warning: task 'reporting_task' sets 'output_file'"), "{warnings:#?}");
    assert!(run.stderr.contains("the run asks for: topic, current_year"), "{}", run.stderr);

    // What it printed is a crew the CLI validates.
    let dir = tempfile::tempdir().unwrap();
    let crew = dir.path().join("imported.yaml");
    fs::write(&crew, &run.stdout).unwrap();
    let validated = run_in(dir.path(), &["validate", "imported.yaml"], "");
    assert_eq!((validated.code, validated.stdout.as_str()), (0, ""), "{validated:#?}");
}

#[test]
fn out_writes_the_crew_whole_and_a_hierarchical_project_gets_its_router() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("marketing.yaml");
    let project = fixtures().join("crewai/hierarchical_marketing");
    let run = run_in(dir.path(), &["import", "crewai", project.to_str().unwrap(), "--out", "marketing.yaml"], "");
    assert_eq!((run.code, run.stdout.as_str()), (0, ""), "nothing on stdout with --out: {run:#?}");
    assert!(
        run.stderr.contains("wrote marketing.yaml (crew 'Hierarchical marketing', hierarchical process, 0 warnings)"),
        "{}",
        run.stderr
    );
    let text = fs::read_to_string(&out).unwrap();
    assert!(text.contains("strategy: llm") && text.contains("entry_point: manager"), "{text}");
    let leftovers: Vec<_> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(leftovers.len(), 1, "no temporary file is left behind: {leftovers:?}");
    let validated = run_in(dir.path(), &["validate", "marketing.yaml"], "");
    assert_eq!(validated.code, 0, "{validated:#?}");
}

#[test]
fn files_named_one_by_one_are_a_project_too() {
    let run =
        run_on_fixtures(&["import", "crewai", "crewai/review_pipeline/config/tasks.yaml", "crewai/review_pipeline/config/agents.yaml"]);
    assert_eq!(run.code, 0, "{run:#?}");
    assert!(run.stdout.contains("[DRAFT_REVIEW]") && run.stdout.contains("behavior: pause"), "human_input is a Wait: {}", run.stdout);
    assert!(
        run.stderr.contains("crewai/review_pipeline/config/agents.yaml:6:7: warning: agent 'researcher' uses the tool 'SerperDevTool'"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_project_that_cannot_be_read_exits_1_with_each_error_at_its_place_and_leaves_out_alone() {
    let run = run_on_fixtures(&["import", "crewai", "crewai/unknown_agent"]);
    assert_eq!((run.code, run.stdout.as_str()), (1, ""), "{run:#?}");
    assert_eq!(
        run.stderr.lines().collect::<Vec<_>>(),
        [
            "crewai/unknown_agent/config/tasks.yaml:9:10: error: task 'writing_task' is for agent 'writer', but agents.yaml has no agent called 'writer' (it has: researcher)",
            "crewai/unknown_agent/config/tasks.yaml:10:28: error: task 'writing_task' takes its context from 'outline_task', but tasks.yaml has no task called 'outline_task'",
        ]
    );

    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("kept.yaml"), "name: kept\n").unwrap();
    let project = fixtures().join("crewai/bad_yaml");
    let bad = run_in(dir.path(), &["import", "crewai", project.to_str().unwrap(), "--out", "kept.yaml"], "");
    assert_eq!(bad.code, 1, "{bad:#?}");
    let shape = predicate::str::is_match(r"/crewai/bad_yaml/config/agents\.yaml:3:\d+: error: YAML syntax error: .+$").unwrap();
    assert!(shape.eval(bad.stderr.trim_end()), "{}", bad.stderr);
    assert_eq!(fs::read_to_string(dir.path().join("kept.yaml")).unwrap(), "name: kept\n", "--out is not touched");

    let not_a_project = run_on_fixtures(&["import", "crewai", "crewai"]);
    assert_eq!(not_a_project.code, 1, "{not_a_project:#?}");
    assert!(not_a_project.stderr.contains("'crewai' has no config/agents.yaml"), "{}", not_a_project.stderr);
    let missing = run_on_fixtures(&["import", "crewai", "nowhere/agents.yaml", "nowhere/tasks.yaml"]);
    assert_eq!(missing.code, 1, "{missing:#?}");
    assert!(missing.stderr.starts_with("crewgraph: cannot open 'nowhere/agents.yaml'"), "{}", missing.stderr);
    let usage = run_on_fixtures(&["import", "crewai"]);
    assert_eq!(usage.code, 2, "no path is a usage error: {usage:#?}");
}
