//! `crewgraph match`: one signal against one reply (prints the level; exit 0 when
//! matched, 1 when not, 2 for a malformed signal), many cases as JSON on stdin, or
//! (`--explain`) why one agent's reply routes or does not, and what came close.

use std::io::Read;
use std::process::ExitCode;

use super::terminal::{say, tell};
use anyhow::Context;
use crewgraph::api::{match_signal, MatchResult};
use crewgraph_engine::signal::MatchLevel;
use serde::Deserialize;

pub fn run_one(signal: &str, content: &str) -> ExitCode {
    match match_signal(signal, content) {
        Ok(result) => {
            say!("{}", result.level.as_str());
            if result.matched {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(error) => {
            tell!("crewgraph: {error} (a signal is a name in square brackets, like [END])");
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
/// malformed answers `{matched: false, level: "none", error: "…"}`, saying why in
/// the item (and on stderr); the others are answered all the same.
pub fn run_json(mut input: impl Read) -> anyhow::Result<ExitCode> {
    let mut text = String::new();
    input.read_to_string(&mut text).context("cannot read the cases from stdin")?;
    let cases: Vec<Case> =
        serde_json::from_str(&text).context("stdin must be a JSON list of {\"signal\": ..., \"content\": ...} objects")?;
    let answers: Vec<serde_json::Value> = cases
        .iter()
        .enumerate()
        .map(|(index, case)| match match_signal(&case.signal, &case.content) {
            Ok(result) => serde_json::to_value(result),
            Err(error) => {
                tell!("crewgraph: case {index}: {error}");
                let mut item = serde_json::to_value(MatchResult { matched: false, level: MatchLevel::None })?;
                item["error"] = serde_json::Value::String(format!("{error} (a signal is a name in square brackets, like [END])"));
                Ok(item)
            }
        })
        .collect::<Result<_, _>>()?;
    say!("{}", serde_json::to_string(&answers)?);
    Ok(ExitCode::SUCCESS)
}

/// `--explain`: what `content`, as `agent`'s reply in the crew at `crew`, does, and
/// when it does not route, what came close, best first. Exit 0 when it routes.
pub fn explain(crew: &std::path::Path, agent: &str, content: &str) -> ExitCode {
    let api = crewgraph::api::Api::new(crew.parent().unwrap_or(std::path::Path::new(".")));
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            tell!("crewgraph: cannot start: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(api.explain_reply(crew, agent, content)) {
        Ok(explained) => {
            match &explained.signal {
                Some(signal) => say!("{agent}'s reply routes: {signal} ({}), {}", explained.level.as_str(), explained.next),
                None => say!("{agent}'s reply has none of its signals: {}", explained.next),
            }
            for (rank, near) in explained.candidates.iter().enumerate() {
                let edits = match near.distance {
                    0 => String::new(),
                    1 => " (1 edit)".to_owned(),
                    n => format!(" ({n} edits)"),
                };
                say!("  {}. it {}{edits}", rank + 1, near.words());
            }
            if explained.signal.is_some() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(error) => {
            tell!("crewgraph: {}", error.message);
            ExitCode::from(2)
        }
    }
}
