//! `--help` tells a newcomer what each command does, and its examples work.

use crate::support::{repo_root, run_in, run_on_fixtures};

#[test]
fn top_level_help_exits_0_and_names_both_commands() {
    let run = run_on_fixtures(&["--help"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    for word in ["validate", "match", "Usage: crewgraph <COMMAND>"] {
        assert!(run.stdout.contains(word), "--help lacks {word:?}:\n{}", run.stdout);
    }
}

#[test]
fn validate_help_exits_0_and_explains_the_output_shape() {
    let run = run_on_fixtures(&["validate", "--help"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    for word in ["FILE", "FILE:LINE:COL: message", "crew.yaml", "exits 1"] {
        assert!(run.stdout.contains(word), "validate --help lacks {word:?}:\n{}", run.stdout);
    }
}

#[test]
fn match_help_exits_0_and_lists_the_levels_and_options() {
    let run = run_on_fixtures(&["match", "--help"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    for word in ["--signal", "--content", "--json", "exact", "case_insensitive", "normalized", "none"] {
        assert!(run.stdout.contains(word), "match --help lacks {word:?}:\n{}", run.stdout);
    }
}

#[test]
fn no_command_or_an_unknown_one_is_a_usage_error() {
    for args in [&[][..], &["bogus"][..]] {
        let run = run_on_fixtures(args);
        assert_eq!((run.code, run.stdout.as_str()), (2, ""), "{args:?}");
        assert!(run.stderr.contains("Usage:"), "{args:?}: {}", run.stderr);
    }
}

/// Regression: the help's example named `crews/go-exam`, a folder that does not
/// exist (the Go-layout example is `crews/go-quiz`).
#[test]
fn help_examples_name_crews_that_exist() {
    let help = run_on_fixtures(&["--help"]).stdout;
    let named: Vec<&str> = help.split_whitespace().filter(|word| word.starts_with("crews/") && !word.contains('*')).collect();
    assert!(!named.is_empty(), "the help shows an example crew:\n{help}");
    for path in named {
        assert!(repo_root().join(path).exists(), "--help names {path}, which is not in the repository");
        // And the example works as shown (scripts are not crews, so there is nothing to validate).
        if !path.starts_with("crews/scripts/") {
            let run = run_in(&repo_root(), &["validate", path], "");
            assert_eq!(run.code, 0, "{path}: {}", run.stdout);
        }
    }
}
