//! `crewgraph match`: one signal against one reply (prints the level; exit 0 when
//! matched, 1 when not, 2 for a malformed signal), or many cases as JSON on stdin.

use std::io::Read;
use std::process::ExitCode;

use anyhow::Context;
use crewgraph::api::{match_signal, MatchResult};
use crewgraph_engine::signal::MatchLevel;
use serde::Deserialize;

pub fn run_one(signal: &str, content: &str) -> ExitCode {
    match match_signal(signal, content) {
        Ok(result) => {
            println!("{}", result.level.as_str());
            if result.matched {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(error) => {
            eprintln!("crewgraph: {error} (a signal is a name in square brackets, like [END])");
            ExitCode::from(2)
        }
    }
}

#[derive(Deserialize)]
struct Case {
    signal: String,
    content: String,
}

/// Reads `[{signal, content}]`, prints `[{matched, level}]`. A case whose signal is
/// malformed answers `{matched: false, level: "none"}` and is reported on stderr.
pub fn run_json(mut input: impl Read) -> anyhow::Result<ExitCode> {
    let mut text = String::new();
    input.read_to_string(&mut text).context("cannot read the cases from stdin")?;
    let cases: Vec<Case> = serde_json::from_str(&text)
        .context("stdin must be a JSON list of {\"signal\": ..., \"content\": ...} objects")?;
    let answers: Vec<MatchResult> = cases
        .iter()
        .enumerate()
        .map(|(index, case)| {
            match_signal(&case.signal, &case.content).unwrap_or_else(|error| {
                eprintln!("crewgraph: case {index}: {error}");
                MatchResult { matched: false, level: MatchLevel::None }
            })
        })
        .collect();
    println!("{}", serde_json::to_string(&answers)?);
    Ok(ExitCode::SUCCESS)
}
