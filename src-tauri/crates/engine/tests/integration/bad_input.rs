//! The bad input of issue 2 that stops a crew from being read at all: each gets one
//! clear error that says what and where (`FILE:LINE:COL: message`), and none panics.
//! Errors inside an otherwise readable crew are in `validation`.

use std::fs;

use crewgraph_engine::load::MAX_FILE_SIZE;
use crewgraph_engine::{load_path, load_str, Problem};
use proptest::prelude::*;

use crate::support::{fixture, fixture_listing, fixture_text, listing, load_fixture, pos};

/// Loads a fixture that cannot become a crew and returns its one diagnostic line.
fn only_error(name: &str) -> String {
    let loaded = load_fixture(name);
    assert!(loaded.crew.is_none(), "{name} should not parse into a crew");
    let lines = fixture_listing(&loaded);
    assert_eq!(lines.len(), 1, "{name}: expected exactly one error, got {lines:#?}");
    assert!(loaded.diagnostics[0].is_error());
    lines.into_iter().next().unwrap()
}

#[test]
fn bad_indentation_is_a_syntax_error_on_the_misplaced_line() {
    let name = "malformed_bad_indentation.yaml";
    let text = fixture_text(name);
    // The parser notices at the colon of the misplaced key; the line is what matters.
    let expected = format!(
        "{name}:{}: YAML syntax error: while parsing a block collection, did not find expected '-' indicator",
        pos(&text, ": Teacher")
    );
    assert_eq!(only_error(name), expected);
    assert!(expected.starts_with(&format!("{name}:6:")), "`   name: Teacher` is line 6");
}

#[test]
fn tab_indentation_points_at_the_tab() {
    let name = "malformed_tab_indentation.yaml";
    let text = fixture_text(name);
    let expected = format!("{name}:{}: YAML syntax error: tabs disallowed within this context (block indentation)", pos(&text, "\t"));
    assert_eq!(only_error(name), expected);
    // The window explains it in plain words.
    let plain = &load_fixture(name).diagnostics[0].plain;
    assert!(plain.contains("tab") && plain.contains("spaces"), "{plain}");
}

/// Regression: the parser reported this tab at the start of the value on the line
/// before (`5:9`, the `teacher` of `- id: teacher`), sending the user to the wrong line.
#[test]
fn tab_after_a_line_with_a_value_is_reported_on_the_tab_line_not_the_line_before() {
    let name = "malformed_tab_after_value.yaml";
    let text = fixture_text(name);
    assert_eq!(pos(&text, "\t"), "6:1");
    assert_eq!(only_error(name), format!("{name}:6:1: YAML syntax error: while scanning a plain scalar, found a tab"));
}

/// Regression companion: a tab inside a block scalar's text is content, not indentation.
#[test]
fn tab_inside_a_system_prompt_is_not_an_error() {
    let yaml =
        "entry_point: a\nagents:\n  - id: a\n    is_terminal: true\n    system_prompt: |\n      code:\n      \tindented with a tab\n";
    let loaded = load_str("crew.yaml", yaml);
    assert!(loaded.is_valid(), "{:?}", loaded.diagnostics);
    assert!(loaded.crew.unwrap().agents[0].system_prompt.contains("\tindented"));
}

#[test]
fn unclosed_quote_points_at_the_opening_quote() {
    let name = "malformed_unclosed_quote.yaml";
    let text = fixture_text(name);
    // The parser reads on into the next line and gives up there; it names the quote.
    let expected = format!("{name}:{}: YAML syntax error: invalid indentation in quoted scalar", pos(&text, "\"You are"));
    assert_eq!(only_error(name), expected);
}

#[test]
fn quote_left_open_at_the_end_of_the_file_points_at_the_opening_quote() {
    let yaml = "entry_point: a\nagents:\n  - id: a\n    system_prompt: \"Be kind.\n";
    let loaded = load_str("crew.yaml", yaml);
    let lines: Vec<_> = loaded.diagnostics.iter().map(|d| d.to_string()).collect();
    let message = "YAML syntax error: while scanning a quoted scalar, found unexpected end of stream";
    assert_eq!(lines, [format!("crew.yaml:{}: {message}", pos(yaml, "\"Be kind"))]);
}

#[test]
fn empty_file_and_comments_only_file_say_the_crew_file_is_empty() {
    assert_eq!(only_error("empty.yaml"), "empty.yaml:1:1: crew file is empty");
    assert_eq!(only_error("comments_only.yaml"), "comments_only.yaml:1:1: crew file is empty");
}

#[test]
fn non_utf8_file_is_reported_at_the_first_bad_byte_counting_columns_in_characters() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("latin1.yaml");
    // Line 2: "description: Kết " is 17 characters (19 bytes), then a Latin-1 byte.
    fs::write(&path, b"name: Latin-1\ndescription: K\xe1\xba\xbft \xe9t\xe9\nentry_point: a\n").unwrap();
    let loaded = load_path(&path);
    assert!(loaded.crew.is_none());
    assert_eq!(listing(&loaded, dir.path()), ["latin1.yaml:2:18: file is not UTF-8 text"]);
}

#[test]
fn ten_megabyte_file_is_refused_by_size_without_being_parsed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.yaml");
    let mut text = String::from("name: Huge\nentry_point: a\nagents:\n  - id: a\n    system_prompt: |\n");
    let line = format!("      {}\n", "x".repeat(99));
    while text.len() < 10 * 1024 * 1024 {
        text.push_str(&line);
    }
    text.truncate(10 * 1024 * 1024);
    fs::write(&path, &text).unwrap();
    let loaded = load_path(&path);
    assert!(loaded.crew.is_none());
    assert_eq!(listing(&loaded, dir.path()), ["huge.yaml:1:1: crew file is too large (10.0 MB; the limit is 2.0 MB)"]);
}

#[test]
fn file_just_under_the_size_limit_still_loads() {
    // The limit refuses wrong files, not long prompts: 1.5 MB of prompt is a valid crew.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long-prompt.yaml");
    let mut text = String::from("name: Long\nentry_point: a\nagents:\n  - id: a\n    is_terminal: true\n    system_prompt: |\n");
    while text.len() < MAX_FILE_SIZE as usize * 3 / 4 {
        text.push_str("      Be thorough and kind.\n");
    }
    fs::write(&path, &text).unwrap();
    let loaded = load_path(&path);
    assert!(loaded.is_valid(), "{:?}", listing(&loaded, dir.path()));
}

#[test]
fn path_that_does_not_exist_says_so() {
    let loaded = load_path(&fixture("no_such_crew.yaml"));
    assert!(loaded.crew.is_none());
    assert_eq!(
        fixture_listing(&loaded),
        [format!("no_such_crew.yaml:1:1: cannot open '{}': no such file or directory", fixture("no_such_crew.yaml").display())]
    );
}

#[test]
fn directory_without_crew_yaml_says_it_is_not_a_crew_directory() {
    let path = fixture("dir_without_crew_yaml");
    let loaded = load_path(&path);
    assert!(loaded.crew.is_none());
    assert_eq!(fixture_listing(&loaded), [format!("dir_without_crew_yaml:1:1: '{}' is a directory without a crew.yaml", path.display())]);
}

#[test]
fn top_level_list_is_not_a_crew() {
    let loaded = load_str("crew.yaml", "- id: teacher\n- id: student\n");
    assert!(loaded.crew.is_none());
    let message = "a crew file must be a mapping of keys such as 'name:' and 'agents:'";
    assert_eq!(loaded.diagnostics.iter().map(|d| d.to_string()).collect::<Vec<_>>(), [format!("crew.yaml:1:1: {message}")]);
}

#[test]
fn duplicate_key_names_both_lines() {
    let yaml = "name: One\nentry_point: a\nname: Two\nagents:\n  - id: a\n";
    let loaded = load_str("crew.yaml", yaml);
    assert_eq!(loaded.diagnostics.len(), 1);
    assert_eq!(loaded.diagnostics[0].to_string(), "crew.yaml:3:1: duplicate key 'name' (first at line 1)");
    assert_eq!(loaded.diagnostics[0].problem, Problem::DuplicateKey { key: "name".into(), first_line: 1 });
}

#[test]
fn byte_order_mark_and_windows_line_endings_do_not_shift_positions() {
    // Files saved by Windows editors: a BOM and CRLF line ends.
    let yaml = "\u{feff}name: Windows\r\nentry_point: nobody\r\nagents:\r\n  - id: a\r\n    is_terminal: true\r\n";
    let loaded = load_str("crew.yaml", yaml);
    let lines: Vec<_> = loaded.diagnostics.iter().map(|d| d.to_string()).collect();
    assert_eq!(lines, ["crew.yaml:2:14: entry_point 'nobody' is not an agent"]);
}

/// The lines of a text as YAML 1.2 counts them: CR LF, CR and LF are each one line break.
fn lines_of(text: &str) -> Vec<String> {
    text.replace("\r\n", "\n").replace('\r', "\n").split('\n').map(str::to_owned).collect()
}

/// Regression: an error the parser finds at the very end was placed on a line past
/// the end of the file (`4:1` in a file of three lines), where no editor can go.
#[test]
fn error_found_at_the_end_of_the_file_is_placed_inside_the_file() {
    let loaded = load_str("crew.yaml", ":name: x\n\nend");
    let lines: Vec<_> = loaded.diagnostics.iter().map(|d| d.to_string()).collect();
    assert_eq!(lines, ["crew.yaml:3:4: YAML syntax error: simple key expected"]);
}

/// Regression companion: the same for a value the parser places past the end (an
/// empty list entry on the last line).
#[test]
fn empty_entry_on_the_last_line_is_placed_inside_the_file() {
    let loaded = load_str("crew.yaml", "entry_point: a\nagents:\n  - id: a\n    is_terminal: true\nsignals:\n  - ");
    let lines: Vec<_> = loaded.diagnostics.iter().map(|d| d.to_string()).collect();
    assert_eq!(lines, ["crew.yaml:6:5: missing required field 'signals[0].name'"]);
}

#[test]
fn old_mac_line_endings_count_as_line_breaks() {
    let loaded = load_str("crew.yaml", "name: x\r\rentry_point: nobody\ragents:\r  - id: a\r    is_terminal: true\r");
    let lines: Vec<_> = loaded.diagnostics.iter().map(|d| d.to_string()).collect();
    assert_eq!(lines, ["crew.yaml:3:14: entry_point 'nobody' is not an agent"]);
}

/// Characters that make YAML interesting: structure, quotes, tabs, a BOM, CR, non-ASCII.
fn yamlish() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "name: x\n",
        "entry_point: a\n",
        "agents:\n",
        "  - id: a\n",
        "  - ",
        "    ",
        "\t",
        "\r\n",
        "\n",
        ":",
        "- ",
        "[",
        "]",
        "{",
        "}",
        "\"",
        "'",
        "#",
        "&a ",
        "*a",
        "!tag ",
        "|\n",
        "signals:\n",
        "routing:\n",
        "  signals:\n",
        "    a:\n",
        "      - { signal: \"[END]\", target: \"\" }\n",
        "target: [a, b]\n",
        "Kết",
        "ß",
        "\u{feff}",
        "~",
        "null",
        "12",
        "-1",
        "true",
        "1e9",
    ]);
    prop::collection::vec(pieces, 0..40).prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Whatever the text, loading returns (no panic) and every diagnostic points at
    /// a real line of it.
    #[test]
    fn loading_any_text_never_panics_and_every_position_is_inside_the_file(text in yamlish()) {
        let loaded = load_str("fuzz.yaml", &text);
        let lines = lines_of(text.strip_prefix('\u{feff}').unwrap_or(&text));
        for diagnostic in &loaded.diagnostics {
            let location = diagnostic.location.as_ref();
            prop_assert!(location.is_some(), "{diagnostic} has no position");
            let location = location.unwrap();
            prop_assert!(location.line >= 1 && location.line as usize <= lines.len(), "{diagnostic} is outside {} lines", lines.len());
            let width = lines[location.line as usize - 1].chars().count() as u32;
            prop_assert!(location.column >= 1 && location.column <= width + 1, "{diagnostic} is outside its line of {width}");
        }
        // A crew that loads with no error has a crew to run.
        if !loaded.diagnostics.iter().any(|d| d.is_error()) {
            prop_assert!(loaded.crew.is_some());
        }
    }
}
