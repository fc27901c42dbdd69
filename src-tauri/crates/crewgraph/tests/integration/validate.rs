//! `crewgraph validate FILE...` (DESIGN.md §10): exit 0 with nothing on stdout when
//! every file is valid; otherwise exit 1 and one error per stdout line as
//! `FILE:LINE:COL: message`. Warnings and a summary per file go to stderr, so a
//! script reading stdout sees errors only. Usage errors exit 2.

use std::fs;

use predicates::prelude::*;

use crate::support::{repo_root, run_in, run_on_fixtures, Run};

/// Every line of stdout has the `FILE:LINE:COL: message` shape.
fn assert_error_lines(run: &Run) {
    let shape = predicate::str::is_match(r"^.+:\d+:\d+: .+$").unwrap();
    assert!(!run.stdout.is_empty(), "errors were expected on stdout: {run:#?}");
    for line in run.lines() {
        assert!(shape.eval(line), "{line:?} is not FILE:LINE:COL: message");
    }
}

/// The example crews, as paths relative to the repository root: the YAML files and
/// the folders holding a crew.yaml (as the window offers them; `crews/scripts/`
/// holds the scripts that run them, which are not crews).
fn example_args() -> Vec<String> {
    let crews = repo_root().join("crews");
    let mut names: Vec<String> = fs::read_dir(&crews)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml") || p.join("crew.yaml").is_file())
        .map(|p| format!("crews/{}", p.file_name().unwrap().to_string_lossy()))
        .collect();
    names.sort();
    names
}

#[test]
fn every_example_crew_validates_with_exit_0_and_an_empty_stdout() {
    let args = example_args();
    assert!(args.len() >= 6, "{args:?}");
    let mut argv = vec!["validate"];
    argv.extend(args.iter().map(String::as_str));
    let run = run_in(&repo_root(), &argv, "");
    assert_eq!((run.code, run.stdout.as_str()), (0, ""), "{}", run.stderr);
    // One summary per file, in argument order.
    let summaries: Vec<String> = args.iter().map(|a| format!("{a}: ok")).collect();
    assert_eq!(run.stderr.lines().collect::<Vec<_>>(), summaries);
}

#[test]
fn each_bad_input_exits_1_with_its_exact_error_lines() {
    let cases: &[(&str, &[&str])] = &[
        ("empty.yaml", &["empty.yaml:1:1: crew file is empty"]),
        ("malformed_tab_indentation.yaml", &["malformed_tab_indentation.yaml:5:1: YAML syntax error: tabs disallowed within this context (block indentation)"]),
        ("malformed_tab_after_value.yaml", &["malformed_tab_after_value.yaml:6:1: YAML syntax error: while scanning a plain scalar, found a tab"]),
        ("malformed_bad_indentation.yaml", &["malformed_bad_indentation.yaml:6:8: YAML syntax error: while parsing a block collection, did not find expected '-' indicator"]),
        ("malformed_unclosed_quote.yaml", &["malformed_unclosed_quote.yaml:6:20: YAML syntax error: invalid indentation in quoted scalar"]),
        ("missing_entry_point.yaml", &["missing_entry_point.yaml:1:1: missing required field 'entry_point'"]),
        ("unknown_target.yaml", &["unknown_target.yaml:14:17: signal '[NEXT]' targets unknown agent 'unknown_agent'"]),
        ("duplicate_agent_ids.yaml", &["duplicate_agent_ids.yaml:9:9: duplicate agent id 'teacher'"]),
        ("terminate_with_target.yaml", &["terminate_with_target.yaml:17:17: termination signal '[END]' must have empty target, got 'other_agent'"]),
        ("not_allowed_to_emit.yaml", &["not_allowed_to_emit.yaml:17:17: agent 'reporter' is not allowed to emit signal '[QUESTION]'"]),
        ("group_unknown_agent.yaml", &["group_unknown_agent.yaml:15:25: parallel group 'exam_round' names unknown agent 'ghost'"]),
        (
            "invalid_signal_formats.yaml",
            &[
                "invalid_signal_formats.yaml:9:11: invalid signal format '[]'",
                "invalid_signal_formats.yaml:10:11: invalid signal format 'END'",
                "invalid_signal_formats.yaml:11:11: invalid signal format '[END'",
                "invalid_signal_formats.yaml:12:11: invalid signal format 'END]'",
                "invalid_signal_formats.yaml:16:17: invalid signal format '[]'",
                "invalid_signal_formats.yaml:18:17: invalid signal format 'END'",
                "invalid_signal_formats.yaml:20:17: invalid signal format '[END'",
                "invalid_signal_formats.yaml:22:17: invalid signal format 'END]'",
            ],
        ),
    ];
    for (file, expected) in cases {
        let run = run_on_fixtures(&["validate", file]);
        assert_eq!(run.code, 1, "{file}: {run:#?}");
        assert_error_lines(&run);
        assert_eq!(run.lines(), *expected, "{file}");
        let count = expected.len();
        let summary = format!("{file}: {count} error{}", if count == 1 { "" } else { "s" });
        assert_eq!(run.stderr.lines().last(), Some(summary.as_str()), "{file}");
    }
}

#[test]
fn all_errors_of_a_file_are_printed_one_per_line() {
    let run = run_on_fixtures(&["validate", "many_errors.yaml"]);
    assert_eq!(run.code, 1);
    assert_error_lines(&run);
    assert_eq!(run.lines().len(), 16, "{}", run.stdout);
    // The DESIGN.md §3 wordings, each on its own line.
    for message in [
        "entry_point 'principal' is not an agent",
        "handoff target 'ghost' of agent 'teacher' is not an agent",
        "duplicate agent id 'student'",
        "signals '[A_B]' and '[a b]' are the same after normalization",
        "invalid signal format '[]'",
        "signal '[UNKNOWN]' is not registered (unknown signal)",
        "signal '[NEXT]' targets unknown agent 'unknown_agent'",
        "termination signal '[END]' must have empty target, got 'other_agent'",
        "routing signal '[NEXT]' needs a target",
        "signal '[QUESTION]' target 'teacher' is not one of its valid targets: student, reporter",
        "agent 'reporter' is not allowed to emit signal '[QUESTION]'",
        "parallel group 'exam_round' names unknown agent 'x'",
    ] {
        assert_eq!(run.lines().iter().filter(|l| l.ends_with(&format!(": {message}"))).count(), 1, "{message}");
    }
    assert_eq!(run.stderr.trim_end(), "many_errors.yaml: 16 errors");
}

#[test]
fn several_files_report_in_argument_order_and_fail_if_any_fails() {
    let exam = repo_root().join("crews/exam.yaml");
    let exam = exam.to_str().unwrap();
    let run = run_on_fixtures(&["validate", "unknown_target.yaml", exam, "empty.yaml"]);
    assert_eq!(run.code, 1);
    assert_eq!(
        run.lines(),
        ["unknown_target.yaml:14:17: signal '[NEXT]' targets unknown agent 'unknown_agent'", "empty.yaml:1:1: crew file is empty",]
    );
    assert_eq!(
        run.stderr.lines().collect::<Vec<_>>(),
        ["unknown_target.yaml: 1 error".to_owned(), format!("{exam}: ok"), "empty.yaml: 1 error".to_owned()]
    );
}

#[test]
fn a_crew_directory_is_one_crew_and_its_errors_name_the_file_inside() {
    let run = run_on_fixtures(&["validate", "crew_dir_missing_agent_file"]);
    assert_eq!(run.code, 1);
    assert_error_lines(&run);
    assert_eq!(
        run.lines(),
        ["crew_dir_missing_agent_file/crew.yaml:6:5: agent file for 'student' is missing: expected agents/student.yaml"]
    );
    assert_eq!(run.stderr.trim_end(), "crew_dir_missing_agent_file: 1 error");

    let run = run_in(&repo_root(), &["validate", "crews/go-quiz"], "");
    assert_eq!((run.code, run.stdout.as_str(), run.stderr.trim_end()), (0, "", "crews/go-quiz: ok"));
}

#[test]
fn a_directory_without_crew_yaml_is_an_error() {
    let run = run_on_fixtures(&["validate", "dir_without_crew_yaml"]);
    assert_eq!(run.code, 1);
    assert_eq!(run.lines(), ["dir_without_crew_yaml:1:1: 'dir_without_crew_yaml' is a directory without a crew.yaml"]);
}

#[test]
fn a_missing_path_is_an_error_line_not_a_crash() {
    let run = run_on_fixtures(&["validate", "no_such_crew.yaml"]);
    assert_eq!(run.code, 1);
    assert_eq!(run.lines(), ["no_such_crew.yaml:1:1: cannot open 'no_such_crew.yaml': no such file or directory"]);
    assert_eq!(run.stderr.trim_end(), "no_such_crew.yaml: 1 error");
}

#[test]
fn warnings_go_to_stderr_and_do_not_fail_the_run() {
    let run = run_on_fixtures(&["validate", "unknown_keys.yaml"]);
    assert_eq!((run.code, run.stdout.as_str()), (0, ""), "warnings are not errors");
    assert_eq!(
        run.stderr.lines().collect::<Vec<_>>(),
        [
            "unknown_keys.yaml:3:1: warning: unknown key 'colour' (ignored)",
            "unknown_keys.yaml:7:5: warning: unknown key 'favourite_food' (ignored)",
            "unknown_keys.yaml:10:3: warning: unknown key 'strateggy' (ignored)",
            "unknown_keys.yaml: ok (3 warnings)",
        ]
    );
}

#[test]
fn generated_bad_files_non_utf8_and_ten_megabytes_get_one_line_each() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("latin1.yaml"), b"name: caf\xe9\nentry_point: a\n").unwrap();
    fs::write(dir.path().join("huge.yaml"), "#".repeat(10 * 1024 * 1024)).unwrap();
    let run = run_in(dir.path(), &["validate", "latin1.yaml", "huge.yaml"], "");
    assert_eq!(run.code, 1);
    assert_eq!(
        run.lines(),
        ["latin1.yaml:1:10: file is not UTF-8 text", "huge.yaml:1:1: crew file is too large (10.0 MB; the limit is 2.0 MB)"]
    );
}

#[test]
fn validate_without_a_file_is_a_usage_error() {
    let run = run_on_fixtures(&["validate"]);
    assert_eq!((run.code, run.stdout.as_str()), (2, ""));
    assert!(run.stderr.contains("<FILE>"), "{}", run.stderr);
}

#[test]
fn control_characters_from_a_crew_file_are_shown_not_sent_to_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let crew = "name: \"\\e[2JGone\"\nentry_point: \"\\e]0;owned\\a\"\nagents:\n  - { id: a, is_terminal: true }\n";
    fs::write(dir.path().join("escape.yaml"), crew).unwrap();
    let run = run_in(dir.path(), &["validate", "escape.yaml"], "");
    assert_eq!(run.code, 1, "{run:?}");
    let printed = format!("{}{}", run.stdout, run.stderr);
    assert!(!printed.contains('\u{1b}') && !printed.contains('\u{7}'), "a raw escape reached the terminal: {printed:?}");
    assert!(run.stdout.contains("\\u{1b}]0;owned\\u{7}"), "shown as an escape: {}", run.stdout);
}
