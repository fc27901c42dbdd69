//! Helpers shared by the test modules: where fixtures and example crews are, and
//! diagnostics rendered as `FILE:LINE:COL: message` lines, so a test compares a whole
//! listing at once (an extra or a missing diagnostic fails it, not only a wrong one).
//!
//! Expected positions are computed from the YAML text itself with [`pos`] (where the
//! offending word is), never copied from the engine's output.

use std::path::{Path, PathBuf};

use crewgraph_engine::{load_path, load_str, Crew, Diagnostic, Loaded};

/// The name inline crews are loaded under (`load_str`), as it appears in locations.
pub const NAME: &str = "crew.yaml";

/// `tests/fixtures/` of the engine crate.
pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join("fixtures")
}

/// A fixture file or directory.
pub fn fixture(name: &str) -> PathBuf {
    fixtures_dir().join(name)
}

/// The repository's `crews/` folder of example crews.
pub fn crews_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../crews").canonicalize().expect("the repository has a crews/ folder")
}

/// Loads a fixture from disk, as the CLI does.
pub fn load_fixture(name: &str) -> Loaded {
    load_path(&fixture(name))
}

/// The text of a fixture file.
pub fn fixture_text(name: &str) -> String {
    std::fs::read_to_string(fixture(name)).expect("fixture is readable UTF-8")
}

/// `FILE:LINE:COL: [warning: ]message`, with FILE relative to `base`.
pub fn render(diagnostic: &Diagnostic, base: &Path) -> String {
    let text = diagnostic.to_string();
    let prefix = format!("{}/", base.display());
    text.strip_prefix(&prefix).map(str::to_owned).unwrap_or(text)
}

/// Every diagnostic of a crew loaded from disk, files relative to `base`.
pub fn listing(loaded: &Loaded, base: &Path) -> Vec<String> {
    loaded.diagnostics.iter().map(|d| render(d, base)).collect()
}

/// Every diagnostic of a fixture, files relative to the fixtures folder.
pub fn fixture_listing(loaded: &Loaded) -> Vec<String> {
    listing(loaded, &fixtures_dir())
}

/// Every diagnostic (errors and warnings) of an inline crew, in report order.
pub fn all(loaded: &Loaded) -> Vec<String> {
    loaded.diagnostics.iter().map(ToString::to_string).collect()
}

/// The errors of an inline crew.
pub fn errors(loaded: &Loaded) -> Vec<String> {
    loaded.errors().map(ToString::to_string).collect()
}

/// The warnings of an inline crew.
pub fn warnings(loaded: &Loaded) -> Vec<String> {
    loaded.warnings().map(ToString::to_string).collect()
}

/// Loads an inline crew under [`NAME`].
pub fn load(yaml: &str) -> Loaded {
    load_str(NAME, yaml)
}

/// Loads an inline crew that must have no error (warnings allowed) and returns it.
pub fn valid(yaml: &str) -> Crew {
    let loaded = load(yaml);
    assert!(loaded.is_valid(), "expected a valid crew, got {:#?}", all(&loaded));
    loaded.crew.expect("a valid load has a crew")
}

/// `LINE:COL` (from 1, columns in characters) of the first occurrence of `needle`.
pub fn pos(text: &str, needle: &str) -> String {
    pos_nth(text, needle, 0)
}

/// `LINE:COL` of the `nth` (from 0) occurrence of `needle`.
pub fn pos_nth(text: &str, needle: &str, nth: usize) -> String {
    pos_in(text, needle, nth, needle)
}

/// `LINE:COL` of `part` inside the `nth` occurrence of `needle`: with needle
/// `target: teacher` and part `teacher`, where that target's value starts.
pub fn pos_in(text: &str, needle: &str, nth: usize, part: &str) -> String {
    let (start, _) = text.match_indices(needle).nth(nth).unwrap_or_else(|| panic!("{needle:?} occurs fewer than {} times", nth + 1));
    let inner = needle.find(part).unwrap_or_else(|| panic!("{part:?} is not inside {needle:?}"));
    let before = &text[..start + inner];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    format!("{line}:{column}")
}

/// `crew.yaml:LINE:COL: message`, the position being where `needle` is in `yaml`.
pub fn at(yaml: &str, needle: &str, message: &str) -> String {
    format!("{NAME}:{}: {message}", pos(yaml, needle))
}

/// [`at`] for the `nth` occurrence of `needle`.
pub fn at_nth(yaml: &str, needle: &str, nth: usize, message: &str) -> String {
    format!("{NAME}:{}: {message}", pos_nth(yaml, needle, nth))
}
