//! The fuzz targets' corpora and regressions, run as tests (docs/testing.md): every
//! file of `fuzz/corpus/<target>/` (inputs the fuzzer kept, seeded from the
//! examples) and `fuzz/regressions/<target>/` (inputs that once crashed or broke a
//! property) goes through the target's body in `fuzz/src/lib.rs` — the very file the
//! fuzzer runs — so `make test` keeps checking what fuzzing found, without libFuzzer.
//!
//! Inputs of defects whose fix has not landed are listed in `fuzz/regressions/OPEN`;
//! they are skipped here (and named), and those that panic are run by the ignored
//! test `open_defects_are_fixed` (those that exhaust memory only by the fuzzer).

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

#[path = "../../../../../fuzz/src/lib.rs"]
mod targets;

/// A fuzz target: its name (its folders' name) and its body.
type Target = (&'static str, fn(&[u8]));

/// Every fuzz target.
const TARGETS: [Target; 10] = [
    ("loader", targets::loader),
    ("matcher", targets::matcher),
    ("script", targets::script),
    ("calculator", targets::calculator),
    ("openai_stream", targets::openai_stream),
    ("anthropic_stream", targets::anthropic_stream),
    ("router_answer", targets::router_answer),
    ("gatekeeper_answer", targets::gatekeeper_answer),
    ("recording", targets::recording),
    ("tool_json", targets::tool_json),
];

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../fuzz")
}

/// How an open defect's input fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Failure {
    /// A panic (a broken property is one): safe to run in-process.
    Panic,
    /// It exhausts memory: only the fuzzer, with its memory limit, may run it.
    Memory,
}

/// `target/file` of each open defect's input, with how it fails.
fn open_defects() -> BTreeMap<String, Failure> {
    let text = std::fs::read_to_string(fuzz_dir().join("regressions/OPEN")).unwrap_or_default();
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let mut words = l.split_whitespace();
            let (input, kind) = (words.next().unwrap_or_default(), words.next().unwrap_or_default());
            let failure = match kind {
                "panic" => Failure::Panic,
                "memory" => Failure::Memory,
                other => panic!("fuzz/regressions/OPEN: {input} fails by '{other}', not by panic or memory"),
            };
            (input.to_owned(), failure)
        })
        .collect()
}

/// The files of `fuzz/<kind>/<target>/`, sorted, as `(target/file, path)`.
fn inputs(kind: &str, target: &str) -> Vec<(String, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(fuzz_dir().join(kind).join(target)) else { return Vec::new() };
    let mut files: Vec<(String, PathBuf)> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .map(|p| (format!("{target}/{}", p.file_name().unwrap_or_default().to_string_lossy()), p))
        .collect();
    files.sort();
    files
}

/// Runs `inputs` through `body`; the names of those that panic.
fn failures(body: fn(&[u8]), inputs: &[(String, PathBuf)]) -> Vec<String> {
    inputs
        .iter()
        .filter(|(_, path)| {
            let data = std::fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
            catch_unwind(AssertUnwindSafe(|| body(&data))).is_err()
        })
        .map(|(name, _)| name.clone())
        .collect()
}

/// One target: its corpus must exist, and no input of it or its regressions may fail.
fn run(target: &str) {
    let body = TARGETS.iter().find(|(name, _)| *name == target).map(|(_, body)| *body).expect("a target");
    let corpus = inputs("corpus", target);
    assert!(!corpus.is_empty(), "fuzz/corpus/{target}/ is empty: seed it (docs/testing.md)");
    let open = open_defects();
    let (skipped, regressions): (Vec<_>, Vec<_>) = inputs("regressions", target).into_iter().partition(|(name, _)| open.contains_key(name));
    for (name, _) in &skipped {
        eprintln!("skipped fuzz/regressions/{name}: its defect is open (fuzz/regressions/OPEN)");
    }
    let failed = failures(body, &[corpus, regressions].concat());
    assert!(failed.is_empty(), "the fuzz target {target} fails on: {failed:?} (the panics are printed above)");
}

#[test]
fn the_loader_handles_its_corpus() {
    run("loader");
}

#[test]
fn the_matcher_handles_its_corpus() {
    run("matcher");
}

#[test]
fn the_script_reader_handles_its_corpus() {
    run("script");
}

#[test]
fn the_calculator_handles_its_corpus() {
    run("calculator");
}

#[test]
fn the_openai_stream_parser_handles_its_corpus() {
    run("openai_stream");
}

#[test]
fn the_anthropic_stream_parser_handles_its_corpus() {
    run("anthropic_stream");
}

#[test]
fn the_local_models_tool_json_reader_handles_its_corpus() {
    run("tool_json");
}

#[test]
fn the_router_answer_parser_handles_its_corpus() {
    run("router_answer");
}

#[test]
fn the_gatekeeper_answer_parser_handles_its_corpus() {
    run("gatekeeper_answer");
}

#[test]
fn the_recording_reader_handles_its_corpus() {
    run("recording");
}

/// Every folder under `fuzz/corpus/` and `fuzz/regressions/` is a target's, so no
/// input sits where no test reads it.
#[test]
fn every_fuzz_folder_belongs_to_a_target() {
    for kind in ["corpus", "regressions"] {
        for entry in std::fs::read_dir(fuzz_dir().join(kind)).expect("the fuzz folder").filter_map(Result::ok) {
            let name = entry.file_name().to_string_lossy().into_owned();
            if entry.path().is_dir() {
                assert!(TARGETS.iter().any(|(t, _)| *t == name), "fuzz/{kind}/{name}/ is no target's");
            }
        }
    }
    let regressions: Vec<String> = TARGETS.iter().flat_map(|(t, _)| inputs("regressions", t)).map(|(name, _)| name).collect();
    for open in open_defects().keys() {
        assert!(regressions.contains(open), "fuzz/regressions/OPEN lists {open}, which is not there");
    }
}

/// The inputs of open defects that panic (`fuzz/regressions/OPEN`): passes once
/// all are fixed. Those that exhaust memory are only named.
#[test]
#[ignore = "defects found by fuzzing whose fix has not landed (fuzz/regressions/OPEN)"]
fn open_defects_are_fixed() {
    let mut failed = Vec::new();
    for (open, failure) in open_defects() {
        if failure == Failure::Memory {
            eprintln!("not run: fuzz/regressions/{open} exhausts memory (run it with cargo fuzz, docs/testing.md)");
            continue;
        }
        let (target, _) = open.split_once('/').expect("target/file");
        let body = TARGETS.iter().find(|(name, _)| *name == target).map(|(_, body)| *body).expect("a target");
        failed.extend(failures(body, &[(open.clone(), fuzz_dir().join("regressions").join(&open))]));
    }
    assert!(failed.is_empty(), "still failing: {failed:?}");
}
