//! `crewgraph match` (DESIGN.md §10): `--signal S --content C` prints the level and
//! exits 0 when it matched, 1 when not, 2 for a malformed signal; `--json` reads
//! `[{signal, content}]` on stdin and prints `[{matched, level}]`.

use serde_json::{json, Value};

use crate::support::{run_on_fixtures, Run};

fn one(signal: &str, content: &str) -> Run {
    run_on_fixtures(&["match", "--signal", signal, "--content", content])
}

fn json_mode(stdin: &str) -> Run {
    crate::support::run_in(&crate::support::fixtures(), &["match", "--json"], stdin)
}

#[test]
fn each_level_is_printed_on_one_line_and_a_match_exits_0() {
    for (signal, content, level) in [
        ("[END]", "Task complete. [END]", "exact"),
        ("[END]", "Task complete. [end]", "case_insensitive"),
        ("[STRASSE]", "[straße]", "case_insensitive"),
        ("[KẾT_THÚC]", "Xong. [ Kết  Thúc ]", "normalized"),
        ("[ROUTE_EXECUTOR]", "[ route   executor ]", "normalized"),
    ] {
        let run = one(signal, content);
        assert_eq!((run.code, run.stdout.as_str()), (0, format!("{level}\n").as_str()), "{signal} in {content:?}");
        assert_eq!(run.stderr, "", "a match says nothing else");
    }
}

#[test]
fn no_match_prints_none_and_exits_1() {
    for (signal, content) in [("[END]", "Nothing to see"), ("[END]", "ENDING [ENDS]"), ("[END]", "[ end")] {
        let run = one(signal, content);
        assert_eq!((run.code, run.stdout.as_str()), (1, "none\n"), "{signal} in {content:?}");
    }
}

#[test]
fn a_malformed_signal_exits_2_with_the_reason_on_stderr() {
    for signal in ["[]", "END", "[END", "END]"] {
        let run = one(signal, "[END] END");
        assert_eq!((run.code, run.stdout.as_str()), (2, ""), "{signal}");
        assert!(run.stderr.contains(&format!("invalid signal format '{signal}'")), "{signal}: {}", run.stderr);
    }
}

#[test]
fn signal_without_content_is_a_usage_error() {
    let run = run_on_fixtures(&["match", "--signal", "[END]"]);
    assert_eq!((run.code, run.stdout.as_str()), (2, ""));
    assert!(run.stderr.contains("--content"), "{}", run.stderr);
}

#[test]
fn json_mode_answers_every_case_in_order() {
    let cases = json!([
        {"signal": "[END]", "content": "done [END]"},
        {"signal": "[END]", "content": "done [end]"},
        {"signal": "[KẾT_THÚC]", "content": "[ Kết  Thúc ]"},
        {"signal": "[END]", "content": "no signal here"},
        {"signal": "END", "content": "END"},
        {"signal": "[]", "content": "[]"},
    ]);
    let run = json_mode(&cases.to_string());
    assert_eq!(run.code, 0, "{}", run.stderr);
    // Exactly one line of JSON.
    assert_eq!(run.lines().len(), 1, "{}", run.stdout);
    let answers: Value = serde_json::from_str(&run.stdout).expect("stdout is JSON");
    assert_eq!(
        answers,
        json!([
            {"matched": true, "level": "exact"},
            {"matched": true, "level": "case_insensitive"},
            {"matched": true, "level": "normalized"},
            {"matched": false, "level": "none"},
            // Malformed signals answer "none", say why, and do not stop the other cases.
            {"matched": false, "level": "none", "error": "invalid signal format 'END' (a signal is a name in square brackets, like [END])"},
            {"matched": false, "level": "none", "error": "invalid signal format '[]' (a signal is a name in square brackets, like [END])"},
        ])
    );
    // The exact field order of DESIGN.md §10.
    assert!(run.stdout.starts_with(r#"[{"matched":true,"level":"exact"}"#), "{}", run.stdout);
    // Which cases were malformed is said on stderr, by index.
    assert!(run.stderr.contains("case 4") && run.stderr.contains("invalid signal format 'END'"), "{}", run.stderr);
    assert!(run.stderr.contains("case 5") && run.stderr.contains("invalid signal format '[]'"), "{}", run.stderr);
}

#[test]
fn json_mode_with_no_cases_prints_an_empty_list() {
    let run = json_mode("[]");
    assert_eq!((run.code, run.stdout.trim_end()), (0, "[]"));
}

#[test]
fn malformed_json_on_stdin_exits_2_with_a_message_on_stderr() {
    for stdin in ["not json", "{\"signal\": \"[END]\", \"content\": \"x\"}", "[{\"signal\": \"[END]\"}]", ""] {
        let run = json_mode(stdin);
        assert_eq!((run.code, run.stdout.as_str()), (2, ""), "{stdin:?}");
        assert!(run.stderr.contains("JSON list"), "{stdin:?}: {}", run.stderr);
    }
}

#[test]
fn json_mode_and_a_signal_argument_are_exclusive() {
    let run = run_on_fixtures(&["match", "--json", "--signal", "[END]", "--content", "x"]);
    assert_eq!((run.code, run.stdout.as_str()), (2, ""));
}
